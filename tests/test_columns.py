"""A chunk's Arrow columns built from NumPy arrays' memory (sim/columns.py, issue 36.3): the same
arrays as ``pa.array`` makes, so the same Parquet bytes, without pyarrow's probe that imports
pandas (0.2-0.25 s of CPU a ``soup simulate``, on the writer thread beside the engine's)."""

import sys

import numpy as np
import pyarrow as pa
import pytest

from sim import columns
from tests.processes import run


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.float64, np.bool_])
def test_a_numeric_column_is_the_array_pa_array_makes(dtype):
    values = (np.arange(-7, 30) % 5).astype(dtype)
    for part in (values, values[::3], values[:0], values.reshape(-1, 37)[0]):  # strided and empty too
        assert columns.array(part).equals(pa.array(part))


def test_strings_and_dictionaries_are_the_arrays_pyarrow_makes():
    labels = ["greedy", "", "dé", "predator"]
    codes = np.array([3, 3, 0, 2, 0, 3, 1], np.int16)  # first appearances out of label order
    want = pa.array([labels[c] for c in codes], type=pa.string())
    assert columns.strings(codes, labels).equals(want)
    assert columns.dictionary(codes, labels).equals(want.dictionary_encode())
    assert columns.strings(np.zeros(0, np.int8), ["x"]).equals(pa.array([], type=pa.string()))
    constant = pa.array(["only"] * 4).dictionary_encode()
    assert columns.dictionary(np.zeros(4, np.int8), ["only"]).equals(constant)


@pytest.mark.parametrize("n_labels", [1, 3, columns._FEW_LABELS, columns._FEW_LABELS + 1, 40])
def test_a_dictionary_of_few_or_many_labels_some_absent_is_pyarrows(n_labels):
    """Few labels are found a pass each, many by counting the codes: the same array either way."""
    rng = np.random.default_rng(n_labels)
    labels = [f"s{i}" for i in range(n_labels)]
    for rows in (0, 1, 9, 500):
        codes = rng.integers(0, n_labels, rows).astype(np.int16)
        codes[codes == n_labels // 2] = 0  # a label that never appears
        want = pa.array([labels[c] for c in codes], type=pa.string()).dictionary_encode()
        assert columns.dictionary(codes, labels).equals(want)


def test_a_chunk_table_marks_its_columns_never_null_but_those_named_and_refuses_a_null():
    values = {"rank": columns.array(np.array([1, 2], np.int8)), "variant": pa.nulls(2, pa.string())}
    table = columns.table(values, nullable=("variant",))
    assert [(f.name, f.nullable) for f in table.schema] == [("rank", False), ("variant", True)]
    assert table.column("rank").to_pylist() == [1, 2] and table.column("variant").null_count == 2
    with pytest.raises(ValueError, match="'variant' holds 2 nulls but is not nullable"):
        columns.table(values)


def test_a_list_column_is_the_array_pa_array_makes():
    """Each row cut to its length (Chromosome's event_order, V2), or every row whole (Ursuppe's
    per-colour lists, TA4)."""
    rows = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8], [-9, 7, 9, 3]], np.int8)
    for lengths in ([2, 0, 4, 1], [4, 4, 4, 4], [0, 0, 0, 0]):
        cut = [r[:k].tolist() for r, k in zip(rows, lengths, strict=True)]
        want = pa.array(cut, type=pa.list_(pa.int8()))
        assert columns.lists(rows, np.array(lengths, np.int8)).equals(want)
    empty = columns.lists(np.zeros((0, 3), np.int16), np.zeros(0, np.int8))
    assert empty.equals(pa.array([], type=pa.list_(pa.int16())))


def imports_pandas(code: str) -> bool:
    """Whether a fresh Python running ``code`` (lines) has imported pandas by its end."""
    result = run([sys.executable, "-c", code + "\nimport sys; print('pandas' in sys.modules)"])
    assert result.returncode == 0, result.stderr
    return result.stdout.split()[-1] == "True"


def test_the_columns_do_not_import_pandas():
    assert not imports_pandas(
        "import numpy as np; from sim import columns\n"
        "columns.array(np.arange(9)); columns.array(np.ones(9, bool))\n"
        "columns.dictionary(np.array([1, 0, 1]), ['a', 'b']); columns.strings(np.zeros(2, np.int8), ['v'])\n"
        "columns.lists(np.ones((3, 2), np.int8), np.array([2, 0, 1]))"
    )


@pytest.mark.slow
def test_chunk_rows_are_built_without_importing_pandas():
    """Ursuppe's every column of the result schema, with a double play's list columns (TA4) and a
    dummy's position (TD8), and Pig's."""
    assert not imports_pandas(
        "from sim import game; from sim.ursuppe.tools.bench import default_run\n"
        "for variant in (None, 'double1', 'dummy'):\n"
        "    r = default_run(2 if variant else 4, variant=variant)\n"
        "    r.chunk_rows(r.play_games(0, 8, 1))\n"
        "pig = game.get('pig')\n"
        "pig.new_run(pig.load_rules(), 3, 1).play_chunk(0, 8, 1)"
    )
