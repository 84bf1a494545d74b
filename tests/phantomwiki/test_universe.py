"""A universe has exactly n people whose families, names, dates, friendships and attributes obey the spec."""

from __future__ import annotations

import re

import pytest

from leakproof_qa.builders.analysis.fidelity import generations_per_tree
from leakproof_qa.builders.phantomwiki.dates import add_years, ordinal
from leakproof_qa.builders.phantomwiki.family import (
    MIN_SIBLING_GAP_DAYS,
    SPOUSE_MAX_GAP_YEARS,
    at_least_years_apart,
    at_most_years_apart,
)
from leakproof_qa.builders.phantomwiki.vocabulary import load_vocabulary
from tests.phantomwiki.pw_universes import generated

NAMES = ["n1_s1", "n2_s3", "n50_s1", "n500_s2", "n5000_s1", "n1234_s9"]


@pytest.mark.parametrize("name", NAMES)
def test_exactly_n_people_with_unique_names(name):
    u = generated(name).universe
    size = int(name[1:].split("_")[0])
    assert len(u) == size
    assert len(set(u.names)) == size


@pytest.mark.parametrize("name", NAMES)
def test_parents_are_a_mother_and_a_father_18_to_45_years_older(name):
    u = generated(name).universe
    for child, parents in enumerate(u.parents):
        assert len(parents) in (0, 2)
        if parents:
            assert sorted(u.female[p] for p in parents) == [0, 1]
        born = ordinal(u.dob[child])
        for parent in parents:
            parent_born = ordinal(u.dob[parent])
            assert add_years(parent_born, 18) <= born <= add_years(parent_born, 45), (u.names[child], u.names[parent])


@pytest.mark.parametrize("name", NAMES)
def test_siblings_are_born_apart_and_spouses_are_close_in_age(name):
    u = generated(name).universe
    for person, children in enumerate(u.children):
        days = sorted(ordinal(u.dob[c]) for c in children)
        assert all(b - a >= MIN_SIBLING_GAP_DAYS for a, b in zip(days, days[1:]))
        spouses = {p for c in children for p in u.parents[c]} - {person}
        assert len(spouses) <= 1
        for spouse in spouses:
            born, spouse_born = ordinal(u.dob[person]), ordinal(u.dob[spouse])
            assert add_years(born, -SPOUSE_MAX_GAP_YEARS) <= spouse_born <= add_years(born, SPOUSE_MAX_GAP_YEARS)


@pytest.mark.parametrize("name", NAMES)
def test_surnames_follow_the_father_and_wives_take_the_husbands(name):
    u = generated(name).universe
    surname = [n.split(" ", 1)[1] for n in u.names]
    for child, parents in enumerate(u.parents):
        father = next((p for p in parents if not u.female[p]), None)
        mother = next((p for p in parents if u.female[p]), None)
        if father is not None:
            assert surname[mother] == surname[father]
            if not u.female[child]:
                assert surname[child] == surname[father]
            elif not u.children[child]:
                assert surname[child] == surname[father]  # unmarried daughters keep their father's name


@pytest.mark.parametrize("name", NAMES)
def test_friendship_is_symmetric_and_attributes_are_single_valued(name):
    u = generated(name).universe
    vocab = load_vocabulary()
    jobs, hobbies = set(vocab.jobs), set(vocab.hobbies)
    for person, friends in enumerate(u.friends):
        assert person not in friends
        assert all(person in u.friends[f] for f in friends)
        assert u.job[person] in jobs and u.hobby[person] in hobbies
        assert len(u.dob[person]) == 10 and u.dob[person][4] == "-"


def test_average_friendship_degree_is_close_to_the_setting():
    u = generated("n5000_s1").universe
    degree = sum(len(f) for f in u.friends) / len(u)
    assert 2.8 < degree < 3.2


def test_trees_respect_the_size_limit():
    u = generated("n500_s2", max_tree_size=10).universe
    seen, sizes = set(), []
    for start in range(len(u)):
        if start in seen:
            continue
        stack, tree = [start], set()
        while stack:
            p = stack.pop()
            if p not in tree:
                tree.add(p)
                stack += list(u.parents[p]) + list(u.children[p])
        seen |= tree
        sizes.append(len(tree))
    assert max(sizes) <= 10 and sum(sizes) == 500


def test_vocabularies_are_large_enough_for_ten_million_names():
    vocab = load_vocabulary()
    assert len(vocab.jobs) >= 300 and len(vocab.hobbies) >= 600
    assert min(len(vocab.male_first_names), len(vocab.female_first_names)) * len(vocab.surnames) > 10_000_000


def test_first_name_lists_are_disjoint_and_balanced():
    vocab = load_vocabulary()
    female, male = set(vocab.female_first_names), set(vocab.male_first_names)
    assert not female & male
    assert len(female) == len(vocab.female_first_names) == len(vocab.male_first_names) == len(male) >= 900
    assert {"Mary", "Patricia"} <= female and {"Aaron", "Andrew", "Anthony", "James"} <= male


@pytest.mark.parametrize("name", NAMES)
def test_every_first_name_comes_from_the_list_of_its_gender(name):
    u = generated(name).universe
    vocab = load_vocabulary()
    female, male = set(vocab.female_first_names), set(vocab.male_first_names)
    for person, full_name in enumerate(u.names):
        assert full_name.split(" ", 1)[0] in (female if u.female[person] else male), full_name


@pytest.mark.parametrize("max_tree_depth", [1, 2, 3, 6])
def test_a_tree_spans_at_most_one_generation_more_than_max_tree_depth_as_in_v1(max_tree_depth):
    u = generated("n3000_s1", max_tree_depth=max_tree_depth).universe
    assert max(generations_per_tree(u)) == max_tree_depth + 1


@pytest.mark.parametrize(
    "name, knobs",
    [
        ("n5000_s1", {}),
        ("n3000_s2", {"max_tree_depth": 40, "max_tree_size": 3000}),
        ("n3000_s3", {"max_tree_depth": 1}),
    ],
)
def test_birth_dates_are_early_years_written_with_four_digits(name, knobs):
    u = generated(name, **knobs).universe
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", day) for day in u.dob)
    years = [int(day[:4]) for day in u.dob]
    assert min(years) >= 1
    if not knobs:  # the reference's era at tree depth 20: roughly the years 700 to 1150
        assert 650 < min(years) < 800 and 1100 < max(years) < 1250


def test_calendar_year_checks_agree_with_add_years_around_leap_days():
    days = [ordinal(d) for d in ("0896-02-29", "0900-02-28", "0900-03-01", "0904-02-29", "1000-02-28", "1004-02-29")]
    for earlier in days:
        for years in (0, 1, 4, 5, 18, 45):
            for later in range(add_years(earlier, years) - 400, add_years(earlier, years) + 400):
                assert at_least_years_apart(earlier, later, years) == (add_years(earlier, years) <= later)
                assert at_most_years_apart(earlier, later, years) == (later <= add_years(earlier, years))


def test_forgetting_the_look_up_indexes_rebuilds_the_same_ones():
    """A writer frees the indexes before the database row; anything asking later gets the same answers."""
    u = generated("n50_s1").universe
    ids, jobs = dict(u.ids), {job: u.holders("job", job) for job in set(u.job) if job}
    u.forget_indexes()
    assert "ids" not in u.__dict__ and "_holders" not in u.__dict__
    assert u.ids == ids
    assert {job: u.holders("job", job) for job in jobs} == jobs
