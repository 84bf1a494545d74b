"""Map a model's free-text response to the index of the NeoQA answer option it chose.

The prompts (paper appendix H.35-H.39) ask for a final line ``Answer: N`` with N the
1-based option number; the paper also accepts the option stated by its text (F.7).  The
release's parser, when it matched an option by text, returned the position in a list
sorted by option length instead of the option's own index; here the index returned is
always the index into ``options`` as given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_LAST_LINE = re.compile(r"^(?:answer\s*:\s*)+\[?\s*(\d+)\s*\]?\s*\.?\s*$", re.IGNORECASE)
_ANYWHERE = re.compile(r"answer\s*:\s*\[?\s*(\d+)\s*\]?(?![\w.,%])", re.IGNORECASE)
_ANSWER_LABEL = re.compile(r"answer\s*:", re.IGNORECASE)


def _by_number(match: re.Match[str] | None, count: int) -> int | None:
    """Turn a matched 1-based option number into a 0-based index, if it is in range."""
    if match is None:
        return None
    index = int(match.group(1)) - 1
    return index if 0 <= index < count else None


def _by_text(tail: str, options: Sequence[str]) -> int | None:
    """Find the option whose text starts ``tail`` (longest option first, so no option shadows a longer one)."""
    text = tail.strip().strip("\"'`[]()").strip().lower()
    for index in sorted(range(len(options)), key=lambda i: (-len(options[i].strip()), i)):
        option = options[index].strip().lower()
        if option and text.startswith(option) and (len(text) == len(option) or not text[len(option)].isalnum()):
            return index
    return None


def parse_answer(response: str, options: Sequence[str]) -> int | None:
    """Return the 0-based index into ``options`` of the answer in ``response``, or None if none can be read.

    Order of attempts: a line that is exactly ``Answer: N`` (the last such line wins);
    then ``Answer: <option text>`` (the last label wins; longest matching option); then
    ``Answer: N`` anywhere, when N is not followed by more of a word or number; then an option's
    own text as the last line, without a label ("Distractor 1 of QA1").
    """
    text = response.replace("*", "")
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    for line in reversed(lines):
        index = _by_number(_LAST_LINE.match(line), len(options))
        if index is not None:
            return index
    for label in reversed(list(_ANSWER_LABEL.finditer(text))):
        index = _by_text(text[label.end() :].split("\n", 1)[0], options)
        if index is not None:
            return index
    for match in reversed(list(_ANYWHERE.finditer(text))):
        index = _by_number(match, len(options))
        if index is not None:
            return index
    return _by_text(lines[-1], options) if lines else None
