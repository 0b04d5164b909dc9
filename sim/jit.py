"""One switch for compiling kernels, and the plain-Python path.

Every kernel is decorated with :func:`kernel` (or :func:`parallel_kernel` for the batch loops).
With the environment variable ``NUMBA_DISABLE_JIT=1`` numba leaves every function as plain
Python and ``prange`` becomes ``range``: that is the plain-Python execution path of the very
same code, used for debugging and as the speed baseline (see ``soup bench``). It must be set
before ``sim`` is imported, so the plain path is run in a subprocess.
"""

import os

import numba

PLAIN_PYTHON: bool = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")

kernel = numba.njit(cache=True, nogil=True)
parallel_kernel = numba.njit(cache=True, nogil=True, parallel=True)
prange = numba.prange
