"""Lattice mask experts (paper §4.1, Appendix A, Figure 6) and mask smoothing (§4.2).

Each expert is a gated chain on the identity, M_{l+1} = α_l·K_l(M_l) + (1 − α_l)·M_l, whose
frozen kernels K_l are exact lattice actions (Corollary 3.3; `arcsolve.latformer.reference_masks`) and whose
gates α_l = σ(FFN_l(c)) are the only learned part. Expanding a chain gives a weighted sum
of exact actions whose weights are products of gates; experts combine by multiplying masks,
which multiplies these weights. So an expert here outputs the *distribution over its
actions* (a short vector), never a dense mask per gate layer, and `arcsolve.latformer.mask_kernels`
turns the product of experts into one mask per example from per-axis matrices (Kronecker
structure).

The action, read from an output cell back to the input cell it attends to:
    output (H×W) --scale up/down by f--> --wrap into (h'×w')--> --translate δ (cyclic)-->
    --dihedral element d (rotations / reflections)--> input (h×w)
Wrapping cyclically into the input lattice makes an output larger than its input a tiling
and a smaller one a crop at an offset, so crops and tiles come out of the same experts. An
up-scaling by f may be followed per axis by a stride s (cell i reads ⌊i·s/f⌋: a rational
scaling), whose gates only exact starts switch on (`MaskExperts.strides`); so may the
translate expert's tiled fills (a shift with fill inside each tile: the input shifted with
fill, then scaled and wrapped; `MaskExperts.tiled_fills`), its periods (the lattice of
translations by every multiple of the input's own period, `arcsolve.latformer.periods`: the
head reads every translate of its source, so a periodic pattern whose cells are hidden here
and there is read whole; `MaskExperts.periods`), its anchors (per output axis, the whole
action counted from the far edge of both lattices, so that a crop of the last rows or columns
stays the last of each grid, whatever its size; `MaskExperts.anchors`), its centres (the
action read from the input's middle; `MaskExperts.centres`) and its folded paddings (the
unscaled input shifted, then folded back into itself past its edge: numpy's `pad` modes
edge, symmetric and reflect; `MaskExperts.paddings`). So may the scale expert's stretches
(per output axis, the input's lattice laid over the output's: output cell i reads input
cell ⌊i·n_in/n_out⌋, so that each example is scaled by its own factor, a grid blown up by
its own side; `MaskExperts.stretches`).

Gates depend on a conditioning vector c (zero for the plain model, a sentence embedding for
LatFormer+NL), not on the grid itself: one task is one transformation, and grid-dependent
gates only add capacity to overfit 2–5 examples.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import torch
from torch import nn

from arcsolve.symmetry import FLIP_COLS, FLIP_ROWS, ROT90, ROT180, TRANSPOSE, composition_table

EXPERTS = ("translate", "rotate", "reflect", "scale")

# chained up-scaling layers, distinct so that no two gates are symmetric; their products
# give every factor from 1 to 10 (and 12, 14, 15, 18, 20, 21, 24, 27, 28, 30)
SCALE_CHAIN = (2, 3, 4, 5, 7, 9)
MAX_FACTOR = 30  # ARC's largest side: a larger factor scales a grid exactly as 30 does


def chain_product(bits) -> int:
    """The product of the scaling chain's factors whose gates are on."""
    return int(np.prod([f for f, b in zip(SCALE_CHAIN, bits, strict=True) if b]))


def chain_factor(bits) -> int:
    """The factor the scaling chain applies with these gates on: their product, at most MAX_FACTOR."""
    return min(chain_product(bits), MAX_FACTOR)


# every factor the chain gives, ascending; 1 (no gate on, the empty product) first
SCALE_FACTORS = tuple(sorted({chain_factor(bits) for bits in np.ndindex(*(2,) * len(SCALE_CHAIN))}))

# per axis, a stride after up-scaling: output cell i reads input cell ⌊i·s/f⌋, so an
# up-scaling by f then sampled every s-th cell (3 then 2: each pair of cells as three) or,
# with f = 1, a sampling of one axis while the other is up-scaled; the chain's products
STRIDE_CHAIN = (2, 3)
STRIDES = (1, 2, 3, 6)


@cache
def _dihedral_index(device: torch.device) -> torch.Tensor:
    """`composition_table` as a tensor on `device` (one copy per device, not one per step)."""
    return torch.from_numpy(composition_table()).to(device)


# ---------------------------------------------------------------- gated chains → distributions


def _chain(gates: torch.Tensor, step) -> torch.Tensor:
    """Expand M_L = Π_l (α_l K_l + (1 − α_l) I): start at identity, mix in each kernel."""
    dist = None
    for layer in range(gates.shape[-1]):
        dist = step(dist, layer, gates[..., layer])
    return dist


def dihedral_distribution(gates: torch.Tensor, generators: tuple[int, ...]) -> torch.Tensor:
    """Weights over the 8 elements of D4 from a chain of gated group elements."""
    table = _dihedral_index(gates.device)
    dist = _identity(8, gates)
    for gate, g in zip(gates.unbind(-1), generators, strict=True):
        moved = torch.zeros_like(dist).index_add(0, table[g], dist)
        dist = gate * moved + (1 - gate) * dist
    return dist


def shift_distribution(gates: torch.Tensor, sign: torch.Tensor) -> torch.Tensor:
    """Weights over shifts −(2^L−1)…(2^L−1): L gates shift by 2^l, one gate negates."""
    bits = gates.shape[-1]
    dist = _identity(1, gates)
    for layer, gate in enumerate(gates.unbind(-1)):
        step = 2**layer
        zeros = gates.new_zeros(step)
        padded, shifted = torch.cat([dist, zeros]), torch.cat([zeros, dist])
        dist = (1 - gate) * padded + gate * shifted  # over δ = 0 … 2^(l+1) − 1
    span = 2**bits - 1
    zeros = gates.new_zeros(span)
    return torch.cat([zeros, dist * (1 - sign)]) + torch.cat([(dist * sign).flip(0), zeros])


@cache
def _scale_combinations(device: torch.device, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Every on/off pattern of the scaling chain, and the factor each pattern produces."""
    bits = torch.tensor(list(np.ndindex(*(2,) * len(SCALE_CHAIN))), dtype=torch.bool)
    factors = [chain_factor(row) for row in bits.tolist()]
    to_factor = torch.zeros(len(bits), len(SCALE_FACTORS))
    to_factor[torch.arange(len(bits)), [SCALE_FACTORS.index(f) for f in factors]] = 1.0
    return bits.to(device), to_factor.to(device, dtype)


def stride_distribution(gates: torch.Tensor) -> torch.Tensor:
    """Weights over STRIDES from the two stride gates (×2, ×3)."""
    two, three = gates.unbind(-1)
    return torch.stack([(1 - two) * (1 - three), two * (1 - three), (1 - two) * three, two * three])


def scale_distribution(gates: torch.Tensor) -> torch.Tensor:
    """Weights over SCALE_FACTORS from the chained up-scaling gates."""
    bits, to_factor = _scale_combinations(gates.device, gates.dtype)
    weights = torch.where(bits, gates, 1 - gates).prod(dim=1)
    return weights @ to_factor


# ---------------------------------------------------------------- smoothing (§4.2)


@cache
def heat_kernel(kind: str, size: int, time: float) -> torch.Tensor:
    """exp(−t·L) for the graph of group elements: D4's Cayley graph, or a path of shifts/factors."""
    adjacency = np.zeros((size, size))
    if kind == "dihedral":
        table = composition_table()
        for a in range(8):
            for g in (ROT90, FLIP_ROWS):
                adjacency[a, table[g, a]] = adjacency[table[g, a], a] = 1
    else:
        for i in range(size - 1):
            adjacency[i, i + 1] = adjacency[i + 1, i] = 1
    laplacian = np.diag(adjacency.sum(1)) - adjacency
    values, vectors = np.linalg.eigh(laplacian)
    return torch.from_numpy((vectors * np.exp(-time * values)) @ vectors.T).float()


@cache
def _heat_kernel_on(kind: str, size: int, time: float, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """`heat_kernel` on a device: copied there once, not at every smoothed step (a copy from
    the host waits for the device, and a CUDA graph cannot hold one)."""
    return heat_kernel(kind, size, time).to(device, dtype)


@dataclass
class Actions:
    """The product of experts as factor distributions (one mask is their product)."""

    dihedral: torch.Tensor  # (8,)
    shift_rows: torch.Tensor  # (2·span+1,)
    shift_cols: torch.Tensor
    scale_rows: torch.Tensor  # (len(SCALE_FACTORS),)
    scale_cols: torch.Tensor
    down: torch.Tensor  # () probability that scaling is transposed (down-scaling)
    mirror_rows: torch.Tensor | None  # () probability that rows wrap as mirror images (reflect
    mirror_cols: torch.Tensor | None  # expert); None when the reflect expert is off
    fill_rows: torch.Tensor | None = None  # () probability that rows do not wrap: a cell whose
    fill_cols: torch.Tensor | None = None  # source is outside reads nothing (translate expert)
    sample: torch.Tensor | None = None  # () probability that down-scaling reads the first cell of
    # each block (a stride) rather than the whole block (scale expert)
    stride_rows: torch.Tensor | None = None  # (len(STRIDES),) the stride after up-scaling, per
    stride_cols: torch.Tensor | None = None  # axis (scale expert)
    # () probability that a filling axis still wraps, per axis: the shift with fill acts inside
    # each tile (or mirror image) of the scaled input (translate expert, with tiled fills on)
    tiled_rows: torch.Tensor | None = None
    tiled_cols: torch.Tensor | None = None
    # () per input axis, the probability that the head also reads every translate of its
    # source by the grid's own period (`arcsolve.latformer.periods`); None when periods are off
    period_rows: torch.Tensor | None = None
    period_cols: torch.Tensor | None = None
    # () per output axis, the probability that mirror images share their edge row (column):
    # x₀…x_{n−1} x_{n−2}…x₁ x₀ …, a reflection about the edge cell's centre rather than its
    # border; None when shared edges are off (reflect expert, with shared edges on)
    shared_rows: torch.Tensor | None = None
    shared_cols: torch.Tensor | None = None
    # () per output axis, the probability that the action is counted from the far edge: both
    # lattices read from their bottom (right) edge, so that output cell n_out − 1 − i reads
    # where cell i would, from input cell n_in − 1 on; None when anchors are off (translate expert)
    anchor_rows: torch.Tensor | None = None
    anchor_cols: torch.Tensor | None = None
    # () per output axis, the probability that the unscaled input is shifted, then folded back
    # into itself past its edge (a padding that repeats the edge cell or, with the mirror
    # gate, mirrors the grid); None when paddings are off (translate expert)
    padded_rows: torch.Tensor | None = None
    padded_cols: torch.Tensor | None = None
    # () per output axis, the probability that the action is read from the input's middle:
    # moved on by half the cells the input has more than the output, ⌊(n_in − n_out)/2⌋, so
    # that a crop of the middle stays the middle of every grid; None when centres are off
    # (translate expert)
    centre_rows: torch.Tensor | None = None
    centre_cols: torch.Tensor | None = None
    # () per output axis, the probability that the axis is stretched: the input's lattice
    # laid over the output's, output cell i reading input cell ⌊i·n_in/n_out⌋, so that the
    # factor is each example's own (a grid blown up to its own size, or any size); None when
    # stretches are off (scale expert)
    stretch_rows: torch.Tensor | None = None
    stretch_cols: torch.Tensor | None = None

    def smoothed(self, time: float) -> Actions:
        def smooth(kind: str, dist: torch.Tensor) -> torch.Tensor:
            return _heat_kernel_on(kind, len(dist), time, dist.device, dist.dtype) @ dist

        return Actions(
            smooth("dihedral", self.dihedral),
            smooth("path", self.shift_rows),
            smooth("path", self.shift_cols),
            smooth("path", self.scale_rows),
            smooth("path", self.scale_cols),
            self.down,
            self.mirror_rows,
            self.mirror_cols,
            self.fill_rows,
            self.fill_cols,
            self.sample,
            self.stride_rows,
            self.stride_cols,
            self.tiled_rows,
            self.tiled_cols,
            self.period_rows,
            self.period_cols,
            self.shared_rows,
            self.shared_cols,
            self.anchor_rows,
            self.anchor_cols,
            self.padded_rows,
            self.padded_cols,
            self.centre_rows,
            self.centre_cols,
            self.stretch_rows,
            self.stretch_cols,
        )


# ---------------------------------------------------------------- the experts


class MaskExperts(nn.Module):
    """The four lattice mask experts of one LatFormer layer, gated by σ(FFN(c))."""

    # reflect: flip rows, flip columns, transpose, mirror-wrap rows, mirror-wrap columns;
    # translate: per axis, a shift's bits and its sign, then per axis whether it fills, then
    # per axis whether a fill still wraps (tiled fills);
    # scale: per axis the chain's bits, then down-scaling, then sampling (a stride) when down,
    # then per axis the stride chain's bits (a stride after up-scaling);
    # period (part of the translate expert, with periods on): per input axis, whether the
    # head reads every translate of its source by the input's own period;
    # edge (part of the reflect expert, with shared edges on): per output axis, whether the
    # mirror images share their edge cells;
    # anchor (part of the translate expert, with anchors on): per output axis, whether the
    # action is counted from the far edge of both lattices;
    # pad (part of the translate expert, with paddings on): per output axis, whether the
    # shifted input folds back into itself past its edge;
    # centre (part of the translate expert, with centres on): per output axis, whether the
    # action is read from the input's middle;
    # stretch (part of the scale expert, with stretches on): per output axis, whether the
    # input's lattice is stretched over the output's
    GATES = {
        "rotate": 2,
        "reflect": 5,
        "translate": 2 * 6 + 4,
        "scale": 2 * len(SCALE_CHAIN) + 2 + 2 * len(STRIDE_CHAIN),
        "period": 2,
        "edge": 2,
        "anchor": 2,
        "pad": 2,
        "centre": 2,
        "stretch": 2,
    }
    # the period, edge, anchor, pad, centre and stretch gates start off: only exact starts turn them on
    OFF_LOGIT = -4.0

    def __init__(
        self,
        enabled: tuple[str, ...],
        cond_dim: int = 0,
        shift_bits: int = 5,
        init_logits: dict[str, float] | None = None,
        strides: bool = False,
        tiled_fills: bool = False,
        periods: bool = False,
        shared_edges: bool = False,
        anchors: bool = False,
        paddings: bool = False,
        centres: bool = False,
        stretches: bool = False,
    ):
        super().__init__()
        self.enabled = tuple(e for e in EXPERTS if e in enabled)
        self.strides = strides  # the scale expert's strides after up-scaling on (else they read 0)
        self.tiled_fills = tiled_fills  # the translate expert's tiled fills on (else they read 0)
        # the translate expert's periods (their gates follow the four experts'; without them
        # the gate vector and every mask are exactly those of a model built without periods)
        self.periods = periods and "translate" in self.enabled
        if self.periods:
            self.enabled = (*self.enabled, "period")
        # the reflect expert's shared edges (their gates follow, likewise only when on)
        self.shared_edges = shared_edges and "reflect" in self.enabled
        if self.shared_edges:
            self.enabled = (*self.enabled, "edge")
        # the translate expert's anchors (their gates follow, likewise only when on)
        self.anchors = anchors and "translate" in self.enabled
        if self.anchors:
            self.enabled = (*self.enabled, "anchor")
        # the translate expert's folded paddings (likewise only when on)
        self.paddings = paddings and "translate" in self.enabled
        if self.paddings:
            self.enabled = (*self.enabled, "pad")
        # the translate expert's centres (likewise only when on)
        self.centres = centres and "translate" in self.enabled
        if self.centres:
            self.enabled = (*self.enabled, "centre")
        # the scale expert's stretches (likewise only when on)
        self.stretches = stretches and "scale" in self.enabled
        if self.stretches:
            self.enabled = (*self.enabled, "stretch")
        self.shift_bits = shift_bits
        self.GATES = {**self.GATES, "translate": 2 * (shift_bits + 1) + 4}
        n = sum(self.GATES[e] for e in self.enabled)
        off = {name: self.OFF_LOGIT for name in ("period", "edge", "anchor", "pad", "centre", "stretch")}
        init = {**off, **(init_logits or {})}
        self.gate_bias = nn.Parameter(
            torch.cat([torch.full((self.GATES[e],), float(init.get(e, 0.0))) for e in self.enabled])
            if n
            else torch.zeros(0)
        )
        self.gate_ffn = nn.Linear(cond_dim, n) if cond_dim and n else None
        if self.gate_ffn is not None:
            nn.init.zeros_(self.gate_ffn.weight)
            nn.init.zeros_(self.gate_ffn.bias)
        # 1 for the gates of experts a task may use, 0 for those its priors rule out (`allow`)
        self.register_buffer("gate_on", torch.ones(n))
        self.allow(self.enabled)

    def allow(self, experts: tuple[str, ...]) -> None:
        """Switch off every expert not in `experts`: its gates read 0, exactly the identity
        action, so the layer computes what a layer built with only `experts` computes, and
        its gate logits get no gradient. Models with different priors then share one
        architecture (and a batch, `arcsolve.latformer.batched`). Without `strides`, the
        scale expert's stride gates stay off, and without `tiled_fills` the translate
        expert's: only an exact start that uses one turns them on, so a plain fit searches
        the actions it always has. The periods go with the translate expert, the shared
        edges with the reflect expert, the anchors, paddings and centres with the translate
        expert, the stretches with the scale expert."""
        owner = {
            "period": "translate",
            "edge": "reflect",
            "stretch": "scale",
            **dict.fromkeys(("anchor", "pad", "centre"), "translate"),
        }
        for name in self.enabled:
            self.gate_on[self.gate_slice(name)] = float(owner.get(name, name) in experts)
        if "scale" in self.enabled and not self.strides:
            self.gate_on[self.stride_slice()] = 0.0
        if "translate" in self.enabled and not self.tiled_fills:
            self.gate_on[self.tiled_fill_slice()] = 0.0

    def tiled_fill_slice(self) -> slice:
        """Where the translate expert's tiled-fill gates sit in the gate vector (its last two,
        after the two fills)."""
        where = self.gate_slice("translate")
        return slice(where.stop - 2, where.stop)

    def fill_slice(self) -> slice:
        """Where the translate expert's fill gates (rows, columns) sit in the gate vector."""
        where = self.gate_slice("translate")
        return slice(where.stop - 4, where.stop - 2)

    def stride_slice(self) -> slice:
        """Where the scale expert's stride gates sit in the gate vector (its last ones)."""
        where = self.gate_slice("scale")
        return slice(where.stop - 2 * len(STRIDE_CHAIN), where.stop)

    def gate_slice(self, name: str) -> slice:
        """Where expert `name`'s gates sit in the gate vector."""
        start = 0
        for expert in self.enabled:
            if expert == name:
                return slice(start, start + self.GATES[name])
            start += self.GATES[expert]
        raise KeyError(name)

    def gate_logits(self, cond: torch.Tensor | None) -> torch.Tensor:
        logits = self.gate_bias
        if self.gate_ffn is not None and cond is not None:
            logits = logits + self.gate_ffn(cond)
        return logits

    def actions(self, cond: torch.Tensor | None = None, discrete: bool = False) -> Actions:
        gates = torch.sigmoid(self.gate_logits(cond)) * self.gate_on
        if discrete:
            gates = (gates > 0.5).to(gates.dtype)
        return self.actions_of(gates)

    def actions_of(self, gates: torch.Tensor) -> Actions:
        """The action distributions these gate values (in [0, 1]) give."""
        parts = {name: gates[self.gate_slice(name)] for name in self.enabled}
        zero = gates.new_zeros(())
        rot = dihedral_distribution(parts["rotate"], (ROT90, ROT180)) if "rotate" in parts else None
        ref = (
            dihedral_distribution(parts["reflect"][:3], (FLIP_ROWS, FLIP_COLS, TRANSPOSE))
            if "reflect" in parts
            else None
        )
        mirror = parts["reflect"][3:] if "reflect" in parts else (None, None)
        dihedral = (
            _compose(rot, ref)
            if rot is not None and ref is not None
            else (rot if rot is not None else ref if ref is not None else _identity(8, gates))
        )
        fill = tiled = (None, None)
        if "translate" in parts:
            t = parts["translate"][:-4].view(2, -1)
            rows, cols = (shift_distribution(t[i, :-1], t[i, -1]) for i in range(2))
            fill = parts["translate"][-4], parts["translate"][-3]
            if self.tiled_fills:
                tiled = parts["translate"][-2], parts["translate"][-1]
        else:
            rows = cols = _identity(2 * (2**self.shift_bits - 1) + 1, gates, 2**self.shift_bits - 1)
        if "scale" in parts:
            s = parts["scale"]
            k = len(SCALE_CHAIN)
            srows, scols, down = scale_distribution(s[:k]), scale_distribution(s[k : 2 * k]), s[2 * k]
            sample = s[2 * k + 1]
            stride_rows = stride_cols = None  # strides off: every up-scaling reads ⌊i/f⌋
            if self.strides:
                n = len(STRIDE_CHAIN)
                strides = s[2 * k + 2 :]
                stride_rows, stride_cols = stride_distribution(strides[:n]), stride_distribution(strides[n:])
        else:
            srows = scols = _identity(len(SCALE_FACTORS), gates)
            down, sample, stride_rows, stride_cols = zero, None, None, None
        periods = (parts["period"][0], parts["period"][1]) if "period" in parts else (None, None)
        shared = (parts["edge"][0], parts["edge"][1]) if "edge" in parts else (None, None)
        anchors = (parts["anchor"][0], parts["anchor"][1]) if "anchor" in parts else (None, None)
        padded = (parts["pad"][0], parts["pad"][1]) if "pad" in parts else (None, None)
        centres = (parts["centre"][0], parts["centre"][1]) if "centre" in parts else (None, None)
        stretches = (parts["stretch"][0], parts["stretch"][1]) if "stretch" in parts else (None, None)
        return Actions(
            dihedral,
            rows,
            cols,
            srows,
            scols,
            down,
            *mirror,
            *fill,
            sample,
            stride_rows,
            stride_cols,
            *tiled,
            *periods,
            *shared,
            *anchors,
            *padded,
            *centres,
            *stretches,
        )


def _identity(size: int, like: torch.Tensor, at: int = 0) -> torch.Tensor:
    """The point distribution on `at`, made on the device (writing a 1 into zeros copies the
    1 from the host inside `vmap`: a wait for the device, and forbidden in a CUDA graph)."""
    return (torch.arange(size, device=like.device) == at).to(like.dtype)


def _compose(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
    """Distribution of b∘a for independent a ~ first, b ~ second (product of masks)."""
    table = _dihedral_index(first.device)
    joint = (second[:, None] * first[None, :]).reshape(-1)
    return first.new_zeros(8).index_add(0, table.reshape(-1), joint)
