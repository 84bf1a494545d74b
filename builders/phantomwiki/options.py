"""Multiple choice as NeoQA asks it: one option per answer set, decoys from the same cloth, and "Unanswerable".

Each row has its own options, made from what that row shows: the gold answer (all of its values as one option,
sorted as gold answers are) where the row's documents state it, decoys, and "Unanswerable", in a seeded order. Decoys
look like the gold option, so that only reading tells them apart (spec/validity.md):
  * the same number of names or values as the gold option, sorted the same way, and as many sharing each surname
    (the answers of a family question are often siblings);
  * one shown line's whole list where the gold option is one ("The sons of Ann Lee are Bo Lee, Cy Lee.": an answer
    often is), and otherwise not, so that "pick the option a line lists whole" does not find the gold;
  * only names and values the row's documents state (its articles' family and friend lists and subjects, the values
    they give): first the answer of the question with its last hop's relation changed and the answers' siblings and
    spouses, then the family lists of the shown articles (groups of relatives, as gold answers are), then any of those
    names. On a row whose documents do not state the answer (an insufficient row without the article naming it), the
    answer is not an option and one more decoy takes its place: no option ever names what no shown document states;
  * counts: numbers drawn with the weights the universe's count answers have (each option as likely to be the gold
    one whatever numbers a row shows: no "smallest number" or "middle number" rule beats chance).
No option repeats another or the gold answer as a set, so each list holds exactly one correct option: the gold
answer on a sufficient instance, "Unanswerable" on every other.
"""

from __future__ import annotations

import random
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ..metrics import answer_set
from ..rng import below, shuffled, stream
from .articles import ARTICLE_ATTRIBUTES, statements
from .kinship import Kinship
from .solver import Solver, parse_literal

UNANSWERABLE = "Unanswerable"
NEAR_MISSES = 4
HOP_CHANGES = 4  # relations tried in place of the last hop's, in a seeded order
_RELATIVES = ("sibling", "wife", "husband")
ATTEMPTS = 100
LOOK_TRIES = 30  # mixes of shown names drawn at each level of likeness before asking less of a decoy
LOOKS = 5  # the parts of Likeness.look a decoy shares with the gold option when it can
WHOLE = 0  # where Likeness.look holds whether an option is one shown line's whole list
FEWEST = 3  # where Likeness.look holds the fewest articles naming one of an option's names
MENTIONS_CAP = 4  # how many naming articles a decoy's names match the gold's by (more count as this many)
GROUPED_KEPT = 1 << 14  # shown lists whose surname levels (_grouped) an option maker keeps between rows
GROUP_DRAWS = 3  # draws from one group of names for a decoy shaped as the gold option
COUNT_SMOOTHING = 0.5  # the weight of a number no count answer has (so every number up to the largest may come)
COUNT_SMOOTHED_RANGE = 5  # the numbers an answer size no count question has weighs alike: 0 to this + 2


def option_text(answer: Sequence[str]) -> str:
    """An answer list as one option, e.g. "Ann Lee, Bo Lee"."""
    return ", ".join(answer)


class OptionMaker:
    """The options of each question form of one universe."""

    def __init__(
        self, kinship: Kinship, solver: Solver, seed: int, bank: Sequence[str], counts: Sequence[Sequence[str]] = ()
    ) -> None:
        self.kinship = kinship
        self.universe = kinship.universe
        self.solver = solver
        self.seed = seed
        self.bank = tuple(bank)
        self._lists: dict[int, list[list[str]]] = {}
        self._lists_grouped: dict[int, Grouped] = {}  # id of a list of _lists (kept as long as it) -> _grouped of it
        self._hops: dict[tuple[str, ...], list[list[str]]] = {}  # query -> the answers of its changed last hops
        self.count_weights = count_weights(counts)
        self._single_odds: dict[int, dict[int, float]] = {}  # numbers weighed -> single_count_odds

    def options(
        self, key: str, query: Sequence[str], answer: Sequence[str], shown: Collection[int], asked: Collection[str] = ()
    ) -> list[str]:
        """The gold option where the shown documents state it, decoys (NEAR_MISSES of them, one more without the gold),
        then "Unanswerable" (each row shuffles them); `shown` = the people whose articles the row shows, whose
        sentences the decoys are drawn from; `asked` = the people the question names, whose surnames a decoy shares as
        often as the gold option does (the answers of a family question are often the anchor's namesakes)."""
        rng = stream(self.seed, "options", key)
        last = parse_literal(query[0])
        if last.kind == "count":
            return [option_text(answer), *self._counts(rng, answer), UNANSWERABLE]
        values = last.kind == "attribute" and not last.inverse
        near = self._changed_hop(query, answer) + ([] if values else [self._relatives(answer)])
        lists = self._groups(shown, last.predicate if values else None)
        stated = {item for group in lists for item in group} | (set() if values else self._titles(shown))
        near = [[item for item in group if item in stated] for group in near]
        pool = sorted(stated)
        shape = None if values else _surname_shape(answer)
        gold = [option_text(answer)] if set(answer) <= stated else []
        like = Likeness.of(asked, self._mentions(shown), lists) if shape is not None else Likeness()
        decoys = self._from_groups(rng, answer, near, lists, pool, shape, NEAR_MISSES + 1 - len(gold), like)
        return [*gold, *decoys, UNANSWERABLE]

    def _mentions(self, shown: Collection[int]) -> dict[str, int]:
        """Name -> how many of the shown articles name it (in a family or friend list, or as their subject)."""
        found: Counter[str] = Counter()
        for person in sorted(shown):
            found.update({name for group in self._lists_of(person) for name in group} | {self.universe.names[person]})
        return dict(found)

    def _changed_hop(self, query: Sequence[str], answer: Sequence[str]) -> list[list[str]]:
        """The answers of the query with its last relation hop's relation changed, the seeded first few (once a
        query)."""
        found = self._hops.get(tuple(query))
        if found is None:
            found = self._hops[tuple(query)] = self._changed_hop_answers(query, answer)
        return found

    def _changed_hop_answers(self, query: Sequence[str], answer: Sequence[str]) -> list[list[str]]:
        hops = [(i, lit) for i, lit in enumerate(map(parse_literal, query)) if lit.kind in ("relation", "count")]
        if not hops:  # "Who is the person whose hobby is tango?" has none
            return []
        rng = stream(self.seed, "changed hops", *query)
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
        shape: list[int] | None = None,
        wanted: int = NEAR_MISSES,
        like: Likeness | None = None,
    ) -> list[str]:
        """Decoys of len(answer) values each: from one group where a group is large enough (near misses first,
        then the shown lists in a seeded order), else from the pool of everything the groups name. Names are drawn
        in the gold answer's `shape` (how many share each surname: the answers of a family question are often
        siblings), and looking `like` the gold answer (Likeness), so that no option stands out by its names."""
        k = len(answer)

        known = self._lists_grouped  # the shown lists live in self._lists: their ids stay theirs
        grouped: dict[int, Grouped] = {id(group): known[id(group)] for group in lists if id(group) in known}

        seen = {frozenset(answer_set(list(answer))), frozenset(answer_set(UNANSWERABLE))}
        out: list[str] = []

        like = like or Likeness()
        target = like.look(answer)
        looks = [target[:alike] for alike in range(LOOKS + 1)]

        def add(values: list[str], alike: int) -> None:
            if len(values) != k or len(out) >= wanted or (alike and like.look(values)[:alike] != looks[alike]):
                return
            key = frozenset(answer_set(values))
            if key not in seen:
                seen.add(key)
                out.append(option_text(sorted(values)))

        floor = target[FEWEST] if len(target) > FEWEST else 0  # the fewest articles naming a gold name: drawn above it
        strong = [name for name in pool if min(like.mentions.get(name, 0), MENTIONS_CAP) >= floor]
        for group, alike, draws in _decoy_draws(rng, near, lists, (strong, pool), k, bool(target[WHOLE])):
            if len(out) >= wanted or (not alike and len(out) >= 2):
                break
            draw = _drawer(rng, group, k, shape, grouped) if alike else lambda: shuffled(rng, pool)[:k]
            for _ in range(draws):
                if len(out) >= wanted or (not alike and len(out) >= 2):
                    break
                add(draw(), alike)
        if shape is not None:
            if len(known) > GROUPED_KEPT:  # a cache, so that memory stays bounded at a million people
                known.clear()
            known.update((id(group), grouped[id(group)]) for group in lists if id(group) in grouped)
        return out

    def _counts(self, rng: random.Random, answer: Sequence[str]) -> list[str]:
        """Decoy counts, so that given the numbers a row shows each is about as likely to be the gold one: for a single
        count, NEAR_MISSES other numbers drawn by `single_count_odds` (exactly even in the universe's own count
        answers); for a set of counts, sets of as many numbers drawn with the weights that size of answer has."""
        table = self.count_weights.get(len(answer)) or {n: COUNT_SMOOTHING for n in range(COUNT_SMOOTHED_RANGE + 3)}
        table = {**{int(a): COUNT_SMOOTHING for a in answer}, **table}
        if len(answer) == 1:
            odds = self._single_odds.get(len(table))
            if odds is None or set(odds) != set(table):
                odds = self._single_odds[len(table)] = single_count_odds(table, NEAR_MISSES)
            others = _conditional_draw(rng, {n: o for n, o in odds.items() if str(n) != answer[0]}, NEAR_MISSES)
            return [str(n) for n in others]
        numbers = sorted(table)
        weights = [table[n] for n in numbers]
        seen = {frozenset(answer)}
        out: list[str] = []
        for _ in range(ATTEMPTS):
            if len(out) >= NEAR_MISSES:
                break
            option = [str(n) for n in sorted(_weighted(rng, numbers, weights, len(answer)))]
            if len(option) == len(answer) and frozenset(option) not in seen:
                seen.add(frozenset(option))
                out.append(option_text(option))
        return out


def _elementary(odds: Sequence[float], k: int) -> list[list[float]]:
    """e[i][j]: the sum over j-subsets of odds[i:] of their products (j <= k), by dynamic programming."""
    e = [[0.0] * (k + 1) for _ in range(len(odds) + 1)]
    for i in range(len(odds), -1, -1):
        e[i][0] = 1.0
        if i < len(odds):
            for j in range(1, k + 1):
                e[i][j] = e[i + 1][j] + odds[i] * e[i + 1][j - 1]
    return e


def single_count_odds(weights: dict[int, float], others: int, rounds: int = 300) -> dict[int, float]:
    """Odds o over the numbers such that, when a gold count g (drawn as `weights` say) shows with `others` numbers
    drawn as a set with probability proportional to the product of their odds, every number of a shown set is about
    equally likely to be the gold one: p(g) / (o(g) e(o without g)) the same for every g (a damped fixed point). No
    number can be the gold one of more than its share of the sets that show it, so a count more common than one in
    others + 1 is held to just under that share first (it then shows in nearly every set)."""
    numbers = sorted(weights)
    total = sum(weights.values())
    share = 0.95 / (others + 1)
    p = [weights[n] / total for n in numbers]
    for _ in range(len(p)):  # water-filling: cap the common counts, spread the rest over the others
        over = [i for i, v in enumerate(p) if v > share]
        if not over:
            break
        free = sum(v for v in p if v < share)
        spill = sum(p[i] - share for i in over)
        p = [share if v >= share else v + spill * v / free for v in p]
    odds = list(p)
    for _ in range(rounds):
        fresh = []
        for i in range(len(numbers)):
            rest = odds[:i] + odds[i + 1 :]
            fresh.append(p[i] / max(_elementary(rest, others)[0][others], 1e-300))
        damped = [(o * f) ** 0.5 for o, f in zip(odds, fresh)]
        scale = sum(damped)
        odds = [o / scale for o in damped]
    return dict(zip(numbers, odds))


def _conditional_draw(rng: random.Random, odds: dict[int, float], k: int) -> list[int]:
    """k distinct numbers drawn as a set with probability proportional to the product of their odds, seeded."""
    numbers = sorted(odds)
    values = [odds[n] for n in numbers]
    e = _elementary(values, k)
    out: list[int] = []
    need = k
    for i, n in enumerate(numbers):
        if need == 0:
            break
        if e[i][need] <= 0:
            break
        if rng.random() * e[i][need] < values[i] * e[i + 1][need - 1]:
            out.append(n)
            need -= 1
    return out


def count_weights(counts: Sequence[Sequence[str]]) -> dict[int, dict[int, float]]:
    """For each size of answer, how often each number is in a count answer of that size among `counts` (every count
    question's gold answer), smoothed, over 0 to two past the largest: the weights its decoys are drawn with (a single
    count is almost never 0, while a set of counts often holds 0, so each size has its own)."""
    tallies: dict[int, Counter[int]] = {}
    for answer in counts:
        tallies.setdefault(len(answer), Counter()).update(int(n) for n in answer)
    out = {}
    for size, tally in tallies.items():
        top = max(tally) + 2
        out[size] = {n: tally.get(n, 0) + COUNT_SMOOTHING for n in range(top + 1)}
    return out


def _weighted(rng: random.Random, numbers: Sequence[int], weights: Sequence[float], k: int) -> list[int]:
    """k distinct numbers drawn one by one with their weights, seeded."""
    left = list(zip(numbers, weights))
    out: list[int] = []
    for _ in range(min(k, len(left))):
        point = rng.random() * sum(w for _, w in left)
        for i, (n, w) in enumerate(left):
            point -= w
            if point < 0 or i == len(left) - 1:
                out.append(n)
                del left[i]
                break
    return out


@dataclass(frozen=True)
class Likeness:
    """What a decoy of a Who question must share with the gold option, as a lazy reader could count it: whether it is
    one shown line's whole list (an answer often is: "The mother of Ann Lee is Cy Lee."), how many of its names carry
    a surname of the people the question names, how many are those people, and about how many shown articles name
    them (answers are named by their lists and often their own articles: more than a random name)."""

    surnames: frozenset[str] = frozenset()
    asked: frozenset[str] = frozenset()
    mentions: Mapping[str, int] = field(default_factory=dict)
    wholes: frozenset[frozenset[str]] = frozenset()  # the names of each shown family or friend line, as a set
    _parts: dict[str, tuple[int, int, int]] = field(default_factory=dict, compare=False, repr=False)  # name -> part

    @classmethod
    def of(cls, asked: Collection[str], mentions: Mapping[str, int], lists: Sequence[Sequence[str]] = ()) -> Likeness:
        wholes = frozenset(frozenset(names) for names in lists)
        return cls(frozenset(_surname(name) for name in asked), frozenset(asked), mentions, wholes)

    def look(self, values: Sequence[str]) -> tuple[int, ...]:
        """Its parts, most telling first: whether it is a shown line's whole list, names of the question's surnames,
        the question's own people, and the fewest and the mean shown articles that name one of them (capped: siblings
        are all named by the same lists)."""
        if not values:
            return (0, 0, 0, 0, 0)
        surnames = asked = total = 0
        fewest = MENTIONS_CAP
        for name in values:
            part = self._parts.get(name) or self._part(name)
            surnames += part[0]
            asked += part[1]
            total += part[2]
            fewest = min(fewest, part[2])
        whole = bool(self.wholes) and frozenset(values) in self.wholes  # no lists, no set to make
        return (int(whole), surnames, asked, fewest, round(total / len(values)))

    def _part(self, name: str) -> tuple[int, int, int]:
        """One name's share of a look (whether its surname is asked's, whether it is asked, its capped mentions),
        worked out once per name."""
        found = self._parts[name] = (
            int(_surname(name) in self.surnames),
            int(name in self.asked),
            min(self.mentions.get(name, 0), MENTIONS_CAP),
        )
        return found


def _drawer(
    rng: random.Random, group: Sequence[str], k: int, shape: list[int] | None, grouped: dict[int, Grouped]
) -> Callable[[], list[str]]:
    """What draws one candidate of k names from `group`, in `shape` where there is one (`_shaped`); its sorted names
    or surname levels (`grouped`, by id of the group, kept) worked out once."""
    if shape is None:
        names = sorted(set(group))
        return lambda: shuffled(rng, names)[:k]
    found = grouped.get(id(group))
    if found is None:
        found = grouped[id(group)] = _grouped(group)
    if shape == [1]:  # one name: _shaped's draw, inlined (most questions have one answer)
        surnames, held = found.get(1, _NO_LEVEL)
        return lambda: shuffled(rng, held[below(rng, len(surnames))])[:1] if surnames else []
    return lambda: _shaped(rng, group, shape, found)


def _decoy_draws(
    rng: random.Random,
    near: list[list[str]],
    lists: list[list[str]],
    pools: tuple[list[str], list[str]],
    k: int,
    whole: bool = False,
) -> Iterator[tuple[Sequence[str], int, int]]:
    """Where candidate decoys are drawn from, in the order tried: (names, how much of the gold option's look
    (Likeness.look, most telling first) a candidate must share, how many candidates): draws from the near misses and
    the shown lists, then mixes of every name the documents state (first those named as often as the gold's names),
    asked to look less alike in turn, then (never fewer than two decoys) any such mix (look 0: a plain sample).
    Where the gold option is a shown line's `whole` list, each level first tries the lists of its size whole, as a
    mix of names seldom is one. `pools`: (the strong names, every name), each sorted and distinct. The consumer stops
    drawing once it has its decoys: nothing is drawn from a row's stream after them."""
    strong, pool = pools
    groups = [*near, *shuffled(rng, lists)]
    for group in groups:
        if len(group) >= k:
            yield group, LOOKS, GROUP_DRAWS
    wholes = [group for group in groups if len(group) == k] if whole else []
    for alike in range(LOOKS, 0, -1):
        if alike < LOOKS:
            for group in wholes:
                yield group, alike, 1
        names = strong if alike > FEWEST else pool
        if len(names) > k:
            yield names, alike, LOOK_TRIES
    if len(pool) >= k:
        yield pool, 0, ATTEMPTS


def _surname(name: str) -> str:
    return name[name.rfind(" ") + 1 :]


def _surname_shape(answer: Sequence[str]) -> list[int]:
    """How many of the names share each surname, largest first: ["Ann Lee", "Bo Lee", "Cy Ma"] -> [2, 1]."""
    return sorted(Counter(_surname(name) for name in answer).values(), reverse=True)


Grouped = dict[int, tuple[list[str], list[list[str]]]]
"""For each number n of names one surname holds: (the surnames holding at least n, sorted; the names of each)."""


_NO_LEVEL: tuple[list[str], list[list[str]]] = ([], [])


def _grouped(names: Sequence[str]) -> Grouped:
    """For each number n of names one surname holds (1 to the most), the surnames holding at least n, sorted, each
    with its names sorted: what `_shaped` draws from (made once per group of names)."""
    by_surname: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        by_surname.setdefault(_surname(name), []).append(name)
    ordered = sorted(by_surname.items())
    most = max((len(v) for _, v in ordered), default=0)
    out: Grouped = {1: ([s for s, _ in ordered], [v for _, v in ordered])}
    for n in range(2, most + 1):
        ordered = [(s, v) for s, v in ordered if len(v) >= n]
        out[n] = ([s for s, _ in ordered], [v for _, v in ordered])
    return out


def _shaped(rng: random.Random, names: Sequence[str], shape: list[int], grouped: Grouped | None) -> list[str]:
    """Names from `names` in `shape`: for each count, that many names of one surname not used yet (drawn at random
    among the surnames with enough of them, in their sorted order); [] when `names` cannot fill the shape."""
    groups = grouped if grouped is not None else _grouped(names)
    used: list[str] = []
    out: list[str] = []
    for count in shape:
        surnames, held = groups.get(count, _NO_LEVEL)
        if not used:
            if not surnames:
                return []
            index = below(rng, len(surnames))
        else:
            skipped = []  # where the used surnames that hold `count` names stand among `surnames`
            for surname in used:
                position = bisect_left(surnames, surname)
                if position < len(surnames) and surnames[position] == surname:
                    skipped.append(position)
            skipped.sort()
            if len(surnames) == len(skipped):
                return []
            index = below(rng, len(surnames) - len(skipped))
            for position in skipped:  # the index-th surname not used yet: step over the used ones before it
                if position <= index:
                    index += 1
        used.append(surnames[index])
        out += shuffled(rng, held[index])[:count]  # held names are sorted and distinct
    return out
