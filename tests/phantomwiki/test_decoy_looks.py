"""What a decoy shares with the gold option, on hand-made lines and dates (options.py: Likeness, Spread)."""

from __future__ import annotations

from collections import Counter

from leakproof_qa.builders.phantomwiki.options import FAR, Likeness, Spread, _Candidates, _distinct, _drawer
from leakproof_qa.builders.rng import stream

LINES = [
    ["Ann Lee", "Bo Lee", "Cy Lee"],  # the children of someone
    ["Cy Lee", "Di Ma"],  # Cy's friends
    ["Ed Ng", "Fay Ng"],
    ["Gus Oh", "Hal Oh", "Ida Oh"],
]


def test_names_are_in_one_part_when_a_line_lists_them_together_or_through_a_name_between():
    like = Likeness.of([], {}, LINES)
    assert like.parts(["Ann Lee", "Bo Lee"]) == 1
    assert like.parts(["Ann Lee", "Di Ma"]) == 2  # Cy Lee's two lines would join them, but Cy is not an option's
    assert like.parts(["Ann Lee", "Cy Lee", "Di Ma"]) == 1
    assert like.partition(["Ann Lee", "Ed Ng", "Fay Ng"]) == [["Ann Lee"], ["Ed Ng", "Fay Ng"]]
    assert like.parts(["Ann Lee", "Ed Ng", "Gus Oh"]) == 3
    assert like.parts(["Ann Lee", "Zed Unlisted"]) == 2  # a name no line lists is a part of its own


def test_a_decoy_drawn_part_by_part_has_the_gold_options_parts_and_surnames():
    like = Likeness.of([], {}, LINES)
    gold = ["Ann Lee", "Bo Lee", "Ed Ng"]  # two parts: two Lees of one line, and one Ng
    draw = like.mixer(stream(1, "test"), gold, LINES)
    assert draw is not None
    drawn = [found for found in (draw() for _ in range(60)) if found]
    assert len(drawn) > 30
    assert all(sorted(Counter(name.split()[1] for name in found).values()) == [1, 2] for found in drawn)
    assert sum(like.parts(found) == like.parts(gold) == 2 for found in drawn) > len(drawn) / 2  # the look keeps these
    kept = _Candidates(like, gold, wanted=4)
    for found in drawn:
        kept.add(found, exact=True)
    assert kept.exact and all(like.parts(option.split(", ")) == 2 for option in kept.exact)
    assert like.mixer(stream(1, "test"), ["Ann Lee", "Ed Ng", "Gus Oh"], LINES) is None  # a part a name: any mix


def test_a_date_decoys_span_falls_in_a_band_where_the_gold_stands_at_the_given_place():
    gold = ["1000-01-01", "1004-01-01"]  # 4 years: log2(5)
    low = Spread.of(gold, 0.0)
    high = Spread.of(gold, 1.0)
    assert low.look(gold) == high.look(gold) == (0,)
    wider = ["1000-01-01", "1008-01-01"]  # log2(9): within one doubling above
    assert low.look(wider) == (0,) and high.look(wider) == (1,)
    closer = ["1000-01-01", "1002-01-01"]  # log2(3): within one doubling below
    assert low.look(closer) == (-1,) and high.look(closer) == (0,)


def test_a_date_decoy_is_drawn_from_the_shown_dates_within_the_band():
    gold = ["1000-01-01", "1003-01-01", "1004-01-01"]
    shown = [[f"{year:04d}-0{month}-01" for year in range(960, 1060, 3) for month in (1, 5)]]
    spread = Spread.of(gold, 0.5)
    draw = spread.mixer(stream(2, "test"), gold, shown)
    assert draw is not None
    drawn = [found for found in (draw() for _ in range(50)) if found]
    assert len(drawn) > 25
    assert all(len(found) == 3 and set(found) <= set(shown[0]) for found in drawn)
    assert sum(spread.look(found) == (0,) for found in drawn) > 0.7 * len(drawn)


def test_values_are_drawn_as_often_as_the_shown_articles_give_them():
    rng = stream(3, "test")
    drawn = Counter(_distinct(rng, ["judo", "judo", "judo", "tango"], 1)[0] for _ in range(2000))
    assert 0.70 < drawn["judo"] / 2000 < 0.80
    both = _drawer(rng, ["judo", "judo", "tango", "chess"], 2, None, {})()
    assert len(both) == 2 and len(set(both)) == 2


def test_far_decoys_are_kept_only_to_make_two_options():
    like = Likeness.of([], {"Di Ma": 4}, LINES)
    gold = ["Di Ma"]  # named by 4 shown articles, the decoys by none
    found = _Candidates(like, gold, wanted=4)
    found.add(["Gus Oh"], exact=False)
    found.add(["Ida Oh"], exact=False)
    assert len(found.short) == 2 and all(distance > FAR for distance, _, _ in found.short)
    assert len(found.decoys()) == 1  # with the gold, two options but "Unanswerable"
    without_gold = _Candidates(like, gold, wanted=5)
    without_gold.add(["Gus Oh"], exact=False)
    without_gold.add(["Ida Oh"], exact=False)
    assert len(without_gold.decoys()) == 2
