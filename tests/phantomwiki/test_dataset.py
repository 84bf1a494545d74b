"""`phantom_wiki` is a real `datasets` builder: same return types as datasets.load_dataset, real cache, clear errors."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings
from pathlib import Path

import datasets
import pytest

import phantom_wiki
from leakproof_qa.builders import digest
from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import ConfigError, Settings
from tests.phantomwiki.pw_universes import generated


def test_questions_load_as_a_dataset_equal_to_the_generator_rows(tmp_path):
    ds = phantom_wiki.load_dataset("n50_s1", split="test", cache_dir=str(tmp_path))
    assert isinstance(ds, datasets.Dataset)
    assert ds.num_rows == 500
    assert ds.to_list() == list(engine.question_rows(generated("n50_s1")))
    assert ds.info.license and "PhantomWiki" in ds.info.citation and ds.info.homepage and ds.info.description


def test_without_a_split_it_is_a_dataset_dict_with_one_test_split(tmp_path):
    dd = phantom_wiki.load_dataset("n50_s1_corpus", cache_dir=str(tmp_path))
    assert isinstance(dd, datasets.DatasetDict) and list(dd) == ["test"]
    assert dd["test"].column_names == ["title", "article", "facts"]
    assert dd["test"].num_rows == 50


def test_database_is_one_row_holding_the_prolog_program(tmp_path):
    ds = phantom_wiki.load_dataset("n50_s1_database", split="test", cache_dir=str(tmp_path))
    assert ds.num_rows == 1 and ds[0]["content"].count("type(") == 50 and ":- table" in ds[0]["content"]


def test_streaming_yields_the_same_rows(tmp_path):
    streamed = phantom_wiki.load_dataset("n50_s1_corpus", split="test", streaming=True, cache_dir=str(tmp_path))
    assert isinstance(streamed, datasets.IterableDataset)
    assert list(streamed) == list(engine.corpus_rows(generated("n50_s1")))
    assert isinstance(phantom_wiki.load_dataset("n50_s1", streaming=True), datasets.IterableDatasetDict)


def test_a_second_call_is_a_cache_hit(tmp_path, monkeypatch):
    first = phantom_wiki.load_dataset("n60_s2", split="test", cache_dir=str(tmp_path))

    def must_not_run(*args, **kwargs):
        raise AssertionError("generated again instead of reading the cache")

    monkeypatch.setattr(engine, "generate", must_not_run)
    second = phantom_wiki.load_dataset("n60_s2", split="test", cache_dir=str(tmp_path))
    assert second.cache_files == first.cache_files
    assert second["id"] == first["id"]


def test_other_generator_code_never_reads_an_old_cache(tmp_path, monkeypatch):
    old = phantom_wiki.PhantomWiki(config_name="n60_s2", cache_dir=str(tmp_path))
    monkeypatch.setattr(digest, "__version__", "99.0.0")
    digest.code_digest.cache_clear()
    try:
        new = phantom_wiki.PhantomWiki(config_name="n60_s2", cache_dir=str(tmp_path))
    finally:
        digest.code_digest.cache_clear()
    assert new.cache_dir != old.cache_dir


def test_the_cache_digest_covers_exactly_the_modules_that_make_rows(tmp_path):
    """A change to any builders module that generating runs (rng, evidence, retrieval ...) moves the cache; a change
    to one it does not run (the CLI, reports, publishing) does not."""
    script = (
        "import sys, phantom_wiki\n"
        "for subset in ('', '_corpus', '_database', '_instances', '_rag'):\n"
        f"    phantom_wiki.load_dataset('n30_s1' + subset, split='test', cache_dir={str(tmp_path)!r})\n"
        "for name, module in sorted(sys.modules.items()):\n"
        "    if name.startswith('leakproof_qa.builders') and getattr(module, '__file__', None):\n"
        "        print('LOADED', module.__file__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    loaded = {Path(line.split(" ", 1)[1]).resolve() for line in done.stdout.splitlines() if line.startswith("LOADED ")}
    digested = {path.resolve() for path in digest.digested_files(*digest.PHANTOMWIKI_CODE)}
    digested_code = {path for path in digested if path.suffix == ".py"}
    root = Path(digest.__file__).resolve().parent
    plumbing = {root / "digest.py", root / "progress.py"}  # they make no rows
    assert len(loaded) > 10
    assert loaded - plumbing == digested_code


def test_a_knob_changes_the_data_and_the_cache(tmp_path):
    base = phantom_wiki.PhantomWiki(config_name="n60_s2", cache_dir=str(tmp_path))
    more = phantom_wiki.PhantomWiki(config_name="n60_s2", friendship_degree=6.0, cache_dir=str(tmp_path))
    assert base.cache_dir != more.cache_dir
    corpus = phantom_wiki.load_dataset("n60_s2_corpus", split="test", friendship_degree=6.0, cache_dir=str(tmp_path))
    friends = sum(fact.startswith("friend(") for facts in corpus["facts"] for fact in facts)
    assert friends / 60 > 4  # each friendship is stated twice: average degree ~6 minus sampling noise


@pytest.mark.parametrize(
    "name, knobs, says",
    [
        ("n50", {}, "expected n{size}[_d{depth}]_s{seed}[_{subset}]"),
        ("n50_s1_answers", {}, "unknown subset 'answers'"),
        ("N50_S1", {}, "e.g. n5000_s1, n500_d10_s3_corpus"),
        ("n50_s1", {"seed": 2}, "seed=2 contradicts the configuration name 'n50_s1'"),
        ("n50_d10_s1", {"depth": 20}, "depth=20 contradicts"),
        ("n50_s1", {"friend_degree": 2}, "unknown setting 'friend_degree'"),
        ("n50_d3_s1", {}, "depth=3 is out of range"),
        ("n0_s1", {}, "size=0 is out of range"),
        ("n50_s1", {"max_children": 0}, "max_children=0 is out of range"),
        ("n5_s1\n", {}, "does not match the grammar"),  # canonical names only: one universe, one cache entry
        ("n\uff15_s1", {}, "does not match the grammar"),  # a full-width digit
        ("n05_s01", {}, "does not match the grammar"),
        ("n5_s1 ", {}, "does not match the grammar"),
        ("n50_s1", {"questions_per_template": 0.5}, "questions_per_template=0.5 must be a whole number"),
        ("n50_s1", {"max_tree_size": 2.5}, "max_tree_size=2.5 must be a whole number"),
        ("n50_s1", {"max_children": True}, "max_children=True must be a whole number"),
    ],
)
def test_a_bad_name_or_value_is_one_clear_line(name, knobs, says, tmp_path):
    with pytest.raises(ConfigError) as error:
        phantom_wiki.load_dataset(name, cache_dir=str(tmp_path), **knobs)
    assert says in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "where, says", [("a-file", "is a file; give a folder"), ("a-file/cache", "cannot make cache_dir")]
)
def test_a_cache_dir_that_cannot_hold_a_cache_is_one_line(tmp_path, where, says):
    from leakproof_qa.dataset_loading import CacheDirError

    (tmp_path / "a-file").write_text("x")
    for load in (
        phantom_wiki.load_dataset,
        lambda name, cache_dir: phantom_wiki.load_published(tmp_path, name, cache_dir=cache_dir),
    ):
        with pytest.raises(CacheDirError, match=says) as error:
            load("n5_s1", cache_dir=str(tmp_path / where))
        assert "\n" not in str(error.value)


def _flip_a_letter(folder):
    arrow = next(folder.glob("*.arrow"))
    data = bytearray(arrow.read_bytes())
    at = data.find(b"The ")  # inside an article's text
    data[at + 1] ^= 0x20  # "The" -> "tHe": one letter
    arrow.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage, says",
    [
        (_flip_a_letter, "phantom_wiki-test.arrow differs from what was written"),
        (
            lambda folder: next(folder.glob("*.arrow")).write_bytes(next(folder.glob("*.arrow")).read_bytes()[:1000]),
            "bytes",
        ),
        (lambda folder: next(folder.glob("*.arrow")).write_bytes(b""), "has 0 bytes"),
        (lambda folder: next(folder.glob("*.arrow")).unlink(), "missing or unexpected"),
        (lambda folder: (folder / "dataset_info.json").write_text("garbage{"), "dataset_info.json has 8 bytes"),
        (lambda folder: (folder / "leakproof_digest.json").unlink(), "no readable leakproof_digest.json"),
    ],
)
def test_a_damaged_cache_is_said_in_one_line_and_generated_again(tmp_path, damage, says):
    expected = phantom_wiki.load_dataset("n20_s1_corpus", split="test", cache_dir=str(tmp_path)).to_list()
    folder = next(tmp_path.rglob("leakproof_digest.json")).parent
    damage(folder)
    with pytest.warns(
        UserWarning, match=f"the cached n20_s1_corpus in .* is damaged \\(.*{says}.*\\); generating it again"
    ):
        again = phantom_wiki.load_dataset("n20_s1_corpus", split="test", cache_dir=str(tmp_path)).to_list()
    assert again == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and the copy made again is clean
        assert phantom_wiki.load_dataset("n20_s1_corpus", split="test", cache_dir=str(tmp_path)).to_list() == expected


def test_the_builder_config_offers_exactly_the_settings_with_their_defaults():
    ours = {f.name: f.default for f in dataclasses.fields(phantom_wiki.PhantomWikiConfig)}
    for name in {f.name for f in dataclasses.fields(datasets.BuilderConfig)}:
        ours.pop(name)
    settings = {f.name: f.default for f in dataclasses.fields(Settings)}
    assert set(ours) == set(settings)
    assert {k: v for k, v in ours.items() if k not in ("size", "seed", "depth")} == {
        k: v for k, v in settings.items() if k not in ("size", "seed", "depth")
    }


def test_several_subsets_of_one_universe_in_one_process_build_it_once(tmp_path, monkeypatch):
    built = []
    real = engine.generate
    monkeypatch.setattr(engine, "generate", lambda *args, **kwargs: built.append(args[0]) or real(*args, **kwargs))
    for subset in ("", "_corpus", "_instances", "_rag", "_database"):
        loaded = phantom_wiki.load_dataset("n70_s4" + subset, split="test", cache_dir=str(tmp_path))
        expected = generated("n70_s4")
        assert loaded.to_list() == list(engine.ROWS[(subset or "_questions")[1:]](expected)), subset
    assert len(built) == 1


def test_the_stage_bar_shows_while_generating_and_follows_datasets_switch(tmp_path, capsys):
    phantom_wiki.load_dataset("n40_s2_instances", split="test", cache_dir=str(tmp_path / "on"))
    shown = capsys.readouterr().err
    assert "n40_s2_instances" in shown and "questions" in shown and "evidence" in shown
    datasets.disable_progress_bars()
    try:
        phantom_wiki.load_dataset("n40_s3_instances", split="test", cache_dir=str(tmp_path / "off"))
    finally:
        datasets.enable_progress_bars()
    assert "n40_s3" not in capsys.readouterr().err


@pytest.mark.parametrize("subset", ["", "_corpus", "_instances", "_rag", "_database"])
def test_num_proc_writes_the_same_rows_as_one_process(tmp_path, subset):
    name = "n80_s5" + subset
    one = phantom_wiki.load_dataset(name, split="test", cache_dir=str(tmp_path / "one"))
    two = phantom_wiki.load_dataset(name, split="test", cache_dir=str(tmp_path / "two"), num_proc=2)
    assert two.to_list() == one.to_list() == list(engine.ROWS[(subset or "_questions")[1:]](generated("n80_s5")))
    assert len(two.cache_files) == (1 if subset == "_database" else 2)  # one Arrow file per process


def test_the_parts_of_a_subset_in_order_are_the_subset():
    whole = generated("n80_s5")
    for subset, rows in engine.ROWS.items():
        assert [row for part in range(5) for row in rows(whole, (part, 5))] == list(rows(whole)), subset


@pytest.mark.parametrize("num_proc", [0, -1, 1.5, True])
def test_a_bad_num_proc_is_one_line(tmp_path, num_proc):
    with pytest.raises(ValueError, match="num_proc=.*whole number of processes"):
        phantom_wiki.load_dataset("n20_s1", split="test", cache_dir=str(tmp_path), num_proc=num_proc)
