"""Hand-made articles and rows in the project's formats, for holding the verifier to the rule (tests only)."""

from __future__ import annotations

import html
from typing import Any

FAMILY = ("sister", "brother", "mother", "father", "son", "daughter", "wife", "husband")
PLURAL = {"wife": "wives"}
ATTRIBUTES = (
    ("dob", "date of birth"),
    ("job", "occupation"),
    ("hobby", "hobby"),
    ("birthplace", "place of birth"),
    ("residence", "city of residence"),
    ("school", "school"),
    ("gender", "gender"),
)


def _sentence(word: str, subject: str, objects: list[str]) -> str:
    if len(objects) == 1:
        return f"The {word} of {subject} is {objects[0]}."
    return f"The {PLURAL.get(word, word + 's')} of {subject} are {', '.join(objects)}."


def article(name: str, friends: tuple[str, ...] = (), **facts: Any) -> str:
    """A markdown article as the generator writes them: family sentences, friends, attributes (names sorted)."""
    family = [_sentence(w, name, sorted(facts[w])) for w in FAMILY if facts.get(w)]
    friend = [_sentence("friend", name, sorted(friends))] if friends else []
    attributes = [f"The {wording} of {name} is {facts[key]}." for key, wording in ATTRIBUTES if key in facts]
    return (
        f"# {name}\n\n## Family\n"
        + "\n".join(family)
        + "\n\n## Friends\n"
        + "\n".join(friend)
        + "\n\n## Attributes\n"
        + "\n".join(attributes)
        + "\n"
    )


def as_text(markdown: str) -> str:
    """The plain-text form of an article: no '# ', sections as 'Family:'."""
    out = []
    for line in markdown.splitlines():
        out.append(line[3:] + ":" if line.startswith("## ") else line[2:] if line.startswith("# ") else line)
    return "\n".join(out) + "\n"


def as_html(markdown: str) -> str:
    """The HTML form of an article."""
    out = ["<article>"]
    for line in markdown.splitlines():
        if line.startswith("## "):
            out.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("# "):
            out.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line:
            out.append(f"<p>{html.escape(line)}</p>")
    return "\n".join(out + ["</article>"]) + "\n"


# The Ozaki-Kohen family: Hank Ozaki married Eve Ozaki (born Kohen); Eve's brothers are Damion and Arlen Kohen,
# children of Bertie and Coleman Kohen; Hank and Eve have a son, Jodi Ozaki.
ARTICLES = {
    "Hank Ozaki": article(
        "Hank Ozaki", wife=["Eve Ozaki"], son=["Jodi Ozaki", "Ross Ozaki"], job="barber", hobby="tango", gender="male"
    ),
    "Eve Ozaki": article(
        "Eve Ozaki",
        brother=["Arlen Kohen", "Damion Kohen"],
        mother=["Bertie Kohen"],
        father=["Coleman Kohen"],
        son=["Jodi Ozaki", "Ross Ozaki"],
        husband=["Hank Ozaki"],
        job="nurse",
        gender="female",
    ),
    "Damion Kohen": article(
        "Damion Kohen",
        sister=["Eve Ozaki"],
        brother=["Arlen Kohen"],
        mother=["Bertie Kohen"],
        father=["Coleman Kohen"],
        friends=("Luann Osdoba",),
        job="actor",
        hobby="sewing",
        residence="Paris",
        gender="male",
    ),
    "Arlen Kohen": article(
        "Arlen Kohen",
        sister=["Eve Ozaki"],
        brother=["Damion Kohen"],
        mother=["Bertie Kohen"],
        father=["Coleman Kohen"],
        son=["Newton Kohen"],
        job="actuary",
        gender="male",
    ),
    "Jodi Ozaki": article(
        "Jodi Ozaki", brother=["Ross Ozaki"], mother=["Eve Ozaki"], father=["Hank Ozaki"], job="cook", gender="male"
    ),
    "Newton Kohen": article("Newton Kohen", father=["Arlen Kohen"], job="baker", gender="male"),
    "Luann Osdoba": article("Luann Osdoba", friends=("Damion Kohen",), job="pilot", gender="female"),
    "Coleman Kohen": article(
        "Coleman Kohen",
        son=["Arlen Kohen", "Damion Kohen"],
        daughter=["Eve Ozaki"],
        wife=["Bertie Kohen"],
        job="farmer",
        gender="male",
    ),
}
DEFLECTION = ["insufficient information"]


def row(question: str, shown: list[str], answerable: str, answer: list[str] | None = None, **labels: Any) -> dict:
    """An instances row: the question, the articles of `shown` (by name) as documents, and its labels."""
    return {
        "instance_id": labels.pop("instance_id", "handmade"),
        "question": question,
        "documents": [{"title": name, "text": ARTICLES[name]} for name in shown],
        "answerable": answerable,
        "answer": answer if answer is not None else DEFLECTION,
        "unanswerable_kind": labels.pop("unanswerable_kind", ""),
        "missing_role": labels.pop("missing_role", ""),
        "closed_world": labels.pop("closed_world", ""),
        **labels,
    }
