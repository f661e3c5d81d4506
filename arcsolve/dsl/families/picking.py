"""Picking one part of a grid: objects and colours chosen by a wider set of criteria than
`arcsolve.dsl.primitives.objects.SELECTORS`, cropped, or reported by their colour.

A grid splits into non-zero parts in one of several ways (`SPLITS`: the components that
`objects.objects` finds, or all the cells of each colour), a criterion (`CRITERIA`) picks one
part, and the result is the part's bounding box with everything in it, or a grid of the
part's colour. As with `objects.select`, a criterion that ties or finds nothing gives None.

The parameters are inferred from the targets: a pick is taken to be the last step that
changes a grid's size (later steps keep it), so only the choices that give every train
target's shape (and, for a colour, its colour) are tried.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from itertools import product
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.primitives.objects import CROP_SELECTORS, SELECTORS, label_boxes, labels, most_common_key, unique_key

Array = np.ndarray

SPLITS = ("multi8", "colour4", "colours")


@dataclass(frozen=True)
class Parts:
    """A grid's parts as labels 1..n (0: in no part) and per-part measures, index i for label i+1."""

    labels: Array
    top: Array
    left: Array
    height: Array
    width: Array
    counts: Array  # (n, 10): the part's cells of each colour

    @property
    def size(self) -> Array:
        return self.counts.sum(1)

    def box(self, i: int) -> tuple[slice, slice]:
        return (slice(int(self.top[i]), int(self.top[i] + self.height[i])),
                slice(int(self.left[i]), int(self.left[i] + self.width[i])))

    @cached_property
    def shape_keys(self) -> list[bytes]:
        """Each part's own cells in its box: equal for parts of the same shape."""
        masks = (self.labels[self.box(i)] == i + 1 for i in range(len(self.top)))
        return [bytes(m.shape) + m.tobytes() for m in masks]


@grid_memo(2048)
def parts(g: Array, split: str) -> Parts:
    """The grid's parts: 'multi8' or 'colour4' components (as `objects.objects`), or 'colours'
    (all the cells of each non-zero colour, in colour order)."""
    if split == "colours":
        present = np.flatnonzero(np.bincount(g.ravel(), minlength=10)[1:]) + 1
        index = np.zeros(10, dtype=np.int64)
        index[present] = np.arange(1, present.size + 1)
        lab, n = index[g], present.size
    else:
        lab, n = labels(g, split)
    top, left, bottom, right = label_boxes(lab, n)
    counts = np.bincount((lab * 10 + g).ravel(), minlength=(n + 1) * 10).reshape(n + 1, 10)[1:]
    return Parts(lab, top, left, bottom - top, right - left, counts)


def _measures(g: Array, p: Parts) -> dict[str, Array]:
    """Per-part numbers that criteria rank by; 'minority' (the part's cells of the grid's least
    frequent non-zero colour) only when one colour is the least frequent."""
    out = {"cells": p.size, "area": p.height * p.width, "density": p.size / (p.height * p.width)}
    totals = np.bincount(g.ravel(), minlength=10)[1:]
    present = totals[totals > 0]
    rarest = np.flatnonzero(totals == present.min()) if present.size >= 2 else ()
    if len(rarest) == 1:
        out["minority"] = p.counts[:, rarest[0] + 1]
    return out


# The one part that differs from all others, or one of the most common kind; tried first.
ODD: MappingProxyType[str, Callable[[Parts], int | None]] = MappingProxyType({
    "unique_size": lambda p: unique_key(p.size.tolist()),
    "rectangle": lambda p: unique_key((p.size == p.height * p.width).tolist()),  # the one (non-)rectangle
    "common_shape": lambda p: most_common_key(p.shape_keys),
})

# The part with the most (1) or the least (-1) of a measure.
RANKED: MappingProxyType[str, tuple[str, int]] = MappingProxyType({
    "largest": ("cells", 1),
    "smallest": ("cells", -1),
    "biggest_box": ("area", 1),
    "smallest_box": ("area", -1),
    "densest": ("density", 1),
    "sparsest": ("density", -1),
    "most_minority": ("minority", 1),
    "least_minority": ("minority", -1),
})

CRITERIA = (*ODD, *RANKED)


@grid_memo(4096)
def choices(g: Array, split: str) -> MappingProxyType[str, int]:
    """The index of the part that each criterion picks among the grid's `split` parts; criteria
    that tie or pick nothing are left out, and all of them with fewer than two parts."""
    p = parts(g, split)
    if len(p.top) < 2:
        return MappingProxyType({})
    out = {how: i for how, odd in ODD.items() if (i := odd(p)) is not None}
    measures = _measures(g, p)
    ranked = [how for how, (measure, _) in RANKED.items() if measure in measures]
    scores = np.stack([measures[RANKED[how][0]] * RANKED[how][1] for how in ranked], axis=1)  # (parts, criteria)
    unique = (scores == scores.max(0)).sum(0) == 1
    out.update((how, int(i)) for how, i, ok in zip(ranked, scores.argmax(0), unique, strict=True) if ok)
    return MappingProxyType(out)


def _main_colour(p: Parts, i: int) -> int | None:
    """The part's most frequent colour (None on a tie)."""
    counts = p.counts[i]
    return int(counts.argmax()) if np.count_nonzero(counts == counts.max()) == 1 else None


def pick_crop(g: Array, split: str, how: str) -> Array | None:
    """Crop to the bounding box of the part (component or colour) picked by a criterion."""
    i = choices(g, split).get(how)
    return None if i is None else g[parts(g, split).box(i)]


def pick_colour(g: Array, split: str, how: str, h: int, w: int) -> Array | None:
    """An h x w grid of the main colour of the part picked by a criterion."""
    i = choices(g, split).get(how)
    c = None if i is None else _main_colour(parts(g, split), i)
    return None if c is None else np.full((h, w), c, dtype=g.dtype)


# --- parameter inference --------------------------------------------------------------

# The order choices are offered in, which ranks programs of equal cost: by criterion (the odd
# ones out first), then by split.
_ORDER = list(product(CRITERIA, SPLITS))


@grid_memo(4096)
def _fitting(g: Array, shape: tuple[int, int]) -> frozenset[tuple[str, str]]:
    """The (split, criterion) choices that pick a part whose box has this shape; a split with no
    such part is skipped, which rules most grids out cheaply."""
    out = set()
    for split in SPLITS:
        p = parts(g, split)
        if ((p.height == shape[0]) & (p.width == shape[1])).any():
            out.update((split, how) for how, i in choices(g, split).items()
                       if (p.height[i], p.width[i]) == shape)
    return frozenset(out)


def _crop_choices(grids, targets, facts) -> list[tuple[str, str]]:
    """Where the targets differ in size from the grids: the choices whose box has every train
    target's shape, less those that `crop_object` already offers."""
    if all(g.shape == t.shape for g, t in zip(grids, targets, strict=True)):
        return []
    common = set(product(SPLITS, CRITERIA))
    for g, t in sorted(zip(grids, targets, strict=True), key=lambda gt: gt[0].size):
        common &= _fitting(g, t.shape)
        if not common:
            return []
    covered = {*SELECTORS, *CROP_SELECTORS}
    return [(split, how) for how, split in _ORDER
            if (split, how) in common and not (split != "colours" and how in covered)]


def _colour_choices(grids, targets, facts) -> list[tuple[str, str, int, int]]:
    """Where every target is one h x w block of one colour: the choices of a component whose
    colour is the target's on every train pair (of a colour by its cells, `colour_cell` does)."""
    shapes = {t.shape for t in targets}
    if len(shapes) != 1 or any((t != t.flat[0]).any() for t in targets):
        return []
    h, w = shapes.pop()
    found = []
    for how, split in _ORDER:
        if split == "colours":
            continue
        for g, t in zip(grids, targets, strict=True):
            i = choices(g, split).get(how)
            if i is None or _main_colour(parts(g, split), i) != t.flat[0]:
                break
        else:
            found.append((split, how, h, w))
    return found


REGISTRY: tuple = (
    (pick_crop, "pick_crop", "any"),
    (pick_colour, "pick_colour", "any"),
)
PARAM_KINDS: dict = {
    "pick_crop": _crop_choices,
    "pick_colour": _colour_choices,
}
