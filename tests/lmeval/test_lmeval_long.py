"""phantom_wiki_long (RULER's form) and the retrieval metrics of phantom_wiki_rag, through lm_eval itself."""

from __future__ import annotations

import pytest
from lm_eval.api.instance import Instance

from leakproof_qa.builders import metrics
from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.instances import build_rag, rag_required
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.builders.tokens import Estimate
from leakproof_qa.leakproof_eval import TaskSetupError
from leakproof_qa.leakproof_eval.models import OracleLM
from leakproof_qa.leakproof_eval.phantom_wiki_sweeps import GENERATION_TOKENS, load_rag_sweep, phantom_wiki_load_long
from leakproof_qa.leakproof_eval.phantom_wiki_tasks import phantom_wiki_evidence_prompt
from tests.lmeval.harness import evaluate, scores
from tests.lmeval.test_lmeval_careful_reader import ReaderLM, queries

pytestmark = [pytest.mark.integration]

LENGTHS = [2048, 4096, 8192]
POSITIONS = [0, 0.5, 1, "spread"]


def test_the_oracle_scores_one_at_every_length_and_position(universes):
    results = evaluate(
        OracleLM(),
        ["phantom_wiki_long"],
        phantom_wiki_config="n500_s1",
        phantom_wiki_cache_dir=universes,
        max_seq_lengths=LENGTHS,
        evidence_positions=POSITIONS,
    )
    got = scores(results, "phantom_wiki_long")
    for length in LENGTHS:
        assert got[f"adt_score@{length}"] == got[f"f1@{length}"] == 1.0
    for position in ("0", "0.5", "1", "spread"):
        assert got[f"adt_score@depth_{position}"] == got[f"f1@depth_{position}"] == 1.0
    assert got["adt_score"] == got["accuracy_answerable"] == got["accuracy_deflection"] == 1.0


def test_every_prompt_and_its_answer_fit_in_its_length_and_each_length_asks_the_same_questions(universes):
    docs = phantom_wiki_load_long(
        phantom_wiki_config="n500_s1",
        phantom_wiki_cache_dir=universes,
        max_seq_lengths=LENGTHS,
        evidence_positions=POSITIONS,
    )["test"].to_list()
    estimate = Estimate()
    families = {}
    for doc in docs:
        assert estimate.count(phantom_wiki_evidence_prompt(doc)) + GENERATION_TOKENS <= doc["max_length"], doc["id"]
        families.setdefault(doc["max_length"], set()).add(doc["question_family_id"])
    assert len({frozenset(f) for f in families.values()}) == 1  # the same question families at every length
    first = docs[: 2 * len(LENGTHS) * len(POSITIONS)]  # --limit: any prefix holds every point of the sweep
    assert {(d["max_length"], d["evidence_position"]) for d in first} == {
        (n, str(p)) for n in LENGTHS for p in ("0", "0.5", "1", "spread")
    }


class PrefixReaderLM(ReaderLM):
    """The careful reader, shown only the first `chars` characters of the documents: it reads what it sees."""

    def __init__(self, queries: dict[str, list[str]], chars: int) -> None:
        super().__init__(queries, careful=True)
        self.chars = chars

    def _read(self, request: Instance) -> list[str] | None:
        head, rest = request.args[0].split("(BEGIN EVIDENCE)\n", 1)
        evidence, tail = rest.split("\n(END EVIDENCE)", 1)
        cut = evidence[: self.chars].rsplit("\n\n", 1)[0]  # whole documents only
        prompt = f"{head}(BEGIN EVIDENCE)\n{cut}\n(END EVIDENCE){tail}"
        return super()._read(Instance(request.request_type, request.doc, (prompt,), request.idx, request.metadata))


@pytest.mark.slow
def test_a_reader_of_the_first_two_thousand_characters_degrades_with_length(universes):
    results = evaluate(
        PrefixReaderLM(queries("n500_s1", universes), 2000),
        ["phantom_wiki_long"],
        phantom_wiki_config="n500_s1",
        phantom_wiki_cache_dir=universes,
        max_seq_lengths=LENGTHS,
        evidence_positions=["random"],
    )
    got = scores(results, "phantom_wiki_long")
    curve = [got[f"f1@{n}"] for n in LENGTHS]
    adt = [got[f"adt_score@{n}"] for n in LENGTHS]
    # shortest best: at 2,048 tokens the first 2,000 characters hold a third of the documents, at 8,192 a twelfth
    assert curve[0] > max(curve[1:]) and adt[0] > max(adt[1:]), (curve, adt)
    full = evaluate(
        ReaderLM(queries("n500_s1", universes), careful=True),
        ["phantom_wiki_long"],
        phantom_wiki_config="n500_s1",
        phantom_wiki_cache_dir=universes,
        max_seq_lengths=LENGTHS,
        evidence_positions=["random"],
    )
    assert all(scores(full, "phantom_wiki_long")[f"adt_score@{n}"] == 1.0 for n in LENGTHS)  # reading all: 1.0


@pytest.mark.parametrize(
    "metadata, says",
    [
        ({"max_seq_lengths": 4096}, "max_seq_lengths=4096 must be a list of whole numbers"),
        ({"max_seq_lengths": [512]}, "max_seq_lengths: 512 leaves no room for documents"),
        ({"evidence_positions": [2]}, "evidence_positions: 2 is not a depth between 0 and 1"),
        ({"max_seq_lengths": [10_000_000]}, "context_tokens="),
    ],
)
def test_a_bad_sweep_is_one_line(universes, metadata, says):
    with pytest.raises(TaskSetupError) as error:
        phantom_wiki_load_long(phantom_wiki_config="n500_s1", phantom_wiki_cache_dir=universes, **metadata)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_rag_reports_retrieval_at_every_k_as_builders_metrics_computes_it(universes):
    ks = [1, 4, 10]
    results = evaluate(
        OracleLM(),
        ["phantom_wiki_rag"],
        phantom_wiki_config="n500_s1",
        phantom_wiki_cache_dir=universes,
        phantom_wiki_retrieval_k=ks,
    )
    got = scores(results, "phantom_wiki_rag")
    g = generate(settings_from("n500_s1")[0])
    for k in ks:
        settings = settings_from("n500_s1", retrieval_k=k)[0]
        rows = [r for r in build_rag(g, settings) if r["answerable"] != "unanswerable"]
        required = rag_required(g, settings)
        expected = metrics.retrieval_scores(
            {r["instance_id"]: r["retrieved_titles"] for r in rows},
            {r["instance_id"]: required[r["instance_id"]] for r in rows},
            (k,),
        )
        for name in ("recall", "ndcg", "sufficient"):
            assert got[f"{name}@{k}"] == pytest.approx(expected[f"{name}@{k}"]), (name, k)
        assert got[f"mrr@{k}"] == pytest.approx(expected["mrr"])
        assert got[f"adt_score@k{k}"] == 1.0  # the oracle, at every depth
    # no order across depths: each depth balances its own rows (retrieved sufficient or not at that k, within each
    # path length), so recall@1 and recall@4 are means over different rows
    docs = load_rag_sweep({"phantom_wiki_config": "n500_s1", "phantom_wiki_cache_dir": universes}, cite=False)
    assert {d["retrieval_k"] for d in docs["test"]} == {4}  # one k by default: the paper's
