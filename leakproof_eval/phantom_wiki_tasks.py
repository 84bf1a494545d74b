"""PhantomWiki as lm-eval tasks: a universe from `--metadata`, the paper's prompts, answers read and scored by
`builders.metrics`.

Tasks (YAML in `tasks/`): `phantom_wiki_questions` (the whole corpus in context, the paper's ZeroShot),
`phantom_wiki_instances` and `phantom_wiki_rag` (documents in context, answer or deflect; unanswerable
variants included unless `phantom_wiki_unanswerable` is 0), their `_cite` variants (answer with document
numbers), and `phantom_wiki_mc` (the instances as multiple choice, "Unanswerable" among the options).
Metadata keys (all optional, defaults in the YAML):
`phantom_wiki_config` (a universe name such as `n500_s1` or `n50_d10_s3`), `phantom_wiki_size`,
`phantom_wiki_seed`, `phantom_wiki_depth` (override those parts of the name), `phantom_wiki_<knob>` for
every dataset setting (`instance_documents`, `distractors`, `document_format`, `retrieval_k`, ...) and
`phantom_wiki_cache_dir` (the `datasets` cache to use). With `phantom_wiki_release` the rows come from a published
release instead (phantom_wiki_release.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from leakproof_qa.builders import metrics
from leakproof_qa.builders.checks import is_whole
from leakproof_qa.builders.evidence import render
from leakproof_qa.builders.labels import SUFFICIENT
from leakproof_qa.builders.metrics import read_response
from leakproof_qa.builders.phantomwiki.budget import check as check_memory
from leakproof_qa.builders.phantomwiki.config import (
    POSITIONS,
    RANGES,
    ConfigError,
    Settings,
    canonical_depth,
    format_name,
    parse_universe,
    settings_from,
    universe_name,
)
from leakproof_qa.builders.publishing.source import PublishedUniverse

from . import TaskSetupError, require_strings
from .help import nearest
from .ordering import interleaved, seeded_order
from .phantom_wiki_release import RELEASE_KEYS, published, release_passphrase, released_rows, wants_release
from .task_table import PREFIX
from .texts import instruction_lines, keep, template, texts

__all__ = [  # what the task YAMLs name (tasks/utils.py makes these visible to lm_eval)
    "phantom_wiki_accuracy_answerable",
    "phantom_wiki_accuracy_deflection",
    "phantom_wiki_adt_score",
    "phantom_wiki_citation_precision",
    "phantom_wiki_citation_recall",
    "phantom_wiki_evidence_prompt",
    "phantom_wiki_exact_match",
    "phantom_wiki_f1",
    "phantom_wiki_load_instances",
    "phantom_wiki_load_instances_cite",
    "phantom_wiki_load_mc",
    "phantom_wiki_load_questions",
    "phantom_wiki_mc_accuracy",
    "phantom_wiki_mc_accuracy_answerable",
    "phantom_wiki_mc_accuracy_deflection",
    "phantom_wiki_mc_adt_score",
    "phantom_wiki_mc_prompt",
    "phantom_wiki_precision",
    "phantom_wiki_question_prompt",
    "phantom_wiki_read_answers",
    "phantom_wiki_read_predictions",
    "phantom_wiki_recall",
    "phantom_wiki_score_choice",
    "phantom_wiki_score_evidence",
    "phantom_wiki_score_evidence_cite",
    "phantom_wiki_score_question",
    "phantom_wiki_target",
    "phantom_wiki_unified_score",
]

BENCHMARK = "phantom_wiki"
MAX_IN_CONTEXT_PEOPLE = 5000
"""`phantom_wiki_questions` puts the whole corpus in every prompt: above this (about 2.5M characters) no model reads
it."""
_NAME_PARTS = ("size", "seed", "depth")
RESOLVED = "resolved"
"""The metadata key the tasks fill in (never read): the universe's canonical name and every setting used, so
lm_eval's results file says which universe was evaluated, whatever the other keys were."""
_OTHER_KEYS = ("config", "cache_dir", RESOLVED, *_NAME_PARTS, *RELEASE_KEYS)
EVIDENCE_METRICS: tuple[str, ...] = (
    "accuracy_answerable",
    "accuracy_deflection",
    "adt_score",
    "unified_score",
    "precision",
    "recall",
    "f1",
    "exact_match",
)
CITATION_METRICS: tuple[str, ...] = ("citation_precision", "citation_recall")
DEFAULT_LENGTHS = (4096, 8192)
DEFAULT_POSITIONS = ("0", "0.5", "1")


@dataclass(frozen=True)
class Universe:
    """The configuration a task's documents come from: settings, and the `datasets` cache to load them through."""

    settings: Settings
    knobs: tuple[tuple[str, Any], ...]  # the settings the metadata gave (the rest are the defaults)
    cache_dir: str | None
    release: PublishedUniverse | None = None  # the published release the rows are read from, if any

    @property
    def name(self) -> str:
        """The canonical configuration name without a subset, e.g. `n500_s1` or `n500_d10_s7`."""
        return universe_name(self.settings)

    def key(self, subset: str) -> str:
        """A key naming this universe's texts for one subset, readable and unique per settings."""
        named: Any = asdict(self.settings)
        if self.release is not None:  # a release's rows may differ from those this version generates
            named = [named, self.release.located.manifest_sha256]
        digest = hashlib.sha256(json.dumps(named, sort_keys=True).encode()).hexdigest()[:12]
        return f"{self.name}_{subset}#{digest}"

    def load(self, subset: str) -> list[dict[str, Any]]:
        """The rows of one subset, through `phantom_wiki.load_dataset` (and so through the `datasets` cache), or as
        the release holds them."""
        if self.release is not None:
            return released_rows(self.release, subset)
        import phantom_wiki

        rows = phantom_wiki.load_dataset(
            f"{self.name}_{subset}", split="test", cache_dir=self.cache_dir, **dict(self.knobs)
        )
        return rows.to_list()


def _named(metadata: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[int, int, int]]:
    """The `phantom_wiki_*` keys without their prefix, and the (size, depth, seed) of phantom_wiki_config: unknown keys,
    a missing or malformed name are one-line TaskSetupErrors."""
    ours = {key[len(PREFIX) :]: value for key, value in metadata.items() if key.startswith(PREFIX)}
    known = sorted({*Settings.knobs(), *_OTHER_KEYS})
    unknown = sorted(set(ours) - set(known))
    if unknown:
        raise TaskSetupError(
            f"unknown metadata key {PREFIX}{unknown[0]}{nearest(unknown[0], known, PREFIX)}; "
            "the keys are " + ", ".join(PREFIX + key for key in known)
        )
    if "config" not in ours:
        raise TaskSetupError(f"metadata has no {PREFIX}config; give a universe name such as n500_s1")
    require_strings(ours, PREFIX, ("config", "cache_dir"))
    try:
        return ours, parse_universe(ours["config"], "an lm-eval task", "each task picks its own subset")
    except ConfigError as error:
        raise TaskSetupError(f"{PREFIX}config: {error}") from None


def _generated(ours: Mapping[str, Any], named: tuple[int, int, int], metadata: Mapping[str, Any]) -> Universe:
    """The universe to generate: the name's parts as the keys override them, and every setting given, checked
    (including whether this machine can hold it) without generating anything."""
    parts = dict(zip(("size", "depth", "seed"), named))
    for part in _NAME_PARTS:
        if part in ours:
            value = ours[part]
            check, expected = RANGES[part]
            if not is_whole(value):
                raise TaskSetupError(f"{PREFIX}{part}={value!r} must be a whole number ({expected})")
            if not check(value):
                raise TaskSetupError(f"{PREFIX}{part}={value!r} is out of range: expected {expected}")
            parts[part] = value
    knobs = {key: ours[key] for key in Settings.knobs() if key in ours}
    if isinstance(knobs.get("retrieval_k"), list):  # a sweep of phantom_wiki_rag: the other tasks take the first
        knobs["retrieval_k"] = retrieval_depths(metadata)[0]
    try:
        settings, _ = settings_from(format_name(parts["size"], parts["depth"], parts["seed"]), **knobs)
        check_memory(settings)  # on parse: a universe this machine cannot hold is refused before any task loads
    except ConfigError as error:
        raise TaskSetupError(f"{PREFIX}{error}") from None
    return Universe(settings, tuple(sorted(knobs.items())), ours.get("cache_dir"))


def check_metadata(metadata: Mapping[str, Any]) -> None:
    """Every check universe_from makes that reads nothing (a release is opened by universe_from only): a one-line
    TaskSetupError when the metadata is wrong. `python -m leakproof_qa run` runs it before lm_eval loads."""
    ours, named = _named(metadata)
    if wants_release(metadata):
        release_passphrase(ours)
    else:
        _generated(ours, named, metadata)


def universe_from(metadata: Mapping[str, Any]) -> Universe:
    """The universe the `phantom_wiki_*` metadata keys describe; anything wrong is a one-line TaskSetupError."""
    ours, named = _named(metadata)
    if wants_release(metadata):  # the settings are the release's own (its manifest's); any other is refused
        release = published(ours, format_name(*named), ours.get("cache_dir"))
        return _recorded(ours, Universe(release.settings, (), ours.get("cache_dir"), release))
    return _recorded(ours, _generated(ours, named, metadata))


def _recorded(ours: Mapping[str, Any], universe: Universe) -> Universe:
    """`universe`, recorded in the metadata's `phantom_wiki_resolved` (the YAML's own mutable dict, which lm_eval
    writes into the results' configs): its name, every setting and, when it was read from one, the release."""
    resolved = ours.get(RESOLVED)
    if isinstance(resolved, dict):
        resolved.clear()
        resolved.update({"universe": universe.name, **asdict(universe.settings)})
        if universe.release is not None:
            resolved["release"] = universe.release.record()
    return universe


def retrieval_depths(metadata: Mapping[str, Any]) -> list[int]:
    """The retrieval depths `phantom_wiki_retrieval_k` asks for, smallest first: one number, or a list to sweep."""
    value = metadata.get(PREFIX + "retrieval_k", Settings.retrieval_k)
    ks = value if isinstance(value, list) else [value]
    if not ks or any(not is_whole(k) or k < 1 for k in ks):
        raise TaskSetupError(f"{PREFIX}retrieval_k={value!r} must be a whole number of at least 1, or a list of them")
    return sorted(set(ks))


def lengths_and_positions(metadata: Mapping[str, Any]) -> tuple[list[int], list[str]]:
    """`max_seq_lengths` and `evidence_positions` from the metadata (RULER's keys), checked: one line if wrong."""
    lengths = metadata.get("max_seq_lengths", list(DEFAULT_LENGTHS))
    positions = metadata.get("evidence_positions", list(DEFAULT_POSITIONS))
    if not isinstance(lengths, list) or not lengths or any(not is_whole(n) or n < 1 for n in lengths):
        raise TaskSetupError(f"max_seq_lengths={lengths!r} must be a list of whole numbers, e.g. [4096, 8192]")
    if not isinstance(positions, list) or not positions:
        raise TaskSetupError(f'evidence_positions={positions!r} must be a list, e.g. [0, 0.5, 1] or ["spread"]')
    written = []
    for position in positions:
        canonical = position if position in POSITIONS else canonical_depth(position)
        if canonical is None:
            raise TaskSetupError(
                f'evidence_positions: {position!r} is not a depth between 0 and 1, "spread" or "random"'
            )
        written.append(canonical)
    return sorted(set(lengths)), list(dict.fromkeys(written))


def _dataset(docs: list[dict[str, Any]], what: str) -> Any:
    """lm_eval's custom_dataset result: a DatasetDict with one `test` split."""
    import datasets

    if not docs:
        raise TaskSetupError(f"{what} has no rows to evaluate; choose another configuration")
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})


# --- loaders (lm_eval calls them as custom_dataset(**metadata)) -------------------------------------------------


def phantom_wiki_load_questions(**metadata: Any) -> Any:
    """`phantom_wiki_questions`: every question of the universe, in one seeded order; the corpus is held once."""
    universe = universe_from(metadata)
    if universe.settings.size > MAX_IN_CONTEXT_PEOPLE:
        raise TaskSetupError(
            f"phantom_wiki_questions puts the whole corpus in every prompt, which no model reads above "
            f"{MAX_IN_CONTEXT_PEOPLE} people ({universe.name}); use phantom_wiki_rag or phantom_wiki_instances"
        )
    fmt = universe.settings.document_format
    corpus = "\n\n".join(render(row["article"], fmt).strip() for row in universe.load("corpus"))
    key = keep(universe.key("corpus"), corpus)
    docs = [
        {
            "benchmark": BENCHMARK,
            "universe": key,
            "id": row["id"],
            "question": row["question"],
            "answer": row["answer"],
            "difficulty": row["difficulty"],
            "type": row["type"],
            "is_aggregation_question": row["is_aggregation_question"],
        }
        for row in seeded_order(universe.load("questions"), universe.settings.seed, "questions")
    ]
    return _dataset(docs, f"{universe.name}_questions")


def evidence_doc(key: str, row: Mapping[str, Any], cite: bool) -> dict[str, Any]:
    """An instance or RAG row as a document naming its articles by title (their texts are held under `key`)."""
    return {
        "benchmark": BENCHMARK,
        "universe": key,
        "cite": cite,
        "id": row.get("instance_id", row["question_id"]),
        "question_id": row["question_id"],
        "question_family_id": row["question_family_id"],
        "question": row["question"],
        "closed_world": row["closed_world"],
        "unanswerable_kind": row["unanswerable_kind"],
        "premise_status": row["premise_status"],
        "missing_role": row.get("missing_role", ""),
        "answer": row["answer"],
        "question_answer": row["question_answer"],
        "answerable": row["answerable"],
        "citations": row["citations"],
        "document_titles": [d["title"] for d in row["documents"]],
        # for `python -m leakproof_qa report`'s breakdown by distractors (rag rows have none; no prompt shows it)
        "num_distractors": row.get("num_distractors"),
        "difficulty": row["difficulty"],
        "is_aggregation_question": row["is_aggregation_question"],
    }


def _evidence_docs(metadata: Mapping[str, Any], subset: str, cite: bool) -> Any:
    """Instances or RAG rows as documents naming their articles by title, sufficient and insufficient interleaved."""
    return _evidence_dataset(universe_from(metadata), subset, cite)


def _evidence_dataset(universe: Universe, subset: str, cite: bool) -> Any:
    """_evidence_docs of a universe already read from the metadata."""
    rows = universe.load(subset)
    key = keep(universe.key(subset), {d["title"]: d["text"] for row in rows for d in row["documents"]})
    docs = [
        evidence_doc(key, row, cite)
        for row in interleaved(rows, lambda r: r["answerable"] == SUFFICIENT, universe.settings.seed, subset)
    ]
    return _dataset(docs, f"{universe.name}_{subset}")


def phantom_wiki_load_instances(**metadata: Any) -> Any:
    """`phantom_wiki_instances`: evidence instances (sufficient / insufficient, with distractors)."""
    return _evidence_docs(metadata, "instances", cite=False)


def phantom_wiki_load_instances_cite(**metadata: Any) -> Any:
    """`phantom_wiki_instances_cite`: the same instances, the prompt asking for document numbers."""
    return _evidence_docs(metadata, "instances", cite=True)


def phantom_wiki_load_mc(**metadata: Any) -> Any:
    """`phantom_wiki_mc`: the evidence instances with their options, numbered from 1 (choices are the numbers)."""
    universe = universe_from(metadata)
    dataset = _evidence_dataset(universe, "instances", cite=False)
    options = {
        row["instance_id"]: (row["answer_options"], row["gold_answer_idx"]) for row in universe.load("instances")
    }
    return dataset.map(
        lambda doc: {
            "answer_options": options[doc["id"]][0],
            "gold_answer_idx": options[doc["id"]][1],
            "choices": [str(number) for number in range(1, len(options[doc["id"]][0]) + 1)],
        }
    )


# --- prompts ---------------------------------------------------------------------------------------------------


def phantom_wiki_question_prompt(doc: Mapping[str, Any]) -> str:
    """The paper's ZeroShot prompt: the whole corpus, then the question."""
    return template("phantom_wiki_zeroshot").format(evidence=texts(doc["universe"]), question=doc["question"])


def phantom_wiki_evidence_prompt(doc: Mapping[str, Any]) -> str:
    """The instance's documents in order (numbered from 1 when citations are asked for), then the question.

    A question that starts from an attribute value is preceded by its closed-world sentence ("In this
    universe, exactly 3 people have the hobby tango."), without which no documents could prove it complete.
    """
    articles = texts(doc["universe"])
    shown = [articles[title].strip() for title in doc["document_titles"]]
    question = " ".join(part for part in (doc["closed_world"], doc["question"]) if part)
    if doc["cite"]:
        evidence = "\n\n".join(f"Document [{number}]\n{text}" for number, text in enumerate(shown, 1))
        return template("phantom_wiki_evidence_cite").format(evidence=evidence, question=question)
    return template("phantom_wiki_evidence").format(evidence="\n\n".join(shown), question=question)


def phantom_wiki_mc_prompt(doc: Mapping[str, Any]) -> str:
    """The instance's documents, the question and its options numbered from 1, ending in `Answer:`."""
    articles = texts(doc["universe"])
    evidence = "\n\n".join(articles[title].strip() for title in doc["document_titles"])
    question = " ".join(part for part in (doc["closed_world"], doc["question"]) if part)
    options = "\n".join(f"{number}. {text}" for number, text in enumerate(doc["answer_options"], 1))
    return template("phantom_wiki_mc").format(evidence=evidence, question=question, options=options)


def phantom_wiki_target(doc: Mapping[str, Any]) -> str:
    """The gold answer as one comma-separated string (lm_eval logs it as the target)."""
    return f"{metrics.ANSWER_SEPARATOR} ".join(doc["answer"])


def gold_response(doc: Mapping[str, Any]) -> str:
    """What a perfect model writes for this document: the gold answer, with its citations when they are asked for."""
    answer = phantom_wiki_target(doc)
    if doc.get("cite") and doc["answerable"] == SUFFICIENT:
        answer += " " + "".join(f"[{position + 1}]" for position in doc["citations"])
    return answer


# --- reading a response (lm_eval filter) -------------------------------------------------------------------------


def phantom_wiki_read_answers(responses: Iterable[str], docs: Sequence[Mapping[str, Any]]) -> list[str]:
    """lm_eval filter for `phantom_wiki_questions`: each response's answer text (an echoed instruction is no answer)."""
    return [read_response(response, instruction_lines())["answer"] for response in responses]


def phantom_wiki_read_predictions(responses: Iterable[str], docs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """lm_eval filter for the evidence tasks: each response's answer and cited positions (never from an echoed
    instruction, which quotes "insufficient information")."""
    return [read_response(response, instruction_lines()) for response in responses]


# --- scoring: per-document values, aggregated by builders.metrics --------------------------------------------------


def phantom_wiki_score_question(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, float]:
    """Answer precision, recall, F1 and exact match of one question (builders.metrics.answer_scores); lm_eval means
    them."""
    return metrics.answer_scores(results[0], doc["answer"])


SWEEP_FIELDS = ("max_length", "evidence_position", "retrieval_k", "required_titles")
"""Fields a swept document carries (phantom_wiki_sweeps.py) that its per-length, per-position or per-k metrics read."""


def _scored(doc: Mapping[str, Any], prediction: Mapping[str, Any]) -> dict[str, Any]:
    """What a corpus-level aggregation needs of one document: its gold fields and the prediction (and, for a swept
    document, where in the sweep it sits; for a retrieved one, what was retrieved and what was needed)."""
    item = {
        "id": doc["id"],
        "answerable": doc["answerable"],
        "unanswerable_kind": doc["unanswerable_kind"],
        "answer": list(doc["answer"]),
        "citations": list(doc["citations"]),
        "prediction": dict(prediction),
    }
    item.update({key: doc[key] for key in SWEEP_FIELDS if key in doc})
    if "required_titles" in doc:
        item["document_titles"] = list(doc["document_titles"])
    return item


def phantom_wiki_score_evidence(
    doc: Mapping[str, Any], results: Sequence[Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per-document values of the evidence metrics (the answer only); the aggregations call instance_scores."""
    item = _scored(doc, {"answer": results[0]["answer"]})
    return {name: item for name in EVIDENCE_METRICS}


def phantom_wiki_score_evidence_cite(
    doc: Mapping[str, Any], results: Sequence[Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per-document values of the evidence metrics with citation precision and recall."""
    item = _scored(doc, results[0])
    return {name: item for name in EVIDENCE_METRICS + CITATION_METRICS}


def _instances(items: Sequence[Mapping[str, Any]], *fields: str) -> list[dict[str, Any]]:
    """The per-document values lm_eval collected as the instance rows builders.metrics scores."""
    return [{"instance_id": item["id"], **{field: item[field] for field in fields}} for item in items]


def evidence_scores(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """leakproof_qa.builders.metrics.instance_scores over the per-document values lm_eval collected."""
    rows = _instances(items, "answerable", "unanswerable_kind", "answer", "citations")
    return metrics.instance_scores(rows, {item["id"]: item["prediction"] for item in items})


def _aggregation(name: str) -> Callable[[Sequence[Mapping[str, Any]]], float]:
    """lm_eval aggregation reporting one value of instance_scores."""

    def aggregate(items: Sequence[Mapping[str, Any]]) -> float:
        return evidence_scores(items)[name]

    aggregate.__name__ = aggregate.__qualname__ = f"phantom_wiki_{name}"
    aggregate.__doc__ = f"`{name}` of builders.metrics.instance_scores over the evaluated documents."
    return aggregate


# The aggregations the evidence tasks' YAMLs name, one per metric (EVIDENCE_METRICS, CITATION_METRICS).
phantom_wiki_accuracy_answerable = _aggregation("accuracy_answerable")
phantom_wiki_accuracy_deflection = _aggregation("accuracy_deflection")
phantom_wiki_adt_score = _aggregation("adt_score")
phantom_wiki_unified_score = _aggregation("unified_score")
phantom_wiki_precision = _aggregation("precision")
phantom_wiki_recall = _aggregation("recall")
phantom_wiki_f1 = _aggregation("f1")
phantom_wiki_exact_match = _aggregation("exact_match")
phantom_wiki_citation_precision = _aggregation("citation_precision")
phantom_wiki_citation_recall = _aggregation("citation_recall")


# --- multiple choice -----------------------------------------------------------------------------------------------

CHOICE_METRICS: tuple[str, ...] = ("adt_score", "accuracy_answerable", "accuracy_deflection", "accuracy")


def phantom_wiki_score_choice(
    doc: Mapping[str, Any], results: Sequence[tuple[float, bool]]
) -> dict[str, dict[str, Any]]:
    """The option with the highest likelihood (the first on ties), for every multiple-choice metric."""
    likelihoods = [likelihood for likelihood, _ in results]
    item = {
        "id": doc["id"],
        "answerable": doc["answerable"],
        "unanswerable_kind": doc["unanswerable_kind"],
        "gold_answer_idx": doc["gold_answer_idx"],
        "prediction": max(range(len(likelihoods)), key=likelihoods.__getitem__),
    }
    return {name: item for name in CHOICE_METRICS}


def choice_item_scores(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """metrics.choice_scores over the per-document values lm_eval collected for multiple choice."""
    rows = _instances(items, "answerable", "unanswerable_kind", "gold_answer_idx")
    return metrics.choice_scores(rows, {item["id"]: item["prediction"] for item in items})


def _choice_aggregation(name: str) -> Callable[[Sequence[Mapping[str, Any]]], float]:
    """lm_eval aggregation reporting one value of builders.metrics.choice_scores."""

    def aggregate(items: Sequence[Mapping[str, Any]]) -> float:
        return choice_item_scores(items)[name]

    aggregate.__name__ = aggregate.__qualname__ = f"phantom_wiki_mc_{name}"
    aggregate.__doc__ = f"`{name}` of builders.metrics.choice_scores over the evaluated documents."
    return aggregate


# The aggregations phantom_wiki_mc's YAML names, one per metric (CHOICE_METRICS).
phantom_wiki_mc_adt_score = _choice_aggregation("adt_score")
phantom_wiki_mc_accuracy_answerable = _choice_aggregation("accuracy_answerable")
phantom_wiki_mc_accuracy_deflection = _choice_aggregation("accuracy_deflection")
phantom_wiki_mc_accuracy = _choice_aggregation("accuracy")
