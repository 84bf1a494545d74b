"""Generated NeoQA configurations: release-schema records from `Settings`, then rows as the release's are made.

Each timeline is generated on its own (world, articles, questions, from its own seeded streams), its records go
through the same validation as the official release's (builders/neoqa/release.py), and its instance sets are
made by the same appendix-E code (builders/neoqa/instances.py). Timelines are independent, so rows are produced
one timeline at a time: memory holds one timeline, and the rows equal those made from all records at once.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from leakproof_qa.builders.neoqa.articles import news_records
from leakproof_qa.builders.neoqa.generated_instances import GeneratedInstanceBuilder
from leakproof_qa.builders.neoqa.questions import multi_hop_records, stating_articles, time_span_records
from leakproof_qa.builders.neoqa.release import news_row, question_row, timeline_row
from leakproof_qa.builders.neoqa.settings import RAW_SUBSETS, Settings
from leakproof_qa.builders.neoqa.timeline import timeline_record
from leakproof_qa.builders.neoqa.world import World, draw_world

LICENSE = "cc-by-4.0"
LICENSE_NOTICE = (
    "Generated NeoQA-style data (fictional timelines, articles and questions drawn from word lists and templates, "
    "no LLM and no NeoQA release text): ours, CC BY 4.0."
)


def timeline_records(
    settings: Settings, index: int, kinds: tuple[str, ...] = RAW_SUBSETS
) -> dict[str, list[dict[str, Any]]]:
    """The release records of timeline `index`: those of `kinds` (timelines, news, questions)."""
    return world_records(settings, index, kinds)[1]


def world_records(
    settings: Settings, index: int, kinds: tuple[str, ...] = RAW_SUBSETS
) -> tuple[World, dict[str, list[dict[str, Any]]]]:
    """Timeline `index`'s world and its release records of `kinds` (the instance sets read the world's facts)."""
    world = draw_world(settings.seed, index, settings.events, settings.items_per_event)
    records: dict[str, list[dict[str, Any]]] = {}
    if "timelines" in kinds:
        records["timelines"] = [timeline_record(world)]
    news = news_records(world, settings.seed, settings.articles_per_event)
    if "news" in kinds:
        records["news"] = news
    if "questions" in kinds:
        stating = stating_articles(news)  # both kinds of question ask which articles state an item
        questions = multi_hop_records(world, settings.seed, news, settings.multi_hop, stating)
        records["questions"] = questions + time_span_records(world, settings.seed, news, settings.time_span, stating)
    return world, records


def release_records(settings: Settings) -> dict[str, list[dict[str, Any]]]:
    """Every timeline's records, as the release's three files would hold them."""
    records: dict[str, list[dict[str, Any]]] = {kind: [] for kind in RAW_SUBSETS}
    for index in range(settings.timelines):
        for kind, rows in timeline_records(settings, index).items():
            records[kind].extend(rows)
    return records


_ROW = {"timelines": timeline_row, "news": news_row, "questions": question_row}


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector while one timeline's rows are made: they hold no reference cycles
    (reference counting frees them), and the collector's passes over their many young dicts and lists cost about
    a twelfth of the build. It runs again, if it ran before, as soon as the timeline is made: the objects made
    meanwhile go straight to its oldest generation (gc.freeze then gc.unfreeze, two list splices), since its first
    young pass would walk every one of them only to find them all alive, a sixteenth of the build. Not done when the
    caller keeps objects frozen itself (unfreezing would release them). The caller's young objects are collected
    first, so that its cyclic garbage is not promoted with the rows."""
    enabled = gc.isenabled()
    if enabled:
        gc.collect(1)
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def timeline_rows(
    settings: Settings, index: int, kinds: tuple[str, ...] = RAW_SUBSETS
) -> dict[str, list[dict[str, Any]]]:
    """Timeline `index`'s records of `kinds` as validated rows (markup stripped, as release.read_rows gives them)."""
    return world_rows(settings, index, kinds)[1]


def world_rows(
    settings: Settings, index: int, kinds: tuple[str, ...] = RAW_SUBSETS
) -> tuple[World, dict[str, list[dict[str, Any]]]]:
    """Timeline `index`'s world and its records of `kinds` as validated rows."""
    world, records_of = world_records(settings, index, kinds)
    rows: dict[str, list[dict[str, Any]]] = {}
    made: dict[tuple[str, int], Any] = {}  # question parts the records share, made once (release.question_row)
    for kind, records in records_of.items():
        where = f"generated {kind} of timeline {index}"
        if kind == "questions":
            rows[kind] = [question_row(record, where, made) for record in records]
        else:
            rows[kind] = [_ROW[kind](record, where) for record in records]
    return world, rows


def subset_rows(settings: Settings, index: int, subsets: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
    """Timeline `index`'s rows of each subset in `subsets` (instance rows hold article ids, not texts)."""
    kinds = tuple(
        kind for kind in RAW_SUBSETS if kind in subsets or kind != "timelines" and set(subsets) - set(RAW_SUBSETS)
    )
    with _no_cycle_collection():
        world, rows = world_rows(settings, index, kinds)
        made = {subset: rows[subset] for subset in subsets if subset in RAW_SUBSETS}
        instance_sets = [subset for subset in subsets if subset not in RAW_SUBSETS]
        if instance_sets:
            builder = GeneratedInstanceBuilder(rows["questions"], rows["news"], world, seed=settings.seed)
            made.update({subset: builder.build(subset) for subset in instance_sets})
    return made


def _document(row: dict[str, Any]) -> dict[str, Any]:
    return {key: row[key] for key in ("article_id", "headline", "date", "passages")}


def shown_documents(
    instances: list[dict[str, Any]], news: list[dict[str, Any]], include: bool = True
) -> list[list[dict[str, Any]]]:
    """Each instance row's `documents`: the articles it shows (id, headline, date and passages) in the order shown,
    or none when not `include`. An article is one dict, shared by every row that shows it."""
    if not include:
        return [[] for _ in instances]
    articles = {row["article_id"]: _document(row) for row in news}
    return [[articles[i] for i in row["use_evidence_documents"]] for row in instances]


def with_documents(
    instances: list[dict[str, Any]], news: list[dict[str, Any]], include: bool = True
) -> list[dict[str, Any]]:
    """Instance rows with their `documents` (shown_documents)."""
    shown = shown_documents(instances, news, include)
    return [{**row, "documents": documents} for row, documents in zip(instances, shown)]


class GeneratedSplit:
    """The one split of a generated configuration; iterate it for the rows (made one timeline at a time)."""

    def __init__(
        self, settings: Settings, subset: str, include_documents: bool = True, timelines: Sequence[int] | None = None
    ) -> None:
        """Remember what to make (`timelines`: these timelines only, in order; all by default); nothing is
        generated until iterated."""
        self.settings, self.subset, self.include_documents = settings, subset, include_documents
        self.timelines = list(range(settings.timelines)) if timelines is None else list(timelines)

    def part(self, timelines: Sequence[int]) -> GeneratedSplit:
        """The same split restricted to some timelines (a process's share when `datasets` builds with num_proc)."""
        return GeneratedSplit(self.settings, self.subset, self.include_documents, timelines)

    def keyed(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """The rows with keys unique across the split: timeline, then position within it."""
        for index in self.timelines:
            for position, row in enumerate(self.part([index])):
                yield f"{index}-{position}", row

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """Yield the subset's rows, timeline by timeline."""
        for index in self.timelines:
            yield from self._timeline(index)

    def _timeline(self, index: int) -> list[dict[str, Any]]:
        """The subset's rows of one timeline (instance rows with their documents when asked for)."""
        if self.subset in RAW_SUBSETS:
            return subset_rows(self.settings, index, (self.subset,))[self.subset]
        with _no_cycle_collection():
            world, rows = world_rows(self.settings, index, ("news", "questions"))
            builder = GeneratedInstanceBuilder(rows["questions"], rows["news"], world, seed=self.settings.seed)
            return with_documents(builder.build(self.subset), rows["news"], self.include_documents)
