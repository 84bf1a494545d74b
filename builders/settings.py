"""The machinery both datasets' settings are declared with: `setting` (a field with its stage, help and range), the
keyword settings of a Settings class, and the check of keyword settings against a configuration name."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, cast


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
    that a refusal, `--help` and `list` use (a check without its words, or words without a check, is a slip)."""
    assert (check is None) == (not expected)
    metadata = {"stage": stage, "help": help, "check": check, "expected": expected}
    return field(metadata=metadata) if default is MISSING else field(default=default, metadata=metadata)


class Declared:
    """What a Settings dataclass declared with `setting` knows of itself: its keyword settings."""

    @classmethod
    def knob_fields(cls) -> list[Field[Any]]:
        """The settings that are keyword arguments rather than parts of the configuration name, each with its
        default, stage, help and range."""
        return [f for f in fields(cast(Any, cls)) if f.metadata["stage"] != "name"]

    @classmethod
    def knobs(cls) -> tuple[str, ...]:
        """Names of the keyword settings."""
        return tuple(f.name for f in cls.knob_fields())


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


@dataclass(frozen=True)
class NameGrammar:
    """A dataset's configuration-name grammar: its pattern (with a `subset` group), the subsets and the default, and
    the words a refusal uses (what the name is called, the grammar, examples)."""

    pattern: re.Pattern[str]
    subsets: Sequence[str]
    default: str
    called: str  # "configuration name", "NeoQA configuration name"
    grammar: str
    examples: str

    def match(self, name: object, error: type[Exception]) -> tuple[re.Match[str], str]:
        """The match of `name` and its subset (the default when it names none), or one line of `error`."""
        match = self.pattern.fullmatch(name) if isinstance(name, str) else None
        subset = match.group("subset") if match else None
        if not match or (subset is not None and subset not in self.subsets):
            what = f"unknown subset {subset!r}" if match else "does not match the grammar"
            raise error(
                f"bad {self.called} {name!r}: {what}; expected {self.grammar} with subset one of "
                f"{', '.join(self.subsets)} (default {self.default}), e.g. {self.examples}"
            )
        return match, subset or self.default
