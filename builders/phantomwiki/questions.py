"""Questions: fill each template backwards from a random person along real edges, then solve it exactly."""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass

from ..rng import below, pick, stream
from .kinship import Kinship
from .relations import attributes, question_attributes, relation_bank, relations
from .solver import Solver, fact_text
from .templates import COUNT, NAME, WHAT, Template
from .universe import Universe

_PLACEHOLDER = re.compile(r"<[a-z_]+>_\d+")
ATTEMPTS_PER_QUESTION = 100


@dataclass
class Question:
    """One question with its exact answers and the facts used by all derivations of its answers."""

    id: str
    question: str
    answer: list[str]
    query: list[str]
    answer_variable: str
    template: list[str]
    type: int
    difficulty: int
    is_aggregation_question: bool
    evidence: list[str]


def _attribute_pairs(universe: Universe, person: int) -> list[tuple[str, str]]:
    pairs = []
    for name in question_attributes():
        value = universe.attribute(name)[person]
        if value is not None:
            pairs.append((name, value))
    return pairs


def pick_by_derivations(rng: random.Random, choices: list[tuple[str, int, int]]) -> tuple[str, int]:
    """A (relation, Y) pair with probability proportional to its derivations, as v1 picks among Prolog's solutions."""
    point = below(rng, sum(count for _, _, count in choices))
    for rel, person, count in choices:
        if point < count:
            return rel, person
        point -= count
    raise AssertionError("point outside the total")


def fill_template(template: Template, rng: random.Random, kinship: Kinship, bank: tuple[str, ...]) -> dict | None:
    """Placeholder -> (question words, query term), sampled backwards; None at a dead end."""
    universe = kinship.universe
    rel_table, attr_table = relations(), attributes()
    end = template.tokens[-2] if template.kind != COUNT else template.tokens[-3]
    start_index = end.rsplit("_", 1)[1]
    filled: dict[str, tuple[str, str]] = {}
    person = pick(rng, range(len(universe)))
    if template.start == NAME:
        name = universe.names[person]
        filled[f"<name>_{start_index}"] = (name, f'"{name}"')
    else:
        pairs = _attribute_pairs(universe, person)
        if not pairs:
            return None
        attr, value = pick(rng, pairs)
        filled[f"<attribute_name>_{start_index}"] = (attr_table[attr].wording, attr)
        filled[f"<attribute_value>_{start_index}"] = (value, f'"{value}"')
    relation_slots = [t for t in template.tokens if t.startswith("<relation>_")]
    for slot in reversed(relation_slots):
        choices = kinship.choices(person, bank)
        if not choices:
            return None
        rel, person = pick_by_derivations(rng, choices)
        filled[slot] = (rel_table[rel].singular, rel)
    if template.kind == WHAT:
        pairs = _attribute_pairs(universe, person)
        if not pairs:
            return None
        attr, _ = pick(rng, pairs)
        filled["<attribute_name>_3"] = (attr_table[attr].wording, attr)
    elif template.kind == COUNT:
        choices = kinship.choices(person, bank)
        if not choices:
            return None
        rel, _ = pick_by_derivations(rng, choices)
        filled["<relation_plural>_2"] = (rel_table[rel].plural, rel)
    return filled


def render(template: Template, filled: dict) -> tuple[str, list[str]]:
    """The question text and its Prolog query from a filled template."""
    text = " ".join(filled.get(t, (t,))[0] for t in template.tokens[:-1]) + template.tokens[-1]
    return text, [_PLACEHOLDER.sub(lambda m: filled[m.group(0)][1], lit) for lit in template.query]


def difficulty(query: list[str]) -> int:
    """v1's count: each relation its difficulty, each attribute literal 1, the count step 1."""
    table = relations()
    total = 0
    for literal in query:
        predicate = literal.split("(", 1)[0]
        total += table[predicate].difficulty if predicate in table else 1
    return total


def question_id(question: str, query: list[str]) -> str:
    """A stable id from the question's content."""
    digest = hashlib.sha256(json.dumps([question, query]).encode()).hexdigest()
    return digest[:20]


def sample_questions(
    templates: list[Template], kinship: Kinship, seed: int, per_template: int, easy_mode: bool
) -> list[Question]:
    """`per_template` distinct questions per template (fewer only if the universe has no more)."""
    bank = relation_bank(easy_mode)
    solver = Solver(kinship)
    universe = kinship.universe
    seen: set[str] = set()
    questions = []
    for index, template in enumerate(templates):
        rng = stream(seed, "questions", index)
        made = attempts = 0
        while made < per_template and attempts < ATTEMPTS_PER_QUESTION * per_template:
            attempts += 1
            filled = fill_template(template, rng, kinship, bank)
            if filled is None:
                continue
            text, query = render(template, filled)
            if text in seen:
                continue
            seen.add(text)
            solution = solver.solve(query, template.answer, with_facts=True)
            evidence = sorted(fact_text(universe, fact) for fact in solution.facts)
            questions.append(
                Question(
                    id=question_id(text, query),
                    question=text,
                    answer=solution.answers,
                    query=query,
                    answer_variable=template.answer,
                    template=list(template.tokens),
                    type=index,
                    difficulty=difficulty(query),
                    is_aggregation_question=template.kind == COUNT,
                    evidence=evidence,
                )
            )
            made += 1
    return questions
