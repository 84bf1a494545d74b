#!/usr/bin/env bash
# Install everything, generate a fresh PhantomWiki (5,000 people, seed 1, depth 20: every subset as
# Parquet in runs/quickstart/n5000_s1), and show one question with its exact answer, read back with plain `datasets`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/python -m phantom_wiki generate n5000_s1 --out runs/quickstart/n5000_s1 --overwrite
.venv/bin/python - <<'PY'
import datasets

questions = datasets.load_dataset("parquet", data_files="runs/quickstart/n5000_s1/questions.parquet", split="train")
# A readable one (a few hops, a short answer); see the file for all 500.
row = next(r for r in questions if 3 <= r["difficulty"] <= 6 and len(r["answer"]) <= 3)
print(f"\nQ: {row['question']}\nA: {row['answer']}\n   difficulty {row['difficulty']}, prolog {row['prolog']['query']}")
instances = datasets.load_dataset("parquet", data_files="runs/quickstart/n5000_s1/instances.parquet", split="train")
mine = instances.filter(lambda r: r["question_id"] == row["id"])
for r in mine.select(range(min(2, len(mine)))):
    print(f"   instance {r['instance_id']}: {r['answerable']}, gold {r['answer']}, "
          f"{len(r['documents'])} documents, evidence at {r['citations']}")
PY
echo
echo "Next: source .venv/bin/activate, then python -m phantom_wiki --help (or list); the README's 'Evaluate your model'"
echo "runs a model on a fresh universe."
