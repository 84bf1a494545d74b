"""Swept PhantomWiki tasks: `phantom_wiki_long` over token lengths and evidence depths (RULER's form), and
`phantom_wiki_rag` over retrieval depths, each reporting its scores at every point of the sweep.

`phantom_wiki_long` takes RULER's metadata key `max_seq_lengths` and `evidence_positions` (depths in [0, 1],
"spread" or "random"; both read, with their defaults, by phantom_wiki_tasks.lengths_and_positions): for each length
and position it loads the universe's `instances` filled to that length (builders/phantomwiki/long_context.py),
keeping the question families present at every length, so each point of the curve asks the same questions. A length
is the whole prompt with the answer: the documents get it less the prompt's own tokens, QUESTION_ALLOWANCE for the
question and GENERATION_TOKENS for the answer (the YAML's max_gen_toks). Results: the evidence metrics over
everything, and `adt_score@<length>`, `f1@<length>`, `adt_score@depth_<position>`, `f1@depth_<position>`.

`phantom_wiki_rag` documents carry the articles their question needs (builders.phantomwiki.instances.rag_required),
so retrieval is scored on its own: `recall@k`, `mrr@k`, `ndcg@k` and `sufficient@k` of the BM25 top-k
(builders.metrics.retrieval_scores, over the rows with no unanswerable premise); `phantom_wiki_retrieval_k` may be a
list (`[1, 4, 10]`): one retrieval per k, and `adt_score@k<k>`, `f1@k<k>` beside each k's retrieval scores.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from lm_eval.api.task import ConfigurableTask

from leakproof_qa.builders import metrics
from leakproof_qa.builders.phantomwiki.config import ConfigError
from leakproof_qa.builders.tokens import TokenizerError, counter

from . import TaskSetupError
from .ordering import interleaved
from .phantom_wiki_release import require_same_code, wants_release
from .phantom_wiki_tasks import (
    SUFFICIENT,
    Universe,
    _dataset,
    evidence_doc,
    evidence_scores,
    lengths_and_positions,
    retrieval_depths,
    universe_from,
)
from .task_table import PREFIX
from .texts import keep, template

__all__ = [  # what the task YAMLs name (tasks/utils.py makes these visible to lm_eval)
    "PhantomWikiTask",
    "phantom_wiki_load_long",
    "phantom_wiki_load_rag",
    "phantom_wiki_load_rag_cite",
]

QUESTION_ALLOWANCE = 128
"""Tokens kept for the question (with its premise and closed-world sentence) in a long prompt."""
GENERATION_TOKENS = 256
"""Tokens kept for the answer: the max_gen_toks of the evidence tasks' YAML."""
T = TypeVar("T")
Aggregation = Callable[[Sequence[Mapping[str, Any]]], float]


def reserve(universe: Universe) -> int:
    """Tokens of a long prompt that are not documents: the prompt's own text, the question and the answer."""
    try:
        count = counter(universe.settings.tokenizer)
    except TokenizerError as error:
        raise TaskSetupError(f"{PREFIX}{error}") from None
    prompt = template("phantom_wiki_evidence").format(evidence="", question="")
    return count.count(prompt) + QUESTION_ALLOWANCE + GENERATION_TOKENS


def _at(universe: Universe, **knobs: Any) -> Universe:
    """The same universe with more settings (a release's only at the settings it was published with)."""
    settings = dataclasses.replace(universe.settings, **knobs)
    if universe.release is not None:
        changed = next((key for key, value in knobs.items() if getattr(universe.settings, key) != value), None)
        if changed is not None:
            raise TaskSetupError(
                f"{PREFIX}release: {universe.release.located.source} holds {universe.name} at {changed}="
                f"{getattr(universe.settings, changed)!r}, and this task needs {changed}={knobs[changed]!r}, which "
                f"only generating gives; leave {PREFIX}release out"
            )
        return universe
    try:
        settings.validate()
    except ConfigError as error:
        raise TaskSetupError(f"{PREFIX}{error}") from None
    return Universe(settings, tuple(sorted({**dict(universe.knobs), **knobs}.items())), universe.cache_dir)


def _load(universe: Universe, subset: str) -> list[dict[str, Any]]:
    try:
        return universe.load(subset)
    except ConfigError as error:
        raise TaskSetupError(f"{PREFIX}{error}") from None


def _round_robin(runs: Sequence[Sequence[T]]) -> list[T]:
    """One document of each run in turn, so any prefix (`--limit N`) holds every point of the sweep."""
    out: list[T] = []
    for index in range(max((len(run) for run in runs), default=0)):
        out += [run[index] for run in runs if index < len(run)]
    return out


def phantom_wiki_load_long(**metadata: Any) -> Any:
    """`phantom_wiki_long`: the instances at every length and position, the same question families at each."""
    universe = universe_from(metadata)
    lengths, positions = lengths_and_positions(metadata)
    kept = reserve(universe)
    cells = {}
    for length in lengths:
        if length - kept < 256:
            raise TaskSetupError(
                f"max_seq_lengths: {length} leaves no room for documents after the prompt, the question and the "
                f"answer ({kept} tokens); give at least {kept + 256}"
            )
        for position in positions:
            cell = _at(universe, context_tokens=length - kept, evidence_position=position)
            cells[length, position] = _load(cell, "instances")
    common = set.intersection(*({row["question_family_id"] for row in rows} for rows in cells.values()))
    if not common:
        raise TaskSetupError(
            f"no question of {universe.name} fits in max_seq_lengths={lengths}: give longer lengths (its shortest "
            f"holds {min(len(rows) for rows in cells.values())} rows)"
        )
    key = keep(
        universe.key("long"),
        {d["title"]: d["text"] for rows in cells.values() for row in rows for d in row["documents"]},
    )
    runs = []
    for (length, position), rows in cells.items():
        chosen = [row for row in rows if row["question_family_id"] in common]
        ordered = interleaved(chosen, lambda r: r["answerable"] == SUFFICIENT, universe.settings.seed, f"long-{length}")
        runs.append(
            [{**evidence_doc(key, row, False), "max_length": length, "evidence_position": position} for row in ordered]
        )
    return _dataset(_round_robin(runs), f"{universe.name}_instances at {lengths} tokens")


def rag_depths(metadata: Mapping[str, Any]) -> list[int]:
    """The retrieval depths `phantom_wiki_rag` evaluates: the metadata's, or the one a release was published with."""
    return [universe_from(metadata).settings.retrieval_k] if wants_release(metadata) else retrieval_depths(metadata)


def phantom_wiki_load_rag(**metadata: Any) -> Any:
    """`phantom_wiki_rag`: each question with its BM25 top-k articles, sufficient or not (exact), with the articles
    its answer needs (retrieval is scored on its own); `phantom_wiki_retrieval_k` may be a list to sweep."""
    return load_rag_sweep(metadata, cite=False)


def phantom_wiki_load_rag_cite(**metadata: Any) -> Any:
    """`phantom_wiki_rag_cite`: the RAG rows, the prompt asking for document numbers."""
    return load_rag_sweep(metadata, cite=True)


def load_rag_sweep(metadata: Mapping[str, Any], cite: bool) -> Any:
    """RAG rows at each retrieval depth, each document with the articles its question needs."""
    from leakproof_qa.builders.phantomwiki.instances import rag_required
    from leakproof_qa.builders.phantomwiki.rows import generate

    if wants_release(metadata):  # rag_depths, without reading the release twice
        universe = universe_from(metadata)
        ks = [universe.settings.retrieval_k]
    else:
        ks = retrieval_depths(metadata)
        universe = universe_from({**metadata, PREFIX + "retrieval_k": ks[0]})
    if universe.release is not None:  # the rows are the release's; what each needs is derived by generating again
        require_same_code(universe.release, "the articles each rag question needs (retrieval is scored against them)")
    generated = generate(universe.settings)
    runs, texts = [], {}
    for k in ks:
        at = _at(universe, retrieval_k=k)
        rows = _load(at, "rag")
        needs = rag_required(generated, at.settings)
        texts.update({d["title"]: d["text"] for row in rows for d in row["documents"]})
        ordered = interleaved(rows, lambda r: r["answerable"] == SUFFICIENT, universe.settings.seed, "rag")
        runs.append([(row, k, needs[row["instance_id"]]) for row in ordered])
    key = keep(universe.key("rag" + "".join(f"-{k}" for k in ks)), texts)
    docs = [
        {**evidence_doc(key, row, cite), "retrieval_k": k, "required_titles": required}
        for row, k, required in _round_robin(runs)
    ]
    return _dataset(docs, f"{universe.name}_rag")


# --- metrics at each point of a sweep ------------------------------------------------------------------------------


def _evidence_at(metric: str, key: str, value: Any) -> Aggregation:
    """An evidence metric (builders.metrics.instance_scores) over the documents whose `key` is `value`."""

    def aggregate(items: Sequence[Mapping[str, Any]]) -> float:
        chosen = [item for item in items if item.get(key) == value]
        return float(evidence_scores(chosen)[metric]) if chosen else math.nan

    aggregate.__name__ = aggregate.__qualname__ = f"{metric}_at_{key}_{value}"
    return aggregate


def _retrieval_at(name: str, k: int) -> Aggregation:
    """A retrieval metric (builders.metrics.retrieval_scores) of the top-k documents, over rows with no unanswerable
    premise (a question about a person who does not exist needs no article)."""

    def aggregate(items: Sequence[Mapping[str, Any]]) -> float:
        chosen = [item for item in items if item.get("retrieval_k") == k and item["answerable"] != "unanswerable"]
        if not chosen:
            return math.nan
        scores = metrics.retrieval_scores(
            {item["id"]: item["document_titles"] for item in chosen},
            {item["id"]: item["required_titles"] for item in chosen},
            (k,),
        )
        return float(scores["mrr" if name == "mrr" else f"{name}@{k}"])

    aggregate.__name__ = aggregate.__qualname__ = f"{name}_at_{k}"
    return aggregate


def sweep_metrics(task: str, metadata: Mapping[str, Any]) -> dict[str, Aggregation]:
    """The metrics a swept task adds, by name: per length and position (long), per retrieval depth (rag)."""
    out: dict[str, Aggregation] = {}
    if task == "phantom_wiki_long":
        lengths, positions = lengths_and_positions(metadata)
        for metric in ("adt_score", "f1"):
            out.update({f"{metric}@{n}": _evidence_at(metric, "max_length", n) for n in lengths})
            out.update({f"{metric}@depth_{p}": _evidence_at(metric, "evidence_position", p) for p in positions})
    elif task.startswith("phantom_wiki_rag"):
        ks = rag_depths(metadata)
        for k in ks:
            out.update({f"{name}@{k}": _retrieval_at(name, k) for name in ("recall", "mrr", "ndcg", "sufficient")})
            if len(ks) > 1:
                out.update({f"{metric}@k{k}": _evidence_at(metric, "retrieval_k", k) for metric in ("adt_score", "f1")})
    return out


class PhantomWikiTask(ConfigurableTask):
    """An evidence task whose metrics follow its sweep: the YAML's, and one per point of the metadata's sweep."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = {key: value for key, value in (config or {}).items() if key != "class"}
        self._sweep = sweep_metrics(str(config.get("task", "")), config.get("metadata") or {})
        added = [{"metric": name, "aggregation": f, "higher_is_better": True} for name, f in self._sweep.items()]
        config["metric_list"] = [*(config.get("metric_list") or []), *added]
        super().__init__(config=config)

    def process_results(self, doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
        """The YAML's per-document values, and the same item under every sweep metric (each aggregation picks its
        documents)."""
        out = super().process_results(doc, results)
        item = next(iter(out.values()))
        return {**out, **{name: item for name in self._sweep}}
