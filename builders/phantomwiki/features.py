"""The schema of every phantom_wiki subset, declared once (the only `datasets` import in the engine)."""

from __future__ import annotations

import datasets

_STRING = datasets.Value("string")
_INT = datasets.Value("int32")
_DOCUMENTS = [{"title": _STRING, "text": _STRING}]
_QUESTION = {
    "question_id": _STRING,
    "question": _STRING,
    "closed_world": _STRING,  # for a question starting from an attribute value: how many hold it ("" otherwise)
    "question_answer": [_STRING],  # the question's true answers, whatever the evidence
    "difficulty": _INT,
    "is_aggregation_question": datasets.Value("bool"),
    "answer": [_STRING],  # the gold output: question_answer, or [metrics.DEFLECTION] when insufficient
    "answerable": _STRING,  # "sufficient" or "insufficient"
    "documents": _DOCUMENTS,
    "citations": [_INT],  # 0-based positions in `documents` of the evidence to cite
}

FEATURES = {
    "questions": datasets.Features(
        {
            "id": _STRING,
            "question": _STRING,
            "answer": [_STRING],
            "prolog": {"query": [_STRING], "answer": _STRING},
            "template": [_STRING],
            "type": datasets.Value("int32"),
            "difficulty": datasets.Value("int32"),
            "is_aggregation_question": datasets.Value("bool"),
            "evidence": [_STRING],  # facts used by every derivation of every answer
        }
    ),
    "corpus": datasets.Features({"title": _STRING, "article": _STRING, "facts": [_STRING]}),
    "database": datasets.Features({"content": _STRING}),
    "instances": datasets.Features(
        {
            "instance_id": _STRING,
            **_QUESTION,
            "evidence_titles": [_STRING],
            "missing_article": _STRING,  # "" for a sufficient instance
            "distractor_titles": [_STRING],
            "num_distractors": _INT,
            "layout": _STRING,  # "fixed" or "ablation"
            "distractor_kind": _STRING,  # "hard" or "easy"
        }
    ),
    "rag": datasets.Features(
        {
            **_QUESTION,
            "retrieved_titles": [_STRING],  # BM25 top-k of the question text, best first
            "retrieved_sufficient": datasets.Value("bool"),
        }
    ),
}
