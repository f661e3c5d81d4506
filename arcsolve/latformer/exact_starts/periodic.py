"""Periodic reads (`periodic_sets`): where every train output is a periodic pattern and its
input is that pattern with some cells hidden under one colour (the holes), one head that
reads every translate of each cell by the input's own period (`ExactAction.hole`,
`arcsolve.latformer.periods`) explains it: the colour that a cell's translates hold, holes
aside, is the pattern's. The period is each grid's own, so pairs whose patterns repeat at
different periods are one task."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.readings import reading


def periodic_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = ()
) -> list[ActionSet]:
    """At most one set: a periodic read whose reading is every train output, where each
    output has its input's shape and differs from it only at cells of one colour (the
    holes), a colour no output holds. The set counts as unseen the test cells that its
    reading leaves a hole (no period found, or a class of cells all holes)."""
    if not pairs or any(x.shape != y.shape for x, y in pairs) or all(np.array_equal(x, y) for x, y in pairs):
        return []
    hole = _hole(pairs)
    if hole is None:
        return []
    action = ExactAction(hole=hole)
    if not all(np.array_equal(reading(action, x, y.shape), y) for x, y in pairs):
        return []
    unseen = sum(int((reading(action, x, shape) == hole).sum()) for x, shape in tests)
    return [ActionSet((action,), 0, unseen)]


def _hole(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> int | None:
    """The colour every changed cell of every pair held, when no output holds it."""
    changed = {int(c) for x, y in pairs for c in np.unique(x[x != y])}
    if len(changed) != 1:
        return None
    hole = changed.pop()
    return None if any((y == hole).any() for _, y in pairs) else hole
