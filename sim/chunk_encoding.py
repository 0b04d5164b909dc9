"""How a chunk's rows become Parquet bytes (game-agnostic; docs/decisions.md, "Chunk encodings").

The runner's writer encodes every chunk beside the engine's threads, so on a machine whose cores
all play, each millisecond of encoding is a millisecond of games not played (issue 36.3). Each
column is therefore written the cheapest way that keeps the file about as small, chosen by its
Arrow type (measured column by column on Ursuppe at 4 and 6 players, with the extra genes, a double
play, Chromosome and Pig: docs/profiling.md, "Issue 36.3, session 10"):

| column | encoding | compression |
|---|---|---|
| the game index | delta | zstd (sorted; the only statistics: chunks are told apart by it) |
| 8-bit integers | delta | zstd (small counts and codes: zstd halves them) |
| 16- and 32-bit integers | delta | none (delta's bit-packing is as small as zstd makes it) |
| 64-bit integers | dictionary | zstd (bit masks: few distinct values a chunk) |
| booleans | plain | none (bits already) |
| packed lists (sim.packed) | dictionary | zstd (few distinct rows: the genes first bought) |
| a column marked :data:`PLAIN_KEY` (not a list) | plain | zstd (a game's value, e.g. the deck) |
| strings, dictionaries, lists, any other type | dictionary | none (zstd's set-up costs more than it saves) |

A column marked plain holds one value a game on each of its players' rows, distinct between games:
zstd finds the repeats, where a dictionary of a chunk's distinct values does not pay.

A dictionary for every column (the encoding before) took 21.9 ms for a 20,000-game chunk at 4
players; these take 17.9 ms for a file 0.5% larger (14.6 ms with the columns declared never null,
sim.columns.table). Every encoding here is in Parquet's format 2.x,
which pyarrow and polars read.
"""

from typing import Any

GAME_COLUMN = "game"  # every chunk's game index (sim.game.CORE_COLUMNS), ascending
PLAIN_KEY = b"soup.plain"  # field metadata: write the column plainly (its values repeat on neighbouring rows)

_DELTA, _PLAIN, _DICTIONARY = "DELTA_BINARY_PACKED", "PLAIN", "dictionary"


def encode_chunk(table: Any) -> bytes:
    """A chunk's Parquet bytes, encoded once in memory (the same bytes on every backend), each
    column as :func:`column_options` says; statistics for the game index only."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    dictionary, encodings, compression = [], {}, {}
    for field in table.schema:
        encoding, codec = column_options(field)
        paths = _leaf_paths(field)
        compression.update(dict.fromkeys(paths, codec))
        if encoding == _DICTIONARY:
            dictionary += paths
        else:
            encodings[field.name] = encoding
    stats = [GAME_COLUMN] if GAME_COLUMN in table.column_names else []
    sink = pa.BufferOutputStream()
    pq.write_table(
        table,
        sink,
        compression=compression,
        use_dictionary=dictionary,
        column_encoding=encodings,
        write_statistics=stats,
    )
    return sink.getvalue().to_pybytes()


def column_options(field: Any) -> tuple[str, str]:
    """The encoding (a Parquet encoding's name, or ``"dictionary"``) and the compression a chunk
    writes the Arrow field ``field`` with (the module's table)."""
    import pyarrow as pa

    kind = field.type
    nested = pa.types.is_list(kind) or pa.types.is_large_list(kind)
    if PLAIN_KEY in (field.metadata or {}) and not nested:
        return _PLAIN, "zstd"
    if field.name == GAME_COLUMN or (pa.types.is_integer(kind) and kind.bit_width == 8):
        return _DELTA, "zstd"
    if pa.types.is_integer(kind) and kind.bit_width <= 32:
        return _DELTA, "none"
    if pa.types.is_integer(kind):
        return _DICTIONARY, "zstd"
    if pa.types.is_boolean(kind):
        return _PLAIN, "none"
    if pa.types.is_fixed_size_binary(kind):
        return _DICTIONARY, "zstd"
    return _DICTIONARY, "none"


def with_plain_fields(table: Any, names: list[str]) -> Any:
    """``table`` with the columns ``names`` marked to be written plainly (:data:`PLAIN_KEY`; a
    packed list whose value is a game's, repeated on its players' rows)."""
    from sim.columns import with_field_metadata

    return with_field_metadata(table, dict.fromkeys(names, {PLAIN_KEY: b"1"}))


def _leaf_paths(field: Any) -> list[str]:
    """The Parquet column paths of an Arrow field, as the writer's per-column options name them
    (a list's values are the column ``name.list.element``, whatever Arrow calls its item)."""
    import pyarrow as pa

    if pa.types.is_list(field.type) or pa.types.is_large_list(field.type):
        item = field.type.value_field.with_name("element")
        return [f"{field.name}.list.{path}" for path in _leaf_paths(item)]
    return [field.name]
