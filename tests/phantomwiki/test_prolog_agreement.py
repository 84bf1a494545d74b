"""Every answer of whole universes agrees with real SWI-Prolog consulting the exported program."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from builders.phantomwiki.prolog import write_program
from builders.phantomwiki.relations import relations

from pw_universes import generated

ORACLE = Path(__file__).with_name("prolog_oracle.py")


def prolog_answers(universe, questions, tmp_path: Path) -> list[list[str]]:
    program = write_program(universe, tmp_path)
    queries = tmp_path / "queries.json"
    queries.write_text(json.dumps([{"query": q.query, "answer": q.answer_variable} for q in questions]))
    done = subprocess.run([sys.executable, str(ORACLE), str(program), str(queries)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", ["n50_s1", "n50_s2", "n50_s3", "n50_d10_s4", "n500_s1", "n500_s2"])
def test_every_answer_matches_swi_prolog(name, tmp_path):
    g = generated(name)
    expected = prolog_answers(g.universe, g.questions, tmp_path)
    ours = [sorted(q.answer) for q in g.questions]
    mismatches = [(q.question, e, o) for q, e, o in zip(g.questions, expected, ours) if e != o]
    assert len(g.questions) == 10 * (3 * g.settings.depth - 10)
    assert any(q.is_aggregation_question for q in g.questions)
    assert not mismatches, mismatches[:3]


def test_easy_mode_answers_match_swi_prolog(tmp_path):
    g = generated("n50_s5", easy_mode=True)
    used = {lit.split("(", 1)[0] for q in g.questions for lit in q.query if lit.split("(", 1)[0] in relations()}
    assert used and all(relations()[rel].difficulty == 1 for rel in used)
    assert [sorted(q.answer) for q in g.questions] == prolog_answers(g.universe, g.questions, tmp_path)


def test_swipl_consults_the_exported_program(tmp_path):
    program = write_program(generated("n50_s1").universe, tmp_path)
    done = subprocess.run(["swipl", "-q", "-g", "aggregate_all(count, type(_, person), N), print(N), nl", "-t", "halt", str(program)],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "50"
