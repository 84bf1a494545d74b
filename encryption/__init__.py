"""Codecs for encrypted dataset files; today the NeoQA release codec (per-line base64 + one-byte XOR)."""

from encryption.neoqa_codec import (
    RELEASE_KEY,
    CorruptReleaseFileError,
    MissingDecryptionKeyError,
    ReleaseFileNotFoundError,
    ReleaseFormatError,
    WrongDecryptionKeyError,
    decode_line,
    encode_record,
    iter_jsonl,
    key_byte,
    read_jsonl,
    write_jsonl,
)

__all__ = [
    "RELEASE_KEY",
    "CorruptReleaseFileError",
    "MissingDecryptionKeyError",
    "ReleaseFileNotFoundError",
    "ReleaseFormatError",
    "WrongDecryptionKeyError",
    "decode_line",
    "encode_record",
    "iter_jsonl",
    "key_byte",
    "read_jsonl",
    "write_jsonl",
]
