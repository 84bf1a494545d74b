"""Re-solve stored v1 questions over an imported v1 universe and report which stored answers we reproduce."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..phantomwiki.kinship import Kinship
from ..phantomwiki.prolog import read_universe
from ..phantomwiki.solver import QueryError, Solver


@dataclass
class Difference:
    """A stored question whose answers we compute differently (or cannot read)."""

    id: str
    question: str
    stored: list[str]
    computed: list[str] | str


def read_questions(path: str | Path) -> list[dict]:
    """v1 questions from a JSON list (questions.json) or JSON lines."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as error:
            raise ValueError(
                f"{path}: neither a JSON list nor JSON lines of questions ({error.msg}, line {error.lineno})"
            ) from None
    if isinstance(data, dict):
        data = [data]
    for row in data:
        if not isinstance(row, dict) or "prolog" not in row or "answer" not in row:
            raise ValueError(
                f"{path}: every question needs 'prolog' (query, answer) and 'answer' fields, as v1 writes them"
            )
    return data


def resolve(database_text: str, questions: list[dict]) -> tuple[int, list[Difference]]:
    """(number reproduced, differences) for v1 questions over the universe in `database_text`."""
    solver = Solver(Kinship(read_universe(database_text)))
    reproduced, differences = 0, []
    for row in questions:
        prolog = row["prolog"]
        stored = sorted({str(a) for a in row["answer"]})
        try:
            computed: list[str] | str = sorted(solver.solve(list(prolog["query"]), prolog["answer"]).answers)
        except QueryError as error:
            computed = f"unreadable query: {error}"
        if computed == stored:
            reproduced += 1
        else:
            differences.append(Difference(str(row.get("id", "")), row.get("question", ""), stored, computed))
    return reproduced, differences
