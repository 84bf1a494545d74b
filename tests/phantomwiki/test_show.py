"""`python -m phantom_wiki show NAME`: one row of every subset, readable (the label and why first, the documents with
the required ones marked, the options) or as the row itself; one-line errors. The prompt view is specified in
tests/lmeval/test_show_prompt.py (it needs lm_eval)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from leakproof_qa.builders.cli.phantomwiki import main
from leakproof_qa.builders.cli.show import readable, why
from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import SUBSETS, format_name, settings_from
from tests.phantomwiki.pw_universes import generated

REPO = Path(__file__).resolve().parents[2]
NAME = "n50_s1"


def rows(subset: str) -> list[dict]:
    return list(engine.ROWS[subset](generated(NAME)))


def show(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["show", *args]) == 0
    return capsys.readouterr().out


def cli(*args: str) -> subprocess.CompletedProcess:
    env = os.environ | {"HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "phantom_wiki", "show", *args], capture_output=True, text=True, cwd=REPO, env=env
    )


@pytest.mark.parametrize("subset", SUBSETS)
def test_as_row_prints_exactly_the_row_the_subset_holds_at_that_index_and_id(capsys, subset):
    table = rows(subset)
    index = len(table) // 2
    name = format_name(50, 20, 1, subset)
    assert json.loads(show(capsys, name, "--index", str(index), "--as", "row")) == table[index]
    if subset != "database":
        field = {"questions": "id", "corpus": "title"}.get(subset, "instance_id")
        assert json.loads(show(capsys, name, "--id", table[index][field], "--as", "row")) == table[index]


@pytest.mark.parametrize("subset", SUBSETS)
def test_the_readable_view_starts_with_where_the_row_is_and_shows_what_it_holds(capsys, subset):
    table = rows(subset)
    row = table[-1]
    text = show(capsys, format_name(50, 20, 1, subset), "--index", str(len(table) - 1))
    assert text.startswith(f"{format_name(50, 20, 1, subset)}, row {len(table) - 1} of {len(table):,}")
    if subset == "questions":
        assert row["question"] in text and ", ".join(row["answer"]) in text and row["evidence"][0] in text
    elif subset == "corpus":
        assert row["article"].rstrip("\n") in text and all(fact in text for fact in row["facts"])
    elif subset == "database":
        first = row["content"].splitlines()[0]
        assert first in text and f"{len(row['content'].splitlines()):,} lines" in text
    else:
        assert row["question"] in text and row["instance_id"] in text and why(row) in text


@pytest.mark.parametrize("subset", ["instances", "rag"])
def test_documents_are_listed_in_the_order_shown_with_exactly_the_cited_ones_marked(subset):
    for row in rows(subset)[:300]:
        text = readable(NAME + "_" + subset, subset, 0, 1, row)
        listed = [line for line in text.splitlines() if line.startswith("  [")]
        assert [line[9:].split("  (")[0] for line in listed] == [d["title"] for d in row["documents"]]
        marked = [position for position, line in enumerate(listed) if line[7] == "*"]
        assert marked == sorted(row["citations"])
        distractors = [line[9:].split("  (")[0] for line in listed if line.endswith("(distractor)")]
        assert distractors == [d["title"] for d in row["documents"] if d["title"] in row.get("distractor_titles", [])]


def test_the_options_are_numbered_as_the_mc_task_numbers_them_with_the_gold_one_marked():
    for row in rows("instances")[:300]:
        text = readable(NAME + "_instances", "instances", 0, 1, row)
        options = [line for line in text.splitlines() if line[2:4] in ("  ", "> ") and ". " in line[4:8]]
        assert [line.split(". ", 1)[1] for line in options] == row["answer_options"]
        assert [i for i, line in enumerate(options) if line.startswith("  >")] == [row["gold_answer_idx"]]


def test_every_label_says_why_it_is_what_it_is():
    seen = set()
    for row in rows("instances"):
        reason = why(row)
        kind = row["answerable"]
        seen.add(row["unanswerable_kind"] or kind)
        assert reason.startswith(kind)
        if kind == "insufficient":
            assert row["missing_article"] in reason and "deflection" in reason
        if kind == "unanswerable":
            assert row["unanswerable_kind"] in reason and row["premise"] in reason
            assert ("refutes" if row["premise_status"] == "refuted" else "can confirm") in reason
    assert seen == {
        "sufficient",
        "insufficient",
        "false_premise_relation",
        "false_premise_attribute",
        "nonexistent_person",
        "uncertain_specificity",
    }


def test_label_fields_are_printed_whatever_of_them_a_row_has():
    """Each label field a row has is shown, an empty one or one the row lacks is not (rows of an older release)."""
    row = next(r for r in rows("instances") if r["answerable"] == "insufficient" and r["missing_role"])
    text = readable(NAME + "_instances", "instances", 0, 1, row)
    assert f"  missing_role          {row['missing_role']}" in text and f"(its role: {row['missing_role']})" in text
    assert f"  missing_article       {row['missing_article']}" in text
    assert "  unanswerable_kind" not in text  # empty for an insufficient row
    older = {key: value for key, value in row.items() if key != "missing_role"}
    assert "missing_role" not in readable(NAME + "_instances", "instances", 0, 1, older)


@pytest.mark.parametrize(
    "args, message",
    [
        (["n50_s1", "--index", "500"], "n50_s1 has 500 rows; --index 500 is outside 0-499"),
        (["n50_s1_instances", "--id", "nope"], "no row of n50_s1_instances has instance_id 'nope'"),
        (["n50_s1", "--task", "phantom_wiki_rag"], "add --as prompt"),
        (["n50_s1_database", "--id", "x"], "the database subset has one row and no id"),
        (["n50_s1_corpus", "--as", "prompt"], "no lm-eval task sends corpus rows to a model"),
        (["n50_s1", "--as", "prompt", "--task", "phantom_wiki_rag"], "give a name ending in _rag"),
        (["n50_s1_rag", "--as", "prompt", "--task", "phantom_wiki_nope"], "is not a PhantomWiki task"),
        (["n50_x1"], "bad configuration name 'n50_x1'"),
    ],
)
def test_a_wrong_request_is_one_line(args, message):
    done = cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


@pytest.mark.integration
def test_settings_are_options_as_for_generate():
    done = cli("n50_s1_instances", "--index", "3", "--max-evidence", "8", "--instance-documents", "8", "--as", "row")
    assert done.returncode == 0, done.stderr
    settings = settings_from("n50_s1", max_evidence=8, instance_documents=8)[0]
    made = engine.ROWS["instances"](engine.prepare(engine.generate(settings, False, False), ["instances"]))
    assert json.loads(done.stdout) == list(made)[3] != rows("instances")[3]
    assert len(json.loads(done.stdout)["documents"]) <= 8
