"""Rows to Arrow by columns: each field's values gathered once and converted by Arrow, not row by row.

`table(rows, schema, json_text)` makes the Arrow table a `datasets` builder would write for `rows` under `schema`
(a `datasets.Features.arrow_schema`): the same values and types, without `Features.encode_example` walking every
row. Two things make it fast. A column is handed to Arrow whole (its C++ converter walks nested lists and dicts);
and list items that are the same Python object in many rows (an instance's documents: each article is one dict,
shown in many rows) are converted once and repeated by index (Arrow's `take`), so a text shown a hundred times is
read from Python once. Identity, not equality, decides what is shared: it costs a dict look-up per item and can
never merge two values that differ. JSON fields (the `arrow.json` extension type) are encoded by `json_text`, the
caller's encoder, so their text is what the caller's `datasets` would store. Nothing here imports `datasets`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pyarrow as pa

JsonText = Callable[[Any], str]
"""How a JSON field's value is written as text (the `datasets` Json feature's encoder, or json.dumps)."""


def is_json(kind: pa.DataType) -> bool:
    """Whether `kind` is Arrow's JSON extension type (what `datasets.Json` stores)."""
    return isinstance(kind, pa.BaseExtensionType) and kind.extension_name == "arrow.json"


def holds_json(kind: pa.DataType) -> bool:
    """Whether a JSON field is `kind` or anywhere inside it."""
    if is_json(kind):
        return True
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return holds_json(kind.value_type)
    if pa.types.is_struct(kind):
        return any(holds_json(field.type) for field in kind)
    return False


def table(
    rows: Sequence[Mapping[str, Any]],
    schema: pa.Schema,
    json_text: JsonText,
    given: Mapping[str, list[Any]] | None = None,
) -> pa.Table:
    """`rows` as an Arrow table of `schema`: every field of the schema taken from each row by name, or from `given`
    (a field's values, one per row, that the rows do not hold: no row is copied to add them)."""
    given = given or {}
    columns = [
        column(given[field.name] if field.name in given else [row[field.name] for row in rows], field.type, json_text)
        for field in schema
    ]
    return pa.Table.from_arrays(columns, schema=schema)


def column(values: list[Any], kind: pa.DataType, json_text: JsonText) -> pa.Array:
    """One column's `values` as an Arrow array of type `kind` (None is a null)."""
    if is_json(kind):
        text = pa.array([None if value is None else json_text(value) for value in values], kind.storage_type)
        return pa.ExtensionArray.from_storage(kind, text)
    nested = pa.types.is_list(kind) or pa.types.is_struct(kind)
    if not nested or not (holds_json(kind) or _objects(kind)):
        return pa.array(values, type=kind)
    mask = pa.array([value is None for value in values]) if None in values else None
    if pa.types.is_struct(kind):
        present = [{} if value is None else value for value in values]
        children = [_struct_child(present, field, json_text) for field in kind]
        return pa.StructArray.from_arrays(children, fields=list(kind), mask=mask)
    lengths = [0 if value is None else len(value) for value in values]
    offsets = [0] * (len(values) + 1)
    total = 0
    for position, length in enumerate(lengths, 1):
        total += length
        offsets[position] = total
    items = [item for value in values if value is not None for item in value]
    child = _shared(items, kind.value_type, json_text)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), child, type=kind, mask=mask)


def _struct_child(values: list[Mapping[str, Any]], field: pa.Field, json_text: JsonText) -> pa.Array:
    """A struct field's values (a missing key, or a null struct, is a null)."""
    return column([value.get(field.name) for value in values], field.type, json_text)


def _objects(kind: pa.DataType) -> bool:
    """Whether a list's items are Python objects (dicts, lists) that rows may share."""
    return pa.types.is_list(kind) and (pa.types.is_struct(kind.value_type) or pa.types.is_list(kind.value_type))


def _shared(items: list[Any], kind: pa.DataType, json_text: JsonText) -> pa.Array:
    """`items` as an array: each distinct object converted once, then repeated by index where objects recur."""
    if not (pa.types.is_struct(kind) or pa.types.is_list(kind)):
        return column(items, kind, json_text)
    ids = list(map(id, items))
    first: dict[int, Any] = dict(zip(ids, items))  # one item per object, in order of first appearance
    if len(first) == len(items):
        return column(items, kind, json_text)
    where = {key: position for position, key in enumerate(first)}
    index = list(map(where.__getitem__, ids))
    return column(list(first.values()), kind, json_text).take(pa.array(index, pa.int32()))
