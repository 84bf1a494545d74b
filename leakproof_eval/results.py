"""Results as `report` reads them: lm-eval results files (with their `--log_samples` files when present) and agent
run folders, turned into plain records.

The folders are someone else's files, so they are read as untrusted: nothing outside the folder given is read (a
symbolic link leading out is refused), a walk stops at a bounded depth and number of files, a JSON file or a JSON
line above a size limit is refused, and anything of the wrong shape is a one-line ReportError naming the file.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from leakproof_qa.builders.checks import is_number, is_whole
from leakproof_qa.builders.metrics import category_of
from leakproof_qa.builders.phantomwiki.config import ConfigError, Settings, settings_from, universe_name

MAX_JSON_BYTES = 64 << 20
"""A results file, scores.json or run.json above this is refused (lm_eval's results files are about 100 kB)."""
MAX_LINE_BYTES = 64 << 20
"""One JSON line above this is refused (a logged in-context prompt at n5000 is about 2.5 MB)."""
MAX_DEPTH = 6
MAX_FILES = 20_000
RESULTS_FILE = re.compile(r"results_(?P<stamp>.+)\.json")
TRAJECTORIES, SCORES, RUN = "trajectories.jsonl", "scores.json", "run.json"
PHANTOM_WIKI = "phantom_wiki"


class ReportError(ValueError):
    """Results that cannot be read as asked; the message is one line naming the file and what is wrong."""


@dataclass(frozen=True)
class Sample:
    """One evaluated document of a PhantomWiki task: what the breakdowns group by, and lm_eval's per-document value.

    `value` is what the task's aggregations read: the scored item (evidence and multiple choice) or the per-document
    scores (`phantom_wiki_questions`: precision, recall, f1, exact_match)."""

    difficulty: int
    answerable: str  # "sufficient", "insufficient", "unanswerable" ("sufficient" for a question of the questions task)
    category: str  # builders.metrics.category_of: answerable, insufficient or the unanswerable kind
    missing_role: str
    distractors: int | None
    prompt_chars: int
    value: Mapping[str, Any]


@dataclass
class TaskResult:
    """One task (or group) of one lm-eval run: its metrics as the results file holds them, and its samples if logged."""

    source: Path
    model: str
    universe: str
    size: int | None
    task: str
    metrics: dict[str, float]
    count: int | None
    date: float
    samples: list[Sample] | None = None


@dataclass
class AgentRun:
    """One agent run folder: scores.json, run.json when the runner wrote one, the per-question trajectories."""

    source: Path
    model: str
    universe: str
    size: int | None
    mode: str
    tools: str
    max_steps: int | None
    scores: dict[str, float]
    questions: list[dict[str, Any]] = field(default_factory=list)  # id, f1, tool_calls, minimum_calls, finished
    settings: Settings | None = None


@dataclass
class Report:
    """Everything a report read (the latest result of each task, model and universe; the agent runs), and what
    could not be shown (the report and its figures both read it)."""

    chosen: dict[tuple[str, str, str], TaskResult]
    runs: list[AgentRun]
    notes: list[str]


def read_json(path: Path) -> Any:
    """A JSON file, bounded in size; a one-line ReportError when it is too large or not JSON."""
    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise ReportError(f"{path} holds {size:,} bytes, more than a results file can ({MAX_JSON_BYTES:,})")
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReportError(f"cannot read {path}: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ReportError(f"{path} is not JSON: {str(error).splitlines()[0][:200]}") from None


def json_lines(path: Path) -> Iterator[Any]:
    """The JSON values of a JSON-lines file, one line at a time (a line above MAX_LINE_BYTES is refused); a last
    line cut short by an interrupted writer is skipped."""
    try:
        with path.open("rb") as handle:
            number = 0
            while True:
                line = handle.readline(MAX_LINE_BYTES + 1)
                if not line:
                    return
                number += 1
                if len(line) > MAX_LINE_BYTES:
                    raise ReportError(f"{path} line {number} is longer than {MAX_LINE_BYTES:,} bytes")
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except ValueError:
                    if line.endswith(b"\n"):
                        raise ReportError(f"{path} line {number} is not JSON") from None
    except OSError as error:
        raise ReportError(f"cannot read {path}: {error.strerror}") from None


def _inside(path: Path, root: Path) -> bool:
    resolved = path.resolve()
    return resolved == root or root in resolved.parents


def find(paths: list[str]) -> tuple[list[Path], list[Path]]:
    """(lm-eval results files, agent run folders) under the given files and folders, each found once, in order."""
    results: list[Path] = []
    runs: list[Path] = []
    for given in paths:
        root = Path(given)
        if not root.exists():
            raise ReportError(
                f"{given} does not exist; give lm-eval output folders, results_*.json files or agent runs"
            )
        if root.is_file():
            if not RESULTS_FILE.fullmatch(root.name):
                raise ReportError(
                    f"{given} is not an lm-eval results file (results_<date>.json); give it or its folder"
                )
            results.append(root)
            continue
        before, seen, base = len(results) + len(runs), 0, root.resolve()
        for folder, subfolders, files in os.walk(root):  # symbolic links to folders are not followed
            here = Path(folder)
            if len(here.relative_to(root).parts) >= MAX_DEPTH:
                subfolders.clear()
            subfolders.sort()
            seen += len(files)
            if seen > MAX_FILES:
                raise ReportError(f"{given} holds more than {MAX_FILES:,} files; give the results folders themselves")
            results += [
                here / name for name in sorted(files) if RESULTS_FILE.fullmatch(name) and _inside(here / name, base)
            ]
            if (SCORES in files or TRAJECTORIES in files) and _inside(here, base):
                runs.append(here)
        if len(results) + len(runs) == before:
            raise ReportError(f"{given} holds no lm-eval results (results_*.json) and no agent run (scores.json)")
    return list(dict.fromkeys(results)), list(dict.fromkeys(runs))


# --- universes ---------------------------------------------------------------------------------------------------

_DEFAULTS = {f.name: f.default for f in fields(Settings)}


def universe_label(resolved: Mapping[str, Any]) -> tuple[str, int | None]:
    """(label, size) of a resolved universe: its name and every setting that differs from the default."""
    name = str(resolved.get("universe", "?"))
    changed = [
        f"{key}={value}" for key, value in resolved.items() if key in Settings.knobs() and value != _DEFAULTS[key]
    ]
    size = resolved.get("size")
    return " ".join([name, *changed]), size if is_whole(size) else None


def settings_of(run: Mapping[str, Any]) -> Settings | None:
    """The settings of the universe a run.json names (`universe`, a name, and `settings`, every setting), or None."""
    name, recorded = run.get("universe"), run.get("settings")
    if not isinstance(name, str):
        return None
    knobs = {k: v for k, v in recorded.items() if k in Settings.knobs()} if isinstance(recorded, Mapping) else {}
    try:
        return settings_from(name, **knobs)[0]
    except ConfigError:
        return None


# --- lm-eval results ---------------------------------------------------------------------------------------------


def _metrics(values: Any) -> dict[str, float]:
    """A task's metrics without lm_eval's filter suffix and stderr entries: {"f1": 1.0, ...}."""
    out = {}
    for key, value in (values or {}).items():
        if "," not in key or "_stderr" in key or not is_number(value):
            continue
        out[key.split(",")[0]] = float(value)
    return out


def _universe_of(config: Mapping[str, Any]) -> tuple[str, int | None]:
    metadata = config.get("metadata") or {}
    resolved = metadata.get(f"{PHANTOM_WIKI}_resolved")
    if isinstance(resolved, Mapping) and resolved:
        return universe_label(resolved)
    if "neoqa_config" in metadata:
        return f"neoqa {metadata.get('neoqa_config')}/{metadata.get('neoqa_split')}", None
    return str(metadata.get(f"{PHANTOM_WIKI}_config", "?")), None


def _table(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    """`data[key]` when it is a JSON object, else an empty one (a results file from another lm_eval may lack it)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def model_label(data: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    """The model as a run's setup names it: its name, then the lm_eval model type when that is not the name
    (local-completions, local-chat-completions, hf, ...) and the chat template when one was applied (its digest's
    first 8 characters when lm_eval knew the template), so a raw-completions run and a chat-template run of one
    model are two rows, never one merged or one dropped as older."""
    name = str(data.get("model_name") or config.get("model") or "?")
    setup = [str(config["model"])] if config.get("model") and config.get("model") != name else []
    template = data.get("chat_template")
    if template is not None:
        digest = data.get("chat_template_sha")
        setup.append(f"chat template {str(digest)[:8]}" if digest else "chat template")
    return f"{name} [{', '.join(setup)}]" if setup else name


def read_results(path: Path) -> list[TaskResult]:
    """Every task and group of one lm-eval results file, with their samples when lm_eval logged them beside it."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ReportError(f"{path} is not an lm-eval results file: it has no `results` table")
    configs, config, counts = _table(data, "configs"), _table(data, "config"), _table(data, "n-samples")
    model = model_label(data, config)
    date = float(data["date"]) if isinstance(data.get("date"), (int, float)) else 0.0
    stamp = RESULTS_FILE.fullmatch(path.name)
    out = []
    for task, values in data["results"].items():
        if not isinstance(values, dict) or task not in configs:
            continue
        universe, size = _universe_of(configs[task])
        count = _table(counts, task).get("effective")
        result = TaskResult(path, model, universe, size, task, _metrics(values), count, date)
        samples_file = path.with_name(f"samples_{task}_{stamp['stamp']}.jsonl") if stamp else None
        if samples_file is not None and samples_file.is_file() and _inside(samples_file, path.parent.resolve()):
            result.samples = read_samples(samples_file)
        out.append(result)
    groups, members = _table(data, "groups"), _table(data, "group_subtasks")
    for group, values in groups.items():
        first = next((t for t in members.get(group, []) if t in configs), None)
        if first is None or not isinstance(values, dict):
            continue
        universe, size = _universe_of(configs[first])
        out.append(TaskResult(path, model, universe, size, group, _metrics(values), None, date))
    return out


def read_samples(path: Path) -> list[Sample] | None:
    """The PhantomWiki documents of one samples file as Samples (None for another benchmark's, e.g. NeoQA's)."""
    samples = []
    for line in json_lines(path):
        doc = line.get("doc") if isinstance(line, dict) else None
        if not isinstance(doc, dict) or doc.get("benchmark") != PHANTOM_WIKI:
            return None
        names = line.get("metrics") or []
        if not names or names[0] not in line:
            raise ReportError(f"{path}: a sample has no value for its metric {names[:1]}")
        first = line[names[0]]
        value = first if isinstance(first, dict) else {name: line[name] for name in names if name in line}
        arguments = line.get("arguments")
        request = next(iter(arguments.values()), None) if isinstance(arguments, dict) and arguments else None
        prompt = request.get("arg_0", "") if isinstance(request, dict) else ""
        answerable = str(doc.get("answerable", "sufficient"))
        kind = str(doc.get("unanswerable_kind") or "")
        distractors = doc.get("num_distractors")
        samples.append(
            Sample(
                difficulty=int(doc.get("difficulty", 0)),
                answerable=answerable,
                category=category_of({"answerable": answerable, "unanswerable_kind": kind}),
                missing_role=str(doc.get("missing_role") or ""),
                distractors=distractors if isinstance(distractors, int) and distractors >= 0 else None,
                prompt_chars=len(prompt) if isinstance(prompt, str) else 0,
                value=value,
            )
        )
    return samples


# --- agent runs --------------------------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if not is_number(value):
        return None
    return float(value)


def _own(folder: Path, name: str) -> Path | None:
    """`folder/name` if it is a file inside the folder (a symbolic link leading out is refused), else None."""
    path = folder / name
    if not path.is_file():
        return None
    if not _inside(path, folder.resolve()):
        raise ReportError(f"{path} leads outside {folder}; a run's files must be its own")
    return path


def read_run(folder: Path) -> AgentRun:
    """One agent run folder; run.json (when present) names the model and universe, else the folder's name does."""
    scores_file, run_file, trajectories = (_own(folder, name) for name in (SCORES, RUN, TRAJECTORIES))
    if scores_file is None:
        raise ReportError(f"{folder} holds trajectories but no {SCORES}: the run has not ended; rerun it to finish")
    scores = read_json(scores_file)
    if not isinstance(scores, dict) or _number(scores.get("f1")) is None:
        raise ReportError(f"{folder / SCORES} is not an agent run's scores (no f1)")
    run = read_json(run_file) if run_file is not None else {}
    if not isinstance(run, dict):
        raise ReportError(f"{folder / RUN} is not a run record (a JSON object)")
    questions = []
    mode = tools = ""
    if trajectories is not None:
        for row in json_lines(trajectories):
            if not isinstance(row, dict) or not isinstance(row.get("tool_calls"), list):
                raise ReportError(f"{trajectories} holds a line that is not a trajectory")
            mode, tools = str(row.get("mode", mode)), str(row.get("tools", tools))
            questions.append(
                {
                    "id": str(row.get("id")),
                    "f1": _number(row.get("f1")) or 0.0,
                    "tool_calls": len(row["tool_calls"]),
                    "minimum_calls": int(_number(row.get("minimum_calls")) or 0),
                    "finished": bool(row.get("finished")),
                }
            )
    settings = settings_of(run)
    if settings is not None:
        universe, size = universe_label({"universe": universe_name(settings), **asdict(settings)})
    else:
        universe, size = ("? (no run.json)" if not run else str(run.get("universe", "?"))), None
    max_steps = _number(run.get("max_steps", scores.get("max_steps")))
    return AgentRun(
        source=folder,
        model=str(run.get("model") or f"{folder.name} (no run.json)"),
        universe=universe,
        size=size,
        mode=str(run.get("mode") or mode or "?"),
        tools=str(run.get("tools") or tools or "?"),
        max_steps=None if max_steps is None or math.isnan(max_steps) else int(max_steps),
        scores={key: value for key, value in ((k, _number(v)) for k, v in scores.items()) if value is not None},
        questions=questions,
        settings=settings,
    )
