"""`python -m leakproof_qa report RESULTS... [--out DIR]`: lm-eval results and agent runs as Markdown tables and
the paper's figures.

Tables: a headline (one row per model and universe: the ADTScore of the `phantom_wiki` group and of each task, F1,
citations), one per task (every metric, and with `--log_samples` files the accuracy of each category: answerable,
insufficient, each unanswerable kind, and of each missing article's role), and the agent runs (F1, the questions
that hit the step limit, tool calls against the minimum). The values are the results files' own; a breakdown is
recomputed from the logged documents by the aggregation the task itself runs (builders.metrics), and is left out,
with a note, when those documents do not reproduce the results file. Figures (leakproof_eval/figures.py) go to
`--out` with report.md.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from leakproof_qa.builders import tsv

from .breakdowns import category_accuracy, category_key, reproduces, role_accuracy
from .results import AgentRun, Report, ReportError, Sample, TaskResult, find, read_results, read_run

COLUMNS_FILE = Path(__file__).with_name("data") / "report_columns.tsv"


@dataclass(frozen=True)
class Column:
    table: str
    task: str
    metric: str
    kind: str  # "count" or "score"
    header: str

    def shown(self, value: float | None) -> str:
        """The value as this column writes it."""
        return count(value) if self.kind == "count" else number(value)


@cache
def columns() -> tuple[Column, ...]:
    """The tables' columns (data/report_columns.tsv)."""
    return tuple(Column(*row) for row in tsv.rows(COLUMNS_FILE))


# --- tables ------------------------------------------------------------------------------------------------------


def number(value: float | None) -> str:
    """A score as a table cell: three decimals, `n/a` for a missing or undefined value."""
    return "n/a" if value is None or math.isnan(value) else f"{value:.3f}"


def count(value: float | None) -> str:
    """A count as a table cell: a whole number with thousands separators, `n/a` when missing."""
    return "n/a" if value is None or math.isnan(value) else f"{round(value):,}"


def cell(text: Any) -> str:
    """Text from someone else's file as one Markdown cell: one line, no column breaks, bounded."""
    shown = " ".join(str(text).split()).replace("|", "\\|")
    return shown if len(shown) <= 120 else shown[:117] + "..."


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int) -> str:
    """A Markdown table; the columns from `numeric_from` on are right-aligned."""
    align = ["---" if index < numeric_from else "---:" for index in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def latest(results: Iterable[TaskResult]) -> tuple[dict[tuple[str, str, str], TaskResult], list[str]]:
    """The newest result of each (model, universe, task), and a note for each older one set aside."""
    chosen: dict[tuple[str, str, str], TaskResult] = {}
    notes = []
    for result in sorted(results, key=lambda r: (r.date, str(r.source))):
        key = (result.model, result.universe, result.task)
        if key in chosen:
            notes.append(
                f"{cell(result.model)} on {cell(result.universe)}, {result.task}: {chosen[key].source} is older "
                f"than {result.source} and is left out"
            )
        chosen[key] = result
    return chosen, notes


def headline_table(chosen: Mapping[tuple[str, str, str], TaskResult]) -> str | None:
    """One row per model and universe: the headline columns some row has."""
    pairs = sorted({(model, universe) for model, universe, _ in chosen})
    wanted = [
        c
        for c in columns()
        if c.table == "headline" and any(c.metric in r.metrics for key, r in chosen.items() if key[2] == c.task)
    ]
    if not wanted:
        return None
    rows = []
    for model, universe in pairs:
        values = [chosen.get((model, universe, c.task)) for c in wanted]
        rows.append(
            [cell(model), cell(universe)]
            + [c.shown(v.metrics.get(c.metric)) if v is not None else "" for c, v in zip(wanted, values)]
        )
    return markdown_table(["model", "universe", *(c.header for c in wanted)], rows, 2)


def task_table(task: str, results: Sequence[TaskResult]) -> str:
    """One row per model and universe of one task: every metric, then the categories and roles of logged samples."""
    listed = [c for c in columns() if c.table == "task" and c.task in ("*", task)]
    present = {metric for result in results for metric in result.metrics}
    metrics = [c for c in listed if c.metric in present]
    named = {c.metric for c in metrics}
    metrics += [Column("task", task, metric, "score", metric) for metric in sorted(present - named)]
    categories: dict[str, dict[str, tuple[float, int]]] = {}
    roles: dict[str, dict[str, tuple[float, int]]] = {}
    for result in results:
        if result.samples:
            categories[str(result.source)] = category_accuracy(result.samples)
            roles[str(result.source)] = role_accuracy(result.samples)
    # the answerable side is already `answerable acc.`; the categories to refuse each get a column
    category_names = sorted(
        {name for found in categories.values() for name in found if name != "answerable"}, key=category_key
    )
    role_names = sorted({name for found in roles.values() for name in found})
    parsed = {str(r.source): parse_rate(r.samples) for r in results if r.samples}
    shown_parsed = any(value is not None for value in parsed.values())
    headers = ["model", "universe", "documents", *(["parsed"] if shown_parsed else []), *(c.header for c in metrics)]
    headers += [f"acc. {name}" for name in category_names] + [f"acc. missing {name}" for name in role_names]
    rows = []
    for result in sorted(results, key=lambda r: (r.model, r.universe)):
        mine, own_roles = categories.get(str(result.source), {}), roles.get(str(result.source), {})
        rows.append(
            [cell(result.model), cell(result.universe), count(result.count)]
            + ([_counted(parsed.get(str(result.source)))] if shown_parsed else [])
            + [c.shown(result.metrics.get(c.metric)) for c in metrics]
            + [_counted(mine.get(name)) for name in category_names]
            + [_counted(own_roles.get(name)) for name in role_names]
        )
    return markdown_table(headers, rows, 2)


def parse_rate(samples: Sequence[Sample] | None) -> tuple[float, int] | None:
    """(share of logged responses read as an answer, documents) for a task whose model writes its answer (NeoQA's
    paper reports this beside its scores); None for a task that scores log-likelihoods or has no logs."""
    read = [s.value["prediction"] for s in samples or () if isinstance(s.value.get("prediction"), Mapping)]
    if not read:
        return None
    return sum(bool(str(p.get("answer", "")).strip()) for p in read) / len(read), len(read)


def _counted(value: tuple[float, int] | None) -> str:
    return "" if value is None else f"{number(value[0])} ({value[1]:,})"


def agent_table(runs: Sequence[AgentRun]) -> str:
    """One row per agent run: what scores.json holds, the step limit's count included."""
    wanted = [c for c in columns() if c.table == "agent" and any(c.metric in run.scores for run in runs)]
    headers = ["model", "universe", "mode", "tools", "max steps", *(c.header for c in wanted)]
    rows = [
        [cell(run.model), cell(run.universe), cell(run.mode), cell(run.tools), count(run.max_steps)]
        + [c.shown(run.scores.get(c.metric)) for c in wanted]
        for run in sorted(runs, key=lambda r: (r.model, r.universe, r.mode, r.tools, str(r.source)))
    ]
    return markdown_table(headers, rows, 4)


# --- the report --------------------------------------------------------------------------------------------------


def read(paths: list[str]) -> Report:
    """Read every results file and agent run under `paths`; breakdowns that do not reproduce their results are
    dropped with a note."""
    files, folders = find(paths)
    results = [result for path in files for result in read_results(path)]
    chosen, notes = latest(results)
    for result in chosen.values():
        if result.samples is None:
            continue
        why = reproduces(result)
        if why is not None:
            notes.append(f"{result.task} of {cell(result.model)} on {cell(result.universe)}: {why}; no breakdowns")
            result.samples = None
    runs = [read_run(folder) for folder in folders]
    for run in runs:
        if "step_limit" not in run.scores and {"questions", "finished"} <= set(run.scores):
            run.scores["step_limit"] = run.scores["questions"] - run.scores["finished"]
    return Report(chosen, runs, notes)


def markdown(report: Report, figures: Sequence[tuple[str, str]] = ()) -> str:
    """The report as Markdown: the tables, the figures (file, caption), and the notes."""
    parts = ["# Results", ""]
    headline = headline_table(report.chosen)
    if headline:
        parts += [
            "## Headline: one row per model and universe",
            "",
            headline,
            "",
            "ADTScore (headline) is the `phantom_wiki` group's: the mean ADTScore of instances, rag and mc.",
            "",
        ]
    tasks = sorted({task for _, _, task in report.chosen if task != "phantom_wiki"})
    for task in tasks:
        results = [result for key, result in report.chosen.items() if key[2] == task]
        parts += [f"## {task}", "", task_table(task, results), ""]
    logged = [r for r in report.chosen.values() if r.task != "phantom_wiki" and r.samples]
    unlogged = sorted(
        f"{r.task} ({cell(r.model)}, {cell(r.universe)})"
        for r in report.chosen.values()
        if r.task.startswith("phantom_wiki_") and r.samples is None
    )
    if report.chosen:
        parts += [
            "`documents`: how many documents lm_eval evaluated (`--limit`). `acc. <category>`: accuracy on "
            "each kind of document that must be refused, with its count; `acc. missing <role>`: "
            "refusals of the insufficient documents by the role of their missing article. Both come from the "
            "`--log_samples` files"
            + (f" ({len(logged)} of the rows above have them)." if logged else "; none were found."),
            "",
        ]
    if unlogged:
        parts += [
            "Without per-document logs (run lm_eval with `--log_samples`), these show only their results: "
            + "; ".join(unlogged)
            + ".",
            "",
        ]
    if report.runs:
        parts += ["## Agents", "", agent_table(report.runs), ""]
        parts += [
            "`at the step limit`: questions whose episode ended at `--max-steps` without an answer. `minimum / "
            "question`: the articles each question's answer needs (plus one Search for an attribute start).",
            "",
        ]
    if figures:
        parts += ["## Figures", ""]
        for name, caption in figures:
            parts += [f"![{caption}]({name})", "", f"*{caption}* (data: `{Path(name).with_suffix('.tsv')}`)", ""]
    if report.notes:
        parts += ["## Notes", "", *(f"* {note}" for note in report.notes), ""]
    return "\n".join(parts)


def parser() -> argparse.ArgumentParser:
    """The report command's arguments."""
    p = argparse.ArgumentParser(
        prog="python -m leakproof_qa report",
        description="Turn lm-eval results (folders of results_*.json, with --log_samples files for the breakdowns) "
        "and agent runs (folders of scores.json, trajectories.jsonl, run.json) into Markdown tables and figures.",
    )
    p.add_argument(
        "results", nargs="+", metavar="RESULTS", help="lm-eval --output_path folders, results files, agent runs"
    )
    p.add_argument(
        "--out", help="write report.md and the figures (PNG, each with its data as TSV) here; else print the tables"
    )
    return p


def main(argv: list[str]) -> int:
    """Print the tables, and with --out write report.md and the figures; a bad input is one line."""
    args = parser().parse_args(argv)
    try:
        report = read(args.results)
        if args.out is None:
            print(markdown(report))
            return 0
        from .figures import write_figures

        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise ReportError(f"--out {out} is a file; give a folder")
        out.mkdir(parents=True, exist_ok=True)
        drawn = write_figures(report, out)
        text = markdown(report, drawn)
        (out / "report.md").write_text(text, encoding="utf-8")
    except ReportError as error:
        print(f"leakproof_eval report: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"leakproof_eval report: cannot write {error.filename or args.out}: {error.strerror}", file=sys.stderr)
        return 2
    print(text)
    print(f"wrote {out / 'report.md'} and {len(drawn)} figure(s) to {out}", file=sys.stderr)
    return 0
