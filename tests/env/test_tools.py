"""The agent tools give the reference's observations (kilian-group/phantom-wiki, src/phantom_eval/agents/), byte for
byte."""

from __future__ import annotations

import pytest

from leakproof_qa.phantom_env.tools import (
    NO_ARTICLE,
    NO_BM25,
    NO_CURRENT,
    NO_SEARCH,
    Corpus,
    Episode,
    argument_of,
    format_pred,
    parse_action,
    schemas,
)

AIDA = (
    "# Aida Wang\n\n## Family\nThe sisters of Aida Wang are Barabara Beltran, Vicki Hackworth.\n"
    "The mother of Aida Wang is Shelli Beltran.\n\n## Friends\nThe friend of Aida Wang is Ryan Wang.\n\n"
    "## Attributes\nThe date of birth of Aida Wang is 0985-05-30.\nThe occupation of Aida Wang is personal assistant.\n"
    "The hobby of Aida Wang is meditation.\nThe gender of Aida Wang is female.\n"
)
RYAN = (
    "# Ryan Wang\n\n## Family\n\n\n## Friends\nThe friend of Ryan Wang is Aida Wang.\n\n"
    "## Attributes\nThe occupation of Ryan Wang is c++ programmer.\nThe hobby of Ryan Wang is meditation.\n"
)
CORPUS = Corpus([("Aida Wang", AIDA), ("Ryan Wang", RYAN)])
AIDA_SHOWN = (
    "# Aida Wang  ## Family The sisters of Aida Wang are Barabara Beltran, Vicki Hackworth. The mother of Aida "
    "Wang is Shelli Beltran.  ## Friends The friend of Aida Wang is Ryan Wang.  ## Attributes The date of "
    "birth of Aida Wang is 0985-05-30. The occupation of Aida Wang is personal assistant. The hobby of Aida "
    "Wang is meditation. The gender of Aida Wang is female."
)


@pytest.mark.parametrize(
    "tool, argument, observation",
    [
        (
            "RetrieveArticle",
            "aida wang",
            AIDA_SHOWN,
        ),  # the reference lower-cases the argument; titles compare lower-cased
        ("RetrieveArticle", "AIDA WANG", AIDA_SHOWN),
        ("RetrieveArticle", "ivana smith", NO_ARTICLE),
        (
            "Search",
            "meditation",
            "(1) Aida Wang  (2) Ryan Wang",
        ),  # "(i) title" joined by a blank line, newlines -> spaces
        ("Search", "personal assistant", "(1) Aida Wang"),
        ("Search", "c++", "(1) Ryan Wang"),  # a plain string (the reference's regex would fail on "c++")
        ("Search", "tango", NO_SEARCH),
        (
            "Lookup",
            "x",
            "Invalid action. Valid actions are RetrieveArticle[{{entity}}], Search[{{attribute}}], and "
            "Finish[{{answer}}].",
        ),
    ],
)
def test_the_atomic_tools_observe_what_the_reference_observes(tool, argument, observation):
    assert Episode(CORPUS).call(tool, argument).text == observation


def test_the_reference_texts_are_its_own():
    assert NO_ARTICLE == "No article exists for the requested entity. Please try retrieving article for another entity."
    assert NO_SEARCH == "No articles contain the requested attribute. Please try searching for another attribute."
    assert format_pred("\n# A\n\nThe x.\n") == "# A  The x."


def test_the_bm25_variant_finds_a_title_else_the_two_best_articles_and_looks_up_sentences_in_order():
    episode = Episode(CORPUS, "bm25")
    assert episode.lookup("friend") == NO_CURRENT
    assert episode.call("Search", "ryan wang").text == format_pred(RYAN)
    assert episode.call("Lookup", "hobby").text == (  # sentence 3 and the two before it (headings join a sentence)
        "# Ryan Wang ## Family ## Friends The friend of Ryan Wang is Aida Wang. ## Attributes The occupation of Ryan "
        "Wang is c++ programmer. The hobby of Ryan Wang is meditation."
    )
    assert episode.call("Lookup", "hobby").text == "No more occurrences of 'hobby' found after sentence 3."
    assert episode.call("Lookup", "tango").text == "No occurrences of 'tango' found in the current article."
    fallback = episode.call("Search", "personal assistant meditation").text
    assert fallback == format_pred(AIDA + "\n" + RYAN)  # the BM25 top-2, best first, joined by a newline
    assert episode.retrieved == ["Ryan Wang", "Aida Wang", "Ryan Wang"]
    assert Episode(Corpus([("A", "# A\n")]), "bm25").call("Search", "zzz").text in (NO_BM25, format_pred("# A\n"))
    assert episode.call("RetrieveArticle", "aida wang").text.startswith("Invalid action. Valid actions are Search[")


@pytest.mark.parametrize(
    "text, action",
    [
        ("Thought 1: I need Aida.\nAction 1: RetrieveArticle[Aida Wang].", ("RetrieveArticle", "aida wang")),
        ("Finish[Barabara Beltran,Vicki Hackworth]", ("Finish", "barabara beltran,vicki hackworth")),
        ("Finish[]", ("Finish", "")),
        ("I am not sure.", None),
    ],
)
def test_an_action_is_the_first_tool_and_bracketed_argument_lower_cased(text, action):
    assert parse_action(text) == action


def test_finish_ends_the_episode_with_its_answers():
    observation = Episode(CORPUS).call("Finish", "barabara beltran, vicki hackworth")
    assert observation.finished and observation.answer == ["barabara beltran", "vicki hackworth"]
    assert Episode(CORPUS).call("Finish", "").answer == []


def test_every_tool_is_an_openai_function_schema_with_its_argument():
    for variant, names in (
        ("atomic", ["RetrieveArticle", "Search", "Finish"]),
        ("bm25", ["Search", "Lookup", "Finish"]),
    ):
        tools = schemas(variant)
        assert [t["function"]["name"] for t in tools] == names
        for tool in tools:
            assert tool["type"] == "function" and tool["function"]["description"]
            parameters = tool["function"]["parameters"]
            assert parameters["type"] == "object" and set(parameters["required"]) <= set(parameters["properties"])
    assert argument_of("RetrieveArticle", {"entity": "Aida Wang"}) == "aida wang"
    assert argument_of("Finish", {"answer": ["Ann Lee", "Bo Li"]}) == "ann lee,bo li"
    assert argument_of("Lookup", {"keyword": "Hobby"}, "bm25") == "hobby"
