"""Calendar arithmetic on day ordinals (datetime.date.toordinal), the way ages are counted."""

from __future__ import annotations

from datetime import date


def add_years(ordinal: int, years: int) -> int:
    """The same calendar day `years` later (29 February becomes 28 February)."""
    day = date.fromordinal(ordinal)
    try:
        return day.replace(year=day.year + years).toordinal()
    except ValueError:
        return day.replace(year=day.year + years, day=28).toordinal()


def iso(ordinal: int) -> str:
    """YYYY-MM-DD with a four-digit, zero-padded year."""
    return date.fromordinal(ordinal).isoformat()


def ordinal(iso_date: str) -> int:
    """The day ordinal of a YYYY-MM-DD string."""
    return date.fromisoformat(iso_date).toordinal()
