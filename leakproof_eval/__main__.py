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

import re
import sys

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
            f"leakproof_eval: --limit {limit} must be above 0 (a count of documents, or a share below 1)",
            file=sys.stderr,
        )
        return 2
    unusable = _unusable_model(_option(args, "--model"))
    if unusable:
        print(f"leakproof_eval: {unusable}", file=sys.stderr)
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
        return float(text) > 0
    except ValueError:
        return False


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
