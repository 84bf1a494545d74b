"""Encrypted dataset files: the sealed-release format of our own releases (`encryption.aead_stream`: AES-256-GCM,
scrypt, chunked; imported from there) and the NeoQA release codec (per-line base64 + one-byte XOR), re-exported
here."""

from leakproof_qa.encryption.neoqa_codec import (
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
