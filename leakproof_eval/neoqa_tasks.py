"""NeoQA as lm-eval tasks: the release from `--metadata`, the paper's prompt, scored by `builders.metrics.neoqa_scores`.

`neoqa` is multiple choice (lm_eval compares the likelihood of the option numbers " 1" ... " 7");
`neoqa_gen` lets the model write, and reads its `Answer: N` with `builders.neoqa.parse_answer`.
Options are numbered from 1, as the release's parser expects. Metadata keys (defaults in the YAML):
`neoqa_data_dir` (required: the directory of the release files), `neoqa_decryption_key` (the
release's is 23456), `neoqa_config` (`neoqa`, `optimal-evidence` or `context-ablation`),
`neoqa_split` (`test` or `dev`), `neoqa_seed` (answer-option and document shuffles) and `neoqa_cache_dir`.
Or `neoqa_generate`: a generated configuration's name (`t200_s1`, optionally `_optimal-evidence` etc.), made on
the spot with no release files (a new seed, a new set); `neoqa_resolved` then records its name and settings.

License (CC BY-ND 4.0): a document holds ids only (instance, question, articles) and the text lives in
`texts`; after the model has answered, `NeoQATask` replaces each prompt by a one-line marker with the
instance id and the prompt's sha256, so `--log_samples` writes, and `--hf_hub_log_args` can push,
no release text (the model's own responses are logged as written).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask

import leakproof_qa.builders.neoqa as engine
from leakproof_qa.builders import metrics
from leakproof_qa.builders.checks import is_whole
from leakproof_qa.builders.neoqa.answers import parse_answer

from . import TaskSetupError, require_strings
from .help import nearest
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

PREFIX = "neoqa_"
BENCHMARK = "neoqa"
RESOLVED = "resolved"
"""The metadata key the tasks fill in (never read): the configuration evaluated and, when generated, every setting,
so lm_eval's results file says which set was evaluated (as phantom_wiki_resolved does)."""
_KEYS = ("data_dir", "decryption_key", "config", "split", "seed", "cache_dir", "generate", RESOLVED)
METRICS: tuple[str, ...] = ("adt_score", "accuracy_answerable", "accuracy_deflection", "accuracy")
CATEGORY_METRICS: dict[str, str] = {
    "accuracy_" + category.replace("-", "_").replace("/", "_"): category for category in metrics.NEOQA_CATEGORIES
}
"""Metric name -> NeoQA Table 4 column, e.g. accuracy_multi_hop_insufficient -> multi-hop/insufficient."""


@dataclass(frozen=True)
class Release:
    """Which release files (or which generated configuration), which instance set and split, how to shuffle and
    cache them."""

    data_dir: str | None
    decryption_key: int | str | None
    config: str
    split: str
    seed: int
    cache_dir: str | None
    generated: str | None = None  # a generated configuration's name without subset, e.g. t200_s1

    def key(self) -> str:
        """A key naming this release's texts in this process (no text in it)."""
        source = self.generated or str(Path(str(self.data_dir)).expanduser().resolve())
        fields = [source, self.decryption_key, self.config, self.split, self.seed]
        return (
            f"neoqa_{self.config}_{self.split}_s{self.seed}#"
            + hashlib.sha256(json.dumps(fields).encode()).hexdigest()[:12]
        )

    def load(self, subset: str, **kwargs: Any) -> Any:
        """One configuration's rows from this source: an instance set, or the news."""
        import neoqa

        if self.generated is not None:
            return neoqa.load_dataset(
                f"{self.generated}_{subset}", split=self.split, cache_dir=self.cache_dir, **kwargs
            )
        return neoqa.load_dataset(
            subset,
            split=self.split,
            data_dir=self.data_dir,
            decryption_key=self.decryption_key,
            cache_dir=self.cache_dir,
            **kwargs,
        )


def _generated(ours: Mapping[str, Any]) -> Release:
    """The generated configuration `neoqa_generate` names; its instance set is the name's subset or neoqa_config."""
    from leakproof_qa.builders.neoqa.settings import INSTANCE_SUBSETS, SPLIT, format_name, settings_from

    name = ours["generate"]
    if ours.get("data_dir") or ours.get("decryption_key") is not None:
        raise TaskSetupError(
            f"{PREFIX}generate={name!r} reads no release files: leave out {PREFIX}data_dir and {PREFIX}decryption_key"
        )
    try:
        settings, subset = settings_from(name)
    except ValueError as error:
        raise TaskSetupError(f"{PREFIX}generate: {error}") from None
    config = subset if name.endswith("_" + subset) else ours.get("config", "neoqa")
    if config not in INSTANCE_SUBSETS:
        raise TaskSetupError(f"{PREFIX}generate={name!r}: choose an instance set, one of {', '.join(INSTANCE_SUBSETS)}")
    if ours.get("split", SPLIT) != SPLIT:
        raise TaskSetupError(f"{PREFIX}split={ours['split']!r}: a generated configuration has one split, {SPLIT!r}")
    resolved = ours.get(RESOLVED)
    if isinstance(resolved, dict):
        resolved.clear()
        resolved.update({"configuration": format_name(settings, config), **asdict(settings)})
    return Release(None, None, config, SPLIT, settings.seed, ours.get("cache_dir"), format_name(settings))


def release_from(metadata: Mapping[str, Any]) -> Release:
    """The release (or generated configuration) the `neoqa_*` metadata keys describe; anything wrong is a one-line
    TaskSetupError."""
    ours = {key[len(PREFIX) :]: value for key, value in metadata.items() if key.startswith(PREFIX)}
    ours = {key: value for key, value in ours.items() if value is not None}  # the YAML's nulls: not given
    unknown = sorted(set(ours) - set(_KEYS))
    if unknown:
        raise TaskSetupError(
            f"unknown metadata key {PREFIX}{unknown[0]}{nearest(unknown[0], _KEYS, PREFIX)}; "
            "the keys are " + ", ".join(PREFIX + key for key in _KEYS)
        )
    require_strings(ours, PREFIX, ("data_dir", "config", "split", "cache_dir", "generate"))
    if ours.get("generate"):
        return _generated(ours)
    if not ours.get("data_dir"):
        raise TaskSetupError(
            "NeoQA needs its release files: pass --metadata "
            '\'{"neoqa_data_dir": "<directory of dev/test.*.jsonl>", "neoqa_decryption_key": 23456}\', '
            'or a generated configuration: \'{"neoqa_generate": "t200_s1"}\''
        )
    secret = ours.get("decryption_key")
    if secret is not None and (isinstance(secret, bool) or not isinstance(secret, (int, str))):
        raise TaskSetupError(f"{PREFIX}decryption_key={secret!r} must be a whole number or a string, e.g. 23456")
    config, split, seed = ours.get("config", "neoqa"), ours.get("split", "test"), ours.get("seed", 1)
    if config not in engine.INSTANCE_SETS:
        raise TaskSetupError(
            f"{PREFIX}config={config!r}: choose an instance set, one of {', '.join(engine.INSTANCE_SETS)}"
        )
    if not is_whole(seed):
        raise TaskSetupError(f"{PREFIX}seed={seed!r} must be an integer")
    try:
        engine.check_config(config, split)
    except ValueError as error:
        raise TaskSetupError(f"{PREFIX}split: {error}") from None
    resolved = ours.get(RESOLVED)
    if isinstance(resolved, dict):
        resolved.clear()
        resolved.update({"configuration": config, "split": split, "seed": seed, "source": "the official release"})
    return Release(str(ours["data_dir"]), ours.get("decryption_key"), config, split, seed, ours.get("cache_dir"))


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


def _aggregation(name: str, category: str | None = None) -> Callable[[Sequence[Mapping[str, Any]]], float]:
    """lm_eval aggregation reporting one value of neoqa_scores (NaN for a category with no instance)."""

    def aggregate(items: Sequence[Mapping[str, Any]]) -> float:
        scores = neoqa_scores(items)
        return scores[name] if category is None else scores["per_category"].get(category, math.nan)

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
        f"[NeoQA prompt withheld from logs (CC BY-ND 4.0): instance {instance.doc['instance_id']}, sha256 {digest}]"
    )
    return (marker, *rest)


class NeoQATask(ConfigurableTask):
    """A NeoQA task whose logged samples hold no release text: prompts are withheld once the model has answered."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__(config={key: value for key, value in (config or {}).items() if key != "class"})

    def apply_filters(self) -> None:
        """Read the responses (the filters need the texts), then withhold every prompt before lm_eval logs it."""
        super().apply_filters()
        for instance in self.instances:
            instance.arguments = withheld(instance)
