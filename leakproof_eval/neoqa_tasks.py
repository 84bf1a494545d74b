"""NeoQA as lm-eval tasks: the release from `--metadata`, the paper's prompt, scored by `builders.metrics.neoqa_scores`.

`neoqa` is multiple choice (lm_eval compares the likelihood of the option numbers " 1" ... " 7");
`neoqa_gen` lets the model write, and reads its `Answer: N` with `builders.neoqa.parse_answer`.
Options are numbered from 1, as the release's parser expects. Metadata keys (defaults in the YAML):
`neoqa_data_dir` (required: the directory of the release files), `neoqa_decryption_key` (the
release's is 23456), `neoqa_config` (`neoqa`, `optimal-evidence` or `context-ablation`),
`neoqa_split` (`test` or `dev`), `neoqa_seed` (answer-option and document shuffles) and `neoqa_cache_dir`.
Or `neoqa_generate`: a generated configuration's name (`t200_s1`, optionally `_optimal-evidence` etc.), made on
the spot with no release files (a new seed, a new set); `neoqa_resolved` then records its name and settings.

License, by source (neoqa_release.py): the release's text is CC BY-ND 4.0. A document holds ids only (instance,
question, articles) and the text lives in `texts`; after the model has answered, `NeoQATask` replaces each prompt of
the release by a one-line marker with the instance id and the prompt's sha256, so `--log_samples` writes, and
`--hf_hub_log_args` can push, no release text (the model's own responses are logged as written). A generated
configuration's prompts are ours (CC BY 4.0) and are logged in full, as PhantomWiki's are; each document names its
`license`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask

import leakproof_qa.builders.neoqa as engine
from leakproof_qa.builders import metrics
from leakproof_qa.builders.neoqa.answers import parse_answer

from . import TaskSetupError
from .neoqa_release import RELEASE_LICENSE, release_from
from .ordering import interleaved
from .texts import keep, template, texts

__all__ = [  # what the task YAMLs name (tasks/utils.py makes these visible to lm_eval)
    "NeoQATask",
    "neoqa_accuracy",
    "neoqa_accuracy_answerable",
    "neoqa_accuracy_deflection",
    "neoqa_accuracy_false_premise",
    "neoqa_accuracy_multi_hop_answerable",
    "neoqa_accuracy_multi_hop_insufficient",
    "neoqa_accuracy_time_span_answerable",
    "neoqa_accuracy_time_span_insufficient",
    "neoqa_accuracy_uncertain_specificity",
    "neoqa_adt_score",
    "neoqa_gold_number",
    "neoqa_load",
    "neoqa_multiple_choice_prompt",
    "neoqa_prompt",
    "neoqa_read_choices",
    "neoqa_score_generation",
    "neoqa_score_multiple_choice",
]

BENCHMARK = "neoqa"
METRICS: tuple[str, ...] = ("adt_score", "accuracy_answerable", "accuracy_deflection", "accuracy")
CATEGORY_METRICS: dict[str, str] = {
    "accuracy_" + category.replace("-", "_").replace("/", "_"): category for category in metrics.NEOQA_CATEGORIES
}
"""Metric name -> NeoQA Table 4 column, e.g. accuracy_multi_hop_insufficient -> multi-hop/insufficient."""


def neoqa_load(**metadata: Any) -> Any:
    """Instances of one split as id-only documents (answerable and must-deflect interleaved); texts held in `texts`."""
    import datasets

    release = release_from(metadata)
    try:
        rows = release.load(release.config, seed=None if release.generated else release.seed, include_documents=False)
        rows = rows.to_list()
        news = release.load("news")
    except (ValueError, FileNotFoundError) as error:
        raise TaskSetupError(f"neoqa: {error}") from None
    key = keep(
        release.key(),
        {
            "instances": {
                row["instance_id"]: {"question": row["question"], "date": row["date"], "options": row["answer_options"]}
                for row in rows
            },
            "articles": {
                row["article_id"]: {"headline": row["headline"], "date": row["date"], "passages": row["passages"]}
                for row in news
            },
        },
    )
    docs = [
        {
            "benchmark": BENCHMARK,
            "release": key,
            "license": release.license,
            "instance_id": row["instance_id"],
            "question_id": row["question_id"],
            "question_family_id": row["question_family_id"],
            "timeline_id": row["timeline_id"],
            "category": row["category"],
            "answerable": row["answerable"],
            "gold_answer_idx": row["gold_answer_idx"],
            "choices": [str(number) for number in range(1, len(row["answer_options"]) + 1)],
            "article_ids": row["use_evidence_documents"],
        }
        for row in interleaved(
            rows, lambda r: r["answerable"] == engine.SUFFICIENT, release.seed, f"{release.config}/{release.split}"
        )
    ]
    if not docs:
        raise TaskSetupError(f"neoqa {release.config}/{release.split} has no instances")
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})


# --- prompts -------------------------------------------------------------------------------------------------------


def options(doc: Mapping[str, Any]) -> list[str]:
    """The answer options of a document's instance, in the order shown."""
    return texts(doc["release"])["instances"][doc["instance_id"]]["options"]


def _article(number: int, article: Mapping[str, Any]) -> str:
    return f"Article {number}: {article['headline']}\nDate: {article['date']}\n" + "\n".join(article["passages"])


def neoqa_prompt(doc: Mapping[str, Any]) -> str:
    """The paper's prompt 1 (appendix H.35): articles, question, its date, options numbered from 1."""
    release = texts(doc["release"])
    instance = release["instances"][doc["instance_id"]]
    articles = "\n\n".join(_article(n, release["articles"][i]) for n, i in enumerate(doc["article_ids"], 1))
    numbered = "\n".join(f"{n}. {option}" for n, option in enumerate(instance["options"], 1))
    return template("neoqa").format(
        articles=articles, question=instance["question"], date=instance["date"], options=numbered
    )


def neoqa_multiple_choice_prompt(doc: Mapping[str, Any]) -> str:
    """The same prompt ending in `Answer:`, so the likelihood of " N" is the model's choice of option N."""
    return neoqa_prompt(doc) + "\nAnswer:"


def neoqa_gold_number(doc: Mapping[str, Any]) -> str:
    """The gold option's number (lm_eval logs it as the generative task's target)."""
    return str(doc["gold_answer_idx"] + 1)


def gold_response(doc: Mapping[str, Any]) -> str:
    """What a perfect model writes for this document."""
    return f"Answer: {neoqa_gold_number(doc)}"


# --- reading and scoring -------------------------------------------------------------------------------------------


def neoqa_read_choices(responses: Iterable[str], docs: Sequence[Mapping[str, Any]]) -> list[int | None]:
    """lm_eval filter for `neoqa_gen`: the 0-based option each response chose (parse_answer), None if unreadable."""
    return [parse_answer(response, options(doc)) for response, doc in zip(responses, docs)]


def _scored(doc: Mapping[str, Any], prediction: int | None) -> dict[str, Any]:
    return {key: doc[key] for key in ("instance_id", "category", "answerable", "gold_answer_idx")} | {
        "prediction": prediction
    }


def neoqa_score_multiple_choice(doc: Mapping[str, Any], results: Sequence[tuple[float, bool]]) -> dict[str, Any]:
    """The option with the highest likelihood (the first on ties, as numpy's argmax), for every NeoQA metric."""
    likelihoods = [likelihood for likelihood, _ in results]
    item = _scored(doc, max(range(len(likelihoods)), key=likelihoods.__getitem__))
    return {name: item for name in (*METRICS, *CATEGORY_METRICS)}


def neoqa_score_generation(doc: Mapping[str, Any], results: Sequence[int | None]) -> dict[str, Any]:
    """The parsed option for every NeoQA metric, and whether the response could be read at all (`parsed`)."""
    item = _scored(doc, results[0])
    return {name: item for name in (*METRICS, *CATEGORY_METRICS)} | {"parsed": float(results[0] is not None)}


def neoqa_scores(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """leakproof_qa.builders.metrics.neoqa_scores over the per-document values lm_eval collected."""
    return metrics.neoqa_scores(items, {item["instance_id"]: item["prediction"] for item in items})


NOT_EVALUATED = "n/a"
"""A Table 4 column none of the evaluated documents falls in (a short `--limit`): lm_eval prints and writes this, not
NaN (which is not JSON)."""


def _aggregation(name: str, category: str | None = None) -> Callable[[Sequence[Mapping[str, Any]]], float | str]:
    """lm_eval aggregation reporting one value of neoqa_scores (NOT_EVALUATED for a category with no instance)."""

    def aggregate(items: Sequence[Mapping[str, Any]]) -> float | str:
        scores = neoqa_scores(items)
        return scores[name] if category is None else scores["per_category"].get(category, NOT_EVALUATED)

    aggregate.__name__ = aggregate.__qualname__ = f"neoqa_{name}"
    aggregate.__doc__ = f"`{category or name}` of builders.metrics.neoqa_scores over the evaluated documents."
    return aggregate


# The aggregations the NeoQA YAMLs name: METRICS, then one per Table 4 column (CATEGORY_METRICS).
neoqa_adt_score = _aggregation("adt_score")
neoqa_accuracy_answerable = _aggregation("accuracy_answerable")
neoqa_accuracy_deflection = _aggregation("accuracy_deflection")
neoqa_accuracy = _aggregation("accuracy")
neoqa_accuracy_multi_hop_answerable = _aggregation("accuracy_multi_hop_answerable", "multi-hop/answerable")
neoqa_accuracy_time_span_answerable = _aggregation("accuracy_time_span_answerable", "time-span/answerable")
neoqa_accuracy_multi_hop_insufficient = _aggregation("accuracy_multi_hop_insufficient", "multi-hop/insufficient")
neoqa_accuracy_time_span_insufficient = _aggregation("accuracy_time_span_insufficient", "time-span/insufficient")
neoqa_accuracy_false_premise = _aggregation("accuracy_false_premise", "false-premise")
neoqa_accuracy_uncertain_specificity = _aggregation("accuracy_uncertain_specificity", "uncertain-specificity")


def withheld(instance: Instance) -> tuple:
    """The request's arguments with the prompt replaced by a marker: instance id and the prompt's sha256."""
    context, *rest = instance.arguments
    digest = hashlib.sha256(context.encode()).hexdigest()[:16]
    marker = (
        f"[NeoQA prompt withheld from logs ({RELEASE_LICENSE}): instance {instance.doc['instance_id']}, "
        f"sha256 {digest}]"
    )
    return (marker, *rest)


class NeoQATask(ConfigurableTask):
    """A NeoQA task whose logged samples hold no release text: the release's prompts are withheld once the model has
    answered (a generated configuration's, CC BY 4.0, are logged as they are)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__(config={key: value for key, value in (config or {}).items() if key != "class"})

    def apply_filters(self) -> None:
        """Read the responses (the filters need the texts), then withhold every prompt of the release before lm_eval
        logs it."""
        super().apply_filters()
        for instance in self.instances:
            if instance.doc["license"] == RELEASE_LICENSE:
                instance.arguments = withheld(instance)
