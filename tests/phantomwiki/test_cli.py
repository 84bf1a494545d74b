"""`python -m phantom_wiki`: generate files plain `datasets` reads back, export Prolog, re-solve v1 questions."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import RANGES, SUBSETS, Settings
from tests.phantomwiki.pw_universes import generated

pytestmark = pytest.mark.integration


REPO = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "phantom_wiki", *args], capture_output=True, text=True, cwd=REPO)


@pytest.mark.parametrize("file_format, loader", [("parquet", "parquet"), ("jsonl", "json")])
def test_generate_writes_every_subset_that_plain_load_dataset_reads_back(tmp_path, file_format, loader):
    done = cli("generate", "n50_s1", "--out", str(tmp_path), "--format", file_format)
    assert done.returncode == 0, done.stderr
    assert "500 (170 counting)" in done.stdout or "questions  500" in done.stdout
    assert "difficulty" in done.stdout and "time" in done.stdout
    g = generated("n50_s1")
    for subset in SUBSETS:
        ds = datasets.load_dataset(
            loader,
            data_files={"test": str(tmp_path / f"{subset}.{file_format}")},
            split="test",
            cache_dir=str(tmp_path / "cache"),
        )
        assert ds.to_list() == list(engine.ROWS[subset](g)), subset


def test_the_database_file_has_no_statistics_or_dictionary_for_its_one_whole_program(tmp_path):
    """pyarrow copies a value to compute its min / max and to try a dictionary, and keeps neither for a value of
    300 MB (the program at a million people); the other subsets keep pyarrow's defaults."""
    import pyarrow.parquet as pq

    done = cli("generate", "n50_s1", "--out", str(tmp_path), "--subsets", "database", "questions")
    assert done.returncode == 0, done.stderr
    program = pq.ParquetFile(tmp_path / "database.parquet").metadata.row_group(0).column(0)
    assert not program.is_stats_set and not any("DICTIONARY" in encoding for encoding in program.encodings)
    questions = pq.ParquetFile(tmp_path / "questions.parquet").metadata.row_group(0).column(0)
    assert questions.is_stats_set and "RLE_DICTIONARY" in questions.encodings


def test_generate_refuses_a_bad_name_in_one_line(tmp_path):
    done = cli("generate", "n50_x1", "--out", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "bad configuration name 'n50_x1'" in done.stderr


def export_v1_facts(tmp_path: Path) -> Path:
    """The universe as v1 writes facts.pl: SWI-Prolog's `listing` of everything consulted."""
    assert cli("prolog", "n50_s1", "--out", str(tmp_path)).returncode == 0
    facts = tmp_path / "v1_facts.pl"
    subprocess.run(
        ["swipl", "-q", "-g", f"consult('{tmp_path / 'program.pl'}'), tell('{facts}'), listing, told", "-t", "halt"],
        check=True,
    )
    return facts


def v1_questions(path: Path, change_one: bool = False) -> Path:
    rows = list(engine.question_rows(generated("n50_s1")))
    if change_one:
        rows[3]["answer"] = rows[3]["answer"] + ["Nobody Atall"]
    path.write_text(json.dumps([{k: r[k] for k in ("id", "question", "answer", "prolog")} for r in rows], indent=2))
    return path


def test_resolve_reproduces_every_stored_answer_from_a_v1_style_database(tmp_path):
    facts = export_v1_facts(tmp_path)
    done = cli("resolve", "--database", str(facts), "--questions", str(v1_questions(tmp_path / "questions.json")))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "reproduced 500 of 500 stored answers"


def test_resolve_lists_a_stored_answer_it_does_not_reproduce(tmp_path):
    facts = export_v1_facts(tmp_path)
    done = cli(
        "resolve", "--database", str(facts), "--questions", str(v1_questions(tmp_path / "q.json", change_one=True))
    )
    assert done.returncode == 1
    assert "reproduced 499 of 500 stored answers" in done.stdout
    assert "Nobody Atall" in done.stdout and generated("n50_s1").questions[3].id in done.stdout


def test_resolve_says_what_is_wrong_with_a_missing_file(tmp_path):
    done = cli("resolve", "--database", str(tmp_path / "none.pl"), "--questions", str(tmp_path / "none.json"))
    assert done.returncode == 2 and "cannot read the database" in done.stderr and "Traceback" not in done.stderr


def test_prolog_and_generate_want_a_whole_universe_not_a_subset(tmp_path):
    done = cli("prolog", "n50_s1_corpus", "--out", str(tmp_path))
    assert done.returncode == 2 and "give 'n50_s1' without the _corpus suffix" in done.stderr


def test_resolve_refuses_a_database_without_phantomwiki_facts(tmp_path):
    (tmp_path / "empty.pl").write_text("foo(X) :- bar(X).\n")
    v1_questions(tmp_path / "q.json")
    done = cli("resolve", "--database", str(tmp_path / "empty.pl"), "--questions", str(tmp_path / "q.json"))
    assert done.returncode == 2 and "no PhantomWiki facts found" in done.stderr and "Traceback" not in done.stderr


def test_generate_never_overwrites_files_unless_asked(tmp_path):
    mine = tmp_path / "corpus.parquet"
    mine.write_bytes(b"the user's own file")
    done = cli("generate", "n5_s1", "--out", str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert (
        "already holds corpus.parquet; pass --overwrite" in done.stderr and mine.read_bytes() == b"the user's own file"
    )
    assert cli("generate", "n5_s1", "--out", str(tmp_path), "--overwrite").returncode == 0
    assert mine.read_bytes().startswith(b"PAR1")


@pytest.mark.parametrize("command", ["generate", "prolog"])
def test_an_out_that_is_a_file_is_one_line(tmp_path, command):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    done = cli(command, "n5_s1", "--out", str(a_file))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "is a file; give a folder" in done.stderr


def test_version_and_help_say_what_the_names_mean():
    version = cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("leakproof-qa ")
    helped = cli("--help")
    assert helped.returncode == 0
    assert "n{size}[_d{depth}]_s{seed}[_{subset}]" in helped.stdout and "n500_d10_s3_corpus" in helped.stdout
    assert all(command in helped.stdout for command in ("generate", "publish", "list", "prolog", "agent", "tasks-path"))


def test_list_names_every_subset_and_every_setting_with_its_default_and_range():
    done = cli("list")
    assert done.returncode == 0
    for subset in SUBSETS:
        assert f"\n  {subset} " in done.stdout
    for knob in Settings.knobs():
        line = next(line for line in done.stdout.splitlines() if line.split()[:1] == [knob])
        assert f"default {getattr(Settings(size=1, seed=0), knob)}" in line
        if knob in RANGES:
            assert RANGES[knob][1] in line


def test_each_command_offers_only_the_options_it_uses():
    prolog = cli("prolog", "--help").stdout
    assert "--friendship-degree" in prolog and "--instance-documents" not in prolog and "--retriever" not in prolog
    generate = cli("generate", "--help").stdout
    assert "--instance-documents" in generate and "--subsets" in generate
    assert "most documents in an instance of the fixed layout" in generate  # every option says what it does


def test_generate_writes_only_the_subsets_asked_for_with_timed_stages(tmp_path):
    done = cli("generate", "n50_s1", "--out", str(tmp_path), "--subsets", "corpus", "rag")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.parquet", "rag.parquet"]
    assert "rows       corpus=50  rag=" in done.stdout
    assert "evidence" in done.stderr and "universe 0." in done.stderr  # the stage bar names stages and times


def test_a_setting_declared_once_reaches_the_command_line_the_builder_config_list_and_the_readme():
    """A new Settings field (config.setting: default, stage, help, range) is all it takes: the options of the
    commands, the datasets builder config, `list` and the README's table are made from it."""
    import dataclasses
    import re

    from leakproof_qa.builders.cli.phantomwiki import _knob_arguments, settings_lines, settings_table
    from leakproof_qa.builders.phantomwiki.config import ranges, setting
    from leakproof_qa.dataset_builders.phantom_wiki import config_class

    colour = setting("red", stage="instances", help="the colour of a row", check=lambda v: v != "", expected="a name")
    extended = dataclasses.make_dataclass("Extended", [("colour", str, colour)], bases=(Settings,), frozen=True)
    parser = argparse.ArgumentParser()
    _knob_arguments(parser, ("instances",), extended)
    assert parser.parse_args([]).colour == "red" and parser.parse_args(["--colour", "blue"]).colour == "blue"
    assert "the colour of a row (default red; a name)" in " ".join(parser.format_help().split())
    assert {f.name: f.default for f in dataclasses.fields(config_class(extended))}["colour"] == "red"
    assert any(line.split()[:3] == ["colour", "instances", "default"] for line in settings_lines(extended))
    assert "| `colour` | instances | `'red'` | the colour of a row; a name |" in settings_table(extended)
    assert ranges(extended)["colour"][1] == "a name" and "colour" in extended.knobs()
    page = (REPO / "docs" / "phantom_wiki.md").read_text(encoding="utf-8")
    assert settings_table() in page  # the documented table is the settings' own, not kept by hand
    assert not re.search(r"\| `colour` \|", page)


def test_help_starts_without_importing_datasets_or_arrow():
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "phantom_wiki", "--help"], capture_output=True, text=True, cwd=REPO
    )
    assert done.returncode == 0 and "usage: python -m phantom_wiki" in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "leakproof_qa.builders.cli.phantomwiki" in imported
    assert not {"datasets", "pyarrow", "bm25s"} & imported


def test_import_phantom_wiki_loads_datasets_only_when_the_builder_is_first_used():
    script = (
        "import sys, phantom_wiki\n"
        "print('before', 'datasets' in sys.modules, 'pyarrow' in sys.modules)\n"
        "phantom_wiki.metrics.DEFLECTION\n"
        "print('metrics', 'datasets' in sys.modules)\n"
        "builder = phantom_wiki.PhantomWiki\n"
        "print('builder', 'datasets' in sys.modules, builder.__name__, builder(config_name='n20_s1').name)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "before False False",
        "metrics False",
        "builder True PhantomWiki phantom_wiki",  # `datasets` names the dataset (and its cache) phantom_wiki
    ]


def test_generate_does_not_import_datasets(tmp_path):
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "phantom_wiki", "generate", "n30_s1", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "pyarrow" in imported and "datasets" not in imported


def test_several_universes_in_parallel_give_the_same_files_as_one_process(tmp_path):
    names = ["n60_s1", "n60_s2", "n60_d10_s3"]
    one = cli(
        "generate", *names, "--out", str(tmp_path / "one"), "--subsets", "questions", "instances", "--num-proc", "1"
    )
    two = cli(
        "generate", *names, "--out", str(tmp_path / "two"), "--subsets", "questions", "instances", "--num-proc", "2"
    )
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert "with 2 process(es)" in two.stdout
    for name in names:
        for subset in ("questions", "instances"):
            mine = (tmp_path / "two" / name / f"{subset}.parquet").read_bytes()
            assert mine == (tmp_path / "one" / name / f"{subset}.parquet").read_bytes(), (name, subset)
    alone = datasets.load_dataset(
        "parquet",
        data_files=str(tmp_path / "two" / "n60_s2" / "questions.parquet"),
        split="train",
        cache_dir=str(tmp_path / "cache"),
    )
    assert alone.to_list() == list(engine.question_rows(generated("n60_s2")))


def test_one_universe_in_two_processes_gives_the_same_files_as_in_one(tmp_path):
    one = cli("generate", "n100_s2", "--out", str(tmp_path / "one"), "--num-proc", "1")
    two = cli("generate", "n100_s2", "--out", str(tmp_path / "two"), "--num-proc", "2")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    for subset in SUBSETS:
        mine = (tmp_path / "two" / f"{subset}.parquet").read_bytes()
        assert mine == (tmp_path / "one" / f"{subset}.parquet").read_bytes(), subset


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_refused_length_leaves_no_file_whatever_the_processes(tmp_path, processes):
    # the length is refused once the questions exist, after a forked writer has written the corpus
    done = cli("generate", "n50_s1", "--context-tokens", "16000000", "--out", str(tmp_path), "--num-proc", processes)
    assert done.returncode == 2 and "context_tokens=16000000 is more than n50_s1 can fill" in done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == []


def test_publish_with_several_processes_writes_the_same_release_byte_for_byte(tmp_path):
    names = ["n60_s1", "n60_s2", "n60_d10_s3"]
    one = cli("publish", *names, "--out", str(tmp_path / "one"))
    two = cli("publish", *names, "--out", str(tmp_path / "two"), "--num-proc", "2")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    assert len(files) == 2 + 3 * 5  # card, manifest, one shard per configuration
    assert files == sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*") if p.is_file())
    for path in files:
        assert (tmp_path / "one" / path).read_bytes() == (tmp_path / "two" / path).read_bytes(), path


@pytest.mark.parametrize("command", ["generate", "publish"])
def test_num_proc_below_one_is_refused_in_one_line(tmp_path, command):
    done = cli(command, "n60_s1", "--out", str(tmp_path), "--num-proc", "0")
    assert done.returncode != 0 and done.stderr.count("\n") == 1 and "--num-proc 0 must be at least 1" in done.stderr


def test_a_universe_given_twice_is_refused_in_one_line(tmp_path):
    done = cli("generate", "n60_s1", "n60_d20_s1", "--out", str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "n60_s1 is given twice" in done.stderr
