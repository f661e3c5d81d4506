"""Baselines for the sample-efficiency study (paper §5.1, Figure 5): attention and a
Transformer without lattice masks, each with absolute or relative positional encodings.

They share LatFormer's forward signature, `forward(grids, out_shape, targets, cond=,
discrete=, smooth=, embedded=) -> (logits (B, H, W, 10), loss)`, so `arcsolve.latformer.fit` trains
them with the same loop and budget; `cond`, `discrete` and `smooth` are accepted and ignored
(no gates, no masks, so `fit`'s early stop only fires if the train pairs are reproduced).

  * `AttentionBaseline`: LatFormer's layer stack with the mask taken away. Layer 1 is a
    cross-attention from the output lattice (a learned query vector per cell, plus its
    position) to the embedded input; later layers are self-attention on the output lattice.
  * `TransformerBaseline`: a standard pre-norm Transformer encoder (Vaswani et al., 2017)
    over the input cells followed by one query token per output cell; logits are read at
    the query tokens, so any output shape works.

Positional encodings:
  * absolute: learned row and column embeddings, summed and added to every token;
  * relative (Shaw et al., 2018): learned embeddings of the clipped row and column offsets
    between a query and a key cell, added to the key, e_ij = q_i·(k_j + a^r_Δr + a^c_Δc)/√d.
    Offsets beyond ±clip share the end embeddings. No absolute position is given.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

N_COLOURS = 10
POSITIONALS = ("absolute", "relative")


@dataclass(frozen=True)
class BaselineConfig:
    d_model: int = 32
    n_layers: int = 2
    n_heads: int = 1
    positional: str = "absolute"  # or "relative"
    max_side: int = 30  # absolute encodings cover lattices up to this side
    clip: int = 15  # relative offsets are clipped to [−clip, clip]


def lattice_coords(h: int, w: int, device: torch.device) -> torch.Tensor:
    """(h·w, 2) row and column of each cell, row-major."""
    rows, cols = torch.meshgrid(torch.arange(h, device=device), torch.arange(w, device=device), indexing="ij")
    return torch.stack([rows.reshape(-1), cols.reshape(-1)], dim=-1)


class AbsolutePositions(nn.Module):
    def __init__(self, config: BaselineConfig):
        super().__init__()
        self.rows = nn.Embedding(config.max_side, config.d_model)
        self.cols = nn.Embedding(config.max_side, config.d_model)
        for table in (self.rows, self.cols):
            nn.init.normal_(table.weight, std=0.5)

    def forward(self, coords: torch.Tensor) -> torch.Tensor:
        return self.rows(coords[:, 0]) + self.cols(coords[:, 1])  # (n, d)


Blocks = tuple[tuple[int, int], ...]  # the lattices (h, w) whose cells, row-major, make up a token sequence


class Attention(nn.Module):
    """Multi-head attention from queries x to keys/values ctx, optionally with Shaw et al.'s
    relative key embeddings (one table per axis, shared by the heads)."""

    def __init__(self, config: BaselineConfig):
        super().__init__()
        d, self.heads = config.d_model, config.n_heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.clip = config.clip
        self.relative = config.positional == "relative"
        if self.relative:
            self.rel_rows = nn.Parameter(torch.randn(2 * config.clip + 1, d // self.heads) * 0.5)
            self.rel_cols = nn.Parameter(torch.randn(2 * config.clip + 1, d // self.heads) * 0.5)

    def relative_bias(self, q: torch.Tensor, x_coords: torch.Tensor, ctx_blocks: Blocks) -> torch.Tensor:
        """q_i·(a^r_Δr + a^c_Δc) for every query i and key j: (B, heads, n, m).

        The row offset of a key depends on its row alone and the column offset on its column,
        so each lattice block of keys is an outer sum of a (n, rows) and a (n, cols) table."""
        B, heads, n, _ = q.shape
        by_row, by_col = q @ self.rel_rows.T, q @ self.rel_cols.T  # (B, heads, n, 2·clip+1)
        parts = []
        for h, w in ctx_blocks:
            lines = []
            for table, size, axis in ((by_row, h, 0), (by_col, w, 1)):
                offsets = torch.arange(size, device=q.device)[None, :] - x_coords[:, axis, None]  # (n, size)
                index = offsets.clamp(-self.clip, self.clip) + self.clip
                lines.append(table.gather(-1, index.expand(B, heads, n, size)))  # (B, heads, n, size)
            parts.append((lines[0][..., :, None] + lines[1][..., None, :]).flatten(-2))  # (B, heads, n, h·w)
        return torch.cat(parts, dim=-1)

    def forward(self, x: torch.Tensor, ctx: torch.Tensor, x_coords: torch.Tensor, ctx_blocks: Blocks) -> torch.Tensor:
        B, n, d = x.shape
        m = ctx.shape[1]
        dh = d // self.heads

        def split(t: torch.Tensor, length: int) -> torch.Tensor:
            return t.view(B, length, self.heads, dh).transpose(1, 2)  # (B, heads, length, dh)

        q, k, v = split(self.q(x), n), split(self.k(ctx), m), split(self.v(ctx), m)
        bias = self.relative_bias(q, x_coords, ctx_blocks) / dh**0.5 if self.relative else None
        # softmax(q·kᵀ/√dh + bias)·v in one fused kernel where the device has one (flash attention
        # on a GPU when there is no bias): the n×m scores are never stored for the backward pass
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        return self.o(out.transpose(1, 2).reshape(B, n, d))


class Block(nn.Module):
    """Pre-norm attention + FFN with residuals."""

    def __init__(self, config: BaselineConfig):
        super().__init__()
        d = config.d_model
        self.norm_x, self.norm_ctx = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attention = Attention(config)
        self.ffn = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(
        self,
        x: torch.Tensor,
        ctx: torch.Tensor | None,
        x_coords: torch.Tensor,
        ctx_blocks: Blocks,
    ) -> torch.Tensor:
        """Self-attention when ctx is None, cross-attention from x to ctx otherwise."""
        h = self.norm_x(x)
        x = x + self.attention(h, h if ctx is None else self.norm_ctx(ctx), x_coords, ctx_blocks)
        return x + self.ffn(x)


class _GridModel(nn.Module):
    """Shared parts: colour embedding, output query vector, positions, head and loss."""

    def __init__(self, config: BaselineConfig):
        super().__init__()
        if config.positional not in POSITIONALS:
            raise ValueError(f"positional must be one of {POSITIONALS}, got {config.positional!r}")
        self.config = config
        self.embed = nn.Embedding(N_COLOURS, config.d_model)
        self.query = nn.Parameter(torch.randn(config.d_model) * 0.5)
        self.positions = AbsolutePositions(config) if config.positional == "absolute" else None
        self.norm = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, N_COLOURS)

    def tokens(self, grids: torch.Tensor, out_shape: tuple[int, int], embedded: torch.Tensor | None):
        """Input tokens (B, h·w, d), output query tokens (B, H·W, d) and their coordinates."""
        B, h, w = grids.shape
        H, W = out_shape
        x = (self.embed(grids) if embedded is None else embedded).reshape(B, h * w, -1)
        in_coords, out_coords = (
            lattice_coords(h, w, grids.device),
            lattice_coords(H, W, grids.device),
        )
        y = self.query.expand(B, H * W, -1)
        if self.positions is not None:
            x, y = x + self.positions(in_coords), y + self.positions(out_coords)
        return x, y, in_coords, out_coords

    def finish(self, y: torch.Tensor, out_shape: tuple[int, int], targets: torch.Tensor | None):
        B = y.shape[0]
        logits = self.head(self.norm(y)).view(B, *out_shape, N_COLOURS)
        loss = None if targets is None else F.cross_entropy(logits.reshape(-1, N_COLOURS), targets.reshape(-1))
        return logits, loss


class AttentionBaseline(_GridModel):
    """Cross-attention output→input, then self-attention on the output lattice; no masks."""

    def __init__(self, config: BaselineConfig):
        super().__init__(config)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))

    def forward(self, grids, out_shape, targets=None, cond=None, discrete=False, smooth=False, embedded=None):
        x, y, in_coords, out_coords = self.tokens(grids, out_shape, embedded)
        in_shape = tuple(grids.shape[1:])
        y = self.blocks[0](y, x, out_coords, (in_shape,))
        for block in self.blocks[1:]:
            y = block(y, None, out_coords, (out_shape,))
        return self.finish(y, out_shape, targets)


class TransformerBaseline(_GridModel):
    """A Transformer encoder over [input cells; output query cells]."""

    def __init__(self, config: BaselineConfig):
        super().__init__(config)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))

    def forward(self, grids, out_shape, targets=None, cond=None, discrete=False, smooth=False, embedded=None):
        x, y, in_coords, out_coords = self.tokens(grids, out_shape, embedded)
        seq, coords = (
            torch.cat([x, y], dim=1),
            torch.cat([in_coords, out_coords]),
        )  # (B, h·w + H·W, d)
        for block in self.blocks:
            seq = block(seq, None, coords, (tuple(grids.shape[1:]), out_shape))
        return self.finish(seq[:, x.shape[1] :], out_shape, targets)
