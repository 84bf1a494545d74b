"""Sealed files: the documented format, streaming in bounded memory, same bytes for the same input, loud refusals."""

from __future__ import annotations

import hmac
import io
import os
import struct
import time
import tracemalloc
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from leakproof_qa.encryption import aead_stream as sealed

FAST = sealed.ScryptParams(log2_n=10, r=8, p=1)  # the tests' files; the default is 2**15
SALT = bytes(range(16))
CHUNK = 64


def seal(data: bytes, passphrase: str = "open sesame", salt: bytes = SALT, chunk_size: int = CHUNK) -> bytes:
    out = io.BytesIO()
    with sealed.SealWriter(out, passphrase, salt, chunk_size=chunk_size, params=FAST) as writer:
        for start in range(0, len(data), 37):  # odd-sized writes, as a Parquet writer makes them
            writer.write(data[start : start + 37])
    return out.getvalue()


def unseal(blob: bytes, passphrase: str = "open sesame") -> bytes:
    return b"".join(sealed.iter_unsealed(io.BytesIO(blob), passphrase, where="shard.bin"))


def one_line(error: BaseException) -> None:
    assert "\n" not in str(error)
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


@pytest.mark.parametrize("size", [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 5 * CHUNK, 5 * CHUNK + 17])
def test_any_length_round_trips(size: int) -> None:
    data = os.urandom(size)
    assert unseal(seal(data)) == data


def test_the_bytes_are_exactly_the_documented_format() -> None:
    # Rebuilt from the format description with cryptography's primitives, not with the module's reader.
    data = os.urandom(2 * CHUNK + 10)
    blob = seal(data, passphrase="pass phrase")
    header = blob[:50]
    assert header[:8] == b"LPQ-AEAD" and header[8:11] == bytes([1, 1, 1]) and header[11:14] == bytes([10, 8, 1])
    assert struct.unpack(">I", header[14:18])[0] == CHUNK and header[18:34] == SALT
    keys = Scrypt(salt=SALT, length=64, n=2**10, r=8, p=1).derive(b"pass phrase")
    enc_key, mac_key = keys[:32], keys[32:]
    assert header[34:50] == hmac.digest(mac_key, b"LPQ-AEAD key check", "sha256")[:16]
    plain, offset = [], 50
    for index, length in enumerate([CHUNK, CHUNK, 10]):
        final = index == 2
        record = blob[offset : offset + 12 + length + 16]
        position = struct.pack(">QB", index, final)
        chunk = AESGCM(enc_key).decrypt(record[:12], record[12:], header + position)
        assert record[:12] == hmac.digest(mac_key, position + chunk, "sha256")[:12]
        plain.append(chunk)
        offset += len(record)
    assert offset == len(blob) and b"".join(plain) == data


def test_same_plaintext_passphrase_and_salt_give_the_same_bytes_and_never_reuse_a_nonce() -> None:
    data = os.urandom(4 * CHUNK)
    assert seal(data) == seal(data)
    other = data[:-1] + bytes([data[-1] ^ 1])  # differs in the last chunk only
    nonces = lambda blob: [blob[50 + i * (CHUNK + 28) :][:12] for i in range(5)]  # noqa: E731
    a, b = nonces(seal(data)), nonces(seal(other))
    assert a[:3] == b[:3]  # identical chunks at identical positions: identical records
    assert a[3] != b[3]  # a different plaintext under the same key never gets the same nonce
    assert seal(data, salt=bytes(16)) != seal(data)


def test_the_passphrase_is_never_in_the_file() -> None:
    blob = seal(b"x" * 300, passphrase="correct horse battery staple")
    assert b"correct horse" not in blob and b"staple" not in blob


def test_a_wrong_passphrase_is_one_line_naming_the_file() -> None:
    with pytest.raises(sealed.WrongPassphraseError, match=r"^shard\.bin: wrong passphrase") as caught:
        unseal(seal(b"data" * 100), passphrase="guess")
    one_line(caught.value)


@pytest.mark.parametrize("position", ["header salt", "key check", "nonce", "ciphertext", "tag", "last chunk"])
def test_one_flipped_byte_anywhere_is_caught(position: str) -> None:
    blob = bytearray(seal(os.urandom(3 * CHUNK + 5)))
    index = {
        "header salt": 20,
        "key check": 40,
        "nonce": 50 + 3,
        "ciphertext": 50 + 12 + 30,
        "tag": 50 + 12 + CHUNK + 3,
        "last chunk": len(blob) - 20,
    }[position]
    blob[index] ^= 0x01
    with pytest.raises(sealed.SealedFileError) as caught:
        unseal(bytes(blob))
    one_line(caught.value)
    assert "shard.bin" in str(caught.value)


def test_cutting_the_file_anywhere_is_caught() -> None:
    blob = seal(os.urandom(3 * CHUNK))
    record = CHUNK + 28
    for cut in [50, 51, 50 + record, 50 + 2 * record, 50 + 2 * record + 1, len(blob) - 1]:
        with pytest.raises(sealed.TamperedError, match="truncated|fails authentication"):
            unseal(blob[:cut])


def test_appending_or_reordering_chunks_is_caught() -> None:
    blob = seal(os.urandom(3 * CHUNK + 9))
    record = CHUNK + 28
    first, second = blob[50 : 50 + record], blob[50 + record : 50 + 2 * record]
    with pytest.raises(sealed.TamperedError, match="chunk 0 fails authentication"):
        unseal(blob[:50] + second + first + blob[50 + 2 * record :])
    with pytest.raises(sealed.TamperedError):
        unseal(blob + first)
    with pytest.raises(sealed.TamperedError):
        unseal(blob + b"\0")


def test_other_bytes_and_other_versions_are_refused_saying_why() -> None:
    with pytest.raises(sealed.NotSealedError, match="not a sealed file"):
        unseal(b"PAR1" + os.urandom(100))
    blob = bytearray(seal(b"abc"))
    blob[8] = 2
    with pytest.raises(sealed.NotSealedError, match="format version 2.*upgrade leakproof-qa"):
        unseal(bytes(blob))
    blob = bytearray(seal(b"abc"))
    blob[11] = 40  # scrypt N = 2**40: a hostile header must not make the reader spend terabytes
    with pytest.raises(sealed.NotSealedError, match="outside the supported range"):
        unseal(bytes(blob))


def test_unseal_file_leaves_nothing_behind_on_error(tmp_path: Path) -> None:
    source = tmp_path / "shard.parquet-aead"
    source.write_bytes(seal(os.urandom(10 * CHUNK)))
    target = tmp_path / "out" / "shard.parquet"
    target.parent.mkdir()
    assert sealed.unseal_file(source, target, "open sesame") == 10 * CHUNK
    target.unlink()
    broken = bytearray(source.read_bytes())
    broken[-30] ^= 0xFF  # the last chunk: every earlier chunk was already written out
    source.write_bytes(bytes(broken))
    with pytest.raises(sealed.TamperedError, match=r"^shard\.parquet-aead: chunk 9"):
        sealed.unseal_file(source, target, "open sesame")
    assert list(target.parent.iterdir()) == []


def test_seal_file_and_unseal_file_round_trip_with_a_random_salt(tmp_path: Path) -> None:
    (tmp_path / "plain").write_bytes(os.urandom(3000))
    sealed.seal_file(tmp_path / "plain", tmp_path / "a", "pw", params=FAST)
    sealed.seal_file(tmp_path / "plain", tmp_path / "b", "pw", params=FAST)
    assert (tmp_path / "a").read_bytes() != (tmp_path / "b").read_bytes()  # no salt given: a fresh one
    sealed.unseal_file(tmp_path / "b", tmp_path / "back", "pw")
    assert (tmp_path / "back").read_bytes() == (tmp_path / "plain").read_bytes()
    sealed.check_passphrase(tmp_path / "a", "pw")
    with pytest.raises(sealed.WrongPassphraseError, match="^a: wrong passphrase"):
        sealed.check_passphrase(tmp_path / "a", "pw!")


class _Null:
    """A sink that forgets what it is given, as a file on disk would for memory's sake."""

    def write(self, data: bytes) -> int:
        return len(data)

    def flush(self) -> None:
        pass


def test_neither_side_holds_more_than_a_few_chunks_in_memory(tmp_path: Path) -> None:
    total, block = 48 << 20, 1 << 16
    piece = os.urandom(block)
    path = tmp_path / "big.sealed"
    with open(path, "wb") as out:
        with sealed.SealWriter(out, "pw", SALT, params=FAST) as writer:  # 1 MiB chunks
            for _ in range(total // block):
                writer.write(piece)
    tracemalloc.start()
    try:
        with sealed.SealWriter(_Null(), "pw", SALT, params=FAST) as writer:
            tracemalloc.reset_peak()
            for _ in range(total // block):
                writer.write(piece)
        _, sealing_peak = tracemalloc.get_traced_memory()
        with open(path, "rb") as source:
            tracemalloc.reset_peak()
            size = sum(len(chunk) for chunk in sealed.iter_unsealed(source, "pw"))
        _, opening_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert size == total
    assert sealing_peak < 6 << 20, f"sealing 48 MiB peaked at {sealing_peak / 2**20:.1f} MiB"
    assert opening_peak < 6 << 20, f"opening 48 MiB peaked at {opening_peak / 2**20:.1f} MiB"


@pytest.mark.parametrize("log2_n, r, p", [(20, 32, 16), (17, 8, 1), (16, 9, 1), (16, 8, 3)])
def test_a_hostile_header_costs_under_a_second_and_100_mb_before_its_error(log2_n: int, r: int, p: int) -> None:
    blob = bytearray(seal(b"abc"))
    blob[11:14] = bytes([log2_n, r, p])  # the header's scrypt N, r, p (see the format above)
    tracemalloc.start()
    began = time.perf_counter()
    with pytest.raises(sealed.NotSealedError, match="outside the supported range") as error:
        unseal(bytes(blob))
    spent, (_, peak) = time.perf_counter() - began, tracemalloc.get_traced_memory()
    tracemalloc.stop()
    one_line(error.value)
    assert spent < 1.0 and peak < 100 << 20


def test_the_most_a_reader_accepts_is_twice_the_writers_default_cost() -> None:
    default, ceiling = sealed.ScryptParams(), sealed.ScryptParams(sealed.MAX_LOG2_N, sealed.MAX_R, sealed.MAX_P)
    cost = lambda params: (2**params.log2_n * params.r, 2**params.log2_n * params.r * params.p)  # noqa: E731
    assert cost(ceiling)[0] <= 2 * cost(default)[0] and cost(ceiling)[1] <= 4 * cost(default)[1]
    assert 128 * cost(ceiling)[0] <= 64 << 20  # scrypt's memory, 128 * N * r bytes
