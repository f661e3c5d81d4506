"""The LatFormer model (paper §4, Figure 3a): colour embedding → LatFormer layers (masked
attention whose mask comes from lattice mask experts, then an FFN) → per-cell classifier.

Output lattice. The first layer is a cross-attention from the output lattice (H×W, chosen by
`arcsolve.latformer.sizing`) to the input lattice (h×w): its experts' mask (H·W × h·w) is the action
that maps one onto the other (rotation of a non-square grid, scaling, crop, tile). Later
layers are self-attention on the output lattice. Masks live on each example's own lattice
rather than a 30×30 canvas, so a 3×3 task costs 9×9 attention, not 900×900.

Initialisation near the identity (paper §4.1): Q/K/V/O projections start as identities and
the FFNs' last layers at zero, so at step 0 a layer is exactly MaskedAttention(X; M), and
the experts alone decide the transformation.

`forward` returns (logits, loss) like nanoGPT's, so `arcsolve.latformer.fit` stays model-agnostic.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from arcsolve.latformer.experts import EXPERTS, Actions, MaskExperts
from arcsolve.latformer.mask_kernels import MaskBases, mask_bases, mask_from_bases
from arcsolve.latformer.periods import grid_period
from arcsolve.latformer.reference_masks import masked_attention

N_COLOURS = 10


def gap_lines(n: int, every: int, kept: int) -> np.ndarray:
    """Which of n lines a gap leaves read: of every `every` lines, counted from the first,
    the first `kept`."""
    return np.arange(n) % every < kept


class Chain(NamedTuple):
    """The lattices of a chained first layer: its heads act onto the input's lattice (turned
    where `turned`: the axes swapped), then each of `steps` carries that onto a lattice of its
    own, the last onto the output's. Each step's sides are (p_r, q_r, c_r, p_c, q_c, c_c):
    rows n·p_r // q_r + c_r and columns likewise, from the sides before it. A step may leave
    lines of its lattice unread (`gaps`, one (a_r, b_r, a_c, b_c) per step, or none at all):
    of every a_r rows, counted from the first, the first b_r read what the step's gates give
    and the others nothing (grid lines between blocks, or an up-scaling that keeps one cell
    of each block); likewise the columns. (1, 1, 1, 1) leaves every line read."""

    turned: bool
    steps: tuple[tuple[int, int, int, int, int, int], ...]
    gaps: tuple[tuple[int, int, int, int], ...] = ()

    def read_lines(self, step: int, shape: tuple[int, int]) -> np.ndarray | None:
        """(H·W,) 1 where a cell of step `step`'s lattice (of `shape`) reads, 0 in a gap; None
        where the step has no gap."""
        if not self.gaps or self.gaps[step] == (1, 1, 1, 1):
            return None
        a_r, b_r, a_c, b_c = self.gaps[step]
        rows, cols = gap_lines(shape[0], a_r, b_r), gap_lines(shape[1], a_c, b_c)
        return (rows[:, None] & cols[None, :]).reshape(-1)

    def shapes(self, in_shape: tuple[int, int]) -> list[tuple[int, int]]:
        """The lattice the heads write onto, then the one after each step."""
        h, w = in_shape[::-1] if self.turned else in_shape
        shapes = [(h, w)]
        for p_r, q_r, c_r, p_c, q_c, c_c in self.steps:
            h, w = h * p_r // q_r + c_r, w * p_c // q_c + c_c
            shapes.append((h, w))
        return shapes


@dataclass(frozen=True)
class LatFormerConfig:
    d_model: int = 32
    n_layers: int = 2
    experts: tuple[str, ...] = EXPERTS
    later_experts: tuple[str, ...] = ("translate", "rotate", "reflect")  # layers ≥ 1
    shift_bits: int = 5  # translations up to 2^5 − 1 = 31 cells per axis
    smoothing: float = 0.5  # heat-kernel time for mask smoothing; 0 disables it
    heads: int = 1  # first-layer heads, each with its own experts and mask; the FFN combines them
    # per-tile actions: where the output is an a×b tiling of equal tiles, each first-layer
    # head has one set of gates per tile, so each tile takes its own action ((1, 1): one set)
    tiles: tuple[int, int] = (1, 1)
    # per-panel actions: with `tiles` (a, b), lines this many cells wide cut the output into
    # a×b equal panels (`tile_cells`); the lines' cells are one tile more, with its own gates
    lines: int = 0
    # the first layer's skip connection (input cell k onto output cell k where the lattices
    # have as many cells); off, the output is a function of what the heads read and nothing else
    skip: bool = True
    # later layers add their input back (a residual); off, a later layer's output is what its
    # mask reads, so a shift there moves the first layer's result instead of adding to it
    later_residual: bool = True
    # the scale expert's strides after up-scaling (output cell i reads ⌊i·s/f⌋); off, they read
    # 0, and only exact starts whose actions use one switch them on
    strides: bool = False
    # the translate expert's tiled fills (a shift with fill inside each tile of a scaled or
    # tiled input); off, they read 0, and only exact starts whose actions use one switch them on
    tiled_fills: bool = False
    # the colour of a periodic read's hidden cells: with one, the translate expert's periods
    # are on (a head may read every translate of its source by the input's own period,
    # `arcsolve.latformer.periods`, found with this colour as unknown), and the first layer
    # reads no cell of this colour; None, the gates and masks are exactly those of a model
    # without them. Only exact starts set one.
    hole: int | None = None
    # the reflect expert's shared edges (mirror images that share their edge row or column:
    # a reflection about the edge cell's centre); off, the gates and masks are exactly those
    # of a model without them, and only exact starts whose actions use one switch them on
    shared_edges: bool = False
    # the translate expert's anchors (an action counted from the far edge of both lattices, so
    # that a crop of the last rows stays the last rows of an input of any size); off, the gates
    # and masks are exactly those of a model without them, and only exact starts whose actions
    # use one switch them on
    anchors: bool = False
    # the translate expert's folded paddings (the unscaled input shifted, then folded back into
    # itself past its edge: numpy's `pad` modes edge, symmetric and reflect); off, the gates
    # and masks are exactly those of a model without them, and only exact starts set them
    paddings: bool = False
    # the translate expert's centres (an action read from the input's middle, so that a crop
    # of the middle stays the middle of an input of any size); only exact starts set them
    centres: bool = False
    # the scale expert's stretches (an axis of the input's lattice laid over the output's, so
    # that each example is scaled by its own factor: a grid blown up to its own size); only
    # exact starts set them
    stretches: bool = False
    # a staged first layer: its heads act onto a middle lattice, the output's sides divided by
    # these (k_r, k_c), and one more set of gates (`LatFormerLayer.stage`) carries that onto the
    # output lattice (an up-scaling, tiling or mirror tiling of what the heads wrote); each
    # head's mask is the product of the two. None: the heads act onto the output lattice
    middle: tuple[int, int] | None = None
    # a chained first layer: its heads act onto the (turned) input lattice, and one more set of
    # gates per step (`LatFormerLayer.chain`) carries that onto the step's lattice, the last
    # onto the output's (`arcsolve.latformer.exact_starts.chains`); None: no chain
    chain: Chain | None = None
    cond_dim: int = 0  # > 0 for LatFormer+NL: gates are conditioned on a text embedding
    beta: float | None = None  # colour-attention mixing weight (None: plain LatFormer)
    # Initial gate logits. The first layer starts as a uniform mixture of the 8 rotations and
    # reflections, near-zero shifts and unit scale; later layers start near the identity.
    first_gates: tuple[tuple[str, float], ...] = (("translate", -3.0), ("scale", -2.0))
    later_gates: tuple[tuple[str, float], ...] = (("translate", -3.0), ("rotate", -3.0), ("reflect", -3.0))


class Lattices(NamedTuple):
    """What a forward pass needs to know about its lattices: the mask kernels of the first
    layer (output lattice onto the input lattice; with a staged first layer, its middle
    lattice onto the input) and of the later ones (output onto itself), and the first
    layer's skip connection, which adds input cell k to output cell k when both lattices
    have as many cells (`skip_index`, weighted by `skip_on`)."""

    first: MaskBases
    later: MaskBases
    skip_index: torch.Tensor | None  # (n_out,) input cell read by each output cell
    skip_on: torch.Tensor | None  # (n_out,) 1 where the skip applies, 0 elsewhere
    tile_on: torch.Tensor | None = None  # (tiles, n_out) 1 where an output cell lies in a tile


def tile_cells(
    out_shape: tuple[int, int], tiles: tuple[int, int], side: int | None = None, lines: int = 0
) -> torch.Tensor:
    """(a·b, cells) 1 where an output cell lies in tile t when the output lattice is cut into
    a×b equal tiles (row-major tiles; cells past the last tile belong to it); cells
    row-major on the output lattice, or on a side×side canvas (its padding in no tile). With
    `lines`, lines that many cells wide cut it into a×b equal panels instead (`panel_axis`),
    and the lines' cells are tile a·b: (a·b + 1, cells)."""
    (H, W), (a, b) = out_shape, tiles
    if lines:
        (rows, row_line), (cols, col_line) = panel_axis(H, a, lines), panel_axis(W, b, lines)
        on_line = row_line[:, None] | col_line[None, :]
        index = torch.where(on_line, a * b, rows[:, None] * b + cols[None, :]).reshape(-1)
    else:
        rows = (torch.arange(H) // max(1, H // a)).clamp(max=a - 1)
        cols = (torch.arange(W) // max(1, W // b)).clamp(max=b - 1)
        index = (rows[:, None] * b + cols[None, :]).reshape(-1)
    cells = torch.arange(H * W)
    at = cells if side is None else (cells // W) * side + cells % W
    on = torch.zeros(a * b + bool(lines), H * W if side is None else side * side)
    on[index, at] = 1.0
    return on


def panel_axis(n: int, k: int, lines: int) -> tuple[torch.Tensor, torch.Tensor]:
    """An axis of n cells cut into k equal panels by lines `lines` cells wide: each cell's
    panel, and whether it lies on a line (or past the last panel, where k panels and their
    lines do not fill the axis)."""
    side = max(1, (n - (k - 1) * lines) // k)
    at = torch.arange(n)
    panel = (at // (side + lines)).clamp(max=k - 1)
    on_line = (at % (side + lines) >= side) | (at >= k * side + (k - 1) * lines)
    return panel, on_line


@lru_cache(maxsize=256)  # holds device tensors (`mask_bases`), so bounded as they are
def lattices(
    in_shape: tuple[int, int],
    out_shape: tuple[int, int],
    span: int,
    canvas: tuple[int, int] | None = None,
    device: torch.device | None = None,
    dtype: torch.dtype = torch.float32,
    tiles: tuple[int, int] = (1, 1),
    middle: tuple[int, int] | None = None,
    period: tuple[int, int] = (1, 1),
    chain: Chain | None = None,
    lines: int = 0,
) -> Lattices:
    """The `Lattices` of an in_shape → out_shape example. With a canvas (S_out, S_in), both
    grids sit in the top-left corners of S×S canvases (cells row-major on the canvas), so
    examples of different shapes share tensor shapes and can be batched; cells outside the
    real lattices get zero mask rows and columns and never reach a real cell. `tiles`: the
    tiling of per-tile heads (`LatFormerConfig.tiles`); `middle`: a staged first layer's
    divisors (`LatFormerConfig.middle`, not batched: no canvas); `period`: the input's own,
    which periodic reads read by (`arcsolve.latformer.periods`); `chain`: a chained first
    layer's lattices (`LatFormerConfig.chain`, not batched either); `lines`: the panels' lines
    of per-panel heads (`LatFormerConfig.lines`)."""
    if (middle is not None or chain is not None) and canvas is not None:
        raise ValueError("a staged or chained first layer is fitted on its own lattices, not on canvases")
    if chain is not None:
        shapes = chain_shapes(in_shape, out_shape, chain)
        first = mask_bases(in_shape, shapes[0], span, None, device, dtype, period)
        later = mask_bases(out_shape, out_shape, span, None, device, dtype)
        return Lattices(first, later, None, None, None)
    if middle is not None:
        mid = middle_shape(out_shape, middle)
        first = mask_bases(in_shape, mid, span, None, device, dtype, period)
        later = mask_bases(out_shape, out_shape, span, None, device, dtype)
        tile_on = tile_cells(mid, tiles, None, lines).to(device, dtype) if tiles != (1, 1) else None
        return Lattices(first, later, None, None, tile_on)
    (h, w), (H, W) = in_shape, out_shape
    first = mask_bases(in_shape, out_shape, span, canvas, device, dtype, period)
    later = mask_bases(out_shape, out_shape, span, None if canvas is None else (canvas[0], canvas[0]), device, dtype)
    tile_on = None
    if tiles != (1, 1) or canvas is not None:  # batched lattices stack: each has one
        tile_on = tile_cells(out_shape, tiles, None if canvas is None else canvas[0], lines).to(device, dtype)
    if canvas is None:
        if H * W != h * w:
            return Lattices(first, later, None, None, tile_on)
        ones = torch.ones(H * W, device=device, dtype=dtype)
        return Lattices(first, later, torch.arange(H * W, device=device), ones, tile_on)
    (S, s), k = canvas, torch.arange(H * W)
    index = torch.zeros(S * S, dtype=torch.long)
    on = torch.zeros(S * S, dtype=dtype)
    if H * W == h * w:  # output cell k (row-major) reads input cell k (row-major)
        index[(k // W) * S + k % W] = (k // w) * s + k % w
        on[(k // W) * S + k % W] = 1.0
    return Lattices(first, later, index.to(device), on.to(device), tile_on)


class LatticeMismatch(ValueError):
    """An output lattice that a model's structure cannot act on: a staged first layer's
    middle lattice must divide it."""


def chain_shapes(in_shape: tuple[int, int], out_shape: tuple[int, int], chain: Chain) -> list[tuple[int, int]]:
    """The lattices of a chained first layer (`Chain.shapes`), which must end on the output's."""
    shapes = chain.shapes(in_shape)
    if shapes[-1] != tuple(out_shape) or min(min(shape) for shape in shapes) < 1:
        (h, w), (H, W) = in_shape, out_shape
        raise LatticeMismatch(f"the chain takes a {h}x{w} input to no {H}x{W} output")
    return shapes


def middle_shape(out_shape: tuple[int, int], middle: tuple[int, int]) -> tuple[int, int]:
    """The middle lattice of a staged first layer: the output's sides divided by `middle`."""
    (H, W), (k_r, k_c) = out_shape, middle
    if H % k_r or W % k_c:
        raise LatticeMismatch(f"a {H}x{W} output is no {k_r}x{k_c} multiple of a middle lattice")
    return H // k_r, W // k_c


def tiled_mask(masks: list[torch.Tensor], tile_on: torch.Tensor | None) -> torch.Tensor:
    """One head's mask from its per-tile masks (one each, (n_out, n_in)): each output cell's
    row from its own tile's mask; the only mask when the head has one set of gates."""
    if len(masks) == 1:
        return masks[0]
    return sum(on[:, None] * mask for on, mask in zip(tile_on, masks, strict=True))


class ColourAttention(nn.Module):
    """Colour attention (thesis eq. 3.1–3.3): values attend over the ten colour embeddings.

    P = β·V + (1 − β)·softmax(V C_kᵀ) C_v, where C_k, C_v are the colour matrix [0..9]
    passed through the model's own embedding and key/value projections."""

    def __init__(self, beta: float):
        super().__init__()
        self.beta = beta

    def forward(self, v: torch.Tensor, colour_keys: torch.Tensor, colour_values: torch.Tensor) -> torch.Tensor:
        if self.beta == 1.0:
            return v
        d = v.shape[-1]
        attended = torch.softmax(v @ colour_keys.T / d**0.5, dim=-1) @ colour_values
        return self.beta * v + (1 - self.beta) * attended


class LatFormerLayer(nn.Module):
    """Masked attention (mask from the experts) + FFN, pre-norm, initialised to the identity."""

    def __init__(self, config: LatFormerConfig, experts: tuple[str, ...], first: bool):
        super().__init__()
        d = config.d_model
        self.first = first
        gates = dict(config.first_gates if first else config.later_gates)
        # more heads (first layer): each reads the input under its own action, through its own
        # output projection; the FFN then combines them cell by cell, y = f(g1·x, …, gK·x).
        # With per-tile actions each head has one set of gates per tile.
        self.tiles_shape = config.tiles if first else (1, 1)
        self.lines = config.lines if first else 0
        self.tiles = self.tiles_shape[0] * self.tiles_shape[1] + bool(self.lines)  # the lines: one tile more
        extra = config.heads - 1 if first else 0
        options = (
            config.strides,
            config.tiled_fills,
            config.hole is not None,
            config.shared_edges,
            config.anchors,
            config.paddings,
            config.centres,
            config.stretches,
        )
        self.experts = MaskExperts(experts, config.cond_dim, config.shift_bits, gates, *options)  # head 0
        self.more_experts = nn.ModuleList(
            MaskExperts(experts, config.cond_dim, config.shift_bits, gates, *options)
            for _ in range((extra + 1) * self.tiles - 1)
        )
        # a staged first layer: one more set of gates, middle lattice onto output (every expert;
        # its action is an exact start's, `arcsolve.latformer.exact_starts.staged`)
        staged = first and config.middle is not None
        self.stage = MaskExperts(EXPERTS, config.cond_dim, config.shift_bits, gates) if staged else None
        # a chained first layer: one more set of gates per step (every expert; each an exact
        # start's action, `arcsolve.latformer.exact_starts.chains`)
        steps = config.chain.steps if first and config.chain is not None else ()
        # (with the centres where the chain takes a middle half: `LatFormerConfig.centres`)
        self.chain = nn.ModuleList(
            MaskExperts(EXPERTS, config.cond_dim, config.shift_bits, gates, centres=config.centres) for _ in steps
        )
        self.more_o = nn.ModuleList(nn.Linear(d, d, bias=False) for _ in range(extra))
        for proj in self.more_o:
            nn.init.eye_(proj.weight)
        self.norm = nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        for proj in (self.q, self.k, self.v, self.o):
            nn.init.eye_(proj.weight)
        if first:  # no content preference at the start: attention is exactly the mask mixture
            nn.init.zeros_(self.q.weight)
        self.skip = nn.Linear(d, d, bias=False) if first and config.skip else None  # x itself, when lattices match
        self.residual = config.later_residual
        if self.skip is not None:
            nn.init.zeros_(self.skip.weight)
        self.ffn = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        nn.init.zeros_(self.ffn[-1].weight)
        nn.init.zeros_(self.ffn[-1].bias)
        self.colour = ColourAttention(config.beta) if config.beta is not None else None

    @property
    def gate_sets(self) -> list[MaskExperts]:
        """Every set of gates: head 0 first, and within a head tile 0 first."""
        return [self.experts, *self.more_experts]

    @property
    def heads(self) -> list[list[MaskExperts]]:
        """Each head's sets of gates, one per tile (a single one without per-tile actions)."""
        sets = self.gate_sets
        return [sets[k : k + self.tiles] for k in range(0, len(sets), self.tiles)]

    def forward(
        self,
        x: torch.Tensor,
        masks: list[torch.Tensor],
        colours: torch.Tensor | None,
        lattice: Lattices,
        stage: torch.Tensor | None = None,
    ) -> torch.Tensor:
        # x: (B, n_in, d); masks: one (n_out, n_in) per set of gates (`gate_sets`), or (n_mid,
        # n_in) with a `stage` mask (n_out, n_mid) that each head's mask is carried by; colours:
        # (10, d) embedded colour matrix
        masks = [tiled_mask(masks[k : k + self.tiles], lattice.tile_on) for k in range(0, len(masks), self.tiles)]
        if stage is not None:
            masks = [stage @ mask for mask in masks]
        h = self.norm(x)
        v = self.v(h)
        if self.colour is not None:
            c = self.norm(colours)
            v = self.colour(v, self.k(c), self.v(c))
        out = None
        for mask, o in zip(masks, [self.o, *self.more_o], strict=True):
            if self.first:
                # queries live on the output lattice: the mask-weighted input under the action
                query = (mask / mask.sum(-1, keepdim=True).clamp_min(1e-9)) @ h  # (B, n_out, d)
            else:
                query = h
            read = o(masked_attention(self.q(query), self.k(h), v, mask))  # (B, n_out, d)
            out = read if out is None else out + read
        if self.first:
            if self.skip is not None and lattice.skip_index is not None:  # x itself, cell k onto cell k
                out = out + lattice.skip_on[:, None] * self.skip(h).index_select(-2, lattice.skip_index)
        elif self.residual:
            out = x + out
        return out + self.ffn(out)


class LatFormer(nn.Module):
    def __init__(self, config: LatFormerConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(N_COLOURS, config.d_model)
        self.layers = nn.ModuleList(
            LatFormerLayer(config, self.layer_experts(config.experts, i), first=i == 0) for i in range(config.n_layers)
        )
        self.head = nn.Linear(config.d_model, N_COLOURS)
        with torch.no_grad():  # start as the identity function: read back the colour embedded
            self.head.weight.copy_(self.embed.weight)
            self.head.bias.zero_()

    def layer_experts(self, experts: tuple[str, ...], i: int) -> tuple[str, ...]:
        """Layer i's share of a model's experts: all of them in the first layer, those among
        `config.later_experts` in the later ones."""
        return experts if i == 0 else tuple(e for e in self.config.later_experts if e in experts)

    def allow_experts(self, experts: tuple[str, ...]) -> LatFormer:
        """Switch off the experts not in `experts` (`MaskExperts.allow`), layer by layer as
        `layer_experts` shares them out: the model then computes exactly what one built with
        `experts` computes. Returns the model."""
        for i, layer in enumerate(self.layers):
            for gates in layer.gate_sets:
                gates.allow(self.layer_experts(experts, i))
        return self

    def actions(self, cond: torch.Tensor | None, discrete: bool, smooth: bool) -> list[list[Actions]]:
        """Each layer's actions, one per set of gates (`LatFormerLayer.gate_sets`)."""
        acts = [[gates.actions(cond, discrete) for gates in layer.gate_sets] for layer in self.layers]
        if smooth and self.config.smoothing > 0:
            acts = [[a.smoothed(self.config.smoothing) for a in layer] for layer in acts]
        return acts

    def forward(
        self,
        grids: torch.Tensor,
        out_shape: tuple[int, int],
        targets: torch.Tensor | None = None,
        cond: torch.Tensor | None = None,
        discrete: bool = False,
        smooth: bool = False,
        embedded: torch.Tensor | None = None,
        lattice: Lattices | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """grids: (B, h, w) colours, or `embedded` (B, h, w, d) for noisy inputs;
        returns logits (B, H, W, 10) and the cross-entropy loss when targets (B, H, W) are given.
        `lattice`: the examples' `Lattices` when the grids are padded canvases (batched fits);
        by default the real lattices of these shapes."""
        B, h, w = grids.shape
        H, W = out_shape
        if lattice is None and self.config.hole is not None:  # periodic reads: each grid's own period
            return self._by_period(grids, out_shape, targets, cond, discrete, smooth, embedded)
        x = (self.embed(grids) if embedded is None else embedded).reshape(B, h * w, -1)
        span = 2**self.config.shift_bits - 1
        if lattice is None:
            lattice = lattices(
                (h, w), (H, W), span, None, x.device, x.dtype, self.config.tiles, self.config.middle,
                chain=self.config.chain, lines=self.config.lines,
            )
        colours = self.embed.weight if self.config.beta is not None else None

        def carried(experts: MaskExperts, before: tuple[int, int], after: tuple[int, int]) -> torch.Tensor:
            """The mask of a stage's or a chain step's gates, from one lattice onto the next."""
            acts = experts.actions(cond, discrete)
            acts = acts.smoothed(self.config.smoothing) if smooth and self.config.smoothing > 0 else acts
            return mask_from_bases(acts, mask_bases(before, after, span, None, x.device, x.dtype))

        for i, (layer, actions) in enumerate(zip(self.layers, self.actions(cond, discrete, smooth), strict=True)):
            bases = lattice.first if i == 0 else lattice.later
            stage = None
            if layer.stage is not None:  # the middle lattice onto the output
                stage = carried(layer.stage, middle_shape((H, W), self.config.middle), (H, W))
            if len(layer.chain):  # each step's lattice onto the next; their product
                shapes = chain_shapes((h, w), (H, W), self.config.chain)
                for k, (experts, before, after) in enumerate(zip(layer.chain, shapes[:-1], shapes[1:], strict=True)):
                    step = carried(experts, before, after)
                    read = self.config.chain.read_lines(k, after)
                    if read is not None:  # the step's gaps read nothing
                        step = step * torch.from_numpy(read).to(step.device, step.dtype)[:, None]
                    stage = step if stage is None else step @ stage
            masks = [mask_from_bases(head, bases) for head in actions]
            if i == 0 and self.config.hole is not None:  # periodic reads read no hole
                known = (grids != self.config.hole).reshape(B, 1, h * w).to(x.dtype)
                masks = [mask * known for mask in masks]
            x = layer(x, masks, colours, lattice, stage)
        logits = self.head(x).view(B, H, W, N_COLOURS)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.reshape(-1, N_COLOURS), targets.reshape(-1))
        return logits, loss

    def _by_period(
        self,
        grids: torch.Tensor,
        out_shape: tuple[int, int],
        targets: torch.Tensor | None,
        cond: torch.Tensor | None,
        discrete: bool,
        smooth: bool,
        embedded: torch.Tensor | None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """`forward` where periodic reads are on: the grids grouped by their own period
        (`grid_period`, with the config's hole colour unknown), each group on the lattices of
        its period; the logits in the grids' order and the loss their mean over every cell."""
        B, h, w = grids.shape
        span, dtype = 2**self.config.shift_bits - 1, self.embed.weight.dtype
        groups: dict[tuple[int, int], list[int]] = {}
        for i, grid in enumerate(grids.cpu().numpy()):
            groups.setdefault(grid_period(grid, self.config.hole), []).append(i)
        logits, loss = None, None
        for period, members in groups.items():
            at = torch.tensor(members, device=grids.device)
            lattice = lattices(
                (h, w), out_shape, span, None, grids.device, dtype, self.config.tiles, self.config.middle, period,
                self.config.chain, self.config.lines,
            )
            part, part_loss = self.forward(
                grids[at],
                out_shape,
                None if targets is None else targets[at],
                cond,
                discrete,
                smooth,
                None if embedded is None else embedded[at],
                lattice,
            )
            if logits is None:
                logits = part.new_zeros((B, *part.shape[1:]))
            logits = logits.index_copy(0, at, part)
            if part_loss is not None:
                weighted = part_loss * (len(members) / B)
                loss = weighted if loss is None else loss + weighted
        return logits, loss
