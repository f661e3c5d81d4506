"""Stamps at any reach, learned from the train pairs: what a same-size task paints around each
cell or object of its inputs.

`arcsolve.dsl.families.patterns.stamp_objects` redraws the ring of one cell around an object. Here a
stamp reaches further (up to the grid's side) and has fewer, coarser sources, in five kinds:
every non-zero cell by its colour (`cell`; `cell_bg` paints only onto 0), every non-zero
cell alike (`pooled`), or every one-colour object (8-connected) by its colour and shape
(`object`) or by its shape alone (`object_shape`). A stamp entry is an offset from the
source's corner and what lies there in every train output: one fixed colour, or the
source's own colour (`pooled`, `object_shape`: so a stamp learned on red also serves green).

Fitting (`fit_stamp_models`) keeps an entry only if every occurrence in every train pair
agrees on it and it changes a cell at least `min_support` times (2, then 1 as a looser
second tier); entries never paint 0. The reach is the smallest of RADII whose stamps
rebuild every train output exactly; a model must also predict each train pair right when
fitted on the others, wherever it answers (leave one out). Applied to a grid with a source
the train pairs never showed, or where two stamps disagree, a model gives no answer.
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.primitives.objects import label

Array = np.ndarray
KINDS = ("cell_bg", "cell", "pooled", "object", "object_shape")
RADII = (1, 2, 3, 4, 5, 6, 8, 10, 15, 30)
MAX_SOURCES = 100  # per grid: more sources than this is a picture, not a few things stamped
# (kind, reach, ((source key, ((dy, dx, colour, fixed, own colour), ...)), ...))
StampModel = tuple[str, int, tuple]
_OUTSIDE = -1


@grid_memo()
def _sources(g: Array, kind: str) -> tuple[tuple, ...]:
    """(key, colour, top, left, height, width) for each source of a stamp in g (asked again
    for each reach and tier, so remembered per grid)."""
    if kind in ("cell", "cell_bg", "pooled"):
        ys, xs = np.nonzero(g)
        colours = g[ys, xs].tolist()
        keys = [0] * len(colours) if kind == "pooled" else colours
        return tuple(zip(keys, colours, ys.tolist(), xs.tolist(), [1] * len(ys), [1] * len(ys), strict=True))
    found = []
    lab, n = label(g, g != 0, diagonal=True, by_colour=True)  # one-colour objects, 8-connected
    for i in range(1, n + 1):
        ys, xs = np.nonzero(lab == i)
        top, left, c = int(ys.min()), int(xs.min()), int(g[ys[0], xs[0]])
        h, w = int(ys.max()) - top + 1, int(xs.max()) - left + 1
        shape = np.zeros((h, w), dtype=np.uint8)
        shape[ys - top, xs - left] = 1
        key = (h, w, shape.tobytes())
        found.append((key if kind == "object_shape" else (c, key), c, top, left, h, w))
    return tuple(found)


def _fit(pairs: list[tuple[Array, Array]], kind: str, min_support: int) -> tuple[dict, int]:
    """Every source key's stamp {(dy, dx): (colour, fixed, own)}, and the reach it was read over."""
    reach = min(30, max(max(a.shape) for a, _ in pairs))
    windows: dict = defaultdict(list)
    for a, b in pairs:
        if len(_sources(a, kind)) > MAX_SOURCES:
            return {}, reach
        pa = np.pad(a.astype(np.int16), reach, constant_values=_OUTSIDE)
        pb = np.pad(b.astype(np.int16), reach, constant_values=_OUTSIDE)
        for key, c, y, x, h, w in _sources(a, kind):
            rows, cols = slice(y, y + h + 2 * reach), slice(x, x + w + 2 * reach)
            windows[key].append((pa[rows, cols], pb[rows, cols], c))
    own_colour = kind in ("pooled", "object_shape")
    stamps = {}
    for key, seen in windows.items():
        before = np.stack([s[0] for s in seen])
        after = np.stack([s[1] for s in seen])
        colour = np.array([s[2] for s in seen])[:, None, None]
        valid = before != _OUTSIDE
        if kind == "cell_bg":
            valid &= before == 0
        some = valid.any(0)
        changed = ((before != after) & valid).sum(0) >= min_support
        value = np.where(valid, after, -5).max(0)
        fixed = some & ~(valid & (after != value)).any(0)
        own = some & ~(valid & (after != colour)).any(0) if own_colour else np.zeros_like(fixed)
        entries = {}
        for dy, dx in zip(*np.nonzero(changed & (fixed | own)), strict=True):
            f, o, v = bool(fixed[dy, dx]), bool(own[dy, dx]), int(value[dy, dx])
            if f and not o and v == 0:
                continue  # stamps add colour; they never erase
            entries[(int(dy) - reach, int(dx) - reach)] = (v, f, o)
        stamps[key] = entries
    return stamps, reach


def _apply(g: Array, kind: str, reach: int, stamps) -> Array | None:
    out = g.copy()
    painted = np.full(g.shape, -1, dtype=np.int16)
    H, W = g.shape
    for key, c, y, x, h, w in _sources(g, kind):
        entries = stamps.get(key)
        if entries is None:
            return None
        for (dy, dx), (v, fixed, own) in entries.items():
            if dy < -reach or dx < -reach or dy >= h + reach or dx >= w + reach:
                continue
            yy, xx = y + dy, x + dx
            if not (0 <= yy < H and 0 <= xx < W) or (kind == "cell_bg" and g[yy, xx] != 0):
                continue
            if fixed and own and v != c:
                return None  # the train pairs could not tell a fixed colour from the source's own
            colour = v if fixed else c
            if painted[yy, xx] not in (-1, colour):
                return None
            painted[yy, xx] = colour
            out[yy, xx] = colour
    return out


def _model(
    pairs: list[tuple[Array, Array]], kind: str, min_support: int, deadline: float | None = None
) -> StampModel | None:
    """The stamps of one kind at the smallest reach that rebuilds every train output."""
    stamps, longest = _fit(pairs, kind, min_support)
    if not any(stamps.values()):
        return None
    for reach in RADII:
        if deadline is not None and time.monotonic() > deadline:
            return None
        if reach > longest and reach != RADII[-1]:
            continue
        if all(np.array_equal(_apply(a, kind, reach, stamps), b) for a, b in pairs):
            entries = tuple(sorted((k, tuple(sorted((*o, *e) for o, e in s.items()))) for k, s in stamps.items()))
            return kind, reach, entries
    return None


def _holds_out(pairs: list[tuple[Array, Array]], kind: str, min_support: int) -> bool:
    """Fitted on all pairs but one, does the model predict that one right wherever it answers?"""
    for i, (a, b) in enumerate(pairs):
        model = _model(pairs[:i] + pairs[i + 1 :], kind, min_support) if len(pairs) > 1 else None
        if model is not None:
            got = apply_stamps(a, model)
            if got is not None and not np.array_equal(got, b):
                return False
    return True


def fit_stamp_models(grids: list[Array], targets: list[Array], deadline: float | None = None) -> list[StampModel]:
    """The stamp models that rebuild every train output and survive leaving a pair out, the
    strict tier (entries seen changing twice) before the loose one, each kind once per tier;
    those found by `deadline` (a time.monotonic() value) if one is given."""
    if any(g.shape != t.shape for g, t in zip(grids, targets, strict=True)):
        return []
    if all(np.array_equal(g, t) for g, t in zip(grids, targets, strict=True)):
        return []
    pairs = list(zip(grids, targets, strict=True))
    models: list[StampModel] = []
    for min_support in (2, 1):
        for kind in KINDS:
            if deadline is not None and time.monotonic() > deadline:
                return models
            model = _model(pairs, kind, min_support, deadline)
            if model is not None and model not in models and _holds_out(pairs, kind, min_support):
                models.append(model)
    return models


def refit_stamps(grids: list[Array], targets: list[Array], kind: str) -> list[StampModel]:
    """The models of one kind, each tier's, fitted again on the given pairs (to check that a
    model found on every train pair also predicts one left out)."""
    pairs = list(zip(grids, targets, strict=True))
    models = (_model(pairs, kind, min_support) for min_support in (2, 1))
    return [m for m in models if m is not None]


def apply_stamps(g: Array, model: StampModel) -> Array | None:
    """Paint every source's stamp onto g (None on an unseen source or disagreeing stamps)."""
    kind, reach, entries = model
    stamps = {key: {(dy, dx): (v, f, o) for dy, dx, v, f, o in stamp} for key, stamp in entries}
    return _apply(g, kind, reach, stamps)
