"""What a decoy shares with the gold option, on hand-made lines and dates (options.py: Likeness; date_decoys.py)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from leakproof_qa.builders.phantomwiki.date_decoys import _middle, _ranges, _span, date_decoys, year_of
from leakproof_qa.builders.phantomwiki.options import FAR, Likeness, _Candidates, _distinct, _drawer
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
    draw = like.mixer(stream(1, "test"), gold, LINES, {})
    assert draw is not None
    drawn = [found for found in (draw() for _ in range(60)) if found]
    assert len(drawn) > 30
    assert all(sorted(Counter(name.split()[1] for name in found).values()) == [1, 2] for found in drawn)
    assert sum(like.parts(found) == like.parts(gold) == 2 for found in drawn) > len(drawn) / 2  # the look keeps these
    kept = _Candidates(like, gold, wanted=4)
    for found in drawn:
        kept.add(found, exact=True)
    assert kept.exact and all(like.parts(option.split(", ")) == 2 for option in kept.exact)
    assert like.mixer(stream(1, "test"), ["Ann Lee", "Ed Ng", "Gus Oh"], LINES, {}) is None  # a part a name: any mix


SHOWN_DATES = [f"{year:04d}-0{month}-01" for year in range(960, 1060, 3) for month in (1, 5)]


def _decoys_of(gold: list[str], shown: list[str], seeds: int = 200) -> list[list[list[str]]]:
    return [date_decoys(stream(seed, "test"), gold, shown, [], 4) for seed in range(seeds)]


def test_date_decoys_are_shown_dates_as_many_as_the_golds_and_never_the_gold():
    gold = ["1002-01-01", "1005-01-01", "1005-05-01"]
    for decoys in _decoys_of(gold, SHOWN_DATES + gold, 50):
        assert len(decoys) == 4 and len({frozenset(d) for d in decoys}) == 4
        assert all(len(set(d)) == 3 and set(d) <= set(SHOWN_DATES + gold) and set(d) != set(gold) for d in decoys)


def test_the_golds_span_is_as_often_the_closest_as_the_widest_where_the_dates_allow_both():
    gold = ["1002-01-01", "1005-01-01"]  # 3 years: closer and wider pairs abound
    closer = Counter(sum(_span(d) < _span(gold) for d in decoys) for decoys in _decoys_of(gold, SHOWN_DATES + gold))
    assert set(closer) == {0, 1, 2, 3, 4}
    assert closer[0] < closer[4]  # "none closer" is weighed down: elsewhere the documents force it
    assert all(count > 20 for count in closer.values())


def test_where_no_shown_dates_lie_closer_every_decoy_is_wider():
    gold = ["1000-01-01", "1000-02-01"]  # a month apart: the shown dates are years apart
    for decoys in _decoys_of(gold, SHOWN_DATES + gold, 30):
        assert len(decoys) == 4 and all(_span(d) > _span(gold) for d in decoys)


def test_where_fewer_sets_are_shown_than_decoys_wanted_every_one_is_a_decoy():
    children = ["1040-03-02", "1043-07-09"]
    for parent in ("1012-05-05", "1060-05-05"):  # earlier or later than the gold: both sets holding it are decoys
        for seed in range(5):
            decoys = date_decoys(stream(seed, "test"), children, [parent, *children], [], 4)
            assert sorted(map(sorted, decoys)) == sorted(sorted([parent, child]) for child in children)


def test_date_decoys_share_no_date_with_the_other_options_where_the_dates_allow():
    gold = ["1002-01-01", "1005-01-01"]
    for decoys in _decoys_of(gold, SHOWN_DATES + gold, 50):
        used = [date for option in [gold, *decoys] for date in option]
        assert len(used) == len(set(used))


def test_the_sets_counted_in_a_cell_are_those_a_brute_force_count_finds():
    years = sorted(year_of(date) for date in SHOWN_DATES[:24])
    middle = 975.0
    for k in (2, 3, 4):
        for low, high in ((0.0, 5.0), (4.0, 9.0), (2.5, None)):
            for era in (0, 1):
                count, _ = _ranges(years, k, low, high, era, middle)
                brute = sum(
                    1
                    for chosen in combinations(years, k)
                    if low < max(chosen) - min(chosen)
                    and (high is None or max(chosen) - min(chosen) < high)
                    and ((max(chosen) + min(chosen)) / 2 < middle) == (era == 0)
                )
                assert count == brute, (k, low, high, era)


def test_the_golds_dates_are_as_often_the_earliest_as_the_latest_where_the_dates_allow_both():
    gold = ["1002-01-01", "1005-01-01"]  # in the middle of the shown dates
    earlier = Counter(
        sum(_middle(d) < _middle(gold) for d in decoys) for decoys in _decoys_of(gold, SHOWN_DATES + gold)
    )
    assert set(earlier) == {0, 1, 2, 3, 4} and all(count > 20 for count in earlier.values())


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


def test_a_group_passed_over_for_exact_decoys_holds_no_names_that_look_like_the_gold():
    """_Candidates.may_match lets the exact phase skip a group none of whose draws could be kept: it may say yes
    wrongly (the draws then keep nothing), never no wrongly, or decoys the draws would have found are lost."""
    rng = stream(3, "test")
    surnames = ["Lee", "Ma", "Ng", "Oh"]
    names = [f"{given} {surname}" for given in ("Ann", "Bo", "Cy", "Di", "Ed") for surname in surnames]
    skipped = 0
    for _ in range(400):
        lines = [
            sorted({names[int(rng.random() * len(names))] for _ in range(2 + int(rng.random() * 4))}) for _ in range(5)
        ]
        mentions = {name: int(rng.random() * 6) for name in names}
        asked = [names[int(rng.random() * len(names))]]
        titled = [name for name in names if rng.random() < 0.4]
        like = Likeness.of(asked, mentions, lines, titled)
        listed = sorted({name for line in lines for name in line})
        k = 1 + int(rng.random() * 3)
        gold = [listed[int(rng.random() * len(listed))] for _ in range(k)]
        if len(set(gold)) < k:
            continue
        found = _Candidates(like, gold, wanted=4)
        for group, one_line in [*((line, True) for line in lines), (listed, False)]:
            if found.may_match(group, one_line):
                continue
            skipped += 1
            assert not any(like.look(list(drawn)) == found.target for drawn in combinations(sorted(set(group)), k))
    assert skipped > 300  # the rule is tried, not vacuously true


def test_in_a_real_universe_every_group_the_exact_phase_passes_over_holds_no_decoy_it_would_have_kept(monkeypatch):
    """The skip as _from_groups wires it (which groups count as one shown line, near misses, every k): each group
    passed over is checked against every k of its names, on a universe's instance rows made from scratch."""
    from leakproof_qa.builders.phantomwiki.config import settings_from
    from leakproof_qa.builders.phantomwiki.instances import build_instances
    from leakproof_qa.builders.phantomwiki.rows import generate

    passed_over: list[tuple[list[str], bool, Likeness, tuple[int, ...], int]] = []
    may_match = _Candidates.may_match

    def recorded(self: _Candidates, names: list[str], one_line: bool) -> bool:
        found = may_match(self, names, one_line)
        if not found:
            passed_over.append((list(names), one_line, self.like, self.target, self.k))
        return found

    monkeypatch.setattr(_Candidates, "may_match", recorded)
    build_instances(generate(settings_from("n500_s2")[0]))
    assert len(passed_over) > 1000 and {one_line for *_, one_line, _, _, _ in passed_over} == {True, False}
    assert len({k for *_, k in passed_over}) >= 3
    for names, one_line, like, target, k in passed_over:
        if one_line:  # a shown line: its names share a line, so they are one part
            assert set.intersection(*(set(like.lines[name]) for name in set(names)))
        assert not any(like.look(list(drawn)) == target for drawn in combinations(sorted(set(names)), k)), names
