"""Refusing is learnable from the prompt alone: a reader that follows the prompt's rule scores 1.0 through lm_eval."""

from __future__ import annotations

import re

import pytest
from lm_eval.api.instance import Instance

import phantom_wiki
from leakproof_qa.builders.metrics import DEFLECTION
from leakproof_qa.leakproof_eval.models import NoWeightsLM
from tests.lmeval.harness import evaluate, scores
from tests.phantomwiki.careful_reader import Documents, Reader, evidence_texts

pytestmark = [pytest.mark.integration, pytest.mark.slow]

_QUESTION_LINE = re.compile(r"^Question: (.*)$", re.MULTILINE)
_OPTION = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)


class ReaderLM(NoWeightsLM):
    """Reads the documents and the question in the prompt text and answers the family's formal query, by the rule.

    Careful: refuses when it needs a person whose article the prompt does not show, or when the question names
    someone without an article or states a premise the documents do not confirm. Eager: never refuses.
    """

    def __init__(self, queries: dict[str, list[str]], careful: bool) -> None:
        super().__init__()
        self.queries, self.careful = queries, careful
        self.read_prompts: dict[tuple[str, str], list[str] | None] = {}  # multiple choice asks once per option

    def read(self, request: Instance) -> list[str] | None:
        key = (request.args[0], request.doc["question_family_id"])
        if key not in self.read_prompts:
            self.read_prompts[key] = self._read(request)
        return self.read_prompts[key]

    def _read(self, request: Instance) -> list[str] | None:
        prompt = request.args[0]
        question = _QUESTION_LINE.findall(prompt)[-1]  # the closed-world sentence, if any, stands in front of it
        documents = Documents(evidence_texts(prompt))
        return Reader(documents, self.careful).answer(
            self.queries[request.doc["question_family_id"]], question, question
        )

    def respond(self, request: Instance) -> str:
        answer = self.read(request)
        if answer is None:
            return DEFLECTION
        return ", ".join(answer) or "Nobody"

    def chooses(self, request: Instance) -> bool:
        """The option equal to its answer ("Unanswerable" when it refuses), read from the prompt's numbered options."""
        answer = self.read(request)
        options = dict(_OPTION.findall(request.args[0].split("Answer options:", 1)[1]))
        wanted = "Unanswerable" if answer is None else ", ".join(answer)
        answering = [number for number, text in options.items() if text != "Unanswerable"]
        chosen = next((number for number, text in options.items() if text == wanted), answering[0])
        return request.args[1].strip() == chosen


def queries(config: str, cache_dir: str) -> dict[str, list[str]]:
    rows = phantom_wiki.load_dataset(f"{config}_questions", split="test", cache_dir=cache_dir)
    return {row["id"]: row["prolog"]["query"] for row in rows}


TASKS = ("phantom_wiki_instances", "phantom_wiki_rag", "phantom_wiki_instances_cite", "phantom_wiki_mc")


@pytest.mark.parametrize(
    "config, knobs",
    [
        ("n50_s1", {}),
        ("n500_d10_s1", {}),
        # every attribute-start question too (250 questions: their required sets hold every holder of a value)
        ("n50_s1", {"phantom_wiki_attribute_questions": True, "phantom_wiki_questions_per_template": 5}),
    ],
)
def test_a_reader_following_the_prompts_rule_scores_one_and_one_that_never_refuses_scores_adt_zero(
    universes, config, knobs
):
    asked = queries(config, universes)
    careful = evaluate(
        ReaderLM(asked, careful=True), TASKS, phantom_wiki_config=config, phantom_wiki_cache_dir=universes, **knobs
    )
    # never refusing is wrong on every must-refuse document: the first 100 of each task hold both sides
    eager = evaluate(
        ReaderLM(asked, careful=False),
        TASKS,
        limit=100,
        phantom_wiki_config=config,
        phantom_wiki_cache_dir=universes,
        **knobs,
    )
    for task in TASKS:
        got = scores(careful, task)
        assert careful["results"][task]["sample_len"] > 0
        assert (got["accuracy_answerable"], got["accuracy_deflection"], got["adt_score"]) == (1.0, 1.0, 1.0), task
        assert scores(eager, task)["adt_score"] == 0.0, task
