"""Heuristics for the priors that are not lattice transformations (physics, colour, counting,
symmetry, logic, topology, pattern, objects). They are suggestions for a person to review;
annotations/README.md says how far to trust each.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from arcsolve.priors.annotations import VOCABULARY
from arcsolve.priors.lattice_rule import shapes_predictable
from arcsolve.tasks import Task

EIGHT_NEIGHBOURS = np.ones((3, 3), dtype=bool)


def _background(grid: np.ndarray) -> int:
    values, counts = np.unique(grid, return_counts=True)
    return int(values[np.argmax(counts)])


def _components(grid: np.ndarray, background: int) -> int:
    """The number of 8-connected groups of non-background cells of one colour."""
    return sum(
        ndimage.label(grid == colour, structure=EIGHT_NEIGHBOURS)[1]
        for colour in np.unique(grid)
        if colour != background
    )


def _fallen(grid: np.ndarray, background: int) -> np.ndarray:
    """Every column's non-background cells dropped to the bottom, in order."""
    out = np.full_like(grid, background)
    for c in range(grid.shape[1]):
        cells = grid[:, c][grid[:, c] != background]
        if len(cells):
            out[-len(cells) :, c] = cells
    return out


def _gravity(pairs: list[tuple[np.ndarray, np.ndarray]]) -> bool:
    if any(x.shape != y.shape for x, y in pairs):
        return False
    for k in range(4):
        if all(
            np.array_equal(np.rot90(_fallen(np.rot90(x, k), _background(x)), -k), y)
            for x, y in pairs
        ):
            return True
    return False


def _symmetric(grid: np.ndarray) -> bool:
    flips = [grid[::-1], grid[:, ::-1]] + (
        [grid.T, np.rot90(grid)] if grid.shape[0] == grid.shape[1] else []
    )
    return any(np.array_equal(grid, g) for g in flips)


def _has_divider(grid: np.ndarray) -> bool:
    """A full row or column of one non-background colour splitting the grid into parts."""
    background = _background(grid)
    lines = [*grid[1:-1], *grid[:, 1:-1].T]
    return any(len(set(line.tolist())) == 1 and line[0] != background for line in lines)


def heuristic_priors(task: Task) -> tuple[list[str], list[str]]:
    """Priors the heuristics suggest for a task that is not a lattice transformation, and why."""
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    found: dict[str, str] = {}
    same = all(x.shape == y.shape for x, y in pairs)
    if _gravity(pairs):
        found["physics"] = "cells fall to one side"
    if any(set(np.unique(y)) - set(np.unique(x)) for x, y in pairs):
        found["colour"] = "outputs use colours the inputs lack"
    if not shapes_predictable(task) or all(y.size <= 3 for _, y in pairs):
        found["counting"] = "output size depends on the content"
    if same and all(_symmetric(y) for _, y in pairs) and not all(_symmetric(x) for x, _ in pairs):
        found["symmetry"] = "outputs are symmetric, inputs are not"
    if all(_has_divider(x) for x, _ in pairs) and all(y.size * 2 <= x.size for x, y in pairs):
        found["logic"] = "inputs are split by a divider and the output is one part's size"
    if (
        same
        and all(((x != y) <= (x == _background(x))).all() for x, y in pairs)
        and "physics" not in found
    ):
        found["topology"] = "cells are only added to the background"
    if any(y.size > x.size for x, y in pairs):
        found["pattern"] = "outputs are larger than inputs"
    if not found or np.mean([_components(x, _background(x)) for x, _ in pairs]) >= 2:
        found["objects"] = "inputs hold several objects"
    priors = [p for p in VOCABULARY if p in found]
    return priors, [found[p] for p in priors]
