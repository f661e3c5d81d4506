"""Pattern completion: fill 'noise' cells from the grid's mirror or translation symmetry.

`symmetry_fill` finds its mirror axes itself, also off the grid's centre. The `*_patch`
variants return only the region that the noise covered, for tasks whose answer is the
hidden part of a symmetric or periodic picture.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from arcsolve.dsl.geometry import antitranspose, flip_h, flip_v, rot90, rot180, rot270, transpose
from arcsolve.dsl.memo import grid_memo

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


def _mirror_views(g: Array):
    """(family, A, B) for every mirror of the plane whose axis crosses the grid, B being the
    mirror image of A: left-right and top-bottom about any line, and both diagonals."""
    h, w = g.shape
    flipped, turned, anti = g[:, ::-1], g[::-1], g.T[::-1, ::-1]
    for s in range(1, 2 * w - 2):  # x <-> s - x
        yield "h", *_shifted(g, flipped, 0, w - 1 - s)
    for s in range(1, 2 * h - 2):  # y <-> s - y
        yield "v", *_shifted(g, turned, h - 1 - s, 0)
    for d in range(-(h - 2), w - 1):  # (y, x) <-> (x - d, y + d)
        yield "diag", *_shifted(g, g.T, d, -d)
    for s in range(1, h + w - 2):  # (y, x) <-> (s - x, s - y)
        yield "anti", *_shifted(g, anti, w - 1 - s, h - 1 - s)


def _mirrors(g: Array, noise: int) -> list[int]:
    """For each family, the index of the mirror with the most related pairs of known cells,
    if it relates at least half of them and they all agree."""
    half = (g != noise).sum() / 2
    best: dict[str, tuple[int, int]] = {}
    for i, (family, a, b) in enumerate(_mirror_views(g)):
        if a.size < half:
            continue
        both = (a != noise) & (b != noise)
        overlap = int(both.sum())
        if overlap >= half and overlap > best.get(family, (0, 0))[0] and (a == b)[both].all():
            best[family] = (overlap, i)
    return sorted(i for _, i in best.values())


@grid_memo()
def symmetry_fill(g: Array, noise: int) -> Array | None:
    """Replace `noise` cells from the grid's mirror symmetries, axes found anywhere (off-centre too)."""
    if not (g == noise).any():
        return None
    chosen = _mirrors(g, noise)
    if not chosen:
        return None
    out = g.copy()
    for _ in range(4):  # a cell's mirror may itself be filled by another mirror first
        before = out.copy()
        views = list(_mirror_views(out))
        for i in chosen:
            _, a, b = views[i]
            fill = (a == noise) & (b != noise)
            a[fill] = b[fill].copy()
        if np.array_equal(before, out):
            break
    return out


def symmetry_fill_patch(g: Array, noise: int) -> Array | None:
    """What an off-centre symmetry fill puts under the noise cells' bounding box."""
    return _patch(symmetry_fill(g, noise), g, noise)


def _row_periods(g: Array, known: Array) -> list[int]:
    """The shifts dy in 1..h under which the known cells agree with the known cells dy rows
    down (every shift past the last row agrees)."""
    h = g.shape[0]
    both = known[:, None] & known[None]  # (h, h, w): rows y1, y2
    clash = (both & (g[:, None] != g[None])).any(2)
    gaps = np.arange(h)[None] - np.arange(h)[:, None]  # y2 - y1
    bad = np.bincount(gaps[clash & (gaps > 0)], minlength=h + 1)
    return (np.flatnonzero(bad[1:] == 0) + 1).tolist()


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
    rows = _row_periods(g, known)
    cols = _row_periods(g.T, known.T)
    ys, xs = np.nonzero(known)
    periods = sorted(  # a motif with more cells than are known cannot be all known
        ((py, px) for py in rows for px in cols if (2 * py <= h or 2 * px <= w) and py * px <= ys.size),
        key=lambda p: (p[0] * p[1], p),
    )
    colours = g[ys, xs]
    return next((p for p in periods if _classes_agree(ys, xs, colours, *p)), None)


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
