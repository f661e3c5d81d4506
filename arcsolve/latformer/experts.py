"""Lattice mask experts (paper §4.1, Appendix A, Figure 6) and mask smoothing (§4.2).

Each expert is a gated chain on the identity, M_{l+1} = α_l·K_l(M_l) + (1 − α_l)·M_l, whose
frozen kernels K_l are exact lattice actions (Corollary 3.3; `arcsolve.latformer.reference_masks`) and whose
gates α_l = σ(FFN_l(c)) are the only learned part. Expanding a chain gives a weighted sum
of exact actions whose weights are products of gates; experts combine by multiplying masks,
which multiplies these weights. So an expert here outputs the *distribution over its
actions* (a short vector), never a dense mask per gate layer, and `build_mask` turns the
product of experts into one mask per example from per-axis matrices (Kronecker structure).

The action, read from an output cell back to the input cell it attends to:
    output (H×W) --scale up/down by f--> --wrap into (h'×w')--> --translate δ (cyclic)-->
    --dihedral element d (rotations / reflections)--> input (h×w)
Wrapping cyclically into the input lattice makes an output larger than its input a tiling
and a smaller one a crop at an offset, so crops and tiles come out of the same experts.

Gates depend on a conditioning vector c (zero for the plain model, a sentence embedding for
LatFormer+NL), not on the grid itself: one task is one transformation, and grid-dependent
gates only add capacity to overfit 2–5 examples.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from arcsolve.symmetry import FLIP_COLS, FLIP_ROWS, ROT90, ROT180, TRANSPOSE, composition_table

EXPERTS = ("translate", "rotate", "reflect", "scale")

SCALE_CHAIN = (2, 3, 4, 5)  # chained up-scaling layers, distinct so no two gates are symmetric
SCALE_FACTORS = tuple(
    sorted(
        {
            int(np.prod([f for f, b in zip(SCALE_CHAIN, bits, strict=True) if b]))
            for bits in np.ndindex(*(2,) * len(SCALE_CHAIN))
        }
    )
)


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
    factors = [int(np.prod([f for f, b in zip(SCALE_CHAIN, row, strict=True) if b])) for row in bits.tolist()]
    to_factor = torch.zeros(len(bits), len(SCALE_FACTORS))
    to_factor[torch.arange(len(bits)), [SCALE_FACTORS.index(f) for f in factors]] = 1.0
    return bits.to(device), to_factor.to(device, dtype)


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
        )


# ---------------------------------------------------------------- the experts


class MaskExperts(nn.Module):
    """The four lattice mask experts of one LatFormer layer, gated by σ(FFN(c))."""

    # reflect: flip rows, flip columns, transpose, mirror-wrap rows, mirror-wrap columns
    GATES = {"rotate": 2, "reflect": 5, "translate": 2 * 6, "scale": 2 * len(SCALE_CHAIN) + 1}

    def __init__(
        self,
        enabled: tuple[str, ...],
        cond_dim: int = 0,
        shift_bits: int = 5,
        init_logits: dict[str, float] | None = None,
    ):
        super().__init__()
        self.enabled = tuple(e for e in EXPERTS if e in enabled)
        self.shift_bits = shift_bits
        self.GATES = {**self.GATES, "translate": 2 * (shift_bits + 1)}
        n = sum(self.GATES[e] for e in self.enabled)
        init = init_logits or {}
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

    def allow(self, experts: tuple[str, ...]) -> None:
        """Switch off every expert not in `experts`: its gates read 0, exactly the identity
        action, so the layer computes what a layer built with only `experts` computes, and
        its gate logits get no gradient. Models with different priors then share one
        architecture (and a batch, `arcsolve.latformer.batched`)."""
        for name in self.enabled:
            self.gate_on[self.gate_slice(name)] = float(name in experts)

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
        if "translate" in parts:
            t = parts["translate"].view(2, -1)
            rows, cols = (shift_distribution(t[i, :-1], t[i, -1]) for i in range(2))
        else:
            rows = cols = _identity(2 * (2**self.shift_bits - 1) + 1, gates, 2**self.shift_bits - 1)
        if "scale" in parts:
            s = parts["scale"]
            k = len(SCALE_CHAIN)
            srows, scols, down = scale_distribution(s[:k]), scale_distribution(s[k : 2 * k]), s[-1]
        else:
            srows = scols = _identity(len(SCALE_FACTORS), gates)
            down = zero
        return Actions(dihedral, rows, cols, srows, scols, down, mirror[0], mirror[1])


def _identity(size: int, like: torch.Tensor, at: int = 0) -> torch.Tensor:
    """The point distribution on `at`, made on the device (writing a 1 into zeros copies the
    1 from the host inside `vmap`: a wait for the device, and forbidden in a CUDA graph)."""
    return (torch.arange(size, device=like.device) == at).to(like.dtype)


def _compose(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
    """Distribution of b∘a for independent a ~ first, b ~ second (product of masks)."""
    table = _dihedral_index(first.device)
    joint = (second[:, None] * first[None, :]).reshape(-1)
    return first.new_zeros(8).index_add(0, table.reshape(-1), joint)


# ---------------------------------------------------------------- from actions to one mask


def _wrap(index: torch.Tensor, n: int, mirror: bool) -> torch.Tensor:
    """Fold lattice coordinates into n cells: cyclically (tiling), or as mirror images
    (x₀…x_{n−1} x_{n−1}…x₀ …, a tiling whose copies alternate with their reflections)."""
    if not mirror:
        return index % n
    k = index % (2 * n)
    return torch.where(k < n, k, 2 * n - 1 - k)


class AxisBases(NamedTuple):
    """Frozen 1-D kernels for one output axis reading one input axis, zero-padded to a
    canvas (n_out ≤ N_out output cells, n_in ≤ N_in input cells; no padding outside a batch)."""

    up: torch.Tensor  # (2, F, N_out, N_in): up-scaling by each factor; [0] wraps cyclically, [1] mirrored
    down: torch.Tensor  # (2, F, N_out, N_in): down-scaling likewise
    shift: torch.Tensor  # (2·span+1, N_in, N_in): cyclic shifts on the n_in real cells
    reverse: torch.Tensor  # (N_in, N_in): reverses the n_in real cells (a flip)


class MaskBases(NamedTuple):
    """Everything `mask_from_bases` needs to know about two lattices: the axis kernels for
    rows and columns read straight (t = 0) and across (t = 1, the transposes)."""

    rows: AxisBases
    cols: AxisBases
    rows_t: AxisBases
    cols_t: AxisBases


@lru_cache(maxsize=1024)  # a few hundred kB each at most; a run meets far fewer sizes
def axis_bases(n_out: int, n_in: int, span: int, canvas: tuple[int, int] | None = None) -> AxisBases:
    """The kernels from n_out cells into n_in cells: scaling by each factor (wrapping, so it
    tiles or crops), shifts by −span…span, the reversal; zero beyond the real cells when a
    canvas (N_out, N_in) pads them."""
    N_out, N_in = canvas or (n_out, n_in)
    i, j = torch.arange(n_out), torch.arange(n_in)
    up = torch.zeros(2, len(SCALE_FACTORS), N_out, N_in)
    down = torch.zeros(2, len(SCALE_FACTORS), N_out, N_in)
    for m, mirror in enumerate((False, True)):
        for k, f in enumerate(SCALE_FACTORS):
            up[m, k, i, _wrap(i // f, n_in, mirror)] = 1.0
            for offset in range(f):
                down[m, k, i, _wrap(i * f + offset, n_in, mirror)] += 1.0
    shift = torch.zeros(2 * span + 1, N_in, N_in)
    for k, delta in enumerate(range(-span, span + 1)):
        shift[k, j, (j - delta) % n_in] = 1.0
    reverse = torch.zeros(N_in, N_in)
    reverse[j, n_in - 1 - j] = 1.0
    return AxisBases(up, down, shift, reverse)


@lru_cache(maxsize=256)  # on the device: bounded, so that a long run does not fill a GPU
def mask_bases(
    in_shape: tuple[int, int],
    out_shape: tuple[int, int],
    span: int,
    canvas: tuple[int, int] | None = None,
    device: torch.device | None = None,
    dtype: torch.dtype = torch.float32,
) -> MaskBases:
    """The kernels for masks from an out_shape lattice onto an in_shape one, on a device;
    with a canvas (S_out, S_in), the lattices sit in the top-left corners of S×S canvases."""
    (h, w), (H, W) = in_shape, out_shape
    axes = (axis_bases(H, h, span, canvas), axis_bases(W, w, span, canvas),
            axis_bases(H, w, span, canvas), axis_bases(W, h, span, canvas))
    return MaskBases(*(AxisBases(*(b.to(device, dtype) for b in axis)) for axis in axes))


def axis_matrix(
    shift: torch.Tensor, scale: torch.Tensor, down: torch.Tensor, mirror: torch.Tensor | None, bases: AxisBases
) -> torch.Tensor:
    """The per-axis factor of the mask, (N_out × N_in): scale and wrap (cyclic or mirrored),
    then shift on the input lattice (so a shift of a smaller output is a crop at an offset)."""
    up, dn = (scale * (1 - down)) @ bases.up.flatten(2), (scale * down) @ bases.down.flatten(2)
    scaling = up + dn  # (2, N_out·N_in): cyclic, mirrored
    scaling = scaling[0] if mirror is None else (1 - mirror) * scaling[0] + mirror * scaling[1]
    n_out, n_in = bases.up.shape[2:]
    translate = (shift @ bases.shift.flatten(1)).view(n_in, n_in)
    return scaling.view(n_out, n_in) @ translate


def mask_from_bases(actions: Actions, bases: MaskBases) -> torch.Tensor:
    """The dense (H·W × h·w) mask of the product of experts for one example (canvas cells
    when the bases are padded: cells outside the real lattices get zero rows and columns).

    Flips act on one axis each, so they fold into the per-axis factors; the transpose
    swaps which input axis each output axis reads. That leaves two Kronecker sums, each
    one einsum: Σ_{r,c} w[t,r,c] · (A_r F^r) ⊗ (A_c F^c) for t = 0 and t = 1."""
    weights = actions.dihedral.view(2, 2, 2)  # [transpose, flip rows, flip cols]

    def stacks(row_bases: AxisBases, col_bases: AxisBases) -> tuple[torch.Tensor, torch.Tensor]:
        a_r = axis_matrix(actions.shift_rows, actions.scale_rows, actions.down, actions.mirror_rows, row_bases)
        a_c = axis_matrix(actions.shift_cols, actions.scale_cols, actions.down, actions.mirror_cols, col_bases)
        return torch.stack([a_r, a_r @ row_bases.reverse]), torch.stack([a_c, a_c @ col_bases.reverse])

    def kron_sum(w2: torch.Tensor, a_r: torch.Tensor, a_c: torch.Tensor) -> torch.Tensor:
        # Σ_{r,c} w2[r,c] a_r[r] ⊗ a_c[c] as one (H·rows × 2) @ (2 × W·cols) product
        cols = w2 @ a_c.flatten(1)
        out = a_r.flatten(1).T @ cols.flatten(1)  # (H·rows, W·cols)
        return out.view(a_r.shape[1], a_r.shape[2], a_c.shape[1], a_c.shape[2])

    r0, c0 = stacks(bases.rows, bases.cols)
    mask = kron_sum(weights[0], r0, c0).permute(0, 2, 1, 3)  # (H, W, h, w)
    r1, c1 = stacks(bases.rows_t, bases.cols_t)  # transposed: output rows read input columns and vice versa
    mask = mask + kron_sum(weights[1], r1, c1).permute(0, 2, 3, 1)
    H, W, h, w = mask.shape
    return mask.reshape(H * W, h * w)


def build_mask(actions: Actions, in_shape: tuple[int, int], out_shape: tuple[int, int]) -> torch.Tensor:
    """The dense (H·W × h·w) mask of the product of experts for one example."""
    span, like = (len(actions.shift_rows) - 1) // 2, actions.dihedral
    return mask_from_bases(actions, mask_bases(in_shape, out_shape, span, None, like.device, like.dtype))
