"""Write a small, invented NeoQA release in the published format, for the tests.

Two timelines, one per split (``dev``: 3 events x 4 articles; ``test``: 10 events x 12
articles, enough for the 80-irrelevant-article ablation), every question category, and
the edge cases appendix E cares about: articles unsure (NLI disagreement) about an item,
items stated only together, single-article evidence, questions the past articles cannot
answer, and more children than the two that are sampled.  Files are encrypted with the
release codec by default (``--plain`` for plain JSONL).  Nothing here comes from the real
release: all text is generated from the design tables below.

    python -m tests.neoqa.make_fixture_release OUT_DIR [--plain] [--key 23456]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leakproof_qa.encryption.neoqa_codec import RELEASE_KEY, write_jsonl

PROFILES = ("ObjectiveNews", "ConservativeNews", "ProgressiveNews", "SensationalNews")


@dataclass
class QuestionDesign:
    """One answerable question and its unanswerable children, as the tests reason about them."""

    name: str
    category: str
    event: int  # the question is dated on this event's date
    evidence: list[str]
    sufficient: list[str]  # article keys "ev{e}-{k}", the record's sufficient_article_ids
    combinations: list[list[str]]  # all_sufficient_article_id_combinations
    false_premise: int = 0
    uncertain_specificity: int = 0


@dataclass
class TimelineDesign:
    """A fictional timeline: events, per-article outline coverage and questions."""

    split: str
    genre: str
    genre_category: str
    event_type: int
    index: int
    dates: list[str]
    items_per_event: int
    articles_per_event: int
    coverage: dict[str, tuple[list[str], list[str]]]  # "ev{e}-{k}" -> (used_items, unsure_evidences)
    questions: list[QuestionDesign] = field(default_factory=list)

    @property
    def timeline_id(self) -> str:
        """Timeline id in the release's style, e.g. ``local-news:12:8``."""
        return f"{self.genre}:{self.event_type}:{self.index}"

    def article_id(self, key: str) -> str:
        """Article id in the release's style, e.g. ``local-news_12_8-ev0-0``."""
        return f"{self.genre}_{self.event_type}_{self.index}-{key}"

    def article_keys(self, events: range | None = None) -> list[str]:
        """Keys ``ev{e}-{k}`` of every article of the given events (all events by default)."""
        events = range(len(self.dates)) if events is None else events
        return [f"ev{e}-{k}" for e in events for k in range(self.articles_per_event)]

    def covered(self, key: str) -> tuple[list[str], list[str]]:
        """(used_items, unsure_evidences) of an article: designed, or one filler item of its event."""
        if key in self.coverage:
            return self.coverage[key]
        event, k = (int(part) for part in key[2:].split("-"))
        return [f"N{event}-S{self.items_per_event - 1 - k % 2}"], []


def _days(start: str, step: int, count: int) -> list[str]:
    """``count`` ISO dates ``step`` days apart from ``start``."""
    first = datetime.date.fromisoformat(start)
    return [(first + datetime.timedelta(days=step * i)).isoformat() for i in range(count)]


DEV = TimelineDesign(
    split="dev",
    genre="fixture-sports",
    genre_category="Fixture Sports",
    event_type=1,
    index=0,
    dates=["2024-01-01", "2024-01-05", "2024-01-10"],
    items_per_event=5,
    articles_per_event=4,
    coverage={
        "ev0-0": (["N0-S0", "N0-S1"], []),
        "ev0-1": (["N0-S1", "N0-S2"], []),
        "ev0-2": (["N0-S3"], ["N0-S0"]),
        "ev0-3": (["N0-S2", "N0-S3"], []),
        "ev1-0": (["N1-S0", "N1-S1"], []),
        "ev1-1": (["N1-S2"], ["N1-S4"]),
        "ev1-2": (["N1-S0", "N1-S3"], []),
        "ev1-3": (["N1-S1", "N1-S2"], ["N1-S0"]),
        "ev2-0": (["N2-S0"], []),
        "ev2-1": (["N2-S1", "N2-S2"], []),
        "ev2-2": (["N2-S3", "N2-S0"], []),
        "ev2-3": (["N2-S0"], []),
    },
    questions=[
        QuestionDesign(
            "Q1",
            "multi-hop",
            1,
            ["N0-S0", "N1-S1"],
            ["ev0-0", "ev1-3"],
            [["ev0-0", "ev1-0"], ["ev0-0", "ev1-3"]],
            false_premise=3,
            uncertain_specificity=1,
        ),
        QuestionDesign(
            "Q2", "time-span", 2, ["N0-S3", "N2-S3"], ["ev0-2", "ev2-2"], [["ev0-3", "ev2-2"], ["ev0-2", "ev2-2"]]
        ),
        QuestionDesign(
            "Q3",
            "multi-hop",
            0,
            ["N0-S1", "N0-S2"],
            ["ev0-1"],
            [["ev0-1"], ["ev0-0", "ev0-3"]],
            false_premise=1,
            uncertain_specificity=2,
        ),
        QuestionDesign("Q4", "time-span", 2, ["N2-S1", "N2-S2"], ["ev2-1"], [["ev2-1"]]),
        QuestionDesign("Q5", "multi-hop", 1, ["N1-S0", "N1-S4"], [], [], false_premise=1, uncertain_specificity=1),
    ],
)

TEST = TimelineDesign(
    split="test",
    genre="fixture-local-news",
    genre_category="Fixture Local News",
    event_type=7,
    index=3,
    dates=_days("2024-03-01", 7, 10),
    items_per_event=6,
    articles_per_event=12,
    coverage={
        "ev1-0": (["N1-S0", "N1-S5"], []),
        "ev2-0": (["N2-S0", "N2-S5"], []),
        "ev2-1": (["N2-S0", "N2-S4"], []),
        "ev4-0": (["N4-S0", "N4-S5"], ["N1-S0"]),
        "ev5-0": (["N5-S0", "N5-S5"], []),
        "ev6-0": (["N6-S0", "N6-S5"], []),
        "ev6-1": (["N6-S1", "N6-S4"], ["N6-S1"]),  # selected, but the NLI check disagreed
        "ev7-0": (["N7-S0", "N7-S1", "N7-S5"], []),
        "ev8-0": (["N8-S0", "N8-S5"], []),
        "ev9-0": (["N9-S0", "N9-S5"], []),
        "ev9-1": (["N9-S4"], ["N9-S0"]),
    },
    questions=[
        QuestionDesign(
            "QA1",
            "multi-hop",
            9,
            ["N2-S0", "N9-S0"],
            ["ev2-1", "ev9-0"],
            [["ev2-0", "ev9-0"], ["ev2-1", "ev9-0"]],
            false_premise=2,
            uncertain_specificity=2,
        ),
        QuestionDesign("QA2", "time-span", 4, ["N1-S0", "N4-S0"], ["ev1-0", "ev4-0"], [["ev1-0", "ev4-0"]]),
        QuestionDesign("QA3", "time-span", 9, ["N5-S0", "N8-S0"], ["ev5-0", "ev8-0"], [["ev5-0", "ev8-0"]]),
        QuestionDesign("QA4", "multi-hop", 9, ["N7-S0", "N7-S1"], ["ev7-0"], [["ev7-0"]], false_premise=1),
        # The record claims ev6-0 + ev6-1 suffice; ev6-1 is unsure about N6-S1, so by appendix E it does not.
        QuestionDesign("QA5", "time-span", 6, ["N6-S0", "N6-S1"], ["ev6-0", "ev6-1"], [["ev6-0", "ev6-1"]]),
    ],
)

TIMELINES: dict[str, TimelineDesign] = {"dev": DEV, "test": TEST}


def question_id(timeline: TimelineDesign, name: str) -> str:
    """A release-style (64 hex digits) question id derived from the fixture name."""
    return hashlib.sha256(f"fixture:{timeline.timeline_id}:{name}".encode()).hexdigest()


def child_names(question: QuestionDesign) -> list[tuple[str, str]]:
    """(name, category) of a question's children, e.g. ``("Q1-FP2", "false-premise")``."""
    return [(f"{question.name}-FP{i}", "false-premise") for i in range(1, question.false_premise + 1)] + [
        (f"{question.name}-US{i}", "uncertain-specificity") for i in range(1, question.uncertain_specificity + 1)
    ]


ENTITIES = [
    ("person", "PERSON-1", "Vela Marrow"),
    ("organization", "ORGANIZATION-1", "Quillfen Civic Trust"),
    ("location", "LOCATION-1", "Harrowmere"),
]


def _mark(kind: int) -> str:
    """Entity markup for one of the fixture's entities, as the release writes it."""
    _, entity_id, name = ENTITIES[kind % len(ENTITIES)]
    return f"{{{name}|{entity_id}}}"


def outline_sentence(event: int, item: int) -> str:
    """The invented outline sentence ``N{event}-S{item}``, with entity markup."""
    return f"In event {event}, {_mark(item)} recorded detail {item} near {_mark(item + 1)}."


def timeline_record(design: TimelineDesign) -> dict[str, Any]:
    """The timeline record: events with outlines and one entity snapshot per event."""
    events, snapshots = [], []
    for e, date in enumerate(design.dates):
        events.append(
            {
                "event_id": f"{design.timeline_id}:E{e}",
                "created_at": e,
                "initial_summary": f"Event {e} of the fixture timeline involving {_mark(e)}.",
                "date": date,
                "used_named_entities": [{"id": entity_id, "new": e == 0} for _, entity_id, _ in ENTITIES],
                "outline": [
                    {"sentence": outline_sentence(e, i), "id": f"N{e}-S{i}", "pos": i}
                    for i in range(design.items_per_event)
                ],
            }
        )
        named_entities: dict[str, list[dict[str, Any]]] = {
            t: []
            for t in ("person", "organization", "location", "product", "art", "building", "event", "miscellaneous")
        }
        for entity_type, entity_id, name in ENTITIES:
            entity = {
                "id": entity_id,
                "name": name,
                "entity_class": entity_type,
                "description": f"A fictional {entity_type} of the fixture.",
                "type": None,
                "created_at": 0,
                "last_updated": date,
                "history": [
                    {"created_at": h, "event_update": f"{name} appeared in event {h}.", "date": design.dates[h]}
                    for h in range(e + 1)
                ],
            }
            if entity_type == "person":
                entity.update({"date_of_birth": "1984-02-11", "gender": "Female", "profession": "Archivist"})
            if entity_type == "location":
                entity.update({"population": 48213})
            named_entities[entity_type].append(entity)
        snapshots.append(
            {"created_at": e, "for_event": f"{design.timeline_id}:E{e}", "date": date, "named_entities": named_entities}
        )
    return {
        "timeline_id": design.timeline_id,
        "genre": {"category": design.genre_category, "genre_id": design.genre},
        "event_type": {"category": "Fixture Events", "event_type_id": f"{design.genre}:{design.event_type}"},
        "initial_summary": f"An invented storyline for testing ({design.split}).",
        "events": events,
        "named_entity_snapshots": snapshots,
    }


def news_records(design: TimelineDesign) -> list[dict[str, Any]]:
    """Every article of the timeline: one paragraph per reported outline item plus a filler paragraph."""
    records = []
    for key in design.article_keys():
        event, k = (int(part) for part in key[2:].split("-"))
        used, unsure = design.covered(key)
        passages = [outline_sentence(event, int(item.split("-S")[1])) for item in used]
        passages.append(f"Residents of {_mark(2)} followed article {k} about event {event} closely.")
        records.append(
            {
                "timeline_id": design.timeline_id,
                "article_id": design.article_id(key),
                "event_id": f"{design.timeline_id}:E{event}",
                "headline": f"{_mark(1)} bulletin {event}-{k}",
                "passages": passages,
                "created_at": event,
                "news_profile": PROFILES[k % len(PROFILES)],
                "date": design.dates[event],
                "unsure_evidences": list(unsure),
                "used_items": list(used),
            }
        )
    return records


def question_records(design: TimelineDesign) -> list[dict[str, Any]]:
    """Every question: each answerable one followed by its false-premise and uncertain-specificity children."""
    records = []
    for q in design.questions:
        qid = question_id(design, q.name)
        answer = f"{7 + len(q.name)} days" if q.category == "time-span" else f"Answer of {q.name}"
        distractors = [
            f"{3 + j} days" if q.category == "time-span" else f"Distractor {j} of {q.name}" for j in range(1, 6)
        ]
        options = [answer, *distractors, "Unanswerable"]
        base = {
            "timeline_id": design.timeline_id,
            "created_at": q.event,
            "date": design.dates[q.event],
            "distractors": [
                {"answer": d, "explanation": f"Plausible but wrong ({d}).", "distractor-sentences": list(q.evidence)}
                for d in distractors
            ],
            "answer_options": options,
            "meta": {"fixture": True, "selected-sentences": list(q.evidence)},
        }
        records.append(
            {
                **base,
                "question_id": qid,
                "parent_question_id": None,
                "category": q.category,
                "evidence_ids": list(q.evidence),
                "answer": answer,
                "question": f"What does {_mark(0)} know about {q.name}?",
                "sufficient_article_ids": [design.article_id(k) for k in q.sufficient],
                "all_sufficient_article_id_combinations": [[design.article_id(k) for k in c] for c in q.combinations],
            }
        )
        for name, category in child_names(q):
            records.append(
                {
                    **base,
                    "question_id": question_id(design, name),
                    "parent_question_id": qid,
                    "category": category,
                    "evidence_ids": list(q.evidence),
                    "answer": "Unanswerable",
                    "question": f"What does {_mark(0)} know about {name}, which never happened?",
                    "sufficient_article_ids": [],
                    "all_sufficient_article_id_combinations": [],
                }
            )
    return records


def release_records(split: str) -> dict[str, list[dict[str, Any]]]:
    """The three raw files of one split, as lists of records."""
    design = TIMELINES[split]
    return {"timelines": [timeline_record(design)], "news": news_records(design), "questions": question_records(design)}


def write_release(out_dir: str | Path, key: int | None = RELEASE_KEY) -> Path:
    """Write ``{dev,test}.{timelines,news,questions}.jsonl`` (encrypted with ``key``, plain if None)."""
    out_dir = Path(out_dir)
    for split in TIMELINES:
        for kind, records in release_records(split).items():
            write_jsonl(out_dir / f"{split}.{kind}.jsonl", records, key=key)
    return out_dir


def main(argv: list[str] | None = None) -> int:
    """CLI: write the fixture release to a directory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--plain", action="store_true", help="write plain JSONL instead of encrypted lines")
    parser.add_argument("--key", type=int, default=RELEASE_KEY, help="encryption key (default: the release's)")
    args = parser.parse_args(argv)
    path = write_release(args.out_dir, key=None if args.plain else args.key)
    print(f"wrote the NeoQA fixture release to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
