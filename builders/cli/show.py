"""`python -m phantom_wiki show NAME`: one row of a subset as a person reads it, as the row itself, or as the prompt
an lm-eval task sends for it.

The readable view puts the label first and says why it is what it is (which required article is missing and its
role, which premise is refuted), lists the documents in the order shown with the required ones marked as they are
cited, and the options. The prompt comes from lm_eval building the task's own request (leakproof_eval.task_requests,
imported only for `--as prompt`, as the faces above builders/ are), so it is what a model reads, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import asdict
from typing import Any

from ..phantomwiki.config import ConfigError, Settings, format_name, universe_name

VIEWS = ("text", "row", "prompt")
ID_FIELD = {"questions": "id", "corpus": "title", "instances": "instance_id", "rag": "instance_id"}
LABEL_FIELDS = (
    "answerable",
    "unanswerable_kind",
    "premise",
    "premise_status",
    "missing_article",
    "missing_role",
    "closed_world",
    "retrieved_sufficient",
)
"""The label fields an evidence row may carry, printed in this order when the row has them (and they are not empty)."""
PREMISE_STATUS = {"refuted": "which the universe refutes", "unknown": "which nothing in the universe can confirm"}
DATABASE_LINES = 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The show command's own arguments (the settings are added beside them, as for generate)."""
    parser.add_argument("config", help="a configuration with its subset, e.g. n500_s1 (questions), n500_s1_instances")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--index", type=int, help="the row's position in the subset, from 0 (default 0)")
    which.add_argument(
        "--id", dest="identifier", help="the row's id: instance_id (instances, rag), id (questions), title (corpus)"
    )
    parser.add_argument(
        "--as",
        dest="view",
        choices=VIEWS,
        default="text",
        help="text: readable, the label and why first (default); row: the row as JSON; prompt: exactly what an "
        "lm-eval task sends for it (needs the lm-eval extra)",
    )
    parser.add_argument(
        "--task",
        help="with --as prompt: the lm-eval task (default: phantom_wiki_questions, phantom_wiki_instances or "
        "phantom_wiki_rag for the subset; also the _cite tasks and phantom_wiki_mc)",
    )


def run(settings: Settings, subset: str, args: argparse.Namespace) -> int:
    """Print the row `args` selects in the view it asks for; user errors raise ConfigError."""
    if args.task is not None and args.view != "prompt":
        raise ConfigError("--task chooses the task whose prompt --as prompt prints; add --as prompt")
    if args.index is not None and args.index < 0:
        raise ConfigError(f"--index {args.index} must be at least 0")
    if args.identifier is not None and subset == "database":
        raise ConfigError("the database subset has one row and no id; leave out --id")
    name = format_name(settings.size, settings.depth, settings.seed, subset)
    if args.view == "prompt":
        return _print_prompt(settings, subset, name, args)
    position, total, row = select(settings, subset, args.index, args.identifier)
    if args.view == "row":
        print(json.dumps(row, ensure_ascii=False, indent=2))
    else:
        print(readable(name, subset, position, total, row))
    return 0


def _rows(settings: Settings, subset: str) -> Iterator[dict]:
    """The subset's rows in their order, made as `generate` makes them, with the stage bar on stderr."""
    from ..phantomwiki import rows as engine
    from . import prepared

    return engine.ROWS[subset](prepared(settings, [subset], bars=True))


def select(settings: Settings, subset: str, index: int | None, identifier: str | None) -> tuple[int, int, dict]:
    """(position, number of rows, row) of the row at `index` or with id `identifier` (the first row by default)."""
    field = ID_FIELD.get(subset)
    wanted = 0 if index is None and identifier is None else index
    found: tuple[int, dict] | None = None
    first_id, total = None, 0
    for position, row in enumerate(_rows(settings, subset)):
        total += 1
        if field is not None and first_id is None:
            first_id = row[field]
        if found is None and (position == wanted or (identifier is not None and row[field] == identifier)):
            found = (position, row)
    name = format_name(settings.size, settings.depth, settings.seed, subset)
    if found is None and identifier is not None:
        raise ConfigError(f"no row of {name} has {field} {identifier!r}; e.g. {first_id!r} (or give --index)")
    if found is None:
        raise ConfigError(f"{name} has {total:,} rows; --index {wanted} is outside 0-{total - 1}")
    return found[0], total, found[1]


def readable(name: str, subset: str, position: int, total: int, row: Mapping[str, Any]) -> str:
    """The row as a person reads it."""
    field = ID_FIELD.get(subset)
    head = f"{name}, row {position} of {total:,}" + (f" ({field} {row[field]})" if field else "")
    body = {
        "questions": _question,
        "corpus": _article,
        "database": _database,
        "instances": _evidence,
        "rag": _evidence,
    }[subset](row)
    return "\n".join([head, "", *body])


def _pair(label: str, value: Any) -> str:
    return f"{label:<24}{value}"


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _difficulty(row: Mapping[str, Any]) -> str:
    return f"{row['difficulty']} (reasoning steps); counting question: {_yes(row['is_aggregation_question'])}"


def _question(row: Mapping[str, Any]) -> list[str]:
    return [
        _pair("question", row["question"]),
        _pair("answer", ", ".join(row["answer"]) + f"  ({len(row['answer'])} answer(s))"),
        _pair("difficulty", _difficulty(row)),
        _pair("template", " ".join(row["template"]) + f"  (type {row['type']})"),
        _pair("prolog", "?- " + ", ".join(row["prolog"]["query"]) + f".  (answer variable {row['prolog']['answer']})"),
        _pair("evidence", f"{len(row['evidence'])} facts used by the derivations of the answer"),
        *(" " * 24 + fact for fact in row["evidence"]),
    ]


def _article(row: Mapping[str, Any]) -> list[str]:
    return [
        row["article"].rstrip("\n"),
        "",
        _pair("facts", f"{len(row['facts'])} stated by this article"),
        *(" " * 24 + fact for fact in row["facts"]),
    ]


def _database(row: Mapping[str, Any]) -> list[str]:
    lines = row["content"].splitlines()
    shown = lines[:DATABASE_LINES]
    rest = len(lines) - len(shown)
    more = f"... {rest:,} more lines: `python -m phantom_wiki prolog` writes the program to files" if rest else ""
    return [f"the universe as one Prolog program, {len(lines):,} lines", "", *shown, *([more] if more else [])]


def why(row: Mapping[str, Any]) -> str:
    """One sentence saying why the row's gold answer is what it is."""
    kind = row["answerable"]
    if kind == "sufficient":
        return "sufficient: the documents hold every article the question needs, so its answer is provable from them"
    if kind == "unanswerable":
        status = PREMISE_STATUS.get(row.get("premise_status", ""), row.get("premise_status", ""))
        return (
            f"unanswerable ({row.get('unanswerable_kind') or 'a variant'}): the question rests on "
            f"{row.get('premise') or 'a premise'}, {status}; the gold answer is the deflection"
        )
    missing = row.get("missing_article")
    role = row.get("missing_role")
    what = (
        f"the article of {missing}, which the question needs, is missing"
        if missing
        else ("the documents lack part of the articles the question needs")
    )
    return f"insufficient: {what}" + (f" (its role: {role})" if role else "") + "; the gold answer is the deflection"


def _evidence(row: Mapping[str, Any]) -> list[str]:
    lines = [
        _pair("question", row["question"]),
        _pair("gold answer", ", ".join(row["answer"])),
        _pair("label", why(row)),
    ]
    for key in LABEL_FIELDS:
        value = row.get(key)
        if value not in (None, ""):
            lines.append(_pair(f"  {key}", value if not isinstance(value, bool) else _yes(value)))
    if row["answerable"] != "sufficient":
        lines.append(_pair("question's answer", ", ".join(row["question_answer"]) + "  (given every article it needs)"))
    lines.append(_pair("difficulty", f"{_difficulty(row)}; family {row['question_family_id']}"))
    cited = set(row["citations"])
    distractors = set(row.get("distractor_titles", ()))
    documents = row["documents"]
    lines += ["", f"documents ({len(documents)}, in the order shown; * = in the row's citations: a required article)"]
    for number, document in enumerate(documents, 1):
        mark = "*" if number - 1 in cited else " "
        note = "  (distractor)" if document["title"] in distractors else ""
        lines.append(f"  [{number:>2}] {mark} {document['title']}{note}")
    if row.get("missing_article"):
        lines.append(f"  not shown: {row['missing_article']} (required)")
    options = row.get("answer_options")
    if options:
        lines += ["", "options (phantom_wiki_mc numbers them from 1; > = gold)"]
        for number, option in enumerate(options, 1):
            lines.append(f"  {'>' if number - 1 == row['gold_answer_idx'] else ' '} {number}. {option}")
    return lines


def _print_prompt(settings: Settings, subset: str, name: str, args: argparse.Namespace) -> int:
    """Print the prompt the task sends for the selected row (stdout: exactly the text; stderr: what else is sent)."""
    try:
        from leakproof_qa.leakproof_eval import TaskSetupError
        from leakproof_qa.leakproof_eval.task_requests import requests_for, task_for
    except ImportError as error:  # lm_eval missing
        raise ConfigError(f"--as prompt needs lm_eval ({error.name}): pip install 'leakproof-qa[lm-eval]'") from None
    try:
        task = task_for(subset, args.task)
        position, total, row = select(settings, subset, args.index, args.identifier)
        knobs = {key: value for key, value in asdict(settings).items() if key in Settings.knobs()}
        sent = requests_for(task, universe_name(settings), knobs, row[ID_FIELD[subset]])
    except TaskSetupError as error:
        raise ConfigError(str(error)) from None
    sys.stdout.write(sent.context + "\n")
    sys.stdout.flush()
    where = f"{name} row {position} of {total:,} is document {sent.position} of {sent.total:,} in {task}"
    if sent.continuations:
        sent_text = f"scored with each continuation {', '.join(repr(c) for c in sent.continuations)} (log-likelihoods)"
    else:
        until = sent.generation.get("until")
        sent_text = f"generated until {until!r} or {sent.generation.get('max_gen_toks')} tokens"
    print(
        f"{where} (--limit {sent.position + 1} includes it); {task} sends the text above, {sent_text}; "
        "with --apply_chat_template it is the user message",
        file=sys.stderr,
    )
    return 0
