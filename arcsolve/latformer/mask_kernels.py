"""Mask kernels: from the experts' action distributions (`arcsolve.latformer.experts.Actions`)
to one dense attention mask per example.

The action, read from an output cell back to the input cell it attends to:
    output (H×W) --scale up/down by f--> --wrap into (h'×w')--> --translate δ-->
    --dihedral element d (rotations / reflections)--> input (h×w)
Frozen per-axis kernels (`axis_bases`) hold every scaling, wrapping and shift of one
output axis onto one input axis; the mask of a product of experts is a weighted sum of
Kronecker products of per-axis matrices (`mask_from_bases`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import torch

from arcsolve.latformer.experts import SCALE_FACTORS, STRIDES, Actions

WRAPS = ("cyclic", "mirror", "none")  # how coordinates past the input's edge are read
SHARED = "shared"  # mirror images that share their edge cells (kernels of their own, `AxisBases.shared_*`)
# how a padding folds a coordinate past the input's edge back into it (`AxisBases.fold_source`):
# repeating the edge cell, as mirror images, as mirror images that share their edge cells
FOLDS = ("edge", "mirror", SHARED)


def _wrap(index: torch.Tensor, n: int, wrap: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Fold lattice coordinates into n cells: cyclically (tiling), as mirror images
    (x₀…x_{n−1} x_{n−1}…x₀ …, a tiling whose copies alternate with their reflections), as
    mirror images that share their edge cells (SHARED: x₀…x_{n−1} x_{n−2}…x₁ x₀ …), or not
    at all ("none": a coordinate outside reads nothing). Returns the folded coordinates and
    which of them read a cell."""
    inside = (index >= 0) & (index < n)
    if wrap == "none":
        return index.clamp(0, n - 1), inside
    if wrap == "cyclic":
        return index % n, torch.ones_like(inside)
    if wrap == SHARED:
        if n == 1:
            return torch.zeros_like(index), torch.ones_like(inside)
        k = index % (2 * n - 2)
        return torch.where(k < n, k, 2 * n - 2 - k), torch.ones_like(inside)
    k = index % (2 * n)
    return torch.where(k < n, k, 2 * n - 1 - k), torch.ones_like(inside)


class AxisBases(NamedTuple):
    """Frozen 1-D kernels for one output axis reading one input axis, zero-padded to a
    canvas (n_out ≤ N_out output cells, n_in ≤ N_in input cells; no padding outside a batch)."""

    up: torch.Tensor  # (S, 3, F, N_out, N_in): up-scaling by each factor, then each stride of
    # STRIDES (cell i reads ⌊i·s/f⌋; stride 1 first, a contiguous block), wrapped as each of WRAPS
    down: torch.Tensor  # (3, F, N_out, N_in): down-scaling likewise, each block read whole
    shift: torch.Tensor  # (2, 2·span+1, N_in, N_in): shifts on the n_in real cells, [0] cyclic, [1] filling
    reverse: torch.Tensor  # (N_in, N_in): reverses the n_in real cells (a flip)
    # up-scaling by each factor and stride then shifting, unwrapped (a placement or a shift
    # with fill): output cell i reads input cell ⌊i·s/f⌋ − δ, so its weight is the shift
    # distribution at index span + ⌊i·s/f⌋ − j (`placed_index`, long), where that lies in the
    # input (`placed_on`)
    placed_index: torch.Tensor  # (S, F, N_out, N_in)
    placed_on: torch.Tensor  # (S, F, N_out, N_in)
    sample: torch.Tensor  # (3, F, N_out, N_in): down-scaling by a stride, the first cell of each block
    # (N_in, N_in): 1 between real input cells a multiple of the input's period apart (the
    # translates of a cell by the lattice pℤ); the identity for a period of 1 (none)
    period: torch.Tensor
    # `up`, `down` and `sample` wrapped as mirror images that share their edge cells
    shared_up: torch.Tensor  # (S, F, N_out, N_in)
    shared_down: torch.Tensor  # (F, N_out, N_in)
    shared_sample: torch.Tensor  # (F, N_out, N_in)
    reverse_out: torch.Tensor  # (N_out, N_out): reverses the n_out real output cells (for anchors)
    # paddings that fold: output cell i reads input cell fold(i − δ) for each shift δ, the fold
    # one of FOLDS (numpy's `pad` modes edge, symmetric and reflect); the source's index
    # (long) and 1 on the n_out real output cells
    fold_source: torch.Tensor  # (len(FOLDS), 2·span+1, N_out)
    fold_on: torch.Tensor  # (N_out,)
    # (N_in, N_in): the n_in real input cells moved on cyclically by ⌊(n_in − n_out)/2⌋ (centres)
    centre: torch.Tensor
    # (N_out, N_in): the input's lattice stretched over the output's, real output cell i
    # reading input cell ⌊i·n_in/n_out⌋ (stretches)
    stretch: torch.Tensor


class MaskBases(NamedTuple):
    """Everything `mask_from_bases` needs to know about two lattices: the axis kernels for
    rows and columns read straight (t = 0) and across (t = 1, the transposes)."""

    rows: AxisBases
    cols: AxisBases
    rows_t: AxisBases
    cols_t: AxisBases


@lru_cache(maxsize=1024)  # a few hundred kB each at most; a run meets far fewer sizes
def axis_bases(
    n_out: int, n_in: int, span: int, canvas: tuple[int, int] | None = None, period: int = 1
) -> AxisBases:
    """The kernels from n_out cells into n_in cells: scaling by each factor (wrapping, so it
    tiles or crops, or not, so that cells past the edge read nothing), shifts by −span…span
    (cyclic, or filling: a cell whose source is outside reads nothing), the reversal, the
    translates by the input's `period`; zero beyond the real cells when a canvas (N_out,
    N_in) pads them."""
    N_out, N_in = canvas or (n_out, n_in)
    i, j = torch.arange(n_out), torch.arange(n_in)
    factors, strides = torch.tensor(SCALE_FACTORS), torch.tensor(STRIDES)
    grown = i[None, None, :] * strides[:, None, None] // factors[None, :, None]  # (S, F, n_out): ⌊i·s/f⌋
    sampled = i[None, :] * factors[:, None]  # (F, n_out): the first cell of each block
    offsets = torch.arange(max(SCALE_FACTORS))
    blocks = sampled[:, :, None] + offsets  # (F, n_out, most): every cell of each block
    in_block = (offsets < factors[:, None, None]).expand_as(blocks)
    up = torch.zeros(len(STRIDES), len(WRAPS), len(SCALE_FACTORS), N_out, N_in)
    down = torch.zeros(len(WRAPS), len(SCALE_FACTORS), N_out, N_in)
    sample = torch.zeros(len(WRAPS), len(SCALE_FACTORS), N_out, N_in)
    shared_up = torch.zeros(len(STRIDES), 1, len(SCALE_FACTORS), N_out, N_in)
    shared_down = torch.zeros(1, len(SCALE_FACTORS), N_out, N_in)
    shared_sample = torch.zeros(1, len(SCALE_FACTORS), N_out, N_in)
    kernels = [(up, down, sample, m, wrap) for m, wrap in enumerate(WRAPS)]
    for ups, downs, samples, m, wrap in [*kernels, (shared_up, shared_down, shared_sample, 0, SHARED)]:
        source, inside = _wrap(grown, n_in, wrap)
        ups[:, m, :, :n_out].scatter_(-1, source[..., None], inside[..., None].float())
        source, inside = _wrap(sampled, n_in, wrap)
        samples[m, :, :n_out].scatter_(-1, source[..., None], inside[..., None].float())
        source, inside = _wrap(blocks, n_in, wrap)
        downs[m, :, :n_out].scatter_add_(-1, source, (inside & in_block).float())
    deltas = torch.arange(-span, span + 1)[:, None]  # (2·span+1, 1)
    shift = torch.zeros(2, 2 * span + 1, N_in, N_in)
    shift[0, :, :n_in].scatter_(-1, ((j - deltas) % n_in)[..., None], 1.0)
    source, inside = _wrap(j - deltas, n_in, "none")
    shift[1, :, :n_in].scatter_(-1, source[..., None], inside[..., None].float())
    reverse = torch.zeros(N_in, N_in)
    reverse[j, n_in - 1 - j] = 1.0
    index = span + grown[..., None] - j  # (S, F, n_out, n_in)
    placed_index = torch.zeros(len(STRIDES), len(SCALE_FACTORS), N_out, N_in, dtype=torch.long)
    placed_on = torch.zeros(len(STRIDES), len(SCALE_FACTORS), N_out, N_in)
    placed_index[..., :n_out, :n_in] = index.clamp(0, 2 * span)
    placed_on[..., :n_out, :n_in] = ((index >= 0) & (index <= 2 * span)).float()
    translates = torch.zeros(N_in, N_in)
    modulus = n_in if period == 1 else period  # cells of one lattice differ by less than n_in
    translates[:n_in, :n_in] = ((j[:, None] - j[None, :]) % modulus == 0).float()
    shared = (shared_up[:, 0], shared_down[0], shared_sample[0])
    reverse_out = torch.zeros(N_out, N_out)
    reverse_out[i, n_out - 1 - i] = 1.0
    fold_source = torch.zeros(len(FOLDS), 2 * span + 1, N_out, dtype=torch.long)
    moved = i[None, :] - deltas  # (2·span+1, n_out): i − δ
    fold_source[0, :, :n_out] = moved.clamp(0, n_in - 1)
    fold_source[1, :, :n_out] = _wrap(moved, n_in, "mirror")[0]
    fold_source[2, :, :n_out] = _wrap(moved, n_in, SHARED)[0]
    fold_on = (torch.arange(N_out) < n_out).float()
    centre = torch.zeros(N_in, N_in)
    centre[j, (j + (n_in - n_out) // 2) % n_in] = 1.0
    stretch = torch.zeros(N_out, N_in)
    stretch[i, i * n_in // n_out] = 1.0
    extra = (*shared, reverse_out, fold_source, fold_on, centre, stretch)
    return AxisBases(up, down, shift, reverse, placed_index, placed_on, sample, translates, *extra)


@lru_cache(maxsize=256)  # on the device: bounded, so that a long run does not fill a GPU
def mask_bases(
    in_shape: tuple[int, int],
    out_shape: tuple[int, int],
    span: int,
    canvas: tuple[int, int] | None = None,
    device: torch.device | None = None,
    dtype: torch.dtype = torch.float32,
    period: tuple[int, int] = (1, 1),
) -> MaskBases:
    """The kernels for masks from an out_shape lattice onto an in_shape one, on a device;
    with a canvas (S_out, S_in), the lattices sit in the top-left corners of S×S canvases;
    `period`: the input's own (`arcsolve.latformer.periods`), (1, 1) for none."""
    (h, w), (H, W), (p, q) = in_shape, out_shape, period
    axes = (axis_bases(H, h, span, canvas, p), axis_bases(W, w, span, canvas, q),
            axis_bases(H, w, span, canvas, q), axis_bases(W, h, span, canvas, p))
    return MaskBases(
        *(AxisBases(*(b.to(device, dtype) if b.is_floating_point() else b.to(device) for b in axis)) for axis in axes)
    )


def padded_matrix(
    shift: torch.Tensor, mirror: torch.Tensor | None, shared: torch.Tensor | None, bases: AxisBases
) -> torch.Tensor:
    """(N_out × N_in): output cell i reads fold(i − δ), δ weighted by `shift`, the fold
    repeating the edge cell or, with probability `mirror`, mirroring the grid (sharing its
    edge cells with probability `shared`)."""
    n_out, n_in = bases.up.shape[3:]
    weights = (shift[:, None] * bases.fold_on[None, :]).T  # (N_out, 2·span+1)

    def folded(k: int) -> torch.Tensor:
        return shift.new_zeros(n_out, n_in).scatter_add(1, bases.fold_source[k].T, weights)

    edge = folded(0)
    if mirror is None:
        return edge
    mirrored = folded(1)
    if shared is not None:
        mirrored = mirrored + shared * (folded(2) - mirrored)
    return edge + mirror * (mirrored - edge)


def axis_matrix(
    shift: torch.Tensor,
    scale: torch.Tensor,
    down: torch.Tensor,
    mirror: torch.Tensor | None,
    fill: torch.Tensor | None,
    bases: AxisBases,
    sample: torch.Tensor | None = None,
    stride: torch.Tensor | None = None,
    tiled: torch.Tensor | None = None,
    shared: torch.Tensor | None = None,
) -> torch.Tensor:
    """The per-axis factor of the mask, (N_out × N_in): scale (up-scaling by a factor, then a
    `stride` over STRIDES; down-scaling reads each block whole or, with probability `sample`,
    its first cell) and wrap (cyclic or mirrored, the mirror images sharing their edge cells
    with probability `shared`; with probability `fill` not at all), then
    shift on the input lattice (so a shift of a smaller output is a crop at an offset, and of
    a sampled one another cell of each block), cyclically or, with probability `fill`, filling:
    unwrapped (a placement) or, with probability `tiled`, wrapped as ever (each tile, or
    mirror image, of the input shifted with fill)."""
    # as a difference, which is exactly zero where sampling and pooling agree (factor 1), so
    # that the sampling gate gets no gradient there, not even from rounding
    shrink = bases.down if sample is None else bases.down + sample * (bases.sample - bases.down)
    if stride is None:  # strides off: every up-scaling reads ⌊i/f⌋ (stride 1, the first)
        grown, ups, shared_ups = scale * (1 - down), bases.up[0], bases.shared_up[0]
        placed_index, placed_on = bases.placed_index[0], bases.placed_on[0]
    else:  # (S·F,) the up-scalings by each factor and stride
        grown = (stride[:, None] * (scale * (1 - down))[None, :]).reshape(-1)
        ups = bases.up.transpose(0, 1).flatten(1, 2)  # (3, S·F, N_out, N_in)
        shared_ups = bases.shared_up.flatten(0, 1)  # (S·F, N_out, N_in)
        placed_index, placed_on = bases.placed_index.flatten(0, 1), bases.placed_on.flatten(0, 1)
    up, dn = grown @ ups.flatten(2), (scale * down) @ shrink.flatten(2)
    scaling = up + dn  # (3, N_out·N_in): cyclic, mirrored, unwrapped
    mirrored = scaling[1]
    if shared is not None and mirror is not None:  # mirror images that share their edge cells
        edge = bases.shared_down
        if sample is not None:
            edge = edge + sample * (bases.shared_sample - bases.shared_down)
        edged = grown @ shared_ups.flatten(1) + (scale * down) @ edge.flatten(1)
        mirrored = mirrored + shared * (edged - mirrored)
    wrapped = scaling[0] if mirror is None else (1 - mirror) * scaling[0] + mirror * mirrored
    n_out, n_in = bases.up.shape[3:]
    if fill is None:
        return wrapped.view(n_out, n_in) @ (shift @ bases.shift[0].flatten(1)).view(n_in, n_in)
    cyclic = wrapped.view(n_out, n_in) @ (shift @ bases.shift[0].flatten(1)).view(n_in, n_in)
    placed = torch.einsum("g,gij->ij", grown, shift[placed_index] * placed_on)
    shrunk = ((scale * down) @ shrink[2].flatten(1)).view(n_out, n_in)
    filling = (shift @ bases.shift[1].flatten(1)).view(n_in, n_in)
    filled = placed + shrunk @ filling
    if tiled is not None:
        filled = filled + tiled * (wrapped.view(n_out, n_in) @ filling - filled)
    return (1 - fill) * cyclic + fill * filled


def mask_from_bases(actions: Actions, bases: MaskBases) -> torch.Tensor:
    """The dense (H·W × h·w) mask of the product of experts for one example (canvas cells
    when the bases are padded: cells outside the real lattices get zero rows and columns).

    Flips act on one axis each, so they fold into the per-axis factors; the transpose
    swaps which input axis each output axis reads. That leaves two Kronecker sums, each
    one einsum: Σ_{r,c} w[t,r,c] · (A_r F^r P) ⊗ (A_c F^c P) for t = 0 and t = 1, where P
    (the identity without periods) spreads each input cell, with the period gate's
    probability, over its translates by the input's period on that axis. A padded axis reads
    the fold of `padded_matrix` in place of A with the pad gate's probability; an anchored axis
    reads A as R_out A R_in, both lattices reversed along it, a centred one as A C, the
    input moved on by half the cells it has more than the output, and a stretched one the
    stretch kernel S in place of A with the stretch gate's probability."""
    weights = actions.dihedral.view(2, 2, 2)  # [transpose, flip rows, flip cols]

    def periodic(a: torch.Tensor, gate: torch.Tensor | None, bases: AxisBases) -> torch.Tensor:
        return a if gate is None else a + gate * (a @ bases.period - a)

    def anchored(a: torch.Tensor, gate: torch.Tensor | None, bases: AxisBases) -> torch.Tensor:
        # counted from the far edge: both lattices reversed, the action read, reversed back
        return a if gate is None else a + gate * (bases.reverse_out @ a @ bases.reverse - a)

    def centred(a: torch.Tensor, gate: torch.Tensor | None, bases: AxisBases) -> torch.Tensor:
        # read from the input's middle: moved on by half the cells it has more than the output
        return a if gate is None else a + gate * (a @ bases.centre - a)

    def stretched(a: torch.Tensor, gate: torch.Tensor | None, bases: AxisBases) -> torch.Tensor:
        # the input's lattice laid over the output's: cell i reads ⌊i·n_in/n_out⌋
        return a if gate is None else a + gate * (bases.stretch - a)

    def padded(a: torch.Tensor, gate: torch.Tensor | None, *fold) -> torch.Tensor:
        # the unscaled input shifted, then folded back into itself (`padded_matrix`)
        return a if gate is None else a + gate * (padded_matrix(*fold) - a)

    def stacks(
        row_bases: AxisBases, col_bases: AxisBases, transposed: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor]:
        a_r = axis_matrix(
            actions.shift_rows,
            actions.scale_rows,
            actions.down,
            actions.mirror_rows,
            actions.fill_rows,
            row_bases,
            actions.sample,
            actions.stride_rows,
            actions.tiled_rows,
            actions.shared_rows,
        )
        a_r = stretched(a_r, actions.stretch_rows, row_bases)
        a_r = padded(a_r, actions.padded_rows, actions.shift_rows, actions.mirror_rows, actions.shared_rows, row_bases)
        a_r = centred(anchored(a_r, actions.anchor_rows, row_bases), actions.centre_rows, row_bases)
        a_c = axis_matrix(
            actions.shift_cols,
            actions.scale_cols,
            actions.down,
            actions.mirror_cols,
            actions.fill_cols,
            col_bases,
            actions.sample,
            actions.stride_cols,
            actions.tiled_cols,
            actions.shared_cols,
        )
        a_c = stretched(a_c, actions.stretch_cols, col_bases)
        a_c = padded(a_c, actions.padded_cols, actions.shift_cols, actions.mirror_cols, actions.shared_cols, col_bases)
        a_c = centred(anchored(a_c, actions.anchor_cols, col_bases), actions.centre_cols, col_bases)
        # the periods belong to input axes: across, output rows read input columns
        p_r, p_c = actions.period_rows, actions.period_cols
        if transposed:
            p_r, p_c = p_c, p_r
        rows = torch.stack([periodic(a_r, p_r, row_bases), periodic(a_r @ row_bases.reverse, p_r, row_bases)])
        cols = torch.stack([periodic(a_c, p_c, col_bases), periodic(a_c @ col_bases.reverse, p_c, col_bases)])
        return rows, cols

    def kron_sum(w2: torch.Tensor, a_r: torch.Tensor, a_c: torch.Tensor) -> torch.Tensor:
        # Σ_{r,c} w2[r,c] a_r[r] ⊗ a_c[c] as one (H·rows × 2) @ (2 × W·cols) product
        cols = w2 @ a_c.flatten(1)
        out = a_r.flatten(1).T @ cols.flatten(1)  # (H·rows, W·cols)
        return out.view(a_r.shape[1], a_r.shape[2], a_c.shape[1], a_c.shape[2])

    r0, c0 = stacks(bases.rows, bases.cols)
    mask = kron_sum(weights[0], r0, c0).permute(0, 2, 1, 3)  # (H, W, h, w)
    # transposed: output rows read input columns and vice versa
    r1, c1 = stacks(bases.rows_t, bases.cols_t, transposed=True)
    mask = mask + kron_sum(weights[1], r1, c1).permute(0, 2, 3, 1)
    H, W, h, w = mask.shape
    return mask.reshape(H * W, h * w)


def build_mask(actions: Actions, in_shape: tuple[int, int], out_shape: tuple[int, int]) -> torch.Tensor:
    """The dense (H·W × h·w) mask of the product of experts for one example."""
    span, like = (len(actions.shift_rows) - 1) // 2, actions.dihedral
    return mask_from_bases(actions, mask_bases(in_shape, out_shape, span, None, like.device, like.dtype))
