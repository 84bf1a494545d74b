"""Sealed files: a streaming, authenticated encryption format (AES-256-GCM, scrypt), chunk by chunk.

Neither side ever holds more than one chunk (1 MiB by default) of a file, and any change
to a sealed file (a flipped byte, chunks reordered, the file cut short or extended, a
header field altered) makes opening it fail with a one-line error; nothing is released
before its chunk authenticates.  Nothing here knows what the bytes are.

Format, version 1 (all integers big-endian)::

    header (50 bytes)
      magic       8  b"LPQ-AEAD"
      version     1  1
      cipher      1  1 = AES-256-GCM
      kdf         1  1 = scrypt
      log2_n      1  scrypt cost N = 2**log2_n (default 15)
      r           1  scrypt block size (default 8)
      p           1  scrypt parallelism (default 1)
      chunk_size  4  plaintext bytes per chunk (default 1 MiB)
      salt       16  per file
      key_check  16  HMAC-SHA256(mac_key, b"LPQ-AEAD key check")[:16]
    chunk i = 0, 1, ... (the last one is the "final" chunk)
      nonce      12  HMAC-SHA256(mac_key, u64 i || u8 final || plaintext_i)[:12]
      sealed     len(plaintext_i) + 16  AES-256-GCM(enc_key, nonce, plaintext_i,
                                        associated data = header || u64 i || u8 final)

``enc_key || mac_key = scrypt(passphrase as UTF-8, salt, N, r, p, 64 bytes)``.  Every chunk
but the last holds exactly ``chunk_size`` plaintext bytes; the last holds 0 to ``chunk_size``
and is sealed with final = 1, so a reader knows a chunk is final because the file ends
after it, and cutting the file at any point, or appending to it, breaks authentication.
The associated data binds every chunk to its position and to the header.

The nonce is a keyed digest of the chunk's plaintext and position: sealing the same bytes
with the same passphrase and salt gives the same file (re-publishing unchanged data
uploads unchanged bytes), and two different plaintexts never share a nonce under one key.
The passphrase is never stored; the key check only tells a wrong passphrase from damage.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt


class Sink(Protocol):
    """Where sealed bytes go: a binary file, or any writer with write and flush."""

    def write(self, data: bytes | bytearray | memoryview, /) -> int | None: ...

    def flush(self) -> None: ...


MAGIC = b"LPQ-AEAD"
VERSION = 1
CIPHER_AES_256_GCM = 1
KDF_SCRYPT = 1
CHUNK_SIZE = 1 << 20
SALT_SIZE = 16
NONCE_SIZE = 12
TAG_SIZE = 16
_HEADER = struct.Struct(">8sBBBBBBI16s16s")
HEADER_SIZE = _HEADER.size
_KEY_CHECK_LABEL = b"LPQ-AEAD key check"
_MAX_CHUNK_SIZE = 64 << 20
MAX_LOG2_N, MAX_R, MAX_P = 16, 8, 2  # the ceiling a reader accepts: twice the default cost (2**15, 8, 1)


class SealedFileError(ValueError):
    """A sealed file cannot be opened; the message is one line naming the file and the fix."""


class NotSealedError(SealedFileError):
    """The bytes are not a sealed file of a version and with parameters this code reads."""


class WrongPassphraseError(SealedFileError):
    """The passphrase does not open the file."""


class TamperedError(SealedFileError):
    """A chunk does not authenticate: the file was altered, cut short, extended or reordered."""


@dataclass(frozen=True)
class ScryptParams:
    """scrypt cost parameters (stored in each file's header, so readers follow them)."""

    log2_n: int = 15
    r: int = 8
    p: int = 1

    def check(self, where: str) -> None:
        """Refuse parameters outside what a reader will spend, before any work: at most twice the default's memory
        (128 * N * r = 64 MiB) and work (N * r * p), so a hostile 100-byte header costs well under a second."""
        if not (10 <= self.log2_n <= MAX_LOG2_N and 1 <= self.r <= MAX_R and 1 <= self.p <= MAX_P):
            raise NotSealedError(
                f"{where}: scrypt parameters N=2**{self.log2_n}, r={self.r}, p={self.p} are outside the supported "
                f"range (N 2**10..2**{MAX_LOG2_N}, r 1..{MAX_R}, p 1..{MAX_P}); it was not sealed by this format"
            )


@dataclass(frozen=True)
class _Keys:
    enc: AESGCM
    mac: bytes

    @classmethod
    def derive(cls, passphrase: str | bytes, salt: bytes, params: ScryptParams) -> _Keys:
        secret = passphrase.encode("utf-8") if isinstance(passphrase, str) else bytes(passphrase)
        if not secret:
            raise SealedFileError("the passphrase is empty; give the release's passphrase")
        material = Scrypt(salt=salt, length=64, n=2**params.log2_n, r=params.r, p=params.p).derive(secret)
        return cls(AESGCM(material[:32]), material[32:])

    def key_check(self) -> bytes:
        return hmac.digest(self.mac, _KEY_CHECK_LABEL, "sha256")[:16]

    def nonce(self, index: int, final: bool, plaintext: bytes | bytearray | memoryview) -> bytes:
        mac = hmac.new(self.mac, _position(index, final), hashlib.sha256)
        mac.update(plaintext)
        return mac.digest()[:NONCE_SIZE]


def _position(index: int, final: bool) -> bytes:
    return struct.pack(">QB", index, 1 if final else 0)


def _header(params: ScryptParams, chunk_size: int, salt: bytes, key_check: bytes) -> bytes:
    return _HEADER.pack(
        MAGIC, VERSION, CIPHER_AES_256_GCM, KDF_SCRYPT, params.log2_n, params.r, params.p, chunk_size, salt, key_check
    )


class SealWriter:
    """A binary file-like sink: what is written to it reaches `target` sealed, one chunk at a time."""

    def __init__(
        self,
        target: Sink,
        passphrase: str | bytes,
        salt: bytes,
        *,
        chunk_size: int = CHUNK_SIZE,
        params: ScryptParams = ScryptParams(),
    ) -> None:
        if len(salt) != SALT_SIZE:
            raise ValueError(f"salt must be {SALT_SIZE} bytes, got {len(salt)}")
        if not 1 <= chunk_size <= _MAX_CHUNK_SIZE:
            raise ValueError(f"chunk_size must be between 1 and {_MAX_CHUNK_SIZE} bytes, got {chunk_size}")
        params.check("SealWriter")
        self._target = target
        self._keys = _Keys.derive(passphrase, salt, params)
        self._header = _header(params, chunk_size, salt, self._keys.key_check())
        self._chunk_size = chunk_size
        self._buffer = bytearray()
        self._index = 0
        self._written = 0
        self.closed = False
        target.write(self._header)

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Take `data`; seal every full chunk that is known not to be the last (more bytes follow it)."""
        if self.closed:
            raise ValueError("write to a closed SealWriter")
        view = memoryview(data).cast("B")
        size, taken = self._chunk_size, 0
        if self._buffer and len(self._buffer) + len(view) > size:  # complete the buffered chunk first
            taken = size - len(self._buffer)
            self._buffer += view[:taken]
            self._seal(self._buffer, final=False)
            self._buffer = bytearray()
        while len(view) - taken > size:  # whole chunks straight from the caller's bytes, no copy
            self._seal(view[taken : taken + size], final=False)
            taken += size
        self._buffer += view[taken:]
        self._written += len(view)
        return len(view)

    def tell(self) -> int:
        """Plaintext bytes written so far."""
        return self._written

    def flush(self) -> None:
        self._target.flush()

    def close(self) -> None:
        """Seal what is buffered as the final chunk; `target` stays open."""
        if not self.closed:
            self._seal(self._buffer, final=True)
            self._buffer = bytearray()
            self.closed = True

    def __enter__(self) -> SealWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _seal(self, plaintext: bytes | bytearray | memoryview, final: bool) -> None:
        nonce = self._keys.nonce(self._index, final, plaintext)
        associated = self._header + _position(self._index, final)
        self._target.write(nonce)
        self._target.write(self._keys.enc.encrypt(nonce, plaintext, associated))
        self._index += 1


def read_header(source: BinaryIO, where: str) -> tuple[bytes, ScryptParams, int, bytes, bytes]:
    """(raw header, scrypt parameters, chunk size, salt, key check) of a sealed stream, checked."""
    raw = source.read(HEADER_SIZE)
    if len(raw) < HEADER_SIZE or not raw.startswith(MAGIC):
        raise NotSealedError(f"{where}: not a sealed file (no {MAGIC.decode()} header); is it the right file?")
    _, version, cipher, kdf, log2_n, r, p, chunk_size, salt, key_check = _HEADER.unpack(raw)
    if version != VERSION or cipher != CIPHER_AES_256_GCM or kdf != KDF_SCRYPT:
        raise NotSealedError(
            f"{where}: sealed-file format version {version} (cipher {cipher}, kdf {kdf}); this code reads version "
            f"{VERSION} with AES-256-GCM and scrypt: upgrade leakproof-qa"
        )
    params = ScryptParams(log2_n, r, p)
    params.check(where)
    if not 1 <= chunk_size <= _MAX_CHUNK_SIZE:
        raise NotSealedError(f"{where}: chunk size {chunk_size} is outside 1..{_MAX_CHUNK_SIZE}; not a sealed file")
    return raw, params, chunk_size, salt, key_check


def _opening_keys(source: BinaryIO, passphrase: str | bytes, where: str) -> tuple[bytes, int, _Keys]:
    """(header, chunk size, keys) of a sealed stream whose key check the passphrase passes."""
    header, params, chunk_size, salt, key_check = read_header(source, where)
    keys = _Keys.derive(passphrase, salt, params)
    if not hmac.compare_digest(keys.key_check(), key_check):
        raise WrongPassphraseError(
            f"{where}: wrong passphrase: it does not open this file (or its header was altered); "
            "use the passphrase the release's README.md gives"
        )
    return header, chunk_size, keys


def check_passphrase(path: str | Path, passphrase: str | bytes, where: str | None = None) -> None:
    """Raise WrongPassphraseError unless `passphrase` opens the sealed file at `path` (reads its header only)."""
    with open(path, "rb") as source:
        _opening_keys(source, passphrase, where or Path(path).name)


def iter_unsealed(source: BinaryIO, passphrase: str | bytes, where: str = "sealed file") -> Iterator[bytes]:
    """Yield the plaintext chunk by chunk, each only after it authenticates; raise a one-line error otherwise."""
    header, chunk_size, keys = _opening_keys(source, passphrase, where)
    record = NONCE_SIZE + chunk_size + TAG_SIZE
    index = 0
    pending = source.read(record)
    while True:
        following = source.read(record) if len(pending) == record else b""
        final = not following
        if len(pending) < NONCE_SIZE + TAG_SIZE:
            raise TamperedError(f"{where}: truncated (chunk {index} is incomplete); re-download or re-publish the file")
        record_view = memoryview(pending)
        try:
            yield keys.enc.decrypt(record_view[:NONCE_SIZE], record_view[NONCE_SIZE:], header + _position(index, final))
        except InvalidTag:
            raise TamperedError(
                f"{where}: chunk {index} fails authentication: the file was altered, truncated or extended; "
                "re-download or re-publish it"
            ) from None
        if final:
            return
        pending = following
        index += 1


def seal_file(
    source: str | Path,
    target: str | Path,
    passphrase: str | bytes,
    salt: bytes | None = None,
    *,
    chunk_size: int = CHUNK_SIZE,
    params: ScryptParams = ScryptParams(),
) -> None:
    """Seal the file `source` into `target`, streaming; a random salt unless one is given."""
    with open(source, "rb") as src, open(target, "wb") as out:
        writer = SealWriter(
            out, passphrase, os.urandom(SALT_SIZE) if salt is None else salt, chunk_size=chunk_size, params=params
        )
        while block := src.read(chunk_size):
            writer.write(block)
        writer.close()


def unseal_file(source: str | Path, target: str | Path, passphrase: str | bytes, where: str | None = None) -> int:
    """Open the sealed file `source` into `target`; on any error no `target` (nor a partial one) is left behind.

    Errors name the file as `where` (default: its file name).
    """
    source, target = Path(source), Path(target)
    partial = target.with_name(target.name + ".partial")
    size = 0
    try:
        with open(source, "rb") as src, open(partial, "wb") as out:
            for chunk in iter_unsealed(src, passphrase, where=where or source.name):
                out.write(chunk)
                size += len(chunk)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return size
