"""Sibling questions: the questions whose exact answers a question's decoys are (options.py).

A sibling of a question asks the same of the same people but for its last relation: it starts where the question
starts, takes its hops up to the last, then another relation that ends as many generations above or below (mother
and aunt, son and nephew, a friend's daughter and a friend's son), and asks who they are or the same attribute of
them. So it has as many relation hops and the same generation offset as the question. Its last relation is drawn as
questions.fill_template draws one: a (relation, person) pair of the relation bank, each as likely as its derivations,
from where the walk that took the hops before is likely to be; here the chance of each relation is worked out exactly
rather than drawn, and a relation whose question would have no rows (a required set past max_evidence, as no
question with rows has) has none. Each sibling is solved on the universe (set to set, as the solver goes), so its
answer is exact. The gold answer and a decoy are then the answers of two questions drawn alike about the same people,
and only what the last relation's words mean tells them apart (docs/instances.md argues it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .kinship import Kinship
from .relations import relations
from .required import RequiredSets
from .solver import Literal, parse_literal

KEPT = 1 << 12  # question forms whose siblings are kept (a cache: memory stays bounded at a million people)

Answer = tuple[str, ...]


class Sibling(NamedTuple):
    """One answer of a question's siblings: its values, how likely a sibling drawn as the question was gives it, the
    first sibling query that does, and whom it reaches (whose values a "What" sibling asks)."""

    answer: Answer
    chance: float
    query: tuple[str, ...]
    people: tuple[int, ...]


class Siblings:
    """The siblings of each question form of one universe, worked out once per form (its query)."""

    def __init__(self, kinship: Kinship, bank: Sequence[str], most: int | None = None) -> None:
        """`most`: the most articles a question with rows may need (max_evidence); a sibling needing more is none."""
        self.kinship = kinship
        self.most = most
        self.universe = kinship.universe
        self.bank = tuple(bank)
        self.required = RequiredSets(kinship.universe)
        self._found: dict[tuple[str, ...], list[Sibling]] = {}
        self._evidence: dict[tuple[str, ...], frozenset[int]] = {}

    def evidence(self, query: Sequence[str]) -> frozenset[int]:
        """The people whose articles a sibling query needs (its required set, required.py): what states its answer
        as a question's required set states the gold, each worked out once."""
        key = tuple(query)
        found = self._evidence.get(key)
        if found is None:
            if len(self._evidence) >= 4 * KEPT:
                self._evidence.clear()
            found = self._evidence[key] = frozenset(self.required.people(key))
        return found

    def answers(self, query: Sequence[str], alike: bool = True, drawn: Sequence[str] = ()) -> list[Sibling]:
        """The distinct answers of the siblings of `query` (its own last relation's among them), each with its chance,
        in the relation bank's order. [] for a query with no relation hop, or a count (a count's decoys are numbers).
        Not `alike`: a last relation of any generation offset (what a row whose documents state no sibling alike
        falls back to). `drawn`: the query the question was drawn as, where `query` narrows it to the person a premise
        names (its last relation was drawn from where that walk was, so the chances are that walk's)."""
        key = (*query, str(alike), *drawn)
        found = self._found.get(key)
        if found is None:
            if len(self._found) >= KEPT:
                self._found.clear()
            found = self._found[key] = self._worked_out(tuple(query), alike, tuple(drawn) or tuple(query))
        return found

    def _worked_out(self, query: tuple[str, ...], alike: bool, drawn: tuple[str, ...]) -> list[Sibling]:
        literals = [parse_literal(text) for text in query]
        hops = [i for i, literal in enumerate(literals) if literal.kind == "relation"]  # outermost first
        if not hops or literals[0].kind == "count":
            return []
        before = self._starts(literals[-1])
        for i in reversed(hops[1:]):  # the hops before the last, innermost first
            before = self._targets(literals[i].predicate, before)
        at = self._before_last(drawn)
        if not before or not at:
            return []
        table = relations()
        last = literals[hops[0]]
        chances = self._chances(at)
        asked = literals[0].predicate if literals[0].kind == "attribute" else None
        found: dict[Answer, Sibling] = {}
        for rel in self.bank:
            if rel not in chances or (alike and table[rel].generations != table[last.predicate].generations):
                continue
            people = self._targets(rel, before)
            answer = self._answer(people, asked)
            changed = list(query)
            changed[hops[0]] = rel + query[hops[0]][len(last.predicate) :]
            if not answer or not self._has_rows(drawn, rel):
                continue
            if answer in found:
                found[answer] = found[answer]._replace(chance=found[answer].chance + chances[rel])
            else:
                found[answer] = Sibling(answer, chances[rel], tuple(changed), people)
        return list(found.values())

    def _has_rows(self, drawn: tuple[str, ...], rel: str) -> bool:
        """Whether the question drawn as `drawn` with its last relation `rel` would have rows: its required set is no
        larger than `most` (a question needing more has no instances, so its answer is no row's gold either)."""
        if self.most is None:
            return True
        literals = [parse_literal(text) for text in drawn]
        last = next(i for i, literal in enumerate(literals) if literal.kind == "relation")
        changed = list(drawn)
        changed[last] = rel + drawn[last][len(literals[last].predicate) :]
        return len(self.evidence(changed)) <= self.most

    def _before_last(self, query: tuple[str, ...]) -> dict[int, float]:
        """Where a walk drawn as fill_template draws one, taking the relations of `query`, is before its last hop:
        each person it may be at, as likely as it is to be there."""
        literals = [parse_literal(text) for text in query]
        hops = [i for i, literal in enumerate(literals) if literal.kind == "relation"]
        starts = self._starts(literals[-1])
        at = {person: 1.0 / len(starts) for person in starts}
        for i in reversed(hops[1:]):
            if not at:
                break
            at = self._walked(literals[i].predicate, at)
        return at

    def _walked(self, rel: str, at: dict[int, float]) -> dict[int, float]:
        """Where a walk drawn as fill_template draws one is after one more hop, given that it took `rel`: from each
        person (as likely as `at` says), each (rel, person) pair as likely as its derivations among all the person's
        pairs. Every person the hop reaches set to set, as likely as the walk is to be there."""
        out: dict[int, float] = {}
        for person in sorted(at):
            choices = self.kinship.choices(person, self.bank)
            total = sum(count for _, _, count in choices)
            for taken, other, count in choices:
                if taken == rel:
                    out[other] = out.get(other, 0.0) + at[person] * count / total
        scale = sum(out.values())
        return {person: mass / scale for person, mass in out.items()} if scale else {}

    def _chances(self, at: dict[int, float]) -> dict[str, float]:
        """Relation -> the chance that a last hop drawn as fill_template draws one (from a person as likely as `at`
        says, a (relation, person) pair as likely as its derivations) takes it."""
        out: dict[str, float] = {}
        for person in sorted(at):
            choices = self.kinship.choices(person, self.bank)
            total = sum(count for _, _, count in choices)
            for rel, _, count in choices:
                out[rel] = out.get(rel, 0.0) + at[person] * count / total
        return out

    def _targets(self, rel: str, people: Sequence[int]) -> tuple[int, ...]:
        """Everyone `rel` links one of `people` to, sorted: one hop set to set, as the solver takes it."""
        targets = self.kinship.targets
        return tuple(sorted({y for person in people for y in targets(rel, person)}))

    def _starts(self, first: Literal) -> tuple[int, ...]:
        """The people a question starts from: its anchor, or the holders of the value it starts from."""
        value = first.source.strip()[1:-1]
        if first.inverse:
            return tuple(sorted(self.universe.holders(first.predicate, value)))
        person = self.universe.ids.get(value)
        return () if person is None else (person,)

    def _answer(self, people: Sequence[int], attribute: str | None) -> Answer:
        """What a question asks of the people it reaches, sorted as the solver sorts it: their names, or their values
        of `attribute`."""
        if attribute is None:
            return tuple(sorted(self.universe.names[p] for p in people))
        values = self.universe.attribute(attribute)
        return tuple(sorted({value for value in (values[p] for p in people) if value is not None}))
