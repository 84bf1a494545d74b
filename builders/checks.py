"""The type checks every user-facing value goes through: a count, seed or size is a whole number, never a bool
(True is an int in Python), and a number is an int or a float, never a bool either."""

from __future__ import annotations

from typing import Any, TypeGuard


def is_whole(value: Any) -> TypeGuard[int]:
    """True for an int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> TypeGuard[int | float]:
    """True for an int or a float that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
