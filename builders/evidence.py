"""Evidence instances, independent of the dataset: distractor layouts, one document order per question, citations,
formats.

Layouts (NeoQA appendix E; CReSt section 3):
  * ``fixed``: every instance of a question holds the same total number of documents; an
    insufficient instance takes one more distractor in place of the article it lacks;
  * ``ablation``: NeoQA's 0, 20, 40, 60 and 80 irrelevant documents, each smaller set a prefix
    (so a subset) of the larger, the same distractors for the sufficient and insufficient instances.
One order per question: the union of all the question's documents is shuffled once, seeded by the
configuration seed and the question id, and each instance lists its documents in that relative order.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from .rng import shuffled, stream

ABLATION_LEVELS: tuple[int, ...] = (0, 20, 40, 60, 80)
DOCUMENT_FORMATS: tuple[str, ...] = ("markdown", "text", "html")


def distractor_counts(layout: str, total_documents: int, evidence_size: int) -> list[tuple[int, int]]:
    """(distractors with the full evidence, distractors with one article missing) per instance group of a layout."""
    if layout == "fixed":
        room = max(0, total_documents - evidence_size)
        return [(room, room + 1 if evidence_size <= total_documents else 0)]
    if layout == "ablation":
        return [(level, level) for level in ABLATION_LEVELS]
    raise ValueError(f"unknown layout {layout!r}; expected fixed or ablation")


def document_order(seed: int, key: str, titles: Sequence[str]) -> dict[str, int]:
    """Title -> rank in the one shuffled order of a question's documents (seeded by seed and key)."""
    order = shuffled(stream(seed, "documents", key), sorted(set(titles)))
    return {title: rank for rank, title in enumerate(order)}


def arrange(order: dict[str, int], titles: Sequence[str]) -> list[str]:
    """`titles` in the question's shared order."""
    return sorted(titles, key=order.__getitem__)


def citations(documents: Sequence[str], evidence: Sequence[str]) -> list[int]:
    """0-based positions of the evidence titles among an instance's document titles."""
    wanted = set(evidence)
    return [position for position, title in enumerate(documents) if title in wanted]


def render(markdown: str, fmt: str) -> str:
    """A markdown document (# title, ## sections, sentence lines) as markdown, plain text or HTML."""
    if fmt == "markdown":
        return markdown
    lines = markdown.splitlines()
    if fmt == "text":
        out = []
        for line in lines:
            if line.startswith("## "):
                out.append(line[3:] + ":")
            elif line.startswith("# "):
                out.append(line[2:])
            else:
                out.append(line)
        return "\n".join(out) + "\n"
    if fmt == "html":
        out = ["<article>"]
        for line in lines:
            if line.startswith("## "):
                out.append(f"<h2>{html.escape(line[3:])}</h2>")
            elif line.startswith("# "):
                out.append(f"<h1>{html.escape(line[2:])}</h1>")
            elif line:
                out.append(f"<p>{html.escape(line)}</p>")
        out.append("</article>")
        return "\n".join(out) + "\n"
    raise ValueError(f"unknown document format {fmt!r}; expected one of {', '.join(DOCUMENT_FORMATS)}")


def to_markdown(text: str, fmt: str) -> str:
    """The markdown a rendered document came from (the inverse of `render` for what it writes)."""
    if fmt == "markdown":
        return text
    lines = text.splitlines()
    out = []
    if fmt == "text":
        for index, line in enumerate(lines):
            if index == 0:
                out.append("# " + line)
            elif line.endswith(":") and not line.startswith("The "):
                out += ["", "## " + line[:-1]] if out and out[-1] != "" else ["## " + line[:-1]]
            elif line:
                out.append(line)
        return _normalise(out)
    if fmt == "html":
        for line in lines:
            if line.startswith("<h1>"):
                out.append("# " + html.unescape(line[4:-5]))
            elif line.startswith("<h2>"):
                out.append("## " + html.unescape(line[4:-5]))
            elif line.startswith("<p>"):
                out.append(html.unescape(line[3:-4]))
        return _normalise(out)
    raise ValueError(f"unknown document format {fmt!r}; expected one of {', '.join(DOCUMENT_FORMATS)}")


def _normalise(lines: list[str]) -> str:
    """Markdown lines with one blank line before each section heading."""
    out: list[str] = []
    for line in lines:
        if line.startswith("#") and out:
            if out[-1] != "":
                out.append("")
        if line == "" and out and out[-1] == "":
            continue
        out.append(line)
    return "\n".join(out) + "\n"
