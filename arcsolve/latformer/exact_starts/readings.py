"""What a head at an exact action reads: the input cell each output cell attends to
(`source_cells`, in numpy, tested against the model's own mask kernels:
`kernel_source_cells`), the colours it reads there (`reading`; a pooling's blocks as
multisets: `pooled_key`), and what the second layer at an action reads on the output
lattice after the heads (`then_reading`). NOTHING marks a cell that reads none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache, lru_cache

import numpy as np
import torch

from arcsolve.latformer.exact_starts.actions import ExactAction, expressible, gate_bits
from arcsolve.latformer.experts import MaskExperts
from arcsolve.latformer.mask_kernels import build_mask
from arcsolve.latformer.periods import grid_period, period_counts
from arcsolve.symmetry import apply_dihedral

NOTHING = -1  # the reading of an output cell whose source lies outside the input


@cache
def _reference_experts(shift_bits: int) -> MaskExperts:
    return MaskExperts(
        ("translate", "rotate", "reflect", "scale"),
        0,
        shift_bits,
        strides=True,
        tiled_fills=True,
        shared_edges=True,
        anchors=True,
        paddings=True,
        centres=True,
        stretches=True,
    )


@cache
def source_cells(
    action: ExactAction, in_shape: tuple[int, int], out_shape: tuple[int, int], shift_bits: int = 5
) -> np.ndarray | None:
    """The input cell (row-major index) each output cell attends to under `action`, NOTHING
    where it reads none; None when the experts cannot express the action. Computed in numpy
    (`scaled_cells`), which reads as the model's own mask kernels read
    (`kernel_source_cells`: tested to agree on random actions and lattices); a pooling, which
    reads whole blocks, through the kernels."""
    if action.pool:
        return kernel_source_cells(action, in_shape, out_shape, shift_bits)
    if not expressible(action, shift_bits):
        return None
    return scaled_cells(action, in_shape, out_shape, shift_bits)


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


def follow(values: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """The value at each of `cells` (row-major indices into `values`, flattened), NOTHING
    where the cell is NOTHING: a lattice read through a map of cells, or one map of cells
    through another."""
    return np.where(cells >= 0, values.reshape(-1)[np.maximum(cells, 0)], NOTHING)


def reading(action: ExactAction, grid: np.ndarray, out_shape: tuple[int, int], shift_bits: int = 5) -> np.ndarray:
    """What a head at `action` reads in each cell of the output lattice: the input colour of
    the cell it attends to, or NOTHING. A pooling reads a block of cells: its reading is
    their colours as a multiset, one integer per output cell (`pooled_key`). A periodic read
    reads every translate of its cell by the grid's own period: its reading is the colour
    most of them hold, the holes aside (`periodic_reading`)."""
    if action.hole is not None:
        return periodic_reading(action, grid, out_shape, shift_bits)
    if action.pool:
        return pooled_key(action, grid, out_shape, shift_bits)
    cells = source_cells(action, tuple(grid.shape), tuple(out_shape), shift_bits)
    if cells is None:
        raise ValueError(f"{action} is not an action of the experts")
    return follow(grid, cells).reshape(out_shape)


MAX_POOLED = 16  # cells of a block a pooling reads, at most (its multiset key fits in 64 bits)


def periodic_reading(
    action: ExactAction, grid: np.ndarray, out_shape: tuple[int, int], shift_bits: int = 5
) -> np.ndarray:
    """What a periodic read (`ExactAction.hole`) reads in each output cell: the colour that
    most translates of its source cell by the grid's period hold, the holes aside (the
    smallest among the most frequent), the hole's colour where every translate is a hole,
    or NOTHING where the rest of the action reads no cell."""
    cells = source_cells(replace(action, hole=None), tuple(grid.shape), tuple(out_shape), shift_bits)
    if cells is None:
        raise ValueError(f"{action} is not an action of the experts")
    counts = period_counts(grid, grid_period(grid, action.hole), ignore=action.hole)
    classes = np.where(counts.any(-1), counts.argmax(-1), action.hole)  # (p, q)
    p, q = classes.shape
    at = np.maximum(cells, 0)
    read = classes[(at // grid.shape[1]) % p, (at % grid.shape[1]) % q]
    return np.where(cells >= 0, read, NOTHING).reshape(out_shape)


def block_cells(action: ExactAction) -> list[ExactAction]:
    """The samplings that read, one by one, the cells a pooling reads together."""
    (f_r, f_c), (d_r, d_c) = action.scale, action.shift
    return [replace(action, shift=(d_r - r, d_c - c), pool=False) for r in range(f_r) for c in range(f_c)]


def pooled_key(action: ExactAction, grid: np.ndarray, out_shape: tuple[int, int], shift_bits: int = 5) -> np.ndarray:
    """The colours of each output cell's block under a pooling, as a multiset (sorted, then
    one base-11 integer): cells whose blocks hold the same colours, in any places, read alike."""
    cells = np.sort(np.stack([reading(a, grid, out_shape, shift_bits) for a in block_cells(action)]), axis=0)
    return cell_keys(list(cells)).astype(np.int64) - 1


def cell_keys(readings: Sequence[np.ndarray]) -> np.ndarray:
    """Each cell's readings by several heads (each −1…9, one array per head) as one integer,
    in base 11."""
    return sum((r + 1) * 11**i for i, r in enumerate(readings))


@cache
def _turned_cells(dihedral: int, shape: tuple[int, int]) -> np.ndarray:
    """The input cell each cell of the turned lattice reads under a dihedral element."""
    return apply_dihedral(np.arange(shape[0] * shape[1]).reshape(shape), dihedral).reshape(-1)


def scaled_cells(
    action: ExactAction, in_shape: tuple[int, int], out_shape: tuple[int, int], shift_bits: int
) -> np.ndarray | None:
    """A quick numpy reading of a scaled `action` (row-major source of each output cell,
    NOTHING where it reads none), as the kernels read: scale, wrap cyclically or as mirror
    images (or, with fill, not at all), shift on the lattice before the dihedral element
    (an axis counted from its far edge where anchored, from the input's middle where
    centred, or shifted, then folded back into the input where padded; the input's lattice
    laid over the output's where stretched), then the element."""
    before = in_shape[::-1] if action.dihedral >= 4 else in_shape  # the elements that swap the axes
    element = _turned_cells(action.dihedral, tuple(in_shape))
    kind = (action.down, action.fill, action.tiled_fill)
    axes_of = zip(
        out_shape, before, action.scale, action.shift, action.mirror, action.stride, action.shared, strict=True
    )
    (rows, on_r), (cols, on_c) = (
        _anchored(*_axis_sources(*axis, *kind, padded), axis[1]) if anchor else _axis_sources(*axis, *kind, padded)
        for axis, anchor, padded in zip(axes_of, action.anchor, action.padded, strict=True)
    )
    if any(action.centre):  # read from the input's middle: moved on by ⌊(n_in − n_out)/2⌋
        if action.centre[0]:
            rows = (rows + (before[0] - out_shape[0]) // 2) % before[0]
        if action.centre[1]:
            cols = (cols + (before[1] - out_shape[1]) // 2) % before[1]
    if any(action.stretch):  # output cell i reads input cell ⌊i·n_in/n_out⌋
        if action.stretch[0]:
            rows, on_r = np.arange(out_shape[0]) * before[0] // out_shape[0], np.ones(out_shape[0], dtype=bool)
        if action.stretch[1]:
            cols, on_c = np.arange(out_shape[1]) * before[1] // out_shape[1], np.ones(out_shape[1], dtype=bool)
    cells = element[(rows[:, None] * before[1] + cols[None, :]).reshape(-1)]
    return np.where((on_r[:, None] & on_c[None, :]).reshape(-1), cells, NOTHING)


@lru_cache(maxsize=65536)  # a few hundred bytes each; the screens ask for the same axes over and over
def _axis_sources(
    n_out: int,
    n_in: int,
    f: int,
    delta: int,
    mirror: bool,
    stride: int,
    shared: bool,
    down: bool,
    fill: bool,
    tiled_fill: bool,
    padded: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """One axis of `scaled_cells`: the input coordinate each of n_out output coordinates
    reads (clipped into the input), and whether it reads one."""
    i = np.arange(n_out)
    if padded:  # shifted, then folded back into the input: its edge cell, or mirror images
        at = i - delta
        at = _mirrored(at, n_in, shared) if mirror else np.minimum(np.maximum(at, 0), n_in - 1)
        inside = np.ones(n_out, dtype=bool)
        at.flags.writeable = inside.flags.writeable = False
        return at, inside
    at = i * f if down else i * stride // f
    if tiled_fill:  # wrapped as ever, then shifted with fill inside the tile
        if mirror:
            at = _mirrored(at, n_in, shared)
        at = at % n_in - delta
        inside = (at >= 0) & (at < n_in)
    elif fill:
        inside = at < n_in if down else np.ones(n_out, dtype=bool)  # samples past the edge: none
        at = at - delta
        inside &= (at >= 0) & (at < n_in)
    else:
        if mirror:
            at = _mirrored(at, n_in, shared)
        at = (at % n_in - delta) % n_in
        inside = np.ones(n_out, dtype=bool)
    at = np.minimum(np.maximum(at, 0), n_in - 1)
    at.flags.writeable = inside.flags.writeable = False  # shared by every caller
    return at, inside


def _anchored(at: np.ndarray, inside: np.ndarray, n_in: int) -> tuple[np.ndarray, np.ndarray]:
    """One axis of an action counted from the far edge: both lattices reversed."""
    return n_in - 1 - at[::-1], inside[::-1]


def _mirrored(at: np.ndarray, n_in: int, shared: bool) -> np.ndarray:
    """Coordinates folded into n_in cells as mirror images (x₀…x_{n−1} x_{n−1}…x₀ …) or, with
    `shared`, as mirror images that share their edge cells (x₀…x_{n−1} x_{n−2}…x₁ x₀ …)."""
    if shared:
        if n_in == 1:
            return np.zeros_like(at)
        at = at % (2 * n_in - 2)
        return np.where(at < n_in, at, 2 * n_in - 2 - at)
    at = at % (2 * n_in)
    return np.where(at < n_in, at, 2 * n_in - 1 - at)


def shift_cells(shape: tuple[int, int], delta: tuple[int, int], fill: bool) -> np.ndarray:
    """Row-major source of each cell of a `shape` lattice shifted by `delta` (cell (i, j)
    reads (i − δr, j − δc)), cyclically or, with `fill`, NOTHING past the edge."""
    h, w = shape
    rows, cols = np.arange(h)[:, None] - delta[0], np.arange(w)[None, :] - delta[1]
    if not fill:
        return ((rows % h) * w + cols % w).reshape(-1)
    inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
    return np.where(inside, rows.clip(0, h - 1) * w + cols.clip(0, w - 1), NOTHING).reshape(-1)


def output_cells(then: ExactAction, shape: tuple[int, int], shift_bits: int = 5) -> np.ndarray | None:
    """The cell of a `shape` lattice that each cell reads under a second-layer action (a
    shift, as the kernels shift, a dihedral element or an up-scaling), NOTHING where it
    reads none."""
    if then.scale != (1, 1):
        return scaled_cells(then, tuple(shape), tuple(shape), shift_bits)
    if then.dihedral == 0:
        return shift_cells(tuple(shape), then.shift, then.fill)
    return source_cells(then, tuple(shape), tuple(shape), shift_bits)


def then_reading(then: ExactAction, first: np.ndarray, shift_bits: int = 5) -> np.ndarray:
    """What the second layer at `then` reads on the output lattice where the first layer
    wrote `first` (−1 where it read nothing)."""
    cells = output_cells(then, first.shape, shift_bits)
    if cells is None:
        raise ValueError(f"{then} is not an action of the experts on a {first.shape} lattice")
    return follow(first, cells).reshape(first.shape)
