"""Per-panel actions (`panel_sets`): where lines of one colour cut every grid, inputs and
outputs alike, into the same a×b equal panels, one head whose panels each take their own
exact action, and whose lines read themselves. A panel's action copies some panel of the
input, rotated or reflected: the whole grid's dihedral element, then a cyclic shift that
brings the source panel onto it (`panel_options`). So one panel may keep its content while
the others show it turned, or the panels may trade places."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet, is_function, support, train_cells
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.per_tile import shift_variants, tile_choice, tile_index
from arcsolve.latformer.exact_starts.readings import reading, source_cells

Layout = tuple[tuple[int, int], int]  # (a, b) panels, the lines' width
MAX_PANELS = 9  # per-panel actions are tried on at most this many panels (each pair of them, 64 elements)


def panel_layout(grids: Sequence[np.ndarray], lines: Sequence[np.ndarray] = ()) -> Layout | None:
    """((a, b), s) when lines s cells wide, whole rows or columns of one colour in every grid
    of `grids` (all of one shape) and of `lines`, cut them into a×b equal panels (at least 2,
    at most `MAX_PANELS`) with no line on the border; else None."""
    shape = grids[0].shape
    if any(g.shape != shape for g in grids):
        return None
    stack = np.stack(grids)
    for colour in np.unique(stack):
        full = stack == colour
        rows = full.all(axis=(0, 2)) & np.all([(g == colour).all(1) for g in lines] or [True], axis=0)
        cols = full.all(axis=(0, 1)) & np.all([(g == colour).all(0) for g in lines] or [True], axis=0)
        found = [_cut(rows), _cut(cols)]
        if None in found:
            continue
        (a, s_r), (b, s_c) = found
        widths = {s for s in (s_r, s_c) if s}
        if len(widths) == 1 and 2 <= a * b <= MAX_PANELS:
            return (a, b), widths.pop()
    return None


def _cut(on_line: np.ndarray) -> tuple[int, int] | None:
    """(panels, line width) of an axis whose lines are `on_line`: (1, 0) with none; None
    unless they cut it into equal panels between lines of equal width, none on the border."""
    if not on_line.any():
        return (1, 0)
    if on_line.all() or on_line[0] or on_line[-1]:
        return None
    edges = np.flatnonzero(np.diff(on_line.astype(np.int8)))  # the last cell before each change
    bounds = np.concatenate([[-1], edges, [len(on_line) - 1]])
    runs = np.diff(bounds)  # panel, line, panel, …, panel
    panels, widths = set(runs[0::2].tolist()), set(runs[1::2].tolist())
    if len(panels) != 1 or len(widths) != 1:
        return None
    return len(runs) // 2 + 1, widths.pop()


def panel_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
    max_tries: int = 512,
) -> list[ActionSet]:
    """At most one set: where every grid, train and test, has one shape, every output that of
    its input, and lines cut them all alike into panels (`panel_layout`), one action per
    panel (a rotated or reflected copy of a panel, `panel_options`) and the identity on the
    lines, such that the outputs are one function of the head's reading, cell by cell; none
    when one action serves every panel, or the identity does."""
    if not pairs or any(x.shape != y.shape for x, y in pairs) or any(tuple(s) != pairs[0][0].shape for _, s in tests):
        return []
    layout = panel_layout([x for x, _ in pairs] + [x for x, _ in tests], [y for _, y in pairs])
    if layout is None:
        return []
    tiles, lines = layout
    shape = pairs[0][0].shape
    tile = tile_index(shape, tiles, lines)
    n_panels = tiles[0] * tiles[1]
    options = panel_options(shape, tile, n_panels, shift_bits)
    reads = {}
    for action in dict.fromkeys([ExactAction(), *options]):
        try:
            reads[action] = np.concatenate([reading(action, x, shape, shift_bits).reshape(-1) for x, _ in pairs])
        except ValueError:
            continue
    tile_of = np.tile(tile, len(pairs))
    outputs, pair_of = train_cells(pairs)
    if is_function(reads[ExactAction()], outputs):
        return []  # every panel as it is, through one table: a plain set, not one per panel
    found = tile_choice(reads, tile_of, outputs, n_panels + 1, max_tries)
    if found is None:
        return []
    actions, keys = found
    test_keys = []
    for x, _ in tests:
        read_test = np.stack([reading(action, x, shape, shift_bits).reshape(-1) for action in actions])
        test_keys.append(read_test[tile, np.arange(len(tile))] + 1)
    return [ActionSet(tuple(actions), *support(keys, pair_of, len(pairs), test_keys), tiles, lines)]


def panel_options(shape: tuple[int, int], tile: np.ndarray, n_panels: int, shift_bits: int = 5) -> list[ExactAction]:
    """The actions that copy a panel onto another, rotated or reflected: for each dihedral
    element of the grid and each panel, target and source, the cyclic shift after it that
    makes the target's cells read the source's, as a rotation or reflection of it (the
    identity first, then the elements without a shift, then those with one)."""
    H, W = shape
    rows, cols = np.divmod(np.arange(H * W), W)
    corner = {t: (rows[tile == t].min(), cols[tile == t].min()) for t in range(n_panels)}
    h = int((tile == 0).reshape(H, W)[:, corner[0][1]].sum())
    w = int((tile == 0).reshape(H, W)[corner[0][0]].sum())
    found: list[ExactAction] = []
    for d in range(8):
        base = source_cells(ExactAction(d), shape, shape, shift_bits)
        if base is None:
            continue
        base_r, base_c = np.divmod(base, W)
        for target, source in itertools.product(range(n_panels), repeat=2):
            at = tile == target
            i, j = rows[at] - corner[target][0], cols[at] - corner[target][1]
            for e in range(8):
                local = _element(e, i, j, h, w)
                if local is None:
                    continue
                want_r, want_c = local[0] + corner[source][0], local[1] + corner[source][1]
                dr, dc = np.unique((want_r - base_r[at]) % H), np.unique((want_c - base_c[at]) % W)
                if len(dr) == 1 and len(dc) == 1:
                    action = _shift_reading(d, (int(dr[0]), int(dc[0])), shape, at, want_r * W + want_c, shift_bits)
                    if action is not None and action not in found:
                        found.append(action)
    return sorted(found, key=lambda a: (a.shift != (0, 0), a.dihedral != 0))


def _element(e: int, i: np.ndarray, j: np.ndarray, h: int, w: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Where dihedral element e of an h×w panel takes its cell (i, j) from; None where the
    element turns a panel that is not square."""
    turns = [(i, j), (h - 1 - j, i), (h - 1 - i, w - 1 - j), (j, w - 1 - i)]
    flips = [(i, w - 1 - j), (h - 1 - i, j), (j, i), (w - 1 - j, h - 1 - i)]
    if e in (1, 3, 6, 7) and h != w:
        return None
    return (turns + flips)[e]


def _shift_reading(
    d: int, delta: tuple[int, int], shape: tuple[int, int], at: np.ndarray, want: np.ndarray, shift_bits: int
) -> ExactAction | None:
    """Element d with the cyclic shift whose reading moves its source cells by `delta`
    (rows, columns, modulo the grid) on the cells `at`: they read `want`; None when no
    shift of the experts does."""
    H, W = shape
    dr, dc = delta
    near = [(r, c) for r in {dr, dr - H} for c in {dc, dc - W}]
    for r, c in sorted(near, key=lambda rc: abs(rc[0]) + abs(rc[1])):
        for shift in shift_variants((r, c)):
            action = ExactAction(d, shift)
            cells = source_cells(action, shape, shape, shift_bits)
            if cells is not None and np.array_equal(cells[at], want):
                return action
    return None
