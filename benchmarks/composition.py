"""The composition of a configuration's `instances` and `rag` rows: by label, unanswerable kind, missing role and the
hops each question's text names (issue 35: say what share of rows is which, and keep it balanced).

    PYTHONPATH=. .venv/bin/python benchmarks/composition.py n5000_s1 [n500_s1 ...]
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import instance_rows, rag_rows
from leakproof_qa.builders.phantomwiki.stages import generate


def composition(name: str) -> list[str]:
    """Lines that describe one configuration's instances and rag rows."""
    generated = generate(settings_from(name)[0])
    hops = {q.id: sum(t.startswith("<relation>") for t in q.template) for q in generated.questions}
    lines = []
    for subset, make in (("instances", instance_rows), ("rag", rag_rows)):
        rows = list(make(generated))
        lines.append(f"{name} {subset}: {len(rows)} rows of {len({r['question_id'] for r in rows})} questions")
        lines.append(f"  label: {dict(Counter(r['answerable'] for r in rows))}")
        lines.append(
            f"  unanswerable kind: {dict(Counter(r['unanswerable_kind'] for r in rows if r['unanswerable_kind']))}"
        )
        if subset == "instances":
            lines.append(f"  missing role: {dict(Counter(r['missing_role'] for r in rows if r['missing_role']))}")
            lines.append(f"  documents a row: {sum(len(r['documents']) for r in rows) / max(1, len(rows)):.1f}")
        by_hops: dict[int, Counter[str]] = defaultdict(Counter)
        for row in rows:
            by_hops[hops[row["question_id"]]][row["answerable"]] += 1
        for h in sorted(by_hops):
            c = by_hops[h]
            lines.append(
                f"  {h} hops: sufficient {c['sufficient']}, insufficient {c['insufficient']}, "
                f"unanswerable {c['unanswerable']}"
            )
    return lines


if __name__ == "__main__":
    for config in sys.argv[1:] or ["n5000_s1"]:
        print("\n".join(composition(config)))
