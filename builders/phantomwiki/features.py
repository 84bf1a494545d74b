"""The schema of every phantom_wiki subset, declared once (the only `datasets` import in the engine)."""

from __future__ import annotations

import datasets

_STRING = datasets.Value("string")
_INT = datasets.Value("int32")
_DOCUMENTS = [{"title": _STRING, "text": _STRING}]
_QUESTION = {
    "question_id": _STRING,
    "question_family_id": _STRING,  # NeoQA's field: a question and its unanswerable variants share it
    "question": _STRING,
    "unanswerable_kind": _STRING,  # for an unanswerable variant: false_premise_relation, ... ("" otherwise)
    "premise": _STRING,  # the fact a variant rests on, e.g. cousin("Geri Adey", "Lanny Widgeon") ("" otherwise)
    "premise_status": _STRING,  # "refuted" (the universe contradicts it) or "unknown" (it does not model it)
    "closed_world": _STRING,  # for a question starting from an attribute value: how many hold it ("" otherwise)
    "question_answer": [_STRING],  # the question's true answers, whatever the evidence
    "difficulty": _INT,
    "is_aggregation_question": datasets.Value("bool"),
    "answer": [_STRING],  # the gold output: question_answer, or [metrics.DEFLECTION] when insufficient
    "answerable": _STRING,  # "sufficient", "insufficient" or "unanswerable"
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
            "answer_options": [_STRING],  # multiple choice: the family's options, "Unanswerable" among them
            "gold_answer_idx": _INT,  # the correct option: the gold answer if sufficient, else "Unanswerable"
        }
    ),
    "rag": datasets.Features(
        {
            "instance_id": _STRING,  # question id / rag-k, and / kind-n for an unanswerable variant
            **_QUESTION,
            "retrieved_titles": [_STRING],  # BM25 top-k of the question text, best first
            "retrieved_sufficient": datasets.Value("bool"),
        }
    ),
}
