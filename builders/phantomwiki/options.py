"""Multiple choice as NeoQA asks it: one option per answer set, near misses from the universe, and "Unanswerable".

A question family (a question, its insufficient instances and its unanswerable variants) shares one list of
options in one seeded order: the gold answer (all of its values as one option), up to four near misses, and
"Unanswerable". Near misses are computed, never invented: the answer of the question with one hop's
relation changed, a sibling or spouse of an answer, a count off by one or two. No option repeats another or
the gold answer as a set, so each list holds exactly one correct option: the gold answer on a sufficient
instance, "Unanswerable" on every other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..metrics import answer_set
from ..rng import pick, shuffled, stream
from .kinship import Kinship
from .questions import Question
from .solver import Solver, parse_literal

UNANSWERABLE = "Unanswerable"
NEAR_MISSES = 4
HOP_CHANGES = 8  # relations tried in place of the outermost hop's, in a seeded order
_RELATIVES = ("sibling", "wife", "husband")
ATTEMPTS = 100


def option_text(answer: Sequence[str]) -> str:
    """An answer list as one option, e.g. "Ann Lee, Bo Lee"."""
    return ", ".join(answer)


class OptionMaker:
    """The options of each question family of one universe."""

    def __init__(self, kinship: Kinship, seed: int, bank: Sequence[str]) -> None:
        self.kinship = kinship
        self.solver = Solver(kinship)
        self.seed = seed
        self.bank = tuple(bank)

    def options(self, question: Question) -> list[str]:
        """The family's options in their seeded order (the gold answer and "Unanswerable" among them)."""
        rng = stream(self.seed, "options", question.id)
        seen = {frozenset(answer_set(question.answer)), frozenset(answer_set(UNANSWERABLE))}
        near: list[str] = []

        def add(held: Sequence[str | None]) -> None:
            values = [value for value in held if value is not None]  # an imported universe may lack a value
            key = frozenset(answer_set(values))
            if values and key not in seen and len(near) < NEAR_MISSES:
                seen.add(key)
                near.append(option_text(values))

        hops = [
            (i, lit) for i, lit in enumerate(map(parse_literal, question.query)) if lit.kind in ("relation", "count")
        ]
        if hops:  # "Who is the person whose hobby is tango?" has none
            position, literal = hops[0]
            hop = re.compile(rf"(?<![A-Za-z_]){literal.predicate}\(")
            for relation in shuffled(rng, [r for r in self.bank if r != literal.predicate])[:HOP_CHANGES]:
                query = list(question.query)
                query[position] = hop.sub(f"{relation}(", query[position], count=1)
                add(self.solver.solve(query, question.answer_variable).answers)
        last = parse_literal(question.query[0])
        universe = self.kinship.universe
        if last.kind == "relation" or last.inverse:  # a "Who" question: the answers' siblings and spouses
            for name in question.answer:
                for other in self._relatives(universe.ids[name]):
                    add([universe.names[other]])
        elif last.kind == "attribute":  # "What is the occupation of ...": that of the people asked about's relatives
            values = universe.attribute(last.predicate)
            asked = self.solver.solve(question.query[1:], last.source).answers if len(question.query) > 1 else []
            for name in asked:
                for other in self._relatives(universe.ids[name]):
                    add([values[other]])
        else:
            for shift in (1, -1, 2, -2):
                shifted = [str(int(count) + shift) for count in question.answer]
                if all(int(count) >= 0 for count in shifted):
                    add(shifted)
        for _ in range(ATTEMPTS):  # never fewer than two wrong options: someone else's name or value
            if len(near) >= 2:
                break
            other = pick(rng, range(len(universe)))
            add([universe.attribute(last.predicate)[other] if last.kind == "attribute" else universe.names[other]])
        return shuffled(rng, [option_text(question.answer), *near, UNANSWERABLE])

    def _relatives(self, person: int) -> list[int]:
        return [other for relation in _RELATIVES for other in self.kinship.targets(relation, person)]
