"""`python -m leakproof_eval`: lm_eval's own command line with these tasks included and the no-weights models
registered.

    python -m leakproof_eval run --model oracle --tasks phantom_wiki_instances --limit 100
    python -m leakproof_eval run --model local-completions --model_args model=M,base_url=URL,tokenizer_backend=none \
        --tasks phantom_wiki --metadata '{"phantom_wiki_seed": 7}'
    python -m leakproof_eval tasks-path        # the folder for lm_eval's --include_path
    python -m leakproof_eval report results/ runs/oracle --out report/   # tables and figures of results

`run` takes exactly lm_eval's arguments; it adds `--include_path <tasks>` when none is given, and refuses
`push_samples_to_hub` for NeoQA tasks (a model's responses may quote the CC BY-ND articles).
"""

from __future__ import annotations

import math
import re
import socket
import sys
import tempfile
import urllib.parse
from pathlib import Path

from . import TaskSetupError, tasks_path

USAGE = "usage: python -m leakproof_eval {run <lm_eval arguments> | tasks-path | report RESULTS... [--out DIR]}"


def _pushes_neoqa_samples(args: list[str]) -> bool:
    """True when the arguments ask to push samples to the Hub and mention NeoQA (a task, a tag or its metadata)."""
    joined = ",".join(args).lower().replace(" ", "")
    return re.search(r"push_samples_to_hub\"?[=:]\"?(true|1|yes)\b", joined) is not None and "neoqa" in joined


def run(args: list[str]) -> int:
    """Register the models, then hand the arguments to lm_eval's CLI as `lm_eval run ...` would."""
    from lm_eval.__main__ import cli_evaluate

    from . import models  # noqa: F401  (registration)

    if _pushes_neoqa_samples(args):
        print(
            "leakproof_eval: refusing to push NeoQA samples to the Hub: the model's responses may quote the "
            "CC BY-ND 4.0 articles; drop push_samples_to_hub or the NeoQA tasks",
            file=sys.stderr,
        )
        return 2
    limit = _option(args, "--limit")
    if limit is not None and not _positive(limit):
        print(
            f"leakproof_eval: --limit {limit} must be above 0 and finite (a count of documents, or a share below 1)",
            file=sys.stderr,
        )
        return 2
    problem = (
        _unusable_model(_option(args, "--model"))
        or _unwritable(_option(args, "--output_path"))
        or _unreachable(_option(args, "--model"), _option(args, "--model_args"))
    )
    if problem:
        print(f"leakproof_eval: {problem}", file=sys.stderr)
        return 2
    if not any(arg == "--include_path" or arg.startswith("--include_path=") for arg in args):
        args = [*args, "--include_path", tasks_path()]
    args = _name_no_weights_model(args)
    sys.argv = ["lm_eval", "run", *args]
    try:
        cli_evaluate()
    except (TaskSetupError, ValueError) as error:  # lm_eval's argument errors (bad JSON, unknown task or model)
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"leakproof_eval: {first[:600]}", file=sys.stderr)
        return 2
    return 0


def _unusable_model(name: str | None) -> str | None:
    """Why lm_eval cannot build the model `name` (unknown, or its packages missing), said before it reads any task."""
    from lm_eval.api.registry import get_model

    if name is None:
        return None
    try:
        get_model(name)
    except ValueError as error:  # lm_eval's own words: "... no model for this name found! Supported model names: ..."
        return str(error).strip().splitlines()[0][:600]
    except ImportError as error:
        return (
            f"--model {name} needs {error.name or 'a package'} (not installed): for hf, pip install "
            '"lm_eval[hf]" (torch, transformers); for vllm, "lm_eval[vllm]"; or use an OpenAI-compatible server'
        )
    return None


def _name_no_weights_model(args: list[str]) -> list[str]:
    """Add `model=<name>` to a no-weights model's --model_args, so its results go to --output_path/<name>/."""
    from .models import NO_WEIGHTS_MODELS

    model, model_args = _option(args, "--model"), _option(args, "--model_args")
    if model not in NO_WEIGHTS_MODELS or (model_args is not None and "model=" in model_args):
        return args
    if model_args is None:
        return [*args, "--model_args", f"model={model}"]
    return [f"{arg},model={model}" if arg in (model_args, f"--model_args={model_args}") else arg for arg in args]


def _option(args: list[str], name: str) -> str | None:
    """The value of `--name VALUE` or `--name=VALUE` in lm_eval's arguments, if given."""
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def _positive(text: str) -> bool:
    try:
        return math.isfinite(float(text)) and float(text) > 0
    except ValueError:
        return False


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


def _unreachable(model: str | None, model_args: str | None) -> str | None:
    """Why an API model's base_url cannot be reached (nothing listens there, no such host), said at once and once,
    before lm_eval would retry every request and log each failure."""
    if model not in API_MODELS or not model_args:
        return None
    options = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part)
    base_url = options.get("base_url", "").strip()
    parts = urllib.parse.urlsplit(base_url)
    if not base_url or parts.scheme not in ("http", "https") or not parts.hostname:
        return None if not base_url else f"base_url {base_url!r} in --model_args is not an http(s) URL"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        socket.create_connection((parts.hostname, port), timeout=REACH_TIMEOUT).close()
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
        return f"cannot reach {base_url}: {reason}; is the server running, and is base_url in --model_args right?"
    return None


def main(argv: list[str]) -> int:
    """Dispatch `run`, `tasks-path` and `report`."""
    if argv[:1] == ["tasks-path"] and len(argv) == 1:
        print(tasks_path())
        return 0
    if argv[:1] == ["run"]:
        return run(argv[1:])
    if argv[:1] == ["report"]:
        from .report import main as report

        return report(argv[1:])
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
