"""Combining partial programs: overlay the parts of several programs' outputs that are right.

When no single program reproduces the train outputs, several may each get a part right
(one draws the lines, another fills the holes). A *piece* is a program's output relative
to a base (the input, or an empty grid): its active cells are those where it differs
from the base. The base may also be a grid of one colour, the colour most train output
cells have when it is not 0, so that a task drawing on a coloured background is not made
to paint the background with a piece first. A piece is usable if it is right on every active cell of every train
pair; an overlay of usable pieces is right wherever one of them is active, so it
reproduces a train output once the pieces together cover every cell where the target
differs from the base. A piece that is wrong on some cells may still be used on the
colours it always gets right. The pieces are chosen greedily, most newly covered cells
first, as icecuber's solver does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Array = np.ndarray

BASES = ("input", "empty")
MAX_PIECES = 5


def bases(targets: Sequence[Array]) -> tuple[str, ...]:
    """The bases worth laying pieces on: the input, an empty grid, and a grid of the train
    outputs' most common colour (`colour<c>`) when that colour is not 0."""
    counts = sum(np.bincount(t.ravel(), minlength=10) for t in targets)
    common = int(np.argmax(counts))
    return BASES + ((f"colour{common}",) if common else ())


def base_grid(base: str, grid: Array, shape: tuple[int, int]) -> Array | None:
    """The grid the pieces are laid on: the input itself, or a grid of the given shape that is
    empty or all of one colour (`colour<c>`)."""
    if base == "input":
        return grid if grid.shape == shape else None
    colour = int(base.removeprefix("colour")) if base.startswith("colour") else 0
    return np.full(shape, colour, dtype=grid.dtype)


def overlay(base: Array, pieces: Sequence[Array], colours: Sequence[tuple]) -> Array | None:
    """The base with each piece's cells that differ from it written on it, in order; a piece
    with a tuple of colours only writes those colours (an empty tuple: all of them)."""
    if any(p.shape != base.shape for p in pieces):
        return None
    out = base.copy()
    for p, keep in zip(pieces, colours, strict=True):
        active = p != base
        if keep:
            active &= np.isin(p, keep)
        out[active] = p[active]
    return out


def stack(grids: Sequence[Array]) -> Array:
    """Grids of one size laid in order on an empty grid, each one's non-zero cells on top."""
    return overlay(np.zeros_like(grids[0]), grids, [()] * len(grids))


class Cover:
    """The usable pieces for one base, as bit rows over the concatenated train cells."""

    def __init__(self, base: str, inputs: Sequence[Array], targets: Sequence[Array]):
        self.base = base
        bases = [base_grid(base, i, t.shape) for i, t in zip(inputs, targets, strict=True)]
        self.ok = all(b is not None for b in bases)
        if not self.ok:
            return
        self.base_flat = np.concatenate([b.ravel() for b in bases])
        self.target_flat = np.concatenate([t.ravel() for t in targets])
        self.need = self.base_flat != self.target_flat
        self.starts = np.cumsum([0, *(t.size for t in targets)]).tolist()  # each pair's first cell
        self.rows: list[Array] = []
        self.keys: list = []
        self.seen: set[bytes] = set()

    def add(self, key, train_flat: Array) -> None:
        """Keep a piece (its train cells concatenated) on the colours it gets right, if they
        cover something new; the kept key is (key, colours), colours () meaning all."""
        active = train_flat != self.base_flat
        if not (active & self.need).any():
            return  # nothing to cover, whichever colours it keeps
        wrong = active & (train_flat != self.target_flat)
        colours: tuple = ()
        if wrong.any():
            right = (np.bincount(train_flat[active], minlength=10) > 0) & ~(
                np.bincount(train_flat[wrong], minlength=10) > 0)
            if not right.any():
                return
            colours = tuple(int(c) for c in np.flatnonzero(right))
            active &= right[train_flat]
        covered = active & self.need
        if not covered.any():
            return
        sig = np.packbits(covered).tobytes()
        if sig in self.seen:
            return
        self.seen.add(sig)
        self.rows.append(covered)
        self.keys.append((key, colours))

    def greedy(self, max_pieces: int = MAX_PIECES) -> list | None:
        """Keys of at most max_pieces pieces that together cover every needed cell, or None."""
        if not self.ok or not self.rows or not self.need.any():
            return None
        chosen = _cover(np.stack(self.rows), self.need, max_pieces)
        return None if chosen is None or len(chosen) < 2 else [self.keys[i] for i in chosen]

    def holds_out(self, max_pieces: int = MAX_PIECES) -> bool:
        """Whether, for each train pair, the pieces chosen greedily to cover the other pairs
        also cover it: an overlay that generalizes, rather than one piece per pair's quirk."""
        rows = np.stack(self.rows)
        for start, stop in zip(self.starts[:-1], self.starts[1:], strict=True):
            others = self.need.copy()
            others[start:stop] = False
            chosen = _cover(rows, others, max_pieces)
            if chosen is None or not chosen:
                return False
            covered = rows[chosen].any(0)
            if (self.need[start:stop] & ~covered[start:stop]).any():
                return False
        return True


def _cover(rows: Array, need: Array, max_pieces: int) -> list[int] | None:
    """Rows, most newly covered cells first, that together cover every needed cell (at most
    max_pieces of them), or None."""
    left = need.copy()
    chosen: list[int] = []
    while left.any():
        if len(chosen) == max_pieces:
            return None
        gains = (rows & left).sum(1)
        best = int(gains.argmax())  # ties go to the first piece found, the simplest
        if gains[best] == 0:
            return None
        chosen.append(best)
        left &= ~rows[best]
    return chosen
