"""Two actions in a row: a head's action, then the second layer's on the output lattice
(`composed_sets`): a shift or a dihedral element after a head's action (`turned_last`,
`moved_last`), a placement then moved (`placed_then_moved`), a sampling then up-scaled
(`sampled_then_scaled`); and, where none of these explains the pairs, a head's action
inside a window of the output (`arcsolve.latformer.exact_starts.windows`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet, longer_than_the_data, support, train_cells
from arcsolve.latformer.exact_starts.actions import ExactAction, expressible
from arcsolve.latformer.exact_starts.readings import NOTHING, follow, output_cells, reading, scaled_cells, then_reading
from arcsolve.latformer.exact_starts.single_heads import (
    CellMap,
    axis_strides,
    one_head_actions,
    placements,
    single_actions_of,
    tiles_of,
)
from arcsolve.latformer.exact_starts.windows import windowed_sets
from arcsolve.latformer.experts import SCALE_FACTORS


def output_actions(max_shift: int = 4) -> list[ExactAction]:
    """The second layer's actions tried after a head's: shifts of up to `max_shift` cells on the
    output lattice, cyclic or with fill (the least shifted first), and the dihedral elements."""
    steps = range(-max_shift, max_shift + 1)
    deltas = sorted(
        (s for s in itertools.product(steps, steps) if s != (0, 0)), key=lambda s: (abs(s[0]) + abs(s[1]), s)
    )
    return [ExactAction(0, delta, fill=fill) for delta in deltas for fill in (True, False)] + [
        ExactAction(d) for d in range(1, 8)
    ]


def composed_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    heads: Sequence[ExactAction],
    read: dict[ExactAction, list[np.ndarray]],
    test_read: dict[ExactAction, list[np.ndarray]],
    shift_bits: int = 5,
    most: int = 4,
) -> list[ActionSet]:
    """Two actions in a row: a head's action onto the output lattice (`heads`, their readings
    in `read` and `test_read`), then the second layer's on it (`output_actions`: a shift of
    the result, with fill or cyclic, or a dihedral element of it), kept when every train
    output is a function of the composed reading cell by cell; a sampling followed by an
    up-scaling (`sampled_then_scaled`); a placement followed by the second layer's action
    (`placed_then_moved`); and any one-head action followed by a dihedral element
    (`turned_last`) or a shift (`moved_last`). At most `most` of each kind, the simplest first. Where none of these
    explains the pairs: a head's action inside a window of the output, the rest one colour
    (`windowed_sets`)."""
    thens = output_actions()
    found = _composed(
        pairs, tests, ((t, h) for t in thens for h in heads), read, test_read, len(heads) * len(thens), shift_bits, most
    )
    found = (
        found
        + turned_last(pairs, tests, shift_bits, most)
        + moved_last(pairs, tests, shift_bits, most)
        + placed_then_moved(pairs, tests, shift_bits, most)
        + sampled_then_scaled(pairs, tests, shift_bits, most)
    )
    return found or windowed_sets(pairs, tests, shift_bits)


def turned_last(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
    most: int = 4,
) -> list[ActionSet]:
    """Any one-head action (`single_actions`), then a dihedral element of the output lattice:
    each train output is turned back by the element (a permutation of its cells), and the
    one-head actions that explain the turned-back outputs are kept under it. So a grid
    padded, scaled or tiled and then flipped as a whole is one start, however the padding
    moves it."""
    backs: dict[ExactAction, list[np.ndarray]] = {}  # each element's turned-back outputs
    for d in range(1, 8):
        then = ExactAction(d)
        cells = [output_cells(then, y.shape, shift_bits) for _, y in pairs]
        if any(c is None or len(np.unique(c)) != c.size or (c < 0).any() for c in cells):
            continue  # an element that does not map the output lattice onto itself
        backs[then] = []
        for (_, y), c in zip(pairs, cells, strict=True):
            turned = np.empty(y.size, dtype=y.dtype)
            turned[c] = y.reshape(-1)  # y reads turned at c, so turned holds y's cells there
            backs[then].append(turned.reshape(y.shape))
    # the turned-back outputs keep the pairs' lattices, so one screen serves every element
    found = single_actions_of(pairs, list(backs.values()), shift_bits=shift_bits)
    heads = {then: [h for h in hs if not h.pool] for then, hs in zip(backs, found, strict=True)}
    combos = [(then, h) for then, hs in heads.items() for h in hs]
    if not combos:
        return []
    read = {h: [reading(h, x, y.shape, shift_bits) for x, y in pairs] for _, h in combos}
    test_read = {h: [reading(h, x, shape, shift_bits) for x, shape in tests] for _, h in combos}
    return _composed(pairs, tests, combos, read, test_read, 7 * len(combos), shift_bits, most)


MOVED_SCREEN_CELLS = 300_000  # head readings × smallest output cells screened under later shifts, at most


def moved_last(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
    most: int = 4,
) -> list[ActionSet]:
    """Any one-head action (`one_head_actions`, placements aside: `placed_then_moved` has
    them), then a shift of the output lattice by the second layer, cyclic or with fill
    (`output_actions`): two moves that no one shift writes (a roll, then a shift with fill;
    two fills that clear different edges; a shift by output cells after a scaling). Every
    (head, shift) is screened at once on the smallest pair, as an array of readings, and the
    few that pass are checked on every pair (`_composed`)."""
    order = sorted(range(len(pairs)), key=lambda k: pairs[k][1].size)
    maps: dict[ExactAction, CellMap] = {}
    # shifts alike on the train lattices but not on a test's are two heads: two attempts
    for action, cells in one_head_actions(pairs, shift_bits=shift_bits, placed=False, also=[x.shape for x, _ in tests]):
        maps.setdefault(action, cells)
    # the least moved first, across kinds; as many as the screen's cells allow
    most_heads = max(1, MOVED_SCREEN_CELLS // pairs[order[0]][1].size)
    # (tiled fills last: a shift with fill in each tile, then the whole output shifted, is
    # rare; a sampling wrapped as mirror images, or mirror images sharing edges, rarer still)
    heads = sorted(maps, key=lambda a: (_rarity(a), abs(a.shift[0]) + abs(a.shift[1]), a.dihedral > 0, a.fill))
    heads = heads[:most_heads]
    thens = [t for t in output_actions() if t.dihedral == 0]
    # (then, head) combos still standing, per then: the heads, and the (reading, colour) pairs met
    standing = {t: (np.arange(len(heads)), np.zeros((len(heads), 11, 10), dtype=bool)) for t in thens}
    for step, k in enumerate(order):
        (x, y), colours = pairs[k], pairs[k][1].reshape(-1)
        live = np.unique(np.concatenate([alive for alive, _ in standing.values()])) if standing else []
        block = np.zeros((len(heads), y.size), dtype=np.int64)  # each live head's reading + 1 (0: nothing)
        valid = np.zeros(len(heads), dtype=bool)
        for h in live:
            c = maps[heads[h]](k)
            if c is not None:
                block[h], valid[h] = follow(x, c) + 1, True
        if step == 0:  # heads that read alike here are screened once: their tables are alike so far
            _, first, alike = np.unique(block, axis=0, return_index=True, return_inverse=True)
        for then in list(standing):
            alive, met = standing[then]
            cells = output_cells(then, y.shape, shift_bits)
            if cells is None:
                del standing[then]
                continue
            alive, met = alive[valid[alive]], met[valid[alive]]
            screened = first if step == 0 else alive
            keys = np.where(cells >= 0, block[np.ix_(screened, np.maximum(cells, 0))], 0)  # the shift's reading
            table = np.zeros((len(screened), 11, 10), dtype=bool) if step == 0 else met
            table[np.arange(len(screened))[:, None], keys, colours[None, :]] = True
            keep = (table.sum(2) <= 1).all(1)  # no reading asks for two colours
            if step == 0:
                keep, table = keep[alike.reshape(-1)][alive], table[alike.reshape(-1)][alive]
            if keep.any():
                standing[then] = (alive[keep], table[keep])
            else:
                del standing[then]
    combos = [(then, heads[h]) for then in thens if then in standing for h in standing[then][0]]
    read = _Readings(lambda h: [_scaled_reading(h, x, y.shape, shift_bits) for x, y in pairs])
    test_read = _Readings(lambda h: [_scaled_reading(h, x, shape, shift_bits) for x, shape in tests])
    # a shift with fill may clear most of a small grid (two fills from opposite edges)
    found = _composed(pairs, tests, combos, read, test_read, len(heads) * len(thens), shift_bits, most, blank=0.9)
    return [s for s in found if expressible(s.actions[0], shift_bits)]  # the screen's numpy cells do not check


def _rarity(head: ExactAction) -> int:
    """How rarely a head's action comes before a shift of the whole output: 0 for most, 1 for
    a shift with fill inside each tile, 2 for a sampling that wraps as mirror images or mirror
    images that share their edge cells."""
    if any(head.mirror) and (head.down or head.stride != (1, 1) or any(head.shared)):
        return 2
    return int(head.tiled_fill)


class _Readings(dict):
    """Each head's readings, computed when first asked for."""

    def __init__(self, read: Callable[[ExactAction], list[np.ndarray]]):
        super().__init__()
        self.read = read

    def __missing__(self, head: ExactAction) -> list[np.ndarray]:
        self[head] = self.read(head)
        return self[head]


MAX_PLACED_HEADS = 400  # placements tried under a second layer's action, at most (the least moved first)


def placed_then_moved(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
    most: int = 4,
) -> list[ActionSet]:
    """A placement of the input in a larger output (`placements`: unscaled at any offset,
    scaled at the output's corner), then the second layer's action on the output lattice
    (`output_actions`): a grid set on a canvas, then the canvas flipped or shifted, which
    moves each input by its own amount; a grid up-scaled and padded, then rolled by output
    cells, a part of an up-scaled cell wrapping round to the other side."""
    placed = placements(pairs, shift_bits)
    heads = [a for a in placed if a.scale == (1, 1)][:MAX_PLACED_HEADS]
    heads += [a for a in placed if a.scale != (1, 1) and a.shift == (0, 0)]
    if not heads:
        return []
    read = {h: [_scaled_reading(h, x, y.shape, shift_bits) for x, y in pairs] for h in heads}
    test_read = {h: [_scaled_reading(h, x, shape, shift_bits) for x, shape in tests] for h in heads}
    thens = output_actions()
    combos = ((t, h) for t in thens for h in heads)
    return _composed(pairs, tests, combos, read, test_read, len(heads) * len(thens), shift_bits, most)


def sampled_then_scaled(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
    most: int = 4,
) -> list[ActionSet]:
    """Two scalings in a row: the first layer samples one cell of every f-block (after a
    rotation by 0 or 180 or a flip), the second up-scales the result by g, so output cell i
    reads input cell f·(i // g) + offset (every second cell, then each blown up 4×), wrapping
    cyclically, so the sampled grid may be tiled before it is scaled. Per axis (f, g) with
    output·f = input·g·t on every pair, t the same whole number of tiles on all of them; some
    axis samples and some up-scales. Where an axis is up-scaled, then sampled, then scaled
    again, the first layer's head takes a stride instead (`_strided_then_scaled`)."""
    options = []
    for axis in (0, 1):
        axis_options = [
            (f, g)
            for f in (1, 2, 3, 4)
            for g in SCALE_FACTORS
            if tiles_of(f, g, [(x.shape[axis], y.shape[axis]) for x, y in pairs]) is not None
        ]
        options.append(axis_options)
    combos = []
    for (f_r, g_r), (f_c, g_c) in itertools.product(*options):
        if (f_r, f_c) == (1, 1) or (g_r, g_c) == (1, 1):
            continue  # one scaling alone is a single head's
        then = ExactAction(0, scale=(g_r, g_c))
        for d, r, c in itertools.product(range(4), range(f_r), range(f_c)):  # the elements that keep the axes
            combos.append((then, ExactAction(d, (-r, -c), (f_r, f_c), down=True)))
    combos += _strided_then_scaled(pairs)
    if not combos:
        return []
    heads = dict.fromkeys(h for _, h in combos)
    read = {h: [_scaled_reading(h, x, y.shape, shift_bits) for x, y in pairs] for h in heads}
    test_read = {h: [_scaled_reading(h, x, shape, shift_bits) for x, shape in tests] for h in heads}
    return _composed(pairs, tests, combos, read, test_read, len(combos), shift_bits, most)


def _strided_then_scaled(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[tuple[ExactAction, ExactAction]]:
    """(then, head) for a head that up-scales by p and strides by s per axis, then the second
    layer's up-scaling by g: output cell i reads input cell ⌊⌊i/g⌋·s/p⌋, with
    output·s = input·p·g·t on every pair (t whole, the same on all, at most
    MAX_STRIDE_TILES). Only where some axis is up-scaled, then sampled (p, s > 1), which the
    samplings of `sampled_then_scaled` do not write, and some axis is up-scaled again."""
    options = [axis_strides([(x.shape[axis], y.shape[axis]) for x, y in pairs], SCALE_FACTORS) for axis in (0, 1)]
    combos = []
    for (p_r, s_r, g_r), (p_c, s_c, g_c) in itertools.product(*options):
        if not any(p > 1 and s > 1 for p, s in ((p_r, s_r), (p_c, s_c))) or (g_r, g_c) == (1, 1):
            continue
        then = ExactAction(0, scale=(g_r, g_c))
        # an axis sampled without scaling picks one cell of each block; an up-scaled one is not moved
        rows, cols = (range(s) if p == 1 else range(1) for p, s in ((p_r, s_r), (p_c, s_c)))
        for d, r, c in itertools.product(range(4), rows, cols):
            combos.append((then, ExactAction(d, (-r, -c), (p_r, p_c), stride=(s_r, s_c))))
    return combos


def _composed(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    combos: Iterable[tuple[ExactAction, ExactAction]],
    read: dict[ExactAction, list[np.ndarray]],
    test_read: dict[ExactAction, list[np.ndarray]],
    choices: int,
    shift_bits: int,
    most: int,
    blank: float = 0.5,
) -> list[ActionSet]:
    """The (then, head) `combos` under which every train output is a function of the head's
    reading (`read`) as the second layer's `then` reads it, cell by cell; at most `most`,
    in the combos' order, none that is a table of positions or as long as the data
    (`longer_than_the_data`, among `choices`), none whose `then` reads nothing in more than
    a share `blank` of some pair's cells."""
    outputs, pair_of = train_cells(pairs)
    order = sorted(range(len(pairs)), key=lambda k: pairs[k][1].size)  # the cheapest pair rejects first
    combos = list(combos)
    heads_of: dict[ExactAction, list[ExactAction]] = {}
    for then, head in combos:
        heads_of.setdefault(then, []).append(head)
    passing: dict[ExactAction, set[ExactAction]] = {}  # each then's heads that pass the cheapest pair
    cells_of: dict[ExactAction, list[np.ndarray]] = {}
    for then, heads in heads_of.items():
        cells = [output_cells(then, y.shape, shift_bits) for _, y in pairs]
        if any(c is None or (c == NOTHING).mean() > blank for c in cells):
            continue  # not an action of the experts here, or one that reads nothing in most cells
        cells_of[then] = cells
        passing[then] = _passing(heads, read, order[0], cells[order[0]], pairs[order[0]][1])
    found: list[ActionSet] = []
    for then, head in combos:
        if head not in passing.get(then, ()):
            continue
        cells = cells_of[then]
        seen = np.zeros((11, 10), dtype=bool)  # (reading + 1, output colour) pairs met so far
        for k in order:
            keys = follow(read[head][k], cells[k]) + 1
            seen[keys, pairs[k][1].reshape(-1)] = True
            if (seen.sum(1) > 1).any():
                break
        else:
            composed = np.concatenate([then_reading(then, r, shift_bits).reshape(-1) for r in read[head]])
            entries = len(np.unique(composed))
            if entries == len(composed) or longer_than_the_data(choices, entries, outputs):
                continue  # a table of positions, or chosen among so many that it may be chance
            test_keys = [then_reading(then, r, shift_bits).reshape(-1) + 1 for r in test_read[head]]
            found.append(ActionSet((head,), *support(composed + 1, pair_of, len(pairs), test_keys), then=then))
            if len(found) == most:
                break
    return found


def _passing(
    heads: Sequence[ExactAction], read: dict[ExactAction, list[np.ndarray]], k: int, cells: np.ndarray, y: np.ndarray
) -> set[ExactAction]:
    """The `heads` under which pair k's output `y` is a function of their reading (`read`),
    as a second layer that reads `cells` of the output lattice reads it, cell by cell: all
    the heads at once, in one table of the (reading, colour) pairs each meets."""
    distinct = list(dict.fromkeys(heads))
    block = np.stack([read[h][k].reshape(-1) for h in distinct])  # (heads, output cells)
    keys = np.where(cells >= 0, block[:, np.maximum(cells, 0)], NOTHING) + 1
    met = np.zeros((len(distinct), 11, 10), dtype=bool)
    met[np.arange(len(distinct))[:, None], keys, y.reshape(-1)[None, :]] = True
    return {h for h, ok in zip(distinct, (met.sum(2) <= 1).all(1), strict=True) if ok}


def _scaled_reading(
    action: ExactAction, grid: np.ndarray, out_shape: tuple[int, int], shift_bits: int
) -> np.ndarray:
    """What a head at a scaled `action` reads in each cell of the output lattice (`reading`,
    through the quick numpy cells of `scaled_cells`)."""
    return follow(grid, scaled_cells(action, grid.shape, out_shape, shift_bits)).reshape(out_shape)
