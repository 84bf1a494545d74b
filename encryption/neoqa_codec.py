"""The NeoQA release codec: JSONL whose lines are base64 of the JSON bytes XOR-ed with one key byte.

Format (as published with NeoQA, see shared/spec/neoqa.md): every line of an encrypted
release file is ``base64(bytes(b ^ k for b in json_line))`` where ``json_line`` is the
record serialised with ASCII escapes and ``k = key % 256``; the key printed in the
release's README is 23456 (byte 160).  It keeps the text away from crawlers; it is not a
secret.  A file is either all plain JSONL or all encrypted: the first non-blank line
decides ("detected per file": a line that starts with ``{`` is JSON, anything else is
treated as base64 + XOR).  Every error a user can cause (wrong or missing key, truncated
or corrupt line, missing file) is one line naming the file, the line and the fix.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

RELEASE_KEY: int = 23456
"""The key printed in the NeoQA README (only ``RELEASE_KEY % 256`` is used)."""

_OPEN_BRACE: int = ord("{")


class ReleaseFormatError(ValueError):
    """A NeoQA release file cannot be read as the published format."""


class MissingDecryptionKeyError(ReleaseFormatError):
    """The file is encrypted and no decryption key was given."""


class WrongDecryptionKeyError(ReleaseFormatError):
    """The given key does not decrypt the file."""


class CorruptReleaseFileError(ReleaseFormatError):
    """A line is truncated or otherwise not a complete record."""


class ReleaseFileNotFoundError(FileNotFoundError):
    """A release file that the requested data needs does not exist."""


def key_byte(key: int | str) -> int:
    """Return the XOR byte for ``key`` (an int or a decimal string); the release uses ``key % 256``."""
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        raise ReleaseFormatError(f"decryption_key must be an integer such as {RELEASE_KEY}, got {key!r}")
    if isinstance(key, str):
        text = key.strip()
        if not text.lstrip("-").isdigit():
            raise ReleaseFormatError(f"decryption_key must be an integer such as {RELEASE_KEY}, got {key!r}")
        key = int(text)
    return key % 256


def _xor(data: bytes, byte: int) -> bytes:
    """XOR every byte of ``data`` with ``byte``."""
    return bytes(b ^ byte for b in data)


def encode_record(record: Mapping[str, Any], key: int | str) -> str:
    """Encrypt one record as a release line (no newline): ASCII-escaped JSON, XOR with the key byte, base64."""
    raw = json.dumps(record, ensure_ascii=True).encode("ascii")
    return base64.b64encode(_xor(raw, key_byte(key))).decode("ascii")


def needed_key_byte(line: str) -> int | None:
    """Return the key byte that would turn this encrypted line into JSON (its first byte must be ``{``), if
    decodable."""
    try:
        head = base64.b64decode(line.strip()[:4], validate=True)
    except (binascii.Error, ValueError):
        return None
    return head[0] ^ _OPEN_BRACE if head else None


def _key_hint(byte: int | None) -> str:
    """Describe which key a file needs, naming the published key when it fits."""
    if byte is None:
        return f"the published NeoQA key is {RELEASE_KEY}"
    if byte == RELEASE_KEY % 256:
        return f"this file needs a key equal to {byte} mod 256, e.g. the published NeoQA key {RELEASE_KEY}"
    return f"this file needs a key equal to {byte} mod 256"


def decode_line(line: str, key: int | str, *, where: str = "line") -> dict[str, Any]:
    """Decrypt one release line into its record, raising a one-line error for a wrong key or a damaged line."""
    byte = key_byte(key)
    try:
        raw = _xor(base64.b64decode(line.strip(), validate=True), byte)
    except (binascii.Error, ValueError):
        raise CorruptReleaseFileError(
            f"{where}: truncated or corrupt encrypted record (not valid base64); re-download the file"
        ) from None
    if not raw or raw[0] != _OPEN_BRACE:
        raise WrongDecryptionKeyError(
            f"{where}: wrong decryption key {key!r}: it does not decrypt this file; {_key_hint(needed_key_byte(line))}"
        )
    return _parse_json(raw, where=where, encrypted=True)


def _parse_json(raw: bytes, *, where: str, encrypted: bool) -> dict[str, Any]:
    """Parse one record's JSON bytes, turning any failure into a one-line CorruptReleaseFileError."""
    kind = "encrypted record" if encrypted else "JSON record"
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise CorruptReleaseFileError(f"{where}: corrupt {kind} (not UTF-8 text); re-download the file") from None
    except json.JSONDecodeError as error:
        raise CorruptReleaseFileError(
            f"{where}: truncated or corrupt {kind} ({error.msg} at character {error.pos}); re-download the file"
        ) from None
    if not isinstance(record, dict):
        raise CorruptReleaseFileError(f"{where}: expected a JSON object per line, found a JSON {type(record).__name__}")
    return record


def is_encrypted_line(line: str) -> bool:
    """Tell whether a release line is encrypted: plain JSONL lines start with ``{``, base64 lines never do."""
    return not line.lstrip("\ufeff \t").startswith("{")


def iter_jsonl(path: str | Path, key: int | str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` from a plain or encrypted release file, detecting which per file."""
    path = Path(path)
    if not path.is_file():
        raise ReleaseFileNotFoundError(f"NeoQA release file not found: {path}")
    encrypted: bool | None = None
    with path.open("rb") as handle:
        for number, raw_line in enumerate(handle, start=1):
            where = f"{path.name}, line {number}"
            try:
                line = raw_line.decode("utf-8").strip()
            except UnicodeDecodeError:
                raise CorruptReleaseFileError(f"{where}: not UTF-8 text; re-download the file") from None
            if not line:
                continue
            if encrypted is None:
                encrypted = is_encrypted_line(line)
                if encrypted and key is None:
                    raise MissingDecryptionKeyError(
                        f"{path.name} is encrypted: pass decryption_key=... ({_key_hint(needed_key_byte(line))})"
                    )
            if encrypted:
                yield number, decode_line(line, key, where=where)  # type: ignore[arg-type]
            else:
                yield number, _parse_json(line.lstrip("\ufeff").encode("utf-8"), where=where, encrypted=False)
    if encrypted is None:
        raise CorruptReleaseFileError(f"{path.name} is empty; expected one JSON record per line (plain or encrypted)")


def read_jsonl(path: str | Path, key: int | str | None = None) -> list[dict[str, Any]]:
    """Read every record of a plain or encrypted release file (see ``iter_jsonl``)."""
    return [record for _, record in iter_jsonl(path, key)]


def write_jsonl(path: str | Path, records: Iterable[Mapping[str, Any]], key: int | str | None = None) -> Path:
    """Write records as release JSONL: encrypted with ``key``, or plain ASCII-escaped JSON when ``key`` is None."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="ascii", newline="\n") as handle:
        for record in records:
            line = json.dumps(record, ensure_ascii=True) if key is None else encode_record(record, key)
            handle.write(line + "\n")
    return path
