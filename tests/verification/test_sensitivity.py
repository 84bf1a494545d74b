"""The verifier is no rubber stamp: on generated rows, a sufficient row with any one of its cited articles taken away
no longer proves its answer (questions without a relation premise, whose every cited article is needed), and it says
so; and it finds the answer of every sufficient row it is given whole."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.verification import Verifier
from leakproof_qa.builders.verification.questions import RelationPremise, read_question


@pytest.fixture(scope="module")
def sufficient_rows() -> list[dict]:
    from leakproof_qa.builders.cli import prepared
    from leakproof_qa.builders.phantomwiki import rows as engine
    from leakproof_qa.builders.phantomwiki.config import settings_from

    generated = prepared(settings_from("n50_s1")[0], ["instances"], bars=False)
    return [row for row in engine.ROWS["instances"](generated) if row["answerable"] == "sufficient"]


def test_every_cited_article_of_a_plain_or_attribute_question_is_needed(sufficient_rows):
    verifier = Verifier()
    taken = 0
    for row in sufficient_rows:
        assert verifier.problems(row, "instances") == [], row["instance_id"]
        if isinstance(read_question(row["question"]).premise, RelationPremise):
            continue  # another article may show a relation premise (see test_rule)
        for position in row["citations"]:
            documents = row["documents"][:position] + row["documents"][position + 1 :]
            lacking = {**row, "documents": documents, "citations": []}
            found = verifier.problems(lacking, "instances")
            assert found and found[0].startswith("labelled sufficient, but the documents prove no answer"), (
                row["instance_id"],
                position,
            )
            taken += 1
    assert taken > 1000
