"""The instance sets of generated NeoQA: appendix E's three sets, with two changes only reading can see through
(spec/validity.md). The official release's path keeps appendix E as the paper made it (builders/neoqa/instances.py).

* **An insufficient row keeps its sufficient row's shape.** Where a required article is taken out, another article of
  the same event (the same date) that does not mention the missing item takes its place, the one naming most of what
  the removed one named: the same number of documents, dated alike. In the main set, whose sufficient row would show
  every past article, the sufficient row leaves out as many articles that mention no required item, of the same
  events, as its insufficient rows take out; each insufficient row leaves out that many in all, so every row of a
  question shows the same number of articles, missing the same events' articles. Where an event has no article to
  put in, the row shows one fewer (`GeneratedInstanceBuilder.unreplaced` counts them; docs/neoqa.md gives the share).
* **Options per row** (builders/neoqa/options.py): the sibling answers the row's documents state, the gold among them
  only where the documents state it within reach; every row of a question in a set has as many options, and a
  false-premise or uncertain-specificity child shows its sufficient row's documents and options.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from leakproof_qa.builders.labels import INSUFFICIENT, SUFFICIENT, UNANSWERABLE
from leakproof_qa.builders.neoqa.instances import (
    ABLATION_SIZES,
    DEFLECTION_OPTION,
    Family,
    InstanceBuilder,
    family_shuffled,
)
from leakproof_qa.builders.neoqa.options import Asked, draw_options, option_count, siblings_of
from leakproof_qa.builders.neoqa.world import World
from leakproof_qa.builders.rng import below, pick, stream

Plan = tuple[Mapping[str, Any], str, list[str], dict[str, Any]]
"""A row before its options: the question, its label, its documents and its other fields."""


class GeneratedInstanceBuilder(InstanceBuilder):
    """Appendix E's sets over one generated timeline, with insufficient rows shaped as their sufficient rows and
    options made per row."""

    def __init__(
        self,
        question_rows: Iterable[Mapping[str, Any]],
        news_rows: Iterable[Mapping[str, Any]],
        world: World,
        seed: int = 1,
    ) -> None:
        """Index the timeline's questions, articles and facts."""
        news = list(news_rows)
        super().__init__(question_rows, news, seed=seed)
        self.siblings = siblings_of(world)
        self.used = {row["article_id"]: tuple(row["used_items"]) for row in news}
        self.event_articles: dict[int, list[str]] = defaultdict(list)  # event -> its articles, in canonical order
        for article in sorted(self.articles.values(), key=lambda a: (a.date, a.created_at, a.article_id)):
            self.event_articles[article.created_at].append(article.article_id)
        self.event_of = {article.article_id: article.created_at for article in self.articles.values()}
        self._stated_facts_of: dict[str, tuple[frozenset[Any], frozenset[str]]] = {}
        named = self.siblings.named
        self.named = {
            article: frozenset(e for item in items if item in named for e in named[item])
            for article, items in self.used.items()
        }
        self.unreplaced: Counter[str] = Counter()  # set -> insufficient rows showing one article fewer
        self.replaced: Counter[str] = Counter()  # set -> insufficient rows whose removed article was replaced
        self.dropped: Counter[str] = Counter()  # set -> questions not in it: a row would offer no sibling answer

    # ------------------------------------------------------------------ the shape of a row

    def _asked(self, family: Family) -> Asked:
        """What the options of a family's rows are made for."""
        question = family.parent
        items = question["evidence_ids"]
        if question["category"] == "time-span":
            return Asked("time-span", question["answer"], items=tuple(items))
        bridge, answer = (self.siblings.facts[item] for item in items)
        return Asked(
            "multi-hop",
            question["answer"],
            anchor=bridge.subject.id,
            relation=answer.relation,
            bridge_relation=bridge.relation,
            event=max(bridge.event, answer.event),
        )

    def _stated(self, documents: Iterable[str]) -> frozenset[str]:
        """The items these articles state."""
        return frozenset().union(*map(self.used.__getitem__, documents))

    def replacement(
        self,
        question: Mapping[str, Any],
        removed: str,
        missing: Sequence[str],
        taken: set[str],
        rng: Any,
    ) -> str | None:
        """A past article, not among `taken`, that mentions none of the `missing` items and looks most like
        `removed`, drawn from `rng` among the best by, in turn:
        * naming as many of the entities the question names as `removed` did (a question's entity missing from the
          documents would tell the label);
        * being of `removed`'s event, else of an event as near it as there is (dated alike);
        * stating facts of as many of the missing items' days (a question's day, stated by the removed article,
          stays as often stated);
        * how many of the entities `removed` names it names, then how many of the missing items' relations it states
          a fact of (where the removed article stated "X raised $36,000", the one in its place states what another
          event raised).
        None when no past article fits."""
        event = self.articles[removed].created_at
        asked = self._question_entities(question) & self.named[removed]
        facts = self.siblings.facts
        wanted = {facts[item].relation for item in missing if item in facts}
        excluded = set(taken).union(*(self._mentioning[item] for item in missing))
        excluded.add(removed)
        named, event_of = self.named, self.event_of
        candidates = [article for article in self.past_ids(question)[0] if article not in excluded]
        # the first two criteria, cheap, over every past article
        likes = [(len(asked & named[article]), -abs(event_of[article] - event)) for article in candidates]
        best = max(likes, default=None)
        chosen = [article for article, like in zip(candidates, likes) if like == best]
        if len(chosen) > 1:  # the others, over the best of those
            days = {facts[item].day for item in missing if item in facts}
            likeness = [
                (
                    len(days & self._stated_facts(article)[0]),
                    len(named[article] & named[removed]),
                    len(wanted & self._stated_facts(article)[1]),
                )
                for article in chosen
            ]
            most = max(likeness)
            chosen = [article for article, like in zip(chosen, likeness) if like == most]
        return pick(rng, chosen) if chosen else None

    def _stated_facts(self, article: str) -> tuple[frozenset[Any], frozenset[str]]:
        """The days and the relations of the facts an article states (kept: replacements compare them again)."""
        kept = self._stated_facts_of.get(article)
        if kept is None:
            facts = [self.siblings.facts[i] for i in self.used[article] if i in self.siblings.facts]
            kept = self._stated_facts_of[article] = (
                frozenset(fact.day for fact in facts),
                frozenset(fact.relation for fact in facts),
            )
        return kept

    def _question_entities(self, question: Mapping[str, Any]) -> frozenset[str]:
        """The entities a question's text names: the bridge's subject, or both facts' entities of a time span."""
        facts = [self.siblings.facts[item] for item in question["evidence_ids"]]
        if question["category"] == "time-span":
            return frozenset(e.id for fact in facts for e in fact.entities() if e is not fact.place)
        return frozenset({facts[0].subject.id})

    def _by_event(self, pool: list[str]) -> dict[int, list[str]]:
        """Event -> its articles in `pool`, in pool order (the events in order of first appearance)."""
        grouped: dict[int, list[str]] = defaultdict(list)
        event_of = self.event_of
        for article in pool:
            grouped[event_of[article]].append(article)
        return dict(grouped)

    def _left_out(self, events: Sequence[int], pool: list[str], grouped: dict[int, list[str]], rng: Any) -> list[str]:
        """Articles of `pool` (mentioning no required item) to leave out, one per event of `events`: of that event
        where there is one, else of the nearest event that has one (`grouped`: _by_event(pool), made once a pool)."""
        free = {event: list(articles) for event, articles in grouped.items()}  # taken from as articles are left out
        event_of = self.event_of
        left: list[str] = []
        for event in events:
            if not free:
                break
            nearest = min(abs(e - event) for e in free)
            choices = {a for e in free if abs(e - event) == nearest for a in free[e]}
            choice = pick(rng, [a for a in pool if a in choices])
            free[event_of[choice]].remove(choice)
            if not free[event_of[choice]]:
                del free[event_of[choice]]
            left.append(choice)
        return left

    # ------------------------------------------------------------------ options

    def _rows(self, family: Family, set_name: str, groups: Sequence[list[Plan]]) -> list[dict[str, Any]]:
        """The planned rows of one question in one set, each with its options (`groups`: its plans at each size of
        the context ablation, smallest first; one group elsewhere). Every row as many options (the fewest its
        documents offer); the rows of one plan (a sufficient row and its children, or one removal) show the same
        options at every size, those the smallest size's documents state: an ablation varies the context alone.
        Where a row's documents offer no sibling answer (or it would show no article), the question has no rows in
        this set (`dropped` counts such questions): its other options could only come from elsewhere, which would tell
        the row's label, and leaving that row out alone would leave the insufficient rows better furnished than the
        sufficient ones."""
        asked = self._asked(family)
        groups = [self._balanced(family, set_name, plans) for plans in groups]
        shown: dict[tuple[str, ...], list[str]] = {}  # a plan's removal -> its documents at the smallest size
        for plan in groups[0]:
            shown.setdefault(self._removal(plan), plan[2])
        values = {key: self.siblings.values(asked, self._stated(documents)) for key, documents in shown.items()}
        if not all(values.values()) or not all(plan[2] for plans in groups for plan in plans):
            self.dropped[set_name] += 1  # the whole question: its rows without one would be the better furnished
            return []
        size = option_count(asked, values.values())
        options: dict[tuple[str, ...], list[str]] = {}
        for key, documents in shown.items():
            rng = stream(self.seed, "neoqa", "row-options", set_name, family.family_id, ",".join(documents))
            options[key] = draw_options(rng, asked, values[key], size)
            options[key].insert(below(rng, len(options[key]) + 1), DEFLECTION_OPTION)
        rows = []
        for plans in groups:
            for plan in plans:
                question, answerable, documents, extra = plan
                rows.append(
                    self._instance(
                        family, question, answerable, documents, options=options[self._removal(plan)], **extra
                    )
                )
        return rows

    @staticmethod
    def _removal(plan: Plan) -> tuple[str, ...]:
        """What an insufficient plan takes out (the same at every size of a context ablation); () for a sufficient
        row and its children, which show the same documents."""
        return tuple(plan[3].get("removed_article_ids", ())) if plan[1] == INSUFFICIENT else ()

    def _balanced(self, family: Family, set_name: str, plans: list[Plan]) -> list[Plan]:
        """A premise control's rows but one of its insufficient rows (a seeded one): so that a question worded with
        a day or a place is answerable as often as one without. Without a detail, a question has one sufficient row
        and n insufficient ones; with the day, its control has 1 and n - 1, and its false premise 1 refused row; with a
        place, the control (1 and n - 1) and the uncertain variant (1 refused) each come in half the questions. Each
        wording is then answerable in 1 of n + 1 rows."""
        if family.parent["meta"].get("variant") != "premise-control":
            return plans
        insufficient = [i for i, plan in enumerate(plans) if plan[1] == INSUFFICIENT]
        if not insufficient:
            return plans
        dropped = pick(stream(self.seed, "neoqa", "control-rows", set_name, family.family_id), insufficient)
        return [plan for i, plan in enumerate(plans) if i != dropped]

    def _child_plans(self, family: Family, documents: list[str], extra: dict[str, Any]) -> list[Plan]:
        keep: dict[str, Any] = {k: extra[k] for k in ("sufficient_article_ids", "irrelevant_article_ids") if k in extra}
        return [(child, UNANSWERABLE, documents, keep) for child in self.sampled_children(family)]

    # ------------------------------------------------------------------ the three sets

    def neoqa(self) -> list[dict[str, Any]]:
        """The main set: every past article but as many left out of each row (see the module's docstring)."""
        rows: list[dict[str, Any]] = []
        for family in self.families:
            question = family.parent
            past, past_set = self.past_ids(question)
            required = question["evidence_ids"]
            if not self.sufficient(past_set, required):
                continue
            shown = family_shuffled(self.seed, "documents", family.family_id, past)
            removals: dict[tuple[str, ...], list[str]] = {}  # articles taken out -> the items left unmentioned
            mentioned = self.mentioned_among(shown, required)
            for item in dict.fromkeys(required):
                removed = tuple(a for a in shown if a in self._mentioning[item])
                if removed not in removals:
                    removals[removed] = [i for i in required if mentioned[i] <= set(removed)]
            most = max(removals, key=len) if removals else ()
            profile = [self.articles[a].created_at for a in most]
            mentioning = set().union(*(self._mentioning[item] for item in required))
            pool = [a for a in shown if a not in mentioning]
            grouped = self._by_event(pool)
            rng = stream(self.seed, "neoqa", "left-out", family.family_id)
            left = set(self._left_out(profile, pool, grouped, rng))
            documents = [a for a in shown if a not in left]
            plans: list[Plan] = [(question, SUFFICIENT, documents, {})]
            for removed, missing in removals.items():
                events = Counter(profile)  # the events the sufficient row misses articles of, less those removed here
                events.subtract(self.articles[a].created_at for a in removed)
                wanted = (sorted(events.elements()) + profile)[: len(most) - len(removed)]
                out = set(removed) | set(self._left_out(wanted, pool, grouped, rng))
                plans.append(
                    (
                        question,
                        INSUFFICIENT,
                        [a for a in shown if a not in out],
                        {"removed_article_ids": list(removed), "missing_evidence_ids": missing},
                    )
                )
            plans += self._child_plans(family, documents, {})
            rows += self._rows(family, "neoqa", [plans])
        return rows

    def _replaced(
        self,
        family: Family,
        set_name: str,
        shown: list[str],
        minimal: list[str],
        taken: set[str],
        extra: dict[str, Any],
    ) -> list[Plan]:
        """Insufficient rows of `shown`: each minimal-set article whose removal leaves a required item unmentioned,
        replaced in its place by another article of its event (see replacement; drawn alike for every size of a
        context ablation)."""
        plans: list[Plan] = []
        rng = stream(self.seed, "neoqa", "replacement", set_name, family.family_id)
        for removed, missing in self._gaps(family.parent, shown, minimal):
            rest = [a for a in shown if a != removed]
            instead = self.replacement(family.parent, removed, missing, taken, rng)
            documents = [instead if a == removed else a for a in shown] if instead else rest
            (self.replaced if instead else self.unreplaced)[set_name] += 1
            plans.append(
                (
                    family.parent,
                    INSUFFICIENT,
                    documents,
                    {
                        "sufficient_article_ids": list(minimal),
                        "removed_article_ids": [removed],
                        "missing_evidence_ids": list(missing),
                        **extra,
                    },
                )
            )
        return plans

    def optimal_evidence(self) -> list[dict[str, Any]]:
        """The minimal sufficient articles only (appendix E.1), insufficient rows with a replacement article."""
        rows: list[dict[str, Any]] = []
        for family, minimal, shown in self.optimal_layouts():
            extra = {"sufficient_article_ids": list(minimal)}
            plans: list[Plan] = [(family.parent, SUFFICIENT, shown, extra)]
            plans += self._replaced(family, "optimal-evidence", shown, minimal, set(shown), {})
            plans += self._child_plans(family, shown, extra)
            rows += self._rows(family, "optimal-evidence", [plans])
        return rows

    def context_ablation(self, sizes: Sequence[int] = ABLATION_SIZES) -> list[dict[str, Any]]:
        """Appendix E.3's nested irrelevant samples around the minimal pair, insufficient rows with a replacement
        article in the removed one's place."""
        rows: list[dict[str, Any]] = []
        most = max(sizes)
        for family in self.families:
            question = family.parent
            layout = self.ablation_layout(family, most)
            if layout is None:
                continue
            minimal, sample, arrangement = layout
            taken = set(minimal) | set(sample)  # a replacement is no irrelevant article of any size
            by_size: dict[int, list[Plan]] = {}
            for size in sorted(sizes):
                irrelevant = sample[:size]
                keep = set(minimal) | set(irrelevant)
                shown = list(filter(keep.__contains__, arrangement))
                extra = {"sufficient_article_ids": list(minimal), "irrelevant_article_ids": irrelevant}
                plans: list[Plan] = [(question, SUFFICIENT, shown, extra)]
                plans += self._replaced(
                    family, "context-ablation", shown, minimal, taken, {"irrelevant_article_ids": irrelevant}
                )
                by_size[size] = plans + self._child_plans(family, shown, extra)
            rows += self._rows(family, "context-ablation", [by_size[size] for size in sorted(by_size)])
        return rows
