"""The verifier holds each label to the rule, on hand-made rows: a fact counts as shown when any shown document states
it, in either direction; a list is complete only in the person's own article."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.verification import Verifier
from leakproof_qa.builders.verification.documents import read_document
from leakproof_qa.builders.verification.evaluate import premise_status
from leakproof_qa.builders.verification.questions import RelationPremise
from leakproof_qa.builders.verification.shown import Shown
from leakproof_qa.builders.verification.words import relations

from .handmade import ARTICLES, DEFLECTION, as_html, as_text, row

BROTHER_OF_BROTHER_IN_LAW = "Who is the brother of Hank Ozaki's brother-in-law Damion Kohen?"


def problems(row: dict, subset: str = "instances") -> list[str]:
    return Verifier().problems(row, subset)


def test_a_premise_shown_only_by_the_other_persons_article_is_confirmed():
    # Eve's article is missing, but Hank's says his wife is Eve and Damion's lists his sister Eve: the premise holds,
    # and Damion's own article lists his brothers, so the answer is proven.
    shown = ["Hank Ozaki", "Damion Kohen", "Luann Osdoba"]
    assert problems(row(BROTHER_OF_BROTHER_IN_LAW, shown, "sufficient", ["Arlen Kohen"])) == []
    flagged = problems(row(BROTHER_OF_BROTHER_IN_LAW, shown, "insufficient", missing_role="bridge"))
    assert flagged == ["labelled insufficient (bridge), but the documents prove the answer [Arlen Kohen]"]


def test_the_missing_article_is_not_shown():
    question = "Who is the son of the brother of Damion Kohen?"
    shown = ["Damion Kohen", "Arlen Kohen"]
    assert problems(row(question, shown[:1], "insufficient", missing_article="Arlen Kohen")) == []
    assert problems(row(question, shown, "insufficient", missing_article="Arlen Kohen")) == [
        "labelled insufficient, but the documents prove the answer [Newton Kohen]",
        "its missing_article Arlen Kohen is among the documents",
    ]


def test_a_premise_no_document_links_is_not_confirmed():
    # without Hank's article nothing says whom Hank married: the premise, and so the answer, stay open
    shown = ["Damion Kohen", "Luann Osdoba"]
    assert problems(row(BROTHER_OF_BROTHER_IN_LAW, shown, "insufficient", missing_role="anchor")) == []
    assert problems(row(BROTHER_OF_BROTHER_IN_LAW, shown, "sufficient", ["Arlen Kohen"])) == [
        "labelled sufficient, but the documents prove no answer: the documents leave its premise open"
    ]


def test_siblings_through_a_shared_parent_and_spouses_through_a_shared_child():
    # neither Damion's nor Eve's article is shown: Coleman's names both as his children, so they are siblings, and
    # Jodi's names his mother Eve: Jodi is Damion's nephew, and Jodi's own article lists his brothers
    question = "Who is the brother of Damion Kohen's nephew Jodi Ozaki?"
    assert problems(row(question, ["Coleman Kohen", "Jodi Ozaki"], "sufficient", ["Ross Ozaki"])) == []
    # Jodi's article names his mother Eve and his father Hank: so Hank is Eve's husband, and Coleman's son-in-law
    shown = Shown.of(read_document(ARTICLES[name]) for name in ("Coleman Kohen", "Jodi Ozaki"))
    son_in_law = RelationPremise("Coleman Kohen", relations()["son-in-law"], "Hank Ozaki")
    assert premise_status(shown, son_in_law) == "confirmed"
    assert premise_status(Shown.of([read_document(ARTICLES["Coleman Kohen"])]), son_in_law) == "open"


def test_a_list_is_complete_only_in_the_persons_own_article():
    # Newton's article names his father Arlen, but only Arlen's own article says Newton is his only son
    question = "Who is the son of the brother of Damion Kohen?"
    shown = ["Damion Kohen", "Newton Kohen"]
    assert problems(row(question, shown, "insufficient", missing_role="bridge")) == []
    assert problems(row(question, shown, "sufficient", ["Newton Kohen"])) == [
        "labelled sufficient, but the documents prove no answer: the child list of Arlen Kohen is needed and "
        "Arlen Kohen's article is not shown"
    ]
    assert problems(row(question, [*shown, "Arlen Kohen"], "sufficient", ["Newton Kohen"])) == []


def test_a_false_relation_premise_is_refuted_by_complete_lists_only():
    question = "Who is the brother of Hank Ozaki's brother-in-law Coleman Kohen?"  # Coleman is Eve's father
    kind = {"unanswerable_kind": "false_premise_relation"}
    assert problems(row(question, ["Hank Ozaki", "Eve Ozaki", "Coleman Kohen"], "unanswerable", **kind)) == []
    # without Eve's article her siblings are not known to be all of them: the premise is not refuted
    assert problems(row(question, ["Hank Ozaki", "Coleman Kohen"], "unanswerable", **kind)) == [
        "labelled false_premise_relation, but the documents leave its premise open"
    ]


def test_attribute_premises_by_the_persons_own_article():
    lives = "Who is the brother of Damion Kohen (who lives in Oslo)?"  # his article says Paris
    born = "Who is the brother of Damion Kohen (who was born in Oslo)?"  # his article states no place of birth
    shown = ["Damion Kohen", "Luann Osdoba"]
    assert problems(row(lives, shown, "unanswerable", unanswerable_kind="false_premise_attribute")) == []
    assert problems(row(born, shown, "unanswerable", unanswerable_kind="uncertain_specificity")) == []
    assert problems(row(born, shown, "unanswerable", unanswerable_kind="false_premise_attribute")) == [
        "labelled false_premise_attribute, but the documents show the person's own article, which states no value of "
        "its premise's kind"
    ]
    assert problems(row(lives, ["Luann Osdoba"], "unanswerable", unanswerable_kind="false_premise_attribute")) == [
        "labelled false_premise_attribute, but the documents leave its premise open"
    ]
    confirmed = "Who is the brother of Damion Kohen (who lives in Paris)?"
    assert problems(row(confirmed, shown, "sufficient", ["Arlen Kohen"])) == []


def test_a_nonexistent_person_is_named_by_no_document():
    question = "Who is the brother of Damion Ozaki?"
    kind = {"unanswerable_kind": "nonexistent_person"}
    assert problems(row(question, ["Damion Kohen", "Hank Ozaki"], "unanswerable", **kind)) == []
    assert problems(row("Who is the brother of Jodi Ozaki?", ["Hank Ozaki"], "unanswerable", **kind)) == [
        "labelled nonexistent_person, but the documents name Jodi Ozaki"
    ]


def test_count_questions_prove_the_count():
    question = "How many brothers does the father of Eve Ozaki have?"  # Coleman: none listed
    assert problems(row("How many brothers does Damion Kohen have?", ["Damion Kohen"], "sufficient", ["1"])) == []
    assert problems(row("How many brothers does Eve Ozaki have?", ["Eve Ozaki"], "sufficient", ["1"])) == [
        "labelled sufficient with the answer [1], but the documents prove [2]"
    ]
    assert problems(row(question, ["Eve Ozaki", "Coleman Kohen"], "sufficient", ["0"])) == []
    assert problems(row(question, ["Eve Ozaki"], "insufficient", missing_role="answer")) == []


def test_an_attribute_start_needs_the_closed_world_count():
    question = "Who is the wife of the person whose hobby is tango?"
    told = "In this universe, exactly 1 person has the hobby tango."
    assert problems(row(question, ["Hank Ozaki"], "sufficient", ["Eve Ozaki"], closed_world=told)) == []
    assert problems(row(question, ["Hank Ozaki"], "sufficient", ["Eve Ozaki"])) == [
        "labelled sufficient, but the documents prove no answer: nothing says how many people have the hobby "
        "tango (no closed-world sentence)"
    ]
    two = "In this universe, exactly 2 people have the hobby tango."
    assert problems(row(question, ["Hank Ozaki"], "insufficient", closed_world=two, missing_role="anchor")) == []


def test_multiple_choice_needs_exactly_one_correct_option_and_it_gold():
    options = ["Arlen Kohen", "Unanswerable", "Newton Kohen, Arlen Kohen"]
    fine = row("Who is the brother of Damion Kohen?", ["Damion Kohen"], "sufficient", ["Arlen Kohen"])
    assert problems({**fine, "answer_options": options, "gold_answer_idx": 0}) == []
    assert problems({**fine, "answer_options": options, "gold_answer_idx": 1}) == [
        "gold_answer_idx 1 ('Unanswerable') is not the option Arlen Kohen (option 0)"
    ]
    twice = [*options, "Arlen Kohen"]
    assert problems({**fine, "answer_options": twice, "gold_answer_idx": 0}) == [
        "2 options are correct (the option Arlen Kohen; at [0, 3])"
    ]
    refused = row("Who is the son of the brother of Damion Kohen?", ["Damion Kohen"], "insufficient")
    assert problems({**refused, "answer_options": options, "gold_answer_idx": 1}) == []


def test_rag_rows_say_whether_the_retrieved_documents_prove_the_answer():
    retrieved = row("Who is the brother of Damion Kohen?", ["Damion Kohen"], "sufficient", ["Arlen Kohen"])
    assert problems({**retrieved, "retrieved_sufficient": True}, "rag") == []
    assert problems({**retrieved, "retrieved_sufficient": False}, "rag") == [
        "retrieved_sufficient is False, but the retrieved documents prove the answer [Arlen Kohen]"
    ]


def test_the_gold_answer_of_a_refused_row_is_the_deflection():
    refused = row("Who is the son of the brother of Damion Kohen?", ["Damion Kohen"], "insufficient", ["Newton Kohen"])
    assert problems(refused) == ["labelled insufficient, but its gold answer is [Newton Kohen], not the deflection"]
    assert DEFLECTION == ["insufficient information"]


def test_the_three_document_formats_read_alike():
    for name, text in ARTICLES.items():
        markdown = read_document(text)
        for other in (as_text(text), as_html(text)):
            again = read_document(other)
            assert (again.subject, again.lists, again.values, again.unread) == (
                name,
                markdown.lists,
                markdown.values,
                [],
            )


def test_documents_that_disagree_are_reported():
    wrong = ARTICLES["Newton Kohen"].replace("father of Newton Kohen is Arlen", "father of Newton Kohen is Damion")
    shown = row("Who is the brother of Damion Kohen?", ["Damion Kohen"], "sufficient", ["Arlen Kohen"])
    shown["documents"].append({"title": "Newton Kohen", "text": wrong})
    assert problems(shown) == [
        "documents show Newton Kohen in the child list of Damion Kohen, which Damion Kohen's own article leaves out"
    ]


def test_a_sibling_through_a_shared_parent_that_the_own_article_leaves_out_is_reported():
    without_damion = ARTICLES["Eve Ozaki"].replace(
        "brothers of Eve Ozaki are Arlen Kohen, Damion Kohen", "brother of Eve Ozaki is Arlen Kohen"
    )
    shown = row("Who is the husband of Eve Ozaki?", ["Coleman Kohen"], "sufficient", ["Hank Ozaki"])
    shown["documents"].append({"title": "Eve Ozaki", "text": without_damion})
    assert problems(shown) == [
        "documents show Damion Kohen in the sibling list of Eve Ozaki, which Eve Ozaki's own article leaves out"
    ]


def test_the_articles_a_proof_reads_are_cited():
    question = "Who is the son of the brother of Damion Kohen?"
    proven = row(question, ["Luann Osdoba", "Damion Kohen", "Arlen Kohen"], "sufficient", ["Newton Kohen"])
    assert problems({**proven, "citations": [1, 2]}) == []
    assert problems({**proven, "citations": [0, 1]}) == [
        "the proof reads the articles of Arlen Kohen, which its citations leave out"
    ]
    assert problems({**proven, "citations": [1, 3]}) == [
        "its citations hold 3, which is not the position of one of its documents"
    ]


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ({"question": None}, "its question is not a string"),
        ({"documents": "Hank Ozaki"}, "its documents are not a list of texts (or of {title, text})"),
        ({"documents": [{"title": "Hank Ozaki"}]}, "its documents are not a list of texts (or of {title, text})"),
        ({"answer_options": [1, 2]}, "its answer_options are not a list of strings"),
        ({"answer": "Arlen Kohen"}, "its answer is not a list of strings"),
    ],
)
def test_a_damaged_row_is_one_problem_not_an_error(damage, said):
    fine = row("Who is the brother of Damion Kohen?", ["Damion Kohen"], "sufficient", ["Arlen Kohen"])
    assert problems(fine) == []
    assert problems({**fine, **damage}) == [said]


def test_a_question_outside_the_grammar_is_one_problem():
    odd = row("Who is the favourite cousin of Damion Kohen?", ["Damion Kohen"], "sufficient", ["Arlen Kohen"])
    assert problems(odd) == ["cannot read the start 'the favourite cousin of Damion Kohen'"]
