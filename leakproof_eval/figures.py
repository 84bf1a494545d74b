"""The paper's figures from a report, drawn with matplotlib (the `report` extra), each PNG with the values it plots
written beside it as a TSV (series, panel, x, y, count), so what a figure shows can be read back and checked.

* by_difficulty: F1 and ADTScore against the question's difficulty (reasoning steps), for every task with logged
  documents, and agent runs' F1 when the run names its universe (the questions are made again to know their
  difficulty);
* by_distractors: the same against the number of distractor documents an instance shows (the ablation layout's
  0/20/40/60/80, or the fixed layout's per-row draw);
* by_prompt_length: the same against the prompt's length in characters, in five bins of equal size (tokens
  depend on the tokenizer: about four characters each);
* by_category: accuracy on the answerable documents and on each kind that must be refused;
* by_universe_size: each task's ADTScore and F1 against the number of people (two sizes or more);
* agent_tool_calls: agents' F1 against the tool calls a question took, with each universe's minimum marked.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from leakproof_qa.builders.phantomwiki.config import Settings

from .breakdowns import category_accuracy, category_key, grouped, scores_of
from .results import AgentRun, Report, ReportError, Sample, TaskResult

PANEL_TITLES = {"f1": "F1", "adt_score": "ADTScore", "accuracy": "accuracy"}
PROMPT_BINS = 5
AGENT_BINS = 12


@dataclass(frozen=True)
class Point:
    series: str
    panel: str
    x: float | str
    y: float
    count: int


@dataclass
class Plot:
    """One figure: its file name, caption, axis label, panels (one per metric) and points."""

    name: str
    caption: str
    xlabel: str
    panels: tuple[str, ...]
    points: list[Point] = field(default_factory=list)
    marks: list[Point] = field(default_factory=list)  # vertical lines at x (e.g. the minimum tool calls)
    bars: bool = False
    log_x: bool = False  # universe sizes span 50 to a million


def _label(result: TaskResult) -> str:
    return f"{result.model} · {result.universe} · {result.task.removeprefix('phantom_wiki_')}"


def _run_label(run: AgentRun) -> str:
    return f"{run.model} · {run.universe} · agent {run.mode}/{run.tools}"


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not math.isnan(value)


def _curves(
    plot: Plot, series: str, groups: dict[Any, list[Sample]], x_of: Callable[[Any, list[Sample]], float]
) -> None:
    """A point per group and panel: the task's own aggregation over the group's documents."""
    for key in sorted(groups):
        scores = scores_of(groups[key])
        for panel in plot.panels:
            if _finite(scores.get(panel)):
                plot.points.append(Point(series, panel, x_of(key, groups[key]), float(scores[panel]), len(groups[key])))


def _logged(report: Report) -> list[TaskResult]:
    return sorted(
        (r for r in report.chosen.values() if r.samples and r.task != "phantom_wiki"),
        key=lambda r: (r.model, r.universe, r.task),
    )


def by_difficulty(report: Report) -> Plot:
    plot = Plot(
        "by_difficulty", "F1 and ADTScore against difficulty", "difficulty (reasoning steps)", ("f1", "adt_score")
    )
    for result in _logged(report):
        assert result.samples is not None
        _curves(plot, _label(result), grouped(result.samples, lambda s: s.difficulty), lambda key, _: float(key))
    for run in report.runs:
        difficulty = question_difficulties(run)
        rows = [q for q in run.questions if q["id"] in difficulty]
        groups = grouped(rows, lambda q: difficulty[q["id"]])  # noqa: B023 (grouped calls it at once)
        for key in sorted(groups):
            group = groups[key]
            plot.points.append(
                Point(_run_label(run), "f1", float(key), sum(q["f1"] for q in group) / len(group), len(group))
            )
    return plot


def question_difficulties(run: AgentRun) -> dict[str, int]:
    """Question id -> difficulty for an agent run whose run.json names its universe (the questions made again)."""
    return {} if run.settings is None or not run.questions else _difficulties(run.settings)


@cache
def _difficulties(settings: Settings) -> dict[str, int]:
    from leakproof_qa.builders.phantomwiki.rows import generate

    return {q.id: q.difficulty for q in generate(settings, with_questions=True, with_articles=False).questions}


def by_distractors(report: Report) -> Plot:
    plot = Plot(
        "by_distractors", "F1 and ADTScore against the distractors shown", "distractor documents", ("f1", "adt_score")
    )
    for result in _logged(report):
        assert result.samples is not None
        shown = [s for s in result.samples if s.distractors is not None]
        _curves(plot, _label(result), grouped(shown, lambda s: s.distractors), lambda key, _: float(key))
    return plot


def by_prompt_length(report: Report) -> Plot:
    plot = Plot(
        "by_prompt_length",
        f"F1 and ADTScore against prompt length ({PROMPT_BINS} bins of equal size)",
        "prompt length, thousand characters (bin mean)",
        ("f1", "adt_score"),
    )
    for result in _logged(report):
        assert result.samples is not None
        ordered = sorted(result.samples, key=lambda s: s.prompt_chars)
        if len(ordered) < 2 * PROMPT_BINS or ordered[0].prompt_chars == ordered[-1].prompt_chars:
            continue
        groups = {
            part: ordered[len(ordered) * part // PROMPT_BINS : len(ordered) * (part + 1) // PROMPT_BINS]
            for part in range(PROMPT_BINS)
        }
        _curves(plot, _label(result), groups, lambda _, group: sum(s.prompt_chars for s in group) / len(group) / 1000)
    return plot


def by_category(report: Report) -> Plot:
    plot = Plot(
        "by_category", "Accuracy by category (answerable, and each kind to refuse)", "", ("accuracy",), bars=True
    )
    for result in _logged(report):
        assert result.samples is not None
        for name, (value, count) in category_accuracy(result.samples).items():
            plot.points.append(Point(_label(result), "accuracy", name, value, count))
    return plot


def by_universe_size(report: Report) -> Plot:
    plot = Plot(
        "by_universe_size",
        "ADTScore and F1 against universe size",
        "people in the universe (log scale)",
        ("adt_score", "f1"),
        log_x=True,
    )
    series: dict[str, dict[int, list[TaskResult]]] = {}
    for result in report.chosen.values():
        if result.size is not None:
            series.setdefault(f"{result.model} · {result.task.removeprefix('phantom_wiki_')}", {}).setdefault(
                result.size, []
            ).append(result)
    for label in sorted(series):
        sizes = series[label]
        if len(sizes) < 2:
            continue
        for size in sorted(sizes):
            for panel in plot.panels:
                values = [r.metrics[panel] for r in sizes[size] if _finite(r.metrics.get(panel))]
                if values:
                    plot.points.append(Point(label, panel, float(size), sum(values) / len(values), len(values)))
    return plot


def agent_tool_calls(report: Report) -> Plot:
    plot = Plot(
        "agent_tool_calls",
        "Agents: F1 against the tool calls a question took (dashed: each universe's mean minimum)",
        "tool calls per question (bin mean)",
        ("f1",),
    )
    minimum: dict[str, list[int]] = {}
    for run in sorted(report.runs, key=_run_label):
        if not run.questions:
            continue
        most = max(q["tool_calls"] for q in run.questions)
        width = max(1, math.ceil((most + 1) / AGENT_BINS))
        groups = grouped(run.questions, lambda q: q["tool_calls"] // width)  # noqa: B023 (called at once)
        minimum.setdefault(run.universe, []).extend(q["minimum_calls"] for q in run.questions)
        for key in sorted(groups):
            group = groups[key]
            x = sum(q["tool_calls"] for q in group) / len(group)
            plot.points.append(Point(_run_label(run), "f1", x, sum(q["f1"] for q in group) / len(group), len(group)))
    for universe in sorted(minimum):
        calls = minimum[universe]
        plot.marks.append(Point(f"minimum · {universe}", "f1", sum(calls) / len(calls), math.nan, len(calls)))
    return plot


PLOTS: tuple[Callable[[Report], Plot], ...] = (
    by_difficulty,
    by_distractors,
    by_prompt_length,
    by_category,
    by_universe_size,
    agent_tool_calls,
)


def write_table(plot: Plot, path: Path) -> None:
    """The plotted values, one line per point (and per mark, panel `mark`), floats written to read back exactly."""
    lines = ["series\tpanel\tx\ty\tcount"]
    for point in plot.points:
        lines.append(f"{point.series}\t{point.panel}\t{point.x!r}\t{point.y!r}\t{point.count}")
    for mark in plot.marks:
        lines.append(f"{mark.series}\tmark\t{mark.x!r}\t\t{mark.count}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_table(path: Path) -> list[dict[str, Any]]:
    """A figure's TSV as rows (x and y as floats where they are numbers), the inverse of write_table."""
    header, *lines = path.read_text(encoding="utf-8").splitlines()
    rows = []
    for line in lines:
        row: dict[str, Any] = dict(zip(header.split("\t"), line.split("\t")))
        for key in ("x", "y"):
            try:
                row[key] = float(row[key])
            except ValueError:
                row[key] = row[key].strip("'")
        row["count"] = int(row["count"])
        rows.append(row)
    return rows


DODGE = 0.02
"""How far apart, as a share of the x axis, series are drawn side by side: identical series stay all visible."""
MARKERS = "osD^v<>pP*"
LINESTYLES = ("-", "--", ":", "-.")


def drawn_panels(plot: Plot) -> list[str]:
    """The panels that have points (an agent-only figure has no ADTScore)."""
    return [panel for panel in plot.panels if any(point.panel == panel for point in plot.points)]


def caption(plot: Plot) -> str:
    """The plot's caption naming only the metrics its panels hold ("F1 against ..." when there is no ADTScore)."""
    shown = drawn_panels(plot)
    for prefix in ("F1 and ADTScore", "ADTScore and F1"):
        if plot.caption.startswith(prefix) and len(shown) < 2:
            return " and ".join(PANEL_TITLES.get(p, p) for p in shown) + plot.caption.removeprefix(prefix)
    return plot.caption


def dodged(xs: list[float], index: int, count: int, span: tuple[float, float], log_x: bool) -> list[float]:
    """`xs` of series `index` of `count` moved sideways by its share of DODGE, so series on the same values are drawn
    beside each other instead of over each other (the TSV keeps the exact values)."""
    shift = (index - (count - 1) / 2) * DODGE
    if log_x:
        low, high = math.log10(max(span[0], 1e-12)), math.log10(max(span[1], 1e-12))
        return [x * 10 ** (shift * max(high - low, 1.0)) for x in xs]
    return [x + shift * max(span[1] - span[0], 1.0) for x in xs]


def draw(plot: Plot, path: Path) -> None:
    """The plot as a PNG: one panel per metric, titled; one line (or bar group) per series, each with its own
    marker and line style and dodged sideways so that equal series stay visible; every point labelled with its
    count (n); a zero bar marked; marks as dashed lines."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    series = list(dict.fromkeys(point.series for point in plot.points))
    panels = drawn_panels(plot)
    figure = Figure(figsize=(6.0 * len(panels), 4.2 + 0.22 * len(series)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, len(panels), squeeze=False)[0]
    categories = sorted({str(p.x) for p in plot.points}, key=category_key) if plot.bars else []
    numbers = [float(p.x) for p in plot.points if not plot.bars]
    span = (min(numbers), max(numbers)) if numbers else (0.0, 1.0)
    for panel, ax in zip(panels, axes):
        for index, name in enumerate(series):
            points = sorted((p for p in plot.points if p.series == name and p.panel == panel), key=lambda p: str(p.x))
            style = {"color": f"C{index % 10}", "marker": MARKERS[index % len(MARKERS)]}
            if plot.bars:
                width = 0.8 / len(series)
                xs = [categories.index(str(p.x)) - 0.4 + width * (index + 0.5) for p in points]
                ax.bar(xs, [p.y for p in points], width=width, label=name, color=style["color"])
                zeros = [x for x, p in zip(xs, points) if p.y == 0]
                ax.plot(zeros, [0.0] * len(zeros), linestyle="none", marker="x", color=style["color"])  # a 0 bar
            else:
                points.sort(key=lambda p: float(p.x))
                xs = dodged([float(p.x) for p in points], index, len(series), span, plot.log_x)
                linestyle = LINESTYLES[index // len(MARKERS) % len(LINESTYLES)]
                ax.plot(xs, [p.y for p in points], label=name, linestyle=linestyle, **style)
            for x, point in zip(xs, points):
                ax.annotate(
                    f"n={point.count}",
                    (x, point.y),
                    textcoords="offset points",
                    xytext=(0, 4 if plot.bars else 4 + 7 * index),
                    fontsize=6,
                    ha="center",
                    color=style["color"],
                )
        for mark in plot.marks:
            ax.axvline(float(mark.x), linestyle="--", color="0.4", linewidth=1)
            ax.annotate(mark.series, (float(mark.x), 1.0), rotation=90, va="top", ha="right", fontsize=7, color="0.3")
        if plot.bars:
            ax.set_xticks(range(len(categories)), [c.replace("_", " ") for c in categories], rotation=20, ha="right")
        if plot.log_x:
            ax.set_xscale("log")
        ax.set_title(PANEL_TITLES.get(panel, panel))
        ax.set_xlabel(plot.xlabel)
        ax.set_ylabel(PANEL_TITLES.get(panel, panel))
        ax.set_ylim(-0.05, 1.08)
        ax.grid(True, alpha=0.3)
    figure.suptitle(
        textwrap.fill(caption(plot) + " (n: documents or questions per point)", 64 * len(panels)), fontsize=11
    )
    if series:
        figure.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", fontsize=8, ncols=1)
    figure.savefig(path, dpi=100, metadata={"Software": None})


def write_figures(report: Report, out: Path) -> list[tuple[str, str]]:
    """Draw every figure that has something to show into `out` (PNG + TSV): a line figure needs two values of x (rows
    that all show as many distractors give no figure against them). (file name, caption) of each."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ReportError(
            "--out draws figures with matplotlib, which is not installed: pip install 'leakproof-qa[report]' "
            "(or leave out --out to print the tables)"
        ) from None
    drawn = []
    for make in PLOTS:
        plot = make(report)
        if len({point.x for point in plot.points}) < (1 if plot.bars else 2):  # a line needs two places to go
            continue
        write_table(plot, out / f"{plot.name}.tsv")
        draw(plot, out / f"{plot.name}.png")
        drawn.append((f"{plot.name}.png", caption(plot)))
    return drawn
