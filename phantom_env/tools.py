"""The PhantomWiki paper's agent tools over one universe's articles, with the reference's observations.

Semantics read from the reference (kilian-group/phantom-wiki, src/phantom_eval/agents/react.py and
react_bm25.py); the observation texts are the reference's, byte for byte:
  * RetrieveArticle[entity]: the article whose title equals the entity, case-insensitive (the first, in
    corpus order), with newlines turned into spaces; else NO_ARTICLE;
  * Search[attribute]: the titles of every article whose text contains the attribute, case-insensitive,
    as "(1) Title  (2) Title" (the reference joins "(i) title" with blank lines, then turns newlines into
    spaces); else NO_SEARCH. The reference matches a regular expression (pandas' default); this matches
    the plain string, so a search for "c++" or "(" is not an error;
  * the BM25 variant: Search[entity] = the article with that exact title (stripped of quotes,
    case-insensitive), else the BM25 top-2 articles of the entity text (our BM25+, as our RAG) joined by a
    newline, else NO_BM25; Lookup[keyword] = the next sentence of the current article holding the
    keyword, with two sentences either side. (The reference computes that context but shows only its
    status line, "Found match in sentence i of n"; the text is what an agent needs. Its error lines are
    the reference's.) Sentences are split at a full stop followed by white space, where the reference
    uses NLTK's Punkt tokenizer; for these articles the two agree;
  * Finish[answer, ...]: ends the episode with that answer (the reference lower-cases every argument).
One table of tools (`TOOLS`: name, variants, description, the Episode method) is what every face reads: `call`,
`tool_names`, the JSON function schemas (derived from each method's typed signature), the prompts' tool lists, the
oracle's arguments, the MCP server and the verifiers environment. Adding a tool is one method and one row.
"""

from __future__ import annotations

import bisect
import inspect
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any, get_type_hints

from leakproof_qa.builders.checks import is_whole
from leakproof_qa.builders.retrieval import Bm25Index

NO_ARTICLE = "No article exists for the requested entity. Please try retrieving article for another entity."
NO_SEARCH = "No articles contain the requested attribute. Please try searching for another attribute."
NO_BM25 = "No article found with BM25 search."
NO_CURRENT = "No article currently loaded. Please search for an article first."
INVALID = {
    "atomic": "Invalid action. Valid actions are RetrieveArticle[{{entity}}], Search[{{attribute}}], and "
    "Finish[{{answer}}].",
    "bm25": "Invalid action. Valid actions are Search[{{attribute}}], Lookup[{{keyword}}], and Finish[{{answer}}].",
}
BM25_K = 2  # the reference's search_title_bm25 default
_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=\S)")
_ACTION = re.compile(r"(\w+)\[(.*?)\]", re.DOTALL)
_PLACEHOLDER = re.compile(r"\{+\w*\}+")


def format_pred(text: str) -> str:
    """The reference's observation format: outer newlines and spaces stripped, inner newlines turned into spaces."""
    return text.strip("\n").strip().replace("\n", " ")


def parse_action(text: str, step: int | None = None) -> tuple[str, str] | None:
    """(tool, argument) of the first `Tool[argument]` in a model's text, the argument lower-cased as the reference
    does.

    With `step`, the action is the one the runner asked for: the first after the text's first `Action {step}:` when
    it writes one, and never a `Tool[{placeholder}]` (the prompt's tool list, which a weak model echoes before or
    instead of acting: `RetrieveArticle[{entity}]` is no call)."""
    if step is not None:
        label = re.search(rf"\bAction\s+{step}\s*:", text)
        text = text[label.end() :] if label else text
    for match in _ACTION.finditer(text):
        argument = match.group(2)
        if step is not None and _PLACEHOLDER.fullmatch(argument.strip()):
            continue
        return match.group(1), argument.lower()
    return None


def split_sentences(text: str) -> list[str]:
    """An article's sentences, white space folded (the unit of Lookup)."""
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


class Corpus:
    """One universe's articles, indexed once for every episode: titles, lower-cased texts, BM25 (on first use)."""

    def __init__(self, articles: Sequence[tuple[str, str]]) -> None:
        self.titles = [title for title, _ in articles]
        self.texts = [text for _, text in articles]
        self.by_title: dict[str, int] = {}
        for position, title in enumerate(self.titles):
            self.by_title.setdefault(title.lower(), position)
        # Search scans one lower-cased string; an offset maps back to its article.
        self._haystack = "\x00".join(text.lower() for text in self.texts)
        self._starts, start = [], 0
        for text in self.texts:
            self._starts.append(start)
            start += len(text) + 1
        self._bm25: Bm25Index | None = None

    @classmethod
    def from_generated(cls, generated: Any) -> Corpus:
        """The corpus of a generated universe (builders.phantomwiki.rows.Generated)."""
        return cls([(article.title, article.article) for article in generated.articles])

    def retrieve(self, entity: str) -> int | None:
        """The position of the article titled `entity` (case-insensitive), or None."""
        return self.by_title.get(entity.lower())

    def containing(self, text: str) -> list[int]:
        """Positions of the articles whose text contains `text` (case-insensitive), in corpus order."""
        needle = text.lower()
        if not needle or "\x00" in needle:
            return list(range(len(self.texts))) if not needle else []
        found: list[int] = []
        at = self._haystack.find(needle)
        while at != -1:
            position = bisect.bisect_right(self._starts, at) - 1
            found.append(position)
            at = self._haystack.find(
                needle, self._starts[position + 1] if position + 1 < len(self._starts) else len(self._haystack)
            )
        return found

    def bm25(self, text: str, k: int) -> list[int]:
        """The BM25 top-k article positions for a text (our BM25+, built on first use)."""
        if self._bm25 is None:
            self._bm25 = Bm25Index(self.texts)
        return [int(i) for i in self._bm25.retrieve([text], k)[0]]


@dataclass
class Observation:
    """What a tool call returns: the text the agent sees, and the answer when the call was Finish."""

    text: str
    finished: bool = False
    answer: list[str] = field(default_factory=list)


class Episode:
    """The tools of one episode (one question): stateless atomic tools, and Lookup's current article for the BM25
    variant. `corpus` is a Corpus, or the corpus subset as `load_dataset` gives it (rows with title and article)."""

    def __init__(self, corpus: Corpus | Any, variant: str = "atomic") -> None:
        tools = tools_of(variant)  # refuses an unknown variant before the corpus is looked at
        self.corpus = as_corpus(corpus)
        self.variant = variant
        self.tools = {tool.name: tool for tool in tools}
        self.retrieved: list[str] = []  # titles of the articles shown, in order
        self._sentences: list[str] | None = None
        self._lookup: tuple[str | None, int] = (None, -1)

    def retrieve_article(self, entity: str) -> str:
        """RetrieveArticle[entity]."""
        position = self.corpus.retrieve(entity)
        if position is None:
            return NO_ARTICLE
        self.retrieved.append(self.corpus.titles[position])
        return format_pred(self.corpus.texts[position])

    def search(self, attribute: str) -> str:
        """Search[attribute] (atomic variant): the titles of the articles containing it."""
        found = self.corpus.containing(attribute)
        if not found:
            return NO_SEARCH
        return format_pred("\n\n".join(f"({i + 1}) {self.corpus.titles[p]}" for i, p in enumerate(found)))

    def search_bm25(self, entity: str) -> str:
        """Search[entity] (BM25 variant): the exact title, else the BM25 top-2; it becomes Lookup's current article."""
        position = self.corpus.retrieve(entity.strip().strip('"'))
        positions = [position] if position is not None else self.corpus.bm25(entity, BM25_K)
        if not positions:
            self._sentences, self._lookup = None, (None, -1)
            return NO_BM25
        article = "\n".join(self.corpus.texts[p] for p in positions)
        self.retrieved += [self.corpus.titles[p] for p in positions]
        self._sentences, self._lookup = split_sentences(article), (None, -1)
        return format_pred(article)

    def lookup(self, keyword: str) -> str:
        """Lookup[keyword] (BM25 variant): the next sentence of the current article holding it, in context."""
        if not self._sentences:
            return NO_CURRENT
        last = self._lookup[1] if self._lookup[0] == keyword else -1
        for i in range(last + 1, len(self._sentences)):
            if keyword.lower() in self._sentences[i].lower():
                self._lookup = (keyword, i)
                return format_pred(" ".join(self._sentences[max(0, i - 2) : i + 3]))
        self._lookup = (keyword, last)
        if last == -1:
            return f"No occurrences of '{keyword}' found in the current article."
        return f"No more occurrences of '{keyword}' found after sentence {last + 1}."

    def finish(self, answer: list[str]) -> Observation:
        """Finish[answer, ...]: ends the episode with these answers."""
        return Observation("", finished=True, answer=[a.strip() for a in answer if a.strip()])

    def call(self, tool: str, argument: str) -> Observation:
        """Run one tool by name with the text protocol's argument (`Tool[argument]`; Search means the variant's
        search); a tool the variant lacks gives the reference's invalid-action observation."""
        found = self.tools.get(tool)
        return found.run(self, argument) if found else Observation(INVALID[self.variant])

    def call_arguments(self, tool: str, arguments: Any) -> tuple[str, Observation]:
        """Run one tool from a function call's JSON arguments (decoded, or their text): (the argument as the text
        protocol reads it,
        the observation). Arguments that do not match the tool's schema give an error observation naming what it
        takes, and run nothing."""
        found = self.tools.get(tool)
        if found is None:
            return "", Observation(INVALID[self.variant])
        try:
            argument = found.argument_text(arguments)
        except ToolArgumentError as error:
            return "", Observation(str(error))
        return argument, found.run(self, argument)


def as_corpus(corpus: Corpus | Any) -> Corpus:
    """A Corpus as it is, or one made from rows with `title` and `article` (the corpus subset from `load_dataset`)."""
    if isinstance(corpus, Corpus):
        return corpus
    columns = getattr(corpus, "column_names", None)
    if columns is None or not {"title", "article"} <= set(columns):
        raise TypeError(
            f"Episode needs a Corpus or the corpus subset (a Dataset with title and article columns, e.g. "
            f"load_dataset('n500_s1_corpus', split='test')); got {type(corpus).__name__}"
        )
    return Corpus(list(zip(corpus["title"], corpus["article"])))


class ToolArgumentError(ValueError):
    """A function call's arguments do not match the tool's schema; the message is the observation the agent sees."""


_JSON_TYPES: dict[Any, tuple[dict[str, Any], str]] = {  # a parameter's type -> its JSON schema, and in words
    str: ({"type": "string"}, "a string"),
    int: ({"type": "integer"}, "an integer"),
    list[str]: ({"type": "array", "items": {"type": "string"}}, "a list of strings"),
}


@cache
def typed_parameters(method: Callable[..., Any]) -> dict[str, tuple[Any, bool]]:
    """A tool function's parameters (self aside): name -> (type, whether it must be given)."""
    hints = get_type_hints(method)
    return {
        name: (hints[name], parameter.default is inspect.Parameter.empty)
        for name, parameter in inspect.signature(method).parameters.items()
        if name != "self"
    }


def function_schema(name: str, description: str, method: Callable[..., Any], helps: dict[str, str]) -> dict[str, Any]:
    """A tool function as a JSON function schema in the OpenAI tools format, derived from its typed signature."""
    parameters = typed_parameters(method)
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {
                    key: {**_JSON_TYPES[kind][0], "description": helps[key]} for key, (kind, _) in parameters.items()
                },
                "required": [key for key, (_, required) in parameters.items() if required],
                "additionalProperties": False,
            },
        },
    }


def bind_arguments(name: str, method: Callable[..., Any], arguments: Any) -> dict[str, Any]:
    """A function call's JSON arguments (decoded, or the text of a JSON object) checked against the tool function's
    typed signature: the keyword arguments to call it with (numbers read as text where text is asked), or
    ToolArgumentError naming what it takes."""
    parameters = typed_parameters(method)
    shape = ", ".join(f'"{key}": <{_JSON_TYPES[kind][1]}>' for key, (kind, _) in parameters.items())
    expected = f"{name} takes {{{shape}}}"
    if isinstance(arguments, str):  # a call's arguments as the wire holds them: JSON text
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            raise ToolArgumentError(f"Invalid arguments: {expected}; got text that is not JSON.") from None
    if not isinstance(arguments, dict):
        raise ToolArgumentError(f"Invalid arguments: {expected}; got {_json_kind(arguments)}.")
    missing = [key for key, (_, required) in parameters.items() if required and key not in arguments]
    if missing or not set(arguments) <= set(parameters):
        got = ", ".join(f'"{key}"' for key in arguments) or "no arguments"
        raise ToolArgumentError(f"Invalid arguments: {expected}; got {got}.")
    bound: dict[str, Any] = {}
    for key, value in arguments.items():
        kind = parameters[key][0]
        if kind is int:
            if not is_whole(value):
                raise ToolArgumentError(f'Invalid arguments: {expected}; "{key}" is {_json_kind(value)}.')
            bound[key] = value
            continue
        values = value if kind == list[str] and isinstance(value, list) else [value]
        for item in values:  # numbers are read as text (a count); anything else is not an answer or a name
            if not isinstance(item, (str, int, float)) or isinstance(item, bool):
                held = "is" if item is value else "holds"
                raise ToolArgumentError(f'Invalid arguments: {expected}; "{key}" {held} {_json_kind(item)}.')
        bound[key] = [str(item) for item in values] if kind == list[str] else str(value)
    return bound


@dataclass(frozen=True)
class Tool:
    """One agent tool: its name in both protocols, the variants that offer it, what it does (for the schema and the
    prompts), and the Episode method that runs it. The method takes one typed parameter, which names the JSON key."""

    name: str
    variants: tuple[str, ...]
    description: str
    argument_help: str
    prompt: str  # the tools prompt's phrase
    react: str  # the ReAct prompt's action line
    method: Callable[..., str | Observation]

    @cached_property
    def argument(self) -> str:
        """The JSON key of the tool's one argument: the method's parameter name."""
        (name,) = typed_parameters(self.method)
        return name

    @cached_property
    def takes_list(self) -> bool:
        """Whether the argument is a list of strings (Finish) rather than one string."""
        return typed_parameters(self.method)[self.argument][0] == list[str]

    def schema(self) -> dict[str, Any]:
        """The tool as a JSON function schema in the OpenAI tools format, from the method's typed signature."""
        return function_schema(self.name, self.description, self.method, {self.argument: self.argument_help})

    def argument_text(self, arguments: Any) -> str:
        """A function call's JSON arguments as the text protocol's argument (a list joined by commas), lower-cased
        as the reference lower-cases every argument; ToolArgumentError when they do not fit the schema."""
        value = bind_arguments(self.name, self.method, arguments)[self.argument]
        return (",".join(value) if self.takes_list else value).lower()

    def arguments_of(self, text: str) -> dict[str, Any]:
        """The JSON arguments of a text argument (the inverse of `argument_text`, case aside): for a model that
        writes tool calls, as the oracle does."""
        return {self.argument: [a for a in text.split(",") if a] if self.takes_list else text}

    def run(self, episode: Episode, argument: str) -> Observation:
        """Run the tool on a text argument (a list argument is split at commas)."""
        result = self.method(episode, argument.split(",") if self.takes_list else argument)
        return result if isinstance(result, Observation) else Observation(result)


def _json_kind(value: Any) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return next((name for kind, name in kinds.items() if isinstance(value, kind)), "a number")


VARIANTS = tuple(INVALID)
TOOLS: tuple[Tool, ...] = (
    Tool(
        "RetrieveArticle",
        ("atomic",),
        "Retrieve the article about a person by its exact title (case-insensitive).",
        "The person's full name, e.g. Aida Wang.",
        "RetrieveArticle gives a person's article, which lists all of their family, friends and attributes",
        "RetrieveArticle[{{entity}}]. This action retrieves the article about {{entity}} if it exists. If the article "
        "does not exist, the action will say so.",
        Episode.retrieve_article,
    ),
    Tool(
        "Search",
        ("atomic",),
        "Search every article for a text and list the titles of the articles that contain it.",
        "The text to look for, e.g. a hobby or an occupation.",
        "Search lists the titles of the articles that contain a text",
        "Search[{{attribute}}]. This action searches the database for {{attribute}} and retrieves all articles that "
        "contain {{attribute}}. If no article contains {{attribute}}, the action will say so.",
        Episode.search,
    ),
    Tool(
        "Search",
        ("bm25",),
        "Retrieve the article with this exact title, or else the two articles BM25 ranks highest for it.",
        "A person's full name, or words to search for.",
        "Search gives the article with that exact title, or else the two articles BM25 ranks highest for the words",
        "Search[{{entity}}]. This action retrieves the article about {{entity}} if it exists, or else the two "
        "articles that match {{entity}} best.",
        Episode.search_bm25,
    ),
    Tool(
        "Lookup",
        ("bm25",),
        "The next sentence of the current article that holds the keyword, with two sentences either side.",
        "The word or words to find.",
        "Lookup gives the next sentence of the article Search last showed that holds a keyword, in context",
        "Lookup[{{keyword}}]. This action returns the next sentence containing {{keyword}} in the article the last "
        "Search retrieved, with the sentences around it.",
        Episode.lookup,
    ),
    Tool(
        "Finish",
        VARIANTS,
        "Answer the question and end. Give every answer; an empty list if you cannot find one, "
        "or the count for a 'How many' question.",
        'The answers, e.g. ["Ann Lee", "Bo Li"].',
        "Finish answers",
        "Finish[{{answer}}]. This action answers the question with {{answer}}.",
        Episode.finish,
    ),
)


def name_of(method: Callable[..., str | Observation]) -> str:
    """The name of the tool that runs this Episode method, from the table: other modules name a tool by what it does."""
    return next(tool.name for tool in TOOLS if tool.method is method)


FINISH = name_of(Episode.finish)
"""The tool that answers and ends an episode."""
RETRIEVING = frozenset(name_of(method) for method in (Episode.retrieve_article, Episode.search))
"""The tools that bring articles or their titles from the corpus (a run summary's retrieve_calls)."""


def tools_of(variant: str) -> tuple[Tool, ...]:
    """The tools of a variant, in the order the prompts list them."""
    if variant not in INVALID:
        raise ValueError(f"unknown tool variant {variant!r}; expected one of {', '.join(INVALID)}")
    return tuple(tool for tool in TOOLS if variant in tool.variants)


def tool_names(variant: str) -> tuple[str, ...]:
    """The names of a variant's tools, in the order the prompts list them."""
    return tuple(tool.name for tool in tools_of(variant))


def schemas(variant: str = "atomic") -> list[dict[str, Any]]:
    """The variant's tools as JSON function schemas in the OpenAI tools format."""
    return [tool.schema() for tool in tools_of(variant)]


def argument_of(name: str, arguments: dict[str, Any], variant: str = "atomic") -> str:
    """The text argument of a function call's JSON arguments (a list joined by commas), lower-cased; ToolArgumentError
    when they do not fit the tool's schema, ValueError for a tool the variant lacks."""
    tool = next((tool for tool in tools_of(variant) if tool.name == name), None)
    if tool is None:
        raise ValueError(f"the {variant} tools are {', '.join(tool_names(variant))}; got {name!r}")
    return tool.argument_text(arguments)


def prompt_tools(variant: str, style: str) -> str:
    """The tool list a prompt shows: `react`, the numbered actions of the paper's prompt; `tools`, one sentence."""
    tools = tools_of(variant)
    if style == "react":
        return f"Action can be {len(tools)} types:\n" + "\n".join(f"({i}) {t.react}" for i, t in enumerate(tools, 1))
    return "; ".join(tool.prompt for tool in tools if tool.name != FINISH) + "."
