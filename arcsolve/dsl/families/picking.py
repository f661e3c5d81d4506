"""Picking one part of a grid: objects and colours chosen by a wider set of criteria than
`arcsolve.dsl.primitives.objects.SELECTORS`, cropped, or reported by their colour.

A grid splits into non-zero parts in one of several ways (`SPLITS`: the components that
`objects.objects` finds, or all the cells of each colour), a criterion (`CRITERIA`) picks one
part, and the result is the part's bounding box with everything in it, or a grid of the
part's colour. As with `objects.select`, a criterion that ties or finds nothing gives None.
A framed region is cropped too: the box between the outermost full lines, the largest
rectangle that is mostly one colour amid noise, a colour's box with the frame around it, or what
the one colour that walls cells in holds.

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
from arcsolve.dsl.pairs import raw_inputs
from arcsolve.dsl.primitives.blocks import crossing_lines
from arcsolve.dsl.primitives.objects import (
    CROP_SELECTORS,
    SELECTORS,
    cut_off,
    label_boxes,
    labels,
    most_common_key,
    unique_key,
)

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


# --- framed regions -------------------------------------------------------------------

_SOLID_SHARE = 2 / 3  # of each row and each column of a solid rectangle, at least, its colour's
_GROW = MappingProxyType({"v": (1, 0), "h": (0, 1), "both": (1, 1)})  # rows, columns added at each end


def _proper(g: Array, box: tuple[slice, slice]) -> Array | None:
    """The grid cropped to a box, None if the box is the whole grid."""
    out = g[box]
    return None if out.shape == g.shape else out


def crop_between_lines(g: Array) -> Array | None:
    """Crop to the outermost full lines (crossed lines allowed), those lines included."""
    # an axis with one line or none stays whole
    row, col = crossing_lines(g)
    ys, xs = np.flatnonzero(row), np.flatnonzero(col)
    if len(ys) < 2 and len(xs) < 2:
        return None
    rows = slice(ys[0], ys[-1] + 1) if len(ys) >= 2 else slice(None)
    cols = slice(xs[0], xs[-1] + 1) if len(xs) >= 2 else slice(None)
    return _proper(g, (rows, cols))


@grid_memo()
def _solid_box(g: Array) -> tuple[slice, slice] | None:
    """The largest rectangle, 3 x 3 at least, whose every row and every column is mostly
    (`_SOLID_SHARE`) one non-zero colour: a block that stands out from noise around and in
    it. None if two rectangles share the largest area.

    Rectangles are indexed by their top row and their left and right column edges; for each
    colour the rows that fall short in each span are counted cumulatively down the grid, so
    every rectangle of one height is checked at once."""
    h, w = g.shape
    best, boxes = 0, set()
    counts = np.bincount(g.ravel(), minlength=10)
    edges = np.arange(w + 1)
    width = edges[None, :] - edges[:, None]  # [left edge, right edge]
    wide = width >= 3
    for c in sorted(np.flatnonzero(counts[1:] >= 9) + 1, key=lambda c: -counts[c]):
        if counts[c] < _SOLID_SHARE * best:  # too few cells to make a rectangle as large
            continue
        on = (g == c).astype(np.int64)
        down = np.vstack([np.zeros((1, w), np.int64), on.cumsum(0)])  # cells of c above each row, per column
        along = np.hstack([np.zeros((h, 1), np.int64), on.cumsum(1)])  # left of each column, per row
        short = (along[:, None, :] - along[:, :, None]) < _SOLID_SHARE * width  # [row, left, right]
        short_above = np.concatenate([np.zeros((1, w + 1, w + 1), np.int16), short.cumsum(0, dtype=np.int16)])
        for height in range(h, 2, -1):
            if height * w < best:
                break
            thin = (down[height:] - down[:-height]) < _SOLID_SHARE * height  # [top, column]
            thin_left = np.hstack([np.zeros((len(thin), 1), np.int16), thin.cumsum(1, dtype=np.int16)])
            fits = (wide & (short_above[height:] == short_above[:-height])  # [top, left, right]
                    & (thin_left[:, None, :] == thin_left[:, :, None]))
            if not fits.any():
                continue
            area = np.where(fits, width * height, 0)
            top_area = int(area.max())
            if top_area < best:
                continue
            if top_area > best:
                best, boxes = top_area, set()
            for top, left, right in zip(*np.nonzero(area == top_area), strict=True):
                boxes.add((int(top), int(top) + height, int(left), int(right)))
    if len(boxes) != 1:
        return None
    y0, y1, x0, x1 = boxes.pop()
    return slice(y0, y1), slice(x0, x1)


def crop_solid(g: Array) -> Array | None:
    """Crop to the largest rectangle whose every row and column is mostly one colour (a block amid noise)."""
    box = _solid_box(g)
    return None if box is None else _proper(g, box)


def crop_colour_around(g: Array, c: int, axis: str) -> Array | None:
    """Crop to the box of colour c grown by a cell at each end along 'v', 'h' or 'both' (the frame around it)."""
    ys, xs = np.nonzero(g == c)
    if ys.size == 0:
        return None
    dy, dx = _GROW[axis]
    y0, y1, x0, x1 = ys.min() - dy, ys.max() + 1 + dy, xs.min() - dx, xs.max() + 1 + dx
    if y0 < 0 or x0 < 0 or y1 > g.shape[0] or x1 > g.shape[1]:
        return None
    return _proper(g, (slice(y0, y1), slice(x0, x1)))


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


def _cropping(grids, targets) -> bool:
    """Whether every target fits in its grid and some target is smaller."""
    pairs = list(zip(grids, targets, strict=True))
    return (all(t.shape[0] <= g.shape[0] and t.shape[1] <= g.shape[1] for g, t in pairs)
            and any(t.shape != g.shape for g, t in pairs))


def crop_hole(g: Array) -> Array | None:
    """Crop to what the one colour that walls cells in holds: the box of the cells its cells cut off from the border."""
    holes = [cut_off(g, g != c) for c in np.unique(g).tolist() if c]
    holes = [h for h in holes if h.any()]
    if len(holes) != 1:
        return None
    ys, xs = np.nonzero(holes[0])
    return g[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _when_fits(crop: Callable[[Array], Array | None], first: bool = False) -> Callable:
    """Parameter inference for a crop of no parameter: tried where it gives every train
    target's shape, and if `first`, only on the train inputs themselves (a costly crop, and
    one that reads the noise of the task's own grids)."""
    def fits(grids, targets, facts) -> list[tuple]:
        if not _cropping(grids, targets) or (first and not raw_inputs(grids, facts)):
            return []
        for g, t in sorted(zip(grids, targets, strict=True), key=lambda gt: gt[0].size):
            out = crop(g)
            if out is None or out.shape != t.shape:
                return []
        return [()]
    return fits


def _around_choices(grids, targets, facts) -> list[tuple[int, str]]:
    """The colours and axes whose grown box has every train target's shape."""
    if not _cropping(grids, targets):
        return []
    found = set(product(range(1, 10), _GROW))
    for g, t in zip(grids, targets, strict=True):
        p = parts(g, "colours")  # a part per colour present, in colour order
        present = np.flatnonzero(np.bincount(g.ravel(), minlength=10)[1:]) + 1
        fits = set()
        for (i, c), (axis, (dy, dx)) in product(enumerate(present.tolist()), _GROW.items()):
            shape = (int(p.height[i]) + 2 * dy, int(p.width[i]) + 2 * dx)
            inside = (p.top[i] >= dy and p.left[i] >= dx and p.top[i] + p.height[i] + dy <= g.shape[0]
                      and p.left[i] + p.width[i] + dx <= g.shape[1])
            if shape == t.shape != g.shape and inside:
                fits.add((c, axis))
        found &= fits
        if not found:
            return []
    return [choice for choice in product(range(1, 10), _GROW) if choice in found]


REGISTRY: tuple = (
    (pick_crop, "pick_crop", "any"),
    (pick_colour, "pick_colour", "any"),
    (crop_between_lines, "lines_crop", "any"),
    (crop_solid, "solid_crop", "any"),
    (crop_colour_around, "colour_around", "any"),
    (crop_hole, "hole_crop", "any"),
)
PARAM_KINDS: dict = {
    "pick_crop": _crop_choices,
    "pick_colour": _colour_choices,
    "lines_crop": _when_fits(crop_between_lines),
    "solid_crop": _when_fits(crop_solid, first=True),
    "colour_around": _around_choices,
    "hole_crop": _when_fits(crop_hole),
}
