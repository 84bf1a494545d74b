"""The NeoQA release codec: the published line format, per-file detection and one-line errors."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from leakproof_qa.encryption import neoqa_codec as codec

RECORD = {"article_id": "x-ev0-0", "headline": "Caf\u00e9 \u2013 \u00fcber", "passages": ["a", "b"], "n": 3}


def _assert_one_line_error(error: BaseException) -> None:
    """A user-facing error is one line and hides the internal exception it replaced."""
    assert "\n" not in str(error)
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__


def test_key_byte_is_key_mod_256() -> None:
    assert codec.key_byte(23456) == 160 == 23456 % 256
    assert codec.key_byte("23456") == 160
    assert codec.key_byte(160) == codec.key_byte(160 + 256 * 7)
    for bad in (True, "twenty", 1.5, None):
        with pytest.raises(codec.ReleaseFormatError, match="integer"):
            codec.key_byte(bad)  # type: ignore[arg-type]


def test_encrypted_line_is_base64_of_ascii_json_xor_key_byte() -> None:
    # Computed from the spec, not from the decoder: base64(JSON-with-ASCII-escapes XOR (23456 % 256)).
    line = codec.encode_record(RECORD, 23456)
    raw = base64.b64decode(line)
    expected = json.dumps(RECORD, ensure_ascii=True).encode("ascii")
    assert bytes(b ^ 160 for b in raw) == expected
    assert line.isascii() and not line.startswith("{")


def test_round_trip_keeps_non_ascii_text() -> None:
    assert codec.decode_line(codec.encode_record(RECORD, 23456), 23456) == RECORD


def test_write_and_read_plain_and_encrypted(tmp_path: Path) -> None:
    records = [RECORD, {**RECORD, "n": 4}]
    plain = codec.write_jsonl(tmp_path / "plain.jsonl", records)
    encrypted = codec.write_jsonl(tmp_path / "enc.jsonl", records, key=23456)
    assert plain.read_text().splitlines()[0].startswith("{")
    assert codec.read_jsonl(plain) == records
    assert codec.read_jsonl(plain, key=999) == records  # a key is ignored for a plain file
    assert codec.read_jsonl(encrypted, key=23456) == records
    assert codec.read_jsonl(encrypted, key=23456 + 256) == records


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text("\n" + codec.encode_record(RECORD, 1) + "\n\n")
    assert codec.read_jsonl(path, key=1) == [RECORD]


def test_wrong_key_is_one_line_naming_the_right_key(tmp_path: Path) -> None:
    path = codec.write_jsonl(tmp_path / "test.news.jsonl", [RECORD], key=23456)
    with pytest.raises(codec.WrongDecryptionKeyError) as caught:
        codec.read_jsonl(path, key=12345)
    message = str(caught.value)
    assert "wrong decryption key 12345" in message and "23456" in message and "test.news.jsonl" in message
    assert isinstance(caught.value, ValueError)
    _assert_one_line_error(caught.value)


def test_wrong_key_for_a_non_release_key_names_the_needed_byte(tmp_path: Path) -> None:
    path = codec.write_jsonl(tmp_path / "a.jsonl", [RECORD], key=7)
    with pytest.raises(codec.WrongDecryptionKeyError, match="equal to 7 mod 256"):
        codec.read_jsonl(path, key=8)


def test_encrypted_file_without_key_says_to_pass_one(tmp_path: Path) -> None:
    path = codec.write_jsonl(tmp_path / "dev.questions.jsonl", [RECORD], key=23456)
    with pytest.raises(codec.MissingDecryptionKeyError, match="decryption_key") as caught:
        codec.read_jsonl(path)
    _assert_one_line_error(caught.value)


@pytest.mark.parametrize("key", [None, 23456])
def test_truncated_file_names_the_line(tmp_path: Path, key: int | None) -> None:
    path = codec.write_jsonl(tmp_path / "dev.news.jsonl", [RECORD, RECORD, RECORD], key=key)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 17])  # cut inside the third line
    with pytest.raises(codec.CorruptReleaseFileError, match=r"dev\.news\.jsonl, line 3: truncated") as caught:
        codec.read_jsonl(path, key=key)
    _assert_one_line_error(caught.value)


def test_truncation_on_a_base64_boundary_is_still_reported(tmp_path: Path) -> None:
    line = codec.encode_record(RECORD, 23456)
    cut = line[: (len(line) // 2) // 4 * 4]  # valid base64, incomplete JSON
    with pytest.raises(codec.CorruptReleaseFileError, match="truncated"):
        codec.decode_line(cut, 23456)


def test_empty_file_and_non_object_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(codec.CorruptReleaseFileError, match="empty"):
        codec.read_jsonl(empty)
    array = tmp_path / "array.jsonl"
    array.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(codec.CorruptReleaseFileError, match="line 2: expected a JSON object"):
        codec.read_jsonl(array)


def test_missing_file_is_a_file_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="test.timelines.jsonl") as caught:
        codec.read_jsonl(tmp_path / "test.timelines.jsonl")
    assert isinstance(caught.value, codec.ReleaseFileNotFoundError)
    _assert_one_line_error(caught.value)
