"""BM25 query speed: our BM25+ (the engine, bm25s's scores) against rank-bm25 (the pure-Python reference) on a
phantom_wiki corpus.

    python benchmarks/retrieval_bench.py                  # n5000_s1, 100 queries of each kind
    python benchmarks/retrieval_bench.py --config n20000_s1 --queries 50

Two kinds of query, as the instance builder issues them: the question text (the `rag` subset), and
the question plus the texts of its evidence articles (hard distractors). Both engines run the same
queries over the same corpus; the table gives index time, mean time per query and the ratio. rank-bm25 takes
minutes at n5000_s1 (about 200 s, most of it on the long queries): stderr says what runs, and every 10 s how far
it is.
"""

from __future__ import annotations

import argparse
import sys
import time

from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.instances import Evidence
from leakproof_qa.builders.retrieval import ENGINES, Bm25Index


def say(line: str) -> None:
    """A progress line on stderr (the table goes to stdout)."""
    print(line, file=sys.stderr, flush=True)


def timed_queries(index: Bm25Index, queries: list[str], what: str, every: float = 10.0) -> float:
    """Seconds to score every query, saying every `every` seconds how many are done."""
    start = last = time.perf_counter()
    for done, query in enumerate(queries, 1):
        index.scores(query)
        now = time.perf_counter()
        if now - last >= every:
            say(f"  {what}: {done}/{len(queries)} queries in {now - start:.0f} s")
            last = now
    return time.perf_counter() - start


def queries_of(config: str, count: int) -> tuple[list[str], dict[str, list[str]]]:
    """The corpus texts, and `count` question queries and `count` question-plus-evidence queries."""
    generated = engine.generate(settings_from(config)[0])
    evidence = Evidence(generated)
    texts = [evidence.corpus.texts[title] for title in evidence.corpus.titles]
    questions = generated.questions[:count]
    long_queries = []
    for question in questions:
        required = evidence.labels.required(question)
        long_queries.append("\n".join([question.question] + [evidence.corpus.texts[t] for t in required]))
    return texts, {"question": [q.question for q in questions], "question + evidence": long_queries}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="n5000_s1")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    say(f"generating {args.config} and its queries ...")
    texts, kinds = queries_of(args.config, args.queries)
    per_query: dict[tuple[str, str], float] = {}
    print(f"{args.config}: {len(texts)} articles\n")
    print("| engine | index (s) | query kind | queries | ms per query |")
    print("|---|---:|---|---:|---:|")
    for name in ENGINES:
        say(f"{name}: indexing {len(texts):,} articles ...")
        start = time.perf_counter()
        index = Bm25Index(texts, engine=name)
        built = time.perf_counter() - start
        for kind, queries in kinds.items():
            say(f"{name}: {len(queries)} {kind} queries ...")
            per_query[name, kind] = timed_queries(index, queries, f"{name}, {kind}") / len(queries)
            print(
                f"| {name} | {built:.2f} | {kind} | {len(queries)} | {1000 * per_query[name, kind]:.2f} |", flush=True
            )
    print()
    for kind in kinds:
        print(f"ours is {per_query['rank_bm25', kind] / per_query['bm25plus', kind]:.0f}x faster per {kind} query")


if __name__ == "__main__":
    main()
