"""Exact lattice actions as starting points of a fit.

Gradient descent on products of gates settles near where it starts, so a restart that
starts with its heads' gates at exact actions (`ExactAction`, `gate_bits`) explores what
plain restarts from one initial mixture rarely reach: y = f(g1·x, …, gK·x) with two to four
different actions g_k. Which actions to start from is decided on the train pairs
themselves: every head's reading of every pair is computed with the model's own mask
kernels (`readings`), and a set of actions is kept when the outputs are a function of the
heads' readings cell by cell (`consistent_sets`): no two cells with the same readings ask
for different colours. A set may also name the second layer's action (`ActionSet.then`),
read after the heads': g2·(g1·x), such as a tiling then shifted, or a sampling then
up-scaled. A pooling head's set may instead carry a count rule (`ActionSet.counts`,
`arcsolve.latformer.count_rules`): each cell the colour its block holds most often, which
answers histograms the train pairs never show.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
import torch

from arcsolve.latformer.count_rules import MAX_COUNTED, CountRule, block_counts, count_rule
from arcsolve.latformer.experts import (
    MAX_FACTOR,
    SCALE_CHAIN,
    SCALE_FACTORS,
    STRIDE_CHAIN,
    STRIDES,
    MaskExperts,
    chain_factor,
    chain_product,
)
from arcsolve.latformer.mask_kernels import build_mask
from arcsolve.latformer.model import tile_cells
from arcsolve.latformer.overlay_rules import MAX_OVERLAID, OverlayRule, overlay_rules
from arcsolve.latformer.sizing import common_factor
from arcsolve.symmetry import ELEMENT_NAMES, apply_dihedral

NOTHING = -1  # the reading of an output cell whose source lies outside the input
GATE_STRENGTH = 4.0  # |logit| of a gate set by an exact action: σ(4) ≈ 0.98


@dataclass(frozen=True)
class ExactAction:
    """One exact action of a head, read from an output cell back to the input cell it
    attends to: scale up by `scale` (output cell i reads input cell i // f) or, with `down`,
    down by sampling the first cell of each block (i reads i·f); then shift on the input
    lattice by `shift` (δ input cells: i reads i // f − δ, or i·f − δ, so a shift of a
    down-scaling picks another cell of each block and one of an up-scaling moves a window),
    wrapping cyclically (or, per output axis with `mirror`, as mirror images: tiles that
    alternate with their reflections) or, with `fill`, reading nothing past the edge (with
    `tiled_fill` too, wrapping as ever, then reading nothing past the edge of the shift: each
    tile or mirror image is the input shifted with fill); then the dihedral element
    `dihedral`. An up-scaling may be followed per axis by a `stride` s: output cell i reads
    input cell ⌊i·s/f⌋ (scaled by 3, then every second cell: each pair of cells as three;
    or, by 1, a sampling of one axis while the other grows)."""

    dihedral: int = 0
    shift: tuple[int, int] = (0, 0)
    scale: tuple[int, int] = (1, 1)
    fill: bool = False
    down: bool = False
    pool: bool = False  # with `down`: each block read whole (a pooling), not its first cell
    mirror: tuple[bool, bool] = (False, False)  # per output axis: wrap as mirror images
    stride: tuple[int, int] = (1, 1)  # per axis, after an up-scaling: every s-th cell of it
    tiled_fill: bool = False  # with `fill`: the shift with fill acts inside each tile

    def words(self) -> str:
        parts = [] if self.dihedral == 0 else [ELEMENT_NAMES[self.dihedral]]
        if self.scale != (1, 1):
            how = "down-scale" if self.down else "up-scale"
            by = (" by pooling" if self.pool else " by sampling") if self.down else ""
            parts.append(f"{how} {self.scale[0]}x{self.scale[1]}{by}")
        if self.stride != (1, 1):
            parts.append(f"down-scale {self.stride[0]}x{self.stride[1]} by sampling")
        if any(self.mirror):
            axes = [name for name, on in zip(("rows", "columns"), self.mirror, strict=True) if on]
            parts.append(f"mirror-wrap {' and '.join(axes)}")
        if self.shift != (0, 0):
            unit = " input cells" if self.scale != (1, 1) else ""
            fill = " with fill inside each tile" if self.tiled_fill else " with fill" if self.fill else ""
            parts.append(f"shift {self.shift[0]:+d},{self.shift[1]:+d}{unit}{fill}")
        return ", then ".join(parts) or "identity"


@cache
def _scale_bits(factor: int) -> tuple[int, ...] | None:
    """Bits of the up-scaling chain whose product is `factor` (the smallest such), or None."""
    for bits in sorted(itertools.product((0, 1), repeat=len(SCALE_CHAIN)), key=chain_product):
        if chain_factor(bits) == factor:
            return bits
    return None


def gate_bits(experts: MaskExperts, action: ExactAction) -> torch.Tensor | None:
    """0/1 per gate of `experts` giving exactly `action`, or None when its experts (those
    switched on) cannot express it."""
    bits = torch.zeros(len(experts.gate_bias))
    live = {name for name in experts.enabled if bool(experts.gate_on[experts.gate_slice(name)][0])}
    if action.dihedral:
        found = False
        rot = experts.gate_slice("rotate") if "rotate" in live else None
        ref = experts.gate_slice("reflect") if "reflect" in live else None
        for r_bits in itertools.product((0, 1), repeat=2 if rot else 0):
            for f_bits in itertools.product((0, 1), repeat=3 if ref else 0):
                trial = bits.clone()
                if rot:
                    trial[rot] = torch.tensor(r_bits, dtype=trial.dtype)
                if ref:
                    trial[ref.start : ref.start + 3] = torch.tensor(f_bits, dtype=trial.dtype)
                if int(experts.actions_of(trial).dihedral.argmax()) == action.dihedral:
                    bits, found = trial, True
                    break
            if found:
                break
        if not found:
            return None
    if action.tiled_fill and not (action.fill and "translate" in live and experts.tiled_fills):
        return None
    if any(action.mirror):
        if "reflect" not in live or (action.fill and not action.tiled_fill):
            return None
        where = experts.gate_slice("reflect")
        bits[where.start + 3 : where.start + 5] = torch.tensor(action.mirror, dtype=bits.dtype)
    if action.shift != (0, 0) or action.fill:
        if "translate" not in live:
            return None
        where, n = experts.gate_slice("translate"), experts.shift_bits
        for axis, delta in enumerate(action.shift):
            if abs(delta) >= 2**n:
                return None
            start = where.start + axis * (n + 1)
            bits[start : start + n] = torch.tensor([(abs(delta) >> k) & 1 for k in range(n)], dtype=bits.dtype)
            bits[start + n] = float(delta < 0)
        bits[experts.fill_slice()] = float(action.fill)
        bits[experts.tiled_fill_slice()] = float(action.tiled_fill)
    if action.scale != (1, 1):
        if "scale" not in live:
            return None
        where, k = experts.gate_slice("scale"), len(SCALE_CHAIN)
        for axis, factor in enumerate(action.scale):
            chain = _scale_bits(factor)
            if chain is None:
                return None
            bits[where.start + axis * k : where.start + (axis + 1) * k] = torch.tensor(chain, dtype=bits.dtype)
        bits[where.start + 2 * k] = float(action.down)
        bits[where.start + 2 * k + 1] = float(action.down and not action.pool)  # by sampling
    elif action.down:
        return None
    if action.stride != (1, 1):
        if "scale" not in live or not _stride_expressible(action):
            return None
        where, n = experts.stride_slice(), len(STRIDE_CHAIN)
        if not bool(experts.gate_on[where].all()):
            return None  # the strides are off in this model
        for axis, stride in enumerate(action.stride):
            start = where.start + axis * n
            bits[start : start + n] = torch.tensor([float(stride % f == 0) for f in STRIDE_CHAIN], dtype=bits.dtype)
    return bits


def set_action(experts: MaskExperts, action: ExactAction, strength: float = GATE_STRENGTH) -> bool:
    """Set the gate logits of `experts` to ±strength at `action`; False (and nothing set)
    when its experts cannot express it."""
    bits = gate_bits(experts, action)
    if bits is None:
        return False
    with torch.no_grad():
        experts.gate_bias.copy_((2 * bits - 1).to(experts.gate_bias) * strength)
    return True


@cache
def _reference_experts(shift_bits: int) -> MaskExperts:
    return MaskExperts(("translate", "rotate", "reflect", "scale"), 0, shift_bits, strides=True, tiled_fills=True)


def _stride_expressible(action: ExactAction) -> bool:
    """Whether the scale expert's stride gates can give the action's stride: one of STRIDES
    per axis, after an up-scaling (never after a down-scaling)."""
    return not action.down and set(action.stride) <= set(STRIDES)


def expressible(action: ExactAction, shift_bits: int = 5) -> bool:
    """Can the four experts write `action` with exact gates (`gate_bits` finds bits)? Every
    dihedral element; shifts shorter than 2^shift_bits; scale factors of the chain; a
    down-scaling only with a factor; a mirror wrap only without fill, or with a tiled one;
    a tiled fill only with fill."""
    if action.tiled_fill and not action.fill:
        return False
    if any(action.mirror) and action.fill and not action.tiled_fill:
        return False
    if any(abs(delta) >= 2**shift_bits for delta in action.shift):
        return False
    if action.stride != (1, 1) and not _stride_expressible(action):
        return False
    if action.scale == (1, 1):
        return not action.down
    return all(_scale_bits(f) is not None for f in action.scale)


@cache
def source_cells(
    action: ExactAction, in_shape: tuple[int, int], out_shape: tuple[int, int], shift_bits: int = 5
) -> np.ndarray | None:
    """The input cell (row-major index) each output cell attends to under `action`, NOTHING
    where it reads none; None when the experts cannot express the action. Computed in numpy
    (`_scaled_cells`), which reads as the model's own mask kernels read
    (`kernel_source_cells`: tested to agree on random actions and lattices); a pooling, which
    reads whole blocks, through the kernels."""
    if action.pool:
        return kernel_source_cells(action, in_shape, out_shape, shift_bits)
    if not expressible(action, shift_bits):
        return None
    return _scaled_cells(action, in_shape, out_shape, shift_bits)


@cache
def kernel_source_cells(
    action: ExactAction, in_shape: tuple[int, int], out_shape: tuple[int, int], shift_bits: int = 5
) -> np.ndarray | None:
    """`source_cells` as the model's own mask kernels compute it (a mask per action and
    lattices, so slow): the reference the numpy reading is tested against."""
    experts = _reference_experts(shift_bits)
    bits = gate_bits(experts, action)
    if bits is None:
        return None
    with torch.no_grad():
        mask = build_mask(experts.actions_of(bits), in_shape, out_shape).numpy()  # (H·W, h·w)
    return np.where(mask.sum(1) > 0.5, mask.argmax(1), NOTHING)


def _follow(values: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """The value at each of `cells` (row-major indices into `values`, flattened), NOTHING
    where the cell is NOTHING: a lattice read through a map of cells, or one map of cells
    through another."""
    return np.where(cells >= 0, values.reshape(-1)[np.maximum(cells, 0)], NOTHING)


def reading(action: ExactAction, grid: np.ndarray, out_shape: tuple[int, int], shift_bits: int = 5) -> np.ndarray:
    """What a head at `action` reads in each cell of the output lattice: the input colour of
    the cell it attends to, or NOTHING. A pooling reads a block of cells: its reading is
    their colours as a multiset, one integer per output cell (`pooled_key`)."""
    if action.pool:
        return pooled_key(action, grid, out_shape, shift_bits)
    cells = source_cells(action, tuple(grid.shape), tuple(out_shape), shift_bits)
    if cells is None:
        raise ValueError(f"{action} is not an action of the experts")
    return _follow(grid, cells).reshape(out_shape)


MAX_POOLED = 16  # cells of a block a pooling reads, at most (its multiset key fits in 64 bits)


def block_cells(action: ExactAction) -> list[ExactAction]:
    """The samplings that read, one by one, the cells a pooling reads together."""
    (f_r, f_c), (d_r, d_c) = action.scale, action.shift
    return [replace(action, shift=(d_r - r, d_c - c), pool=False) for r in range(f_r) for c in range(f_c)]


def pooled_key(action: ExactAction, grid: np.ndarray, out_shape: tuple[int, int], shift_bits: int = 5) -> np.ndarray:
    """The colours of each output cell's block under a pooling, as a multiset (sorted, then
    one base-11 integer): cells whose blocks hold the same colours, in any places, read alike."""
    cells = np.sort(np.stack([reading(a, grid, out_shape, shift_bits) for a in block_cells(action)]), axis=0)
    return _cell_keys(list(cells)).astype(np.int64) - 1


def part_offsets(n_in: int, n_out: int, most: int = 4) -> list[int]:
    """Where the parts of an input axis of n_in cells begin, when it holds 2 to `most` parts
    of n_out cells evenly spaced (side by side, or apart by one or two separator lines):
    the first and last part always, the ones between when the spacing is whole."""
    offsets = {0, n_in - n_out}
    for parts in range(3, most + 1):
        step, rest = divmod(n_in - n_out, parts - 1)
        if not rest and n_out <= step <= n_out + 2:
            offsets |= {k * step for k in range(parts)}
    return sorted(offsets)


def candidate_actions(in_shape: tuple[int, int], out_shape: tuple[int, int]) -> list[ExactAction]:
    """The exact actions worth a head for a pair of these shapes: the eight dihedral
    elements (tiling when the output is larger), up-scaling by the size ratio or by a part of
    it (the rest tiled), crops at the input's evenly spaced parts (`part_offsets`: its
    halves, thirds, quarters), and short shifts with fill."""
    (h, w), (H, W) = in_shape, out_shape
    actions = [ExactAction(d) for d in range(8)]
    for a, b in {(H, W), (W, H)}:  # up-scaling, and up-scaling of a transposed image
        if a % h or b % w or (a, b) == (h, w):
            continue
        # by the size ratio, or by a part of it with the rest tiled (the reading wraps)
        for f_r, f_c in itertools.product(SCALE_FACTORS, SCALE_FACTORS):
            if (f_r, f_c) != (1, 1) and (a // h) % f_r == 0 and (b // w) % f_c == 0:
                actions += [ExactAction(d, scale=(f_r, f_c)) for d in range(8)]
    if H <= h and W <= w and (H, W) != (h, w):
        offsets = itertools.product(part_offsets(h, H), part_offsets(w, W))
        actions += [ExactAction(0, (-r, -c)) for r, c in offsets if (r, c) != (0, 0)]
        if h % H == 0 and w % W == 0 and {h // H, w // W} <= set(SCALE_FACTORS):
            # down-scaling by a stride, from each cell of a block (the shift picks it)
            f_r, f_c = h // H, w // W
            actions += [
                ExactAction(0, (-r, -c), (f_r, f_c), down=True) for r in range(f_r) for c in range(f_c)
            ]
            if f_r * f_c <= MAX_POOLED:  # and each block read whole
                actions.append(ExactAction(0, scale=(f_r, f_c), down=True, pool=True))
    if (H, W) == (h, w):
        steps = range(-2, 3)
        actions += [ExactAction(0, (r, c), fill=True) for r in steps for c in steps if (r, c) != (0, 0)]
    return list(dict.fromkeys(actions))


MAX_TILES = 81  # per-tile actions are tried on tilings of at most this many tiles (9×9)
MAX_COMBINATIONS = 20_000  # sets of one size tried, at most (the first, in the pool's order)


def output_symmetries(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], max_shift: int = 4, most: int = 6, shift_bits: int = 5
) -> list[ExactAction]:
    """Rotations and reflections about axes up to `max_shift` cells off the centre (a
    dihedral element after a shift with fill) under which every train output is its own
    image: the reading equals the output wherever it reads a cell, on at least half of them.
    These are the views a picture with hidden cells is completed from. At most `most`,
    the least shifted first; none unless every output has its input's shape."""
    if any(x.shape != y.shape for x, y in pairs):
        return []
    steps = range(-max_shift, max_shift + 1)
    shifts = sorted(itertools.product(steps, steps), key=lambda s: (abs(s[0]) + abs(s[1]), s))
    found = []
    for delta in shifts:
        for d in range(1, 8):
            action = ExactAction(d, delta, fill=delta != (0, 0))
            ok = True
            for _, y in pairs:
                shape = tuple(y.shape)
                turned = source_cells(ExactAction(d), shape, shape, shift_bits)
                moved = source_cells(ExactAction(0, delta, fill=True), shape, shape, shift_bits)
                if turned is None or moved is None:
                    ok = False
                    break
                # read back: shift on the output lattice, then the dihedral element (a
                # quick screen; the kernels' own reading decides below)
                cells = _follow(turned, moved)
                seen = cells >= 0
                if seen.mean() < 0.5 or not (y.reshape(-1)[cells[seen]] == y.reshape(-1)[seen]).all():
                    ok = False
                    break
            if ok and all(_is_image(action, y, shift_bits) for _, y in pairs):
                found.append(action)
                if len(found) == most:
                    return found
    return found


def output_periods(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], max_period: int = 12, most: int = 4, shift_bits: int = 5
) -> list[ExactAction]:
    """Translations (shifts with fill, up to `max_period` cells per axis) under which every
    train output is its own image on at least half its cells: the periods of a repeating
    pattern, the views its hidden cells are repaired from (a multiple of a period reaches
    past a hidden run longer than it). At most `most`, the shortest first; none unless every
    output has its input's shape."""
    if any(x.shape != y.shape for x, y in pairs):
        return []
    steps = range(-max_period, max_period + 1)
    shifts = sorted(
        (s for s in itertools.product(steps, steps) if s != (0, 0)), key=lambda s: (abs(s[0]) + abs(s[1]), s)
    )
    found: list[ExactAction] = []
    for dr, dc in shifts:
        ok = True
        for _, y in pairs:
            h, w = y.shape
            if (h - abs(dr)) * (w - abs(dc)) < 0.5 * h * w:
                ok = False
                break
            # output cell (i, j) reads (i − dr, j − dc): a quick screen in numpy, the
            # kernels' own reading decides below
            here = y[max(dr, 0) : h + min(dr, 0), max(dc, 0) : w + min(dc, 0)]
            there = y[max(-dr, 0) : h + min(-dr, 0), max(-dc, 0) : w + min(-dc, 0)]
            if not np.array_equal(here, there):
                ok = False
                break
        action = ExactAction(0, (dr, dc), fill=True)
        if ok and all(_is_image(action, y, shift_bits) for _, y in pairs):
            found.append(action)
            if len(found) == most:
                break
    return found


def _shift_cells(shape: tuple[int, int], delta: tuple[int, int], fill: bool) -> np.ndarray:
    """Row-major source of each cell of a `shape` lattice shifted by `delta` (cell (i, j)
    reads (i − δr, j − δc)), cyclically or, with `fill`, NOTHING past the edge."""
    h, w = shape
    rows, cols = np.arange(h)[:, None] - delta[0], np.arange(w)[None, :] - delta[1]
    if not fill:
        return ((rows % h) * w + cols % w).reshape(-1)
    inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
    return np.where(inside, rows.clip(0, h - 1) * w + cols.clip(0, w - 1), NOTHING).reshape(-1)


def single_actions(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    max_shift: int = 4,
    most: int = 8,
    shift_bits: int = 5,
    placed: bool = True,
    also: Sequence[tuple[int, int]] = (),
) -> list[ExactAction]:
    """One-head actions beyond `candidate_actions` (those `one_head_actions` lists), screened
    in numpy and kept when every train output is a function of their reading, cell by cell.
    The kernels' own reading confirms each; at most `most`, the least shifted first. Cyclic
    shifts that read alike on the train lattices but not on those of `also` (the test
    inputs' shapes) are kept apart."""
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs])
    order = sorted(range(len(pairs)), key=lambda k: pairs[k][1].size)  # the cheapest pair rejects first
    found: list[ExactAction] = []
    for action, cells in one_head_actions(pairs, max_shift, shift_bits, placed, also):
        if len(found) >= most:
            break
        if action in found:
            continue
        seen = np.zeros((11, 10), dtype=bool)  # (reading + 1, output colour) pairs met so far
        for k in order:
            (x, y), c = pairs[k], cells(k)
            if c is None:
                break  # not an action of the experts on this pair's lattices
            keys = _follow(x, c) + 1
            seen[keys, y.reshape(-1)] = True
            if (seen.sum(1) > 1).any():
                break  # two cells read alike and ask for different colours
        else:
            try:
                read = np.concatenate([reading(action, x, y.shape, shift_bits).reshape(-1) for x, y in pairs])
            except ValueError:
                continue
            if _is_function(read + 1, outputs):
                found.append(action)
    return found


CellMap = Callable[[int], "np.ndarray | None"]  # pair index -> each output cell's input cell (or None)


def one_head_actions(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    max_shift: int = 4,
    shift_bits: int = 5,
    placed: bool = True,
    also: Sequence[tuple[int, int]] = (),
) -> Iterator[tuple[ExactAction, CellMap]]:
    """The one-head actions the screens try, each with a quick numpy map of the input cell
    every output cell of pair k reads (NOTHING where none; None where the experts cannot act
    on that pair's lattices), the least shifted first within each kind: a shift of any length
    up to the smallest output's sides, and a dihedral element after a shift of up to
    `max_shift` cells, cyclic or with fill (outputs of the input's shape or its transpose), a
    crop at any offset (outputs no larger than their inputs), or the input after any dihedral
    element placed at any offset in a larger output (a padding). Also: where every output has
    one size, windows of two or more input cells up-scaled 2× or 3× (a zoom); and scalings
    (up by the size ratio or a part of it, the rest tiled, or down by sampling) after every
    dihedral element and a shift of up to `max_shift` input cells, cyclic or with fill, and
    the up-scalings tiled as mirror images; where the output's size is not the input's,
    up-scalings followed by a stride (`_strided_scalings`), shifted by up to
    MAX_STRIDE_SHIFT input cells. Without `placed`, no placements. Cyclic shifts of
    a scaling that read alike on every input lattice, the train pairs' and those of `also`
    (the test inputs' shapes), are listed once."""
    same = all(x.shape == y.shape for x, y in pairs)
    turned_shape = all(x.shape == y.shape[::-1] for x, y in pairs)
    if same or turned_shape:
        rows, cols = (max(max_shift, min(y.shape[axis] for _, y in pairs) - 1) for axis in (0, 1))
        deltas = sorted(
            itertools.product(range(-rows, rows + 1), range(-cols, cols + 1)),
            key=lambda s: (abs(s[0]) + abs(s[1]), s),
        )
        elements = {d: [source_cells(ExactAction(d), x.shape, y.shape, shift_bits) for x, y in pairs] for d in range(8)}
        turned = {d: cells for d, cells in elements.items() if all(c is not None for c in cells)}
        for delta, fill in itertools.product(deltas, (True, False)):
            near = max(abs(delta[0]), abs(delta[1])) <= max_shift  # a dihedral element goes with near shifts
            moved: dict[int, np.ndarray] = {}  # each pair's shifted lattice, made when first asked for
            for d, sources in turned.items():
                if d and not near:
                    continue

                def cells(k: int, sources=sources, delta=delta, fill=fill, moved=moved) -> np.ndarray:
                    if k not in moved:
                        moved[k] = _shift_cells(tuple(pairs[k][1].shape), delta, fill)
                    return _follow(sources[k], moved[k])

                yield ExactAction(d, delta, fill=fill and delta != (0, 0)), cells
    elif all(x.shape[0] >= y.shape[0] and x.shape[1] >= y.shape[1] for x, y in pairs):
        rows = min(x.shape[0] - y.shape[0] for x, y in pairs)
        cols = min(x.shape[1] - y.shape[1] for x, y in pairs)
        for r, c in sorted(itertools.product(range(rows + 1), range(cols + 1)), key=sum):

            def window(k: int, r=r, c=c) -> np.ndarray:
                (x, y) = pairs[k]
                (H, W), w = y.shape, x.shape[1]
                return ((np.arange(H)[:, None] + r) * w + np.arange(W)[None, :] + c).reshape(-1)

            yield ExactAction(0, (-r, -c)), window
    if placed and not (same or turned_shape):  # outputs as large as the (turned) input or larger: a placement
        for action in _placements(pairs, shift_bits):
            yield action, lambda k, a=action: _scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)
    if len({y.shape for _, y in pairs}) == 1:  # one output size: a window, then up-scaled
        (H, W) = pairs[0][1].shape
        for f in (2, 3):
            if H % f or W % f or H * W < 2 * f * f:
                continue  # whole blocks of a window of two cells or more (one cell is a crop's)
            # the window's offset, in input cells (the experts shift before they scale)
            rows = min(min(x.shape[0] - H // f for x, _ in pairs), 2**shift_bits - 1)
            cols = min(min(x.shape[1] - W // f for x, _ in pairs), 2**shift_bits - 1)
            if rows < 0 or cols < 0:
                continue
            for r, c in sorted(itertools.product(range(rows + 1), range(cols + 1)), key=sum):

                def zoomed(k: int, f=f, r=r, c=c) -> np.ndarray:
                    w = pairs[k][0].shape[1]
                    return ((np.arange(H)[:, None] // f + r) * w + np.arange(W)[None, :] // f + c).reshape(-1)

                yield ExactAction(0, (-r, -c), (f, f)), zoomed
    # scalings (up by the size ratio or a part of it, the rest tiled; down by sampling; up,
    # then a stride), each after any dihedral element and a shift of up to `max_shift` input
    # cells (MAX_STRIDE_SHIFT with a stride), cyclic or with fill
    near = sorted(
        itertools.product(range(-max_shift, max_shift + 1), repeat=2), key=lambda s: (abs(s[0]) + abs(s[1]), s)
    )
    inputs = [x.shape for x, _ in pairs] + list(also)
    sides = {d: [shape[::-1] if d >= 4 else shape for shape in inputs] for d in range(8)}  # shifted lattices
    scalings = [(factor, down, (1, 1), range(8)) for factor, down in _scalings(pairs)] + _strided_scalings(pairs)
    for factor, down, stride, elements in scalings:
        met: dict[int, set] = {d: set() for d in range(8)}  # cyclic shifts alike on every pair's lattice are one
        # where the scaled input tiles some train output, a shift with fill may act inside each tile
        wraps = {d: _wraps(factor, down, stride, sides[d][: len(pairs)], pairs) for d in elements}
        for delta, fill, d in itertools.product(near, (False, True), elements):
            if stride != (1, 1) and max(abs(delta[0]), abs(delta[1])) > MAX_STRIDE_SHIFT:
                continue
            if fill and (delta == (0, 0) or all(abs(delta[0]) >= h or abs(delta[1]) >= w for h, w in sides[d])):
                continue  # no shift, or one that pushes every input out of its lattice
            if not fill:
                alike = tuple((delta[0] % h, delta[1] % w) for h, w in sides[d])
                if alike in met[d]:
                    continue
                met[d].add(alike)
            action = ExactAction(d, delta, factor, fill, down, stride=stride)
            yield action, lambda k, a=action: _scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)
            if fill and wraps[d]:
                action = replace(action, tiled_fill=True)
                yield action, lambda k, a=action: _scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)
        if down or stride != (1, 1):
            continue
        for d in range(8):  # tiled as mirror images on the axes where the scaled input repeats
            trained = list(zip(sides[d][: len(pairs)], pairs, strict=True))  # the train pairs' lattices
            repeats = [any(y.shape[axis] > s[axis] * factor[axis] for s, (_, y) in trained) for axis in (0, 1)]
            for mirror in ((True, False), (False, True), (True, True)):
                if not all(repeats[axis] for axis in (0, 1) if mirror[axis]):
                    continue
                # unshifted, then the input shifted with fill in each mirror image
                for delta in [(0, 0)] + [s for s in near if s != (0, 0) and max(map(abs, s)) <= MAX_STRIDE_SHIFT]:
                    fill = delta != (0, 0)
                    action = ExactAction(d, delta, factor, fill, mirror=mirror, tiled_fill=fill)
                    yield action, lambda k, a=action: _scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)


MAX_PLACEMENTS = 4000  # placements screened, at most (the simplest first)
MAX_CUT = 2  # input cells a placement may move back past the output's start


def _placements(pairs: Sequence[tuple[np.ndarray, np.ndarray]], shift_bits: int = 5) -> list[ExactAction]:
    """Every placement of the input, after any dihedral element and scaled (up, or down by
    sampling) by one factor on every pair, at one offset inside each output that is larger
    than it on some pair (a padding, or a grid set on a canvas): the least scaled and moved
    first. Offsets are in input cells, as the experts shift before they scale, and may move
    the input back past the output's start by up to MAX_CUT cells (shifted, then padded); a
    sampled input is placed at the output's top-left corner only."""
    found = []
    span = 2**shift_bits - 1
    for d in range(8):
        sides = [x.shape[::-1] if d >= 4 else x.shape for x, _ in pairs]
        outs = [y.shape for _, y in pairs]
        per_axis = []
        for axis in (0, 1):
            options = []  # (factor, down, offsets in input cells)
            for f in SCALE_FACTORS:
                room = min(o[axis] - s[axis] * f for s, o in zip(sides, outs, strict=True))
                if room >= 0:  # placed inside, or moved back by up to MAX_CUT cells (cut at the start)
                    back = min(MAX_CUT, min(s[axis] for s in sides) - 1)
                    options.append((f, False, range(-back, min(room // f, span) + 1)))
                if f > 1 and all(s[axis] % f == 0 for s in sides):
                    # sampled from any cell of the block, at the output's start: the kernels sample
                    # within the input before they shift, so a sampled grid moves back, not on
                    if all(o[axis] >= s[axis] // f for s, o in zip(sides, outs, strict=True)):
                        options.append((f, True, [-p for p in range(f)]))
            per_axis.append(options)
        for (f_r, down_r, rows), (f_c, down_c, cols) in itertools.product(*per_axis):
            if (down_r and not down_c and f_c > 1) or (down_c and not down_r and f_r > 1):
                continue  # a head scales both axes the same way (by 1 either way)
            down = down_r or down_c
            if down:  # an axis by 1 is sampled too, so it is placed at the start as well
                rows, cols = [r for r in rows if r <= 0], [c for c in cols if c <= 0]
            if all(y.shape == ((s[0] // f_r, s[1] // f_c) if down else (s[0] * f_r, s[1] * f_c))
                   for s, (_, y) in zip(sides, pairs, strict=True)):
                continue  # no room on any pair: a plain scaling (`_scalings`)
            found += [ExactAction(d, (r, c), (f_r, f_c), True, down) for r in rows for c in cols]
    found.sort(key=lambda a: (a.scale[0] * a.scale[1], abs(a.shift[0]) + abs(a.shift[1]), a.down, a.shift, a.dihedral))
    return found[:MAX_PLACEMENTS]


@cache
def _turned_cells(dihedral: int, shape: tuple[int, int]) -> np.ndarray:
    """The input cell each cell of the turned lattice reads under a dihedral element."""
    return apply_dihedral(np.arange(shape[0] * shape[1]).reshape(shape), dihedral).reshape(-1)


def _scalings(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[tuple[tuple[int, int], bool]]:
    """(factor, down) for the scalings a head may take on every pair: down-scalings by a
    stride (`_down_factors`), and up-scalings by the size ratio between each input (or its
    transpose) and its output, or by a part of it (1×1 too) whose rest is tiled."""
    found = [(f, True) for f in _down_factors(pairs) + _tiled_down_factors(pairs)]
    shapes = [(x.shape, y.shape) for x, y in pairs]
    for turned in (False, True):
        ratio = common_factor(shapes, turned, down=False)
        if ratio is None or ratio == (1, 1):
            continue
        a, b = ratio
        for f in itertools.product(SCALE_FACTORS, SCALE_FACTORS):  # (1, 1): the input tiled or placed
            if a % f[0] == 0 and b % f[1] == 0 and (f, False) not in found:
                found.append((f, False))
    return found


MAX_STRIDE_TILES = 2  # a strided up-scaling may wrap (tile) at most this many times
MAX_STRIDE_SHIFT = 2  # and is shifted by at most this many input cells a side


def _strided_scalings(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
) -> list[tuple[tuple[int, int], bool, tuple[int, int], range]]:
    """(factor, down, stride, dihedral elements) for up-scalings followed by a stride on some
    axis (output cell i reads ⌊i·s/f⌋): per output axis, f and s (coprime, s in STRIDES) with
    out·s = in·f·t on every pair, t the same whole number of tiles (at most MAX_STRIDE_TILES),
    for the input read straight (elements 0–3) or turned (4–7). On an axis where every
    output has its input's side, a stride of 2 wraps twice: a sampled grid tiled back to
    the input's size (on an odd side, every second cell, then the others)."""
    found = []
    for turned in (False, True):
        per_axis = []
        for axis in (0, 1):
            sides = [(x.shape[axis ^ turned], y.shape[axis]) for x, y in pairs]
            per_axis.append([(f, s) for f, s, _ in _axis_strides(sides)])
        elements = range(4, 8) if turned else range(4)
        for (f_r, s_r), (f_c, s_c) in itertools.product(*per_axis):
            if (s_r, s_c) != (1, 1):
                found.append(((f_r, f_c), False, (s_r, s_c), elements))
    return found


def _axis_strides(sides: Sequence[tuple[int, int]], thens: Sequence[int] = (1,)) -> list[tuple[int, int, int]]:
    """For one axis's (in, out) sides: (f, s, g), an up-scaling by f then a stride s (coprime,
    s in STRIDES), then the second layer's up-scaling by g among `thens` (1: none), with
    out·s = in·f·g·t on every side, t the same whole number of tiles, at most MAX_STRIDE_TILES."""
    return [
        (f, s, g)
        for s in STRIDES
        for f in SCALE_FACTORS
        for g in thens
        if math.gcd(f, s) == 1 and (tiles := _tiles_of(s, f * g, sides)) is not None and tiles <= MAX_STRIDE_TILES
    ]


def _scaled_cells(
    action: ExactAction, in_shape: tuple[int, int], out_shape: tuple[int, int], shift_bits: int
) -> np.ndarray | None:
    """A quick numpy reading of a scaled `action` (row-major source of each output cell,
    NOTHING where it reads none), as the kernels read: scale, wrap cyclically or as mirror
    images (or, with fill, not at all), shift on the lattice before the dihedral element,
    then the element."""
    before = in_shape[::-1] if action.dihedral >= 4 else in_shape  # the elements that swap the axes
    element = _turned_cells(action.dihedral, tuple(in_shape))
    axes = []
    axes_of = zip(out_shape, before, action.scale, action.shift, action.mirror, action.stride, strict=True)
    for n_out, n_in, f, delta, mirror, stride in axes_of:
        i = np.arange(n_out)
        at = i * f if action.down else i * stride // f
        if action.tiled_fill:  # wrapped as ever, then shifted with fill inside the tile
            if mirror:
                at = at % (2 * n_in)
                at = np.where(at < n_in, at, 2 * n_in - 1 - at)
            at = at % n_in - delta
            inside = (at >= 0) & (at < n_in)
        elif action.fill:
            inside = at < n_in if action.down else np.ones(n_out, dtype=bool)  # samples past the edge: none
            at = at - delta
            inside &= (at >= 0) & (at < n_in)
        else:
            if mirror:
                at = at % (2 * n_in)
                at = np.where(at < n_in, at, 2 * n_in - 1 - at)
            at = (at % n_in - delta) % n_in
            inside = np.ones(n_out, dtype=bool)
        axes.append((np.minimum(np.maximum(at, 0), n_in - 1), inside))
    (rows, on_r), (cols, on_c) = axes
    cells = element[(rows[:, None] * before[1] + cols[None, :]).reshape(-1)]
    return np.where((on_r[:, None] & on_c[None, :]).reshape(-1), cells, NOTHING)


def _wraps(
    factor: tuple[int, int],
    down: bool,
    stride: tuple[int, int],
    sides: Sequence[tuple[int, int]],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
) -> bool:
    """Does a scaling by `factor` (down, or up then `stride`) read past the edge of some input
    lattice (`sides`, turned as a dihedral element turns them) on some pair's output, so that
    it tiles there?"""
    for (n_rows, n_cols), (_, y) in zip(sides, pairs, strict=True):
        for n_out, n_in, f, s in zip(y.shape, (n_rows, n_cols), factor, stride, strict=True):
            if ((n_out - 1) * f if down else (n_out - 1) * s // f) >= n_in:
                return True
    return False


def _scaled_reading(
    action: ExactAction, grid: np.ndarray, out_shape: tuple[int, int], shift_bits: int
) -> np.ndarray:
    """What a head at a scaled `action` reads in each cell of the output lattice (`reading`,
    through the quick numpy cells of `_scaled_cells`)."""
    return _follow(grid, _scaled_cells(action, grid.shape, out_shape, shift_bits)).reshape(out_shape)


def _down_factors(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[tuple[int, int]]:
    """The strides (a, b) ≠ (1, 1) by which every input is a whole multiple of its output,
    or of its output's transpose: the down-scalings a reading by sampling may take."""
    found = []
    for turned in (False, True):
        ratio = common_factor([(x.shape, y.shape) for x, y in pairs], turned, down=True)
        if ratio is None:
            continue
        a, b = ratio[::-1] if turned else ratio  # per output axis when the output is transposed
        for f in ((a, b), (b, a)):
            if f != (1, 1) and set(f) <= set(SCALE_FACTORS) and f not in found:
                found.append(f)
    return found


def _tiled_down_factors(pairs: Sequence[tuple[np.ndarray, np.ndarray]], most: int = 3) -> list[tuple[int, int]]:
    """Strides (a, b) per output axis, one of them above 1, whose sampled grid the output
    tiles along some axis (every output side a whole multiple, the same on every pair and
    above 1 on some axis, of its input side over the stride; outputs read straight or
    transposed): a down-scaling in one direction and a tiling in the other, which a sampling
    that wraps cyclically reads."""
    found = []
    for turned in (False, True):
        per_axis = []
        for axis in (0, 1):
            options = []
            for f in range(1, most + 1):
                multiples = set()
                for x, y in pairs:
                    n_in, n_out = x.shape[axis], (y.shape[::-1] if turned else y.shape)[axis]
                    if n_in % f or n_out % (n_in // f):
                        break
                    multiples.add(n_out // (n_in // f))
                else:
                    if len(multiples) == 1:
                        options.append((f, multiples.pop()))
            per_axis.append(options)
        for (a, k_r), (b, k_c) in itertools.product(*per_axis):
            resized = (k_r, k_c) != (a, b)  # a grid of its input's own size is no down-scaling
            stride = (b, a) if turned else (a, b)  # per output axis
            if (a, b) != (1, 1) and (k_r, k_c) != (1, 1) and resized and stride not in found:
                found.append(stride)
    return found


def _is_image(action: ExactAction, y: np.ndarray, shift_bits: int) -> bool:
    """Is y its own image under `action` (the model's reading), on at least half its cells?"""
    read = reading(action, y, y.shape, shift_bits)
    seen = read != NOTHING
    return bool(seen.mean() >= 0.5 and (read[seen] == y[seen]).all())


@dataclass(frozen=True)
class ActionSet:
    """Head actions whose readings determine the train outputs cell by cell. With `tiles`
    (a, b) ≠ (1, 1), one head whose a·b actions are its tiles' (row-major)."""

    actions: tuple[ExactAction, ...]
    unsupported: int  # cells of a pair whose readings no other pair shows (leave one pair out)
    unseen: int  # test cells whose readings no train pair shows
    tiles: tuple[int, int] = (1, 1)
    fixed: tuple[int, ...] | None = None  # colours its fit must not permute (`colours_to_fix`)
    # the second layer's action on the output lattice (a shift, a dihedral element or an
    # up-scaling), read after the heads': an output cell takes what the first layer wrote
    # where `then` reads
    then: ExactAction | None = None
    window: bool = False  # the last head marks a window of the output (`windowed_sets`)
    counts: CountRule | None = None  # a pooling head's cell rule, when it counts (`counting_sets`)
    overlay: OverlayRule | None = None  # the heads' cell rule, when it is an overlay (`overlay_sets`)

    @property
    def rule(self) -> CountRule | OverlayRule | None:
        """The cell rule its model is built to compute (a count or an overlay rule), or None
        when the FFN learns it."""
        return self.counts or self.overlay

    def rank(self) -> tuple[int, int, int]:
        """Sort key, simplest first: how many different actions (those an overlay rule chose,
        not the symmetries it adds for hidden cells), then the unexplained cells."""
        actions = len(set(self.actions)) if self.overlay is None else self.overlay.chosen
        return (actions + (self.then is not None), self.unseen, self.unsupported)


def consistent_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    max_heads: int = 4,
    shift_bits: int = 5,
) -> list[ActionSet]:
    """Sets of one to `max_heads` candidate actions (`candidate_actions` of the first pair)
    under which every train output is a function of the heads' readings, cell by cell; the
    simplest first, then those that leave fewer test and held-out cells unexplained. One
    head may also take a wider action (`single_actions`: longer shifts, dihedral elements
    after shifts, crops anywhere, zooms, down-scalings after dihedral elements). Sets of
    three or four heads are tried among the crops (parts), the dihedral elements, the cells
    of a down-scaled block and the outputs' symmetries and periods (`output_symmetries`,
    `output_periods`) only. Where no one head explains the pairs, two actions in a row are
    tried: a head's, then the second layer's on the output lattice (`composed_sets`), and a
    sampling, then each tile's action (`per_tile_sets` with `sampled`). Sets
    that read exactly alike are kept once (`_distinct`)."""
    (x0, y0) = pairs[0]
    symmetries = output_symmetries(pairs, shift_bits=shift_bits) + output_periods(pairs, shift_bits=shift_bits)
    candidates = candidate_actions(x0.shape, y0.shape)
    candidates += [a for a in symmetries if a not in candidates]
    test_shapes = [x.shape for x, _ in tests]
    singles = [a for a in single_actions(pairs, shift_bits=shift_bits, also=test_shapes) if a not in candidates]
    candidates += singles
    usable = []
    read: dict[ExactAction, list[np.ndarray]] = {}
    test_read: dict[ExactAction, list[np.ndarray]] = {}
    for action in candidates:
        try:
            read[action] = [reading(action, x, y.shape, shift_bits) for x, y in pairs]
            test_read[action] = [reading(action, x, shape, shift_bits) for x, shape in tests]
        except ValueError:
            continue
        usable.append(action)
    alone = singles + [a for a in usable if a.pool]  # a head whose reading no other combines with
    crops = [a for a in usable if a.shift != (0, 0) and not a.fill and a not in singles]
    crops += [a for a in usable if a.shift == (0, 0) and a.scale == (1, 1)]  # the dihedral elements
    crops += [a for a in usable if a.down and not a.pool and a.shift == (0, 0)]  # with a block's other cells
    crops += [a for a in symmetries if a in usable and a not in crops]
    n_pairs = len(pairs)
    outputs, pair_of = _train_cells(pairs)
    flat = {a: np.concatenate([r.reshape(-1) for r in read[a]]) for a in usable}
    found: list[ActionSet] = []
    explained: set[frozenset[ExactAction]] = set()
    for k in range(1, max_heads + 1):
        pool = [a for a in usable if a not in alone] if k == 2 else usable if k == 1 else crops
        for combo in itertools.islice(itertools.combinations(pool, k), MAX_COMBINATIONS):
            if any(frozenset(sub) in explained for j in range(1, k) for sub in itertools.combinations(combo, j)):
                continue  # a head more than a set that already explains the outputs
            keys = _cell_keys([flat[a] for a in combo])
            if not _is_function(keys, outputs):
                continue  # two cells read alike and ask for different colours
            if len(np.unique(keys)) == len(keys):
                continue  # every cell reads differently: a table of positions, not a rule
            explained.add(frozenset(combo))
            if _longer_than_the_data(math.comb(len(pool), k), len(np.unique(keys)), outputs):
                continue  # chosen among so many sets that the pairs cannot tell it from chance
            test_keys = [_cell_keys([test_read[a][t].reshape(-1) for a in combo]) for t in range(len(tests))]
            found.append(ActionSet(combo, *_support(keys, pair_of, n_pairs, test_keys)))
    found += counting_sets(pairs, [a for a in usable if a.pool] + _counted_pools(pairs), shift_bits)
    found += per_tile_sets(pairs, tests, shift_bits)
    if not any(len(f.actions) == 1 for f in found):  # no one head explains the pairs: two layers may
        found += per_tile_sets(pairs, tests, shift_bits, sampled=True)  # or a sampling, then each tile's action
        single = [a for a in usable if not a.pool]
        found += composed_sets(pairs, tests, single, read, test_read, shift_bits)
    found += overlay_sets(found, pairs, symmetries)
    return _distinct(sorted(found, key=ActionSet.rank), pairs, tests, shift_bits)


def counting_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], pools: Sequence[ExactAction], shift_bits: int = 5
) -> list[ActionSet]:
    """One pooling head (of `pools`) each, whose cell rule is a count rule that the train pairs
    obey (`arcsolve.latformer.count_rules`): each cell the colour its block holds most often.
    It answers blocks that no train pair shows, so it leaves no cell unexplained. None that
    is as long as the data (the rare colours and the tie constraints it chose, among `pools`
    and the 2^10 sets of rare colours)."""
    outputs, _ = _train_cells(pairs)
    found = []
    for action in pools:
        blocks = set_readings(ActionSet((action,), 0, 0), pairs, shift_bits).T  # (cells, block): its colours
        rule = count_rule(block_counts(blocks), outputs)
        if rule is not None and not _longer_than_the_data(len(pools) << 10, rule[1], outputs):
            found.append(ActionSet((action,), 0, 0, counts=rule[0]))
    return found


def overlay_sets(
    sets: Sequence[ActionSet],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    symmetries: Sequence[ExactAction] = (),
    shift_bits: int = 5,
) -> list[ActionSet]:
    """The sets of two to four heads (one action each, no second-layer action, no pooling)
    whose train outputs an overlay rule gives (`arcsolve.latformer.overlay_rules`): each cell
    the first head's reading, in some order, that is not a clear colour. It answers every
    combination of readings, so it leaves no cell unexplained. One per set of actions and
    order that the train pairs allow. Each is then given, last in its order, every output
    symmetry (`symmetries`) it does not hold and that keeps the rule true on the train pairs,
    up to MAX_OVERLAID heads: on a test a hidden cell that the first heads read clear is
    filled from one more mirror image."""
    outputs, _ = _train_cells(pairs)
    found, met = [], set()
    more = {a: set_readings(ActionSet((a,), 0, 0), pairs, shift_bits) for a in symmetries}  # (1, cells) each
    for s in sets:
        plain = s.tiles == (1, 1) and s.then is None and not s.window and s.counts is None
        if not plain or len(s.actions) < 2 or any(a.pool for a in s.actions) or s.actions in met:
            continue
        met.add(s.actions)
        chosen = set_readings(s, pairs)
        for rule in overlay_rules(chosen, outputs):
            actions, read = list(s.actions), chosen
            for extra in symmetries:
                if len(actions) == MAX_OVERLAID:
                    break
                if extra in actions:
                    continue
                wider = replace(rule, order=(*rule.order, len(actions)))
                if np.array_equal(wider.apply(np.concatenate([read, more[extra]])), outputs):
                    actions, read, rule = [*actions, extra], np.concatenate([read, more[extra]]), wider
            found.append(replace(s, actions=tuple(actions), unsupported=0, unseen=0, overlay=rule))
    return found


def _counted_pools(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[ExactAction]:
    """The pooling by the stride that every input is of its output, where its blocks hold more
    cells than a multiset key can (MAX_POOLED) and no more than a count rule reads
    (MAX_COUNTED): only a count rule may explain it."""
    strides = set()
    for x, y in pairs:
        (h, w), (H, W) = x.shape, y.shape
        strides.add((h // H, w // W) if h % H == 0 and w % W == 0 else None)
    if len(strides) != 1 or None in strides:
        return []
    (f_r, f_c) = strides.pop()
    if MAX_POOLED < f_r * f_c <= MAX_COUNTED and {f_r, f_c} <= set(SCALE_FACTORS):
        return [ExactAction(0, scale=(f_r, f_c), down=True, pool=True)]
    return []


def _distinct(
    sets: list[ActionSet],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    shift_bits: int = 5,
    most: int = 64,
) -> list[ActionSet]:
    """The first `most` sets less those that read exactly what an earlier one reads, on the
    train pairs and the test inputs alike (a down-scaling shifted within the grid reads the
    same with fill or without): such a set would only fit the same answer again."""
    kept, seen = [], set()
    lattices = list(pairs) + [(x, np.zeros(shape, dtype=np.int64)) for x, shape in tests]
    for s in sets[:most]:
        signature = (s.tiles, s.counts, s.overlay, set_readings(s, lattices, shift_bits).tobytes())
        if signature not in seen:
            seen.add(signature)
            kept.append(s)
    return kept + sets[most:]


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


MAX_WINDOWS = 8  # windows (sizes and offsets) whose contents are searched, at most (the tightest first)
MAX_SCREENED_WINDOWS = 400  # windows whose tightness is measured, at most (the least scaled and moved first)
MAX_LOOSE_WINDOW = 3  # windows of up to this many input sides (a side) may leave margins that vary by pair


def windowed_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
    most: int = 1,
) -> list[ActionSet]:
    """Outputs that are one head's action of the input inside a window of a larger canvas,
    the rest one colour: a grid tiled, mirrored, scaled or shifted, then padded or set on a
    canvas. The window is K_r·h × K_c·w input-sized (or turned) cells at one offset (top, left)
    on every pair (with margins that vary by pair only for K ≤ `MAX_LOOSE_WINDOW`), K whole or
    a fraction p/q (q of 2 or 3, with fixed margins: a grid scaled by 3/2, then padded), and
    its content is any one-head action (`single_actions`) of the outputs cut to it. As a
    model: the first layer's heads are the content's action on the whole output lattice and a
    window head (the input up-scaled by p with fill, strided by q: it reads something exactly
    inside a K_r·h × K_c·w window at the lattice's start), and the second layer shifts that by
    (top, left) with fill. At most `most` sets, the tightest window first."""
    outs = [y.shape for _, y in pairs]
    # a margin colour: one that every output holds; the window then holds each output's other cells
    colours = sorted(set.intersection(*(set(np.unique(y).tolist()) for _, y in pairs)))
    windows = []
    # fractional windows only where the outputs' sizes differ from the inputs' (on a task of
    # one size, a window of part of the input with fixed margins is a crop's business)
    fractions = (1,) if all(x.shape == y.shape for x, y in pairs) else (1, 2, 3)
    for turned in (False, True):
        sides = [x.shape[::-1] if turned else x.shape for x, _ in pairs]
        per_axis = []
        for axis in (0, 1):
            options = []  # ((p, q), the least room, any room) with out ≥ side·p/q on every pair
            for q, k in itertools.product(fractions, range(1, MAX_FACTOR + 1)):
                if math.gcd(k, q) > 1 or any(s[axis] * k % q for s in sides):
                    continue  # the window's side is no whole number of cells
                rooms = {o[axis] - s[axis] * k // q for s, o in zip(sides, outs, strict=True)}
                if min(rooms) < 0 or (k > 1 and _scale_bits(k) is None):
                    continue  # past some output's edge, or no scaling of the experts
                if len(rooms) == 1 or (q == 1 and k <= MAX_LOOSE_WINDOW):
                    options.append(((k, q), min(rooms), max(rooms) > 0))
            per_axis.append(options)
        for margin in colours:
            boxes = [_box(y != margin) for _, y in pairs]
            for (k_r, c_r, room_r), (k_c, c_c, room_c) in itertools.product(*per_axis):
                if not (room_r or room_c):
                    continue  # no margin: the content's own action
                tops = _offsets(boxes, [_window_side(s[0], k_r) for s in sides], c_r, 0)
                lefts = _offsets(boxes, [_window_side(s[1], k_c) for s in sides], c_c, 1)
                windows += [(turned, (k_r, k_c), (top, left), margin) for top in tops for left in lefts]
    windows = list({w[:3]: w for w in reversed(windows)}.values())  # one margin colour a window: the first
    windows.sort(key=lambda w: (w[1][0][0] * w[1][1][0] / (w[1][0][1] * w[1][1][1]), w[2][0] + w[2][1], w[2]))
    outputs, pair_of = _train_cells(pairs)
    test_lattices = [(x, np.zeros(shape, dtype=np.int64)) for x, shape in tests]
    found: list[ActionSet] = []
    ranked = []  # the windows, with how tight they are
    for turned, (k_r, k_c), (top, left), margin in windows[:MAX_SCREENED_WINDOWS]:
        sizes = [x.shape[::-1] if turned else x.shape for x, _ in pairs]
        cut = [
            y[top : top + _window_side(h, k_r), left : left + _window_side(w, k_c)]
            for (_, y), (h, w) in zip(pairs, sizes, strict=True)
        ]
        ranked.append((-_tight_edges(cut, margin), turned, (k_r, k_c), (top, left), cut))
    ranked.sort(key=lambda w: w[0])  # stable: the least moved first among equally tight windows
    choices = len(ranked) * 8  # windows, and contents (`single_actions`, at most 8) in each
    for _, turned, (k_r, k_c), (top, left), cut in ranked[:MAX_WINDOWS]:
        (p_r, q_r), (p_c, q_c) = k_r, k_c
        window = ExactAction(4 if turned else 0, scale=(p_r, p_c), fill=True, stride=(q_r, q_c))
        then = ExactAction(0, (top, left), fill=True)
        inner = [(x, c) for (x, _), c in zip(pairs, cut, strict=True)]
        for content in single_actions(inner, shift_bits=shift_bits, placed=False):  # not padded again
            start = ActionSet((content, window), 0, 0, then=then, window=True)
            try:
                keys = _window_keys(start, pairs, shift_bits)
                test_keys = [_window_keys(start, [lattice], shift_bits) for lattice in test_lattices]
            except ValueError:
                continue  # the content is no action of the experts on the whole output lattice
            if keys is None or not _is_function(keys, outputs):
                continue
            entries = len(np.unique(keys))
            if entries == len(keys) or _longer_than_the_data(choices, entries, outputs):
                continue  # a table of positions, or chosen among so many windows that it may be chance
            if any(k is None for k in test_keys):
                continue  # the window does not fit a test output
            unsupported, unseen = _support(keys, pair_of, len(pairs), test_keys)
            found.append(replace(start, unsupported=unsupported, unseen=unseen))
            break
        if len(found) == most:
            break
    return found


def _tight_edges(cut: Sequence[np.ndarray], margin: int) -> int:
    """How many of a window's four edges (first and last row and column) hold a cell of
    another colour than the margins' on some pair: a window that fits its content closely
    is tried before one that takes some of the margin in."""
    edges = ((0, slice(None)), (-1, slice(None)), (slice(None), 0), (slice(None), -1))
    return sum(any((c[edge] != margin).any() for c in cut if c.size) for edge in edges)


def _box(cells: np.ndarray) -> tuple[int, int, int, int] | None:
    """The bounding box (top, bottom, left, right; bottom and right past the end) of the true
    cells, None when there are none."""
    rows, cols = np.nonzero(cells.any(1))[0], np.nonzero(cells.any(0))[0]
    if rows.size == 0:
        return None
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def _offsets(boxes: Sequence[tuple[int, int, int, int] | None], sides: Sequence[int], room: int, axis: int) -> range:
    """The offsets on one axis at which a window of each pair's side (`sides`) holds its
    box, within the least room that every output leaves."""
    held = [(b[2 * axis], b[2 * axis + 1], side) for b, side in zip(boxes, sides, strict=True) if b is not None]
    low = max([0] + [end - side for _, end, side in held])
    high = min([room] + [start for start, _, _ in held])
    return range(low, high + 1)


def _window_side(side: int, fraction: tuple[int, int]) -> int:
    """A window's side: `side` input cells scaled by the fraction (p, q), p/q."""
    return side * fraction[0] // fraction[1]


def _window_keys(
    start: ActionSet, pairs: Sequence[tuple[np.ndarray, np.ndarray]], shift_bits: int = 5
) -> np.ndarray | None:
    """Each output cell's key under a windowed set: the content's reading where the window
    head reads something, NOTHING elsewhere, as the second layer's shift reads them (+1, so
    that NOTHING is 0); None when the window does not fit an output lattice."""
    content, window = start.actions
    keys = []
    for x, y in pairs:
        inside = reading(window, x, y.shape, shift_bits) != NOTHING
        (h, w) = x.shape[::-1] if window.dihedral >= 4 else x.shape
        rows = _window_side(h, (window.scale[0], window.stride[0]))
        cols = _window_side(w, (window.scale[1], window.stride[1]))
        if start.then.shift[0] + rows > y.shape[0] or start.then.shift[1] + cols > y.shape[1]:
            return None
        first = np.where(inside, reading(content, x, y.shape, shift_bits), NOTHING)
        keys.append(_then_reading(start.then, first, shift_bits).reshape(-1) + 1)
    return np.concatenate(keys)


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
    heads: dict[ExactAction, list[ExactAction]] = {}
    for d in range(1, 8):
        then = ExactAction(d)
        cells = [_output_cells(then, y.shape, shift_bits) for _, y in pairs]
        if any(c is None or len(np.unique(c)) != c.size or (c < 0).any() for c in cells):
            continue  # an element that does not map the output lattice onto itself
        back = []
        for (x, y), c in zip(pairs, cells, strict=True):
            turned = np.empty(y.size, dtype=y.dtype)
            turned[c] = y.reshape(-1)  # y reads turned at c, so turned holds y's cells there
            back.append((x, turned.reshape(y.shape)))
        heads[then] = [h for h in single_actions(back, shift_bits=shift_bits) if not h.pool]
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
    # (tiled fills last: a shift with fill in each tile, then the whole output shifted, is rare)
    heads = sorted(maps, key=lambda a: (a.tiled_fill, abs(a.shift[0]) + abs(a.shift[1]), a.dihedral > 0, a.fill))
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
                block[h], valid[h] = _follow(x, c) + 1, True
        if step == 0:  # heads that read alike here are screened once: their tables are alike so far
            _, first, alike = np.unique(block, axis=0, return_index=True, return_inverse=True)
        for then in list(standing):
            alive, met = standing[then]
            cells = _output_cells(then, y.shape, shift_bits)
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
    """A placement of the input in a larger output (`_placements`, unscaled), then the second
    layer's action on the output lattice (`output_actions`): a grid set on a canvas, then the
    canvas flipped or shifted, which moves each input by its own amount."""
    heads = [a for a in _placements(pairs, shift_bits) if a.scale == (1, 1)][:MAX_PLACED_HEADS]
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
            if _tiles_of(f, g, [(x.shape[axis], y.shape[axis]) for x, y in pairs]) is not None
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
    options = [_axis_strides([(x.shape[axis], y.shape[axis]) for x, y in pairs], SCALE_FACTORS) for axis in (0, 1)]
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


def _tiles_of(f: int, g: int, sides: Sequence[tuple[int, int]]) -> int | None:
    """The whole number of tiles t with out·f = in·g·t on every (in, out) side of one axis,
    the same on all of them, or None."""
    tiles = {(out * f) // (side * g) if (out * f) % (side * g) == 0 else 0 for side, out in sides}
    return tiles.pop() if len(tiles) == 1 and min(tiles) > 0 else None


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
    (`_longer_than_the_data`, among `choices`), none whose `then` reads nothing in more than
    a share `blank` of some pair's cells."""
    outputs, pair_of = _train_cells(pairs)
    order = sorted(range(len(pairs)), key=lambda k: pairs[k][1].size)  # the cheapest pair rejects first
    found: list[ActionSet] = []
    cells_of: dict[ExactAction, list[np.ndarray | None] | None] = {}
    for then, head in combos:
        if then not in cells_of:
            cells = [_output_cells(then, y.shape, shift_bits) for _, y in pairs]
            # not an action of the experts here, or one that reads nothing in most cells
            bad = any(c is None or (c == NOTHING).mean() > blank for c in cells)
            cells_of[then] = None if bad else cells
        cells = cells_of[then]
        if cells is None:
            continue
        seen = np.zeros((11, 10), dtype=bool)  # (reading + 1, output colour) pairs met so far
        for k in order:
            keys = _follow(read[head][k], cells[k]) + 1
            seen[keys, pairs[k][1].reshape(-1)] = True
            if (seen.sum(1) > 1).any():
                break
        else:
            composed = np.concatenate([_then_reading(then, r, shift_bits).reshape(-1) for r in read[head]])
            entries = len(np.unique(composed))
            if entries == len(composed) or _longer_than_the_data(choices, entries, outputs):
                continue  # a table of positions, or chosen among so many that it may be chance
            test_keys = [_then_reading(then, r, shift_bits).reshape(-1) + 1 for r in test_read[head]]
            found.append(ActionSet((head,), *_support(composed + 1, pair_of, len(pairs), test_keys), then=then))
            if len(found) == most:
                break
    return found


def _output_cells(then: ExactAction, shape: tuple[int, int], shift_bits: int = 5) -> np.ndarray | None:
    """The cell of a `shape` lattice that each cell reads under a second-layer action (a
    shift, as the kernels shift, a dihedral element or an up-scaling), NOTHING where it
    reads none."""
    if then.scale != (1, 1):
        return _scaled_cells(then, tuple(shape), tuple(shape), shift_bits)
    if then.dihedral == 0:
        return _shift_cells(tuple(shape), then.shift, then.fill)
    return source_cells(then, tuple(shape), tuple(shape), shift_bits)


def _then_reading(then: ExactAction, first: np.ndarray, shift_bits: int = 5) -> np.ndarray:
    """What the second layer at `then` reads on the output lattice where the first layer
    wrote `first` (−1 where it read nothing)."""
    cells = _output_cells(then, first.shape, shift_bits)
    if cells is None:
        raise ValueError(f"{then} is not an action of the experts on a {first.shape} lattice")
    return _follow(first, cells).reshape(first.shape)


def tiling(pairs: Sequence[tuple[np.ndarray, np.ndarray]], factor: tuple[int, int] = (1, 1)) -> tuple[int, int] | None:
    """(a, b) when every train output is an a×b tiling of input-sized tiles (2 to MAX_TILES
    tiles, the same for every pair), else None; with a `factor`, of tiles the size of the
    input sampled by it (every input side a multiple of it)."""
    found = set()
    for x, y in pairs:
        (h, w), (H, W) = x.shape, y.shape
        if h % factor[0] or w % factor[1]:
            return None
        h, w = h // factor[0], w // factor[1]
        if H % h or W % w:
            return None
        found.add((H // h, W // w))
    if len(found) != 1:
        return None
    a, b = found.pop()
    return (a, b) if 2 <= a * b <= MAX_TILES else None


def _longer_than_the_data(choices: int, entries: int, outputs: np.ndarray) -> bool:
    """Is a set that explains the outputs no shorter than they are? Its description is the
    bits that pick it among `choices` sets and the `entries` of its cell rule, each one of
    the outputs' colours; the outputs' own is every cell one of their colours. A set that is
    not shorter fits by chance (one cell among a hundred offsets that happens to hold each
    1×1 output's colour), so it is no starting point."""
    bits_per_cell = math.log2(max(2, len(np.unique(outputs))))
    return math.log2(choices) + entries * bits_per_cell >= outputs.size * bits_per_cell


def _train_cells(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Every train output cell's colour, the pairs' cells one after another, and the pair
    each cell belongs to."""
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs])
    pair_of = np.concatenate([np.full(y.size, p) for p, (_, y) in enumerate(pairs)])
    return outputs, pair_of


def _cell_keys(readings: Sequence[np.ndarray]) -> np.ndarray:
    """Each cell's readings by several heads (each −1…9, one array per head) as one integer,
    in base 11."""
    return sum((r + 1) * 11**i for i, r in enumerate(readings))


def _is_function(keys: np.ndarray, outputs: np.ndarray) -> bool:
    """Do cells with equal keys always ask for the same colour?"""
    return len(np.unique(keys * 10 + outputs)) == len(np.unique(keys))


def _support(
    keys: np.ndarray, pair_of: np.ndarray, n_pairs: int, test_keys: Sequence[np.ndarray]
) -> tuple[int, int]:
    """(unsupported, unseen) as `ActionSet` counts them, from the train cells' keys (their
    readings as one integer), the pair of each cell and the test cells' keys."""
    distinct, where = np.unique(keys, return_inverse=True)
    # pairs showing each key: a key only one pair shows is unsupported when it is held out
    shown = np.zeros((len(distinct), n_pairs), dtype=bool)
    shown[where, pair_of] = True
    unsupported = int((shown.sum(1)[where] == 1).sum()) if n_pairs > 1 else 0
    unseen = int(sum((~np.isin(t, distinct)).sum() for t in test_keys))
    return unsupported, unseen


def _tile_index(out_shape: tuple[int, int], tiles: tuple[int, int]) -> np.ndarray:
    """The tile of each output cell (row-major), as the model's per-tile heads see it."""
    return tile_cells(tuple(out_shape), tiles).argmax(0).numpy()


MAX_TILE_SHIFT = 3  # per-tile actions may shift their tile's copy cyclically by at most this much a side
MAX_TILE_SAMPLING = 3  # per-tile actions may sample their tile's copy every 2nd or 3rd cell a side


def per_tile_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
    max_tries: int = 512,
    sampled: bool = False,
) -> list[ActionSet]:
    """Where every output is a tiling of the input's size: one action per tile such that the
    output is one function of the head's reading, cell by cell, in every tile (each tile a
    rotated or reflected copy, recoloured alike: tilings of mirror tilings and mirror tilings
    of tilings among them); at most one such set, and none when one action serves every tile
    (a plain tiling, which `consistent_sets` has). The tiles' actions are dihedral elements
    or, where those explain no set, dihedral elements of the input shifted cyclically by at
    most `MAX_TILE_SHIFT` a side (a tiling of a rolled grid's mirror images). With
    `sampled`, instead: tilings of the input sampled every f-th cell a side (f up to
    `MAX_TILE_SAMPLING`), each tile a rotated or reflected copy of the sampled grid, read as
    a sampling after the element, at the cell of each block that the element brings first
    (the first factor that gives a set)."""
    if not sampled:
        return _per_tile_set(pairs, tests, shift_bits, max_tries)
    factors = itertools.product(range(1, MAX_TILE_SAMPLING + 1), repeat=2)
    for factor in sorted((f for f in factors if f != (1, 1)), key=lambda f: (f[0] * f[1], f)):
        found = _per_tile_set(pairs, tests, shift_bits, max_tries, factor)
        if found:
            return found
    return []


def _per_tile_set(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    shift_bits: int,
    max_tries: int,
    factor: tuple[int, int] = (1, 1),
) -> list[ActionSet]:
    """`per_tile_sets` on tiles of the input's size (`factor` (1, 1)) or of the input
    sampled by `factor`."""
    tiles = tiling(pairs, factor)
    if tiles is None:
        return []
    tile_of = np.concatenate([_tile_index(y.shape, tiles) for _, y in pairs])
    outputs, pair_of = _train_cells(pairs)
    n_tiles = tiles[0] * tiles[1]
    if factor != (1, 1):
        # a block's f cells, in any order the elements bring them: the least moved first
        offsets = sorted(itertools.product(range(factor[0]), range(factor[1])), key=lambda o: (sum(o), o))
        sampled = {}
        for offset, d in itertools.product(offsets, range(8)):
            action = ExactAction(d, (-offset[0], -offset[1]), factor, down=True)
            try:
                read = [reading(action, x, y.shape, shift_bits).reshape(-1) for x, y in pairs]
            except ValueError:
                continue
            sampled[action] = np.concatenate(read)
        found = _tile_choice(sampled, tile_of, outputs, n_tiles, max_tries)
        if found is None:
            return []
        actions, keys = found
    else:
        dihedral = {}
        for d in range(8):
            try:
                read = [reading(ExactAction(d), x, y.shape, shift_bits).reshape(-1) for x, y in pairs]
            except ValueError:
                continue
            dihedral[d] = np.concatenate(read)
        reads = {(d, (0, 0)): r for d, r in dihedral.items()}
        found = _tile_choice(reads, tile_of, outputs, n_tiles, max_tries)
        if found is None:
            reads.update(_rolled_readings(pairs, list(dihedral), shift_bits))
            found = _tile_choice(reads, tile_of, outputs, n_tiles, max_tries)
        if found is None:
            return []
        choice, keys = found
        as_action = {option: _shifted_action(*option, pairs, reads[option], shift_bits) for option in set(choice)}
        if None in as_action.values():
            return []  # a roll that none of the experts' shifts reads
        actions = tuple(as_action[option] for option in choice)
    test_keys = []
    for x, shape in tests:
        read_test = np.stack([reading(act, x, shape, shift_bits).reshape(-1) for act in actions])
        tile = _tile_index(shape, tiles)
        test_keys.append(read_test[tile, np.arange(len(tile))] + 1)
    return [ActionSet(tuple(actions), *_support(keys, pair_of, len(pairs), test_keys), tiles)]


TileOption = tuple[int, tuple[int, int]]  # a dihedral element of the input rolled by (a, b)


def _tile_choice(
    reads: dict[Hashable, np.ndarray], tile_of: np.ndarray, outputs: np.ndarray, n_tiles: int, max_tries: int
) -> tuple[tuple[Hashable, ...], np.ndarray] | None:
    """One option per tile, from `reads` (each option's reading of every train output cell,
    in the order given: the simplest first), under which each tile's outputs and then all of
    them together are one function of the reading; None when there is none, or when one
    option serves every tile."""
    fits = {option: _function_per_tile(r, tile_of, outputs, n_tiles) for option, r in reads.items()}
    options = [[option for option, ok in fits.items() if ok[t]] for t in range(n_tiles)]
    if not all(options):
        return None
    for choice in itertools.islice(itertools.product(*options), max_tries):
        if len(set(choice)) == 1:
            continue
        keys = np.stack([reads[option] for option in choice])[tile_of, np.arange(len(tile_of))] + 1
        if _is_function(keys, outputs):
            return choice, keys
    return None


def _function_per_tile(read: np.ndarray, tile_of: np.ndarray, outputs: np.ndarray, n_tiles: int) -> np.ndarray:
    """Per tile: are its output cells a function of their reading (no two cells that read
    alike ask for different colours)?"""
    triples = np.unique((tile_of * 12 + read + 1) * 10 + outputs)  # (tile, reading, colour), readings −1…10
    keys = triples // 10
    clash = keys[1:] == keys[:-1]
    ok = np.ones(n_tiles, dtype=bool)
    ok[keys[1:][clash] // 12] = False
    return ok


def _rolled_readings(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], elements: Sequence[int], shift_bits: int = 5
) -> dict[TileOption, np.ndarray]:
    """Each dihedral element's reading of the input rolled cyclically by (a, b), |a|, |b| ≤
    `MAX_TILE_SHIFT` (the least rolled first)."""
    most = min(MAX_TILE_SHIFT, min(min(x.shape) for x, _ in pairs) // 2)
    rolls = sorted(
        ((a, b) for a in range(-most, most + 1) for b in range(-most, most + 1) if (a, b) != (0, 0)),
        key=lambda r: (abs(r[0]) + abs(r[1]), r),
    )
    return {
        (d, delta): np.concatenate(
            [reading(ExactAction(d), np.roll(x, delta, axis=(0, 1)), y.shape, shift_bits).reshape(-1) for x, y in pairs]
        )
        for delta in rolls
        for d in elements
    }


def _shifted_action(
    d: int, delta: tuple[int, int], pairs: Sequence[tuple[np.ndarray, np.ndarray]], rolled: np.ndarray, shift_bits: int
) -> ExactAction | None:
    """The action of element `d` with a cyclic shift that reads, on every pair, what `d` reads
    of the input rolled by `delta` (the shift is on the output's side of the element, so its
    axes and signs follow the element); None when none of the experts' shifts does."""
    a, b = delta
    for shift in dict.fromkeys(((a, b), (-a, -b), (a, -b), (-a, b), (b, a), (-b, -a), (b, -a), (-b, a))):
        action = ExactAction(d, shift)
        try:
            read = np.concatenate([reading(action, x, y.shape, shift_bits).reshape(-1) for x, y in pairs])
        except ValueError:
            continue
        if np.array_equal(read, rolled):
            return action
    return None


def background_colour(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> int:
    """The colour that covers the most cells of every train input, or 0 when no one colour does."""
    top = {int(np.bincount(x.reshape(-1), minlength=10).argmax()) for x, _ in pairs}
    return top.pop() if len(top) == 1 else 0


def set_readings(start: ActionSet, pairs: Sequence[tuple[np.ndarray, np.ndarray]], shift_bits: int = 5) -> np.ndarray:
    """(heads, cells) what each head of `start` reads in every train output cell, the pairs'
    cells one after another; with per-tile actions, one head whose cells read through their
    own tile's action."""
    actions = [cell for a in start.actions for cell in (block_cells(a) if a.pool else [a])]  # a pooling: its cells

    def read(a: ExactAction, x: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
        first = reading(a, x, shape, shift_bits)
        return first if start.then is None else _then_reading(start.then, first, shift_bits)

    per_action = np.stack([np.concatenate([read(a, x, y.shape).reshape(-1) for x, y in pairs]) for a in actions])
    if start.tiles == (1, 1):
        return per_action
    tile_of = np.concatenate([_tile_index(y.shape, start.tiles) for x, y in pairs])
    return per_action[tile_of, np.arange(len(tile_of))][None]


def colours_to_fix(readings: np.ndarray, outputs: np.ndarray, background: int = 0) -> tuple[int, ...]:
    """The colours a fit's colour permutations must leave alone, given what its heads read
    (heads × cells) and the outputs (cells): the background, the colours an output cell
    takes that none of its heads reads there (the rule introduces them), and those whose
    swap with another colour would contradict the pairs (the rule tells them apart, as when
    it erases one colour and keeps the rest). The others are free: the rule treats them
    alike, so permuting them teaches it colours the train pairs never show. Where the
    background is not 0 (`background_colour`), 0 is one of the others."""
    introduced = outputs[(outputs != background) & ~(readings == outputs[None]).any(0)]
    fixed = {background, *introduced.tolist()}
    seen = sorted({c for c in np.unique(readings).tolist() + np.unique(outputs).tolist() if c >= 0} - fixed)

    def conflict(c: int, d: int) -> bool:
        lut = np.arange(-1, 10)
        lut[c + 1], lut[d + 1] = d, c
        keys = _cell_keys(np.concatenate([readings, lut[readings + 1]], axis=1))
        return not _is_function(keys, np.concatenate([outputs, lut[outputs + 1]]))

    clashes = {c: {d for d in seen if d != c and conflict(c, d)} for c in seen}
    kept = {c for c in seen if ((readings == c) & (readings == outputs[None])).any()}
    free: list[int] = []
    # among colours that clash alike, one that some cell keeps goes free first: permuting it
    # teaches that a colour the pairs never show keeps itself, not that it takes another's
    for c in sorted(seen, key=lambda c: (len(clashes[c]), c not in kept, c)):
        if not clashes[c] & set(free):
            free.append(c)
    return tuple(sorted(fixed | (set(seen) - set(free))))
