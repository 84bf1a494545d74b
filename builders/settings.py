"""The machinery both datasets' settings are declared with: `setting` (a field with its stage, help and range), the
keyword settings of a Settings class, and the check of keyword settings against a configuration name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, field, fields
from typing import Any


def setting(
    default: Any = MISSING,
    *,
    stage: str,
    help: str,
    check: Callable[[Any], bool] | None = None,
    expected: str = "",
) -> Any:
    """A field of a Settings class with everything said about it in one place: its `stage` ("name" for the parts of
    the configuration name), what it does (`help`), and the `check` its value must pass with the words (`expected`)
    that a refusal, `--help` and `list` use."""
    metadata = {"stage": stage, "help": help, "check": check, "expected": expected}
    return field(metadata=metadata) if default is MISSING else field(default=default, metadata=metadata)


def knob_fields(settings: type) -> list[Field[Any]]:
    """The settings that are keyword arguments rather than parts of the configuration name."""
    return [f for f in fields(settings) if f.metadata["stage"] != "name"]


def check_knobs(
    name: str, named: Mapping[str, Any], knobs: Mapping[str, Any], allowed: set[str], error: type[Exception], what: str
) -> None:
    """Refuse, in one line of `error`, a keyword setting no Settings field has (`what`: "setting", "NeoQA setting")
    or one that contradicts what the configuration name says (`named`)."""
    for key, value in knobs.items():
        if key not in allowed:
            raise error(f"unknown {what} {key!r}; the settings are {', '.join(sorted(allowed))}")
        if key in named and value != named[key]:
            raise error(f"{key}={value!r} contradicts the configuration name {name!r}, which says {key}={named[key]}")
