"""Connected components, object selection by a property, and splitting a grid into parts.

Everything here is a pure function of numpy grids (2-D integer arrays, background 0).
Selections return None when the property picks no object or ties, so a program that
relies on an ambiguous choice fails instead of guessing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

import numpy as np

Array = np.ndarray

# (dy, dx) neighbour offsets; the first four are the 4-neighbourhood.
OFFSETS = ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))


def label(g: Array, foreground: Array, diagonal: bool, by_colour: bool) -> tuple[Array, int]:
    """Component labels 1..n of the `foreground` cells (0 elsewhere) and n."""
    h, w = g.shape
    big = h * w
    lab = np.where(foreground, np.arange(big).reshape(h, w), big)
    fg_pad, g_pad = np.pad(foreground, 1), np.pad(g, 1, constant_values=-1)
    links = []  # (dy, dx, cells linked to their (dy, dx) neighbour)
    for dy, dx in OFFSETS[: 8 if diagonal else 4]:
        same = foreground & fg_pad[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
        if by_colour:
            same &= g == g_pad[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
        links.append((dy, dx, same))
    padded = np.full((h + 2, w + 2), big)
    while True:
        padded[1:-1, 1:-1] = lab
        new = lab.copy()
        for dy, dx, same in links:
            neighbour = padded[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
            np.minimum(new, np.where(same, neighbour, big), out=new)
        flat = np.append(new.ravel(), big)
        new = flat[flat[new]]  # pointer jumping: follow the label's own label twice
        if np.array_equal(new, lab):
            break
        lab = new
    roots, inverse = np.unique(lab.ravel(), return_inverse=True)
    out = inverse.reshape(h, w) + 1
    out[~foreground] = 0
    return out, int((roots < big).sum())


@dataclass(frozen=True)
class Obj:
    """One connected component: its mask over the whole grid and its bounding box."""

    mask: Array
    box: tuple[slice, slice]  # rows, columns
    colours: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(self.mask.sum())

    def crop(self, g: Array) -> Array:
        """The grid inside the object's bounding box."""
        return g[self.box]

    def shape_key(self) -> bytes:
        """The object's own cells, cropped: equal for objects of the same shape."""
        m = self.mask[self.box]
        return bytes(m.shape) + m.tobytes()


def objects(g: Array, conn: str) -> list[Obj]:
    """Components of non-zero cells: 'multi8' (any colour, 8-conn) or 'colour4' (one colour)."""
    return _objects(g.tobytes(), g.shape, g.dtype.str, conn)


@lru_cache(maxsize=2048)
def _objects(data: bytes, shape: tuple[int, int], dtype: str, conn: str) -> list[Obj]:
    """`objects` memoised on the grid's bytes: the search asks for them once per selector."""
    g = np.frombuffer(data, dtype=dtype).reshape(shape)
    lab, n = label(g, g != 0, diagonal=conn == "multi8", by_colour=conn == "colour4")
    out = []
    for i in range(1, n + 1):
        mask = lab == i
        ys, xs = np.nonzero(mask)
        box = (slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1))
        out.append(Obj(mask, box, tuple(int(c) for c in np.unique(g[mask]))))
    return out


def _unique_best(values: list, best) -> int | None:
    """Index of the one value equal to best(values), or None if several tie."""
    target = best(values)
    hits = [i for i, v in enumerate(values) if v == target]
    return hits[0] if len(hits) == 1 else None


def _unique_key(keys: list) -> int | None:
    """Index of the one key that no other object shares (None unless exactly one)."""
    singles = [i for i, k in enumerate(keys) if keys.count(k) == 1]
    return singles[0] if len(singles) == 1 else None


def _most_common(keys: list) -> int | None:
    """Index of an object whose key is the single most frequent one (shared by several)."""
    counts = [keys.count(k) for k in keys]
    top = max(counts)
    if top < 2 or sum(c == top for c in counts) != top:
        return None
    return counts.index(top)


def _secondary_cells(g: Array, o: Obj) -> int:
    """How many of the object's cells are not of its most frequent colour."""
    return int(o.size - np.bincount(g[o.mask]).max())


def _has_hole(o: Obj) -> bool:
    """Whether some cell inside the object's box is cut off from the box's border by it."""
    box = o.mask[o.box]
    lab, n = label(box, ~box, diagonal=False, by_colour=False)
    border = np.unique(np.r_[lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    return bool(n > np.count_nonzero(border))


def _symmetric(g: Array, o: Obj) -> bool:
    c = o.crop(g)
    return bool(np.array_equal(c, c[:, ::-1]) or np.array_equal(c, c[::-1]))


SELECTORS: MappingProxyType[str, Callable[[Array, list[Obj]], int | None]] = MappingProxyType({
    "largest": lambda g, objs: _unique_best([o.size for o in objs], max),
    "smallest": lambda g, objs: _unique_best([o.size for o in objs], min),
    "most_colours": lambda g, objs: _unique_best([len(o.colours) for o in objs], max),
    "unique_colour": lambda g, objs: _unique_key([o.colours for o in objs]),
    "unique_shape": lambda g, objs: _unique_key([o.shape_key() for o in objs]),
    "symmetric": lambda g, objs: _unique_key([_symmetric(g, o) for o in objs]),
})

# Selectors only worth cropping to (the search tries them with crop_object alone).
CROP_SELECTORS: MappingProxyType[str, Callable[[Array, list[Obj]], int | None]] = MappingProxyType({
    "common_shape": lambda g, objs: _most_common([o.shape_key() for o in objs]),
    "most_secondary": lambda g, objs: _unique_best([_secondary_cells(g, o) for o in objs], max),
    "has_hole": lambda g, objs: _unique_key([_has_hole(o) for o in objs]),
})


def select(g: Array, how: str, conn: str) -> Obj | None:
    """The object picked by selector `how` among the `conn` components, or None."""
    objs = objects(g, conn)
    if len(objs) < 2:
        return objs[0] if objs and how in ("largest", "smallest") else None
    index = (SELECTORS[how] if how in SELECTORS else CROP_SELECTORS[how])(g, objs)
    return None if index is None else objs[index]


def _cuts(lines: Array) -> list[tuple[int, int]]:
    """Runs of False between True separator lines, as (start, stop) ranges."""
    runs, start = [], None
    for i, sep in enumerate(list(lines) + [True]):
        if not sep and start is None:
            start = i
        elif sep and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _split_by_lines(g: Array) -> list[Array] | None:
    """Equal-sized blocks between full rows/columns of a colour that is not inside them."""
    for colour in [int(c) for c in np.unique(g) if c != 0]:
        # a line of one cell is no separator: 1-row grids have no separator columns
        rows = (g == colour).all(1) & (g.shape[1] > 1)
        cols = (g == colour).all(0) & (g.shape[0] > 1)
        if not rows.any() and not cols.any():
            continue
        parts = [g[a:b, c:d] for a, b in _cuts(rows) for c, d in _cuts(cols)]
        clean = not any((p == colour).any() for p in parts)
        if clean and len(parts) >= 2 and len({p.shape for p in parts}) == 1:
            return parts
    return None


def split(g: Array, mode: str) -> list[Array] | None:
    """Equal parts of a grid: by separator lines ('lines'), or into halves ('h2', 'v2')."""
    h, w = g.shape
    if mode == "lines":
        return _split_by_lines(g)
    if mode == "h2" and w % 2 == 0:
        return [g[:, : w // 2], g[:, w // 2 :]]
    if mode == "v2" and h % 2 == 0:
        return [g[: h // 2], g[h // 2 :]]
    return None
