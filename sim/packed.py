"""Lists of small codes in a chunk's Parquet file, packed one byte an entry (issue 36.3).

A row's list of equal length whose entries lie in 0..255 (Ursuppe's ``first_bought``, rounds, and
``deck``, card indices) is written as a ``fixed_size_binary(k)`` column, byte i the list's entry i,
rather than as Parquet's ``list<...>``: encoding the list columns (repetition levels, a value
stream per entry) was most of the runner's writer time; the packed bytes cost a sixth of it, in
about as much room (a chunk 5% smaller at 4 players, 11% at 6, 5% larger with the extra genes;
docs/profiling.md). The column's Arrow field carries its list type in its metadata
(``soup.list``), so that a reader restores the lists: :func:`unpacked` (a chunk's schema) gives
the expressions, and sim.runner's :func:`read_chunk` / :func:`scan_chunks` apply them. A chunk
written before the packing has real lists and is read as it is.
"""

from typing import Any

import numpy as np
import pyarrow as pa

from sim.columns import with_field_metadata

LIST_KEY = b"soup.list"  # field metadata: the item type of the list a packed column stands for


def packed_column(values: np.ndarray) -> pa.FixedSizeBinaryArray:
    """A fixed-size binary column of ``values`` [rows, k] (integers in 0..255), one row's k
    entries as its k bytes. A ValueError for an entry out of range."""
    values = np.asarray(values)
    if values.size and _outside_a_byte(values):
        raise byte_range_error(values)
    return byte_column(np.ascontiguousarray(values, dtype=np.uint8))


def byte_column(data: np.ndarray) -> pa.FixedSizeBinaryArray:
    """The packed column of entries already one byte each: ``data`` [rows, k] (uint8, C order)."""
    rows, k = data.shape
    return pa.FixedSizeBinaryArray.from_buffers(pa.binary(k), rows, [None, pa.py_buffer(data)])


def byte_range_error(values: np.ndarray) -> ValueError:
    """The error for ``values`` to be packed that do not all lie in 0..255."""
    return ValueError(f"packed column: entries must lie in 0..255, got {values.min()}..{values.max()}")


def _outside_a_byte(values: np.ndarray) -> bool:
    """Whether an entry of ``values`` lies outside 0..255, in one pass where min and max take two
    for the wide signed types (a negative int16-int64 entry read as unsigned is over 255)."""
    kind, size = values.dtype.kind, values.dtype.itemsize
    if kind == "b":
        return False
    if kind == "u":
        return bool(values.max() > 255)
    if kind == "i" and size > 1:
        return bool(values.view(f"u{size}").max() > 255)
    return bool(values.min() < 0 or values.max() > 255)


def with_packed_fields(table: pa.Table, items: dict[str, pa.DataType]) -> pa.Table:
    """``table`` with the packed columns ``items`` (name: list item type) marked in its schema."""
    return with_field_metadata(table, {name: {LIST_KEY: str(item).encode()} for name, item in items.items()})


def unpacked(schema: pa.Schema) -> list[Any]:
    """polars expressions turning the packed columns of a chunk with ``schema`` (its Arrow schema,
    ``pyarrow.parquet.read_schema``) back into their lists (none for a chunk without any)."""
    import polars as pl

    exprs = []
    for field in schema:
        item = (field.metadata or {}).get(LIST_KEY)
        if item is None or not pa.types.is_fixed_size_binary(field.type):
            continue
        kind = getattr(pl, item.decode().capitalize())  # "int16" -> pl.Int16
        width = field.type.byte_width
        exprs.append(pl.col(field.name).bin.reinterpret(dtype=pl.Array(pl.UInt8, width)).cast(pl.List(kind)))
    return exprs
