"""The dataset card (`README.md`): YAML metadata from `DatasetCardData`, prose from a template in `cards/`."""

from __future__ import annotations

from typing import Any

from huggingface_hub import DatasetCard, DatasetCardData

from leakproof_qa import cards

CARD = "README.md"
_SIZE_CATEGORIES = (
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
)


def size_category(rows: int) -> str:
    """The Hub's size category for a number of rows."""
    for limit, name in _SIZE_CATEGORIES:
        if rows < limit:
            return name
    return "n>100M"


def hub_configs(names: list[str], default: str, patterns: dict[str, str]) -> list[dict[str, Any]]:
    """The card's `configs:` list: each configuration with its `test` files and the default marked."""
    configs = []
    for name in names:
        config: dict[str, Any] = {"config_name": name, "data_files": [{"split": "test", "path": patterns[name]}]}
        if name == default:
            config["default"] = True
        configs.append(config)
    return configs


def render(template: str, metadata: dict[str, Any], **fields: Any) -> str:
    """Render `cards/{template}`: `metadata` as the card's YAML (through DatasetCardData), `fields` in the prose."""
    card = DatasetCard.from_template(
        DatasetCardData(**metadata), template_path=str(cards.path(template)), canary=cards.CANARY, **fields
    )
    return str(card).rstrip("\n") + "\n"
