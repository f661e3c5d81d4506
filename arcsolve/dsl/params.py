"""Parameter inference: which parameters are worth trying for a primitive, given the train pairs.

Each parameter kind is a function of the current search state's train grids, the train
targets and some facts about the task; it returns the parameter tuples to try. Scale and
tile factors come from the size ratio to the targets, colours from the colours present,
shifts from how the content moves, so the search tries few, likely parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import permutations, product
from types import MappingProxyType

import numpy as np

from arcsolve.dsl.compose import stack
from arcsolve.dsl.families import FAMILIES
from arcsolve.dsl.learned.rules import fit_rule
from arcsolve.dsl.pairs import fixed_size, raw_inputs, still_colours
from arcsolve.dsl.primitives.blocks import downscale_any
from arcsolve.dsl.primitives.counting import FEATURES
from arcsolve.dsl.primitives.drawing import fit_ray_axes
from arcsolve.dsl.primitives.geometry import crop_centre
from arcsolve.dsl.primitives.objects import CROP_SELECTORS, PROPERTIES, SELECTORS, split

Array = np.ndarray
Params = tuple

UNIT_SHIFTS = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIRECTIONS = ("down", "up", "left", "right")
DIAGONALS = ("down_right", "down_left", "up_right", "up_left")
SPLIT_MODES = ("lines", "h2", "v2", "long2", "quarters", "squares")
CONNECTIVITIES = ("multi8", "colour4")


@dataclass(frozen=True)
class Facts:
    """What the search needs to know about the task's train pairs, computed once."""

    in_colours: tuple[int, ...]
    out_colours: tuple[int, ...]
    lost_colours: tuple[int, ...]  # in some input, in no output: candidates for 'noise'
    shifts: tuple[tuple[int, int], ...]
    drawn: tuple[int, ...] = ()  # colours outputs put on an input's zero cells, or new in them (other sizes)
    recoloured: tuple[int, ...] = ()  # colours that non-zero input cells change into (same sizes)
    full_lines: bool = False  # some output has a row or column without a zero cell
    dashes: tuple[int, ...] = ()  # colours outputs draw between two cells of another colour (`_dashes`)
    inputs: tuple[Array, ...] = field(default=(), compare=False, repr=False)  # the train inputs


def _colours(grids: Sequence[Array]) -> set[int]:
    return {int(c) for g in grids for c in np.unique(g)}


def _content_offset(a: Array, b: Array) -> tuple[int, int] | None:
    """How far the non-zero content's bounding box moved from a to b (same shapes only)."""
    if a.shape != b.shape or not a.any() or not b.any():
        return None
    (ay, ax), (by, bx) = (np.argwhere(a != 0).min(0), np.argwhere(b != 0).min(0))
    return int(by - ay), int(bx - ax)


def _dashes(a: Array, b: Array) -> set[int]:
    """The colours c (0 too) that output b has between two cells of one other colour, in a row
    or column, where input a is empty under c and under one of the two: the gaps of dashes."""
    found = set()
    for out, empty in ((b, a == 0), (b.T, a.T == 0)):
        left, mid, right = out[:, :-2], out[:, 1:-1], out[:, 2:]
        hit = (left == right) & (left != 0) & (mid != left) & empty[:, 1:-1] & (empty[:, :-2] | empty[:, 2:])
        found |= {int(c) for c in np.unique(mid[hit])}
    return found


def task_facts(inputs: Sequence[Array], targets: Sequence[Array]) -> Facts:
    """Colours and content offsets of the train pairs."""
    cin, cout = _colours(inputs), _colours(targets)
    offsets = {_content_offset(a, b) for a, b in zip(inputs, targets, strict=True)}
    moved = [o for o in offsets if o not in (None, (0, 0))]
    shifts = tuple(dict.fromkeys(UNIT_SHIFTS + (tuple(moved) if len(offsets) == 1 else ())))
    drawn, recoloured, dashes = set(), set(), set()
    for a, b in zip(inputs, targets, strict=True):
        if a.shape == b.shape:
            drawn |= {int(c) for c in np.unique(b[(a == 0) & (b != 0)])}
            dashes |= _dashes(a, b)
            recoloured |= {int(c) for c in np.unique(b[(a != 0) & (b != a)])}
        else:  # cells do not correspond: the colours the output has and its input lacks
            drawn |= _colours([b]) - _colours([a])
    full_lines = any((b != 0).all(1).any() or (b != 0).all(0).any() for b in targets)
    return Facts(tuple(sorted(cin)), tuple(sorted(cout)), tuple(sorted(cin - cout)), shifts,
                 tuple(sorted(drawn)), tuple(sorted(recoloured)), full_lines, tuple(sorted(dashes)), tuple(inputs))


def _ratio(big: Sequence[tuple[int, int]], small: Sequence[tuple[int, int]]) -> Params | None:
    """The one integer (ky, kx) with big = small * k on every pair, if it exists and is not 1x1."""
    ratios = set()
    for (bh, bw), (sh, sw) in zip(big, small, strict=True):
        if bh % sh or bw % sw:
            return None
        ratios.add((bh // sh, bw // sw))
    if len(ratios) != 1 or ratios == {(1, 1)}:
        return None
    ky, kx = ratios.pop()
    return (ky, kx) if ky <= 10 and kx <= 10 else None


Inference = Callable[[Sequence[Array], Sequence[Array], Facts], list[Params]]


def _grow(grids, targets, facts) -> list[Params]:
    r = _ratio([t.shape for t in targets], [g.shape for g in grids])
    return [r] if r else []


def _shrink(grids, targets, facts) -> list[Params]:
    r = _ratio([g.shape for g in grids], [t.shape for t in targets])
    return [r] if r else []


def _pools(grids, targets, facts) -> list[Params]:
    """Block sizes that pool every grid into blocks of at most one non-zero colour, some of
    them part empty (`downscale_any`): the size ratio to the targets where they are smaller,
    else square blocks of 2 to 5 cells a side."""
    ratio = _ratio([g.shape for g in grids], [t.shape for t in targets])
    sizes = [ratio] if ratio else [(k, k) for k in range(2, 6)]
    return [(ky, kx) for ky, kx in sizes if all(downscale_any(g, ky, kx) is not None for g in grids)]


def _mirror_grow(grids, targets, facts) -> list[Params]:
    return [(*r, phase) for r in _grow(grids, targets, facts) for phase in (0, 1)]


def _split_colours(grids, targets, facts) -> list[Params]:
    """The colours whose cells the targets turn into two or more other non-zero colours."""
    into: dict[int, set[int]] = {}
    for g, t in zip(grids, targets, strict=True):
        if g.shape != t.shape:
            return []
        changed = (g != 0) & (t != 0) & (g != t)
        for a, b in set(zip(g[changed].tolist(), t[changed].tolist(), strict=True)):
            into.setdefault(a, set()).add(b)
    return [(c,) for c, news in sorted(into.items()) if len(news) > 1]


def _pad(grids, targets, facts) -> list[Params]:
    return [(*r, corner) for r in _grow(grids, targets, facts) for corner in ("tl", "tr", "bl", "br")]


def _modes(grids: Sequence[Array]) -> list[str]:
    return [m for m in SPLIT_MODES if all(split(g, m) is not None for g in grids)]


def _split_orders(grids, targets, facts) -> list[Params]:
    """Each split mode with the last or the first part on top and, where every grid splits
    into 3 or 4 parts of its target's size, the other orders that stack them into every target."""
    offered: list[Params] = []
    for mode in _modes(grids):
        offered += [(mode, 0), (mode, 1)]
        parts = [split(g, mode) for g in grids]
        counts = {len(p) for p in parts}
        if len(counts) != 1 or not 3 <= min(counts) <= 4:
            continue
        if any(p[0].shape != t.shape for p, t in zip(parts, targets, strict=True)):
            continue
        k = counts.pop()
        for order in permutations(range(k)):
            if order in (tuple(range(k)), tuple(range(k))[::-1]):
                continue
            if all(np.array_equal(stack([p[i] for i in order]), t) for p, t in zip(parts, targets, strict=True)):
                offered.append((mode, order))
    return offered


def _present(grids: Sequence[Array]) -> list[int]:
    return sorted(_colours(grids) - {0})


def _square_tile(grids, targets, facts) -> list[Params]:
    """Colours to place copies at (-1: the most frequent), if every target is the grid's size squared."""
    if any(t.shape != (g.shape[0] ** 2, g.shape[1] ** 2) for g, t in zip(grids, targets, strict=True)):
        return []
    return [(-1,), *((c,) for c in _present(grids))]


def _anchors(grids, targets, facts) -> list[Params]:
    """Colours present whose cells stay exactly in place from every train input to its output."""
    if len(facts.inputs) != len(targets):
        return []
    pairs = list(zip(facts.inputs, targets, strict=True))
    if any(a.shape != b.shape for a, b in pairs):
        return []
    return [(c,) for c in _present(grids) if all(np.array_equal(a == c, b == c) for a, b in pairs)]


def _cell_rule(grids, targets, facts) -> list[Params]:
    """A neighbourhood rule fitted on the train inputs themselves (not on derived grids, where
    a table that merely memorises would verify too easily), if they change and it exists."""
    if not raw_inputs(grids, facts):
        return []
    if all(g.shape == t.shape and np.array_equal(g, t) for g, t in zip(grids, targets, strict=True)):
        return []
    table = fit_rule(list(grids), list(targets))
    return [] if table is None else [(table,)]


def _corners(grids, targets, facts) -> list[Params]:
    """The four corners, if every target has one size that fits inside every grid."""
    shapes = {t.shape for t in targets}
    if len(shapes) != 1:
        return []
    h, w = shapes.pop()
    if any(g.shape[0] < h or g.shape[1] < w for g in grids) or all(g.shape == (h, w) for g in grids):
        return []
    return [(corner, h, w) for corner in ("tl", "tr", "bl", "br")]


def _canvas(grids, targets, facts) -> list[Params]:
    """The four corners of the targets' one size, if every grid fits inside it and some grid
    is smaller: a result drawn to its own size, set on the fixed canvas that every output has."""
    return [(corner, h, w) for h, w in fixed_size(grids, targets) for corner in ("tl", "tr", "bl", "br")]


def _window(grids, targets, facts) -> list[Params]:
    """The targets' one size, if it fits inside every grid (as `_corners`) and the window of
    that size at a grid's centre is its target on some train pair: a window at the centre is
    what the task is about, not one cut from a picture that happens to have the target's size."""
    corners = _corners(grids, targets, facts)
    if not corners:
        return []
    _, h, w = corners[0]
    for g, t in zip(grids, targets, strict=True):
        window = crop_centre(g, h, w)
        if window is not None and np.array_equal(window, t):
            return [(h, w)]
    return []


def _still_colours(grids, targets, facts) -> list[Params]:
    """Each direction with each colour that every grid holds and every target keeps in the same
    cells (same-size pairs only): what other cells may fall onto."""
    return list(product(DIRECTIONS, still_colours(grids, targets)))


# The kinds of the core primitives; each family adds its own (`PARAM_KINDS`) in `PARAMS`.
CORE_PARAMS: MappingProxyType[str, Inference] = MappingProxyType({
    "none": lambda grids, targets, facts: [()],
    "learned": lambda grids, targets, facts: [],
    "grow": _grow,
    "shrink": _shrink,
    "pool": _pools,
    "mirror_grow": _mirror_grow,
    "split_colour": _split_colours,
    "pad": _pad,
    "select": lambda grids, targets, facts: list(product(SELECTORS, CONNECTIVITIES)),
    "select_crop": lambda grids, targets, facts: list(
        product((*SELECTORS, *CROP_SELECTORS), CONNECTIVITIES)
    ),
    "split_op": lambda grids, targets, facts: list(
        product(_modes(grids), ("and", "or", "xor", "nor", "diff"))
    ),
    "split_pair": lambda grids, targets, facts: [
        (m,) for m in _modes(grids) if all(len(split(g, m)) == 2 for g in grids)
    ],
    "square_tile": _square_tile,
    "anchor": _anchors,
    "anchor_keep": lambda grids, targets, facts: [
        (c, keep) for (c,) in _anchors(grids, targets, facts) for keep in (0, 1)
    ],
    "cut_pick": lambda grids, targets, facts: [
        (how,) for how in ("fullest", "emptiest", "most_colours", "least_colours", "unique_colours")
    ],
    "drawn": lambda grids, targets, facts: [(c,) for c in facts.drawn],
    "split_order": _split_orders,
    "split_pick": lambda grids, targets, facts: list(
        product(_modes(grids), ("first", "unique", "unique_mask", "asymmetric", "fullest", "emptiest"))
    ),
    "symmetry": lambda grids, targets, facts: list(
        product(("h", "v", "hv", "rot", "diag", "all"), sorted({0, *facts.lost_colours}))
    ),
    "noise": lambda grids, targets, facts: [(c,) for c in sorted({0, *facts.lost_colours})],
    "lost_colour": lambda grids, targets, facts: [(c,) for c in facts.lost_colours],
    "direction": lambda grids, targets, facts: [(d,) for d in DIRECTIONS],
    # diagonal rays only draw: offered where the outputs draw on empty cells
    "diagonal_direction": lambda grids, targets, facts: [(d,) for d in DIAGONALS] if facts.drawn else [],
    # rays drawn along whole lines leave a line without a zero cell in the outputs
    "ray_axes": lambda grids, targets, facts: [
        (axes, last)
        for axes in ([fit_ray_axes(grids, targets)] if facts.drawn and facts.full_lines else [])
        if axes
        for last in ("h", "v")
    ],
    "dashes": lambda grids, targets, facts: list(product(DIRECTIONS, facts.dashes)),
    "axis": lambda grids, targets, facts: [("h",), ("v",), ("hv",), ("vh",)],
    "bridge": lambda grids, targets, facts: list(product(("h", "v", "hv", "vh"), facts.drawn)),
    "connectivity": lambda grids, targets, facts: [(c,) for c in CONNECTIVITIES],
    "fill_colour": lambda grids, targets, facts: [(c,) for c in facts.out_colours if c],
    "colour": lambda grids, targets, facts: [(c,) for c in _present(grids)],
    "shift": lambda grids, targets, facts: list(facts.shifts),
    "property": lambda grids, targets, facts: list(product(PROPERTIES, CONNECTIVITIES)),
    "halo": lambda grids, targets, facts: list(
        product([*_present(grids), 0], facts.drawn, ("plus", "diag", "box"))
    ),
    "rays": lambda grids, targets, facts: list(
        product([0, *sorted(set(_present(grids)) & set(facts.drawn))], ("h", "v", "hv", "diag"))
    ),
    "drawn_colour": lambda grids, targets, facts: list(product(facts.drawn, CONNECTIVITIES)),
    "recoloured": lambda grids, targets, facts: [(c,) for c in facts.recoloured],
    "midpoint": lambda grids, targets, facts: list(product(facts.drawn, ("dot", "plus", "box"))),
    "marked": lambda grids, targets, facts: list(
        product(sorted(set(facts.drawn) | set(facts.recoloured)), CONNECTIVITIES)
    ),
    "corner": _corners,
    "window": _window,
    "canvas": _canvas,
    "settle": _still_colours,
    "rank": lambda grids, targets, facts: [("most",), ("least",)],
    "cell_rule": _cell_rule,
    "skip": lambda grids, targets, facts: [(0,), (1,)],
    "feature": lambda grids, targets, facts: [(f,) for f in FEATURES],
    "colour_axis": lambda grids, targets, facts: list(product(_present(grids), ("h", "v"))),
    "line_axis": lambda grids, targets, facts: [("h",), ("v",), ("auto",)],
    "rows_or_columns": lambda grids, targets, facts: [("h",), ("v",)],
})
PARAMS: MappingProxyType[str, Inference] = MappingProxyType({
    **CORE_PARAMS, **{kind: infer for family in FAMILIES for kind, infer in family.PARAM_KINDS.items()},
})
