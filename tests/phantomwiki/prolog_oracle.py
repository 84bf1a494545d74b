"""Answer questions with real SWI-Prolog (through pyswip), in a process of its own.

    python prolog_oracle.py program.pl questions.json [--every-solution]  ->  prints a JSON list of sorted answer lists

Each query runs as v1 runs it: its literals reversed into one conjunction; the answers are the
distinct values of the answer variable (findall + sort, converted to strings). With --every-solution,
a value is listed once per solution Prolog finds (findall + msort), as v1's question sampler sees them.
"""

from __future__ import annotations

import json
import sys

from pyswip import Prolog


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def main(program: str, questions_file: str, every_solution: str = "") -> None:
    prolog = Prolog()
    prolog.consult(program)
    order = "msort" if every_solution == "--every-solution" else "sort"
    answers = []
    for row in json.load(open(questions_file, encoding="utf-8")):
        goal = ", ".join(reversed(row["query"]))
        result = list(prolog.query(f"findall({row['answer']}, ({goal}), All), {order}(All, Sorted)"))
        answers.append(sorted(_text(value) for value in result[0]["Sorted"]))
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main(*sys.argv[1:])
