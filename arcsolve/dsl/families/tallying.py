"""Outputs chosen by a count or a class of the whole input: a fixed-size grid filled with
as many cells as the input has of something, one of the train outputs picked by a feature
of the input, or a grid of one colour sized by counts.

`tally_fill` paints the first n cells of a learned order, n being a count of the input (its
cells of a colour, its objects, its colours, ...). The order comes from the train outputs:
their painted cells must grow by inclusion with the count, and a cell ranks by the smallest
output that paints it (ties in reading order). `pick_output` returns the train output of the
input's class: the inputs that share a feature value (how many colours, the main colour,
which mirror symmetries, a count) must share their output, and the feature must split the
inputs exactly as the outputs differ, so that it names the class rather than the pair.
`count_block` is a grid of one colour whose sides are counts of the input (its colours, its
objects, ... plus or minus one) or fixed. All three are offered only on the raw train inputs,
where the train outputs show the pattern.

A family module registers its own primitives: `REGISTRY` lists (function, parameter kind,
shape effect, cost) rows, and `PARAM_KINDS` the parameter inference for kinds of its own (see
`arcsolve.dsl.families`). It imports neither `params` nor `primitives`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.pairs import raw_inputs
from arcsolve.dsl.primitives.counting import FEATURES, colour_cell
from arcsolve.dsl.primitives.objects import objects

Array = np.ndarray
Cell = tuple[int, int]

MIN_PAIRS = 3  # train pairs a fill order is learned from: two outputs nest too easily


@grid_memo()
def features(g: Array) -> MappingProxyType:
    """Whole-grid features by name, each an int: counts of cells, of one-colour objects
    (4-connected) and of those larger than a cell, per colour ("cells 3") or over all
    non-zero colours ("cells"); objects of any colours (8-connected); colours; distinct
    object shapes; the most and the least frequent non-zero colours (-1 on a tie) and which
    mirror symmetries the grid has (a code 0..3)."""
    counts = np.bincount(g.ravel(), minlength=10)
    out: dict[str, int] = {"cells": int(counts[1:].sum())}
    pieces = objects(g, "colour4")
    for c in range(1, 10):
        out[f"cells {c}"] = int(counts[c])
        out[f"objects {c}"] = sum(o.colours == (c,) for o in pieces)
        out[f"blocks {c}"] = sum(o.colours == (c,) and o.size > 1 for o in pieces)
    out["objects"] = FEATURES["objects4"](g)
    out["blocks"] = sum(o.size > 1 for o in pieces)
    out["objects8"] = FEATURES["objects8"](g)
    out["colours"] = FEATURES["colours"](g)
    out["shapes"] = len({o.shape_key() for o in pieces})
    for name, how in (("main colour", "most"), ("least colour", "least")):
        cell = colour_cell(g, how)
        out[name] = -1 if cell is None else int(cell[0, 0])
    out["mirrors"] = int(np.array_equal(g, g[:, ::-1])) + 2 * int(np.array_equal(g, g[::-1]))
    return MappingProxyType(out)


COUNTS = tuple(name for name in features(np.zeros((1, 1), dtype=np.int8))
               if name not in ("main colour", "least colour", "mirrors"))
CLASSES = tuple(dict.fromkeys(("colours", "main colour", "least colour", "mirrors", *COUNTS)))  # simplest first


@dataclass(frozen=True)
class Tally:
    """Paint the first `feature`-many cells of `order` on an empty grid of `shape`, in
    `colour` (-1: the input's main colour)."""

    feature: str
    colour: int
    order: tuple[Cell, ...]
    shape: tuple[int, int]

    def __str__(self) -> str:
        colour = "main colour" if self.colour == -1 else f"colour {self.colour}"
        return f"{self.feature} -> {len(self.order)} cells of a {self.shape[0]}x{self.shape[1]} grid, {colour}"


@dataclass(frozen=True)
class Classes:
    """The train output of each value of `feature`, as (value, rows) pairs."""

    feature: str
    outputs: tuple[tuple[int, tuple[tuple[int, ...], ...]], ...]

    def __str__(self) -> str:
        return f"{self.feature}: {len(self.outputs)} outputs"


def tally_fill(g: Array, tally: Tally) -> Array | None:
    """Paint as many cells of a learned order as the input has of something (cells, objects, ...)."""
    n = features(g)[tally.feature]
    colour = features(g)["main colour"] if tally.colour == -1 else tally.colour
    if n > len(tally.order) or colour <= 0:
        return None
    out = np.zeros(tally.shape, dtype=g.dtype)
    if n:
        out[tuple(np.array(tally.order[:n]).T)] = colour
    return out


def pick_output(g: Array, classes: Classes) -> Array | None:
    """The train output whose inputs share this input's value of a feature (None on a new value)."""
    value = features(g)[classes.feature]
    for seen, rows in classes.outputs:
        if seen == value:
            return np.array(rows, dtype=g.dtype)
    return None


# The counts a side's length is first looked for in (the whole grid's before a colour's),
# and the offsets from them.
SIDE_COUNTS = tuple(dict.fromkeys(("colours", "objects", "objects8", "shapes", "blocks", "cells", *COUNTS)))
SIDE_OFFSETS = (0, 1, -1)
Side = tuple[str, int]  # (a count of `features`, offset) or ("", a fixed length)


def _side_length(g: Array, side: Side) -> int:
    count, offset = side
    return offset + (features(g)[count] if count else 0)


def count_block(g: Array, rows: Side, cols: Side, colour: int) -> Array | None:
    """A grid of one colour (-1: the input's main colour), its sides counts of the input plus an offset, or fixed."""
    h, w = _side_length(g, rows), _side_length(g, cols)
    colour = features(g)["main colour"] if colour == -1 else colour
    if not (0 < h <= 30 and 0 < w <= 30) or colour < 0:
        return None
    return np.full((h, w), colour, dtype=g.dtype)


def _side(grids: Sequence[Array], lengths: list[int]) -> Side | None:
    """The simplest side that gives every length: fixed, else the first count (plus the
    smallest offset) that every input has as many of."""
    if len(set(lengths)) == 1:
        return "", lengths[0]
    for offset in SIDE_OFFSETS:
        for count in SIDE_COUNTS:
            if all(features(g)[count] + offset == n for g, n in zip(grids, lengths, strict=True)):
                return count, offset
    return None


def _count_blocks(grids, targets, facts) -> list[tuple]:
    """The sides and colour of targets that are each all one colour and not all of one size."""
    if not raw_inputs(grids, facts) or len({t.shape for t in targets}) < 2:
        return []
    if any(t.min() != t.max() for t in targets):
        return []
    colours = [int(t.flat[0]) for t in targets]
    if len(set(colours)) == 1:
        colour = colours[0]
    elif colours == [features(g)["main colour"] for g in grids]:
        colour = -1
    else:
        return []
    rows = _side(grids, [t.shape[0] for t in targets])
    cols = _side(grids, [t.shape[1] for t in targets])
    return [] if rows is None or cols is None else [(rows, cols, colour)]


def _fill_order(targets: Sequence[Array]) -> tuple[tuple[Cell, ...], list[int]] | None:
    """The cells in the order the targets paint them as they grow by inclusion, and each
    target's number of painted cells; None unless they nest and at least two counts differ."""
    masks = sorted((t != 0 for t in targets), key=lambda m: int(m.sum()))
    if any((a & ~b).any() for a, b in zip(masks, masks[1:], strict=False)):
        return None
    if masks[0].sum() == masks[-1].sum():
        return None
    rank = np.full(masks[0].shape, len(masks))
    for k, m in reversed(list(enumerate(masks))):
        rank[m] = k
    painted = np.argwhere(masks[-1])
    order = sorted(map(tuple, painted.tolist()), key=lambda rc: (rank[rc], rc))
    return tuple(order), [int((t != 0).sum()) for t in targets]


def _tallies(grids, targets, facts) -> list[tuple]:
    """A fill order and the counts of the inputs that give each target's number of cells,
    if there are at least MIN_PAIRS targets, of one size and one colour each (one for all,
    or each input's main colour), and they nest."""
    if len(targets) < MIN_PAIRS or not raw_inputs(grids, facts) or len({t.shape for t in targets}) != 1:
        return []
    colours = {int(c) for t in targets for c in np.unique(t) if c}
    if any(len(set(np.unique(t).tolist()) - {0}) > 1 for t in targets):
        return []
    if len(colours) > 1:
        main = [features(g)["main colour"] for g in grids]
        if any(set(np.unique(t[t != 0]).tolist()) - {c} for t, c in zip(targets, main, strict=True)):
            return []
        colour = -1
    elif colours:
        colour = colours.pop()
    else:
        return []
    fitted = _fill_order(targets)
    if fitted is None:
        return []
    order, counts = fitted
    shape = targets[0].shape
    return [(Tally(name, colour, order, shape),) for name in COUNTS
            if all(features(g)[name] == n for g, n in zip(grids, counts, strict=True))]


def _classes(grids, targets, facts) -> list[tuple]:
    """Features that split the train inputs exactly as their outputs differ, if some outputs
    repeat (so that a class is seen more than once): each with its table of outputs."""
    if not raw_inputs(grids, facts):
        return []
    keys = [(t.shape, t.tobytes()) for t in targets]
    if len(set(keys)) == len(keys):
        return []
    found = []
    for name in CLASSES:
        values = [features(g)[name] for g in grids]
        table = dict(zip(values, keys, strict=True))
        if -1 in table or len(table) != len(set(keys)):
            continue
        if any(table[v] != k for v, k in zip(values, keys, strict=True)):
            continue
        outputs = {v: tuple(map(tuple, t.tolist())) for v, t in zip(values, targets, strict=True)}
        found.append((Classes(name, tuple(sorted(outputs.items()))),))
    return found


def refit_tally(tally: Tally, grids: Sequence[Array], targets: Sequence[Array]) -> Tally | None:
    """The tally of the same feature fitted again on the given pairs: the fill order their
    outputs teach and their colour; None if they teach none or the counts disagree."""
    if len({t.shape for t in targets}) != 1 or targets[0].shape != tally.shape:
        return None
    fitted = _fill_order(targets)
    if fitted is None or any(features(g)[tally.feature] != n for g, n in zip(grids, fitted[1], strict=True)):
        return None
    colour = tally.colour
    if colour != -1:
        colours = {int(c) for t in targets for c in np.unique(t) if c}
        if colours != {colour}:
            return None
    return Tally(tally.feature, colour, fitted[0], tally.shape)


def refit_classes(classes: Classes, grids: Sequence[Array], targets: Sequence[Array]) -> Classes | None:
    """The table of outputs by the same feature fitted again on the given pairs; None if two
    inputs of one value have different outputs."""
    outputs: dict[int, tuple] = {}
    for g, t in zip(grids, targets, strict=True):
        rows = tuple(map(tuple, t.tolist()))
        if outputs.setdefault(features(g)[classes.feature], rows) != rows:
            return None
    return Classes(classes.feature, tuple(sorted(outputs.items())))


REGISTRY: tuple = (  # their description length grows with what they learned (`arcsolve.dsl.occam`)
    (tally_fill, "tally", "any"),
    (pick_output, "classes", "any"),
    (count_block, "count_block", "any"),
)
PARAM_KINDS: dict = {
    "tally": _tallies,
    "classes": _classes,
    "count_block": _count_blocks,
}
