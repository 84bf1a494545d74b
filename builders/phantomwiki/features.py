"""The schema of every phantom_wiki subset, declared once (the only `datasets` import in the engine)."""

from __future__ import annotations

import datasets

_STRING = datasets.Value("string")

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
}
