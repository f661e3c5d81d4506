"""Chains of lattice actions, one axis at a time (`chain_sets`): a dihedral element, then up
to MAX_AXIS_STEPS actions on the rows and as many on the columns, each a lattice action of
its own (a shift, cyclic or with fill, an up- or down-scaling, a tiling, a mirror tiling, a
padding or a crop), each onto a lattice of its own size.

Rows and columns move independently under such actions, and a rotation or reflection met
anywhere in a chain can be moved to its front (it turns the later actions into others of
the same kinds), so a chain of any length is a dihedral element and two sequences of
one-axis actions. Each sequence is a map from output index to input index (or none, where
a fill or a padding reads nothing); the search enumerates those maps breadth first on the
train inputs' sides, fewest actions first, keeping one sequence per map, and checks pairs
of them against the train outputs. A chain found becomes one head (the dihedral element)
and a stage per step (`Chain`, `LatFormerConfig.chain`): each stage's gates write one exact
action, and the head's mask is carried through all of them."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet, support, train_cells
from arcsolve.latformer.exact_starts.actions import ExactAction, expressible
from arcsolve.latformer.exact_starts.readings import NOTHING, follow, source_cells
from arcsolve.latformer.model import Chain
from arcsolve.symmetry import apply_dihedral
from arcsolve.tasks import MAX_SIDE

MAX_AXIS_STEPS = 4  # actions on one axis, at most
MAX_STATES = 4000  # maps of one axis kept per number of actions, at most
MAX_CHECKS = 4_000  # pairs of a rows' and a columns' chain checked per dihedral element, at most
SHIFTS = (-3, -2, -1, 1, 2, 3)
FACTORS = (2, 3)
MARGINS = [(a, b) for a in range(3) for b in range(3) if (a, b) != (0, 0)]


@dataclass(frozen=True)
class AxisStep:
    """One lattice action on one axis: `kind` with its amount `a` (and `b`, the far margin of
    a padding or a crop)."""

    kind: str  # wrap, fill, up, down, tile, mirror, pad, crop
    a: int
    b: int = 0

    def lattice(self) -> tuple[int, int, int]:
        """(p, q, c): the side after the step is n·p // q + c."""
        if self.kind in ("up", "tile", "mirror"):
            return (self.a, 1, 0)
        if self.kind == "down":
            return (1, self.a, 0)
        if self.kind == "pad":
            return (1, 1, self.a + self.b)
        if self.kind == "crop":
            return (1, 1, -self.a - self.b)
        return (1, 1, 0)

    def side(self, n: int) -> int | None:
        """The side after the step from n cells, or None where it does not apply (a
        down-scaling that does not divide n, a crop that leaves no cell)."""
        if self.kind == "down" and n % self.a:
            return None
        p, q, c = self.lattice()
        side = n * p // q + c
        return side if 1 <= side <= MAX_SIDE else None

    def apply(self, maps: np.ndarray) -> np.ndarray:
        """(states, n) maps from each cell of the lattice before the step to an input index
        (NOTHING for none) → the maps from each cell after it."""
        k = self.a
        if self.kind == "wrap":
            return np.roll(maps, k, axis=1)
        if self.kind == "fill":
            moved = np.full_like(maps, NOTHING)
            n = maps.shape[1]
            if abs(k) >= n:
                return moved
            if k > 0:
                moved[:, k:] = maps[:, : n - k]
            else:
                moved[:, : n + k] = maps[:, -k:]
            return moved
        if self.kind == "pad":
            padded = np.full((maps.shape[0], maps.shape[1] + k + self.b), NOTHING, dtype=maps.dtype)
            padded[:, k : k + maps.shape[1]] = maps
            return padded
        if self.kind == "up":
            return np.repeat(maps, k, axis=1)
        if self.kind == "down":
            return maps[:, ::k]
        if self.kind == "tile":
            return np.tile(maps, (1, k))
        if self.kind == "mirror":
            return np.concatenate([maps if i % 2 == 0 else maps[:, ::-1] for i in range(k)], axis=1)
        return maps[:, k : maps.shape[1] - self.b]  # crop

    def action(self, axis: int) -> ExactAction:
        """The exact action of a stage that takes this step on `axis` (0 rows, 1 columns)."""

        def on(value: int, rest: int = 0) -> tuple[int, int]:
            return (value, rest) if axis == 0 else (rest, value)

        if self.kind == "wrap":
            return ExactAction(shift=on(self.a))
        if self.kind in ("fill", "pad"):
            return ExactAction(shift=on(self.a), fill=True)
        if self.kind == "crop":
            return ExactAction(shift=on(-self.a), fill=True)
        if self.kind == "up":
            return ExactAction(scale=on(self.a, 1))
        if self.kind == "down":
            return ExactAction(scale=on(self.a, 1), down=True)
        if self.kind == "mirror":
            return ExactAction(mirror=on(True, False))
        return ExactAction()  # a tiling: the identity, wrapped cyclically onto a longer lattice


STEPS = (
    [AxisStep("wrap", k) for k in SHIFTS]
    + [AxisStep("fill", k) for k in SHIFTS]
    + [AxisStep(kind, f) for kind in ("up", "down", "tile", "mirror") for f in FACTORS]
    + [AxisStep(kind, a, b) for kind in ("pad", "crop") for a, b in MARGINS]
)


@cache
def _reachable(target: int, steps: int) -> list[set[int]]:
    """For r = 0…steps: the sides from which `target` is reached in at most r steps."""
    found = [{target}]
    for _ in range(steps):
        last = found[-1]
        found.append(last | {n for n in range(1, MAX_SIDE + 1) for s in STEPS if s.side(n) in last})
    return found


Found = tuple[tuple[AxisStep, ...], list[np.ndarray]]


@lru_cache(maxsize=64)
def axis_chains(sides: tuple[int, ...], targets: tuple[int, ...], most: int = MAX_AXIS_STEPS) -> list[Found]:
    """The sequences of at most `most` one-axis steps that take each train input's side in
    `sides` to its output's in `targets`, fewest steps first, one per map: (steps, the map
    of each train input's side)."""
    reach = [_reachable(t, most) for t in targets]
    level = {sides: ([()], [np.arange(n)[None] for n in sides])}  # sides → (sequences, maps per side)
    seen: dict[tuple[int, ...], set[bytes]] = {sides: {b"".join(np.arange(n).tobytes() for n in sides)}}
    found: list[Found] = []
    for depth in range(most + 1):
        for lengths, (sequences, maps) in level.items():
            if lengths == targets:
                found += [(seq, [m[i] for m in maps]) for i, seq in enumerate(sequences)]
        if depth == most:
            break
        grown: dict[tuple[int, ...], tuple[list, list[list[np.ndarray]]]] = {}
        for lengths, (sequences, maps) in level.items():
            for step in STEPS:
                after = tuple(step.side(n) for n in lengths)
                if None in after or any(a not in r[most - depth - 1] for a, r in zip(after, reach, strict=True)):
                    continue
                moved = [step.apply(m) for m in maps]
                keys = np.ascontiguousarray(np.concatenate(moved, axis=1))
                _, first = np.unique(keys.view(np.dtype((np.void, keys.itemsize * keys.shape[1]))), return_index=True)
                known = seen.setdefault(after, set())
                into = grown.setdefault(after, ([], [[] for _ in sides]))
                for i in sorted(first.tolist()):
                    key = keys[i].tobytes()
                    if key in known:
                        continue
                    known.add(key)
                    into[0].append((*sequences[i], step))
                    for side, m in enumerate(moved):
                        into[1][side].append(m[i])
        level = {
            lengths: (sequences[:MAX_STATES], [np.stack(r[:MAX_STATES]) for r in rows])
            for lengths, (sequences, rows) in grown.items()
            if sequences
        }
    return found


def _colour_sets(grid: np.ndarray, axis: int, fill: int) -> np.ndarray:
    """A bit mask of the colours along each line of `grid` across `axis` (per row for axis
    0), with one more line for NOTHING: the fill colour alone. Every line may show the fill
    colour too, where the other axis reads nothing."""
    lines = grid if axis == 0 else grid.T
    bits = np.bitwise_or.reduce(1 << lines.astype(np.int64), axis=1)
    return np.append(bits, 0) | (1 << fill)


def _feasible(maps: np.ndarray, inputs: np.ndarray, outputs: np.ndarray) -> np.ndarray:
    """Which maps (states, n_out) send every output line to an input line (or NOTHING: the
    last entry of `inputs`) that holds every colour the output line holds."""
    return ((outputs[None, :] & ~inputs[maps]) == 0).all(1)


def chain_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    fill: int = 0,
    most: int = 2,
) -> list[ActionSet]:
    """The chains (a dihedral element, then one-axis steps) that give every train output
    exactly, each cell the input cell its maps pick or `fill` where they pick none: the
    fewest stages first (a row's step and a column's that one exact action takes count once),
    at most `most`, one per dihedral element."""
    found = []
    for element in range(8):
        turned = [apply_dihedral(x, element) for x, _ in pairs]
        rows = axis_chains(tuple(x.shape[0] for x in turned), tuple(y.shape[0] for _, y in pairs))
        cols = axis_chains(tuple(x.shape[1] for x in turned), tuple(y.shape[1] for _, y in pairs))
        rows, cols = _consistent(rows, turned, pairs, 0, fill), _consistent(cols, turned, pairs, 1, fill)
        best = _best_pair(rows, cols, turned, pairs, fill)
        if best is None or best[0] == 0:  # no chain, or none but the dihedral element: one head
            continue
        start = _chain_set(element, best[1], best[2], pairs, tests)
        if start is not None:
            found.append((best[0] + (element != 0), start))
    return [s for _, s in sorted(found, key=lambda f: f[0])[:most]]


def _best_pair(
    rows: list[Found],
    cols: list[Found],
    turned: Sequence[np.ndarray],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    fill: int,
) -> tuple[int, tuple, tuple] | None:
    """The pair of a rows' chain and a columns' chain that gives every train output in the
    fewest stages (`_aligned`), fewer steps in all breaking ties: (stages, rows' steps,
    columns' steps), or None (also after MAX_CHECKS pairs tried)."""
    by_rows: dict[int, list[Found]] = {}
    by_cols: dict[int, list[Found]] = {}
    for chain in rows:
        by_rows.setdefault(len(chain[0]), []).append(chain)
    for chain in cols:
        by_cols.setdefault(len(chain[0]), []).append(chain)
    checks, best = 0, None
    for total in range(2 * MAX_AXIS_STEPS + 1):
        if best is not None and (total + 1) // 2 > best[0]:
            break  # a pair of more steps takes at least half as many stages
        for n_rows in range(total + 1):
            for (r_steps, r_maps), (c_steps, c_maps) in itertools.product(
                by_rows.get(n_rows, []), by_cols.get(total - n_rows, [])
            ):
                if best is not None and max(n_rows, total - n_rows) >= best[0]:
                    continue  # a stage takes at most one step of each axis
                checks += 1
                if checks > MAX_CHECKS:
                    return best
                if all(
                    np.array_equal(_read(x, r_maps[p], c_maps[p], fill), y)
                    for p, (x, (_, y)) in enumerate(zip(turned, pairs, strict=True))
                ):
                    stages = len(_aligned(r_steps, c_steps))
                    if best is None or stages < best[0]:
                        best = (stages, r_steps, c_steps)
    return best


@lru_cache(maxsize=4096)
def _aligned(
    rows: tuple[AxisStep, ...], cols: tuple[AxisStep, ...]
) -> tuple[tuple[AxisStep | None, AxisStep | None], ...]:
    """The stages of a chain: its rows' and columns' steps in order, a row's step and a
    column's in one stage where one exact action takes both (`_merged`), as few stages as
    can be."""
    if not rows or not cols:
        return tuple((r, None) for r in rows) + tuple((None, c) for c in cols)
    options = [((rows[0], None),) + _aligned(rows[1:], cols), ((None, cols[0]),) + _aligned(rows, cols[1:])]
    if _merged(rows[0], cols[0]) is not None:
        options.append(((rows[0], cols[0]),) + _aligned(rows[1:], cols[1:]))
    return min(options, key=len)


def _consistent(
    chains: list[Found],
    turned: Sequence[np.ndarray],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    axis: int,
    fill: int,
) -> list[Found]:
    """The chains of one axis whose maps send every output line to an input line that holds
    its colours, on every train pair."""
    kept = chains
    for p, (x, (_, y)) in enumerate(zip(turned, pairs, strict=True)):
        inputs = _colour_sets(x, axis, fill)
        outputs = np.bitwise_or.reduce(1 << (y if axis == 0 else y.T).astype(np.int64), axis=1)
        if not kept:
            break
        maps = np.stack([m[p] for _, m in kept])
        ok = _feasible(np.where(maps < 0, len(inputs) - 1, maps), inputs, outputs)
        kept = [c for c, good in zip(kept, ok, strict=True) if good]
    return kept


def _read(x: np.ndarray, rows: np.ndarray, cols: np.ndarray, fill: int) -> np.ndarray:
    """The grid each of whose cells reads x at its row's and column's maps (`fill` where
    either reads nothing)."""
    got = x[np.maximum(rows, 0)][:, np.maximum(cols, 0)]
    return np.where((rows[:, None] >= 0) & (cols[None, :] >= 0), got, fill)


def _chain_set(
    element: int,
    rows: tuple[AxisStep, ...],
    cols: tuple[AxisStep, ...],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
) -> ActionSet | None:
    """The set of a chain: one head at the dihedral element and a stage per step (a row's
    step and a column's in one stage where one exact action takes both), with its
    unexplained cells counted; None where a stage's action is not one the experts write."""
    stages, lattices = [], []
    for r, c in _aligned(tuple(rows), tuple(cols)):
        action = _merged(r, c)
        if action is None or not expressible(action):
            return None
        stages.append(action)
        lattices.append((*(r or AxisStep("wrap", 0)).lattice(), *(c or AxisStep("wrap", 0)).lattice()))
    chain = Chain(element >= 4, tuple(lattices))
    start = ActionSet((ExactAction(dihedral=element),), 0, 0, chain=chain, steps=tuple(stages))
    keys = np.concatenate([chain_reading(start, x, y.shape).reshape(-1) for x, y in pairs]) + 1
    test_keys = []
    for x, shape in tests:
        read = chain_reading(start, x, shape)
        if read is None:
            return None  # the chain gives the test another size than its rule
        test_keys.append(read.reshape(-1) + 1)
    _, pair_of = train_cells(pairs)
    unsupported, unseen = support(keys, pair_of, len(pairs), test_keys)
    return ActionSet(start.actions, unsupported, unseen, chain=chain, steps=start.steps)


@lru_cache(maxsize=4096)
def _merged(r: AxisStep | None, c: AxisStep | None) -> ExactAction | None:
    """One exact action that takes a row's step and a column's at once (either may be None:
    no step on that axis), where there is one."""
    if r is None or c is None:
        return None if r is c else r.action(0) if c is None else c.action(1)
    a, b = r.action(0), c.action(1)
    if a.fill != b.fill or a.down != b.down:
        return None
    merged = ExactAction(
        shift=(a.shift[0], b.shift[1]),
        scale=(a.scale[0], b.scale[1]),
        fill=a.fill,
        down=a.down,
        mirror=(a.mirror[0], b.mirror[1]),
    )
    return merged if expressible(merged) else None


def chain_reading(start: ActionSet, grid: np.ndarray, out_shape: tuple[int, int]) -> np.ndarray | None:
    """What the head of a chain set reads in each output cell, through every stage: the
    input colour, or NOTHING; None where the chain does not end on `out_shape`."""
    shapes = start.chain.shapes(tuple(grid.shape))
    if shapes[-1] != tuple(out_shape):
        return None
    cells = source_cells(start.actions[0], tuple(grid.shape), shapes[0])
    for action, before, after in zip(start.steps, shapes[:-1], shapes[1:], strict=True):
        cells = follow(cells, source_cells(action, before, after))
    return follow(grid, cells).reshape(out_shape)
