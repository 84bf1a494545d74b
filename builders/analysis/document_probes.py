"""Probes of the documents' mention graph (spec/validity.md: "the mention graph of names without articles"):
* missing person in the lists: a person the shown relation lines name from many articles, with no article of
  their own -> insufficient (threshold fitted on the training universe), where the look-up passes;
* the document surface with the mention graph (people named without an article, how many articles name them,
  the components of the graph of shown articles naming each other) -> label, a logistic regression, and the same
  -> sufficient / insufficient on the rows of those two labels;
* a "missing hub" profile: how many shown articles name each of the three people named most without an article of
  their own, and how many are named by at least 2, 3 and 4 -> insufficient, a logistic regression, where the look-up
  passes;
* a nonexistent person: the person the question names and the documents lack has a namesake (the same given
  name, another surname) among the shown documents -> nonexistent_person.
"""

from __future__ import annotations

from collections.abc import Sequence

from .probing import Finding, balanced_accuracy, fit_predict, fit_threshold, fitted_finding, mean, threshold_rule
from .prompt_view import Prompt, label, looks_up, named_in, per_prompt, refuse

INSUFFICIENT = "insufficient"
NONEXISTENT = "nonexistent_person"


def most_named_absent(p: Prompt) -> float:
    """How many shown articles name the most-named person who has no shown article (0 when there is none)."""
    return float(max((len(t) for t in p.absent.values()), default=0))


def _insufficient(p: Prompt) -> str:
    return INSUFFICIENT if label(p) == INSUFFICIENT else "other"


def missing_in_lists(train: Sequence[Prompt], test: Sequence[Prompt]) -> Finding:
    """ "Someone named by at least t shown articles has none of their own -> insufficient", t fitted on `train`."""
    fit = [p for p in train if not looks_up(p)]
    through = [p for p in test if not looks_up(p)]
    t = fit_threshold([most_named_absent(p) for p in fit], [_insufficient(p) for p in fit], INSUFFICIENT)
    guess = threshold_rule([most_named_absent(p) for p in through], t, INSUFFICIENT, "other")
    return Finding(
        f"a person named by >= {t:g} shown articles has no article -> insufficient (look-up passes)",
        "balanced accuracy",
        balanced_accuracy([_insufficient(p) for p in through], guess),
        0.5,
        len(through),
    )


def _components(p: Prompt) -> list[int]:
    """The sizes of the connected components of the shown articles, two joined when one's lines name the other."""
    parent = {t: t for t in p.titles}

    def root(t: str) -> str:
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    for person, naming in p.mentions.items():
        if person in parent:
            for t in naming:
                parent[root(t)] = root(person)
    sizes: dict[str, int] = {}
    for t in p.titles:
        sizes[root(t)] = sizes.get(root(t), 0) + 1
    return sorted(sizes.values(), reverse=True)


@per_prompt
def graph_features(p: Prompt) -> list[float]:
    """The shown documents' surface and mention graph: how many documents, how long, how many people they name;
    people named without an article and how many articles name them; the components of the shown articles."""
    lengths = [len(str(d["text"])) for d in p.row["documents"]]
    n = max(1, len(lengths))
    degrees = [len(t) for t in p.absent.values()]
    named_by = [len(p.mentions.get(t, ())) for t in p.titles]
    sizes = _components(p) or [0]
    return [
        len(lengths),
        sum(lengths) / 1000,
        mean(lengths) / 100 if lengths else 0.0,
        len(p.people) / 10,
        len(degrees) / 10,
        max(degrees, default=0),
        mean(degrees) if degrees else 0.0,
        sum(d >= 2 for d in degrees),
        sum(d >= 3 for d in degrees),
        len(sizes) / n,
        sizes[0] / n,
        sum(s == 1 for s in sizes) / n,
        min(named_by, default=0),
        mean(named_by) if named_by else 0.0,
        sum(d == 0 for d in named_by) / n,
    ]


def surface_graph(train: Sequence[Prompt], test: Sequence[Prompt]) -> list[Finding]:
    """The surface and mention-graph features together -> the three labels, and -> answer / refuse."""
    train_x = [graph_features(p) for p in train]
    test_x = [graph_features(p) for p in test]
    return [
        Finding(
            "document surface and mention graph -> label",
            "balanced accuracy (3 labels)",
            balanced_accuracy([label(p) for p in test], fit_predict(train_x, [label(p) for p in train], test_x)),
            1 / 3,
            len(test),
        ),
        Finding(
            "document surface and mention graph -> answer / refuse",
            "balanced accuracy",
            balanced_accuracy([refuse(p) for p in test], fit_predict(train_x, [refuse(p) for p in train], test_x)),
            0.5,
            len(test),
        ),
    ]


def sufficient_or_insufficient(train: Sequence[Prompt], test: Sequence[Prompt]) -> Finding:
    """The surface and mention-graph features -> sufficient / insufficient, on the rows of those two labels (the
    documents of an insufficient row lack one article its sufficient twin shows)."""
    two = ("sufficient", INSUFFICIENT)
    return fitted_finding(
        "document surface and mention graph -> sufficient / insufficient",
        [p for p in train if label(p) in two],
        [p for p in test if label(p) in two],
        graph_features,
        label,
    )


@per_prompt
def hub_profile(p: Prompt) -> list[float]:
    """How many shown articles name each of the three people named most without an article of their own, how many
    such people are named by at least 2, 3 and 4, and how many documents there are."""
    degrees = sorted((len(t) for t in p.absent.values()), reverse=True)
    top = [*degrees[:3], 0, 0, 0][:3]
    return [*map(float, top), *(float(sum(d >= k for d in degrees)) for k in (2, 3, 4)), float(len(p.titles))]


def missing_hub(train: Sequence[Prompt], test: Sequence[Prompt]) -> Finding:
    """The "missing hub" profile (hub_profile) -> insufficient, a logistic regression, where the look-up passes."""
    return fitted_finding(
        "missing hub profile (people named most without an article) -> insufficient (look-up passes)",
        [p for p in train if not looks_up(p)],
        [p for p in test if not looks_up(p)],
        hub_profile,
        _insufficient,
    )


def namesake(p: Prompt) -> bool:
    """True when a person the question names, who has no article here, shares a given name with a person the
    documents name under another surname."""
    given: dict[str, set[str]] = {}  # given name -> surnames the documents name it with
    for person in p.people:
        first, _, last = person.partition(" ")
        given.setdefault(first, set()).add(last)
    for name in named_in(p.question):
        first, _, last = name.partition(" ")
        if name not in p.titles and given.get(first, set()) - {last}:
            return True
    return False


def _kind(p: Prompt) -> str:
    return NONEXISTENT if p.row.get("unanswerable_kind") == NONEXISTENT else "other"


def nonexistent_findings(test: Sequence[Prompt]) -> list[Finding]:
    """The namesake rule on the rows the look-up flags (a named person has no article: a nonexistent person, or one
    whose article is the missing one; no reading tells them apart, 0.5) and on every row (against the look-up
    alone). No nonexistent row passes the look-up (no article holds its name), so it is not scored there."""
    flagged = [p for p in test if looks_up(p)]
    gold = [_kind(p) for p in test]
    look_up = balanced_accuracy(gold, [NONEXISTENT if looks_up(p) else "other" for p in test])
    return [
        Finding(
            "the unfound named person has a namesake (another surname) -> nonexistent person (look-up flags)",
            "balanced accuracy",
            balanced_accuracy([_kind(p) for p in flagged], [NONEXISTENT if namesake(p) else "other" for p in flagged]),
            0.5,
            len(flagged),
        ),
        Finding(
            "the unfound named person has a namesake (another surname) -> nonexistent person (every row; baseline: "
            "the look-up)",
            "balanced accuracy",
            balanced_accuracy(gold, [NONEXISTENT if namesake(p) else "other" for p in test]),
            look_up,
            len(test),
        ),
    ]
