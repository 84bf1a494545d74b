"""Read the official NeoQA release (a local directory: builders/publishing/neoqa.py fetches a Hub snapshot) into
validated plain records.

Files are ``{split}.{kind}.jsonl`` with split in ``dev``/``test`` and kind in
``timelines``/``news``/``questions``, plain or encrypted (see ``encryption.neoqa_codec``).
The release's own instance files (``{split}.neoqa.jsonl`` ...) are not read: instances are
rebuilt from the raw records (``builders.neoqa.instances``).  Entity markup
``{Name|TYPE-n}`` is stripped from every text field; where it carries ids (outline
sentences, article headlines and passages) the marked text is kept beside it.

License: the records are CC BY-ND 4.0.  They are decrypted and re-paired only on the
user's machine; nothing here writes them anywhere but the user's own ``datasets`` cache.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from itertools import chain, repeat
from pathlib import Path
from typing import Any

from leakproof_qa.encryption.neoqa_codec import ReleaseFileNotFoundError, ReleaseFormatError, iter_jsonl

SPLITS: tuple[str, ...] = ("dev", "test")
RAW_KINDS: tuple[str, ...] = ("timelines", "news", "questions")
ANSWERABLE_CATEGORIES: tuple[str, ...] = ("multi-hop", "time-span")
UNANSWERABLE_CATEGORIES: tuple[str, ...] = ("false-premise", "uncertain-specificity")
CATEGORIES: tuple[str, ...] = ANSWERABLE_CATEGORIES + UNANSWERABLE_CATEGORIES
ENTITY_TYPES: tuple[str, ...] = (
    "person",
    "organization",
    "location",
    "product",
    "art",
    "building",
    "event",
    "miscellaneous",
)
DEFAULT_HUB_REPO: str = "mglockner/neoqa"
LICENSE: str = "cc-by-nd-4.0"
LICENSE_NOTICE: str = (
    "NeoQA data (Glockner et al., 2025) is licensed CC BY-ND 4.0. This loader decrypts the release and "
    "re-pairs questions with articles on your machine only; do not publish decrypted or re-paired NeoQA text "
    "(BY-ND forbids sharing adapted material), and nothing in this package may push it to a hub or elsewhere."
)

_MARKUP = re.compile(r"\{([^{}|]+)\|\s*[A-Za-z]+-\d+\s*\}")
"""{Name|TYPE-n}, spaces allowed around both parts; the name runs greedily to the bar and is stripped after (a lazy
name with its own trailing-space match finds the same spans and names, in half again the time)."""


def strip_markup(text: str) -> str:
    """Replace entity markup ``{Name|TYPE-n}`` by the plain name, the text a model should read."""
    if "{" not in text:  # most text has none: skip the regex
        return text
    return _MARKUP.sub(_plain_name, text)


def _plain_name(match: re.Match[str]) -> str:
    return match[1].strip()


def release_filename(split: str, kind: str) -> str:
    """Return the release's file name for one split and record kind, e.g. ``dev.news.jsonl``."""
    return f"{split}.{kind}.jsonl"


def locate_release_file(root: str | Path, filename: str) -> Path:
    """Find ``filename`` in ``root`` or, failing that, exactly once anywhere below it."""
    root = Path(root)
    direct = root / filename
    if direct.is_file():
        return direct
    found = sorted(path for path in root.rglob(filename) if path.is_file())
    if not found:
        raise ReleaseFileNotFoundError(
            f"NeoQA release file {filename!r} not found in {root} (nor below it); "
            "data_dir must hold the release's {dev,test}.{timelines,news,questions}.jsonl files"
        )
    if len(found) > 1:
        raise ReleaseFormatError(
            f"NeoQA release file {filename!r} found {len(found)} times below {root} "
            f"({', '.join(str(path.relative_to(root)) for path in found[:3])}); point data_dir at one copy"
        )
    return found[0]


def fingerprint(code_files: Iterable[str | Path], data_dir: str | Path | None) -> str:
    """Hash the loader's code and the release files' names and contents, so a stale cache is never reused."""
    digest = hashlib.sha256()
    for path in sorted(Path(p) for p in code_files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    root = Path(data_dir).expanduser() if data_dir is not None else None
    if root is not None and root.is_dir():
        for path in sorted(root.rglob("*.jsonl")):  # contents, not sizes and times: an edit in place is seen
            digest.update(f"{path.relative_to(root)}:".encode())
            with open(path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
    return digest.hexdigest()[:16]


# --------------------------------------------------------------------------- validation


def _fail(where: str, message: str) -> ReleaseFormatError:
    """Build the one-line error for a record that does not have the published shape."""
    return ReleaseFormatError(f"{where}: {message}")


def _field(record: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str, default: Any = ...) -> Any:
    """Return ``record[name]`` checked against ``kind``; missing optional fields give ``default``."""
    value = record.get(name)
    if value is None:
        if default is ...:
            raise _fail(where, f"record has no {name!r} field; is this the right NeoQA file?")
        return default
    if type(value) is kind:  # the common case, settled without the checks below (an exact int is no bool)
        return value
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise _fail(where, f"field {name!r} should be {expected}, found {type(value).__name__}")
    return value


def _all_of(values: Iterable[Any], kind: type) -> bool:
    """True when every value is a `kind` (the check runs in C: validation checks every list of every record)."""
    return all(map(isinstance, values, repeat(kind)))


def _objects(record: Mapping[str, Any], name: str, where: str, default: Any = ...) -> list[dict[str, Any]]:
    """Return a list-of-objects field, checked."""
    values = _field(record, name, list, where, default)
    if not _all_of(values, dict):
        raise _fail(where, f"field {name!r} should be a list of objects")
    return list(values)


def _str_list(record: Mapping[str, Any], name: str, where: str, default: Any = ...) -> list[str]:
    """Return a list-of-strings field, checked."""
    values = _field(record, name, list, where, default)
    if not _all_of(values, str):
        raise _fail(where, f"field {name!r} should be a list of strings")
    return list(values)


def _date(record: Mapping[str, Any], where: str) -> str:
    """Return the record's ``date`` after checking it is an ISO ``YYYY-MM-DD`` date."""
    value = _field(record, "date", str, where)
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        raise _fail(where, f"field 'date' should be a YYYY-MM-DD date, found {value!r}") from None
    return value


def _text(value: Any) -> str:
    """Return a text field with markup stripped (None becomes the empty string)."""
    return strip_markup(value) if isinstance(value, str) else "" if value is None else str(value)


def _plain_json(value: Any) -> Any:
    """Strip entity markup from every string inside a JSON value."""
    if isinstance(value, str):
        return strip_markup(value)
    if isinstance(value, list):  # a string inside is stripped here, without a call per string
        return [strip_markup(item) if type(item) is str else _plain_json(item) for item in value]
    if isinstance(value, dict):
        return {key: strip_markup(item) if type(item) is str else _plain_json(item) for key, item in value.items()}
    return value


# --------------------------------------------------------------------------- records -> rows


def news_row(record: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Validate one news-article record and return its row (plain text plus marked text)."""
    passages = _str_list(record, "passages", where)
    headline = _field(record, "headline", str, where)
    return {
        "timeline_id": _field(record, "timeline_id", str, where),
        "article_id": _field(record, "article_id", str, where),
        "event_id": _field(record, "event_id", str, where),
        "headline": strip_markup(headline),
        "passages": [strip_markup(passage) for passage in passages],
        "headline_marked": headline,
        "passages_marked": passages,
        "created_at": _field(record, "created_at", int, where),
        "date": _date(record, where),
        "news_profile": _field(record, "news_profile", str, where, ""),
        "used_items": _str_list(record, "used_items", where),
        "unsure_evidences": _str_list(record, "unsure_evidences", where, []),
    }


def _once(made: dict[tuple[str, int], Any] | None, field: str, value: Any, make: Callable[[], Any]) -> Any:
    """make(), or what it gave before for `value` as `field` when `made` remembers it (by field and object id;
    `made` keeps the object too, so the id stands for it alone)."""
    if made is None:
        return make()
    key = (field, id(value))
    if key not in made:
        made[key] = (value, make())
    return made[key][1]


def _combinations(combinations: list[Any], where: str) -> list[list[str]]:
    if not (_all_of(combinations, list) and _all_of(chain.from_iterable(combinations), str)):  # one pass in C
        raise _fail(where, "field 'all_sufficient_article_id_combinations' should be a list of lists of ids")
    return [list(combo) for combo in combinations]


def _distractors(record: Mapping[str, Any], where: str) -> list[dict[str, Any]]:
    return [
        {
            "answer": _text(distractor.get("answer")),
            "explanation": _text(distractor.get("explanation")),
            "distractor-sentences": [str(s) for s in distractor.get("distractor-sentences") or []],
        }
        for distractor in _objects(record, "distractors", where, [])
    ]


def question_row(
    record: Mapping[str, Any], where: str, made: dict[tuple[str, int], Any] | None = None
) -> dict[str, Any]:
    """Validate one question record and return its row (markup stripped, ``meta`` kept as JSON).

    `made`: one dict for the records of one timeline, alive while they are. Lists one record shares with another
    (a generated question's variants hold their parent's options, distractors and sufficient combinations) are
    then checked and made into row parts once, and those rows share the parts."""
    category = _field(record, "category", str, where)
    if category not in CATEGORIES:
        raise _fail(where, f"unknown question category {category!r}; expected one of {', '.join(CATEGORIES)}")
    combinations = _field(record, "all_sufficient_article_id_combinations", list, where, [])
    combinations = _once(made, "combinations", combinations, lambda: _combinations(combinations, where))
    distractors = _once(made, "distractors", record.get("distractors"), lambda: _distractors(record, where))
    evidence_ids = _str_list(record, "evidence_ids", where, [] if category in UNANSWERABLE_CATEGORIES else ...)
    if category in ANSWERABLE_CATEGORIES and not evidence_ids:
        raise _fail(
            where, f"{category} question has no evidence_ids; every answerable question names its outline items"
        )
    options = _once(
        made,
        "answer_options",
        record.get("answer_options"),
        lambda: [strip_markup(option) for option in _str_list(record, "answer_options", where)],
    )
    answer = strip_markup(_field(record, "answer", str, where))
    if answer not in options:
        raise _fail(where, f"answer {answer!r} is not one of its answer_options")
    return {
        "timeline_id": _field(record, "timeline_id", str, where),
        "question_id": _field(record, "question_id", str, where),
        "parent_question_id": _field(record, "parent_question_id", str, where, None),
        "category": category,
        "evidence_ids": evidence_ids,
        "question": strip_markup(_field(record, "question", str, where)),
        "answer": answer,
        "date": _date(record, where),
        "created_at": _field(record, "created_at", int, where),
        "distractors": distractors,
        "answer_options": options,
        "sufficient_article_ids": _str_list(record, "sufficient_article_ids", where, []),
        "all_sufficient_article_id_combinations": combinations,
        "meta": _plain_json(record.get("meta")),
    }


_ENTITY_FIELDS = frozenset({"id", "name", "description", "history"})
"""The fields of a snapshot entity that have columns; the rest go to its JSON ``properties``."""


def _history_row(item: Mapping[str, Any], where: str) -> dict[str, Any]:
    """One entry of an entity's history, checked (the common case, an int event number and a text without markup,
    without a call)."""
    return {
        "created_at": event
        if type(event := item.get("created_at")) is int
        else _field(item, "created_at", int, where, -1),
        "event_update": text if type(text := item.get("event_update")) is str and "{" not in text else _text(text),
        "date": str(item.get("date") or ""),
    }


def _entity_row(
    entity: Mapping[str, Any], entity_type: str, where: str, made: dict[tuple[str, int], Any]
) -> dict[str, Any]:
    """One snapshot entity as a row with ``entity_type`` and JSON ``properties`` (`made`: see _entity_rows)."""
    history = []
    for item in _objects(entity, "history", where, []):  # _once(made, "history", item, ...), without a closure each
        key = ("history", id(item))
        if key not in made:
            made[key] = (item, _history_row(item, where))
        history.append(made[key][1])
    return {
        "entity_type": entity_type,
        "id": _field(entity, "id", str, where),
        "name": _text(entity.get("name")),
        "description": _text(entity.get("description")),
        "history": history,
        "properties": {k: _plain_json(v) for k, v in entity.items() if k not in _ENTITY_FIELDS},
    }


def _entity_rows(snapshot: Mapping[str, Any], where: str, made: dict[tuple[str, int], Any]) -> list[dict[str, Any]]:
    """Flatten a snapshot's entities (grouped by type) into rows with ``entity_type`` and JSON ``properties``.

    `made`: the rows already made from this timeline record's objects (_once). An object the record holds
    twice (a generated timeline's snapshots hold an entity no event since has named as the same object, and its
    history entries are shared) is checked and made into a row once, and its rows share that row: the record lives
    through the call, so an id stands for one object."""
    grouped = _field(snapshot, "named_entities", dict, where, {})
    rows = []
    for entity_type in sorted(grouped, key=lambda t: (ENTITY_TYPES.index(t) if t in ENTITY_TYPES else 99, t)):
        entities = grouped[entity_type] or []
        if not isinstance(entities, list) or not _all_of(entities, dict):
            raise _fail(where, f"named_entities[{entity_type!r}] should be a list of objects")
        for entity in entities:  # _once(made, ...), keyed by the type too: a row names it
            key = ("entity " + entity_type, id(entity))
            if key not in made:
                made[key] = (entity, _entity_row(entity, entity_type, where, made))
            rows.append(made[key][1])
    return rows


def timeline_row(record: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Validate one timeline record and return its row (events with plain and marked outline sentences)."""
    genre = _field(record, "genre", dict, where)
    event_type = _field(record, "event_type", dict, where)
    events = []
    for event in _objects(record, "events", where):
        outline = [
            {
                "id": _field(item, "id", str, where),
                "pos": _field(item, "pos", int, where, -1),
                "sentence": strip_markup(_field(item, "sentence", str, where)),
                "sentence_marked": item["sentence"],
            }
            for item in _objects(event, "outline", where)
        ]
        events.append(
            {
                "event_id": _field(event, "event_id", str, where),
                "created_at": _field(event, "created_at", int, where),
                "date": _date(event, where),
                "initial_summary": _text(event.get("initial_summary")),
                "used_named_entities": [
                    {"id": str(entity.get("id")), "new": bool(entity.get("new"))}
                    for entity in _objects(event, "used_named_entities", where, [])
                ],
                "outline": outline,
            }
        )
    made: dict[tuple[str, int], Any] = {}
    snapshots = [
        {
            "created_at": _field(snapshot, "created_at", int, where),
            "for_event": _field(snapshot, "for_event", str, where),
            "date": _date(snapshot, where),
            "named_entities": _entity_rows(snapshot, where, made),
        }
        for snapshot in _objects(record, "named_entity_snapshots", where, [])
    ]
    return {
        "timeline_id": _field(record, "timeline_id", str, where),
        "genre": {"category": str(genre.get("category", "")), "genre_id": str(genre.get("genre_id", ""))},
        "event_type": {
            "category": str(event_type.get("category", "")),
            "event_type_id": str(event_type.get("event_type_id", "")),
        },
        "initial_summary": _text(record.get("initial_summary")),
        "events": events,
        "named_entity_snapshots": snapshots,
    }


_ROW_MAKERS = {"timelines": timeline_row, "news": news_row, "questions": question_row}
_ID_FIELDS = {"timelines": "timeline_id", "news": "article_id", "questions": "question_id"}


def read_rows(root: str | Path, split: str, kind: str, key: int | str | None) -> list[dict[str, Any]]:
    """Read, decrypt if needed, and validate one release file into rows; ids must be unique."""
    if split not in SPLITS:
        raise ReleaseFormatError(f"unknown NeoQA split {split!r}; the release has {', '.join(SPLITS)}")
    if kind not in _ROW_MAKERS:
        raise ReleaseFormatError(f"unknown NeoQA record kind {kind!r}; expected one of {', '.join(RAW_KINDS)}")
    path = locate_release_file(root, release_filename(split, kind))
    rows, seen = [], set()
    for number, record in iter_jsonl(path, key):
        row = _ROW_MAKERS[kind](record, f"{path.name}, line {number}")
        identifier = row[_ID_FIELDS[kind]]
        if identifier in seen:
            raise _fail(f"{path.name}, line {number}", f"duplicate {_ID_FIELDS[kind]} {identifier!r}")
        seen.add(identifier)
        rows.append(row)
    return rows


def canonical_json(value: Any) -> str:
    """Serialise a value deterministically (sorted keys), for ids derived from content."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def _present(root: str | Path, split: str, kind: str, key: int | str | None) -> list[dict[str, Any]] | None:
    try:
        return read_rows(root, split, kind, key)
    except ReleaseFileNotFoundError:
        return None


OFFICIAL_DEV_TIMELINES: frozenset[str] = frozenset({"sports:13:1", "health:12:0", "local-news:12:8"})
"""The official release's dev split (spec/neoqa.md): a data_dir whose dev timelines are these is the release."""
OFFICIAL_COUNTS: dict[str, dict[str, int]] = {
    "dev": {"timelines": 3, "news": 3 * 10 * 12},
    "test": {"timelines": 12, "news": 12 * 10 * 12},
}
"""Records per file of the official release: 3 dev and 12 test timelines (paper, section 4.3), 10 events each and 12
articles per event (section 3). The paper's 7,348 questions (Table 2) are not split per file, so they are checked
together (OFFICIAL_QUESTIONS)."""
OFFICIAL_QUESTIONS = 839 + 678 + 2_879 + 2_952  # multi-hop, time-span, false premise, uncertain specificity (Table 2)


def _is_official(root: str | Path, key: int | str | None) -> bool:
    """True when `root` holds the official release: its dev timelines are the release's three."""
    try:
        dev = read_rows(root, "dev", "timelines", key)
    except ReleaseFileNotFoundError:
        return False
    return {row["timeline_id"] for row in dev} <= OFFICIAL_DEV_TIMELINES and bool(dev)


def check_official_counts(root: str | Path, split: str, key: int | str | None, rows: dict[str, list[Any]]) -> None:
    """Refuse an official release file holding fewer records than the release and paper state: one line naming
    the file and both counts. A file the release does not come from (fixtures, other data) is not held to them."""
    if not _is_official(root, key):
        return
    for kind, expected in OFFICIAL_COUNTS[split].items():
        if kind in rows and len(rows[kind]) < expected:
            raise ReleaseFormatError(
                f"{release_filename(split, kind)} holds {len(rows[kind])} records but the official release has "
                f"{expected}: the file is cut short or damaged; download the release again"
            )
    if "questions" in rows:
        other = "test" if split == "dev" else "dev"
        try:
            total = len(rows["questions"]) + len(read_rows(root, other, "questions", key))
        except ReleaseFileNotFoundError:
            return
        if total < OFFICIAL_QUESTIONS:
            raise ReleaseFormatError(
                f"{release_filename('dev', 'questions')} and {release_filename('test', 'questions')} hold {total} "
                f"questions but the official release has {OFFICIAL_QUESTIONS} (paper, Table 2): a file is cut short "
                "or damaged; download the release again"
            )


def check_complete(root: str | Path, split: str, key: int | str | None) -> None:
    """Refuse a split whose files do not hold each other whole: a file cut at a line boundary still parses.

    Of the files present: every article must belong to an event of the split's timelines, every timeline must
    have articles, and every event as many as the other events of its timeline (12 in the official release,
    section 3 of the paper); every timeline must have questions and every question a timeline, and every parent
    question a false-premise or uncertain-specificity question names must be there. A shortfall is one line naming
    the file. (A questions file cut between two parent questions of one timeline, each with all its variants,
    leaves no trace: the release counts no questions per timeline.)
    """
    timelines = _present(root, split, "timelines", key)
    news = _present(root, split, "news", key)
    questions = _present(root, split, "questions", key)
    present = {"timelines": timelines, "news": news, "questions": questions}
    check_official_counts(root, split, key, {kind: rows for kind, rows in present.items() if rows is not None})
    if timelines is not None and news is not None:
        _check_news(timelines, news, split)
    if questions is not None:
        questions_file = release_filename(split, "questions")
        ids = {row["question_id"] for row in questions}
        orphans = sorted(row["question_id"] for row in questions if row.get("parent_question_id") not in (None, *ids))
        missing = sorted({row["timeline_id"] for row in timelines or ()} - {row["timeline_id"] for row in questions})
        unknown = sorted({row["timeline_id"] for row in questions} - {row["timeline_id"] for row in timelines or ()})
        if timelines is not None and unknown:
            raise ReleaseFormatError(
                f"{questions_file} has questions about timeline {unknown[0]}, which "
                f"{release_filename(split, 'timelines')} does not hold: a file is cut short or damaged; download the "
                "release again"
            )
        if missing or orphans:
            what = (
                f"no question about timeline {missing[0]}" if missing else f"question {orphans[0]} without its parent"
            )
            raise ReleaseFormatError(
                f"{questions_file} has {what}: the file is cut short or damaged; download the release again"
            )


def _check_news(timelines: list[dict[str, Any]], news: list[dict[str, Any]], split: str) -> None:
    news_file = release_filename(split, "news")
    events = {event["event_id"]: row["timeline_id"] for row in timelines for event in row["events"]}
    per_event = dict.fromkeys(events, 0)
    for row in news:
        if events.get(row["event_id"]) != row["timeline_id"]:
            raise ReleaseFormatError(
                f"{news_file}: article {row['article_id']} belongs to event {row['event_id']}, which "
                f"{release_filename(split, 'timelines')} does not hold; download the release again"
            )
        per_event[row["event_id"]] += 1
    for timeline in sorted(set(events.values())):
        counts = {event: count for event, count in per_event.items() if events[event] == timeline}
        expected = max(counts.values())
        if expected == 0:  # a cut at a timeline boundary in the middle of the file: a whole timeline gone
            raise ReleaseFormatError(
                f"{news_file} holds no article of timeline {timeline}: the file is cut short or damaged; download "
                "the release again"
            )
        short = sorted(event for event, count in counts.items() if count < expected)
        if short:
            raise ReleaseFormatError(
                f"{news_file} holds {counts[short[0]]} articles of event {short[0]} but {expected} "
                "of the others: the file is cut short or damaged; download the release again"
            )
