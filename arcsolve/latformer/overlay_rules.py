"""Overlay rules: the cell rule of several heads where each cell takes the colour of the
first head, in a fixed order, that reads a colour other than a clear one (symmetry
completion: y = x ∪ g·x, hidden cells filled from their mirror images); and, masked, clear
wherever a mask head reads the clear colour (a self-similar tiling: y = kron(x ≠ 0, x), a
copy of the input wherever the up-scaled input holds a colour).

A table from the heads' readings to a colour (what the FFN learns) only answers
combinations of readings the train pairs show, and a completed test grid meets new ones at
almost every hidden cell. An overlay rule answers every combination. `overlay_rules` finds
those that the train pairs obey; `set_overlay_rule` writes it into a LatFormer's weights, so
that the model computes it as built.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import torch

from arcsolve.latformer.model import N_COLOURS, LatFormer

MAX_OVERLAID = 8  # heads an overlay rule orders, at most: each takes ten of the model's coordinates
MAX_MASKED = 4  # heads of a rule with masks, at most (the sets of one layer's heads)
MASK_WEIGHT = 2.0**MAX_OVERLAID  # logit of the clear colour from a mask head that reads it: above any order's
CLEAR_WEIGHT = 0.1  # logit of each head that reads the clear colour (every colour else: 1, 2, 4, …)
REST_BIAS = 0.01  # logit of the colour a cell takes when no head reads anything


@dataclass(frozen=True)
class OverlayRule:
    """Each cell takes the reading of the first head in `order` that reads a colour other
    than `clear`; `clear` where every head reads it or nothing and one reads it; `rest` where
    no head reads anything. With `masks`, a cell is `clear` wherever one of those heads
    reads it, whatever the others read; they give no colour of their own."""

    order: tuple[int, ...]
    clear: int
    rest: int = 0
    chosen: int = 0  # the first heads in `order` (and the masks) that the train pairs chose; the rest fill hidden cells
    masks: tuple[int, ...] = ()

    def apply(self, readings: np.ndarray) -> np.ndarray:
        """The colour of each cell from the heads' readings, (heads, cells) → (cells,); −1 is
        a head reading nothing."""
        out = np.where((readings == self.clear).any(0), self.clear, self.rest)
        for k in reversed(self.order):
            out = np.where((readings[k] >= 0) & (readings[k] != self.clear), readings[k], out)
        if self.masks:
            out = np.where((readings[list(self.masks)] == self.clear).any(0), self.clear, out)
        return out

    def words(self) -> str:
        masks = f"colour {self.clear} wherever head {' or '.join(map(str, self.masks))} reads it"
        if self.masks and len(self.order) == 1:
            return f"head {self.order[0]}'s reading, and {masks}"
        heads = " over ".join(map(str, self.order))
        rule = f"overlay: heads {heads}, colour {self.clear} clear (the first that reads another colour gives it)"
        return f"{rule}, and {masks}" if self.masks else rule


def overlay_rules(readings: np.ndarray, outputs: np.ndarray) -> list[OverlayRule]:
    """The overlay rules under which the heads' readings (heads, cells) give every cell its
    output colour: for the first clear colour, from 0 up, that has one, every order of the
    heads that does (the train pairs may not show which image lies over which where two
    differ, and each order is then an attempt). Cells that no head reads take one colour,
    `rest`. Where no order of all the heads does, some of them (up to MAX_MASKED heads in
    all) may be masks instead, fewest masks first and the set's later heads first (its
    heads come simplest action first, and the simplest reading gives the colour where the
    pairs cannot tell): a table would meet new combinations of colours on a test input that
    draws in several where each pair draws in one."""
    heads = len(readings)
    if not 2 <= heads <= MAX_OVERLAID:
        return []
    unread = (readings < 0).all(0)
    rests = set(outputs[unread].tolist())
    if len(rests) > 1:
        return []
    rest = rests.pop() if rests else 0
    plain = [((), order) for order in itertools.permutations(range(heads))]
    masked = (
        [
            (masks, order)
            for n in range(1, heads)
            for masks in itertools.combinations(reversed(range(heads)), n)
            for order in itertools.permutations([k for k in range(heads) if k not in masks])
        ]
        if heads <= MAX_MASKED
        else []
    )
    for splits in (plain, masked):
        for clear in range(N_COLOURS):
            rules = [OverlayRule(order, clear, rest, heads, masks) for masks, order in splits]
            rules = [rule for rule in rules if np.array_equal(rule.apply(readings), outputs)]
            if rules:
                fewest = min(len(rule.masks) for rule in rules)
                return [rule for rule in rules if len(rule.masks) == fewest]
    return []


def set_overlay_rule(model: LatFormer, rule: OverlayRule) -> None:
    """Write `rule` into a fresh LatFormer whose first layer has one head per reading (rounded
    gates, no skip), so that it computes the rule as built.

    Colours embed as one-hot vectors; after the pre-norm a cell of colour c is a·e_c − b·1.
    Head k's output projection moves the ten colour coordinates to its own ten, adding back
    b/(a − 10b) of their sum, so the first layer writes a·e_c on head k's block where it
    reads colour c, and nothing where it reads nothing. The
    later layers at the identity keep that up to a positive scale and an offset per cell, as
    for count rules (`arcsolve.latformer.count_rules.set_count_rule`). The classifier gives
    colour c the sum over heads reading c of 2^(place from the end of the order) for a colour
    other than `clear`, CLEAR_WEIGHT for `clear`, each less the block's spare coordinate (the
    offset), so the first head in the order that reads another colour outweighs all after it;
    a mask head gives `clear` MASK_WEIGHT, above all of theirs together, and no other colour
    anything; `rest` gets a small bias for cells no head reads."""
    layer = model.layers[0]
    heads = len(layer.heads)
    d = model.config.d_model
    if heads != len(rule.order) + len(rule.masks) or d < N_COLOURS * heads + 1:
        wanted = len(rule.order) + len(rule.masks)
        raise ValueError(f"an overlay of {wanted} heads needs as many heads and d_model > {N_COLOURS * heads}")
    spare = N_COLOURS * heads  # a coordinate no head writes: it carries each cell's offset
    colours = torch.arange(N_COLOURS)
    with torch.no_grad():
        model.embed.weight.zero_()
        model.embed.weight[:, :N_COLOURS] = torch.eye(N_COLOURS)
        normed = layer.norm(model.embed.weight)  # each colour after the pre-norm: a·e_c − b·1
        b = -float(normed[0, 1])
        a = float(normed[0, 0]) + b
        centre = b / (a - N_COLOURS * b)
        for k, projection in enumerate([layer.o, *layer.more_o]):
            projection.weight.zero_()
            projection.weight[N_COLOURS * k : N_COLOURS * (k + 1), :N_COLOURS] = centre
            projection.weight[N_COLOURS * k + colours, colours] += 1.0
        model.head.weight.zero_()
        for place, k in enumerate(rule.order):
            weight = torch.full((N_COLOURS,), float(2 ** (heads - 1 - place)))
            weight[rule.clear] = CLEAR_WEIGHT
            model.head.weight[colours, N_COLOURS * k + colours] = weight
            model.head.weight[:, spare] -= weight
        for k in rule.masks:
            weight = torch.zeros(N_COLOURS)
            weight[rule.clear] = MASK_WEIGHT
            model.head.weight[colours, N_COLOURS * k + colours] = weight
            model.head.weight[:, spare] -= weight
        model.head.bias.zero_()
        model.head.bias[rule.rest] = REST_BIAS
