"""Rebuild NeoQA's instance sets (paper appendix E) from raw question and news rows.

Evidence semantics (appendix E, "best-effort approach based on NLI predictions"):

* an article *states* an outline item when the item is in its ``used_items`` and not in its
  ``unsure_evidences``; evidence is *sufficient* when every required item
  (``evidence_ids``) is stated by some article;
* an article *mentions* an item when the item is in ``used_items`` or ``unsure_evidences``;
  evidence is made *insufficient* for an item only by removing every article that
  mentions it, so that no remaining article might still convey it.

Sets (all articles come from the question's own timeline):

* ``neoqa`` (E.2): each answerable question (multi-hop, time-span) whose past articles
  (dated on or before the question date) are sufficient, with all of them, shuffled once;
  one insufficient variant per required item, removing every article that mentions it and
  keeping the order (variants that remove the same articles are merged, their items listed
  in ``missing_evidence_ids``); up to two false-premise and two uncertain-specificity
  children of the question, with the sufficient instance's documents.
* ``optimal-evidence`` (E.1): the minimal sufficient article set, chosen among the
  question record's ``sufficient_article_ids`` and ``all_sufficient_article_id_combinations``
  (each re-checked against the articles) preferring two articles, then one, then three or
  more, the record's own ``sufficient_article_ids`` winning ties; its one-article-removed
  variants (kept when the removed article leaves some required item unmentioned); the
  same children.
* ``context-ablation`` (E.3): questions whose minimal set has exactly two articles and at
  least 80 irrelevant past articles (mentioning no required item); the minimal set plus
  0, 20, 40, 60, 80 of them, each smaller sample a prefix of the larger and all shown in
  one fixed relative order; the one-article-removed variants and the children per size.

Randomness is explicit and seeded per question family: one ``builders.rng`` stream per
``(seed, purpose, question_family_id)``, whose shuffles and samples use only the draws Python
keeps stable across versions, so changing ``seed`` changes every shuffle and sample (unlike the
release's ``seed_int += seed_int``), and a family's answer options are in one order in every
instance and every set.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import filterfalse
from json.encoder import encode_basestring_ascii
from operator import attrgetter
from typing import Any, TypeVar

from leakproof_qa.builders.evidence import ABLATION_LEVELS
from leakproof_qa.builders.labels import INSUFFICIENT, SUFFICIENT, UNANSWERABLE
from leakproof_qa.builders.neoqa.release import ANSWERABLE_CATEGORIES, UNANSWERABLE_CATEGORIES
from leakproof_qa.builders.rng import shuffled, stream
from leakproof_qa.encryption.neoqa_codec import ReleaseFormatError

DEFLECTION_OPTION: str = "Unanswerable"
T = TypeVar("T")
ABLATION_SIZES: tuple[int, ...] = ABLATION_LEVELS  # the irrelevant-article counts of appendix E.3, shared
CHILDREN_PER_CATEGORY: int = 2
INSTANCE_SETS: tuple[str, ...] = ("neoqa", "optimal-evidence", "context-ablation")


@dataclass(frozen=True)
class Article:
    """What instance building needs to know about one news article."""

    article_id: str
    timeline_id: str
    date: str
    created_at: int
    used: frozenset[str]
    unsure: frozenset[str]

    def states(self, item: str) -> bool:
        """True when the article reports ``item`` and the NLI check agreed."""
        return item in self.used and item not in self.unsure

    def mentions(self, item: str) -> bool:
        """True when the article reports ``item`` or might (NLI disagreed)."""
        return item in self.used or item in self.unsure


def articles_from_rows(news_rows: Iterable[Mapping[str, Any]]) -> dict[str, Article]:
    """Index news rows by article id as ``Article`` objects."""
    return {
        row["article_id"]: Article(
            article_id=row["article_id"],
            timeline_id=row["timeline_id"],
            date=row["date"],
            created_at=row["created_at"],
            used=frozenset(row["used_items"]),
            unsure=frozenset(row["unsure_evidences"]),
        )
        for row in news_rows
    }


def family_shuffled(seed: int, purpose: str, family_id: str, items: Iterable[T]) -> list[T]:
    """`items` shuffled by the family's stream for `purpose` (builders.rng: the same order on every machine); one
    item or none needs no stream (a shuffle of them draws nothing), and most families' children are one a kind."""
    items = list(items)
    return shuffled(stream(seed, "neoqa", purpose, family_id), items) if len(items) > 1 else items


def plain_ids(ids: Iterable[str]) -> set[str]:
    """The ids whose JSON string is the id itself in quotes (nothing escaped): a list of them is written by one
    join, not an encoder call per id."""
    return {i for i in ids if encode_basestring_ascii(i) == f'"{i}"'}


def documents_hash(
    documents: Sequence[str], plain: set[str] | frozenset[str] = frozenset(), all_plain: bool = False
) -> Any:
    """The sha256 state after the start of an instance id's JSON, up to its documents: instances showing the same
    documents (a question's children) go on from a copy of it (`plain`: plain_ids of the ids met, when known;
    `all_plain`: the caller knows every id is one, so none is looked up)."""
    if all_plain or plain.issuperset(documents):
        listed = '"' + '","'.join(documents) + '"' if documents else ""
    else:
        listed = ",".join(map(encode_basestring_ascii, documents))
    return hashlib.sha256(('{"documents":[' + listed + '],"question_id":').encode())


def instance_id(question_id: str, documents: Sequence[str], started: Any = None) -> str:
    """The sha256 of canonical_json({"question_id": ..., "documents": [...]}), the JSON written out around one
    string encoder's output (the same bytes in a fifth of the time: every instance of every set needs one);
    `started`: documents_hash(documents), when already taken."""
    digest = (started or documents_hash(documents)).copy()
    digest.update((encode_basestring_ascii(question_id) + "}").encode())
    return digest.hexdigest()


def _canonical_order(articles: Iterable[Article]) -> list[Article]:
    """Sort articles chronologically then by id: the order every seeded shuffle starts from."""
    return sorted(articles, key=attrgetter("date", "created_at", "article_id"))


def _preference(ids: Sequence[str]) -> int:
    """How much a minimal set of this size is preferred (lower first): two articles, then one, then more."""
    return {2: 0, 1: 1}.get(len(ids), len(ids))


def _unique(items: Iterable[str]) -> list[str]:
    """Drop repeated items, keeping first occurrences in order."""
    return list(dict.fromkeys(items))


@dataclass
class Family:
    """An answerable question with its false-premise and uncertain-specificity children."""

    parent: dict[str, Any]
    children: dict[str, list[dict[str, Any]]]

    @property
    def family_id(self) -> str:
        """The family's id: the answerable question's id."""
        return self.parent["question_id"]


def families_from_rows(question_rows: Iterable[Mapping[str, Any]]) -> list[Family]:
    """Group questions into families in file order; children whose parent is absent are dropped."""
    rows = list(question_rows)
    families: dict[str, Family] = {}
    for row in rows:
        if row["category"] in ANSWERABLE_CATEGORIES:
            families[row["question_id"]] = Family(parent=dict(row), children=defaultdict(list))
    for row in rows:
        if row["category"] in UNANSWERABLE_CATEGORIES and row["parent_question_id"] in families:
            families[row["parent_question_id"]].children[row["category"]].append(dict(row))
    return list(families.values())


class InstanceBuilder:
    """Builds the three instance sets for one split; every random choice is seeded per question family."""

    def __init__(
        self, question_rows: Iterable[Mapping[str, Any]], news_rows: Iterable[Mapping[str, Any]], seed: int = 1
    ) -> None:
        """Index the split's questions and articles."""
        self.seed = seed
        self.articles = articles_from_rows(news_rows)
        self.by_timeline: dict[str, list[Article]] = defaultdict(list)
        for article in self.articles.values():
            self.by_timeline[article.timeline_id].append(article)
        self.families = families_from_rows(question_rows)
        self._past: dict[tuple[str, str], list[Article]] = {}  # (timeline, date) -> past articles: sets share them
        self._past_ids: dict[tuple[str, str], tuple[list[str], frozenset[str]]] = {}  # the same, their ids
        self._minimal: dict[str, list[str] | None] = {}  # question id -> its minimal set: two sets ask for it
        self._options: dict[str, list[str]] = {}  # family id -> its option order: every instance asks for it
        self._member: dict[str, list[str]] = {}  # question id -> its options in order: each instance of it asks
        self._gold: dict[tuple[str, bool], tuple[list[str], str, int]] = {}  # (question id, answerable) -> options,
        # gold answer and its index, checked: each instance asks
        self._children: dict[str, list[dict[str, Any]]] = {}  # family id -> its sampled children: each set asks
        self._last_documents: tuple[tuple[str, ...], Any] = ((), None)  # the last documents, their documents_hash
        self._mentioning: dict[str, set[str]] = defaultdict(set)  # item -> ids of the articles that mention it
        self._stating: dict[str, set[str]] = defaultdict(set)  # item -> ids of the articles that state it
        self._plain_ids = plain_ids(self.articles)  # article ids written in JSON as they are
        # every article id plain (always so when generated): an instance shows only the split's articles, so each of
        # its documents is, without a look-up per id
        self._all_plain = len(self._plain_ids) == len(self.articles)
        for article in self.articles.values():  # an article mentions its used and unsure items, states the used sure
            for item in article.used:
                self._mentioning[item].add(article.article_id)
                if item not in article.unsure:
                    self._stating[item].add(article.article_id)
            for item in article.unsure - article.used if article.unsure else ():
                self._mentioning[item].add(article.article_id)

    # ------------------------------------------------------------------ shared pieces

    def past_articles(self, question: Mapping[str, Any]) -> list[Article]:
        """All articles of the question's timeline dated on or before the question date, in canonical order."""
        key = (question["timeline_id"], question["date"])
        if key not in self._past:
            timeline = self.by_timeline.get(question["timeline_id"], [])
            self._past[key] = _canonical_order(a for a in timeline if a.date <= question["date"])
        return list(self._past[key])

    def past_ids(self, question: Mapping[str, Any]) -> tuple[list[str], frozenset[str]]:
        """The ids of past_articles(question), in order and as a set (kept: each family of a date asks; not to be
        changed by the caller)."""
        key = (question["timeline_id"], question["date"])
        if key not in self._past_ids:
            ids = [a.article_id for a in self.past_articles(question)]
            self._past_ids[key] = (ids, frozenset(ids))
        return self._past_ids[key]

    def sufficient(self, article_ids: Iterable[str], items: Sequence[str]) -> bool:
        """True when every required item is stated by at least one of these articles (by id)."""
        shown = article_ids if isinstance(article_ids, (set, frozenset)) else set(article_ids)
        return all(not self._stating[item].isdisjoint(shown) for item in items)

    def mentioned_among(self, article_ids: Iterable[str], items: Sequence[str]) -> dict[str, set[str]]:
        """For each required item, the ones of these articles that mention it: the articles left with the item
        unmentioned once some are taken out are those whose set here lies within the taken-out ones."""
        shown = set(article_ids)
        return {item: self._mentioning[item] & shown for item in items}

    def option_order(self, family: Family) -> list[str]:
        """The family's answer options in one seeded order shared by all its instances."""
        if family.family_id not in self._options:
            options = family.parent["answer_options"]
            self._options[family.family_id] = family_shuffled(self.seed, "options", family.family_id, options)
        return list(self._options[family.family_id])

    def member_options(self, family: Family, question: Mapping[str, Any]) -> list[str]:
        """Options for one family member: the family order when its options are the same set (as released)."""
        if question["question_id"] not in self._member:
            shared = self.option_order(family)
            own = list(question["answer_options"])
            if sorted(own) != sorted(shared):
                shared = family_shuffled(self.seed, "options:" + question["question_id"], family.family_id, own)
            self._member[question["question_id"]] = shared
        return list(self._member[question["question_id"]])

    def sampled_children(self, family: Family) -> list[dict[str, Any]]:
        """Up to two children per unanswerable category, sampled with the family's seeded generator."""
        if family.family_id not in self._children:
            chosen: list[dict[str, Any]] = []
            for category in UNANSWERABLE_CATEGORIES:
                pool = sorted(family.children.get(category, []), key=lambda q: q["question_id"])
                chosen.extend(
                    family_shuffled(self.seed, "children:" + category, family.family_id, pool)[:CHILDREN_PER_CATEGORY]
                )
            self._children[family.family_id] = chosen
        return list(self._children[family.family_id])

    def minimal_sufficient_set(self, question: Mapping[str, Any]) -> list[str] | None:
        """The question's minimal sufficient article set (two articles preferred), or None when none checks out."""
        if question["question_id"] not in self._minimal:
            self._minimal[question["question_id"]] = self._minimal_set(question)
        found = self._minimal[question["question_id"]]
        return None if found is None else list(found)

    def _minimal_set(self, question: Mapping[str, Any]) -> list[str] | None:
        """The first valid candidate of the most preferred size: the record's own pick wins ties."""
        candidates = [question["sufficient_article_ids"], *question["all_sufficient_article_id_combinations"]]
        past = self.past_ids(question)[1]  # the question's timeline, up to its date
        tried: set[tuple[str, ...]] = set()
        best: list[str] | None = None
        for combination in candidates:
            ids = _unique(combination)
            if not ids or tuple(ids) in tried:
                continue
            tried.add(tuple(ids))
            if not past.issuperset(ids) or not self.sufficient(ids, question["evidence_ids"]):
                continue
            if best is None or _preference(ids) < _preference(best):
                best = ids
            if len(ids) == 2:  # no size is preferred to two articles, and a later pair would lose the tie
                break
        return best

    def _documents_hash(self, documents: Sequence[str]) -> Any:
        """documents_hash(documents), taken once for a run of instances showing the same documents."""
        shown = tuple(documents)  # a copy: a row's list may change after, the memo must not
        if shown != self._last_documents[0] or self._last_documents[1] is None:
            self._last_documents = (shown, documents_hash(shown, self._plain_ids, self._all_plain))
        return self._last_documents[1]

    def _answer(self, family: Family, question: Mapping[str, Any], answerable: str) -> tuple[list[str], str, int]:
        """A family member's options in order, its gold answer when `answerable` and the gold's index, checked once
        per question and kind of instance."""
        key = (question["question_id"], answerable == SUFFICIENT)
        if key not in self._gold:
            options = self.member_options(family, question)
            gold = question["answer"] if answerable == SUFFICIENT else DEFLECTION_OPTION
            if gold not in options:
                raise ReleaseFormatError(
                    f"question {question['question_id']}: its answer options lack {gold!r}; "
                    f"every NeoQA question offers the deflection option {DEFLECTION_OPTION!r}"
                )
            self._gold[key] = (options, gold, options.index(gold))
        return self._gold[key]

    def _instance(
        self,
        family: Family,
        question: Mapping[str, Any],
        answerable: str,
        documents: Sequence[str],
        sufficient_article_ids: list[str] | None = None,
        irrelevant_article_ids: list[str] | None = None,
        removed_article_ids: list[str] | None = None,
        missing_evidence_ids: list[str] | None = None,
        options: list[str] | None = None,
    ) -> dict[str, Any]:
        """Assemble one instance row (documents by id; the face attaches their text); an id list not given is
        empty; `options`: the row's own, where rows have their own (generated NeoQA), else the family's."""
        if options is None:
            options, gold, gold_index = self._answer(family, question, answerable)
        else:
            gold = question["answer"] if answerable == SUFFICIENT else DEFLECTION_OPTION
            gold_index = options.index(gold)
        documents = list(documents)
        row = {
            "instance_id": instance_id(question["question_id"], documents, self._documents_hash(documents)),
            "question_family_id": family.family_id,
            "question_id": question["question_id"],
            "parent_question_id": question["parent_question_id"],
            "timeline_id": question["timeline_id"],
            "category": question["category"],
            "answerable": answerable,
            "question": question["question"],
            "date": question["date"],
            "created_at": question["created_at"],
            "answer": gold,
            "answer_options": list(options),
            "gold_answer_idx": gold_index,
            "evidence_ids": list(question["evidence_ids"]),
            "use_evidence_documents": documents,
            "sufficient_article_ids": [] if sufficient_article_ids is None else sufficient_article_ids,
            "irrelevant_article_ids": [] if irrelevant_article_ids is None else irrelevant_article_ids,
            "removed_article_ids": [] if removed_article_ids is None else removed_article_ids,
            "missing_evidence_ids": [] if missing_evidence_ids is None else missing_evidence_ids,
        }
        return row

    def _with_children(self, family: Family, sufficient: dict[str, Any]) -> list[dict[str, Any]]:
        """The sampled unanswerable children, each shown the sufficient instance's documents in its order."""
        keep = {k: sufficient[k] for k in ("sufficient_article_ids", "irrelevant_article_ids")}
        return [
            self._instance(family, child, UNANSWERABLE, sufficient["use_evidence_documents"], **keep)
            for child in self.sampled_children(family)
        ]

    def _gaps(
        self, question: Mapping[str, Any], shown: Iterable[str], minimal: list[str]
    ) -> list[tuple[str, list[str]]]:
        """Each minimal-set article whose removal from `shown` leaves some required item unmentioned, with those items
        (the others leave no clean gap: the rest still, possibly, conveys every required item)."""
        mentioned = self.mentioned_among(shown, question["evidence_ids"])
        gaps = []
        for removed in minimal:
            missing = [item for item in question["evidence_ids"] if mentioned[item] <= {removed}]  # unmentioned
            if missing:
                gaps.append((removed, missing))
        return gaps

    def _one_removed(
        self, family: Family, shown: list[str], minimal: list[str], gaps: list[tuple[str, list[str]]], **extra: Any
    ) -> list[dict[str, Any]]:
        """Insufficient variants omitting each minimal-set article of `gaps` in turn (order kept)."""
        question = family.parent
        variants = []
        for removed, missing in gaps:
            remaining = shown.copy()  # shown lists each article once
            remaining.remove(removed)
            variants.append(
                self._instance(
                    family,
                    question,
                    INSUFFICIENT,
                    remaining,
                    sufficient_article_ids=list(minimal),
                    removed_article_ids=[removed],
                    missing_evidence_ids=list(missing),
                    **extra,
                )
            )
        return variants

    # ------------------------------------------------------------------ the three sets

    def neoqa(self) -> list[dict[str, Any]]:
        """The main benchmark set (appendix E.2): all past articles as evidence."""
        rows: list[dict[str, Any]] = []
        for family in self.families:
            question = family.parent
            past, past_set = self.past_ids(question)
            if not self.sufficient(past_set, question["evidence_ids"]):
                continue
            shown = family_shuffled(self.seed, "documents", family.family_id, past)
            sufficient = self._instance(family, question, SUFFICIENT, shown)
            rows.append(sufficient)
            variants: dict[tuple[str, ...], dict[str, Any]] = {}
            mentioned = self.mentioned_among(shown, question["evidence_ids"])
            for item in _unique(question["evidence_ids"]):
                mentioning = self._mentioning[item]
                remaining = tuple(filterfalse(mentioning.__contains__, shown))
                if remaining in variants:  # same articles removed for another item: one instance
                    continue
                variants[remaining] = self._instance(
                    family,
                    question,
                    INSUFFICIENT,
                    remaining,
                    removed_article_ids=list(filter(mentioning.__contains__, shown)),
                    missing_evidence_ids=[i for i in question["evidence_ids"] if mentioned[i] <= mentioning],
                )
            rows.extend(variants.values())
            rows.extend(self._with_children(family, sufficient))
        return rows

    def optimal_evidence(self) -> list[dict[str, Any]]:
        """The set without irrelevant evidence (appendix E.1): the minimal sufficient articles only."""
        rows: list[dict[str, Any]] = []
        for family, minimal, shown in self.optimal_layouts():
            sufficient = self._instance(
                family,
                family.parent,
                SUFFICIENT,
                shown,
                sufficient_article_ids=list(minimal),
            )
            rows.append(sufficient)
            rows.extend(self._one_removed(family, shown, minimal, self._gaps(family.parent, shown, minimal)))
            rows.extend(self._with_children(family, sufficient))
        return rows

    def optimal_layouts(self) -> Iterator[tuple[Family, list[str], list[str]]]:
        """Each family with a minimal sufficient set: the family, that set, and the order the optimal-evidence set
        shows it in (the release's and the generated sets alike)."""
        for family in self.families:
            minimal = self.minimal_sufficient_set(family.parent)
            if minimal is not None:
                yield family, minimal, family_shuffled(self.seed, "optimal-evidence", family.family_id, minimal)

    def irrelevant_candidates(self, question: Mapping[str, Any], minimal: Sequence[str]) -> list[Article]:
        """Past articles outside the minimal set that mention none of the required items, in canonical order."""
        return [self.articles[i] for i in self._irrelevant_ids(question, minimal)]

    def _irrelevant_ids(self, question: Mapping[str, Any], minimal: Sequence[str]) -> list[str]:
        """The ids of irrelevant_candidates(question, minimal), in their order."""
        relevant = set(minimal).union(*(self._mentioning[i] for i in question["evidence_ids"]))
        return [i for i in self.past_ids(question)[0] if i not in relevant]

    def ablation_layout(self, family: Family, most: int) -> tuple[list[str], list[str], list[str]] | None:
        """A question's context ablation: its minimal pair, `most` irrelevant past articles sampled (each size takes
        their first ones) and the one order all of them are shown in; None when the question has no minimal pair or
        too few irrelevant articles."""
        minimal = self.minimal_sufficient_set(family.parent)
        if minimal is None or len(minimal) != 2:
            return None
        ids = self._irrelevant_ids(family.parent, minimal)
        if len(ids) < most:
            return None
        sample = family_shuffled(self.seed, "context-ablation", family.family_id, ids)[:most]
        arrangement = family_shuffled(self.seed, "context-ablation:order", family.family_id, list(minimal) + sample)
        return minimal, sample, arrangement

    def context_ablation(self, sizes: Sequence[int] = ABLATION_SIZES) -> list[dict[str, Any]]:
        """The long-context ablation (appendix E.3): two relevant articles plus nested irrelevant samples."""
        rows: list[dict[str, Any]] = []
        most = max(sizes)
        for family in self.families:
            question = family.parent
            layout = self.ablation_layout(family, most)
            if layout is None:
                continue
            minimal, sample, arrangement = layout
            # the same gaps at every size: the irrelevant articles mention no required item (irrelevant_candidates)
            gaps = self._gaps(question, minimal, minimal)
            for size in sorted(sizes):
                irrelevant = sample[:size]
                keep = set(minimal) | set(irrelevant)
                shown = list(filter(keep.__contains__, arrangement))
                extra = {"sufficient_article_ids": list(minimal), "irrelevant_article_ids": irrelevant}
                sufficient = self._instance(family, question, SUFFICIENT, shown, **extra)
                rows.append(sufficient)
                rows.extend(self._one_removed(family, shown, minimal, gaps, irrelevant_article_ids=irrelevant))
                rows.extend(self._with_children(family, sufficient))
        return rows

    def build(self, set_name: str) -> list[dict[str, Any]]:
        """Build one named instance set."""
        if set_name == "neoqa":
            return self.neoqa()
        if set_name == "optimal-evidence":
            return self.optimal_evidence()
        if set_name == "context-ablation":
            return self.context_ablation()
        raise ValueError(f"unknown NeoQA instance set {set_name!r}; expected one of {', '.join(INSTANCE_SETS)}")
