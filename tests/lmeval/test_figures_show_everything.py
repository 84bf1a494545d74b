"""Figures hide no data (issue 38): identical series are drawn side by side, a caption names only the metrics its
panels hold, and every point carries its count."""

from __future__ import annotations

import pytest

from leakproof_qa.leakproof_eval.figures import Plot, Point, caption, dodged, draw, drawn_panels


def _plot(bars: bool = False) -> Plot:
    plot = Plot("by_difficulty", "F1 and ADTScore against difficulty", "difficulty", ("f1", "adt_score"), bars=bars)
    for series in ("oracle · n50_s1 · rag", "oracle · n50_s1 · instances", "gemma · n50_s1 · rag"):
        for x, y, n in ((2.0, 1.0, 6), (5.0, 0.0, 9)):
            plot.points.append(Point(series, "f1", "answerable" if bars else x, y, n))
    return plot


def test_identical_series_are_drawn_beside_each_other_not_over_each_other():
    xs = [dodged([2.0, 5.0], index, 3, (2.0, 5.0), log_x=False) for index in range(3)]
    assert len({tuple(x) for x in xs}) == 3  # three series on the same values: three places
    assert all(abs(a - b) < 0.1 for row in xs for a, b in zip(row, [2.0, 5.0]))  # each beside its true value
    logs = [dodged([50.0, 500.0], index, 2, (50.0, 500.0), log_x=True) for index in range(2)]
    assert logs[0] != logs[1] and all(40 < x < 60 for x in (logs[0][0], logs[1][0]))


def test_a_figure_s_caption_names_only_the_metrics_it_shows():
    plot = _plot()
    assert drawn_panels(plot) == ["f1"] and caption(plot) == "F1 against difficulty"
    plot.points.append(Point("oracle · n50_s1 · rag", "adt_score", 2.0, 1.0, 6))
    assert caption(plot) == "F1 and ADTScore against difficulty"


@pytest.mark.parametrize("bars", [False, True])
def test_a_figure_with_zeros_and_equal_series_draws(bars, tmp_path):
    pytest.importorskip("matplotlib")
    draw(_plot(bars), tmp_path / "figure.png")
    assert (tmp_path / "figure.png").stat().st_size > 1000
