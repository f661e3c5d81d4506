"""The period of a grid whose cells are partly hidden (`grid_period`): the lattice of
translations under which the cells that are not holes repeat. A periodic read
(`arcsolve.latformer.experts`, the translate expert's periods) reads every translate of a
cell by its grid's own period, as the output's size is each example's own."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

MAX_PERIOD = 10  # periods tried per axis, at most


def period_classes(period: tuple[int, int], shape: tuple[int, int]) -> tuple[int, int]:
    """The classes per axis of a lattice of `shape` modulo `period`: the period, or the side
    where the period is 1 (none: each row, or column, a class of its own) or longer."""
    return tuple(n if k == 1 else min(k, n) for k, n in zip(period, shape, strict=True))


def period_counts(grid: np.ndarray, period: tuple[int, int], ignore: int | None = None) -> np.ndarray:
    """(p, q, 10) how many cells of each colour each class of the grid's cells modulo the
    period (p, q) holds, cells of colour `ignore` left out; a period of 1 on an axis is
    none: each row (or column) a class of its own."""
    p, q = period_classes(period, grid.shape)
    counts = np.zeros((p, q, 10), dtype=np.int64)
    rows, cols = np.indices(grid.shape)
    keep = grid != ignore if ignore is not None else np.ones(grid.shape, dtype=bool)
    np.add.at(counts, ((rows % p)[keep], (cols % q)[keep], grid[keep]), 1)
    return counts


def grid_period(grid: np.ndarray, hole: int) -> tuple[int, int]:
    """The period (p, q) of a grid whose cells of colour `hole` are hidden: the one with the
    fewest classes of cells under which every class holds one colour besides the holes,
    and at least one cell that is not a hole. Per axis 1 (no period: a class is one row, or
    column) or 2 to MAX_PERIOD below the side; with 1 on one axis, the other at most half
    its side, so that each class holds two cells. (1, 1) when there is none."""
    # the period is the same under any recolouring that keeps the holes: colours numbered by
    # first appearance, the holes first, give recoloured grids one cache entry
    flat = np.concatenate([[hole], grid.reshape(-1)])
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int8)
    rank[np.argsort(first)] = np.arange(len(first))
    canonical = rank[inverse.reshape(-1)][1:].reshape(grid.shape)
    return _grid_period(canonical.tobytes(), tuple(grid.shape))


@lru_cache(maxsize=4096)
def _grid_period(raw: bytes, shape: tuple[int, int]) -> tuple[int, int]:
    """`grid_period` of a grid with colours numbered by first appearance, the holes 0."""
    grid = np.frombuffer(raw, dtype=np.int8).reshape(shape).astype(np.int64)
    for period in _periods(shape):
        counts = (period_counts(grid, period, ignore=0) > 0).sum(-1)
        if (counts == 1).all():
            return period
    return (1, 1)


@lru_cache(maxsize=1024)
def _periods(shape: tuple[int, int]) -> list[tuple[int, int]]:
    """The periods `grid_period` tries on a lattice of `shape`, fewest classes first."""
    h, w = shape
    options = []
    for p, q in itertools.product(range(1, MAX_PERIOD + 1), repeat=2):
        if (p, q) == (1, 1) or p >= h or q >= w:
            continue
        if (p == 1 and 2 * q > w) or (q == 1 and 2 * p > h):
            continue
        options.append((p, q))
    return sorted(options, key=lambda pq: (np.prod(period_classes(pq, shape)), pq))
