"""Pattern completion: fill 'noise' cells from the grid's mirror or translation symmetry.

`symmetry_fill` finds its mirror axes itself, also off the grid's centre. The `*_patch`
variants return only the region that the noise covered, for tasks whose answer is the
hidden part of a symmetric or periodic picture.
"""

from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.primitives.geometry import antitranspose, flip_h, flip_v, rot90, rot180, rot270, transpose

Array = np.ndarray


_SYMMETRIES = MappingProxyType({
    "h": (flip_h,),
    "v": (flip_v,),
    "hv": (flip_h, flip_v, rot180),
    "rot": (rot90, rot180, rot270),
    "diag": (transpose,),
    "all": (flip_h, flip_v, rot180, rot90, rot270, transpose, antitranspose),
})


def symmetrize(g: Array, group: str, noise: int) -> Array | None:
    """Replace `noise` cells by the value of a transformed copy of the grid (symmetry fill)."""
    transforms = _SYMMETRIES[group]
    if g.shape[0] != g.shape[1] and group in ("rot", "diag", "all"):
        return None
    out = g.copy()
    for t in transforms:
        copy = t(g)
        fill = (out == noise) & (copy != noise)
        out[fill] = copy[fill]
    return out


def _patch(filled: Array | None, g: Array, noise: int) -> Array | None:
    """The part of `filled` under the bounding box of g's noise cells, if none is left there."""
    if filled is None:
        return None
    ys, xs = np.nonzero(g == noise)
    if ys.size == 0:
        return None
    patch = filled[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    return None if (patch == noise).any() else patch


def symmetry_patch(g: Array, group: str, noise: int) -> Array | None:
    """What a symmetry fill puts under the noise cells' bounding box."""
    return _patch(symmetrize(g, group, noise), g, noise)


def _shifted(g: Array, m: Array, dy: int, dx: int) -> tuple[Array, Array]:
    """Views (A, B) with B[i, j] = m[y + dy, x + dx] for the cell A[i, j] = g[y, x]."""
    h, w = g.shape
    y0, y1 = max(0, -dy), min(h, m.shape[0] - dy)
    x0, x1 = max(0, -dx), min(w, m.shape[1] - dx)
    if y1 <= y0 or x1 <= x0:
        return g[:0, :0], m[:0, :0]
    return g[y0:y1, x0:x1], m[y0 + dy : y1 + dy, x0 + dx : x1 + dx]


def _mirror_shifts(h: int, w: int) -> list[tuple[str, int, int]]:
    """Every mirror of the plane whose axis crosses an h x w grid, as the image of the grid
    that it pairs cells with and the shift (dy, dx) that aligns that image (see `_shifted`):
    left-right and top-bottom about any line, and both diagonals."""
    return (
        [("flip_h", 0, w - 1 - s) for s in range(1, 2 * w - 2)]  # x <-> s - x
        + [("flip_v", h - 1 - s, 0) for s in range(1, 2 * h - 2)]  # y <-> s - y
        + [("transpose", d, -d) for d in range(-(h - 2), w - 1)]  # (y, x) <-> (x - d, y + d)
        + [("anti", w - 1 - s, h - 1 - s) for s in range(1, h + w - 2)]  # (y, x) <-> (s - x, s - y)
    )


def _mirror_view(g: Array, image: str, dy: int, dx: int) -> tuple[Array, Array]:
    """Views (A, B) of g, B being the mirror image of A, for one mirror of `_mirror_shifts`."""
    images = {"flip_h": g[:, ::-1], "flip_v": g[::-1], "transpose": g.T, "anti": g.T[::-1, ::-1]}
    return _shifted(g, images[image], dy, dx)


def _pair_counts(inside: Array, g: Array, noise: int) -> tuple[Array, Array, Array]:
    """For each s, over the pairs of `inside` cells (y, x1), (y, x2) with x1 + x2 = s: how many
    there are, how many have both cells known (not noise), and how many of those agree."""
    w = g.shape[1]
    known = inside & (g != noise)
    by_colour = known.T[:, :, None] & (g.T[:, :, None] == np.unique(g[known]))  # (x, y, colour)
    columns = [m.reshape(w, -1).astype(float) for m in (inside.T, known.T, by_colour)]
    sums = np.add.outer(np.arange(w), np.arange(w)).ravel()  # x1 + x2
    return tuple(np.bincount(sums, weights=(m @ m.T).ravel(), minlength=2 * w - 1) for m in columns)


def _mirrors(g: Array, noise: int) -> list[int]:
    """For each family, the index (in `_mirror_shifts`) of the mirror with the most related
    pairs of known cells, if it relates at least half of them and they all agree."""
    h, w = g.shape
    half = (g != noise).sum() / 2
    # the diagonal mirrors pair cells along each anti-diagonal x + y (transpose) or each
    # diagonal x - y (anti): a skewed layout with those as rows makes them left-right mirrors
    ys, xs = np.indices((h, w))
    skewed = np.zeros((h + w - 1, h + w - 1), dtype=g.dtype)
    on_grid = np.zeros(skewed.shape, dtype=bool)
    skewed[ys + xs, xs - ys + h - 1], on_grid[ys + xs, xs - ys + h - 1] = g, True
    whole = np.ones(g.shape, dtype=bool)
    diagonal = slice(2, max(2, 2 * (h + w) - 5), 2)  # x - y + h - 1 summing to 2 (d + h - 1)
    families = (  # cells that exist, the layout, and the sums of paired positions of its mirrors
        (whole, g, slice(1, max(1, 2 * w - 2))),
        (whole.T, g.T, slice(1, max(1, 2 * h - 2))),
        (on_grid, skewed, diagonal),
        (on_grid.T, skewed.T, diagonal),
    )
    chosen, first = [], 0
    for inside, layout, mirrors in families:
        size, overlap, agree = (counts[mirrors] for counts in _pair_counts(inside, layout, noise))
        valid = (size >= half) & (overlap >= half) & (overlap > 0) & (agree == overlap)
        if valid.any():
            chosen.append(first + int(np.argmax(np.where(valid, overlap, -1))))
        first += size.size
    return chosen


@grid_memo()
def symmetry_fill(g: Array, noise: int) -> Array | None:
    """Replace `noise` cells from the grid's mirror symmetries, axes found anywhere (off-centre too)."""
    if not (g == noise).any():
        return None
    chosen = _mirrors(g, noise)
    if not chosen:
        return None
    mirrors = _mirror_shifts(*g.shape)
    out = g.copy()
    for _ in range(4):  # a cell's mirror may itself be filled by another mirror first
        before = out.copy()
        for i in chosen:
            a, b = _mirror_view(out, *mirrors[i])
            fill = (a == noise) & (b != noise)
            a[fill] = b[fill].copy()
        if np.array_equal(before, out):
            break
    return out


def symmetry_fill_patch(g: Array, noise: int) -> Array | None:
    """What an off-centre symmetry fill puts under the noise cells' bounding box."""
    return _patch(symmetry_fill(g, noise), g, noise)


@lru_cache(maxsize=64)
def _row_pairs(h: int) -> tuple[Array, Array, Array]:
    """Every pair of rows y1 < y2 of h rows, and their gap y2 - y1."""
    y1, y2 = np.nonzero(np.arange(h)[:, None] < np.arange(h))
    gaps = y2 - y1
    y1.flags.writeable = y2.flags.writeable = gaps.flags.writeable = False
    return y1, y2, gaps


def _row_periods(g: Array, known: Array) -> Array:
    """The shifts dy in 1..h under which the known cells agree with the known cells dy rows
    down (every shift past the last row agrees)."""
    h = g.shape[0]
    clash = (known[:, None] & known[None] & (g[:, None] != g[None])).any(2)  # (h, h): rows y1, y2
    y1, y2, gaps = _row_pairs(h)
    bad = np.bincount(gaps[clash[y1, y2]], minlength=h + 1)
    return np.flatnonzero(bad[1:] == 0) + 1


def _classes_agree(ys: Array, xs: Array, colours: Array, py: int, px: int) -> bool:
    """Are all known cells (ys, xs) in each (y mod py, x mod px) class one colour, and every class known?"""
    classes = (ys % py) * px + xs % px
    motif = np.full(py * px, -1)
    motif[classes] = colours
    return bool((motif >= 0).all() and (motif[classes] == colours).all())


def _period(g: Array, noise: int) -> tuple[int, int] | None:
    """The smallest-area (py, px) period of the non-noise cells that repeats at least once."""
    h, w = g.shape
    known = g != noise
    rows, cols = _row_periods(g, known), _row_periods(g.T, known.T)
    py, px = rows[:, None].repeat(cols.size, 1).ravel(), cols[None].repeat(rows.size, 0).ravel()  # every pair
    ys, xs = np.nonzero(known)
    # repeating at least once; a motif with more cells than are known cannot be all known
    fits = ((2 * py <= h) | (2 * px <= w)) & (py * px <= ys.size)
    py, px = py[fits], px[fits]
    colours = g[ys, xs]
    for i in np.lexsort((px, py, py * px)).tolist():  # by area, then py, then px
        if _classes_agree(ys, xs, colours, int(py[i]), int(px[i])):
            return int(py[i]), int(px[i])
    return None


@grid_memo()
def periodic_fill(g: Array, noise: int) -> Array | None:
    """Replace `noise` cells by the grid's translation-periodic pattern."""
    if not (g == noise).any():
        return None
    period = _period(g, noise)
    if period is None:
        return None
    py, px = period
    h, w = g.shape
    ys, xs = np.nonzero(g != noise)
    motif = np.zeros((py, px), dtype=g.dtype)
    motif[ys % py, xs % px] = g[ys, xs]
    return np.tile(motif, (h // py + 1, w // px + 1))[:h, :w]


def periodic_patch(g: Array, noise: int) -> Array | None:
    """What a periodic fill puts under the noise cells' bounding box."""
    return _patch(periodic_fill(g, noise), g, noise)


def periodic_extend(g: Array, ky: int, kx: int) -> Array | None:
    """Continue the grid's translation-periodic pattern over a grid ky x kx times as large."""
    period = _period(g, -1)
    if period is None:
        return None
    py, px = period
    h, w = g.shape
    return np.tile(g[:py, :px], (h * ky // py + 1, w * kx // px + 1))[: h * ky, : w * kx]
