"""Tests on the train pairs that the primitive families' parameter inference shares.

A family module may not import `params` (which merges the families' inference), so what
several families ask of every (grid, target) pair alike is written once here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def same_shapes(grids: Sequence[np.ndarray], targets: Sequence[np.ndarray]) -> bool:
    """Whether every grid has its target's size."""
    return all(g.shape == t.shape for g, t in zip(grids, targets, strict=True))


def raw_inputs(grids: Sequence[np.ndarray], facts) -> bool:
    """Whether the grids are the task's train inputs themselves (`facts.inputs`), not a
    program's results: what is learned on derived grids may merely memorise them."""
    return len(grids) == len(facts.inputs) and all(g is i for g, i in zip(grids, facts.inputs, strict=True))


def fixed_size(grids: Sequence[np.ndarray], targets: Sequence[np.ndarray]) -> list[tuple[int, int]]:
    """The targets' one size, if it is at least every grid's and not every grid's own."""
    shapes = {t.shape for t in targets}
    if len(shapes) != 1:
        return []
    h, w = shapes.pop()
    if any(g.shape[0] > h or g.shape[1] > w for g in grids) or all(g.shape == (h, w) for g in grids):
        return []
    return [(h, w)]


def held_colours(grids: Sequence[np.ndarray]) -> set[int]:
    """The non-zero colours that every grid holds."""
    return set.intersection(*({int(c) for c in np.unique(g)} for g in grids)) - {0}


def still_colours(grids: Sequence[np.ndarray], targets: Sequence[np.ndarray]) -> list[int]:
    """The non-zero colours that every grid holds and every target keeps in the same cells,
    in order (none unless every grid has its target's size)."""
    if not same_shapes(grids, targets):
        return []
    pairs = list(zip(grids, targets, strict=True))
    return [c for c in sorted(held_colours(grids)) if all(np.array_equal(g == c, t == c) for g, t in pairs)]
