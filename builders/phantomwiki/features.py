"""The schema of every phantom_wiki subset, declared once as `datasets` features in their dict form.

Lists are written `[feature]`, the form every `datasets` version from 2.x on reads, so the Parquet
metadata we write does not depend on the installed `datasets`; and nothing here imports it, so the
command line and the benchmark write Parquet without paying for `import datasets` (about a second).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa

_STRING = {"dtype": "string", "_type": "Value"}
_INT = {"dtype": "int32", "_type": "Value"}
_BOOL = {"dtype": "bool", "_type": "Value"}
_FLOAT = {"dtype": "float64", "_type": "Value"}
_DOCUMENTS = [{"title": _STRING, "text": _STRING}]
_QUESTION = {
    "question_id": _STRING,
    "question_family_id": _STRING,  # NeoQA's field: a question and its unanswerable variants share it
    "question": _STRING,
    "unanswerable_kind": _STRING,  # for an unanswerable variant: false_premise_relation, ... ("" otherwise)
    "premise": _STRING,  # the fact the wording states, true or not, e.g. cousin("Geri Adey", "Lanny Widgeon") or ""
    "premise_status": _STRING,  # "confirmed" (a true premise), "refuted" (false), "unknown" (the universe does not say)
    "closed_world": _STRING,  # for a question starting from an attribute value: how many hold it ("" otherwise)
    "question_answer": [_STRING],  # the answers of the question as worded (if its premise held), whatever the evidence
    "difficulty": _INT,
    "is_aggregation_question": _BOOL,
    "answer": [_STRING],  # the gold output: question_answer, or [metrics.DEFLECTION] when insufficient
    "answerable": _STRING,  # "sufficient", "insufficient" or "unanswerable"
    "documents": _DOCUMENTS,
    "citations": [_INT],  # 0-based positions in `documents` of the evidence to cite
}

FEATURES: dict[str, dict[str, Any]] = {
    "questions": {
        "id": _STRING,
        "question": _STRING,
        "answer": [_STRING],
        "prolog": {"query": [_STRING], "answer": _STRING},
        "template": [_STRING],
        "type": _INT,
        "difficulty": _INT,
        "is_aggregation_question": _BOOL,
        "evidence": [_STRING],  # facts used by every derivation of every answer
    },
    "corpus": {"title": _STRING, "article": _STRING, "facts": [_STRING]},
    "database": {"content": _STRING},
    "instances": {
        "instance_id": _STRING,  # a digest, naming no label
        **_QUESTION,
        "evidence_titles": [_STRING],
        "missing_article": _STRING,  # "" for a sufficient instance
        "missing_role": _STRING,  # the missing article's role: anchor, answer, bridge or dead_end ("" if none)
        "distractor_titles": [_STRING],
        "num_distractors": _INT,
        "layout": _STRING,  # "fixed" or "ablation"
        "distractor_kind": _STRING,  # "hard" or "easy"
        "answer_options": [_STRING],  # multiple choice: the gold answer, decoys like it and "Unanswerable", shuffled
        "gold_answer_idx": _INT,  # the correct option: the gold answer if sufficient, else "Unanswerable"
    },
    "rag": {
        "instance_id": _STRING,  # a digest, naming no label
        **_QUESTION,
        "retrieved_titles": [_STRING],  # BM25 top-k of the question text, best first
        "retrieved_sufficient": _BOOL,
    },
}


LONG_CONTEXT: dict[str, Any] = {
    "context_tokens": _INT,  # the length asked (setting context_tokens)
    "num_tokens": _INT,  # the documents' tokens as a prompt joins them: at most context_tokens
    "tokenizer": _STRING,  # what counted them: the tokenizer's name, or "estimate"
    "evidence_position": _STRING,  # the placement asked: random, spread or a depth such as 0.25
    "evidence_depth": [_FLOAT],  # [where the row's first own article starts, where its last ends], shares of tokens
}
"""The fields instance rows add when they are filled to a length (`context_tokens` > 0); other rows keep FEATURES."""


def subset_features(subset: str, settings: Any = None) -> dict[str, Any]:
    """A subset's features under `settings` (a builders.phantomwiki.config.Settings): long instances add
    LONG_CONTEXT."""
    features = FEATURES[subset]
    if subset == "instances" and settings is not None and settings.long_context:
        return {**features, **LONG_CONTEXT}
    return features


def arrow_type(feature: Any) -> pa.DataType:
    """The Arrow type `datasets` stores a feature (in dict form) as."""
    import pyarrow as pa

    if isinstance(feature, list):
        return pa.list_(arrow_type(feature[0]))
    if feature.get("_type") == "Value":
        return {"string": pa.string(), "int32": pa.int32(), "bool": pa.bool_(), "float64": pa.float64()}[
            feature["dtype"]
        ]
    return pa.struct([(name, arrow_type(value)) for name, value in feature.items()])


def arrow_schema(subset: str, settings: Any = None) -> pa.Schema:
    """The Arrow schema of a subset, with its features in the metadata (so plain `load_dataset` reads them)."""
    import pyarrow as pa

    features = subset_features(subset, settings)
    metadata = {"huggingface": json.dumps({"info": {"features": features}})}
    return pa.schema([(name, arrow_type(value)) for name, value in features.items()], metadata=metadata)


def datasets_features(subset: str, settings: Any = None) -> datasets.Features:
    """The subset's features as a `datasets.Features` (imports `datasets`)."""
    import datasets

    return datasets.Features.from_dict(subset_features(subset, settings))
