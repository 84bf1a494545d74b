"""One table of tools (phantom_env.tools.TOOLS) is what calls, schemas, prompts and the baselines read; a function
call whose JSON arguments do not fit the schema is an error observation that names what the tool takes."""

from __future__ import annotations

import json

import datasets
import pytest

from leakproof_qa.phantom_env.baselines import OracleModel
from leakproof_qa.phantom_env.runner import Task, prompt, run_episode
from leakproof_qa.phantom_env.tools import (
    INVALID,
    NO_SEARCH,
    TOOLS,
    Corpus,
    Episode,
    ToolArgumentError,
    argument_of,
    schemas,
    tool_names,
)
from tests.env.test_tools import AIDA, AIDA_SHOWN, CORPUS, RYAN


def test_each_schema_is_derived_from_its_methods_typed_signature():
    for tool in TOOLS:
        (schema,) = [s for variant in tool.variants for s in schemas(variant) if s["function"]["name"] == tool.name][:1]
        parameters = schema["function"]["parameters"]
        assert list(parameters["properties"]) == parameters["required"] == [tool.argument]
        assert parameters["additionalProperties"] is False
        expected = "array" if tool.name == "Finish" else "string"
        assert parameters["properties"][tool.argument]["type"] == expected
    assert [t.argument for t in TOOLS] == ["entity", "attribute", "entity", "keyword", "answer"]


def test_names_schemas_and_prompts_list_the_same_tools_in_the_same_order():
    for variant in INVALID:
        names = tool_names(variant)
        assert [s["function"]["name"] for s in schemas(variant)] == list(names)
        react = prompt("react", variant)
        assert [react.index(f") {name}[") for name in names] == sorted(react.index(f") {name}[") for name in names)
        assert all(name in prompt("tools", variant) for name in names)
    assert (
        "Lookup" not in prompt("react", "atomic")
        and "RetrieveArticle[" not in prompt("react", "bm25").split("(START OF EXAMPLES)")[0]
    )


@pytest.mark.parametrize(
    "tool, arguments, message",
    [
        ("Search", {"query": "meditation"}, 'Search takes {"attribute": <a string>}; got "query".'),
        ("Search", {}, 'Search takes {"attribute": <a string>}; got no arguments.'),
        ("Search", {"attribute": "x", "limit": 3}, 'got "attribute", "limit".'),
        ("Search", None, "got null."),
        ("Search", '{"attribute": "medit', "got text that is not JSON."),
        ("Search", '"meditation"', "got a string."),
        ("Search", "", "got no arguments."),
        ("Search", ["meditation"], "got a list."),
        ("Search", {"attribute": ["meditation"]}, '"attribute" is a list.'),
        ("Search", {"attribute": None}, '"attribute" is null.'),
        ("RetrieveArticle", {"name": "Aida Wang"}, 'RetrieveArticle takes {"entity": <a string>}; got "name".'),
        ("Finish", {"answers": ["Aida Wang"]}, 'Finish takes {"answer": <a list of strings>}; got "answers".'),
        ("Finish", {"answer": [{"name": "x"}]}, '"answer" holds an object.'),
        ("Finish", {"answer": [True]}, '"answer" holds a boolean.'),
    ],
)
def test_arguments_that_miss_the_schemas_key_are_an_error_observation_naming_it(tool, arguments, message):
    argument, observation = Episode(CORPUS).call_arguments(tool, arguments)
    assert observation.text.startswith("Invalid arguments: ") and observation.text.endswith(message)
    assert argument == "" and not observation.finished and "\n" not in observation.text
    with pytest.raises(ToolArgumentError):
        argument_of(tool, arguments if isinstance(arguments, dict) else {"?": 1})


def test_arguments_that_fit_run_the_tool_as_the_text_protocol_would():
    episode = Episode(CORPUS)
    assert episode.call_arguments("RetrieveArticle", {"entity": "Aida Wang"}) == (
        "aida wang",
        episode.call("RetrieveArticle", "aida wang"),
    )
    assert episode.call_arguments("RetrieveArticle", {"entity": "Aida Wang"})[1].text == AIDA_SHOWN
    assert episode.call_arguments("Search", {"attribute": "tango"})[1].text == NO_SEARCH
    argument, finish = episode.call_arguments("Finish", {"answer": ["Ann Lee", 3]})
    assert argument == "ann lee,3" and finish.finished and finish.answer == ["ann lee", "3"]
    assert episode.call_arguments("Finish", {"answer": "Ann Lee, Bo Li"})[1].answer == ["ann lee", "bo li"]
    assert episode.call_arguments("Lookup", {"keyword": "x"})[1].text == INVALID["atomic"]  # not an atomic tool


def test_the_runner_shows_the_error_and_the_agent_can_correct_itself():
    task = Task("q1", "Who has the hobby meditation?", ["Aida Wang", "Ryan Wang"], ["hobby(X, 'meditation')"], [])

    class WrongKeyThenRight:
        def complete(self, messages, tools=None, stop=None):
            calls = sum(len(m.get("tool_calls") or []) for m in messages if m["role"] == "assistant")
            name, arguments = [
                ("Search", {"query": "meditation"}),
                ("Search", {"attribute": "meditation"}),
                ("Finish", {"answer": ["Aida Wang", "Ryan Wang"]}),
            ][calls]
            call = {
                "id": f"c{calls}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            return {"message": {"role": "assistant", "content": None, "tool_calls": [call]}, "usage": {}}

    trajectory = run_episode(WrongKeyThenRight(), CORPUS, task, mode="tools")
    observations = [call["observation"] for call in trajectory["tool_calls"]]
    assert observations[0] == 'Invalid arguments: Search takes {"attribute": <a string>}; got "query".'
    assert observations[1] == "(1) Aida Wang  (2) Ryan Wang" and trajectory["f1"] == 1.0


def test_the_oracle_writes_its_arguments_from_the_table():
    task = Task("q1", "Who is the friend of Aida Wang?", ["Ryan Wang"], ["friend('Aida Wang', X)"], ["Aida Wang"])
    trajectory = run_episode(OracleModel([task]), CORPUS, task, mode="tools")
    assert [c["tool"] for c in trajectory["tool_calls"]] == ["RetrieveArticle", "Finish"] and trajectory["f1"] == 1.0


def test_an_episode_takes_the_corpus_subset_as_load_dataset_gives_it():
    rows = datasets.Dataset.from_dict({"title": ["Aida Wang", "Ryan Wang"], "article": [AIDA, RYAN], "facts": [[], []]})
    episode = Episode(rows)
    assert episode.call("RetrieveArticle", "aida wang").text == AIDA_SHOWN
    assert episode.call("Search", "meditation").text == "(1) Aida Wang  (2) Ryan Wang"
    assert isinstance(episode.corpus, Corpus)
    with pytest.raises(TypeError, match="Episode needs a Corpus or the corpus subset"):
        Episode(datasets.Dataset.from_dict({"question": ["x"]}))
    with pytest.raises(TypeError, match="got list"):
        Episode([("Aida Wang", AIDA)])
