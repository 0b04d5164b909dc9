"""Corrections for families of comparisons (every gene, every seat, every strategy).

Testing twenty genes at 5% finds one "significant" gene by chance alone. Reports therefore
give, next to each raw p-value, the Holm-adjusted p-value (controls the family-wise error
rate: the chance of any false finding) or the Benjamini-Hochberg q-value (controls the false
discovery rate: the expected share of false findings among those reported).
"""

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl


def _family(p_values: np.ndarray | list[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The p-values, an all-NaN result of their shape, and the indices of the non-NaN ones in
    increasing order of p (NaN entries are not part of the family)."""
    p = np.asarray(p_values, dtype=np.float64)
    valid = np.flatnonzero(~np.isnan(p))
    return p, np.full(p.shape, np.nan), valid[np.argsort(p[valid], kind="stable")]


def holm(p_values: np.ndarray | list[float]) -> np.ndarray:
    """Holm step-down adjusted p-values (NaN entries stay NaN and do not count in the family).
    Written out because scipy has no Holm adjustment (statsmodels' multipletests does, but is
    not worth a dependency for three lines)."""
    p, out, order = _family(p_values)
    m = len(order)
    if m == 0:
        return out
    adjusted = np.maximum.accumulate(np.minimum((m - np.arange(m)) * p[order], 1.0))
    out[order] = adjusted
    return out


def benjamini_hochberg(p_values: np.ndarray | list[float]) -> np.ndarray:
    """Benjamini-Hochberg q-values (``scipy.stats.false_discovery_control``, method "bh"); NaN
    entries stay NaN and do not count in the family (scipy refuses NaN, so they are set aside)."""
    from scipy import stats  # here, not at the top: holm is in `soup simulate`'s summary (issue 36.3)

    p, out, order = _family(p_values)
    if len(order) == 0:
        return out
    out[order] = stats.false_discovery_control(p[order], method="bh")
    return out


def with_adjusted(
    rows: list[dict[str, Any]], **columns: tuple[Callable[[np.ndarray], np.ndarray], str]
) -> pl.DataFrame:
    """``rows`` as a table with one column per keyword ``name=(correction, p column)``: the
    correction (:func:`holm`, :func:`benjamini_hochberg`) of that p column over the whole table
    (the table is the family)."""
    df = pl.DataFrame(rows)
    return df.with_columns(pl.Series(name, fix(df[p].to_numpy())) for name, (fix, p) in columns.items())


def with_holm(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """``rows`` as a table with ``p_holm``, Holm's adjustment of their ``p_value`` over the table."""
    return with_adjusted(rows, p_holm=(holm, "p_value"))
