"""Multiple choice as NeoQA asks it: one option per answer set, decoys from the same cloth, and "Unanswerable".

Each row has its own options, made from what that row shows: the gold answer (all of its values as one option,
sorted as gold answers are) where the row's documents state it, decoys, and "Unanswerable", in a seeded order. Decoys
look like the gold option, so that only reading tells them apart (spec/validity.md):
  * the same number of names or values as the gold option, sorted the same way, and as many sharing each surname
    (the answers of a family question are often siblings);
  * one shown line's whole list where the gold option is one ("The sons of Ann Lee are Bo Lee, Cy Lee.": an answer
    often is), and otherwise not, so that "pick the option a line lists whole" does not find the gold;
  * listed together by the shown lines in as many parts as the gold's names (drawn part by part from shown lines),
    with as many names that have a shown article and as many shown articles naming them (Likeness); dates that span
    about as many years as the gold's, the gold's span as often the closest as any other rank (date_decoys.py); values
    as often as the shown articles give them; where too few look exactly alike, the nearest, and none that stands far
    out unless needed for two options (_Candidates);
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
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import partial

from ..metrics import answer_set
from ..rng import below, lazily_shuffled, pick, sample, shuffled, stream
from .articles import ARTICLE_ATTRIBUTES, statements
from .date_decoys import date_decoys
from .kinship import Kinship
from .solver import Solver, parse_literal

UNANSWERABLE = "Unanswerable"
NEAR_MISSES = 4
HOP_CHANGES = 4  # relations tried in place of the last hop's, in a seeded order
_RELATIVES = ("sibling", "wife", "husband")
ATTEMPTS = 100
LOOK_TRIES = 30  # mixes of shown names drawn from one pool, exactly alike the gold option and then nearest it
LOOK_WEIGHTS = (8, 3, 2, 2, 2, 1, 1)  # how much a unit of each part of Likeness.look counts in a decoy's distance
FAR = 2  # the distance from the gold's look past which a decoy stands out: kept only to make two options
NEAR_ENOUGH = 1  # the distance from the gold's look at which a decoy is near enough to stop drawing
WHOLE = 0  # where Likeness.look holds whether an option is one shown line's whole list
PARTS = 1  # where Likeness.look holds in how many parts the shown lines list an option's names
SURNAMES = 2  # where Likeness.look holds how many of an option's names carry a surname of the question's people
ASKED = 3  # ... how many are the question's people
TITLED = 4  # ... how many have a shown article
FEWEST = 5  # where Likeness.look holds the fewest articles naming one of an option's names
MIX_TRIES = 30  # decoys drawn part by part as the shown lines list the gold's names, exactly alike and then nearest
PART_TRIES = 8  # shown lines tried for one part of such a decoy
MENTIONS_CAP = 4  # how many naming articles a decoy's names match the gold's by (more count as this many)
GROUPED_KEPT = 1 << 14  # shown lists whose surname levels (_grouped) an option maker keeps between rows
GROUP_DRAWS = 3  # draws from one group of names for a decoy shaped as the gold option
COUNT_SMOOTHING = 0.5  # the weight of a number no count answer has (so every number up to the largest may come)
COUNT_SMOOTHED_RANGE = 5  # the numbers an answer size no count question has weighs alike: 0 to this + 2
DATED = ("dob",)  # the attributes whose values are dates ("1009-04-24"): their decoys span years as the gold's


Draw = Callable[[], list[str]]
"""What draws one candidate decoy from a row's stream ([] where it finds none)."""


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
        wanted = NEAR_MISSES + 1 - len(gold)
        if shape is None and last.predicate in DATED and len(answer) > 1:
            dated = date_decoys(rng, answer, lists[0] if lists else [], near, wanted)
            return [*gold, *(option_text(values) for values in dated), UNANSWERABLE]
        like = Likeness()
        if shape is not None:
            like = Likeness.of(asked, self._mentions(shown), lists, self._titles(shown))
        decoys = self._from_groups(rng, answer, near, lists, pool, shape, wanted, like)
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
        for relation in sample(rng, [r for r in self.bank if r != literal.predicate], HOP_CHANGES):
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
        `attribute`, as one group of those values (a value as often as the articles give it: an answer's values are
        people's, so common ones come often, and a decoy's must too)."""
        if attribute is not None:
            values = self.universe.attribute(attribute)
            return [sorted(v for v in (values[p] for p in sorted(shown)) if v is not None)]
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
        shape: list[int] | None,
        wanted: int,
        like: Likeness,
    ) -> list[str]:
        """Decoys of len(answer) values each: from one group where a group is large enough (near misses first,
        then the shown lists in a seeded order), else from the pool of everything the groups name. Names are drawn
        in the gold answer's `shape` (how many share each surname: the answers of a family question are often
        siblings), and looking `like` the gold answer (Likeness), so that no option stands out by its names."""
        k = len(answer)

        known = self._lists_grouped  # the shown lists live in self._lists: their ids stay theirs
        grouped: dict[int, Grouped] = {id(group): known[id(group)] for group in lists if id(group) in known}

        found = _Candidates(like, answer, wanted)
        floor = found.target[FEWEST]  # the fewest articles naming a gold name: the strong names are named as often
        strong = [name for name in pool if min(like.mentions.get(name, 0), MENTIONS_CAP) >= floor]
        mixes = (like.mixer(rng, answer, lists, grouped), like.mixer(rng, answer, lists, grouped, shaped=False))
        lines = {id(group) for group in lists}  # the shown lines: the names of one are one part
        for group, exact, draws in _decoy_draws(rng, near, lists, (strong, pool), k, like.whole(found.target), mixes):
            if found.full() or (not exact and found.near_enough()):
                break
            if exact and shape is not None and not callable(group) and not found.may_match(group, id(group) in lines):
                continue  # no draw from it could look like the gold: its draws would keep nothing
            draw = group if callable(group) else _drawer(rng, group, k, shape, grouped)
            for _ in range(draws):
                if found.full():
                    break
                found.add(draw(), exact)
        if shape is not None:
            if len(known) > GROUPED_KEPT:  # a cache, so that memory stays bounded at a million people
                known.clear()
            known.update((id(group), grouped[id(group)]) for group in lists if id(group) in grouped)
        return found.decoys()

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


class _Candidates:
    """The candidate decoys of one row: those that look exactly like the gold option, in the order drawn, and the
    others by how near they come (Likeness.distance), so that the nearest fill what the exact ones leave."""

    def __init__(self, like: Likeness, answer: Sequence[str], wanted: int) -> None:
        self.like = like
        self.target = like.look(answer)
        self.k = len(answer)
        self.wanted = wanted
        self.seen = {frozenset(answer_set(list(answer))), frozenset(answer_set(UNANSWERABLE))}
        self.exact: list[str] = []
        self.short: list[tuple[int, int, list[str]]] = []  # (distance to the gold's look, order, values)
        self.tried: set[tuple[frozenset[str], bool]] = set()  # the candidates drawn so far, and whether as exact

    def add(self, values: list[str], exact: bool) -> None:
        """Keep a candidate of k values not seen yet: where `exact`, only if it looks exactly like the gold."""
        if len(values) != self.k:
            return
        drawn = (frozenset(values), exact)
        if drawn in self.tried:  # drawn before, as exact or not: it comes to what it came to then (nothing kept)
            return
        self.tried.add(drawn)
        if exact:
            if not self.like.looks_like(values, self.target):
                return
            look = self.target
        else:
            look = self.like.look(values)
        key = frozenset(answer_set(values))
        if key not in self.seen:
            self.seen.add(key)
            if look == self.target:
                self.exact.append(option_text(sorted(values)))
            else:
                self.short.append((self.like.distance(look, self.target), len(self.short), values))

    def may_match(self, names: Sequence[str], one_line: bool) -> bool:
        """Whether some k of `names` could look exactly like the gold (False only where none can): k names named by
        between the gold's fewest and most shown articles, as many of them with an article, a surname of the
        question's and a name of the question's as the gold; one shown line's names are one part, and all of a line
        of k names its whole list."""
        target, k = self.target, self.k
        if one_line and (target[PARTS] != 1 or (len(set(names)) == k and not target[WHOLE])):
            return False
        low, high = target[FEWEST], target[FEWEST] + target[FEWEST + 1]
        parts = self.like.parts_of
        fit = [part for part in map(parts, set(names)) if low <= part[2] <= high]
        if len(fit) < k:
            return False
        for share, wanted in ((0, target[SURNAMES]), (1, target[ASKED]), (3, target[TITLED])):
            having = sum(part[share] for part in fit)
            if having < wanted or len(fit) - having < k - wanted:
                return False
        return True

    def full(self) -> bool:
        return len(self.exact) >= self.wanted

    def near_enough(self) -> bool:
        return len(self.exact) + sum(distance <= NEAR_ENOUGH for distance, _, _ in self.short) >= self.wanted

    def decoys(self) -> list[str]:
        """The exact ones, then the nearest of the rest up to `wanted`: none further than FAR, unless it takes them
        to make two options but "Unanswerable" (with the gold or without it)."""
        fewest = self.wanted - NEAR_MISSES + 1
        nearest = sorted(self.short)[: max(0, self.wanted - len(self.exact))]
        kept = [
            values for i, (distance, _, values) in enumerate(nearest) if distance <= FAR or len(self.exact) + i < fewest
        ]
        return self.exact[: self.wanted] + [option_text(sorted(values)) for values in kept]


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
    one shown line's whole list (an answer often is: "The mother of Ann Lee is Cy Lee."), in how many parts the shown
    lines list its names (an answer of several names is often two or three lines' children or siblings), how many of
    its names carry a surname of the people the question names, how many are those people, how many have a shown
    article, and about how many shown articles name them (answers are named by their lists and often their own
    articles: more than a random name)."""

    surnames: frozenset[str] = frozenset()
    asked: frozenset[str] = frozenset()
    mentions: Mapping[str, int] = field(default_factory=dict)
    wholes: frozenset[frozenset[str]] = frozenset()  # the names of each shown family or friend line, as a set
    lines: Mapping[str, AbstractSet[int]] = field(default_factory=dict)  # name -> the shown lines (indices) naming it
    titled: frozenset[str] = frozenset()  # the people whose articles are shown
    # name -> its share of a look (_part), worked out once
    _parts: dict[str, tuple[int, int, int, int]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        asked: Collection[str],
        mentions: Mapping[str, int],
        lists: Sequence[Sequence[str]] = (),
        titled: Collection[str] = (),
    ) -> Likeness:
        wholes = frozenset(frozenset(names) for names in lists)
        lines: dict[str, set[int]] = {}
        for index, names in enumerate(lists):
            for name in names:
                lines.setdefault(name, set()).add(index)
        surnames = frozenset(_surname(name) for name in asked)
        return cls(surnames, frozenset(asked), mentions, wholes, lines, frozenset(titled))  # lines: sets never changed

    def look(self, values: Sequence[str]) -> tuple[int, ...]:
        """Its parts, most telling first: whether it is a shown line's whole list, in how many parts the shown lines
        list its names, names of the question's surnames, the question's own people, names with a shown article, and
        the fewest shown articles that name one of them and how many more name another (capped: siblings are all
        named by the same lists, so a gold's names are often named alike)."""
        if not values:
            return (0, 0, 0, 0, 0, 0, 0)
        return (int(self._whole(values)), self.parts(values), *self._named(values))

    def looks_like(self, values: Sequence[str], target: tuple[int, ...]) -> bool:
        """Whether look(values) == target, the names' own parts compared first (most draws differ there), so that
        the parts of a draw that differs by them are never worked out."""
        if not values:
            return target == self.look(values)
        if self._named(values) != target[SURNAMES:]:
            return False
        return int(self._whole(values)) == target[WHOLE] and self.parts(values) == target[PARTS]

    def _whole(self, values: Sequence[str]) -> bool:
        return bool(self.wholes) and frozenset(values) in self.wholes  # no lists, no set to make

    def _named(self, values: Sequence[str]) -> tuple[int, int, int, int, int]:
        """The parts of a look the names give one by one: of the question's surnames, asked, titled, the fewest
        articles naming one and how many more name another."""
        surnames = asked = titled = most = 0
        fewest = MENTIONS_CAP
        for name in values:
            part = self._parts.get(name) or self._part(name)
            surnames += part[0]
            asked += part[1]
            titled += part[3]
            most = max(most, part[2])
            fewest = min(fewest, part[2])
        return (surnames, asked, titled, fewest, most - fewest)

    def parts(self, values: Sequence[str]) -> int:
        """In how many parts the shown lines list these names: two names are in one part when a line names both, or
        a name of the part between them (a name no line names is a part of its own)."""
        if len(values) < 2:
            return len(values)
        joined: list[AbstractSet[int]] = []  # the lines of each part found so far
        alone = 0
        for name in values:
            mine = self.lines.get(name)
            if not mine:
                alone += 1
                continue
            kept = []
            for found in joined:
                if found.isdisjoint(mine):
                    kept.append(found)
                else:
                    mine = mine | found
            joined = [*kept, mine]
        return len(joined) + alone

    def partition(self, values: Sequence[str]) -> list[list[str]]:
        """The parts (`parts`) themselves: the names of each, in the order of `values`."""
        found: list[tuple[AbstractSet[int], list[str]]] = []
        for name in values:
            mine, names = self.lines.get(name, frozenset()), [name]
            kept = []
            for lines, held in found:
                if mine and not lines.isdisjoint(mine):
                    mine, names = mine | lines, held + names
                else:
                    kept.append((lines, held))
            found = [*kept, (mine, names)]
        return [names for _, names in found]

    def whole(self, target: Sequence[int]) -> bool:
        """Whether a look (of the gold option) is that of a shown line's whole list."""
        return bool(target[WHOLE])

    def distance(self, look: Sequence[int], target: Sequence[int]) -> int:
        """How far a look is from the gold option's, each part weighed by how telling it is."""
        total = 0
        for weight, a, b in zip(LOOK_WEIGHTS, look, target):  # a loop, not sum() of a generator: every near draw
            total += weight * (a - b if a > b else b - a)
        return total

    def mixer(
        self,
        rng: random.Random,
        answer: Sequence[str],
        lists: Sequence[Sequence[str]],
        grouped: dict[int, Grouped],
        shaped: bool = True,
    ) -> Draw | None:
        """What draws a decoy part by part as the shown lines list the gold option's names: for each of its parts, as
        many names of one shown line (at random), in that part's surnames' shape where `shaped` (and then in the gold
        option's). None where the gold is a part per name (any mix of names is). `grouped`: id of a line -> its
        surname levels (_grouped), shared with the row's other draws and filled as lines are drawn."""
        parts = self.partition(answer)
        if len(parts) == len(answer) or not lists:
            return None
        shapes = sorted((_surname_shape(names) for names in parts), key=lambda shape: (-sum(shape), shape))
        sizes = {sum(shape) for shape in shapes}
        holding = {size: [line for line in lists if len(line) >= size] for size in sizes}  # lines that can hold a part
        if not all(holding.values()):
            return None

        def draw() -> list[str]:
            out: list[str] = []
            for shape in shapes:
                lines = holding[sum(shape)]
                for _ in range(PART_TRIES):
                    line = lines[below(rng, len(lines))]
                    free = [name for name in line if name not in out]
                    if not shaped:
                        found = sample(rng, free, sum(shape))
                    elif len(free) < len(line):
                        found = _shaped(rng, free, shape, None)
                    else:
                        levels = grouped.get(id(line))
                        if levels is None:
                            levels = grouped[id(line)] = _grouped(line)
                        found = _shaped(rng, free, shape, levels)
                    if len(found) == sum(shape):
                        out += found
                        break
                else:
                    return []
            return out if not shaped or _surname_shape(out) == whole else []

        whole = _surname_shape(answer)
        return draw

    def parts_of(self, name: str) -> tuple[int, int, int, int]:
        """One name's share of a look (_part), kept."""
        return self._parts.get(name) or self._part(name)

    def _part(self, name: str) -> tuple[int, int, int, int]:
        """One name's share of a look (whether its surname is asked's, whether it is asked, its capped mentions,
        whether its article is shown), worked out once per name."""
        found = self._parts[name] = (
            int(_surname(name) in self.surnames),
            int(name in self.asked),
            min(self.mentions.get(name, 0), MENTIONS_CAP),
            int(name in self.titled),
        )
        return found


def _drawer(
    rng: random.Random, group: Sequence[str], k: int, shape: list[int] | None, grouped: dict[int, Grouped]
) -> Callable[[], list[str]]:
    """What draws one candidate of k names from `group`, in `shape` where there is one (`_shaped`); its sorted names
    or surname levels (`grouped`, by id of the group, kept) worked out once."""
    if shape is None:  # values, as often as the shown articles give each
        return partial(_distinct, rng, sorted(group), k)
    found = grouped.get(id(group))
    if found is None:
        found = grouped[id(group)] = _grouped(group)
    if shape == [1]:  # one name: _shaped's draw, inlined (most questions have one answer)
        surnames, held = found.get(1, _NO_LEVEL)
        return lambda: [pick(rng, held[below(rng, len(surnames))])] if surnames else []
    return lambda: _shaped(rng, group, shape, found)


def _decoy_draws(
    rng: random.Random,
    near: list[list[str]],
    lists: list[list[str]],
    pools: tuple[list[str], list[str]],
    k: int,
    whole: bool = False,
    mixes: tuple[Draw | None, Draw | None] = (None, None),
) -> Iterator[tuple[Sequence[str] | Draw, bool, int]]:
    """Where candidate decoys are drawn from, in the order tried: (names, or what draws one candidate; whether a
    candidate must look exactly like the gold option (Likeness.look) or is kept by how near it comes; how many
    candidates). First, exactly alike: draws from the near misses and the shown lists, with the gold's first `mixes`
    (part by part as the shown lines list the gold's names, in its surnames' shape), and mixes
    of the strong names (named as often as the gold's). Then the nearest of: where the gold option is a shown line's
    `whole` list, the lists of its size as they are; both `mixes` (the second in any surnames' shape); mixes of the
    strong names, of every name, and plain samples of every name. `pools`: (the strong names, every name), each
    sorted and distinct. The consumer stops drawing once it has its decoys: nothing is drawn from a row's stream
    after them."""
    strong, pool = pools
    groups = [*near, *shuffled(rng, lists)]
    for group in groups:
        if len(group) >= k:
            yield group, True, GROUP_DRAWS
    if mixes[0] is not None:
        yield mixes[0], True, MIX_TRIES
    if len(strong) > k:
        yield strong, True, LOOK_TRIES
    if whole:
        for group in groups:
            if len(group) == k:
                yield partial(list, group), False, 1
    for mix in mixes:
        if mix is not None:
            yield mix, False, MIX_TRIES
    if len(strong) > k:
        yield strong, False, LOOK_TRIES
    if len(pool) >= k:
        yield pool, False, LOOK_TRIES
        yield partial(_plain, rng, pool, k), False, LOOK_TRIES


def _distinct(rng: random.Random, values: list[str], k: int) -> list[str]:
    """k distinct values drawn at random from a list that may repeat them (each as likely as its repeats make it)."""
    out: list[str] = []
    for value in lazily_shuffled(rng, values):
        if value not in out:
            out.append(value)
            if len(out) == k:
                break
    return out


def _plain(rng: random.Random, names: list[str], k: int) -> list[str]:
    """k names drawn at random, whatever their surnames."""
    return sample(rng, names, k)


def _surname(name: str) -> str:
    return name[name.rfind(" ") + 1 :]


def _surname_shape(answer: Sequence[str]) -> list[int]:
    """How many of the names share each surname, largest first: ["Ann Lee", "Bo Lee", "Cy Ma"] -> [2, 1]."""
    counts: dict[str, int] = {}
    for name in answer:  # by hand rather than a Counter: every mixed draw asks
        surname = name[name.rfind(" ") + 1 :]
        counts[surname] = counts.get(surname, 0) + 1
    return sorted(counts.values(), reverse=True)


Grouped = dict[int, tuple[list[str], list[list[str]]]]
"""For each number n of names one surname holds: (the surnames holding at least n, sorted; the names of each)."""


_NO_LEVEL: tuple[list[str], list[list[str]]] = ([], [])


def _grouped(names: Sequence[str]) -> Grouped:
    """For each number n of names one surname holds (1 to the most), the surnames holding at least n, sorted, each
    with its names sorted: what `_shaped` draws from (made once per group of names)."""
    by_surname: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        surname = name[name.rfind(" ") + 1 :]  # _surname, inlined: pools of a few hundred names come here
        held = by_surname.get(surname)
        if held is None:
            by_surname[surname] = [name]
        else:
            held.append(name)
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
        out += sample(rng, held[index], count)  # held names are sorted and distinct
    return out
