"""Arrow columns of a chunk's outcome rows, built from NumPy arrays' memory (issue 36.3).

``pa.array`` of a NumPy array or a list first asks whether it is one of pandas' types, and that
question imports pandas: 0.2-0.25 s of CPU once a command, on the runner's writer thread while the
engine plays the next chunk (and holding the GIL that the engine's threads take between blocks).
These build the same arrays from the arrays' buffers instead, without the question and without a
copy, so a chunk's Parquet bytes are the same as ``pa.array``'s.
"""

from collections.abc import Collection

import numpy as np
import pyarrow as pa


def table(columns: dict[str, pa.Array], nullable: Collection[str] = ()) -> pa.Table:
    """A chunk's table of ``columns``, each field marked never null but those named ``nullable``
    (a column that is null in some runs: a 2-player variant's). The Parquet writer then stores no
    definition level a value (17.9 -> 14.6 ms a 20,000-game Ursuppe chunk, issue 36.3); the values read back
    are the same. A ValueError if a column not named ``nullable`` holds a null."""
    for name, values in columns.items():
        if name not in nullable and values.null_count:
            raise ValueError(f"column {name!r} holds {values.null_count} nulls but is not nullable")
    fields = [pa.field(name, values.type, nullable=name in nullable) for name, values in columns.items()]
    return pa.Table.from_arrays(list(columns.values()), schema=pa.schema(fields))


def with_field_metadata(table: pa.Table, fields: dict[str, dict[bytes, bytes]]) -> pa.Table:
    """``table`` with each named column's field metadata given the keys ``fields[name]`` (kept
    beside those it has): how a game marks its columns for the writer and the readers (a packed
    list's item type, sim.packed; a column to write plainly, sim.chunk_encoding)."""
    schema = table.schema
    for name, keys in fields.items():
        i = schema.get_field_index(name)
        field = schema.field(i)
        schema = schema.set(i, field.with_metadata({**(field.metadata or {}), **keys}))
    return pa.Table.from_arrays(table.columns, schema=schema)


def array(values: np.ndarray) -> pa.Array:
    """A 1-D array of numbers or booleans as the Arrow array ``pa.array`` makes of it (no nulls)."""
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:  # Arrow's booleans are bits
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def lists(rows: np.ndarray, lengths: np.ndarray) -> pa.ListArray:
    """The list column whose row r is ``rows[r, :lengths[r]]`` (a 2-D array's rows cut to their
    lengths), as ``pa.array`` of those lists, typed ``pa.list_`` of the rows' type, gives it."""
    rows = np.asarray(rows)
    lengths = np.asarray(lengths, np.int32)
    offsets = np.zeros(len(lengths) + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    kept = np.arange(rows.shape[1]) < lengths[:, None]  # row-major: each row's items in order
    return pa.ListArray.from_arrays(array(offsets), array(rows[kept]))


def strings(codes: np.ndarray, labels: list[str]) -> pa.StringArray:
    """The string column ``labels[codes]``, its bytes gathered from the labels' (no Python string a
    row)."""
    codes = np.ravel(codes)
    encoded = [label.encode() for label in labels]
    lengths = np.array([len(b) for b in encoded], np.int32)
    starts = np.cumsum(lengths) - lengths
    row_lengths = lengths[codes] if len(labels) else np.zeros(len(codes), np.int32)
    offsets = np.zeros(len(codes) + 1, np.int32)
    np.cumsum(row_lengths, out=offsets[1:])
    blob = np.frombuffer(b"".join(encoded), np.uint8)
    # byte j of row r: the label's byte (j - the row's offset), read from where the label starts
    gather = np.repeat(starts[codes] - offsets[:-1], row_lengths) + np.arange(offsets[-1])
    data = blob[gather] if len(gather) else np.zeros(0, np.uint8)
    return pa.Array.from_buffers(pa.string(), len(codes), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def dictionary(codes: np.ndarray, labels: list[str]) -> pa.DictionaryArray:
    """The string column ``labels[codes]`` as pyarrow's dictionary_encode() gives it (the labels in
    the order they first appear, int32 indices), without building the strings row by row (issue
    24)."""
    codes = np.ravel(codes)
    if not len(codes):
        candidates = []
    elif len(labels) <= _FEW_LABELS:
        candidates = range(len(labels))
    else:
        candidates = np.flatnonzero(np.bincount(codes))
    first = {c: int(np.argmax(codes == c)) for c in candidates}  # a pass a label: where it first is
    seen = np.array(sorted((c for c, i in first.items() if codes[i] == c), key=first.get), np.intp)
    index = np.zeros(len(labels), np.int32)
    index[seen] = np.arange(len(seen), dtype=np.int32)
    return pa.DictionaryArray.from_arrays(array(np.take(index, codes)), strings(seen, labels))


# Up to this many labels (a run's strategies, the end reasons), a pass a label beats counting the
# codes (np.bincount widens them to 64 bits first): 0.45 -> 0.2 ms for 80,000 rows (issue 36.3).
_FEW_LABELS = 16
