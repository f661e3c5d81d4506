"""Object moves learned from the train pairs: same-size tasks whose objects move or are copied.

Objects are connected components of non-zero cells (one colour, 4- or 8-connected, or any
colours, 8-connected). Each object belongs to a group: its colour, all objects alike, or the
one largest object against the others. Each group gets one rule, the same for every train
pair: stay; shift by a constant; shift by a multiple (-2..2) of its own height and width;
step one cell towards an anchor, or line an edge or the centre up with it; slide in a
direction until something blocks it (gravity, nearest the wall first); or slide towards an
anchor until it touches it. An anchor is a colour held by one object, or the largest object.
Every rule but gravity may move the object or copy it.

A rule is only a candidate if the shift it gives every object is one at which the object's
cells, with their colours, appear in the train output; a set of rules is kept only if
drawing it (movers erased, then painted) rebuilds every train output exactly. Applied to a
grid with a group the train pairs never showed, an object leaving the grid, painting over
another colour, or an anchor that is missing or not alone, a model gives no answer.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from arcsolve.dsl.memo import grid_memo
from arcsolve.dsl.primitives.objects import label

Array = np.ndarray
DIRS4 = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIRS8 = (*DIRS4, (-1, -1), (-1, 1), (1, -1), (1, 1))
OBJECTS = (("colour", 4), ("colour", 8), ("multi", 8))
GROUPINGS = ("colour", "all", "size")
MAX_OBJECTS = 40  # per grid: more is a texture, not objects that move
MAX_RULE_SETS = 3000  # combinations of the groups' candidate rules tried
MAX_FOUND = 4  # rule sets kept for one kind of object and grouping
MAX_REFOUND = 64  # likewise when fitted again on fewer pairs, which more rule sets fit
MoveModel = tuple  # (objects, grouping, ((group, rule), ...))
Obj = tuple  # (rows, columns, colours, colour or -1, (top, bottom, left, right))


@grid_memo()
def _objects(g: Array, kind: tuple[str, int]) -> tuple[Obj, ...]:
    """(rows, columns, colours, colour or -1 for a many-coloured one, bounding box) of each
    object (asked again for each grouping, so remembered per grid)."""
    lab, n = label(g, g != 0, diagonal=kind[1] == 8, by_colour=kind[0] == "colour")
    found = []
    for i in range(1, n + 1):
        ys, xs = np.nonzero(lab == i)
        cs = g[ys, xs]
        box = (int(ys[0]), int(ys[-1]), int(xs.min()), int(xs.max()))  # rows come sorted
        found.append((ys, xs, cs, int(cs[0]) if (cs == cs[0]).all() else -1, box))
    return tuple(found)


def _groups(objs: Sequence[Obj], grouping: str) -> list | None:
    if grouping == "colour":
        return [o[3] for o in objs]
    if grouping == "all":
        return ["all"] * len(objs)
    sizes = [len(o[0]) for o in objs]
    largest = max(sizes)
    if sizes.count(largest) != 1:
        return None
    return ["largest" if s == largest else "other" for s in sizes]


def _inside(o: Obj, dy: int, dx: int, H: int, W: int) -> bool:
    """Whether object o, shifted by (dy, dx), stays on an H x W grid."""
    top, bottom, left, right = o[4]
    return top + dy >= 0 and left + dx >= 0 and bottom + dy < H and right + dx < W


def _shifts_seen(o: Obj, out: Array) -> set[tuple[int, int]]:
    """Every shift at which the object's cells, with their colours, appear in `out`."""
    ys, xs, cs = o[0], o[1], o[2]
    H, W = out.shape
    top, bottom, left, right = o[4]
    at_y, at_x = np.nonzero(out == cs[0])  # where its first cell may go
    dy, dx = at_y - ys[0], at_x - xs[0]
    inside = (top + dy >= 0) & (left + dx >= 0) & (bottom + dy < H) & (right + dx < W)
    dy, dx = dy[inside], dx[inside]
    shown = (out[dy[:, None] + ys, dx[:, None] + xs] == cs).all(1)
    return set(zip(dy[shown].tolist(), dx[shown].tolist(), strict=True))


def _offsets(o: Obj, mask: Array) -> tuple[Array, Array]:
    """Rows and columns from each of o's cells (columns) to each cell of `mask` (rows)."""
    my, mx = np.nonzero(mask)
    return my[:, None] - o[0][None, :], mx[:, None] - o[1][None, :]


def _first(dy: Array, dx: Array, d: tuple[int, int]) -> int | None:
    """The fewest steps along d that take one of the cells onto a mask cell (`_offsets`)."""
    k = dy * d[0] if d[0] else dx * d[1]
    along = (k > 0) & (dy == k * d[0]) & (dx == k * d[1])
    return int(k[along].min()) if along.any() else None


def _hits(o: Obj, mask: Array, dirs: tuple) -> list[tuple[int, tuple[int, int]]]:
    """(k, d) for each direction d along which o, slid k cells, first overlaps `mask`
    without leaving the grid first."""
    H, W = mask.shape
    dy, dx = _offsets(o, mask)
    hits = []
    for d in dirs:
        k = _first(dy, dx, d)
        if k is not None and _inside(o, k * d[0], k * d[1], H, W):
            hits.append((k, d))
    return hits


def _slide(o: Obj, d: tuple[int, int], occupied: Array) -> int:
    """How far o slides along d before the grid's edge or an occupied cell stops it."""
    H, W = occupied.shape
    top, bottom, left, right = o[4]
    far = H + W  # no edge along an axis the slide does not move on
    room = min((top, far, H - 1 - bottom)[d[0] + 1], (left, far, W - 1 - right)[d[1] + 1])  # to the edge
    k = _first(*_offsets(o, occupied), d)
    return room if k is None else min(room, k - 1)


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _anchor_box(anchor, objs: Sequence[Obj], o: Obj) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) of the anchor object: the one largest, or the one of a colour."""
    if anchor == "largest":
        sizes = [len(q[0]) for q in objs]
        largest = max(sizes)
        if sizes.count(largest) != 1 or objs[sizes.index(largest)] is o:
            return None
        q = objs[sizes.index(largest)]
    else:
        matches = [q for q in objs if q[3] == anchor and q is not o]
        if len(matches) != 1:
            return None
        q = matches[0]
    return q[4]


def _shift(o: Obj, rule: tuple, objs: Sequence[Obj]) -> tuple[int, int] | None:
    """The shift a const, size, step or align rule gives object o."""
    return _shift_to(o, rule, None if rule[0] in ("const", "size") else _anchor_box(rule[1], objs, o))


def _shift_to(o: Obj, rule: tuple, box: tuple[int, int, int, int] | None) -> tuple[int, int] | None:
    """The shift a rule gives object o, given its anchor's box for a step or align rule."""
    top, bottom, left, right = o[4]
    if rule[0] == "const":
        return rule[1]
    if rule[0] == "size":
        return rule[1][0] * (bottom - top + 1), rule[1][1] * (right - left + 1)
    if box is None:
        return None
    if rule[0] == "step":
        return _sign(box[0] + box[1] - top - bottom), _sign(box[2] + box[3] - left - right)
    axis, edge = rule[2], rule[3]
    lo, hi, a_lo, a_hi = (top, bottom, box[0], box[1]) if axis == 0 else (left, right, box[2], box[3])
    if edge == "lo":
        s = a_lo - lo
    elif edge == "hi":
        s = a_hi - hi
    elif (a_lo + a_hi - lo - hi) % 2:
        return None
    else:
        s = (a_lo + a_hi - lo - hi) // 2
    return (s, 0) if axis == 0 else (0, s)


def _draw(g: Array, objs: Sequence[Obj], groups: list, rules: dict) -> Array | None:
    """Apply each object's group rule: erase the movers, then paint them at their new places."""
    H, W = g.shape
    movers = []
    for o, k in zip(objs, groups, strict=True):
        rule = rules.get(k)
        if rule is None:
            return None
        if rule[0] != "stay":
            movers.append((o, rule))
    if not movers:
        return None
    out = g.copy()
    for o, rule in movers:
        if rule[-1] == "move":
            out[o[0], o[1]] = 0

    def paint(o: Obj, dy: int, dx: int) -> bool:
        if not _inside(o, dy, dx, H, W):
            return False
        ny, nx = o[0] + dy, o[1] + dx
        under = out[ny, nx]
        if ((under != 0) & (under != o[2])).any():
            return False
        out[ny, nx] = o[2]
        return True

    falling = []
    for o, rule in movers:
        if rule[0] == "grav":
            falling.append((o, rule[1]))
        elif rule[0] == "toward":
            if rule[1] == "largest":
                box = _anchor_box("largest", objs, o)
                if box is None:
                    return None
                q = max(objs, key=lambda q: len(q[0]))
                mask = np.zeros(g.shape, dtype=bool)
                mask[q[0], q[1]] = True
            else:
                mask = g == rule[1]
                mask[o[0], o[1]] = False
            if not mask.any():
                return None
            hits = _hits(o, mask, DIRS8 if rule[2] == 8 else DIRS4)
            if len(hits) != 1:
                return None
            k, d = hits[0]
            occupied = g != 0
            occupied[o[0], o[1]] = False
            if _slide(o, d, occupied) != k - 1 or not paint(o, (k - 1) * d[0], (k - 1) * d[1]):
                return None  # something else stands between the object and its anchor
        else:
            shift = _shift(o, rule, objs)
            if shift is None or not paint(o, *shift):
                return None
    falling.sort(key=lambda item: -(item[0][0] * item[1][0] + item[0][1] * item[1][1]).max())  # nearest the wall first
    for o, d in falling:
        k = _slide(o, d, out != 0)
        if not paint(o, k * d[0], k * d[1]):
            return None
    return out


def _candidates(members: list, data: list, colours: list[int], deadline: float | None) -> list[tuple] | None:
    """The rules one group may follow, given where its objects' cells appear in the outputs
    (None when `deadline` passes first)."""
    seen = []
    for o, b, _ in members:
        if deadline is not None and time.monotonic() > deadline:
            return None
        seen.append(_shifts_seen(o, b))
    rules: list[tuple] = []
    if all((0, 0) in s for s in seen):
        rules.append(("stay",))
    common = set.intersection(*seen) - {(0, 0)}
    for d in sorted(common, key=lambda d: (abs(d[0]) + abs(d[1]), d))[:3]:
        rules += [("const", d, "move"), ("const", d, "copy")]
    anchors = [*colours, "largest"]
    shaped = [("size", (ky, kx), mode) for ky in range(-2, 3) for kx in range(-2, 3) if ky or kx
              for mode in ("move", "copy")]
    for anchor in anchors:
        for mode in ("move", "copy"):
            shaped.append(("step", anchor, mode))
            shaped += [("align", anchor, axis, edge, mode) for axis in (0, 1) for edge in ("lo", "hi", "mid")]
    boxes = [{a: _anchor_box(a, data[i][2], o) for a in anchors} for o, _, i in members]  # each member's anchors
    for rule in shaped:
        if deadline is not None and time.monotonic() > deadline:
            return None
        shifts = [_shift_to(o, rule, None if rule[0] == "size" else box[rule[1]])
                  for (o, _, _), box in zip(members, boxes, strict=True)]
        if all(d is not None and d in s and not (d == (0, 0) and rule[-1] == "copy")
               for d, s in zip(shifts, seen, strict=True)) and any(d != (0, 0) for d in shifts):
            rules.append(rule)
    for d in DIRS4:  # every object's shift must lie along d (or be none)
        if all(any(dy * d[1] == dx * d[0] and dy * d[0] >= 0 and dx * d[1] >= 0 for dy, dx in s) for s in seen):
            rules.append(("grav", d, "move"))
    rules += [("toward", anchor, n, mode) for anchor in anchors for n in (4, 8) for mode in ("move", "copy")]
    return rules


def _fits_alone(rule: tuple, group, data: list) -> bool:
    """Does a 'toward' rule, drawn for one group's objects alone, paint what the outputs show?"""
    for a, b, objs, groups in data:
        for o, k in zip(objs, groups, strict=True):
            if k != group:
                continue
            one = _draw(a, [o], [group], {group: rule})
            if one is None:
                return False
            painted = (one != 0) & (one != a)
            if not (one[painted] == b[painted]).all():
                return False
    return True


def _fit(pairs: list[tuple[Array, Array]], kind: tuple, grouping: str, deadline: float | None,
         most: int = MAX_FOUND) -> list[dict]:
    data = []
    for a, b in pairs:
        objs = _objects(a, kind)
        groups = _groups(objs, grouping) if 0 < len(objs) <= MAX_OBJECTS else None
        if groups is None:
            return []
        data.append((a, b, objs, groups))
    colours = sorted({int(c) for a, _ in pairs for c in np.unique(a) if c})
    members = defaultdict(list)
    for i, (_, b, objs, groups) in enumerate(data):
        for o, k in zip(objs, groups, strict=True):
            members[k].append((o, b, i))
    options = {}
    for k, group in members.items():
        if deadline is not None and time.monotonic() > deadline:
            return []
        candidates = _candidates(group, data, colours, deadline)
        if candidates is None:
            return []
        rules = []
        for rule in candidates:
            if deadline is not None and time.monotonic() > deadline:
                return []
            if rule[0] != "toward" or _fits_alone(rule, k, data):
                rules.append(rule)
        if not rules:
            return []
        options[k] = rules
    if all(rules == [("stay",)] for rules in options.values()):
        return []
    keys = list(options)
    if np.prod([len(options[k]) for k in keys]) > MAX_RULE_SETS:
        return []
    found = []
    for combo in itertools.product(*(options[k] for k in keys)):
        if deadline is not None and time.monotonic() > deadline:
            break
        rules = dict(zip(keys, combo, strict=True))
        if all(r[0] == "stay" for r in combo):
            continue
        if all(np.array_equal(_draw(a, objs, groups, rules), b) for a, b, objs, groups in data):
            found.append(rules)
            if len(found) == most:
                break
    return found


def fit_move_models(grids: list[Array], targets: list[Array], deadline: float | None = None) -> list[MoveModel]:
    """The move models that rebuild every train output, for each kind of object and grouping
    in turn (at most 4 rule sets each); those found by `deadline` if one is given."""
    if any(g.shape != t.shape for g, t in zip(grids, targets, strict=True)):
        return []
    if all(np.array_equal(g, t) for g, t in zip(grids, targets, strict=True)):
        return []
    if any(set(np.unique(g).tolist()) != set(np.unique(t).tolist()) for g, t in zip(grids, targets, strict=True)):
        return []  # moving and copying neither bring a colour nor take one away
    pairs = list(zip(grids, targets, strict=True))
    models: list[MoveModel] = []
    for kind in OBJECTS:
        for grouping in GROUPINGS:
            if deadline is not None and time.monotonic() > deadline:
                return models
            if kind[0] == "multi" and grouping == "colour":
                continue
            for rules in _fit(pairs, kind, grouping, deadline):
                models.append((kind, grouping, tuple(sorted(rules.items()))))
    return models


def refit_moves(grids: list[Array], targets: list[Array], kind: tuple, grouping: str,
                deadline: float | None = None) -> list[MoveModel]:
    """The move models for one kind of object and grouping, fitted again on the given pairs
    (to check that a model found on every train pair also predicts one left out)."""
    pairs = list(zip(grids, targets, strict=True))
    found = _fit(pairs, kind, grouping, deadline, MAX_REFOUND)
    return [(kind, grouping, tuple(sorted(rules.items()))) for rules in found]


def apply_moves(g: Array, model: MoveModel) -> Array | None:
    """Move or copy each object by its group's rule (None where the model cannot say)."""
    kind, grouping, rules = model
    objs = _objects(g, kind)
    groups = _groups(objs, grouping) if 0 < len(objs) <= MAX_OBJECTS else None
    if groups is None:
        return None
    return _draw(g, objs, groups, dict(rules))
