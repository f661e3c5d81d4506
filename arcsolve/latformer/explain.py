"""LatFormer's actions in words (`--explain`): what each layer, and each head of a layer,
does with its gates rounded."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import torch

from arcsolve.latformer.exact_starts.actions import (
    ExactAction,
    anchor_words,
    centre_words,
    padding_words,
    periodic_words,
    stretch_words,
)
from arcsolve.latformer.exact_starts.readings import NOTHING
from arcsolve.latformer.experts import SCALE_FACTORS, STRIDES, MaskExperts
from arcsolve.latformer.mask_kernels import build_mask
from arcsolve.latformer.model import LatFormer, chain_shapes, middle_shape, tile_cells, tiled_mask
from arcsolve.latformer.sizing import Shape
from arcsolve.symmetry import DIHEDRAL, ELEMENT_NAMES


def _wraps_past_edge(n_out: int, n_in: int, factor: int, down: bool, stride: int = 1) -> bool:
    """Does scaling n_out cells by `factor` (an up-scaling then a `stride`: cell i reads
    ⌊i·s/f⌋) read past the n_in input cells (so that how the lattice wraps, cyclically or
    mirrored, changes the result)?"""
    last = n_out * factor - 1 if down else (n_out - 1) * stride // factor
    return last >= n_in


def describe_actions(
    model: LatFormer, shapes: Sequence[tuple[Shape, Shape]] = (), combined_by: str = "the FFN"
) -> str:
    """The action each layer performs with discretised gates, in words (for --explain); a
    layer of several heads names each head's action and what combines them (`combined_by`:
    the FFN, or a rule built into the weights).

    `shapes`: the (input, output) shapes the model is applied to; mirror-wrapping an axis is
    mentioned only if it changes the result for one of them (all of them when none are given)."""
    parts = []
    middle = model.config.middle
    for i, layer in enumerate(model.layers):
        layer_shapes = [(inp if i == 0 else out, out) for inp, out in shapes]
        staged = ""
        if layer.stage is not None and middle is not None:  # heads onto the middle lattice, then the stage
            mids = [middle_shape(out, middle) for _, out in layer_shapes]
            layer_shapes = [(inp, mid) for (inp, _), mid in zip(layer_shapes, mids, strict=True)]
            staged = f" (onto a middle lattice, the output's sides over {middle[0]}x{middle[1]}), then "
            staged += describe_stage(layer.stage, middle)
        if len(layer.chain) and model.config.chain is not None:  # heads onto the input's lattice, then each step
            chains = [chain_shapes(inp, out, model.config.chain) for inp, out in layer_shapes]
            layer_shapes = [(inp, lattices[0]) for (inp, _), lattices in zip(layer_shapes, chains, strict=True)]
            steps = [
                describe_step(
                    step,
                    [(c[k], c[k + 1]) for c in chains],
                    model.config.chain.steps[k],
                    model.config.chain.gaps[k] if model.config.chain.gaps else None,
                )
                for k, step in enumerate(layer.chain)
            ]
            staged = f", then a chain of {len(steps)} steps ({'; '.join(steps)})"
        hole = model.config.hole if i == 0 else None
        heads = [describe_tiles(head, layer.tiles_shape, layer_shapes, hole, layer.lines) for head in layer.heads]
        if staged:
            heads = [words + staged for words in heads]
        if len(heads) == 1:
            parts.append(f"layer {i}: {heads[0]}")
        else:
            named = "; ".join(f"head {k}: {words}" for k, words in enumerate(heads))
            parts.append(f"layer {i}: {len(heads)} heads ({named}), combined cell by cell by {combined_by}")
    return "; ".join(parts)


def describe_step(
    step: MaskExperts,
    step_shapes: Sequence[tuple[Shape, Shape]],
    lattice: tuple[int, int, int, int, int, int] | None = None,
    gap: tuple[int, int, int, int] | None = None,
) -> str:
    """One step of a chained first layer in words: its action (`describe_head`), or, where
    that is the identity onto a longer lattice, the tiling it is (onto a shorter one, the
    crop); with its `lattice` (`Chain.steps`), the sides it carries the grid onto where
    they change, and with its `gap` (`Chain.gaps`), the lines it reads."""
    words = describe_head(step, step_shapes)
    if words == "identity" and step_shapes and step_shapes[0][0] != step_shapes[0][1]:
        before, after = step_shapes[0]
        words = "tiled" if after[0] >= before[0] and after[1] >= before[1] else "cropped"
    if lattice is not None and lattice != (1, 1, 0, 1, 1, 0):
        words += f", onto rows {_side(*lattice[:3])}, columns {_side(*lattice[3:])}"
    if gap is not None and gap != (1, 1, 1, 1):
        axes = (("rows", *gap[:2]), ("columns", *gap[2:]))
        lines = [f"the last {a - b} of every {a} {name}" for name, a, b in axes if a > 1]
        unread = f"{' and '.join(lines)} read nothing"
        words = unread if words == "identity" else f"{words}, then {unread}"
    return words


def _side(p: int, q: int, c: int) -> str:
    """A side n·p // q + c in words (n: the side before)."""
    side = "n" if p == q else f"{p}n" if q == 1 else f"{p}n/{q}" if p != 1 else f"n/{q}"
    return side + (f"{c:+d}" if c else "")


def describe_stage(stage: MaskExperts, middle: tuple[int, int]) -> str:
    """A staged first layer's stage in words: its up-scaling of the middle lattice, then how
    many copies of that tile the output a side, and which axes mirror them."""
    with torch.no_grad():
        acts = stage.actions(None, discrete=True)
    factor = (SCALE_FACTORS[int(acts.scale_rows.argmax())], SCALE_FACTORS[int(acts.scale_cols.argmax())])
    tiles = (middle[0] // factor[0], middle[1] // factor[1])
    words = [f"up-scale {factor[0]}x{factor[1]}"] if factor != (1, 1) else []
    if tiles != (1, 1):
        mirrors = [(acts.mirror_rows, tiles[0], "rows"), (acts.mirror_cols, tiles[1], "columns")]
        mirrored = [axis for p, t, axis in mirrors if p is not None and p > 0.5 and t > 1]
        how = f" ({' and '.join(mirrored)} as mirror images)" if mirrored else ""
        words.append(f"tiled {tiles[0]}x{tiles[1]}{how}")
    return ", then ".join(words)


def describe_tiles(
    head: list[MaskExperts],
    tiles: tuple[int, int],
    layer_shapes: Sequence[tuple[Shape, Shape]],
    hole: int | None = None,
    lines: int = 0,
) -> str:
    """One head's action in words; with per-tile actions, each tile's, row by row; with
    per-panel actions (`lines`), each panel's, then the lines'."""
    if len(head) == 1:
        return describe_head(head[0], layer_shapes, hole)
    words = [describe_head(gates, layer_shapes, hole) for gates in head]
    rows = [" | ".join(words[r * tiles[1] : (r + 1) * tiles[1]]) for r in range(tiles[0])]
    if lines:
        return f"per panel of {tiles[0]}x{tiles[1]} between lines {lines} wide: " + " / ".join(rows) + (
            f"; the lines: {words[-1]}"
        )
    return f"per tile of a {tiles[0]}x{tiles[1]} tiling: " + " / ".join(rows)


def describe_head(head: MaskExperts, layer_shapes: Sequence[tuple[Shape, Shape]], hole: int | None = None) -> str:
    """One head's action with discretised gates, in words (`hole`: the colour its periodic
    reads, if it has them on, take as unknown)."""
    with torch.no_grad():
        acts = head.actions(None, discrete=True)
    span = (len(acts.shift_rows) - 1) // 2
    words = []
    dihedral = int(acts.dihedral.argmax())
    if dihedral:
        words.append(ELEMENT_NAMES[dihedral])
    f_r = SCALE_FACTORS[int(acts.scale_rows.argmax())]
    f_c = SCALE_FACTORS[int(acts.scale_cols.argmax())]
    down = bool(acts.down > 0.5)
    if (f_r, f_c) != (1, 1):
        how = ""
        if down and acts.sample is not None:  # the first cell of each block, or the block whole
            how = " by sampling" if bool(acts.sample > 0.5) else " by pooling"
        words.append(f"{'down' if down else 'up'}-scale {f_r}x{f_c}{how}")
    transposed = DIHEDRAL[dihedral][0] == 1  # output rows read input columns
    stride = (1, 1)
    if acts.stride_rows is not None and not down:
        stride = (STRIDES[int(acts.stride_rows.argmax())], STRIDES[int(acts.stride_cols.argmax())])
        if stride != (1, 1):
            words.append(f"down-scale {stride[0]}x{stride[1]} by sampling")
    shift = (int(acts.shift_rows.argmax()) - span, int(acts.shift_cols.argmax()) - span)
    padded = (False, False)
    if acts.padded_rows is not None:
        padded = (bool(acts.padded_rows > 0.5), bool(acts.padded_cols > 0.5))
    if any(padded):  # shifted, then folded back into the input: the rest of the wording is moot
        mirror = tuple(m is not None and bool(m > 0.5) for m in (acts.mirror_rows, acts.mirror_cols))
        shared = tuple(e is not None and bool(e > 0.5) for e in (acts.shared_rows, acts.shared_cols))
        folded = ExactAction(shift=shift, padded=padded, mirror=mirror, shared=shared)
        return ", then ".join([*words, padding_words(folded)])
    mirrored, edges, cyclic = [], [], False
    for axis, p, f, s, e in (
        ("rows", acts.mirror_rows, f_r, stride[0], acts.shared_rows),
        ("columns", acts.mirror_cols, f_c, stride[1], acts.shared_cols),
    ):
        out_axis = 0 if axis == "rows" else 1
        in_axis = 1 - out_axis if transposed else out_axis
        wraps = any(_wraps_past_edge(out[out_axis], inp[in_axis], f, down, s) for inp, out in layer_shapes)
        if p is not None and p > 0.5 and (wraps or not layer_shapes):
            mirrored.append(axis)
            if e is not None and e > 0.5:
                edges.append(axis)
        elif wraps and stride != (1, 1):
            cyclic = True  # a strided reading that runs past the edge tiles
    if cyclic:
        words.append("wrapped cyclically (tiled)")
    if mirrored:
        shared = f" (sharing their edge {' and '.join(edges)})" if edges else ""
        words.append(f"mirror-wrap {' and '.join(mirrored)}{shared}")
    fills = acts.fill_rows is not None and bool(acts.fill_rows > 0.5 or acts.fill_cols > 0.5)
    tiled = fills and acts.tiled_rows is not None and bool(acts.tiled_rows > 0.5 or acts.tiled_cols > 0.5)
    if shift != (0, 0):
        how = " with fill inside each tile" if tiled else " with fill (no wrap)" if fills else " (cyclic)"
        words.append(f"shift {shift[0]:+d},{shift[1]:+d}{how}")
    elif fills and any(out[0] > inp[0] or out[1] > inp[1] for inp, out in layer_shapes):
        words.append("placed without wrapping")
    if hole is not None and acts.period_rows is not None:
        on = [axis for axis, p in (("rows", acts.period_rows), ("columns", acts.period_cols)) if p > 0.5]
        if on:
            words.append(periodic_words(hole, on[0] if len(on) == 1 else None))
    if acts.anchor_rows is not None and bool(acts.anchor_rows > 0.5 or acts.anchor_cols > 0.5):
        words.append(anchor_words((bool(acts.anchor_rows > 0.5), bool(acts.anchor_cols > 0.5))))
    if acts.centre_rows is not None and bool(acts.centre_rows > 0.5 or acts.centre_cols > 0.5):
        words.append(centre_words((bool(acts.centre_rows > 0.5), bool(acts.centre_cols > 0.5))))
    if acts.stretch_rows is not None and bool(acts.stretch_rows > 0.5 or acts.stretch_cols > 0.5):
        words.append(stretch_words((bool(acts.stretch_rows > 0.5), bool(acts.stretch_cols > 0.5))))
    return ", then ".join(words) if words else "identity"


def head_readings(model: LatFormer, pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """What each first-layer head reads in each output cell of each pair, with rounded gates:
    (cells of all pairs, heads), the input colour its mask points at or NOTHING."""
    columns = []
    layer = model.layers[0]
    for head in layer.heads:
        with torch.no_grad():
            acts = [gates.actions(None, discrete=True) for gates in head]
        read = []
        for x, y in pairs:
            mid = y.shape if layer.stage is None else middle_shape(y.shape, model.config.middle)
            chain = chain_shapes(x.shape, y.shape, model.config.chain) if len(layer.chain) else []
            mid = chain[0] if chain else mid
            with torch.no_grad():
                tile_on = tile_cells(mid, layer.tiles_shape, None, layer.lines) if len(acts) > 1 else None
                mask = tiled_mask([build_mask(a, x.shape, mid) for a in acts], tile_on)
                if layer.stage is not None:  # carried onto the output lattice
                    mask = build_mask(layer.stage.actions(None, discrete=True), mid, y.shape) @ mask
                for step, before, after in zip(layer.chain, chain[:-1], chain[1:], strict=True):  # through each step
                    mask = build_mask(step.actions(None, discrete=True), before, after) @ mask
                mask = mask.cpu().numpy()
            read.append(np.where(mask.sum(1) > 0.5, x.reshape(-1)[mask.argmax(1)], NOTHING))
        columns.append(np.concatenate(read))
    return np.stack(columns, -1)


def describe_cell_rule(model: LatFormer, pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> str:
    """How the first layer's heads combine, cell by cell, in words: an overlay (the first head,
    in some order, that reads a colour gives it), a logical rule on which heads read a
    colour, or a table the FFN learned. Empty for a single head."""
    if len(model.layers[0].heads) < 2 or not pairs:
        return ""
    readings = head_readings(model, pairs)
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs])
    coloured = readings > 0  # background and NOTHING read no colour
    for order in itertools.permutations(range(readings.shape[1])):
        overlay = np.zeros_like(outputs)
        for k in reversed(order):
            overlay = np.where(coloured[:, k], readings[:, k], overlay)
        if (overlay == outputs).all():
            return "overlay: heads " + " over ".join(map(str, order)) + " (the first that reads a colour gives it)"
    colours = set(outputs.tolist()) - {0}
    if len(colours) == 1:
        colour = colours.pop()
        count = coloured.sum(1)
        rules = {"and": count == coloured.shape[1], "or": count > 0, "xor": count == 1, "nor": count == 0}
        for name, on in rules.items():
            if ((outputs == colour) == on).all() and ((outputs == 0) == ~on).all():
                return f"colour {colour} where the heads' readings ({name}) hold a colour, else 0"
    return f"a table of {len(np.unique(readings, axis=0))} combinations of readings, learned by the FFN"
