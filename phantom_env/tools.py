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
    case-insensitive), else the BM25 top-2 articles of the entity text (bm25s, as our RAG) joined by a
    newline, else NO_BM25; Lookup[keyword] = the next sentence of the current article holding the
    keyword, with two sentences either side. (The reference computes that context but shows only its
    status line, "Found match in sentence i of n"; the text is what an agent needs. Its error lines are
    the reference's.) Sentences are split at a full stop followed by white space, where the reference
    uses NLTK's Punkt tokenizer; for these articles the two agree;
  * Finish[answer, ...]: ends the episode with that answer (the reference lower-cases every argument).
Each tool is a Python call and a JSON function schema in the OpenAI tools format (`schemas`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from builders.retrieval import Bm25Index

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

_DESCRIPTIONS = {
    "RetrieveArticle": (
        "Retrieve the article about a person by its exact title (case-insensitive).",
        "entity",
        "The person's full name, e.g. Aida Wang.",
    ),
    "Search": (
        "Search every article for a text and list the titles of the articles that contain it.",
        "attribute",
        "The text to look for, e.g. a hobby or an occupation.",
    ),
    "SearchBM25": (
        "Retrieve the article with this exact title, or else the two articles BM25 ranks highest for it.",
        "entity",
        "A person's full name, or words to search for.",
    ),
    "Lookup": (
        "The next sentence of the current article that holds the keyword, with two sentences either side.",
        "keyword",
        "The word or words to find.",
    ),
}


def format_pred(text: str) -> str:
    """The reference's observation format: outer newlines and spaces stripped, inner newlines turned into spaces."""
    return text.strip("\n").strip().replace("\n", " ")


def parse_action(text: str) -> tuple[str, str] | None:
    """(tool, argument) of the first `Tool[argument]` in a model's text, the argument lower-cased as the reference
    does."""
    match = _ACTION.search(text)
    return (match.group(1), match.group(2).lower()) if match else None


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
        """The corpus of a generated universe (builders.phantomwiki.generate.Generated)."""
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
        """The BM25 top-k article positions for a text (bm25s, built on first use)."""
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
    variant."""

    def __init__(self, corpus: Corpus, variant: str = "atomic") -> None:
        if variant not in INVALID:
            raise ValueError(f"unknown tool variant {variant!r}; expected one of {', '.join(INVALID)}")
        self.corpus = corpus
        self.variant = variant
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

    def call(self, tool: str, argument: str) -> Observation:
        """Run one tool by name (the text protocol's names: Search means the variant's search)."""
        if tool == "Finish":
            return Observation("", finished=True, answer=[a.strip() for a in argument.split(",") if a.strip()])
        if self.variant == "atomic" and tool == "RetrieveArticle":
            return Observation(self.retrieve_article(argument))
        if tool == "Search":
            return Observation(self.search(argument) if self.variant == "atomic" else self.search_bm25(argument))
        if self.variant == "bm25" and tool == "Lookup":
            return Observation(self.lookup(argument))
        return Observation(INVALID[self.variant])


def tool_names(variant: str) -> tuple[str, ...]:
    """The tools of a variant, in the order the prompts list them."""
    return ("RetrieveArticle", "Search", "Finish") if variant == "atomic" else ("Search", "Lookup", "Finish")


def schemas(variant: str = "atomic") -> list[dict[str, Any]]:
    """The variant's tools as JSON function schemas in the OpenAI tools format."""
    out = []
    for name in tool_names(variant):
        if name == "Finish":
            description = (
                "Answer the question and end. Give every answer; an empty list if you cannot find one, "
                "or the count for a 'How many' question."
            )
            parameters = {
                "type": "object",
                "properties": {
                    "answer": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": 'The answers, e.g. ["Ann Lee", "Bo Li"].',
                    }
                },
                "required": ["answer"],
            }
        else:
            key = "SearchBM25" if (name == "Search" and variant == "bm25") else name
            description, argument, help_text = _DESCRIPTIONS[key]
            parameters = {
                "type": "object",
                "properties": {argument: {"type": "string", "description": help_text}},
                "required": [argument],
            }
        out.append(
            {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
        )
    return out


def argument_of(name: str, arguments: dict[str, Any], variant: str = "atomic") -> str:
    """The text argument of a function call's JSON arguments (Finish's list joined by commas), lower-cased."""
    if name == "Finish":
        answer = arguments.get("answer", [])
        values = answer if isinstance(answer, list) else [answer]
        return ",".join(str(value) for value in values).lower()
    for schema in schemas(variant):
        if schema["function"]["name"] == name:
            (key,) = schema["function"]["parameters"]["required"]
            return str(arguments.get(key, "")).lower()
    return ""
