"""A reader written from the rule the prompts state, and from nothing the generator computes.

The rule: a person's own article is the complete source of their family (parents, children, siblings,
spouses), friends and attributes. The careful reader evaluates a question hop by hop from its anchor and
refuses ("insufficient information") the moment it needs the lists or attributes of a person who has no
article among the documents; a question that starts from an attribute value needs its closed-world
sentence ("In this universe, exactly 3 people have the hobby tango.") and refuses when fewer holders
have articles. Given the question's text too, it refuses when the question names a person no document names
(who has no article and appears in no list), or states a premise ("Geri Adey's cousin Lanny Widgeon", "(whose
hobby is tango)", "(who lives in Oslo)") that the documents do not confirm: an attribute or a place by the
person's own article, a relation by a path of the relation over the facts the documents state, each step stated by
any document in either direction (a sibling list, a parent, child, spouse or friend line, whoever's article it is;
siblings also through a shared parent, spouses through a shared child). A gender is known from any sentence that
gives it. A relation premise names one person, so the question asks about that person (its query starts from them).
The
eager reader walks the same way but never refuses: a missing article reads as empty, and premises are taken on
trust.

Only the documents' text is read (its own sentence parser); relation paths come from the relation table
(data/relations.tsv, the v1 rules), rewritten here so that "a parent's other child" is one sibling step
and "a child's other parent" one spouse step, each read from the person's own article.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from leakproof_qa.builders.phantomwiki.relations import DATA_DIR
from leakproof_qa.builders.phantomwiki.variants import named_people, read_premises

DEFLECTION = "insufficient information"
_LISTS = {  # sentence word -> (the person's list it fills, the gender it gives the people named)
    "sister": ("sibling", "female"),
    "sisters": ("sibling", "female"),
    "brother": ("sibling", "male"),
    "brothers": ("sibling", "male"),
    "mother": ("parent", "female"),
    "mothers": ("parent", "female"),
    "father": ("parent", "male"),
    "fathers": ("parent", "male"),
    "son": ("child", "male"),
    "sons": ("child", "male"),
    "daughter": ("child", "female"),
    "daughters": ("child", "female"),
    "wife": ("spouse", "female"),
    "wives": ("spouse", "female"),
    "husband": ("spouse", "male"),
    "husbands": ("spouse", "male"),
    "friend": ("friend", None),
    "friends": ("friend", None),
}
_ATTRIBUTES = {
    "date of birth": "dob",
    "occupation": "job",
    "hobby": "hobby",
    "gender": "gender",
    "place of birth": "birthplace",
    "city of residence": "residence",
    "school": "school",
}
_WORDS = "|".join(sorted(map(re.escape, [*_LISTS, *_ATTRIBUTES]), key=len, reverse=True))
_SENTENCE = re.compile(rf"^The ({_WORDS}) of (.+?) (?:is|are) (.+)\.$")
_CLOSED_WORLD = re.compile(r"exactly (\d+) (?:person has|people have) the (.+?) (.+?)\.")
_LITERAL = re.compile(r"^(\w+)\((.+?),\s*(.+)\)$")
_COUNT = re.compile(r"^aggregate_all\(count,\s*distinct\((\w+)\((.+?),\s*(Y_\d+)\)\),\s*(Count_\d+)\)$")
STEP = {"P": "parent", "C": "child", "F": "friend"}


class Missing(Exception):
    """The reader needs the article of a person the documents do not hold."""


def _relation_paths() -> dict[str, list[str]]:
    """Each relation's path in list steps: parent, child, friend, sibling, spouse, female, male, neq:i."""
    table = {}
    for line in (DATA_DIR / "relations.tsv").read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        name, *_, path = line.split("\t")
        tokens, out = path.split(), []
        node = kept = 0  # index of the current node in the table's path and in ours
        renumber = {0: 0}
        i = 0
        while i < len(tokens):
            pair = tokens[i : i + 3]
            if pair in (["P", "C", f"neq:{node}"], ["C", "P", f"neq:{node}"]):
                out.append("sibling" if pair[0] == "P" else "spouse")
                node, kept = node + 2, kept + 1
                renumber[node] = kept
                i += 3
                continue
            token = tokens[i]
            if token in STEP:
                node, kept = node + 1, kept + 1
                renumber[node] = kept
                out.append(STEP[token])
            elif token.startswith("neq:"):
                out.append(f"neq:{renumber[int(token[4:])]}")
            else:
                out.append(token)
            i += 1
        table[name] = out
    return table


PATHS = _relation_paths()


@lru_cache(maxsize=200_000)
def read_document(text: str) -> tuple[str, dict[str, tuple[str, ...]], dict[str, str], dict[str, str]]:
    """(title, the person's own lists, their attributes, the genders its sentences give) of one document."""
    lines = text.strip().splitlines()
    title = lines[0].removeprefix("# ")
    lists: dict[str, list[str]] = {"parent": [], "child": [], "sibling": [], "spouse": [], "friend": []}
    attributes: dict[str, str] = {}
    genders: dict[str, str] = {}
    for line in lines[1:]:
        match = _SENTENCE.match(line)
        if not match:
            continue
        word, subject, objects = match.groups()
        assert subject == title, line  # an article speaks of its own person only
        if word in _ATTRIBUTES:
            attributes[_ATTRIBUTES[word]] = objects
            continue
        kind, gender = _LISTS[word]
        for name in objects.split(", "):
            lists[kind].append(name)
            if gender:
                genders[name] = gender
    if "gender" in attributes:
        genders[title] = attributes["gender"]
    return title, {kind: tuple(names) for kind, names in lists.items()}, attributes, genders


_INVERSE = {"parent": "child", "child": "parent", "sibling": "sibling", "spouse": "spouse", "friend": "friend"}


class Documents:
    """What the documents say: each titled person's own lists and attributes, genders from any sentence, and every
    stated fact in both directions (whoever's article states it)."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.own: dict[str, dict[str, tuple[str, ...]]] = {}
        self.attributes: dict[str, dict[str, str]] = {}
        self.gender: dict[str, str] = {}
        self.facts: dict[str, dict[str, set[str]]] = {}  # person -> kind -> the people a fact links them to
        for text in texts:
            title, lists, attributes, genders = read_document(text)
            self.own[title] = lists
            self.attributes[title] = attributes
            self.gender.update(genders)
            for kind, names in lists.items():
                for name in names:
                    self._link(title, kind, name)
        for person in list(self.facts):  # a shared parent makes siblings, a shared child spouses
            for parent in list(self.facts[person].get("parent", ())):
                for other in list(self.facts.get(parent, {}).get("child", ())):
                    if other != person:
                        self._link(person, "sibling", other)
            for child in list(self.facts[person].get("child", ())):
                for other in list(self.facts.get(child, {}).get("parent", ())):
                    if other != person:
                        self._link(person, "spouse", other)

    def _link(self, person: str, kind: str, other: str) -> None:
        self.facts.setdefault(person, {}).setdefault(kind, set()).add(other)
        self.facts.setdefault(other, {}).setdefault(_INVERSE[kind], set()).add(person)

    def names(self, person: str) -> bool:
        """Whether any document names the person: their own article, or a list of someone else's."""
        return person in self.own or person in self.facts


class Reader:
    """Answers a chain query from documents; careful (refuses at a missing article) or eager (never refuses)."""

    def __init__(self, documents: Documents, careful: bool = True) -> None:
        self.docs = documents
        self.careful = careful

    def _article(self, person: str) -> bool:
        if person in self.docs.own:
            return True
        if self.careful:
            raise Missing(person)
        return False

    def relation(self, rel: str, person: str, some_path: bool = False) -> set[str]:
        """The people rel(person, _) reaches, each list read from its person's own article; with some_path, over
        every fact the documents state (either direction), never refusing: a premise's confirmation."""
        paths: list[tuple[str, ...]] = [(person,)]
        for step in PATHS[rel]:
            if step in ("female", "male"):  # a gender from any sentence; else from the person's own article
                paths = [
                    path
                    for path in paths
                    if (path[-1] in self.docs.gender or some_path or self._article(path[-1]))
                    and self.docs.gender.get(path[-1]) == step
                ]
            elif step.startswith("neq:"):
                index = int(step[4:])
                paths = [path for path in paths if path[-1] != path[index]]
            elif some_path:
                paths = [path + (other,) for path in paths for other in self.docs.facts.get(path[-1], {}).get(step, ())]
            else:
                paths = [
                    path + (other,)
                    for path in paths
                    if self._article(path[-1])
                    for other in self.docs.own[path[-1]][step]
                ]
        return {path[-1] for path in paths}

    def answer(self, query: Sequence[str], closed_world: str = "", question: str = "") -> list[str] | None:
        """The sorted answers, or None where the careful reader cannot prove them complete or the question's
        premises."""
        try:
            if self.careful:
                self._check(question)
            return self._answer(narrowed(query, question), closed_world)
        except Missing:
            return None

    def _check(self, question: str) -> None:
        """Every document-less person the question names is named by some document (a person no document names may
        not exist), and every premise its wording states is confirmed."""
        for person in named_people(question):
            if not self.docs.names(person):
                self._article(person)
        for predicate, subject, value in read_premises(question):
            if predicate in PATHS:  # one path through the documents shows it
                confirmed = value in self.relation(predicate, subject, some_path=True)
            else:  # an attribute or a place: the person's own article states it
                confirmed = self._article(subject) and self.docs.attributes[subject].get(predicate) == value
            if not confirmed:
                raise Missing(f"{predicate}({subject}, {value})")

    def _answer(self, query: Sequence[str], closed_world: str) -> list[str]:
        literals = list(reversed(query))
        first = _LITERAL.match(literals[0])
        frontier: set[str]
        if first and first.group(1) not in PATHS and first.group(3).startswith('"'):  # job(Y, "dentist")
            attribute, value = first.group(1), first.group(3)[1:-1]
            frontier = {p for p, attrs in self.docs.attributes.items() if attrs.get(attribute) == value}
            stated = _CLOSED_WORLD.search(closed_world)
            if self.careful and (stated is None or int(stated.group(1)) != len(frontier)):
                raise Missing(f"a holder of {attribute} {value}")
            literals = literals[1:]
        else:
            frontier = set()
        for text in literals:
            count = _COUNT.match(text)
            if count:
                rel, source = count.group(1), count.group(2)
                people = {source.strip('"')} if source.startswith('"') else frontier
                counts = set()
                for person in people:
                    self._article(person)
                    counts.add(len(self.relation(rel, person)))
                return [str(c) for c in sorted(counts)]
            predicate, source, _ = _LITERAL.match(text).groups()
            people = {source.strip('"')} if source.startswith('"') else frontier
            if predicate in PATHS:
                frontier = set().union(*(self.relation(predicate, p) for p in sorted(people))) if people else set()
            else:  # an attribute of each person reached
                values = set()
                for person in people:
                    if self._article(person) and predicate in self.docs.attributes[person]:
                        values.add(self.docs.attributes[person][predicate])
                return sorted(values)
        return sorted(frontier)


def narrowed(query: Sequence[str], question: str) -> list[str]:
    """The query a question asks: a relation premise ("Geri Adey's cousin Lanny Widgeon") names the one person its
    innermost hop reaches, so the query starts from them instead."""
    for predicate, _, person in read_premises(question):
        if predicate in PATHS:
            variable = _LITERAL.match(query[-1]).group(3)
            rest = list(query[:-1])
            rest[-1] = re.sub(rf"(?<![\w]){variable}(?![\w])", f'"{person}"', rest[-1], count=1)
            return rest
    return list(query)


def evidence_texts(prompt: str) -> list[str]:
    """The markdown documents between (BEGIN EVIDENCE) and (END EVIDENCE) of a prompt."""
    body = prompt.split("(BEGIN EVIDENCE)\n", 1)[1].split("\n(END EVIDENCE)", 1)[0]
    body = re.sub(r"(?m)^Document \[\d+\]\n", "", body)
    return ["# " + part for part in re.split(r"(?m)^# ", body) if part.strip()]
