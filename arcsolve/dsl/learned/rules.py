"""Cell rules learned from the train pairs: a cell's new colour as a function of its neighbourhood.

A cell's key is its own colour and the multiset of its eight neighbours' colours (10 for
outside the grid), so a rule learned next to an object on one side also holds on the
other sides. The table is fitted on the train pairs (it must never map one key to two
colours) and applied strictly: a grid with a key that the train pairs never showed gets
no answer, rather than a guess.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

Array = np.ndarray
Table = tuple[tuple[int, ...], tuple[int, ...]]  # sorted keys, and the colour for each

_OUTSIDE = 10


def neighbourhood_keys(g: Array) -> Array:
    """One integer per cell: its colour and its sorted eight neighbours, in base 11."""
    padded = np.pad(g.astype(np.int64), 1, constant_values=_OUTSIDE)
    windows = sliding_window_view(padded, (3, 3)).reshape(g.size, 9)
    around = np.sort(np.delete(windows, 4, axis=1), axis=1)
    digits = np.concatenate([windows[:, 4:5], around], axis=1)
    return digits @ (11 ** np.arange(8, -1, -1, dtype=np.int64))


def fit_rule(grids: list[Array], targets: list[Array]) -> Table | None:
    """The table from neighbourhood key to the target's colour, or None if a key has two colours."""
    if any(g.shape != t.shape for g, t in zip(grids, targets, strict=True)):
        return None
    keys = np.concatenate([neighbourhood_keys(g) for g in grids])
    colours = np.concatenate([t.ravel() for t in targets]).astype(np.int64)
    codes = np.unique(keys * 10 + colours)
    uniq = codes // 10
    if np.any(uniq[1:] == uniq[:-1]):
        return None
    return tuple(uniq.tolist()), tuple((codes % 10).tolist())


def lookup(known: Sequence[int], keys: Array) -> Array | None:
    """Where each key sits in the sorted known keys, or None if some key is not among them."""
    known_a = np.asarray(known, dtype=np.int64)
    at = np.searchsorted(known_a, keys)
    if np.any(at >= known_a.size) or np.any(known_a[np.minimum(at, known_a.size - 1)] != keys):
        return None
    return at


def apply_rule(g: Array, table: Table) -> Array | None:
    """Each cell's colour from the table; None if some cell's key is not in it."""
    at = lookup(table[0], neighbourhood_keys(g))
    if at is None:
        return None
    return np.asarray(table[1], dtype=g.dtype)[at].reshape(g.shape)
