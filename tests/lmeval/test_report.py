"""`python -m leakproof_qa report RESULTS... --out DIR` on results a user really has: lm_eval runs of the oracle and
of a constant model through `python -m leakproof_qa run` (with --log_samples, and one without), and two agent
runs through `python -m phantom_wiki agent` (the oracle and the random walk). Every table value is the results
file's own; every figure exists and its data table holds the plotted values, checked against counts taken from the
logged documents here; logged documents that do not give their results file's metrics again are not broken down;
someone else's folder cannot make the report read outside it."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import pytest

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.leakproof_eval.figures import read_table
from leakproof_qa.leakproof_eval.report import columns
from leakproof_qa.leakproof_eval.results import universe_label
from tests.lmeval.harness import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LIMIT = 40
TASKS = "phantom_wiki,phantom_wiki_instances_cite,phantom_wiki_questions"
FIGURES = ("by_difficulty", "by_distractors", "by_prompt_length", "by_category", "by_universe_size", "agent_tool_calls")


def _start(args: list[str], home: Path) -> subprocess.Popen:
    env = os.environ | {"HF_HOME": str(home / "hf"), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", *args], cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _lm_eval(home: Path, model: list[str], tasks: str, config: str, universes: str, samples: bool) -> subprocess.Popen:
    """`python -m leakproof_qa run`, its results in lm-eval/ (n50_s1) or lm-eval-n500/ (n500_s1)."""
    metadata = json.dumps({"phantom_wiki_config": config, "phantom_wiki_cache_dir": universes})
    limit = LIMIT if config == "n50_s1" else 5 * LIMIT
    args = ["leakproof_qa", "run", *model, "--tasks", tasks, "--limit", str(limit), "--metadata", metadata]
    out = home / ("lm-eval" if config == "n50_s1" else "lm-eval-n500")
    return _start([*args, "--output_path", str(out), "--log_samples" if samples else "--no-log-samples"], home)


def _agent(home: Path, model: str, *options: str) -> subprocess.Popen:
    """`python -m phantom_wiki agent` at n50_s1, its run in agents/<model>."""
    return _start(
        ["phantom_wiki", "agent", "n50_s1", "--model", model, *options, "--out", str(home / "agents" / model)], home
    )


@pytest.fixture(scope="module")
def made(universes, tmp_path_factory):
    """Four lm_eval runs and two agent runs, then the report of all of them."""
    home = tmp_path_factory.mktemp("report")
    started = [
        _lm_eval(home, ["--model", "oracle"], TASKS, "n50_s1", universes, samples=True),
        _lm_eval(home, ["--model", "constant", "--model_args", "response=Nobody"], TASKS, "n50_s1", universes, True),
        _lm_eval(home, ["--model", "constant"], "phantom_wiki_instances", "n500_s1", universes, samples=True),
        _lm_eval(home, ["--model", "oracle"], "phantom_wiki_instances", "n500_s1", universes, samples=False),
        _agent(home, "oracle", "--mode", "tools", "--max-steps", "200"),
        _agent(home, "random-walk"),
    ]
    for process in started:
        output = process.stdout.read()
        assert process.wait(timeout=900) == 0, output[-3000:]
    report = home / "report"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "leakproof_qa",
            "report",
            str(home / "lm-eval"),
            str(home / "lm-eval-n500"),
            str(home / "agents"),
            "--out",
            str(report),
        ],
        capture_output=True,
        text=True,
        cwd=home,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {"home": home, "report": report, "stdout": done.stdout, "markdown": (report / "report.md").read_text()}


def tables(markdown: str) -> dict[str, list[dict[str, str]]]:
    """The Markdown table of each `## section` as rows of {header: cell}."""
    found: dict[str, list[list[str]]] = {}
    section = ""
    for line in markdown.splitlines():
        if line.startswith("## "):
            section = line[3:]
        elif line.startswith("| "):
            found.setdefault(section, []).append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return {name: [dict(zip(rows[0], row)) for row in rows[1:]] for name, rows in found.items()}


def results_files(home: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(home.glob("lm-eval*/*/results_*.json"))]


def samples_of(home: Path, model: str, task: str, folder: str = "lm-eval") -> list[dict]:
    (path,) = (home / folder / model).glob(f"samples_{task}_2*.jsonl")  # not the _cite task's
    return [json.loads(line) for line in path.read_text().splitlines()]


def three(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def test_the_printed_report_is_report_md(made):
    assert made["stdout"].strip() == made["markdown"].strip()


def test_every_task_table_holds_the_results_files_values(made):
    found = tables(made["markdown"])
    checked = 0
    for results in results_files(made["home"]):
        model = results["model_name"]
        for task, values in results["results"].items():
            if task not in results["configs"]:  # the group: in the headline
                continue
            universe = universe_label(results["configs"][task]["metadata"]["phantom_wiki_resolved"])[0]
            (row,) = [r for r in found[task] if r["model"] == model and r["universe"] == universe]
            assert row["documents"] == str(results["n-samples"][task]["effective"])
            for key, value in values.items():
                if "," not in key or "_stderr" in key:
                    continue
                metric = key.split(",")[0]
                header = next((c.header for c in columns() if c.table == "task" and c.metric == metric), metric)
                assert row[header] == three(value), (task, metric)
                checked += 1
    assert checked > 60


def test_the_headline_is_one_row_per_model_and_universe_with_the_group_s_adt_score(made):
    rows = tables(made["markdown"])["Headline: one row per model and universe"]
    assert sorted((r["model"], r["universe"]) for r in rows) == [
        ("constant", "n500_s1"),
        ("constant", "n50_s1"),
        ("oracle", "n500_s1"),
        ("oracle", "n50_s1"),
    ]
    for results in results_files(made["home"]):
        if "phantom_wiki" in results.get("groups", {}):
            row = next(r for r in rows if r["model"] == results["model_name"] and r["universe"] == "n50_s1")
            assert row["ADTScore (headline)"] == three(results["groups"]["phantom_wiki"]["adt_score,answer"])
            assert row["in-context F1"] == three(results["results"]["phantom_wiki_questions"]["f1,answer"])
            assert row["instances citation R"] == three(
                results["results"]["phantom_wiki_instances_cite"]["citation_recall,answer"]
            )
    oracle500 = next(r for r in rows if r["universe"] == "n500_s1" and r["model"] == "oracle")
    assert oracle500["ADTScore (headline)"] == "" and oracle500["instances ADTScore"] == "1.000"


def test_categories_and_roles_come_from_the_logged_documents_with_their_counts(made):
    """`acc. <kind>` per kind to refuse, `acc. missing <role>` per role of an insufficient row's missing article."""
    found = tables(made["markdown"])
    for model in ("oracle", "constant"):
        for task in ("phantom_wiki_instances", "phantom_wiki_rag", "phantom_wiki_mc"):
            docs = [sample["doc"] for sample in samples_of(made["home"], model, task)]
            refuse = [d for d in docs if d["answerable"] != "sufficient"]
            groups = {f"acc. {d['unanswerable_kind'] or d['answerable']}": [] for d in refuse}
            for d in refuse:
                groups[f"acc. {d['unanswerable_kind'] or d['answerable']}"].append(d)
                if d["answerable"] == "insufficient" and d["missing_role"]:
                    groups.setdefault(f"acc. missing {d['missing_role']}", []).append(d)
            (row,) = [r for r in found[task] if r["model"] == model and r["universe"] == "n50_s1"]
            shown = {header: value for header, value in row.items() if header.startswith("acc. ")}
            assert shown == {
                header: f"{_right(model, task, group):.3f} ({len(group)})" for header, group in groups.items()
            }
            assert any(header.startswith("acc. missing ") for header in shown) == (task != "phantom_wiki_rag")


def _right(model: str, task: str, docs: list[dict]) -> float:
    """The share of these must-refuse documents the model refuses: the oracle all, the constant answer none, and in
    multiple choice the constant model's first option is right where the gold one ("Unanswerable") comes first."""
    if model == "oracle":
        return 1.0
    return sum(d["gold_answer_idx"] == 0 for d in docs) / len(docs) if task == "phantom_wiki_mc" else 0.0


def test_a_run_without_logged_documents_shows_its_results_and_says_what_it_lacks(made):
    instances = tables(made["markdown"])["phantom_wiki_instances"]
    (row,) = [r for r in instances if r["universe"] == "n500_s1" and r["model"] == "oracle"]
    assert row["ADTScore"] == "1.000" and all(v == "" for h, v in row.items() if h.startswith("acc. "))
    assert (
        "Without per-document logs" in made["markdown"]
        and "phantom_wiki_instances (oracle, n500_s1)" in made["markdown"]
    )


def test_the_agent_table_is_each_run_s_scores_json(made):
    rows = tables(made["markdown"])["Agents"]
    for name, model in (("oracle", "oracle"), ("random-walk", "random-walk")):
        scores = json.loads((made["home"] / "agents" / name / "scores.json").read_text())
        (row,) = [r for r in rows if r["model"].startswith(model)]
        assert row["F1"] == three(scores["f1"]) and row["EM"] == three(scores["exact_match"])
        assert row["questions"] == str(scores["questions"]) and row["finished"] == str(scores["finished"])
        assert row["at the step limit"] == str(scores["questions"] - scores["finished"])
        assert row["tool calls / question"] == three(scores["tool_calls_per_question"])
        assert row["minimum / question"] == three(scores["minimum_calls_per_question"])


def test_every_figure_is_a_png_with_its_plotted_values_beside_it(made):
    for name in FIGURES:
        png = made["report"] / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000, name
        assert read_table(made["report"] / f"{name}.tsv"), name
        assert f"]({name}.png)" in made["markdown"]


def test_f1_and_adt_score_against_difficulty_count_the_logged_documents_of_each_difficulty(made):
    rows = read_table(made["report"] / "by_difficulty.tsv")
    for model, value in (("oracle", 1.0), ("constant", 0.0)):
        docs = [s["doc"] for s in samples_of(made["home"], model, "phantom_wiki_instances")]
        mine = [r for r in rows if r["series"] == f"{model} · n50_s1 · instances"]
        f1 = {r["x"]: (r["y"], r["count"]) for r in mine if r["panel"] == "f1"}
        # F1 is over the answerable documents of a difficulty; the group holds all its documents
        expected = Counter(float(d["difficulty"]) for d in docs)
        answerable = {float(d["difficulty"]) for d in docs if d["answerable"] == "sufficient"}
        assert f1 == {x: (value, expected[x]) for x in answerable}
        assert all(r["y"] == value for r in mine)


def test_f1_and_adt_score_against_distractors_group_the_documents_by_the_distractors_each_shows(made):
    """The fixed layout draws each row's number of documents, so the count of distractors varies from row to row."""
    rows = [
        r for r in read_table(made["report"] / "by_distractors.tsv") if r["series"] == "constant · n500_s1 · instances"
    ]
    docs = [s["doc"] for s in samples_of(made["home"], "constant", "phantom_wiki_instances", "lm-eval-n500")]
    counts = Counter(float(d["num_distractors"]) for d in docs)
    f1 = {r["x"]: (r["y"], r["count"]) for r in rows if r["panel"] == "f1"}
    adt = {r["x"]: (r["y"], r["count"]) for r in rows if r["panel"] == "adt_score"}
    assert f1 == {x: (0.0, counts[x]) for x in counts if _sides(docs, x) >= {True}}  # F1 needs an answerable one
    assert adt == {x: (0.0, counts[x]) for x in counts if _sides(docs, x) == {True, False}}  # ADTScore both sides
    assert len(f1) > 3 and len(adt) > 1


def _sides(docs: list[dict], distractors: float) -> set[bool]:
    """Whether the documents with this many distractors are answerable (True), must be refused (False), or both."""
    return {d["answerable"] == "sufficient" for d in docs if d["num_distractors"] == distractors}


def test_accuracy_by_category_is_the_table_s(made):
    rows = read_table(made["report"] / "by_category.tsv")
    table = tables(made["markdown"])["phantom_wiki_rag"]
    for row in table:
        if row["universe"] != "n50_s1":
            continue
        plotted = {
            r["x"]: f"{r['y']:.3f} ({r['count']})" for r in rows if r["series"] == f"{row['model']} · n50_s1 · rag"
        }
        assert {h.removeprefix("acc. "): v for h, v in row.items() if h.startswith("acc. ")} == {
            k: v for k, v in plotted.items() if k != "answerable"
        }


def test_adt_score_against_universe_size_is_each_results_file_s(made):
    rows = read_table(made["report"] / "by_universe_size.tsv")
    assert {(r["x"], r["y"]) for r in rows if r["series"] == "oracle · instances" and r["panel"] == "adt_score"} == {
        (50.0, 1.0),
        (500.0, 1.0),
    }


def test_agents_f1_against_tool_calls_marks_the_minimum(made):
    rows = read_table(made["report"] / "agent_tool_calls.tsv")
    scores = json.loads((made["home"] / "agents" / "oracle" / "scores.json").read_text())
    (mark,) = [r for r in rows if r["panel"] == "mark"]
    assert mark["x"] == pytest.approx(scores["minimum_calls_per_question"]) and mark["count"] == 2 * scores["questions"]
    oracle = [r for r in rows if r["series"].startswith("oracle") and r["panel"] == "f1"]
    assert sum(r["count"] for r in oracle) == scores["questions"] and all(r["y"] == 1.0 for r in oracle)
    trajectories = [json.loads(line) for line in (made["home"] / "agents" / "oracle" / "trajectories.jsonl").open()]
    mean_calls = sum(r["x"] * r["count"] for r in oracle) / scores["questions"]
    assert mean_calls == pytest.approx(sum(len(t["tool_calls"]) for t in trajectories) / len(trajectories))


def test_an_agent_run_that_names_its_universe_is_plotted_against_difficulty(made, tmp_path):
    run = tmp_path / "oracle"
    shutil.copytree(made["home"] / "agents" / "oracle", run)
    settings = asdict(settings_from("n50_s1", max_evidence=8)[0])  # a setting questions do not depend on
    (run / "run.json").write_text(  # as the runner writes it
        json.dumps(
            {
                "universe": "n50_s1",
                "settings": settings,
                "model": "oracle",
                "mode": "tools",
                "tools": "atomic",
                "max_steps": 200,
                "package_version": "x",
            }
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "leakproof_qa", "report", str(run), "--out", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    (row,) = tables(done.stdout)["Agents"]
    assert (row["model"], row["universe"], row["max steps"]) == ("oracle", "n50_s1 max_evidence=8", "200")
    plotted = {r["x"]: r["count"] for r in read_table(tmp_path / "r" / "by_difficulty.tsv")}
    questions = generate(settings_from("n50_s1")[0], with_articles=False).questions
    assert plotted == dict(Counter(float(q.difficulty) for q in questions))


def test_logged_documents_that_do_not_give_the_results_again_are_not_broken_down(made, tmp_path):
    copy = tmp_path / "oracle"
    shutil.copytree(made["home"] / "lm-eval" / "oracle", copy)
    (path,) = copy.glob("samples_phantom_wiki_rag_*.jsonl")
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    for metric in first["metrics"]:
        first[metric]["prediction"] = {"answer": "Somebody Else"}
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "leakproof_qa", "report", str(copy)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    (row,) = [r for r in tables(done.stdout)["phantom_wiki_rag"] if r["universe"] == "n50_s1"]
    assert all(v == "" for h, v in row.items() if h.startswith("acc. "))
    assert "phantom_wiki_rag of oracle on n50_s1: its samples give" in done.stdout


def report(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "leakproof_qa", "report", *args], capture_output=True, text=True, cwd=cwd
    )


def test_a_link_leading_out_of_the_folder_is_not_followed(made, tmp_path):
    outside = tmp_path / "outside"
    shutil.copytree(made["home"] / "lm-eval" / "constant", outside)
    folder = tmp_path / "given"
    shutil.copytree(made["home"] / "agents" / "random-walk", folder / "walk")
    (folder / "results_2026-01-01T00-00-00.json").symlink_to(next(outside.glob("results_*.json")))
    done = report(str(folder))
    assert done.returncode == 0 and "constant" not in done.stdout
    (folder / "walk" / "scores.json").unlink()
    (folder / "walk" / "scores.json").symlink_to(made["home"] / "agents" / "oracle" / "scores.json")
    done = report(str(folder))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "leads outside" in done.stderr


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda d: None, "does not exist"),
        (lambda d: d.mkdir(), "holds no lm-eval results"),
        (lambda d: (d.mkdir(), (d / "results_1.json").write_text("{not json")), "is not JSON"),
        (lambda d: (d.mkdir(), (d / "results_1.json").write_text("[]")), "has no `results` table"),
        (lambda d: (d.mkdir(), (d / "scores.json").write_text("{}")), "not an agent run's scores"),
        (lambda d: (d.mkdir(), (d / "trajectories.jsonl").write_text("{}\n")), "the run has not ended"),
    ],
)
def test_a_bad_input_is_one_line(tmp_path, make, says):
    make(tmp_path / "given")
    done = report(str(tmp_path / "given"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("leakproof_eval report: ") and says in done.stderr


def test_out_that_is_a_file_is_one_line(made, tmp_path):
    (tmp_path / "file").write_text("")
    done = report(str(made["home"] / "agents"), "--out", str(tmp_path / "file"))
    assert done.returncode == 2 and "is a file; give a folder" in done.stderr and done.stderr.count("\n") == 1
