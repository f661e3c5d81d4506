"""Reading a grid's layout: cells between separator lines (and the one cell moved to the
place its marker names), the largest empty rectangle, the role of each cell in its shape,
objects gathered on their anchor cells, a frame that another part is centred in, scaled
into or fitted into (flipped to meet the frame's colours), or that is drawn again around the
other empty box of its inside's size, the centre line.

Each primitive asks the train pairs for the evidence of its layout before it is tried: a
grid cut into cells by full lines, a colour that stays in place, targets smaller than
their grids, so that on tasks it cannot serve it costs one cheap test per state.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from arcsolve.dsl.families.assembling import DIHEDRAL
from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.pairs import same_shapes
from arcsolve.dsl.primitives.drawing import NEIGHBOURS
from arcsolve.dsl.primitives.objects import cuts, objects

Array = np.ndarray
Layout = tuple[int, tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]



# --- cells between separator lines ----------------------------------------------------


@grid_memo()
def cell_layout(g: Array) -> Layout | None:
    """The separator colour and the row and column ranges of the cells between full lines of
    it, if the grid is cut into two or more cells of one size that lack that colour."""
    h, w = g.shape
    if h < 3 and w < 3:
        return None
    full_rows = g[(g == g[:, :1]).all(1), 0]  # the colours of the rows and columns of one colour
    full_cols = g[0, (g == g[:1]).all(0)]
    for c in sorted(set(full_rows.tolist()) | set(full_cols.tolist()) - {0}):
        rows, cols = (g == c).all(1), (g == c).all(0)
        if rows.all() or cols.all():
            continue
        ys, xs = cuts(rows), cuts(cols)
        if len(ys) * len(xs) < 2 or len({b - a for a, b in ys}) != 1 or len({b - a for a, b in xs}) != 1:
            continue
        if any((g[a:b, e:f] == c).any() for a, b in ys for e, f in xs):
            continue
        return int(c), tuple(ys), tuple(xs)
    return None


def cell_template(g: Array, paint: str) -> Array | None:
    """Copy the fullest cell between separator lines onto every cell's zero cells, in its own colours or the lines'."""
    layout = cell_layout(g)  # paint 'own' or 'line'; cells as full as the fullest must equal it
    if layout is None:
        return None
    c, ys, xs = layout
    blocks = np.stack([g[a:b, e:f] for a, b in ys for e, f in xs])  # (cells, height, width)
    filled = np.count_nonzero(blocks, axis=(1, 2))
    template = blocks[filled.argmax()]
    if any(not np.array_equal(b, template) for b in blocks[filled == filled.max()]):
        return None  # two different cells are the fullest
    ink = template if paint == "own" else np.full_like(template, c)
    new = np.where((blocks == 0) & (template != 0), ink, blocks)
    if np.array_equal(new, blocks):
        return None
    out = g.copy()
    for i, (a, b, e, f) in enumerate((a, b, e, f) for a, b in ys for e, f in xs):
        out[a:b, e:f] = new[i]
    return out


def cell_to_marker(g: Array, c: int) -> Array | None:
    """Move the one board cell holding colour c to the board cell that c's place in it names; empty the others."""
    layout = cell_layout(g)
    if layout is None:
        return None
    _, ys, xs = layout
    holding = [(a, b, e, f) for a, b in ys for e, f in xs if (g[a:b, e:f] == c).any()]
    if len(holding) != 1:
        return None
    a, b, e, f = holding[0]
    marks = np.argwhere(g[a:b, e:f] == c)
    if len(marks) != 1 or marks[0][0] >= len(ys) or marks[0][1] >= len(xs):
        return None
    (ta, tb), (te, tf) = ys[marks[0][0]], xs[marks[0][1]]
    out = g.copy()
    for y0, y1 in ys:
        for x0, x1 in xs:
            out[y0:y1, x0:x1] = 0
    out[ta:tb, te:tf] = g[a:b, e:f]
    return out


def _marker_colours(grids, targets, facts) -> list[tuple]:
    """Each colour every grid holds in one cell, where every grid is cut into cells and keeps its size."""
    if not same_shapes(grids, targets) or any(cell_layout(g) is None for g in grids):
        return []
    counts = np.array([np.bincount(g.ravel(), minlength=10) for g in grids])
    return [(c,) for c in range(1, 10) if (counts[:, c] == 1).all()]


def _between(small: Array) -> Array:
    """For each zero cell of a small grid, the colour of the non-zero cells on both sides of it
    in its row when the two are equal, else 0."""
    n, m = small.shape
    at = np.where(small != 0, np.arange(m), -1)
    left = np.maximum.accumulate(at, axis=1)  # the last non-zero column at or before each cell
    right = np.flip(np.minimum.accumulate(np.flip(np.where(small != 0, np.arange(m), m), 1), axis=1), 1)
    rows = np.arange(n)[:, None]
    before = np.where(left >= 0, small[rows, left.clip(0)], 0)
    after = np.where(right < m, small[rows, right.clip(max=m - 1)], 0)
    return np.where((small == 0) & (before == after), before, 0)


def connect_cells(g: Array) -> Array | None:
    """Fill the empty cells between two cells of one colour along a row or column of cells between separator lines."""
    layout = cell_layout(g)
    if layout is None:
        return None
    _, ys, xs = layout
    blocks = np.stack([g[a:b, e:f] for a, b in ys for e, f in xs]).reshape(len(ys) * len(xs), -1)
    small = blocks[:, 0].reshape(len(ys), len(xs))
    if (blocks != blocks[:, :1]).any() or np.count_nonzero(small) < 2:
        return None  # a cell of several colours
    across, down = _between(small), _between(small.T).T
    if ((across != 0) & (down != 0) & (across != down)).any():
        return None  # two lines of different colours cross
    joined = np.maximum(across, down)
    if not joined.any():
        return None
    out = g.copy()
    for (i, j) in zip(*np.nonzero(joined), strict=True):
        (a, b), (e, f) = ys[i], xs[j]
        out[a:b, e:f] = joined[i, j]
    return out


def _cell_paints(grids, targets, facts) -> list[tuple]:
    """Both paints, where every grid is cut into cells and keeps its size."""
    if not same_shapes(grids, targets) or any(cell_layout(g) is None for g in grids):
        return []
    return [("own",), ("line",)]


# --- rectangles and roles -------------------------------------------------------------


@grid_memo()
def _largest_empty(g: Array) -> tuple[int, int, int, int] | None:
    """The one all-zero rectangle of the largest area with both sides at least 2 (top, bottom,
    left, right; the last two exclusive), or None if there is none or two tie."""
    h, w = g.shape
    rows = np.arange(1, h + 1)[:, None]
    heights = rows - np.maximum.accumulate(np.where(g != 0, rows, 0), axis=0)  # zero cells up to each cell
    best, where, ties = 0, None, 0
    low = heights  # low[y, x]: the least height over columns x .. x + k - 1
    for k in range(2, w + 1):
        low = np.minimum(low[:, :-1], heights[:, k - 1 :])
        if low.max() < 2:
            break  # no rectangle this wide
        area = np.where(low >= 2, low * k, 0)
        top = int(area.max())
        if top > best:
            best, ties = top, np.count_nonzero(area == top)
            y, x = np.unravel_index(area.argmax(), area.shape)
            where = (int(y - low[y, x] + 1), int(y + 1), int(x), int(x + k))
        elif top == best and top:
            ties += np.count_nonzero(area == top)
    return where if best and ties == 1 else None


def fill_largest_empty(g: Array, c: int) -> Array | None:
    """Colour c into the largest rectangle of zero cells at least 2 x 2 (None if two tie)."""
    box = _largest_empty(g)
    if box is None:
        return None
    top, bottom, left, right = box
    out = g.copy()
    out[top:bottom, left:right] = c
    return out


def _rectangle_colours(grids, targets, facts) -> list[tuple]:
    """Colours that every target draws on zero cells of its grid as one filled rectangle."""
    if not same_shapes(grids, targets):
        return []
    found = []
    for c in facts.drawn:
        for g, t in zip(grids, targets, strict=True):
            ys, xs = np.nonzero((g == 0) & (t == c))
            if ys.size == 0 or ys.size != (ys.max() - ys.min() + 1) * (xs.max() - xs.min() + 1):
                break
        else:
            found.append((c,))
    return found


def neighbour_count(g: Array, around: str) -> Array:
    """Recolour each non-zero cell to 1 + its count of non-zero 'plus' or 'box' neighbours (codes for a colour map)."""
    h, w = g.shape
    solid = np.zeros((h + 2, w + 2), dtype=np.int8)
    solid[1:-1, 1:-1] = g != 0
    count = sum(solid[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w] for dy, dx in NEIGHBOURS[around])
    return np.where(g != 0, count + 1, 0).astype(g.dtype)


def _recolourings(grids, targets, facts) -> list[tuple]:
    """Both neighbourhoods, where every target recolours its grid's non-zero cells and no other."""
    if not same_shapes(grids, targets) or all(np.array_equal(g, t) for g, t in zip(grids, targets, strict=True)):
        return []
    if any(not np.array_equal(g != 0, t != 0) for g, t in zip(grids, targets, strict=True)):
        return []
    return [("plus",), ("box",)]


# --- anchors, frames and centres ------------------------------------------------------


def stack_on_anchor(g: Array, c: int) -> Array | None:
    """Lay every object on top of the others aligned on its one cell of colour c, cropped to their union."""
    objs = objects(g, "multi8")
    if len(objs) < 2:
        return None
    ys, xs, colours = [], [], []
    for o in objs:
        anchor = np.argwhere(o.mask & (g == c))
        if len(anchor) != 1:
            return None
        y, x = np.nonzero(o.mask)
        ys.append(y - anchor[0, 0])
        xs.append(x - anchor[0, 1])
        colours.append(g[y, x])
    y, x, colour = np.concatenate(ys), np.concatenate(xs), np.concatenate(colours)
    y, x = y - y.min(), x - x.min()
    out = np.zeros((y.max() + 1, x.max() + 1), dtype=g.dtype)
    out[y, x] = colour
    return out if (out[y, x] == colour).all() else None  # two objects disagree on a cell


def _anchor_colours(grids, targets, facts) -> list[tuple]:
    """Colours in every grid and every target, where every target is smaller than its grid."""
    if any(t.shape[0] > g.shape[0] or t.shape[1] > g.shape[1] or t.shape == g.shape
           for g, t in zip(grids, targets, strict=True)):
        return []
    common = set(range(1, 10))
    for a in (*grids, *targets):
        common &= set(np.flatnonzero(np.bincount(a.ravel(), minlength=10)).tolist())
    return [(c,) for c in sorted(common)]


def centre_in_frame(g: Array, c: int) -> Array | None:
    """Move everything but colour c so that its bounding box is centred inside the bounding box of the c cells."""
    frame = g == c
    rest = (g != 0) & ~frame
    if not frame.any() or not rest.any():
        return None
    (fy, fx), (ry, rx) = np.nonzero(frame), np.nonzero(rest)
    dy2 = fy.min() + fy.max() - ry.min() - ry.max()  # twice the move that centres the rest
    dx2 = fx.min() + fx.max() - rx.min() - rx.max()
    if dy2 % 2 or dx2 % 2 or (dy2 == 0 and dx2 == 0):
        return None
    y, x = ry + dy2 // 2, rx + dx2 // 2
    if y.min() < 0 or x.min() < 0 or y.max() >= g.shape[0] or x.max() >= g.shape[1]:
        return None  # the rest is larger than the frame
    out = np.where(rest, 0, g).astype(g.dtype)
    if (out[y, x] != 0).any():
        return None  # the rest would land on the frame
    out[y, x] = g[ry, rx]
    return out


def _frame_colours(grids, targets, facts) -> list[tuple]:
    """Colours whose cells stay in place from every grid to its target, where something else moves."""
    if not same_shapes(grids, targets) or all(np.array_equal(g, t) for g, t in zip(grids, targets, strict=True)):
        return []
    common = set(range(1, 10))
    for g, t in zip(grids, targets, strict=True):
        common &= {c for c in np.unique(g).tolist() if np.array_equal(g == c, t == c)}
        if not common:
            return []
    return [(c,) for c in sorted(common)]


# The flips `fit_into_frame` tries, the least change first.
_FITS = {name: DIHEDRAL[name] for name in ("id", "flip_h", "flip_v", "rot180")}


def fit_into_frame(g: Array, c: int) -> Array | None:
    """Crop to the box of colour c and fill its inside with all else, flipped so that most colours meet their like."""
    # the part outside the box, cropped, must have the inside's size; of its four flips, the one
    # with the most edge cells beside a frame cell of their colour goes in
    ys, xs = np.nonzero(g == c)
    if not len(ys):
        return None
    top, bottom, left, right = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    if bottom - top < 3 or right - left < 3:
        return None
    outside = g != 0
    outside[top:bottom, left:right] = False
    if not outside.any():
        return None
    oy, ox = np.nonzero(outside)
    part = np.where(outside, g, 0)[oy.min() : oy.max() + 1, ox.min() : ox.max() + 1]
    frame = g[top:bottom, left:right]
    if part.shape != (frame.shape[0] - 2, frame.shape[1] - 2):
        return None
    edges = ((np.s_[:, 0], frame[1:-1, 0]), (np.s_[:, -1], frame[1:-1, -1]),
             (np.s_[0, :], frame[0, 1:-1]), (np.s_[-1, :], frame[-1, 1:-1]))
    scores = {name: sum(int(((flip(part)[at] == wall) & (wall != 0)).sum()) for at, wall in edges)
              for name, flip in _FITS.items()}
    best = max(scores, key=scores.get)  # of flips that score alike, the first: the least change
    if scores[best] == 0:
        return None
    out = frame.copy()
    out[1:-1, 1:-1] = _FITS[best](part)
    return out


def _is_outline(mask: Array) -> bool:
    """Whether a mask cropped to its box is the box's border, with an empty inside."""
    h, w = mask.shape
    return h >= 3 and w >= 3 and bool(mask[[0, -1]].all() and mask[:, [0, -1]].all() and not mask[1:-1, 1:-1].any())


def scale_into_frame(g: Array) -> Array | None:
    """Crop to the one largest rectangular outline and scale everything else up to fill its inside."""
    frames = [o for o in objects(g, "colour4") if _is_outline(o.mask[o.box])]
    if not frames:
        return None
    sizes = [o.size for o in frames]
    if sizes.count(max(sizes)) != 1:
        return None
    frame = frames[sizes.index(max(sizes))]
    rest = (g != 0) & ~frame.mask
    if not rest.any():
        return None
    ys, xs = np.nonzero(rest)
    part = np.where(rest, g, 0)[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    out = g[frame.box].copy()
    (ih, iw), (ph, pw) = (out.shape[0] - 2, out.shape[1] - 2), part.shape
    if ih % ph or iw % pw or ih // ph != iw // pw:
        return None
    k = ih // ph
    out[1:-1, 1:-1] = np.repeat(np.repeat(part, k, 0), k, 1)
    return out


def frame_twin_hole(g: Array) -> Array | None:
    """Draw the one empty rectangular outline again around the one other all-zero box of its inside's size."""
    frames = [o for o in objects(g, "colour4") if _is_outline(o.mask[o.box]) and not g[o.box][1:-1, 1:-1].any()]
    if len(frames) != 1:
        return None
    frame = frames[0]
    h, w = frame.box[0].stop - frame.box[0].start, frame.box[1].stop - frame.box[1].start
    if h > g.shape[0] or w > g.shape[1]:
        return None
    # inside[y, x]: the inside of a frame with its corner at (y - 1, x - 1) would be all zeros
    inside = ~sliding_window_view(g != 0, (h - 2, w - 2)).any((2, 3))
    inside[frame.box[0].start + 1, frame.box[1].start + 1] = False  # the frame's own
    ys, xs = np.nonzero(inside[1 : g.shape[0] - h + 2, 1 : g.shape[1] - w + 2])
    if len(ys) != 1:
        return None
    out = g.copy()
    out[ys[0] : ys[0] + h, xs[0] : xs[0] + w][frame.mask[frame.box]] = g[frame.box][frame.mask[frame.box]]
    return out


def _smaller_targets(grids, targets, facts) -> list[tuple]:
    """No parameters, where every target is smaller than its grid."""
    if any(t.shape[0] > g.shape[0] or t.shape[1] > g.shape[1] or t.shape == g.shape
           for g, t in zip(grids, targets, strict=True)):
        return []
    return [()]


def keep_centre_line(g: Array, axis: str) -> Array | None:
    """Erase everything but the middle row (axis h) or column (v) of a grid of odd height or width."""
    h, w = g.shape
    out = np.zeros_like(g)
    if axis == "h" and h % 2:
        out[h // 2] = g[h // 2]
    elif axis == "v" and w % 2:
        out[:, w // 2] = g[:, w // 2]
    else:
        return None
    return out


def _centre_axes(grids, targets, facts) -> list[tuple]:
    """The axes along whose middle line alone every target has its non-zero cells."""
    if not same_shapes(grids, targets):
        return []
    found = []
    for axis in ("h", "v"):
        lines = [t if axis == "h" else t.T for t in targets]
        if all(len(t) % 2 and not t[: len(t) // 2].any() and not t[len(t) // 2 + 1 :].any() for t in lines):
            found.append((axis,))
    return found


REGISTRY: tuple = (
    (cell_template, "cell_paint", "same"),
    (cell_to_marker, "cell_marker", "same"),
    (connect_cells, "cells", "same"),
    (fill_largest_empty, "rectangle_colour", "same"),
    (neighbour_count, "recolouring", "same"),
    (stack_on_anchor, "anchor_colour", "any"),
    (centre_in_frame, "frame_colour", "same"),
    (scale_into_frame, "smaller_target", "any"),
    (frame_twin_hole, "none", "same"),
    (fit_into_frame, "anchor_colour", "any"),
    (keep_centre_line, "centre_axis", "same"),
)

PARAM_KINDS: dict = {
    "cells": lambda grids, targets, facts: [()] if _cell_paints(grids, targets, facts) else [],
    "cell_paint": _cell_paints,
    "cell_marker": _marker_colours,
    "rectangle_colour": _rectangle_colours,
    "recolouring": _recolourings,
    "anchor_colour": _anchor_colours,
    "frame_colour": _frame_colours,
    "smaller_target": _smaller_targets,
    "centre_axis": _centre_axes,
}
