"""Chains of lattice actions, one axis at a time (`chain_sets`): a dihedral element, then up
to MAX_AXIS_STEPS actions on the rows and as many on the columns, each a lattice action of
its own (a shift, cyclic or with fill, an up- or down-scaling, a tiling, a mirror tiling, a
padding, a crop, or a gap: lines that read nothing between blocks of lines that do), each
onto a lattice of its own size.

Rows and columns move independently under such actions, and a rotation or reflection met
anywhere in a chain can be moved to its front (it turns the later actions into others of
the same kinds), so a chain of any length is a dihedral element and two sequences of
one-axis actions. Each sequence is a map from output index to input index (or none, where
a fill or a padding reads nothing); the search enumerates those maps breadth first on the
train inputs' sides, fewest actions first, keeping one sequence per map (and the other
orders of as many steps that give it, which may share more stages with the other axis), and
checks pairs of them against the train outputs. A chain found becomes one head (the
dihedral element) and a stage per step (`Chain`, `LatFormerConfig.chain`): each stage's
gates write one exact action, and the head's mask is carried through all of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import NamedTuple

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet, support, train_cells
from arcsolve.latformer.exact_starts.actions import ExactAction, expressible
from arcsolve.latformer.exact_starts.readings import NOTHING, follow, source_cells
from arcsolve.latformer.model import Chain, LatticeMismatch, chain_shapes, gap_lines
from arcsolve.symmetry import apply_dihedral
from arcsolve.tasks import MAX_SIDE

MAX_AXIS_STEPS = 4  # actions on one axis, at most
MAX_LATTICE = 2 * MAX_SIDE  # cells a side of a lattice on the way, at most: a tiling may be cropped
MAX_STATES = 16_000  # maps of one axis kept per number of actions, at most
MAX_ORDERS = 4  # sequences of one map and as many steps kept, at most
MAX_CHECKS = 4_000  # pairs of a rows' and a columns' chain checked per dihedral element, at most
MAX_RECOLOURED = 3  # actions (its dihedral element one) of a chain that recolours through a table, at most
SHIFTS = (-3, -2, -1, 1, 2, 3)
FACTORS = (2, 3)
MARGINS = [(a, b) for a in range(3) for b in range(3) if (a, b) != (0, 0)]
GAP_PERIODS = (2, 3, 4)  # a gap leaves unread the last lines of every 2, 3 or 4


@dataclass(frozen=True)
class AxisStep:
    """One lattice action on one axis: `kind` with its amount `a` (and `b`, the far margin of
    a padding or a crop)."""

    kind: str  # wrap, fill, up, down, tile, mirror, pad, crop, gap, middle
    a: int
    b: int = 0

    def reads(self, n: int) -> np.ndarray:
        """Which of the n cells after the step read a cell before it: all but a gap's, which
        of every `a` cells reads the first `b`."""
        return gap_lines(n, self.a, self.b) if self.kind == "gap" else np.ones(n, dtype=bool)

    def lattice(self) -> tuple[int, int, int]:
        """(p, q, c): the side after the step is n·p // q + c."""
        if self.kind in ("up", "tile", "mirror"):
            return (self.a, 1, 0)
        if self.kind in ("down", "middle"):
            return (1, self.a, 0)
        if self.kind == "pad":
            return (1, 1, self.a + self.b)
        if self.kind == "crop":
            return (1, 1, -self.a - self.b)
        return (1, 1, 0)

    def side(self, n: int) -> int | None:
        """The side after the step from n cells, or None where it does not apply (a
        down-scaling that does not divide n, a crop that leaves no cell)."""
        if self.kind in ("down", "middle") and n % self.a:
            return None
        p, q, c = self.lattice()
        side = n * p // q + c
        return side if 1 <= side <= MAX_LATTICE else None

    def apply(self, maps: np.ndarray) -> np.ndarray:
        """(states, n) maps from each cell of the lattice before the step to an input index
        (NOTHING for none) → the maps from each cell after it."""
        k = self.a
        if self.kind == "gap":
            return np.where(self.reads(maps.shape[1])[None], maps, NOTHING)
        if self.kind == "middle":  # the middle 1/a of the lattice, from ⌊(n − n/a)/2⌋ on
            n = maps.shape[1]
            start = (n - n // k) // 2
            return maps[:, start : start + n // k]
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
        if self.kind == "middle":
            return ExactAction(centre=on(True, False))
        # a tiling: the identity, wrapped cyclically onto a longer lattice; a gap: the identity,
        # its unread lines the chain's own (`Chain.gaps`)
        return ExactAction()


STEPS = (
    [AxisStep("wrap", k) for k in SHIFTS]
    + [AxisStep("fill", k) for k in SHIFTS]
    + [AxisStep(kind, f) for kind in ("up", "down", "tile", "mirror") for f in FACTORS]
    + [AxisStep(kind, a, b) for kind in ("pad", "crop") for a, b in MARGINS]
)
# gaps, searched only where no chain of STEPS is found (`chain_sets`), right after an up-scaling
GAPS = [AxisStep("gap", a, b) for a in GAP_PERIODS for b in range(1, a)]
# the middle half of a tiling by 2 or a mirror tiling by 2 (the grid rolled by half its side,
# or its halves swapped and flipped), searched only where no other chain is found and the
# outputs' halves or quadrants hold what the inputs' do (`_parts_moved`), right after one
HALVES = [AxisStep("middle", 2)]


@cache
def _reachable(target: int, steps: int) -> list[set[int]]:
    """For r = 0…steps: the sides from which `target` is reached in at most r steps."""
    found = [{target}]
    for _ in range(steps):
        last = found[-1]
        found.append(last | {n for n in range(1, MAX_LATTICE + 1) for s in STEPS if s.side(n) in last})
    return found


class Chains(NamedTuple):
    """Sequences of one-axis steps and their maps: `maps[p]` is a (sequences, n) array, each
    row the input index (or NOTHING) that each of n cells reads on train input p. `orders[i]`
    holds the sequences of as many steps that give the map of `steps[i]`, itself first: the
    same steps in another order (a padding before a sampling or after it) may share more
    stages with the other axis's steps."""

    steps: list[tuple[AxisStep, ...]]
    maps: list[np.ndarray]
    orders: list[tuple[tuple[AxisStep, ...], ...]]

    def kept(self, which: np.ndarray) -> Chains:
        """The sequences `which` (a boolean mask or indices) picks, in order."""
        index = np.flatnonzero(which) if which.dtype == bool else which
        return Chains([self.steps[i] for i in index], [m[index] for m in self.maps], [self.orders[i] for i in index])


@lru_cache(maxsize=64)
def axis_chains(
    sides: tuple[int, ...],
    targets: tuple[int, ...],
    most: int = MAX_AXIS_STEPS,
    gaps: bool = False,
    halves: bool = False,
) -> Chains:
    """The sequences of at most `most` one-axis steps (of STEPS, with `gaps` of GAPS too, each
    right after an up-scaling, and with `halves` of HALVES, each right after a tiling or a
    mirror tiling by 2) that take each train input's side in `sides` to its output's in
    `targets`, fewest steps first, one per map, with the map of each train input's side and
    up to MAX_ORDERS orders of as many steps that give the map. Lattices on the way may be
    larger than a grid (up to MAX_LATTICE a side): a tiling may be cropped back."""
    extra = (*(GAPS if gaps else ()), *(HALVES if halves else ()))
    reach = [_reachable(t, most) for t in targets]
    level = {sides: Chains([()], [np.arange(n)[None] for n in sides], [((),)])}
    # each map met: the depth it was first met at and its place among that depth's sequences
    seen: dict[tuple[int, ...], dict[bytes, tuple[int, int]]] = {
        sides: {b"".join(np.arange(n).tobytes() for n in sides): (0, 0)}
    }
    found = Chains([], [np.empty((0, t), dtype=np.int64) for t in targets], [])
    for depth in range(most + 1):
        if targets in level:
            found = Chains(
                found.steps + level[targets].steps,
                [np.concatenate([f, m]) for f, m in zip(found.maps, level[targets].maps, strict=True)],
                found.orders + level[targets].orders,
            )
        if depth == most:
            break
        grown: dict[tuple[int, ...], tuple[list, list[list[np.ndarray]], list[list]]] = {}
        for lengths, (sequences, maps, orders) in level.items():
            after_up = np.array([bool(seq) and seq[-1].kind == "up" for seq in sequences])
            after_tiling = (  # where a middle half may follow: only looked at when halves are searched
                np.array([bool(s) and s[-1].kind in ("tile", "mirror") and s[-1].a == 2 for s in sequences])
                if halves
                else None
            )
            for step in (*STEPS, *extra):
                after = tuple(step.side(n) for n in lengths)
                if None in after or any(a not in r[most - depth - 1] for a, r in zip(after, reach, strict=True)):
                    continue
                source = np.arange(len(sequences))
                if step.kind in ("gap", "middle"):  # right after an up-scaling, or a tiling by 2
                    source = np.flatnonzero(after_up if step.kind == "gap" else after_tiling)
                    if not len(source):
                        continue
                moved = [step.apply(m[source]) for m in maps]
                keys = np.ascontiguousarray(np.concatenate(moved, axis=1))
                _, first = np.unique(keys.view(np.dtype((np.void, keys.itemsize * keys.shape[1]))), return_index=True)
                known = seen.setdefault(after, {})
                into = grown.setdefault(after, ([], [[] for _ in sides], []))
                new = []
                for i in sorted(first.tolist()):
                    key = keys[i].tobytes()
                    if key not in known:
                        known[key] = (depth + 1, len(into[0]) + len(new))
                        new.append(i)
                        into[2].append(_extended(orders[source[i]], step))
                    elif known[key][0] == depth + 1 and len(into[2][known[key][1]]) < MAX_ORDERS:
                        place = known[key][1]  # the same map in as many steps: another order
                        into[2][place] = (into[2][place] + _extended(orders[source[i]], step))[:MAX_ORDERS]
                into[0].extend((*sequences[source[i]], step) for i in new)
                for side, m in enumerate(moved):
                    into[1][side].append(m[new])
        level = {
            lengths: Chains(
                sequences[:MAX_STATES], [np.concatenate(blocks)[:MAX_STATES] for blocks in rows], ordered[:MAX_STATES]
            )
            for lengths, (sequences, rows, ordered) in grown.items()
            if sequences
        }
    return found


def _extended(orders: tuple[tuple[AxisStep, ...], ...], step: AxisStep) -> tuple[tuple[AxisStep, ...], ...]:
    """The orders of a sequence, each followed by `step`; a gap or a middle half only after
    the step the first order ends with (an up-scaling, a tiling by 2), as it needs."""
    if step.kind in ("gap", "middle"):
        orders = tuple(o for o in orders if o[-1:] == orders[0][-1:])
    return tuple((*o, step) for o in orders)


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
    exactly, each cell the input cell its maps pick or, where they pick none, `fill` or
    failing that another colour that fills a whole line of some train output (a separator,
    a frame: `line_colours`); failing those, the chains whose cells give the outputs through
    one colour table (a swap or a recolouring of what they read), of at most
    MAX_RECOLOURED actions (the dihedral element one of them): a table is more to learn, so
    its chain must be short; failing those too, where the train outputs have lines of one
    colour at a period (`_periodic_lines`), the chains with gaps (lines of an up-scaled
    lattice that read nothing: grid lines between blocks, one cell kept of each block) that
    copy the outputs; failing those, where the outputs' halves or quadrants hold what the
    inputs' do (`_parts_moved`), the chains that take the middle half of a tiling by 2 (a
    roll by half the side, halves swapped and flipped) and copy the outputs. The fewest
    stages first (a row's step and a column's that one exact action takes count once), at
    most `most`, one per dihedral element."""
    fills = (fill, *(c for c in line_colours(pairs) if c != fill))
    for colour in fills:
        found = _chain_sets(pairs, tests, colour, most)
        if found:
            return found
    found = _chain_sets(pairs, tests, None, most)
    if found:
        return found
    if _periodic_lines(pairs):
        for colour in fills:
            found = _chain_sets(pairs, tests, colour, most, gaps=True)
            if found:
                return found
    if _parts_moved(pairs):
        for colour in fills:
            found = _chain_sets(pairs, tests, colour, most, halves=True)
            if found:
                return found
    return []


def line_colours(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[int]:
    """The colours that fill a whole row or column of some train output, the most such
    lines first: where a chain reads nothing, a whole line reads nothing."""
    lines: dict[int, int] = {}
    for _, y in pairs:
        for line in (*y, *y.T):
            if (line == line[0]).all():
                lines[int(line[0])] = lines.get(int(line[0]), 0) + 1
    return sorted(lines, key=lambda c: (-lines[c], c))


def _periodic_lines(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> bool:
    """Do the train outputs show what a gap writes: on one axis, for a period p of
    GAP_PERIODS and a phase r, every line i ≡ r (mod p) of every output holds one colour?"""
    for axis in (0, 1):
        uniform = [((y == (y[:, :1] if axis == 0 else y[:1, :])).all(1 - axis)) for _, y in pairs]
        for p in GAP_PERIODS:
            for r in range(p):
                if all(len(u) > r and u[r::p].all() for u in uniform):
                    return True
    return False


def _parts_moved(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> bool:
    """Do the train outputs show what a middle half of a tiling writes: every output of its
    input's shape, some output not its input, and, cut alike into halves (of the rows or the
    columns, every side even) or quadrants, each part of every output holding as many cells
    of each colour as some part of its input?"""
    if any(x.shape != y.shape for x, y in pairs) or all(np.array_equal(x, y) for x, y in pairs):
        return False
    for cuts in ((2, 1), (1, 2), (2, 2)):
        if all(_parts_match(x, y, cuts) for x, y in pairs):
            return True
    return False


def _parts_match(x: np.ndarray, y: np.ndarray, cuts: tuple[int, int]) -> bool:
    """`_parts_moved` for one pair and one cut (parts per axis)."""
    (h, w), (a, b) = x.shape, cuts
    if h % a or w % b:
        return False

    def counts(grid: np.ndarray) -> list[bytes]:
        parts = grid.reshape(a, h // a, b, w // b).swapaxes(1, 2).reshape(a * b, -1)
        return [np.bincount(p, minlength=10).tobytes() for p in parts]

    held = set(counts(x))
    return all(c in held for c in counts(y))


def _chain_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    fill: int | None,
    most: int,
    gaps: bool = False,
    halves: bool = False,
) -> list[ActionSet]:
    """`chain_sets` with the one colour `fill` where the maps pick no cell, or with None:
    through a colour table; with `gaps`, of steps with gaps too, with `halves` of the middle
    halves of tilings too."""
    found = []
    for element in range(8):
        turned = [apply_dihedral(x, element) for x, _ in pairs]
        sides = [(tuple(x.shape[k] for x in turned), tuple(y.shape[k] for _, y in pairs)) for k in (0, 1)]
        rows, cols = (axis_chains(*s, gaps=gaps, halves=halves) for s in sides)
        if fill is None:
            rows, cols = _recolourable(rows, turned, pairs, 0), _recolourable(cols, turned, pairs, 1)
        else:
            rows, cols = _consistent(rows, turned, pairs, 0, fill), _consistent(cols, turned, pairs, 1, fill)
        most_stages = MAX_RECOLOURED - (element != 0) if fill is None else None
        best = _best_pair(rows, cols, turned, pairs, fill, most_stages)
        if best is None or best[0] == 0:  # no chain, or none but the dihedral element: one head
            continue
        if most_stages is not None and best[0] > most_stages:
            continue
        start = _chain_set(element, best[1], best[2], pairs, tests, recoloured=fill is None)
        if start is not None:
            found.append((best[0] + (element != 0), start))
    return [s for _, s in sorted(found, key=lambda f: f[0])[:most]]


def _best_pair(
    rows: Chains,
    cols: Chains,
    turned: Sequence[np.ndarray],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    fill: int | None,
    most: int | None = None,
) -> tuple[int, tuple, tuple] | None:
    """The pair of a rows' chain and a columns' chain that gives every train output in the
    fewest stages (`_aligned`), fewer steps in all breaking ties, with `fill` where they
    read nothing (None: through one colour table): (stages, rows' steps, columns' steps), or
    None (also after MAX_CHECKS pairs tried). With `most`, pairs that take more stages are
    not tried."""
    by_rows, by_cols = _by_length(rows), _by_length(cols)
    checks, best = 0, None
    for total in range(2 * MAX_AXIS_STEPS + 1):
        if best is not None and (total + 1) // 2 > best[0] or most is not None and (total + 1) // 2 > most:
            break  # a pair of more steps takes at least half as many stages
        for n_rows in range(total + 1):
            if n_rows not in by_rows or total - n_rows not in by_cols:
                continue
            (r_steps, r_maps, r_orders), (c_steps, c_maps, c_orders) = by_rows[n_rows], by_cols[total - n_rows]
            widest = max(n_rows, total - n_rows)  # a stage takes at most one step of each axis
            if best is not None and widest >= best[0]:
                continue
            # every pair of the two chains, rows' chain first, as far as MAX_CHECKS lets
            count = min(len(r_steps) * len(c_steps), MAX_CHECKS - checks)
            which = np.arange(count)
            r_of, c_of = which // len(c_steps), which % len(c_steps)
            good = _gives(turned, pairs, [m[r_of] for m in r_maps], [m[c_of] for m in c_maps], fill)
            for k in range(count):
                if best is not None and widest >= best[0]:
                    break
                checks += 1
                if good[k]:
                    stages, r, c = min(  # the orders that share the most stages, the first on a tie
                        ((len(_aligned(r, c)), r, c) for r in r_orders[r_of[k]] for c in c_orders[c_of[k]]),
                        key=lambda option: option[0],
                    )
                    if best is None or stages < best[0]:
                        best = (stages, r, c)
            else:
                if count < len(r_steps) * len(c_steps):
                    return best  # MAX_CHECKS reached
    return best


def _by_length(chains: Chains) -> dict[int, Chains]:
    """The chains of one axis by their number of steps."""
    lengths = np.array([len(steps) for steps in chains.steps], dtype=np.int64)
    return {int(n): chains.kept(np.flatnonzero(lengths == n)) for n in np.unique(lengths)}


def _gives(
    turned: Sequence[np.ndarray],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    rows: Sequence[np.ndarray],
    cols: Sequence[np.ndarray],
    fill: int | None,
) -> np.ndarray:
    """For pairs of a rows' chain and a columns' chain (their maps on each train input, one
    (pairs, n) array per input): does the pair give every train output, each cell the input
    cell its maps pick or `fill` where they pick none (None: through one colour table,
    NOTHING one of its keys)?"""
    alive = np.arange(len(rows[0]))
    if fill is None:  # per pair: the colours each key of the table gave
        seen = np.zeros((len(alive), 11, 10), dtype=bool)
    for p, (x, (_, y)) in enumerate(zip(turned, pairs, strict=True)):
        if not len(alive):
            break
        h, w = x.shape
        edged = np.full((h + 1, w + 1), NOTHING)  # a last row and column that read nothing
        edged[:h, :w] = x
        r, c = np.where(rows[p][alive] < 0, h, rows[p][alive]), np.where(cols[p][alive] < 0, w, cols[p][alive])
        read = edged[r[:, :, None], c[:, None, :]].reshape(len(alive), -1)  # (pairs, output cells)
        if fill is not None:
            good = (np.where(read < 0, fill, read) == y.reshape(-1)).all(1)
        else:
            index = (np.arange(len(alive))[:, None] * 11 + read + 1) * 10 + y.reshape(-1)[None]
            shown = np.bincount(index.reshape(-1), minlength=len(alive) * 110).reshape(len(alive), 11, 10) > 0
            seen[alive] |= shown
            good = (seen[alive].sum(2) <= 1).all(1)
        alive = alive[good]
    found = np.zeros(len(rows[0]), dtype=bool)
    found[alive] = True
    return found


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
    chains: Chains,
    turned: Sequence[np.ndarray],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    axis: int,
    fill: int,
) -> Chains:
    """The chains of one axis whose maps send every output line to an input line that holds
    its colours, on every train pair."""
    ok = np.ones(len(chains.steps), dtype=bool)
    for p, (x, (_, y)) in enumerate(zip(turned, pairs, strict=True)):
        inputs = _colour_sets(x, axis, fill)
        outputs = np.bitwise_or.reduce(1 << (y if axis == 0 else y.T).astype(np.int64), axis=1)
        maps = chains.maps[p]
        ok &= _feasible(np.where(maps < 0, len(inputs) - 1, maps), inputs, outputs)
    return chains.kept(ok)


def _recolourable(
    chains: Chains, turned: Sequence[np.ndarray], pairs: Sequence[tuple[np.ndarray, np.ndarray]], axis: int
) -> Chains:
    """The chains of one axis that one colour table may turn into the outputs: on every
    train pair, output lines that read equal input lines (or both nothing) are equal, each
    shows at most one colour more than the line it reads holds (the colour of the cells the
    other axis reads nothing in), and those that read nothing show one colour."""
    n = len(chains.steps)
    ok = np.ones(n, dtype=bool)
    for p, (x, (_, y)) in enumerate(zip(turned, pairs, strict=True)):
        x_lines, y_lines = (x, y) if axis == 0 else (x.T, y.T)
        _, same_in = np.unique(x_lines, axis=0, return_inverse=True)  # equal input lines share an id
        _, same_out = np.unique(y_lines, axis=0, return_inverse=True)
        n_ids = int(same_in.max()) + 2  # the last id: nothing
        ids = np.append(same_in.reshape(-1), n_ids - 1)
        held = np.append([len(np.unique(line)) for line in x_lines], 0)
        shown = np.array([len(np.unique(line)) for line in y_lines])
        read = np.where(chains.maps[p] < 0, len(x_lines), chains.maps[p])  # the input line each output line reads
        ok &= (shown[None] <= held[read] + 1).all(1)
        # output lines that read one input line must be one line: per chain and id, the
        # smallest and largest output line read through it agree
        slot = (np.arange(n)[:, None] * n_ids + ids[read]).reshape(-1)
        out = np.broadcast_to(same_out.reshape(-1)[None], read.shape).reshape(-1)
        low = np.full(n * n_ids, np.iinfo(np.int64).max)
        high = np.full(n * n_ids, -1)
        np.minimum.at(low, slot, out)
        np.maximum.at(high, slot, out)
        ok &= ((high == -1) | (low == high)).reshape(n, n_ids).all(1)
    return chains.kept(ok)


def _chain_set(
    element: int,
    rows: tuple[AxisStep, ...],
    cols: tuple[AxisStep, ...],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    recoloured: bool = False,
) -> ActionSet | None:
    """The set of a chain: one head at the dihedral element and a stage per step (a row's
    step and a column's in one stage where one exact action takes both), with its
    unexplained cells counted (`recoloured`: its cells take their colours through a table);
    None where a stage's action is not one the experts write."""
    stages, lattices, gaps = [], [], []
    for r, c in _aligned(tuple(rows), tuple(cols)):
        action = _merged(r, c)
        if action is None or not expressible(action):
            return None
        stages.append(action)
        lattices.append((*(r or AxisStep("wrap", 0)).lattice(), *(c or AxisStep("wrap", 0)).lattice()))
        gaps.append(tuple(v for s in (r, c) for v in ((s.a, s.b) if s is not None and s.kind == "gap" else (1, 1))))
    chain = Chain(element >= 4, tuple(lattices), tuple(gaps) if any(g != (1, 1, 1, 1) for g in gaps) else ())
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
    return ActionSet(start.actions, unsupported, unseen, chain=chain, steps=start.steps, recoloured=recoloured)


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
        centre=(a.centre[0], b.centre[1]),
    )
    return merged if expressible(merged) else None


def chain_reading(start: ActionSet, grid: np.ndarray, out_shape: tuple[int, int]) -> np.ndarray | None:
    """What the head of a chain set reads in each output cell, through every stage: the
    input colour, or NOTHING; None where the chain does not take the grid to `out_shape`."""
    try:
        shapes = chain_shapes(tuple(grid.shape), tuple(out_shape), start.chain)
    except LatticeMismatch:
        return None  # another size, or a lattice on the way with no cell
    cells = source_cells(start.actions[0], tuple(grid.shape), shapes[0])
    for k, (action, before, after) in enumerate(zip(start.steps, shapes[:-1], shapes[1:], strict=True)):
        cells = follow(cells, source_cells(action, before, after))
        read = start.chain.read_lines(k, after)
        if read is not None:
            cells = np.where(read, cells, NOTHING)
    return follow(grid, cells).reshape(out_shape)
