"""Kernels index arrays without numba's wraparound (sim/jit.py, "No negative indices"): an index
is used as it is, so no kernel may index with a negative value."""

import ast

import numba
import numpy as np
import pytest

from sim import jit


@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
def test_a_negative_index_is_not_wrapped_around():
    """With bounds checks on (NUMBA_BOUNDSCHECK=1) a kernel that indexed with -1 raises, where
    numba's own indexing would have read the last element."""
    jit._index_without_wraparound()  # as at the first kernel's compile; installed once a process

    @numba.njit(boundscheck=True)
    def at(x, i):
        return x[i]

    @numba.njit(boundscheck=True)
    def at_row(x, i, j):
        return x[i, j]

    assert at(np.arange(5), 4) == 4
    with pytest.raises(IndexError):
        at(np.arange(5), -1)
    rows = np.arange(6).reshape(2, 3)
    assert at_row(rows, 1, 2) == 5
    with pytest.raises(IndexError):
        at_row(rows, 1, -1)


def test_no_kernel_module_indexes_from_the_end():
    """``x[-1]`` or ``x[g, -k]`` in a kernel would read before the array, not its last element."""
    files = jit._module_files(jit._ROOT)
    found = []
    for module in sorted({module for module, _ in jit._scan(jit._ROOT)[1]}):
        for node in ast.walk(ast.parse(files[module].read_text(encoding="utf-8"))):
            if isinstance(node, ast.Subscript):
                parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                if any(isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub) for part in parts):
                    found.append(f"{module}:{node.lineno} {ast.unparse(node)}")
    assert found == []
