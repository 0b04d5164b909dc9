"""Small-code lists packed one byte an entry in the chunk files (sim/packed.py, issue 36.3): what a
reader gets back is the list columns of the result schema, from a new run and from a run written
before the packing; a run of another chunk format is read but not resumed."""

import json

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim import runner
from sim.packed import LIST_KEY, packed_column, with_packed_fields
from sim.ursuppe.simulation import UrsuppeRun
from strategies.ursuppe.params import load_strategy


def test_packed_lists_read_back_as_the_lists_and_old_files_as_they_are(tmp_path):
    values = np.array([[0, 3, 255], [7, 0, 1]], dtype=np.int64)
    table = pa.table({"game": pa.array([0, 1]), "xs": packed_column(values)})
    pq.write_table(with_packed_fields(table, {"xs": pa.int16()}), tmp_path / "new.parquet")
    old = pa.table({"game": pa.array([0, 1]), "xs": pa.array(values.tolist(), type=pa.list_(pa.int16()))})
    pq.write_table(old, tmp_path / "old.parquet")
    assert pq.read_schema(tmp_path / "new.parquet").field("xs").type == pa.binary(3)  # packed on disk
    for name in ("new", "old"):
        path = tmp_path / f"{name}.parquet"
        for df in (runner.read_chunk(path), runner.scan_chunks([path]).collect()):
            assert df.schema["xs"] == pl.List(pl.Int16) and df["xs"].to_list() == values.tolist()
        assert runner.read_chunk(path, columns=["game"]).columns == ["game"]


@pytest.mark.parametrize(
    "values",
    [
        [[1, 256]],
        np.array([[1, -1]], np.int8),
        np.array([[-1, 2]], np.int16),
        [[-1, 2]],
        [[0.0, 256.0]],
        [[-0.5, 1]],
    ],
    ids=["int64 256", "int8 -1", "int16 -1", "int64 -1", "float 256", "float -0.5"],
)
def test_an_entry_outside_a_byte_is_refused(values):
    with pytest.raises(ValueError, match="0..255"):
        packed_column(np.asarray(values))


@pytest.mark.parametrize(
    "values",
    [np.array([[0, 255]], np.uint8), np.array([[0, 255]], np.int16), [[True, False]], [[0.0, 5.0]]],
    ids=["uint8", "int16", "bool", "float"],
)
def test_every_entry_within_a_byte_is_packed(values):
    assert packed_column(np.asarray(values)).to_pylist() == [bytes(np.asarray(values, np.uint8)[0])]


def test_ursuppe_chunks_are_packed_and_a_run_of_another_format_is_not_resumed(rulebook, tmp_path):
    run = UrsuppeRun(rulebook, 4, 5, [load_strategy("greedy")], seats=[0, 0, 0, 0], seating="rotate")
    out = tmp_path / "run"
    runner.run(run, out, 8, 100, 1)  # one chunk (too short to split its end off: ChunkLayout)
    (chunk,) = runner.chunk_files(out)
    schema = pq.read_schema(chunk)
    assert schema.field("deck").metadata[LIST_KEY] == b"int8" and pa.types.is_fixed_size_binary(
        schema.field("first_bought").type
    )
    rows = runner.read_chunk(chunk)
    assert rows.schema["deck"] == pl.List(pl.Int8) and rows.schema["first_bought"] == pl.List(pl.Int16)
    assert all(sorted(d) == list(range(11)) for d in rows["deck"].to_list())
    assert {len(f) for f in rows["first_bought"].to_list()} == {20}
    manifest = json.loads((out / runner.MANIFEST).read_text())
    manifest["spec"]["format_version"] = 1
    (out / runner.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(runner.RunError, match="chunk format 1.*cannot be resumed") as e:
        runner.run(run, out, 16, 8, 1)
    assert "\n" not in str(e.value)
