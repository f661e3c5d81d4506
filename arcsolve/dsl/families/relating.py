"""One part of the grid acting on the others, found missing by studying the train tasks the
search did not solve: placeholders painted like a template of their shape, cells piled up
against a wall, a line drawn behind what lies on one side of a wall, lone markers projected
onto the object they face or snapped onto the nearest cell of an anchor colour, a box
outlined within markers, objects stretched until they reach the lone cell beyond them,
partial rows completed by analogy with a full one, diagonal rays bouncing between two
walls, the crossings of the rows and columns that marks on two edges point out, partial
copies of a many-coloured template completed (as it is or scaled up) or drawn wherever its
key cells match, objects recoloured like the reference shape that lines set apart, rays
drawn from cells towards the nearest full line or away from it, a shape repeated towards
the pieces of it drawn beside it, pieces moved into the holes of their shape, the gaps
between facing objects bridged, diagonal rays from the outer corners of a shape, objects
smeared towards the side their marker cells point to.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import product
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.families.assembling import DIHEDRAL
from arcsolve.dsl.families.patterns import AROUND
from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.pairs import held_colours, same_shapes, still_colours
from arcsolve.dsl.primitives.blocks import full_rows
from arcsolve.dsl.primitives.objects import cut_off, enclosed, label, label_boxes, labels, objects

Array = np.ndarray

# The diagonal headings (dy, dx) of a bouncing ray.
_HEADINGS = MappingProxyType({"ul": (-1, -1), "ur": (-1, 1), "dl": (1, -1), "dr": (1, 1)})


_MAX_LOOSE = 60  # more cells outside the templates: `complete_copies` does not apply
_MAX_TEMPLATES = 8  # more many-coloured objects: neither
_MAX_TRIES = 500  # placements tried in all: past that, too costly a grid for the search
_MAX_TEMPLATE_CELLS = 40  # a larger many-coloured object: neither (it is a picture, not a template)
_MAX_SCALE = 4  # the largest scale of a copy that `complete_scaled_copies` tries
_MAX_MARKERS = 8  # more pieces beside the shape: `repeat_toward` does not apply
_MAX_BRIDGED = 20  # more objects: `bridge_gaps` does not apply (it tries every pair), nor `outer_corner_rays` on each


def _template_looks(g: Array, templates: list, turns: str) -> list[tuple[Array, Array, Array]]:
    """Each template's cells as (rows, columns, colours) from its box's corner, in every distinct
    look that `turns` allows: as it is ('shift') or turned and mirrored ('dihedral')."""
    return _looks([np.where(o.mask[o.box], g[o.box], 0) for o in templates], turns)


def _looks(parts: Sequence[Array], turns: str) -> list[tuple[Array, Array, Array]]:
    """`_template_looks` of parts already cut out of the grid (zero off the template)."""
    looks, seen = [], set()
    for part in parts:
        for turn in DIHEDRAL.values() if turns == "dihedral" else (DIHEDRAL["id"],):
            look = turn(part)
            key = bytes(look.shape) + look.tobytes()
            if key not in seen:
                seen.add(key)
                ys, xs = np.nonzero(look)
                looks.append((ys, xs, look[ys, xs]))
    return looks


def _part_of(ys: Array, xs: Array, cs: Array, look: tuple[Array, Array, Array]) -> bool:
    """Whether the cells (rows, columns, colours) are, shifted, some of a template look's cells."""
    cells = {(int(y), int(x)): int(c) for y, x, c in zip(*look, strict=True)}
    for y, x, c in zip(*look, strict=True):
        if c == cs[0]:
            dy, dx = y - ys[0], x - xs[0]
            if all(cells.get((int(a + dy), int(b + dx))) == k for a, b, k in zip(ys, xs, cs, strict=True)):
                return True
    return False


@grid_memo()
def _templates(g: Array, turns: str) -> tuple:
    """The many-coloured objects, largest first, less those that are part of a larger one (a
    partial copy whose cells happen to touch); none if there are too many or too large ones."""
    many = [o for o in objects(g, "multi8") if len(o.colours) > 1]
    if len(many) > _MAX_TEMPLATES or any(o.size > _MAX_TEMPLATE_CELLS for o in many):
        return ()
    kept: list = []  # (template, its looks)
    for o in sorted(many, key=lambda o: -o.size):
        ys, xs = np.nonzero(o.mask)
        larger = [look for t, looks in kept if t.size > o.size for look in looks]
        if not any(_part_of(ys, xs, g[ys, xs], look) for look in larger):
            kept.append((o, _template_looks(g, [o], turns)))
    return tuple(o for o, _ in kept)


def complete_copies(g: Array, turns: str, keep: int) -> Array | None:
    """Complete each partial copy of a many-coloured template where its cells match best; keep 0 erases templates."""
    return _complete(g, turns, keep, (1,), clip=False)


def complete_scaled_copies(g: Array, turns: str, keep: int) -> Array | None:
    """`complete_copies` with copies also scaled up (s x s blocks, s up to `_MAX_SCALE`), which may run off the grid."""
    templates = _templates(g, turns)
    if not templates:
        return None
    side = min(min(o.box[0].stop - o.box[0].start, o.box[1].stop - o.box[1].start) for o in templates)
    scales = tuple(s for s in range(1, _MAX_SCALE + 1) if s * side <= min(g.shape))
    return _complete(g, turns, keep, scales, clip=True) if len(scales) > 1 else None


def _complete(g: Array, turns: str, keep: int, scales: tuple[int, ...], clip: bool) -> Array | None:
    """Complete each partial copy (of a template, in a look `turns` allows, at one of the
    scales) where its cells match best: from the first loose cell in reading order, the
    placement with the most loose cells under their own colour, lying on no other colour and
    on no template, is drawn; None if a loose cell has no placement or two equally good. With
    `clip`, a copy's cells off the grid are dropped; without, such a placement is not tried."""
    templates = _templates(g, turns)
    if not templates:
        return None
    in_template = np.logical_or.reduce([o.mask for o in templates])
    left = (g != 0) & ~in_template
    if not left.any() or left.sum() > _MAX_LOOSE:
        return None
    looks = _scaled_looks(g, turns, scales)
    out = g.copy() if keep else np.where(in_template, 0, g).astype(g.dtype)
    h, w = g.shape
    tries = 0
    while left.any():
        y0, x0 = np.unravel_index(int(np.argmax(left)), g.shape)  # the first loose cell in reading order
        best, best_score, tie = None, 0, False
        for ys, xs, cs, corners, blocks in looks:
            for cy, cx in corners[cs[corners[:, 2]] == g[y0, x0], :2]:
                tries += 1
                if tries > _MAX_TRIES * len(scales):
                    return None
                ty, tx, tc, tb = ys + (y0 - cy), xs + (x0 - cx), cs, blocks
                inside = (ty >= 0) & (tx >= 0) & (ty < h) & (tx < w)
                if not inside.all():
                    if not clip:
                        continue
                    ty, tx, tc = ty[inside], tx[inside], cs[inside]
                    tb = None if blocks is None else blocks[inside]
                under = g[ty, tx]
                if ((under != 0) & (under != tc)).any() or in_template[ty, tx].any():
                    continue  # a copy lies on no other colour and on no template
                shown = (under == tc) & left[ty, tx]
                if tb is not None and not _whole_blocks(shown, tb):
                    continue
                score = int(shown.sum())
                if score > best_score:
                    best, best_score, tie = (ty, tx, tc), score, False
                elif score == best_score and best is not None and not (
                        np.array_equal(ty, best[0]) and np.array_equal(tx, best[1])):
                    tie = True
        if best is None or tie:
            return None  # a loose cell no copy explains, or two copies explain it equally well
        ty, tx, cs = best
        out[ty, tx] = cs
        left[ty, tx] = False
    return out


def _trimmed(g: Array, mask: Array, keys: Array) -> Array:
    """A template's cells less the outer lines of its box that hold key colours alone (a loose
    key cell that touches it), unless that would leave it no key cell."""
    rows, cols = np.nonzero(mask)
    key = mask & np.isin(g, keys)
    cut = mask.copy()
    for line in (rows.min(), rows.max()):
        if not (mask[line] & ~key[line]).any():
            cut[line] = False
    for line in (cols.min(), cols.max()):
        if not (mask[:, line] & ~key[:, line]).any():
            cut[:, line] = False
    return cut if (cut & key).any() else mask


def _keyed_looks(g: Array, turns: str) -> tuple[list[tuple[Array, Array, Array]], Array, Array] | None:
    """The templates' looks (`_template_looks`, each template `_trimmed`), the key colours
    (those of the cells outside the templates) and the cells outside them."""
    templates = _templates(g, turns)
    if not templates:
        return None
    in_template = np.logical_or.reduce([o.mask for o in templates])
    keys = np.unique(g[(g != 0) & ~in_template])
    if keys.size == 0:
        return None
    parts, inside = [], np.zeros(g.shape, dtype=bool)
    for o in templates:
        mask = _trimmed(g, o.mask, keys)
        inside |= mask
        ys, xs = np.nonzero(mask)
        parts.append(np.where(mask, g, 0)[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])
    return _looks(parts, turns), keys, np.where(inside, 0, g)


def copy_onto_keys(g: Array, turns: str) -> Array | None:
    """Draw a many-coloured template wherever the cells of its key colours all match, its other cells on empty ones."""
    # Key colours are those also found outside the templates; a copy's cells off the grid are
    # dropped, its key cells never. None if no copy is drawn.
    found = _keyed_looks(g, turns)
    if found is None:
        return None
    looks, keys, loose = found
    out, h, w, drawn = g.copy(), g.shape[0], g.shape[1], False
    margin = max(h, w)  # more than a template is long
    padded = np.pad(loose, margin, constant_values=-1)  # key cells off the grid match nothing
    for ys, xs, cs in looks:
        key = np.isin(cs, keys)
        if key.all() or not key.any():
            continue
        starts = np.argwhere(loose == cs[key][0]) - (ys[key][0], xs[key][0])  # a key cell on each loose one
        ty = starts[:, :1] + ys[key] + margin
        tx = starts[:, 1:] + xs[key] + margin
        for dy, dx in starts[(padded[ty, tx] == cs[key]).all(1)]:
            py, px, pc = ys[~key] + dy, xs[~key] + dx, cs[~key]
            on = (py >= 0) & (px >= 0) & (py < h) & (px < w)
            if g[py[on], px[on]].any():
                continue
            out[py[on], px[on]] = pc[on]
            drawn |= bool(on.any())
    return out if drawn else None


@grid_memo()
def _scaled_looks(g: Array, turns: str, scales: tuple[int, ...]) -> list[tuple]:
    """`_scaled` of every look of the grid's templates, at every scale (asked again of one grid
    with the templates kept and erased)."""
    return [_scaled(look, s) for look in _template_looks(g, _templates(g, turns), turns) for s in scales]


def _scaled(look: tuple[Array, Array, Array], s: int) -> tuple:
    """A template look with each cell an s x s block: its cells (rows, columns, colours); for
    each of the template's own cells, its block's top-left corner and the index of a scaled
    cell of its colour (rows of `corners`: row, column, index); and each scaled cell's block
    (None at scale 1)."""
    ys, xs, cs = look
    if s == 1:
        return ys, xs, cs, np.stack([ys, xs, np.arange(len(ys))], 1), None
    dy, dx = np.divmod(np.arange(s * s), s)
    sy = (ys[:, None] * s + dy).ravel()
    sx = (xs[:, None] * s + dx).ravel()
    corners = np.stack([ys * s, xs * s, np.arange(len(ys)) * s * s], 1)
    return sy, sx, np.repeat(cs, s * s), corners, np.repeat(np.arange(len(ys)), s * s)


def _whole_blocks(shown: Array, blocks: Array) -> bool:
    """Whether each block of a scaled copy is shown whole (every one of its cells on the grid
    is a loose cell of its colour) or not at all."""
    counts = np.bincount(blocks, weights=shown, minlength=blocks.max() + 1)
    sizes = np.bincount(blocks, minlength=blocks.max() + 1)
    return bool(((counts == 0) | (counts == sizes)).all())


def recolour_like(g: Array, c: int, where: str, paint: str) -> Array | None:
    """Recolour objects shaped like a reference that lines of colour c set apart ('apart') or close in ('enclosed')."""
    # A reference lies in a part of the grid other than the largest ('apart'), or in one that
    # does not reach the grid's edge ('enclosed'). Objects in the largest part shaped like a
    # reference take its colour (`paint` 'own') or c ('frame'); None if none does.
    parts = _parts_apart(g, c)
    if parts is None:
        return None
    lab, main, edge = parts
    refs, rest = [], []
    for o in objects(g, "colour4"):
        if o.colours[0] == c:
            continue
        inside = np.unique(lab[o.mask])
        if inside.size == 1 and inside[0] == main:
            rest.append(o)
        elif where == "apart" or not edge[inside].any():
            refs.append(o)
    shapes = {}
    for o in refs:
        shapes.setdefault(o.shape_key(), o.colours[0] if paint == "own" else c)
    out, changed = g.copy(), False
    for o in rest:
        colour = shapes.get(o.shape_key())
        if colour is not None and colour != o.colours[0]:
            out[o.mask] = colour
            changed = True
    return out if changed else None


@grid_memo()
def _parts_apart(g: Array, c: int) -> tuple[Array, int, Array] | None:
    """The parts that colour c cuts the grid into (4-connected labels 1..n, 0 on c), the
    largest part's label, and which labels reach the grid's edge; None with fewer than two."""
    if not (g == c).any():
        return None
    lab, n = label(g, g != c, diagonal=False, by_colour=False)
    if n < 2:
        return None
    sizes = np.bincount(lab.ravel(), minlength=n + 1)
    sizes[0] = 0
    edge = np.zeros(n + 1, dtype=bool)
    edge[np.concatenate((lab[0], lab[-1], lab[:, 0], lab[:, -1]))] = True
    return lab, int(sizes.argmax()), edge


def paint_placeholders(g: Array, c: int, keep: int) -> Array | None:
    """Paint each object of colour c like the template (the other colours) of its shape; keep 0 erases the template."""
    rest = (g != 0) & (g != c)
    ys, xs = np.nonzero(rest)
    if not len(ys):
        return None
    source = slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1)
    shape = rest[source]
    lab, n = label(g, g == c, diagonal=True, by_colour=False)
    if n == 0:
        return None
    top, left, bottom, right = label_boxes(lab, n)
    if ((bottom - top) != shape.shape[0]).any() or ((right - left) != shape.shape[1]).any():
        return None
    out = g if keep else np.where(rest, np.zeros_like(g), g)
    out = out.copy()
    for i, (y, x) in enumerate(zip(top.tolist(), left.tolist(), strict=True)):
        box = slice(y, y + shape.shape[0]), slice(x, x + shape.shape[1])
        if not np.array_equal(lab[box] == i + 1, shape):
            return None
        out[box] = np.where(shape, g[source], out[box])
    return out


def _fall_right(part: Array) -> Array:
    """Each row's non-zero cells pushed to its right end, in their order."""
    return np.take_along_axis(part, np.argsort(part != 0, axis=1, kind="stable"), 1)


def _wall_columns(g: Array, c: int) -> tuple[int, int] | None:
    """The columns a..b (b exclusive) that colour c fills, if its cells are exactly one band of full columns."""
    mask = g == c
    full = mask.all(0)
    if not full.any() or not np.array_equal(mask, np.broadcast_to(full, mask.shape)):
        return None
    xs = np.flatnonzero(full)
    a, b = int(xs[0]), int(xs[-1]) + 1
    return (a, b) if b - a == len(xs) else None


def pile(g: Array, c: int, absorb: int) -> Array | None:
    """Pile every cell up against the wall of colour c (full rows or columns); absorb 1 paints the piled cells c."""
    for t in (g, g.T):
        wall = _wall_columns(t, c)
        if wall is None:
            continue
        a, b = wall
        out = t.copy()
        out[:, :a] = _fall_right(t[:, :a])
        out[:, b:] = _fall_right(t[:, b:][:, ::-1])[:, ::-1]
        if absorb:
            out = np.where((out != 0), np.asarray(c, dtype=g.dtype), out)
        out = out if t is g else out.T
        return None if np.array_equal(out, g) else out
    return None


def line_behind(g: Array, c: int) -> Array | None:
    """Draw a full line of colour c just past the far side of what lies on one side of the grid's one wall."""
    walls = [(t, band) for t in (g.T, g) for k in np.unique(g[g != 0]).tolist()
             if (band := _wall_columns(t, k)) is not None]
    if len(walls) != 1:
        return None  # no wall, or two: no one side
    (t, (a, b)), = walls
    used = np.flatnonzero(t.any(0))
    before, after = used[used < a], used[used >= b]
    if before.size and after.size or not (before.size or after.size):
        return None  # content on both sides, or none
    at = int(before.min()) - 1 if before.size else int(after.max()) + 1
    if not 0 <= at < t.shape[1]:
        return None
    out = t.copy()
    out[:, at] = c
    return out if t is g else np.ascontiguousarray(out.T)


def _next_ahead(solid: Array) -> Array:
    """For each cell, the column of the first solid cell to its right in its row (the width if none)."""
    h, w = solid.shape
    at = np.where(solid, np.arange(w), w)
    ahead = np.full((h, w), w)
    ahead[:, :-1] = np.minimum.accumulate(at[:, ::-1], axis=1)[:, ::-1][:, 1:]
    return ahead


def project_markers(g: Array) -> Array | None:
    """Each lone cell paints its colour on the first cell it faces in its row or column, one of a larger object."""
    lab, _ = labels(g, "colour4")
    size = np.bincount(lab.ravel())[lab]
    markers = (lab > 0) & (size == 1)
    targets = (lab > 0) & (size > 1)
    if not markers.any() or not targets.any():
        return None
    out = g.copy()
    landed = np.zeros(g.shape, dtype=bool)
    views = (lambda a: a, lambda a: a[:, ::-1], lambda a: a.T, lambda a: a.T[:, ::-1])
    for view in views:
        grid, hit = view(g), view(targets)
        ahead = _next_ahead(grid != 0)
        ys, xs = np.nonzero(view(markers))
        to = ahead[ys, xs]
        ok = to < grid.shape[1]
        ok[ok] = hit[ys[ok], to[ok]]
        view(out)[ys[ok], to[ok]] = grid[ys[ok], xs[ok]]
        view(landed)[ys[ok], xs[ok]] = True
    return None if (markers & ~landed).any() else out


def snap_to_anchor(g: Array, c: int) -> Array | None:
    """Move each lone cell onto the nearest cell of colour c; no ties, and no two onto one cell."""
    lab, _ = labels(g, "multi8")
    lone = (lab > 0) & (np.bincount(lab.ravel())[lab] == 1) & (g != c)
    ays, axs = np.nonzero(g == c)
    ys, xs = np.nonzero(lone)
    if not len(ays) or not len(ys) or len(ys) > len(ays):
        return None
    far = (ys[:, None] - ays[None, :]) ** 2 + (xs[:, None] - axs[None, :]) ** 2  # (lone cells, anchor cells)
    nearest = far.argmin(1)
    if ((far == far.min(1, keepdims=True)).sum(1) > 1).any() or len(set(nearest.tolist())) < len(ys):
        return None  # a tie, or two cells onto one
    out = g.copy()
    out[ys, xs] = 0
    out[ays[nearest], axs[nearest]] = g[ys, xs]
    return out


def box_within_markers(g: Array, c: int, inset: int, d: int) -> Array | None:
    """Outline the box of the c cells, inset 0 or 1, on zeros; in colour d, or -1: the grid's one other colour."""
    ys, xs = np.nonzero(g == c)
    if len(ys) < 2:
        return None
    top, bottom, left, right = ys.min() + inset, ys.max() - inset, xs.min() + inset, xs.max() - inset
    if bottom - top < 2 or right - left < 2:
        return None
    if d == -1:
        others = set(np.unique(g).tolist()) - {0, c}
        if len(others) != 1:
            return None
        d = others.pop()
    ring = np.zeros(g.shape, dtype=bool)
    ring[top : bottom + 1, [left, right]] = True
    ring[[top, bottom], left : right + 1] = True
    out = np.where(ring & (g == 0), np.asarray(d, dtype=g.dtype), g)
    return None if np.array_equal(out, g) else out


def _stretched(part: Array, extra: int) -> Array:
    """The part made `extra` rows longer downwards by repeating its last row but one (its
    only row if it has one): a frame keeps its far edge."""
    inner = part[-2:-1] if len(part) > 1 else part
    return np.concatenate([part[:-1], np.repeat(inner, extra, axis=0), part[-1:]])


def stretch_to_markers(g: Array) -> Array | None:
    """Stretch each object over the lone cell beyond a side of its box: its line before the far edge repeats."""
    objs = objects(g, "multi8")
    markers = [o for o in objs if o.size == 1]
    bodies = [o for o in objs if o.size > 1]
    if not markers or not bodies:
        return None
    out = g.copy()
    for m in markers:
        y, x = m.box[0].start, m.box[1].start
        facing = []
        for o in bodies:
            rows, cols = o.box
            if cols.start <= x < cols.stop and not rows.start <= y < rows.stop:
                facing.append((o, "v", y))
            elif rows.start <= y < rows.stop and not cols.start <= x < cols.stop:
                facing.append((o, "h", x))
        if len(facing) != 1:
            return None
        o, axis, at = facing[0]
        part = np.where(o.mask[o.box], g[o.box], 0)
        span = o.box[0] if axis == "v" else o.box[1]
        if axis == "h":
            part = part.T
        if at >= span.stop:  # ahead: grows down (or right) to the marker
            grown, reach = _stretched(part, at - span.stop + 1), slice(span.start, at + 1)
        else:
            grown, reach = _stretched(part[::-1], span.start - at)[::-1], slice(at, span.stop)
        out[m.box] = 0
        box = (reach, o.box[1]) if axis == "v" else (o.box[0], reach)
        grown = grown if axis == "v" else grown.T
        out[box] = np.where(grown != 0, grown, out[box])
    return out


def complete_rows(g: Array, axis: str) -> Array | None:
    """Complete each partly filled row ('h') or column ('v') like the first full one, its colours renamed."""
    t = g if axis == "h" else g.T
    filled = t != 0
    full = filled.all(1)
    partial = filled.any(1) & ~full
    if not full.any() or not partial.any():
        return None
    template = t[int(full.argmax())]
    out = t.copy()
    for y in np.flatnonzero(partial).tolist():
        row, known = t[y], filled[y]
        names = np.full(10, -1, dtype=np.int16)
        names[template[known]] = row[known]
        if (names[template[known]] != row[known]).any():
            return None  # one template colour would need two names
        renamed = names[template]
        if (renamed[~known] < 0).any():
            return None  # a template colour its filled cells never name
        out[y] = np.where(known, row, renamed)
    return out if axis == "h" else out.T


@lru_cache(maxsize=64)
def _bounce_paths(h: int, w: int, heading: str) -> Array:
    """For each cell (flat index), the flat indices its bouncing ray passes, step by step
    (-1 past the top or bottom edge): shape (h * w, h - 1)."""
    dy, dx = _HEADINGS[heading]
    ys, xs = np.divmod(np.arange(h * w), w)
    steps = np.arange(1, h)
    ry = ys[:, None] + dy * steps
    rx = xs[:, None] + dx * steps
    if w == 1:
        rx = np.zeros_like(rx)
    else:  # unfolded, the ray goes straight; fold it back between the side edges
        period = 2 * (w - 1)
        rx = rx % period
        rx = np.where(rx < w, rx, period - rx)
    paths = np.where((ry >= 0) & (ry < h), ry * w + rx, -1).astype(np.int16)
    paths.flags.writeable = False
    return paths


def bounce_rays(g: Array, heading: str) -> Array | None:
    """Shoot a diagonal ray (ul, ur, dl, dr) from each cell of a grid of lone cells, bouncing off the side edges."""
    h, w = g.shape
    sources = np.flatnonzero(g)
    if not len(sources) or h == 1 or labels(g, "multi8")[1] != len(sources):
        return None  # empty, or some cell has a neighbour
    paths = _bounce_paths(h, w, heading)[sources]
    colours = np.repeat(g.ravel()[sources], h - 1)
    cells = paths.ravel()
    keep = cells >= 0
    cells, colours = cells[keep], colours[keep]
    free = g.ravel()[cells] == 0
    out = g.ravel().copy()
    out[cells[free]] = colours[free]
    return None if not free.any() else out.reshape(h, w)


def _edge_marks(g: Array, corner: str) -> tuple[Array, Array]:
    """Which columns the top or bottom row marks, and which rows the left or right column
    marks (their non-zero cells), the two edges meeting at a corner ('tr': top and right)."""
    return g[0 if corner[0] == "t" else -1] != 0, g[:, 0 if corner[1] == "l" else -1] != 0


def edge_crossings(g: Array, corner: str, c: int) -> Array | None:
    """Colour c into the zero cells where a column marked on one edge crosses a row marked on the other."""
    cols, rows = _edge_marks(g, corner)
    crossings = rows[:, None] & cols[None, :] & (g == 0)
    return np.where(crossings, np.asarray(c, dtype=g.dtype), g) if crossings.any() else None


def _first_copy(shape: Array, corner: tuple[int, int], ys: Array, xs: Array, spacing: str) -> tuple[int, int] | None:
    """The nearest shift, a whole number of steps in one of the eight headings, that puts a
    copy of `shape` (its box's corner at `corner`) over every cell (ys, xs) while the copy
    stays clear of the shape: no cell in common ('disjoint') or boxes a line apart ('apart').
    None where no heading has such a shift, or two headings have one equally near."""
    (sh, sw), (top, left) = shape.shape, corner
    # the shifts whose copy's box holds every cell, on each axis
    lo_y, hi_y = int(ys.max()) - (top + sh - 1), int(ys.min()) - top
    lo_x, hi_x = int(xs.max()) - (left + sw - 1), int(xs.min()) - left
    found: list[tuple[int, int, int]] = []
    for dy, dx in AROUND:  # the eight headings
        for k in range(1, 1 + max(sh, sw) + max(abs(lo_y), abs(hi_y), abs(lo_x), abs(hi_x))):
            vy, vx = k * dy, k * dx
            if not (lo_y <= vy <= hi_y and lo_x <= vx <= hi_x):
                continue
            if not shape[ys - top - vy, xs - left - vx].all():
                continue
            if spacing == "apart":
                clear = abs(vy) > sh or abs(vx) > sw
            elif abs(vy) >= sh or abs(vx) >= sw:
                clear = True  # the boxes have no cell in common
            else:  # the shape and its copy overlap where the shifted boxes do
                a = shape[max(0, vy) : sh + min(0, vy), max(0, vx) : sw + min(0, vx)]
                b = shape[max(0, -vy) : sh + min(0, -vy), max(0, -vx) : sw + min(0, -vx)]
                clear = not (a & b).any()
            if clear:
                found.append((k, vy, vx))
                break
    found.sort()
    if not found or (len(found) > 1 and found[0][0] == found[1][0]):
        return None
    return found[0][1], found[0][2]


def repeat_toward(g: Array, spacing: str) -> Array | None:
    """Repeat the largest one-coloured object towards each smaller one, in its colour, to the edge."""
    # The first copy is the nearest along one of the eight headings that covers every cell of
    # the smaller object and stays clear of the original (`_first_copy`); each next one is as
    # far again. Copies are drawn on zero cells only.
    lab, n = label(g, g != 0, diagonal=True, by_colour=True)
    if not 2 <= n <= _MAX_MARKERS + 1:
        return None
    sizes = np.bincount(lab.ravel())[1:]
    order = np.argsort(sizes)
    if sizes[order[-1]] == sizes[order[-2]]:
        return None
    ty, tx = np.nonzero(lab == order[-1] + 1)
    top, left = int(ty.min()), int(tx.min())
    shape = np.zeros((int(ty.max()) - top + 1, int(tx.max()) - left + 1), dtype=bool)
    shape[ty - top, tx - left] = True
    h, w = g.shape
    steps = np.arange(1, max(h, w) + 1)[:, None]  # enough copies to reach any edge
    out = g.copy()
    for i in order[:-1].tolist():
        ys, xs = np.nonzero(lab == i + 1)
        shift = _first_copy(shape, (top, left), ys, xs, spacing)
        if shift is None:
            return None
        cy, cx = (ty + steps * shift[0]).ravel(), (tx + steps * shift[1]).ravel()
        inside = (cy >= 0) & (cy < h) & (cx >= 0) & (cx < w)
        cy, cx = cy[inside], cx[inside]
        free = out[cy, cx] == 0
        out[cy[free], cx[free]] = g[ys[0], xs[0]]
    return out


def _placeholders(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Each colour the task loses that every grid has along with another colour, template kept or erased."""
    if not same_shapes(grids, targets):
        return []
    lost = [c for c in facts.lost_colours
            if all((g == c).any() and ((g != 0) & (g != c)).any() for g in grids)]
    return list(product(lost, (0, 1)))


def _walls(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Each colour that makes one band of full rows or columns in every grid, cells kept or absorbed."""
    if not same_shapes(grids, targets):
        return []
    present = held_colours(grids)
    walls = [c for c in sorted(present)
             if all(_wall_columns(g, c) is not None or _wall_columns(g.T, c) is not None for g in grids)]
    return list(product(walls, (0, 1)))


def _anchor_colours(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Each colour every grid holds and some target has fewer cells of, where the sizes stay."""
    if not same_shapes(grids, targets):
        return []
    present = held_colours(grids)
    return [(c,) for c in sorted(present)
            if any(np.count_nonzero(t == c) < np.count_nonzero(g == c) for g, t in zip(grids, targets, strict=True))]


def _marker_boxes(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Each colour that stays in place, both insets, each drawn colour or the one other colour,
    where the outputs draw on grids of their sizes."""
    if not same_shapes(grids, targets) or not facts.drawn:
        return []
    kept = [c for c in still_colours(grids, targets) if all(np.count_nonzero(g == c) >= 2 for g in grids)]
    return list(product(kept, (0, 1), (-1, *facts.drawn)))


def _has_template(g: Array, along: int) -> bool:
    """Whether the grid has a full line and a partly filled one, rows (along 1) or columns (along 0)."""
    filled = g != 0
    full, some = filled.all(along), filled.any(along)
    return bool(full.any() and (some & ~full).any())


def _template_axes(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """The axes along which every grid has a full line and a partly filled one (grids of the targets' sizes)."""
    if not same_shapes(grids, targets):
        return []
    return [(axis,) for axis, along in (("h", 1), ("v", 0)) if all(_has_template(g, along) for g in grids)]


def _headings(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """The four headings, if the targets draw on zero cells and have the grids' sizes."""
    if not facts.drawn or not same_shapes(grids, targets):
        return []
    return [(heading,) for heading in _HEADINGS]


def _copy_modes(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Copies as they are and turned, keeping the templates where the targets only add to the
    grids and erasing them where they lose cells (grids of the targets' sizes)."""
    if not same_shapes(grids, targets):
        return []
    adds = _only_add(grids, targets)
    loses = any(((g != 0) & (t == 0)).any() for g, t in zip(grids, targets, strict=True))
    keeps = ([1] if adds else []) + ([0] if loses else [])
    return list(product(("shift", "dihedral"), keeps))


def _key_copies(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Copies as they are and turned, where the targets only add to grids of their sizes."""
    if not same_shapes(grids, targets):
        return []
    return [("shift",), ("dihedral",)] if _only_add(grids, targets) else []


def _only_add(grids: Sequence[Array], targets: Sequence[Array]) -> bool:
    """Whether every target differs from its grid (of its size) only on the grid's zero cells."""
    return all(((t != g) <= (g == 0)).all() for g, t in zip(grids, targets, strict=True))


def _references(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Where the targets recolour cells of the grids' sizes: each colour that cuts every grid
    into parts and that the targets keep, with the references apart or enclosed, painted their
    own colour or (if the targets recolour into it) the lines' colour."""
    if not facts.recoloured or not same_shapes(grids, targets):
        return []
    present = held_colours(grids)
    kept = [c for c in sorted(present)  # the lines stay where they are
            if all((t[g == c] == c).all() for g, t in zip(grids, targets, strict=True))]
    colours = [c for c in kept if all(_parts_apart(g, c) is not None for g in grids)]
    return [(c, where, paint) for c in colours for where in ("apart", "enclosed")
            for paint in ("own", "frame") if paint == "own" or c in facts.recoloured]


def _marked_corners(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """The corners whose two edges are marked in every grid, with each drawn colour (grids of the targets' sizes)."""
    if not facts.drawn or not same_shapes(grids, targets):
        return []
    corners = [k for k in ("tl", "tr", "bl", "br") if all(all(m.any() for m in _edge_marks(g, k)) for g in grids)]
    return list(product(corners, facts.drawn))


def wall_rays(g: Array, colour: int, toward: bool) -> Array | None:
    """From each `colour` cell, a ray to the nearest full line (toward) or away from it, up to an obstacle."""
    t, walls = g, full_rows(g)
    if walls.size == 0:
        t, walls = g.T, full_rows(g.T)
        if walls.size == 0:
            return None
    out = t.copy()
    h = t.shape[0]
    for y, x in zip(*np.nonzero(t == colour), strict=True):
        above, below = walls[walls < y], walls[walls > y]
        up = y - above[-1] if above.size else h
        down = below[0] - y if below.size else h
        if up == down:
            continue  # on a wall, or halfway between two
        step = (-1 if up < down else 1) * (1 if toward else -1)
        ray = y + step
        while 0 <= ray < h and t[ray, x] == 0:
            out[ray, x] = colour
            ray += step
    return out if t is g else np.ascontiguousarray(out.T)  # unchanged where no ray has room


def fit_pieces(g: Array, turns: str) -> Array | None:
    """Move each one-coloured object whose shape is a hole's (zeros walled in) into it: 'same' as is, 'any' turned."""
    # A hole takes the one piece of its shape (in 'any', of one of its eight turns and flips);
    # of several, a piece that is its colour's only object goes first, and a tie still left
    # fails. Holes are taken in reading order, each piece once; at least one must move.
    holes, n = label(g, enclosed(g), diagonal=False, by_colour=False)
    if not n:
        return None
    pieces = objects(g, "colour4")
    per_colour = np.bincount([o.colours[0] for o in pieces], minlength=10)
    turned = [DIHEDRAL["id"]] if turns == "same" else list(DIHEDRAL.values())
    forms = [{(m.shape, m.tobytes()) for m in (t(o.mask[o.box]) for t in turned)} for o in pieces]
    top, left, bottom, right = label_boxes(holes, n)
    out, used = g.copy(), set()
    for i in range(n):
        box = (slice(top[i], bottom[i]), slice(left[i], right[i]))
        hole = holes[box] == i + 1
        fits = [k for k, form in enumerate(forms) if k not in used and (hole.shape, hole.tobytes()) in form]
        if not fits:
            continue
        fewest = min(per_colour[pieces[k].colours[0]] for k in fits)
        fits = [k for k in fits if per_colour[pieces[k].colours[0]] == fewest]
        if len(fits) > 1:
            return None
        used.add(fits[0])
        piece = pieces[fits[0]]
        out[piece.mask] = 0
        out[box][hole] = piece.colours[0]
    return out if used else None


def bridge_gaps(g: Array, c: int, inset: int, axes: str) -> Array | None:
    """Bridge with c objects that face along rows ('h'), columns ('v') or both, over their shared span less inset."""
    out = g.copy()
    for axis, o in (("h", out), ("v", out.T)):  # o is a view of out
        if axis in axes:
            gaps = _facing_gaps(g, axis)
            if gaps is None:
                return None
            for y0, y1, x0, x1 in gaps:
                o[y0 + inset : y1 - inset, x0:x1] = c
    return None if np.array_equal(out, g) else out


@grid_memo()
def _facing_gaps(g: Array, axis: str) -> tuple[tuple[int, int, int, int], ...] | None:
    """The gaps (rows y0..y1-1, columns x0..x1-1; of g.T along 'v') between two objects that
    face each other along rows: objects of one colour (4-connected), at most _MAX_BRIDGED
    (None if more), whose row spans overlap with only zeros between their boxes over the
    rows they share. Asked once per grid and axis, whatever the colour and the inset."""
    t = g if axis == "h" else g.T
    lab, n = label(t, t != 0, diagonal=False, by_colour=True)
    if n > _MAX_BRIDGED:
        return None
    top, left, bottom, right = (a.tolist() for a in label_boxes(lab, n))
    gaps = []
    for i, j in product(range(n), repeat=2):
        y0, y1, x0, x1 = max(top[i], top[j]), min(bottom[i], bottom[j]), right[i], left[j]
        if y0 < y1 and x0 < x1 and not t[y0:y1, x0:x1].any():
            gaps.append((y0, y1, x0, x1))
    return tuple(gaps)


def _gap_bridges(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Each colour the outputs draw, with no inset and with one, along both axes or one, where
    the outputs keep the sizes."""
    if not same_shapes(grids, targets):
        return []
    return list(product(facts.drawn, (0, 1), ("hv", "h", "v")))


def outer_corner_rays(g: Array, which: str, c: int) -> Array | None:
    """Diagonal rays over zeros from the outer corners of the largest object or each; c: -1 own, -2 other, 0 rarest."""
    shooting = _corner_ray_cells(g, which)
    if shooting is None:
        return None
    if c == 0:
        counts = np.bincount(g.ravel(), minlength=10)[1:]
        least = np.flatnonzero(counts == counts[counts > 0].min())  # a grid of zeros has no object
        if least.size != 1:
            return None
        c = int(least[0]) + 1
    out = g.copy()
    for cells, own, other in shooting:
        colour = own if c == -1 else other if c == -2 else c
        if colour < 0:
            return None
        out[cells] = colour
    return None if np.array_equal(out, g) else out


@grid_memo()
def _corner_ray_cells(g: Array, which: str) -> tuple[tuple[Array, int, int], ...] | None:
    """For the object with the one largest box ('largest') or each object ('each', at most
    _MAX_BRIDGED), of any colours and 8-connected: the cells of its corner rays, its colour
    (-1 if it has several) and the grid's one colour it lacks (-1 if none or several). None
    where there is no such object. Asked once per grid, whatever the colour.

    An outer corner faces a diagonal heading: the object has neither the cell beside it nor
    the one above or below it on that side, and the ray does not start in a hole of the
    object (cells it cuts off from the border). A ray runs over zeros to the edge or a cell."""
    objs = objects(g, "multi8")
    if which == "largest":
        areas = [(o.box[0].stop - o.box[0].start) * (o.box[1].stop - o.box[1].start) for o in objs]
        objs = tuple(o for o, area in zip(objs, areas, strict=True) if area == max(areas, default=0))
    if not objs or len(objs) > (1 if which == "largest" else _MAX_BRIDGED):
        return None
    present = set(np.unique(g).tolist()) - {0}
    h, w = g.shape
    shooting = []
    for o in objs:
        cells = np.zeros(g.shape, dtype=bool)
        around = np.pad(o.mask, 1)
        holes = cut_off(g, ~o.mask)
        for dy, dx in _HEADINGS.values():
            corners = o.mask & ~around[1 + dy : h + 1 + dy, 1 : w + 1] & ~around[1 : h + 1, 1 + dx : w + 1 + dx]
            for y, x in zip(*np.nonzero(corners), strict=True):
                y, x = int(y) + dy, int(x) + dx
                if 0 <= y < h and 0 <= x < w and holes[y, x]:
                    continue
                while 0 <= y < h and 0 <= x < w and g[y, x] == 0:
                    cells[y, x] = True
                    y, x = y + dy, x + dx
        others = present - set(o.colours)
        cells.flags.writeable = False
        shooting.append((cells, o.colours[0] if len(o.colours) == 1 else -1, others.pop() if len(others) == 1 else -1))
    return tuple(shooting)


def smear_to_marker(g: Array, c: int, paint: str) -> Array | None:
    """Repeat objects holding marker colour c to the edge, on each marker cell's side; in its other colour or as is."""
    # a marker cell's side: the sign, each way, of its place less the centre of the object's box
    out, moved = g.copy(), False
    h, w = g.shape
    for o in objects(g, "multi8"):
        if c not in o.colours or len(o.colours) != 2:
            continue
        oh, ow = o.box[0].stop - o.box[0].start, o.box[1].stop - o.box[1].start
        ys, xs = np.nonzero(o.mask[o.box] & (g[o.box] == c))
        sides = set(zip(np.sign(2 * ys - (oh - 1)).tolist(), np.sign(2 * xs - (ow - 1)).tolist(), strict=True))
        sides.discard((0, 0))
        if not sides:
            return None
        body = o.colours[0] if o.colours[1] == c else o.colours[1]
        part = np.where(o.mask[o.box], body if paint == "body" else g[o.box], 0)
        if paint == "body":
            out[o.mask] = body
        for dy, dx in sorted(sides):
            top, left = o.box[0].start + dy, o.box[1].start + dx
            while -oh < top < h and -ow < left < w:  # some of the copy is still on the grid
                y0, x0, y1, x1 = max(top, 0), max(left, 0), min(top + oh, h), min(left + ow, w)
                piece = part[y0 - top : y1 - top, x0 - left : x1 - left]
                window = out[y0:y1, x0:x1]
                free = (piece != 0) & (window == 0)
                window[free] = piece[free]
                top, left = top + dy, left + dx
        moved = True
    return out if moved and not np.array_equal(out, g) else None


def _smear_colours(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Each colour every input holds, painted over or copied, where the outputs keep the sizes
    and draw on zeros."""
    if not same_shapes(grids, targets) or not facts.drawn:
        return []
    held = held_colours(grids)
    return list(product(sorted(held), ("body", "copy")))


def _corner_ray_colours(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """The largest object or each, with the rarest colour, their own, the other one, or each
    colour the outputs draw, where the outputs only add to grids of their sizes."""
    if not facts.drawn or not same_shapes(grids, targets) or not _only_add(grids, targets):
        return []
    return list(product(("largest", "each"), (0, -1, -2, *facts.drawn)))


def _piece_turns(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Pieces as they are, then turned, where the targets keep the sizes and every input has a hole."""
    if not same_shapes(grids, targets) or not all(enclosed(g).any() for g in grids):
        return []
    return [("same",), ("any",)]


def _repeat_spacings(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Both spacings of the copies, where the targets only add colours of the grids to grids of
    their sizes."""
    if not same_shapes(grids, targets) or not facts.drawn or not set(facts.drawn) <= set(facts.in_colours):
        return []
    return [("disjoint",), ("apart",)] if _only_add(grids, targets) else []


def _wall_ray_colours(grids: Sequence[Array], targets: Sequence[Array], facts) -> list[tuple]:
    """Each colour of the inputs that the outputs draw, towards and away from the walls, where
    every input has a full line and the outputs keep the size."""
    if not same_shapes(grids, targets) or not all(full_rows(g).size or full_rows(g.T).size for g in grids):
        return []
    return list(product(sorted(set(facts.drawn) & set(facts.in_colours) - {0}), (True, False)))


REGISTRY: tuple = (
    (paint_placeholders, "placeholder", "same"),
    (pile, "wall", "same"),
    (line_behind, "drawn", "same"),
    (project_markers, "none", "same"),
    (snap_to_anchor, "anchor_cells", "same"),
    (box_within_markers, "marker_box", "same"),
    (stretch_to_markers, "none", "same"),
    (complete_rows, "template_line", "same"),
    (bounce_rays, "bounce", "same"),
    (edge_crossings, "marked_corner", "same"),
    (complete_copies, "copy_mode", "same"),
    (complete_scaled_copies, "copy_mode", "same"),
    (copy_onto_keys, "key_copy", "same"),
    (recolour_like, "reference", "same"),
    (wall_rays, "wall_ray", "same"),
    (repeat_toward, "repeat_spacing", "same"),
    (fit_pieces, "piece_turns", "same"),
    (bridge_gaps, "gap_bridge", "same"),
    (outer_corner_rays, "corner_ray", "same"),
    (smear_to_marker, "marker_smear", "same"),
)

PARAM_KINDS: dict = {
    "placeholder": _placeholders,
    "wall": _walls,
    "anchor_cells": _anchor_colours,
    "marker_box": _marker_boxes,
    "template_line": _template_axes,
    "bounce": _headings,
    "marked_corner": _marked_corners,
    "copy_mode": _copy_modes,
    "key_copy": _key_copies,
    "reference": _references,
    "wall_ray": _wall_ray_colours,
    "repeat_spacing": _repeat_spacings,
    "piece_turns": _piece_turns,
    "gap_bridge": _gap_bridges,
    "corner_ray": _corner_ray_colours,
    "marker_smear": _smear_colours,
}
