"""Shadows: an insufficient row shows relatives of its people in place of the links its missing article made, so that
"its articles name each other less, in more pieces" does not tell it (the audit's mention-graph probe)."""

from __future__ import annotations

from leakproof_qa.builders.phantomwiki.shadows import LINKS_SHORT, missing_shadow, relinked
from leakproof_qa.builders.rng import stream

# Who names whom (every link is stated in both people's articles). The row shows A, B and C and lacks M's article, which
# linked all three: with M they name each other 4 times (M-A, M-B, M-C, A-B), without it once (A-B).
LINKS = {
    "M": ["A", "B", "C", "S"],
    "A": ["B", "M", "Q", "R", "S", "T"],
    "B": ["A", "M", "Q", "S", "T"],
    "C": ["M", "Q", "S"],
    "Q": ["A", "B", "C"],  # joins the two pieces {A, B} and {C}
    "R": ["A"],
    "S": ["A", "B", "C", "M"],  # names the missing person: never taken, though it names the most
    "T": ["A", "B"],  # names two of them, within one piece
}


class Family:
    """The part of a corpus a shadow reads: who names whom, and which titles have an article."""

    position = {title: i for i, title in enumerate(sorted(LINKS))}

    def naming(self, name: str) -> list[str]:
        return LINKS.get(name, [])

    def mentions(self, name: str, titles: list[str]) -> int:
        return sum(title in titles for title in self.naming(name))


def always(titles: list[str]) -> bool:
    return True


def test_the_relinking_article_names_most_of_the_row_joins_no_pieces_and_never_names_the_missing_person():
    assert LINKS_SHORT == 2  # 4 links with M, so the row stops at 2: T brings A-B's one up to 3
    assert relinked(Family(), stream(1, "t"), ["A", "B", "C"], "M", 3, always) == ["T"]


def test_an_article_after_which_the_documents_would_prove_the_answer_is_skipped():
    def open_without_t(titles: list[str]) -> bool:
        return "T" not in titles

    assert relinked(Family(), stream(1, "t"), ["A", "B", "C"], "M", 3, open_without_t) == ["R"]


def test_an_article_joining_two_pieces_is_taken_only_when_no_other_relinks():
    def only_q(titles: list[str]) -> bool:
        return not {"R", "T"} & set(titles)

    assert relinked(Family(), stream(1, "t"), ["A", "B", "C"], "M", 3, only_q) == ["Q"]


def test_no_room_no_shadow_and_a_row_linked_enough_takes_none():
    assert relinked(Family(), stream(1, "t"), ["A", "B", "C"], "M", 0, always) == []
    assert missing_shadow(Family(), stream(1, "t"), ["A", "B", "C"], "M", 0, always) == []
    assert relinked(Family(), stream(1, "t"), ["A", "R"], "M", 3, always) == []  # M linked only A: within 2 of it


def test_the_same_seed_gives_the_same_shadow():
    draws = [missing_shadow(Family(), stream(seed, "t"), ["A", "B", "C"], "M", 3, always) for seed in (1, 1, 2)]
    assert draws[0] == draws[1]
    assert all(draw[0] == "T" for draw in draws)  # the densest comes first, whatever the seed
