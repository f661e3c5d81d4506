"""Canvases for batched fitting: grids of any shape padded into the top-left corner of an
S×S canvas, so that examples of different shapes share tensor shapes (`arcsolve.latformer.batch`)."""

from __future__ import annotations

import torch

Example = tuple[torch.Tensor, torch.Tensor]  # input (h, w), output (H, W), colour indices

# Lattices are padded to the next of these sides. On a CPU every padded cell costs real
# compute, so the sides are close together and inputs and outputs are padded apart. On a GPU
# a small step costs its kernel launches, not its cells, so a few large canvases, one side
# for inputs and outputs alike, let far more tasks share a batch.
CANVAS_SIDES = (4, 6, 8, 10, 12, 15, 20, 25, 30)
GPU_CANVAS_SIDES = (10, 15, 20, 30)


def canvas_side(n: int, sides: tuple[int, ...] = CANVAS_SIDES) -> int:
    """The canvas side a lattice side of n cells is padded to."""
    return next((side for side in sides if side >= n), n)


def canvas(examples: list[Example]) -> tuple[int, int]:
    """(S_out, S_in): the canvas sides of a job's output and input lattices (one side for
    both when the examples are on a GPU)."""
    out_side, in_side = max(max(y.shape) for _, y in examples), max(max(x.shape) for x, _ in examples)
    if examples[0][0].device.type == "cuda":
        side = canvas_side(max(out_side, in_side), GPU_CANVAS_SIDES)
        return side, side
    return canvas_side(out_side), canvas_side(in_side)



def pad(grid: torch.Tensor, side: int) -> torch.Tensor:
    """A grid in the top-left corner of a side × side canvas of zeros."""
    out = grid.new_zeros(side, side)
    out[: grid.shape[0], : grid.shape[1]] = grid
    return out
