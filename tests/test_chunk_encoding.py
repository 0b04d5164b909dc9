"""How a chunk's columns are written (sim/chunk_encoding.py, issue 36.3; docs/decisions.md, "Chunk
encodings"): each Arrow type its encoding and compression, statistics for the game index only, a
column marked plain written plainly, and every value read back as it was."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim import runner
from sim.chunk_encoding import PLAIN_KEY, column_options, encode_chunk, with_plain_fields
from sim.packed import packed_column, with_packed_fields
from sim.ursuppe.simulation import VARIANT_COLUMNS, UrsuppeRun
from strategies.ursuppe.params import load_strategy


def _written(data: bytes) -> dict[str, tuple[str, tuple[str, ...], bool]]:
    """Each Parquet column's compression, encodings and whether it has statistics."""
    meta = pq.ParquetFile(pa.BufferReader(data)).metadata.row_group(0)
    columns = (meta.column(i) for i in range(meta.num_columns))
    return {c.path_in_schema: (c.compression, c.encodings, c.is_stats_set) for c in columns}


def test_each_column_is_written_as_its_type_says_and_reads_back_the_same():
    n = 200
    rng = np.random.default_rng(1)
    table = pa.table(
        {
            "game": pa.array(np.repeat(np.arange(100, 200), 2)),
            "rank": pa.array(np.tile(np.array([1, 2], np.int8), 100)),
            "position": pa.array(rng.integers(-5, 300, n).astype(np.int16)),
            "bp": pa.array(rng.integers(0, 10**6, n).astype(np.int32)),
            "held": pa.array(rng.integers(0, 2**40, n)),
            "won": pa.array(rng.random(n) < 0.5),
            "bought": packed_column(rng.integers(0, 9, (n, 5))),
            "deck": packed_column(np.repeat(rng.integers(0, 11, (100, 11)), 2, axis=0)),
            "strategy": pa.array(["a", "b"] * 100).dictionary_encode(),
            "reason": pa.array(["x", "y", None, "x"] * 50),
            "colours": pa.array([[3, 4]] * n, pa.list_(pa.int16())),
        }
    )
    table = with_plain_fields(with_packed_fields(table, {"bought": pa.int8(), "deck": pa.int8()}), ["deck"])
    assert table.schema.field("deck").metadata[PLAIN_KEY]
    assert PLAIN_KEY not in table.schema.field("bought").metadata
    data = encode_chunk(table)
    written = _written(data)
    expected = {
        "game": ("ZSTD", "DELTA_BINARY_PACKED"),
        "rank": ("ZSTD", "DELTA_BINARY_PACKED"),
        "position": ("UNCOMPRESSED", "DELTA_BINARY_PACKED"),
        "bp": ("UNCOMPRESSED", "DELTA_BINARY_PACKED"),
        "held": ("ZSTD", "RLE_DICTIONARY"),
        "won": ("UNCOMPRESSED", "PLAIN"),
        "bought": ("ZSTD", "RLE_DICTIONARY"),
        "deck": ("ZSTD", "PLAIN"),
        "strategy": ("UNCOMPRESSED", "RLE_DICTIONARY"),
        "reason": ("UNCOMPRESSED", "RLE_DICTIONARY"),
        "colours.list.element": ("UNCOMPRESSED", "RLE_DICTIONARY"),
    }
    for path, (codec, encoding) in expected.items():
        compression, encodings, stats = written[path]
        assert compression == codec and encoding in encodings, (path, written[path])
        assert "RLE_DICTIONARY" not in encodings or encoding == "RLE_DICTIONARY", path
        assert stats == (path == "game"), path
    assert pq.read_table(pa.BufferReader(data)).equals(table)
    assert column_options(table.schema.field("game")) == ("DELTA_BINARY_PACKED", "zstd")  # int64, yet delta
    marked = pa.field("x", pa.int16(), metadata={PLAIN_KEY: b"1"})  # the marker, whatever the type
    assert column_options(marked) == ("PLAIN", "zstd")
    assert column_options(pa.field("x", pa.list_(pa.int8()), metadata={PLAIN_KEY: b"1"}))[0] == "dictionary"


def test_an_ursuppe_chunk_writes_its_deck_plainly_the_genes_first_bought_with_a_dictionary_and_no_nulls(
    rulebook, tmp_path
):
    run = UrsuppeRun(rulebook, 4, 5, [load_strategy("greedy")], seats=[0, 0, 0, 0], seating="rotate")
    out = tmp_path / "run"
    runner.run(run, out, 8, 100, 1)
    (chunk,) = runner.chunk_files(out)
    written = _written(chunk.read_bytes())
    assert "PLAIN" in written["deck"][1] and "RLE_DICTIONARY" not in written["deck"][1]
    assert "RLE_DICTIONARY" in written["first_bought"][1]
    # never null but in a 2-player variant's columns: no definition levels to write (columns.table)
    schema = pq.read_schema(chunk)
    assert {f.name for f in schema if f.nullable} == set(VARIANT_COLUMNS)
    rows = runner.read_chunk(chunk)
    assert all(sorted(d) == list(range(11)) for d in rows["deck"].to_list())
