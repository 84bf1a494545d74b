"""Multiple choice as NeoQA asks it: one option per answer set, decoys from the same cloth, and "Unanswerable".

Each wording of a question (its form: the question, a premise control, a variant) has one set of options: the
gold answer (all of its values as one option, sorted as gold answers are), up to four decoys, and "Unanswerable";
each row shows them in its own seeded order. Decoys look like the gold option, so that only reading tells them
apart (spec/validity.md):
  * the same number of names or values as the gold option, sorted the same way, and as many sharing each surname
    (the answers of a family question are often siblings);
  * names and values the shown documents state: the people the required articles name (their family and friend
    lists), the values those articles give; first the answer of the question with its last hop's relation
    changed and the answers' siblings and spouses, then the family lists of the shown articles (groups of
    relatives, as gold answers are), then any of those names;
  * counts: the other numbers of a window of five consecutive counts that holds the gold one, placed at random
    (so the gold count is not the middle one).
No option repeats another or the gold answer as a set, so each list holds exactly one correct option: the gold
answer on a sufficient instance, "Unanswerable" on every other.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Collection, Sequence

from ..metrics import answer_set
from ..rng import below, pick, shuffled, stream
from .articles import ARTICLE_ATTRIBUTES, statements
from .kinship import Kinship
from .solver import Solver, parse_literal

UNANSWERABLE = "Unanswerable"
NEAR_MISSES = 4
HOP_CHANGES = 4  # relations tried in place of the last hop's, in a seeded order
COUNT_WINDOW = 5  # the gold count and four others, consecutive
_RELATIVES = ("sibling", "wife", "husband")
ATTEMPTS = 100


def option_text(answer: Sequence[str]) -> str:
    """An answer list as one option, e.g. "Ann Lee, Bo Lee"."""
    return ", ".join(answer)


class OptionMaker:
    """The options of each question form of one universe."""

    def __init__(self, kinship: Kinship, solver: Solver, seed: int, bank: Sequence[str]) -> None:
        self.kinship = kinship
        self.universe = kinship.universe
        self.solver = solver
        self.seed = seed
        self.bank = tuple(bank)
        self._lists: dict[int, list[list[str]]] = {}

    def options(self, key: str, query: Sequence[str], answer: Sequence[str], shown: Collection[int]) -> list[str]:
        """The gold option, up to NEAR_MISSES decoys, then "Unanswerable" (each row shuffles them); `shown` = the
        people whose articles answer the form, whose sentences the decoys are drawn from."""
        rng = stream(self.seed, "options", key)
        last = parse_literal(query[0])
        if last.kind == "count":
            decoys = self._counts(rng, answer)
        else:
            values = last.kind == "attribute" and not last.inverse
            near = self._changed_hop(rng, query, answer) + ([] if values else [self._relatives(answer)])
            lists = self._groups(shown, last.predicate if values else None)
            stated = {item for group in lists for item in group} | (set() if values else self._titles(shown))
            near = [[item for item in group if item in stated] for group in near]
            pool = sorted(stated)
            fallback = [v for v in self.universe.attribute(last.predicate) if v is not None] if values else None
            shape = None if values else _surname_shape(answer)
            decoys = self._from_groups(rng, answer, near, lists, pool, fallback, shape)
        return [option_text(answer), *decoys, UNANSWERABLE]

    def _changed_hop(self, rng: random.Random, query: Sequence[str], answer: Sequence[str]) -> list[list[str]]:
        """The answers of the query with its last relation hop's relation changed, the seeded first few."""
        hops = [(i, lit) for i, lit in enumerate(map(parse_literal, query)) if lit.kind in ("relation", "count")]
        if not hops:  # "Who is the person whose hobby is tango?" has none
            return []
        position, literal = hops[0]
        hop = re.compile(rf"(?<![A-Za-z_]){literal.predicate}\(")
        variable = parse_literal(query[0]).target
        out = []
        for relation in shuffled(rng, [r for r in self.bank if r != literal.predicate])[:HOP_CHANGES]:
            changed = list(query)
            changed[position] = hop.sub(f"{relation}(", changed[position], count=1)
            found = [v for v in self.solver.solve(changed, variable).answers if v is not None]
            if found and set(found) != set(answer):
                out.append(found)
        return out

    def _titles(self, shown: Collection[int]) -> set[str]:
        return {self.universe.names[p] for p in shown}

    def _relatives(self, answer: Sequence[str]) -> list[str]:
        """The siblings and spouses of the answers (near misses of a "Who" question)."""
        ids, names = self.universe.ids, self.universe.names
        found = {
            names[other]
            for name in answer
            if name in ids
            for relation in _RELATIVES
            for other in self.kinship.targets(relation, ids[name])
        }
        return sorted(found - set(answer))

    def _groups(self, shown: Collection[int], attribute: str | None) -> list[list[str]]:
        """What the shown articles state: each family or friend list (names), or each article's value of
        `attribute`, as one group of those values."""
        if attribute is not None:
            values = self.universe.attribute(attribute)
            return [sorted({v for v in (values[p] for p in sorted(shown)) if v is not None})]
        return [objects for person in sorted(shown) for objects in self._lists_of(person)]

    def _lists_of(self, person: int) -> list[list[str]]:
        """The family and friend lists a person's article states (each a list of names), read once per person."""
        found = self._lists.get(person)
        if found is None:
            found = self._lists[person] = [
                objects
                for predicate, objects in statements(self.universe, person)
                if predicate not in ARTICLE_ATTRIBUTES
            ]
        return found

    def _from_groups(
        self,
        rng: random.Random,
        answer: Sequence[str],
        near: list[list[str]],
        lists: list[list[str]],
        pool: list[str],
        fallback: list[str] | None,
        shape: list[int] | None = None,
    ) -> list[str]:
        """Decoys of len(answer) values each: from one group where a group is large enough (near misses first,
        then the shown lists in a seeded order), else from the pool of everything the groups name. Names are drawn
        in the gold answer's `shape` (how many share each surname: the answers of a family question are often
        siblings), so that no option stands out by its surnames."""
        k = len(answer)

        def draw(group: Sequence[str]) -> list[str]:
            return _sample(rng, group, k) if shape is None else _shaped(rng, group, shape)

        seen = {frozenset(answer_set(list(answer))), frozenset(answer_set(UNANSWERABLE))}
        out: list[str] = []

        def add(values: list[str]) -> None:
            key = frozenset(answer_set(values))
            if len(values) == k and key not in seen and len(out) < NEAR_MISSES:
                seen.add(key)
                out.append(option_text(sorted(values)))

        for group in [*near, *shuffled(rng, lists)]:
            if len(out) >= NEAR_MISSES:
                break
            if len(group) >= k:
                add(draw(group))
        for _ in range(ATTEMPTS):  # mixes of names the documents state
            if len(out) >= NEAR_MISSES or len(pool) <= k:
                break
            add(draw(pool))
        everyone = fallback if fallback is not None else self.universe.names
        for _ in range(ATTEMPTS):  # never fewer than two decoys: anyone's names or values
            if len(out) >= 2:
                break
            add(_sample(rng, [pick(rng, everyone) for _ in range(4 * k)], k))
        return out

    def _counts(self, rng: random.Random, answer: Sequence[str]) -> list[str]:
        """Decoy counts: sets of len(answer) other numbers from a window of consecutive counts placed at random
        around the gold ones (never below 0)."""
        gold = sorted(int(a) for a in answer)
        k = len(gold)
        span = gold[-1] - gold[0] + COUNT_WINDOW
        low = max(0, gold[0] - (COUNT_WINDOW - 1))
        start = low + below(rng, gold[0] - low + 1)
        window = [str(n) for n in range(start, start + span)]
        seen = {frozenset(answer)}
        out: list[str] = []
        for _ in range(ATTEMPTS):
            if len(out) >= NEAR_MISSES:
                break
            values = sorted(_sample(rng, window, k), key=int)  # in number order, as gold counts are
            if frozenset(values) not in seen:
                seen.add(frozenset(values))
                out.append(option_text(values))
        return out


def _sample(rng: random.Random, items: Sequence[str], k: int) -> list[str]:
    """k distinct items (fewer if there are fewer), seeded."""
    return shuffled(rng, sorted(set(items)))[:k]


def _surname(name: str) -> str:
    return name.rsplit(" ", 1)[-1]


def _surname_shape(answer: Sequence[str]) -> list[int]:
    """How many of the names share each surname, largest first: ["Ann Lee", "Bo Lee", "Cy Ma"] -> [2, 1]."""
    return sorted(Counter(_surname(name) for name in answer).values(), reverse=True)


def _shaped(rng: random.Random, names: Sequence[str], shape: list[int]) -> list[str]:
    """Names from `names` in `shape`: for each count, that many names of one surname not used yet (a surname with
    enough of them drawn at random); [] when `names` cannot fill the shape."""
    by_surname: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        by_surname.setdefault(_surname(name), []).append(name)
    surnames = shuffled(rng, sorted(by_surname))
    out: list[str] = []
    for count in shape:
        surname = next((s for s in surnames if len(by_surname[s]) >= count), None)
        if surname is None:
            return []
        surnames.remove(surname)
        out += _sample(rng, by_surname[surname], count)
    return out
