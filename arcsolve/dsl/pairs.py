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
