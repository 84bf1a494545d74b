"""The one-line errors of publishing and of loading what was published."""

from __future__ import annotations


class PublishError(ValueError):
    """A release cannot be written or uploaded as asked; the message says what to do instead."""


class ReleaseError(ValueError):
    """A published release cannot be loaded: a missing, altered or unlisted file, a wrong passphrase, a bad name."""


class LicenseError(PublishError):
    """Publishing would share data its license does not let us share (NeoQA: CC BY-ND 4.0)."""


_REFUSAL = (
    "refused to publish {what}: {why}; NeoQA data is CC BY-ND 4.0, which allows sharing the release "
    "verbatim but not adapted material: publish the official encrypted release files as they are "
    "(python -m neoqa publish --data-dir DIR --repo-id ORG/NAME)"
)


def refuse(what: str, why: str) -> LicenseError:
    """The one-line refusal, citing CC BY-ND, for an attempt to publish `what`."""
    return LicenseError(_REFUSAL.format(what=what, why=why))
