"""Exact lattice actions (`ExactAction`) and the gates that write one into a head's mask
experts (`gate_bits`, `set_action`); which actions the experts can express (`expressible`)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import torch

from arcsolve.latformer.experts import SCALE_CHAIN, STRIDE_CHAIN, STRIDES, MaskExperts, chain_factor, chain_product
from arcsolve.symmetry import ELEMENT_NAMES

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
    or, by 1, a sampling of one axis while the other grows). With a `hole` colour, a periodic
    read: the head reads, besides the cell the rest of the action picks, every translate of
    it by the input's own period (p, q), found with the cells of that colour as unknown
    (`arcsolve.latformer.periods.grid_period`): cells whose rows differ by a multiple of p
    and columns by a multiple of q, those of the hole's colour left unread. With `shared` on
    a mirrored axis, the mirror images share their edge cells: x₀…x_{n−1} x_{n−2}…x₁ x₀ …
    With `anchor` on an output axis, the whole action is counted from the far edge of both
    lattices: output cell n_out − 1 − i reads input cell n_in − 1 − k where the action
    unanchored reads k from i (a crop of the last part of each grid, whatever its size).
    With `padded` on an output axis (unscaled), the input is shifted by δ, then folded back
    into itself past its edge: output cell i reads fold(i − δ), repeating the edge cell or,
    with `mirror`, mirroring the grid (sharing its edge cells with `shared`): numpy's `pad`
    modes edge, symmetric and reflect. With `centre` on an output axis, the action is read
    from the input's middle: moved on by ⌊(n_in − n_out)/2⌋ input cells (a crop of the
    middle of each grid, whatever its size). With `stretch` on an output axis, that axis
    reads the input's lattice laid over the output's: output cell i reads input cell
    ⌊i·n_in/n_out⌋, whatever the sizes (each example scaled by its own factor: a grid blown
    up by its own side), and nothing else of the action acts on it but the dihedral element."""

    dihedral: int = 0
    shift: tuple[int, int] = (0, 0)
    scale: tuple[int, int] = (1, 1)
    fill: bool = False
    down: bool = False
    pool: bool = False  # with `down`: each block read whole (a pooling), not its first cell
    mirror: tuple[bool, bool] = (False, False)  # per output axis: wrap as mirror images
    stride: tuple[int, int] = (1, 1)  # per axis, after an up-scaling: every s-th cell of it
    tiled_fill: bool = False  # with `fill`: the shift with fill acts inside each tile
    hole: int | None = None  # a periodic read's unknown colour; None: no periodic read
    shared: tuple[bool, bool] = (False, False)  # per output axis, with `mirror`: the images share edge cells
    anchor: tuple[bool, bool] = (False, False)  # per output axis: counted from the far edge
    padded: tuple[bool, bool] = (False, False)  # per output axis: shifted, then folded into the input
    centre: tuple[bool, bool] = (False, False)  # per output axis: read from the input's middle
    stretch: tuple[bool, bool] = (False, False)  # per output axis: the input's lattice laid over the output's

    def words(self) -> str:
        parts = [] if self.dihedral == 0 else [ELEMENT_NAMES[self.dihedral]]
        if self.scale != (1, 1):
            how = "down-scale" if self.down else "up-scale"
            by = (" by pooling" if self.pool else " by sampling") if self.down else ""
            parts.append(f"{how} {self.scale[0]}x{self.scale[1]}{by}")
        if self.stride != (1, 1):
            parts.append(f"down-scale {self.stride[0]}x{self.stride[1]} by sampling")
        if any(self.padded):
            parts.append(padding_words(self))
            return ", then ".join(parts)
        if any(self.mirror):
            axes = [name for name, on in zip(("rows", "columns"), self.mirror, strict=True) if on]
            edges = [name for name, on in zip(("rows", "columns"), self.shared, strict=True) if on]
            shared = f" (sharing their edge {' and '.join(edges)})" if edges else ""
            parts.append(f"mirror-wrap {' and '.join(axes)}{shared}")
        if self.shift != (0, 0):
            unit = " input cells" if self.scale != (1, 1) else ""
            fill = " with fill inside each tile" if self.tiled_fill else " with fill" if self.fill else ""
            parts.append(f"shift {self.shift[0]:+d},{self.shift[1]:+d}{unit}{fill}")
        if self.hole is not None:
            parts.append(periodic_words(self.hole))
        if any(self.anchor):
            parts.append(anchor_words(self.anchor))
        if any(self.centre):
            parts.append(centre_words(self.centre))
        if any(self.stretch):  # last, as `arcsolve.latformer.explain` words a head
            parts.append(stretch_words(self.stretch))
        return ", then ".join(parts) or "identity"


def periodic_words(hole: int, axis: str | None = None) -> str:
    """A periodic read in words; `axis` ("rows" or "columns"): the only axis it reads along."""
    along = f" along the {axis}" if axis else ""
    return f"read periodically (every translate{along} by the grid's own period, colour {hole} unknown)"


def padding_words(action: ExactAction) -> str:
    """A folded padding in words: how far it moves the grid and how it fills the margin."""
    axes = [name for name, on in zip(("rows", "columns"), action.padded, strict=True) if on]
    how = "repeating its edge cells"
    if any(action.mirror):
        how = "mirroring the grid about its edge cells" if any(action.shared) else "mirroring the grid"
    return f"padded ({' and '.join(axes)}) by {action.shift[0]},{action.shift[1]}, {how}"


def centre_words(centre: tuple[bool, bool]) -> str:
    """Centres in words: along which axes the action is read from the input's middle."""
    axes = [name for name, on in zip(("rows", "columns"), centre, strict=True) if on]
    return f"read from the middle ({' and '.join(axes)})"


def stretch_words(stretch: tuple[bool, bool]) -> str:
    """Stretches in words: along which axes the input is stretched over the output."""
    axes = [name for name, on in zip(("rows", "columns"), stretch, strict=True) if on]
    return f"stretched to the output's size ({' and '.join(axes)})"


def anchor_words(anchor: tuple[bool, bool]) -> str:
    """Anchors in words: from which far edges the action is counted."""
    edges = [name for name, on in zip(("bottom", "right"), anchor, strict=True) if on]
    return f"read from the {' and '.join(edges)} edge{'s' if len(edges) == 2 else ''}"


@cache
def scale_bits(factor: int) -> tuple[int, ...] | None:
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
    if any(action.shared):
        if "edge" not in live or not _shared_expressible(action):
            return None
        bits[experts.gate_slice("edge")] = torch.tensor(action.shared, dtype=bits.dtype)
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
            chain = scale_bits(factor)
            if chain is None:
                return None
            bits[where.start + axis * k : where.start + (axis + 1) * k] = torch.tensor(chain, dtype=bits.dtype)
        bits[where.start + 2 * k] = float(action.down)
        bits[where.start + 2 * k + 1] = float(action.down and not action.pool)  # by sampling
    elif action.down:
        return None
    if action.hole is not None:
        if "period" not in live:
            return None
        bits[experts.gate_slice("period")] = 1.0
    if any(action.padded):
        if "pad" not in live or not _padding_expressible(action):
            return None
        bits[experts.gate_slice("pad")] = torch.tensor(action.padded, dtype=bits.dtype)
    if any(action.centre):
        if "centre" not in live:
            return None
        bits[experts.gate_slice("centre")] = torch.tensor(action.centre, dtype=bits.dtype)
    if any(action.stretch):
        if "stretch" not in live or not _stretch_expressible(action):
            return None
        bits[experts.gate_slice("stretch")] = torch.tensor(action.stretch, dtype=bits.dtype)
    if any(action.anchor):
        if "anchor" not in live:
            return None
        bits[experts.gate_slice("anchor")] = torch.tensor(action.anchor, dtype=bits.dtype)
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


def _stride_expressible(action: ExactAction) -> bool:
    """Whether the scale expert's stride gates can give the action's stride: one of STRIDES
    per axis, after an up-scaling (never after a down-scaling)."""
    return not action.down and set(action.stride) <= set(STRIDES)


def _padding_expressible(action: ExactAction) -> bool:
    """A folded padding reads the unscaled input: no scaling, stride or fill on its axes,
    and mirrored or not alike on them."""
    on = [a for a in (0, 1) if action.padded[a]]
    if not on:
        return True
    plain = action.scale == (1, 1) and not action.down and not action.fill and not action.pool
    return plain and all(action.stride[a] == 1 for a in on) and len({action.mirror[a] for a in on}) == 1


def _stretch_expressible(action: ExactAction) -> bool:
    """A stretched axis reads the input's lattice laid over the output's and nothing else:
    no scaling, stride, shift, mirror image, padding, anchor or centre on it, and no fill
    or down-scaling at all."""
    if not any(action.stretch):
        return True
    if action.fill or action.down or action.hole is not None:
        return False
    return all(
        not on or (f == 1 and s == 1 and d == 0 and not m and not p and not a and not c)
        for on, f, s, d, m, p, a, c in zip(
            action.stretch, action.scale, action.stride, action.shift, action.mirror, action.padded,
            action.anchor, action.centre, strict=True,
        )
    )


def _shared_expressible(action: ExactAction) -> bool:
    """Shared edges only on axes that wrap as mirror images."""
    return all(m or not s for m, s in zip(action.mirror, action.shared, strict=True))


def expressible(action: ExactAction, shift_bits: int = 5) -> bool:
    """Can the four experts write `action` with exact gates (`gate_bits` finds bits)? Every
    dihedral element; shifts shorter than 2^shift_bits; scale factors of the chain; a
    down-scaling only with a factor; a mirror wrap only without fill, or with a tiled one;
    a tiled fill only with fill; a stretch only on an axis that does nothing else."""
    if action.tiled_fill and not action.fill:
        return False
    if any(action.mirror) and action.fill and not action.tiled_fill:
        return False
    if any(abs(delta) >= 2**shift_bits for delta in action.shift):
        return False
    if action.stride != (1, 1) and not _stride_expressible(action):
        return False
    if not _shared_expressible(action) or not _padding_expressible(action) or not _stretch_expressible(action):
        return False
    if action.scale == (1, 1):
        return not action.down
    return all(scale_bits(f) is not None for f in action.scale)
