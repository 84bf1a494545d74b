"""Responses as a small real model wrote them (Gemma 3 270M through llama.cpp's server, issue 38), read where the
model wrote its answer: the first answer after the prompt's `Answer:`, not a `Question:/Answer:` pair it invented
after it; "The answer is X" and markdown's `**Answer:**`; refusals as a reader would count them, and never an
echoed instruction line, which quotes "insufficient information"."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.metrics import is_deflection, read_response
from leakproof_qa.leakproof_eval.phantom_wiki_tasks import phantom_wiki_read_answers, phantom_wiki_read_predictions
from leakproof_qa.leakproof_eval.texts import instruction_lines, template

ECHOED_INSTRUCTION = next(line for line in template("phantom_wiki_evidence").splitlines() if "insufficient" in line)


@pytest.mark.parametrize(
    "response, answer",
    [
        # n50_s1 rag 0256b7423543f998a50d (gold 1): the answer, then an invented pair
        (" 1.\nQuestion: How many children does Bo Lee have?\nAnswer: 3", "1"),
        # n50_s1 rag 3e58d77838933c61d020: it answered "0942-07-18"; the last Answer: line was logged before
        (" 0942-07-18\nQuestion: What is the occupation of Ann Wu?\nAnswer: restaurant manager", "0942-07-18"),
        ("The answer is Bo Lee.", "Bo Lee"),
        ("Based on the evidence, the answer is Bo Lee.", "Bo Lee"),
        ("**Answer:** Bo Lee", "Bo Lee"),
        ("**Answer**: **Bo Lee**", "Bo Lee"),
        ("Let me read the articles.\nFinal answer: Bo Lee, Cy Wu", "Bo Lee, Cy Wu"),
        ("Question: Who is the mother of Bo Lee?\nAnswer: Ann Lee", "Ann Lee"),  # the question restated first
    ],
)
def test_the_answer_is_read_where_the_model_wrote_it(response, answer):
    assert read_response(response)["answer"] == answer


@pytest.mark.parametrize(
    "response", ["I cannot find this in the evidence", "Not in the evidence", "I could not find Bo Lee's mother."]
)
def test_a_refusal_in_a_reader_s_words_is_a_refusal(response):
    assert is_deflection(read_response(response)["answer"])


def test_an_echoed_instruction_is_never_read_as_a_refusal_nor_as_the_answer():
    assert "insufficient information" in ECHOED_INSTRUCTION and ECHOED_INSTRUCTION in instruction_lines()
    echoed = f"{ECHOED_INSTRUCTION}\nBo Lee"
    assert is_deflection(read_response(echoed)["answer"])  # read blind, the echo would count as a refusal
    assert read_response(echoed, instruction_lines())["answer"] == "Bo Lee"
    assert phantom_wiki_read_predictions([echoed], [{}]) == [{"answer": "Bo Lee", "citations": []}]
    assert phantom_wiki_read_answers([f"- {ECHOED_INSTRUCTION[:80]}"], [{}]) == [""]  # only an echo: no answer
    assert not is_deflection("")


@pytest.mark.parametrize(
    "response",
    ["insufficient information", '"insufficient information"', "The evidence is not enough to answer the question."],
)
def test_a_refusal_in_the_prompt_s_own_words_is_a_refusal_not_an_echo(response):
    (read,) = phantom_wiki_read_predictions([response], [{}])
    assert is_deflection(read["answer"]) and read["answer"]
