"""Articles: one wiki-style page per person, the only text a model sees, and a reader that turns it back into facts."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from .relations import ARTICLE_RELATIONS, attributes, relations
from .universe import Universe

ARTICLE_ATTRIBUTES = (
    "dob",
    "job",
    "hobby",
    "birthplace",
    "residence",
    "school",
    "gender",
)  # places: where a person has one


@dataclass
class Article:
    """A person's page: the only text a model sees. The facts it states come from `article_facts`."""

    title: str
    article: str


def _sentence(word: str, plural: str, subject: str, objects: list[str]) -> str:
    if len(objects) == 1:
        return f"The {word} of {subject} is {objects[0]}."
    return f"The {plural} of {subject} are {', '.join(objects)}."


def family_of(universe: Universe, person: int) -> dict[str, list[int]]:
    """The people each article relation links `person` to, straight from parent edges."""
    female, parents, children = universe.female, universe.parents, universe.children
    siblings = {c for p in parents[person] for c in children[p]} - {person}
    spouses = {p for c in children[person] for p in parents[c]} - {person}
    return {
        "sister": [s for s in siblings if female[s]],
        "brother": [s for s in siblings if not female[s]],
        "mother": [p for p in parents[person] if female[p]],
        "father": [p for p in parents[person] if not female[p]],
        "son": [c for c in children[person] if not female[c]],
        "daughter": [c for c in children[person] if female[c]],
        "wife": [s for s in spouses if female[s]],
        "husband": [s for s in spouses if not female[s]],
    }


def statements(universe: Universe, person: int) -> Iterator[tuple[str, list[str]]]:
    """(predicate, objects) for each sentence of a person's article, in article order: family relations and
    friends with their names sorted alphabetically, then each attribute with its one value."""
    names = universe.names
    for rel, linked in family_of(universe, person).items():
        if linked:
            yield rel, sorted(names[p] for p in linked)
    if universe.friends[person]:
        yield "friend", sorted(names[p] for p in universe.friends[person])
    for attr in ARTICLE_ATTRIBUTES:
        value = universe.gender(person) if attr == "gender" else universe.attribute(attr)[person]
        if value is not None:
            yield attr, [value]


def write_article(universe: Universe, person: int) -> Article:
    """The article of one person (names in each sentence sorted alphabetically)."""
    subject = universe.names[person]
    rel_table, attr_table = relations(), attributes()
    family_lines, friend_lines, attribute_lines = [], [], []
    for predicate, objects in statements(universe, person):
        if predicate == "friend":
            friend_lines.append(_sentence("friend", "friends", subject, objects))
        elif predicate in rel_table:
            family_lines.append(_sentence(rel_table[predicate].singular, rel_table[predicate].plural, subject, objects))
        else:
            attribute_lines.append(f"The {attr_table[predicate].wording} of {subject} is {objects[0]}.")
    text = (
        f"# {subject}\n\n## Family\n"
        + "\n".join(family_lines)
        + "\n\n## Friends\n"
        + "\n".join(friend_lines)
        + "\n\n## Attributes\n"
        + "\n".join(attribute_lines)
        + "\n"
    )
    return Article(subject, text)


def article_facts(universe: Universe, person: int) -> list[str]:
    """The facts a person's article states, in its order, e.g. 'sister("Ann Lee", "Bo Lee")' (the corpus's
    `facts`; made when written rather than held beside every article, which at a million people is a gigabyte)."""
    subject = universe.names[person]
    return [f'{predicate}("{subject}", "{o}")' for predicate, objects in statements(universe, person) for o in objects]


@lru_cache(maxsize=1)
def _phrases() -> dict[str, str]:
    """Sentence word (singular and plural) -> predicate, for every sentence an article can hold (made once)."""
    phrases = {}
    for rel in ARTICLE_RELATIONS + ("friend",):
        phrases[relations()[rel].singular] = rel
        phrases[relations()[rel].plural] = rel
    for attr in ARTICLE_ATTRIBUTES:
        phrases[attributes()[attr].wording] = attr
    return phrases


def read_article(text: str) -> list[tuple[str, str, str]]:
    """(predicate, subject, object) for every statement in an article's text; the inverse of write_article."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# "):
        raise ValueError("an article starts with '# {name}'")
    subject = lines[0][2:]
    phrases, attribute_table = _phrases(), attributes()
    statements = []
    one, many = f" of {subject} is ", f" of {subject} are "
    for line in lines[1:]:
        if not line.startswith("The "):
            continue
        head, sep, rest = line.partition(one)
        if not sep:
            head, sep, rest = line.partition(many)
            if not sep:
                raise ValueError(f"cannot read {line!r} in the article of {subject}")
        predicate = phrases[head[len("The ") :]]
        values = rest[:-1].split(", ") if predicate not in attribute_table else [rest[:-1]]
        statements += [(predicate, subject, value) for value in values]
    return statements
