"""Count rules: the cell rule of a pooling head whose output is the colour its block holds
most often (a majority vote, a "most frequent colour other than the background").

A pooling head attends to every cell of its block alike, so what it reads is the block's
colour histogram. A table keyed by that histogram (`arcsolve.latformer.exact_starts`) only
answers histograms the train pairs show, and blocks of random colours rarely repeat one. A
count rule answers every histogram: the most frequent colour, counting the colours in
`CountRule.rare` only where the block holds no other, ties to the colour earlier in
`CountRule.order`. `count_rule` finds one that the train pairs obey; `set_count_rule` writes
it into a LatFormer's weights, so that the model computes it as built. Where the rare colours
are the train inputs' backgrounds, each pair its own, `with_test_backgrounds` reads them as
that role and makes the test inputs' backgrounds rare too.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from arcsolve.colour_views import most_frequent_colour
from arcsolve.latformer.model import N_COLOURS, LatFormer

COUNT_WEIGHT = 30.0  # logit per unit of a colour's share of its block (×λ ≥ 5.7, see `set_count_rule`)
TIE_STEP = 0.001  # logit between colours one place apart in the tie order, at most
MAX_COUNTED = 100  # cells of a block a count rule reads, at most (its logits stay apart in float32)
LAMBDA = 5.0  # below the scale λ that the layers give a block's shares (`set_count_rule`)


@dataclass(frozen=True)
class CountRule:
    """Each cell takes the colour its block holds most often; the colours in `rare` count only
    where the block holds no other colour; ties go to the colour earlier in `order`."""

    rare: tuple[int, ...]
    order: tuple[int, ...]  # all ten colours, first wins a tie
    backgrounds: bool = False  # `rare` is every input's most frequent colour (`with_test_backgrounds`)

    def apply(self, counts: np.ndarray) -> np.ndarray:
        """The colour of each cell from its block's counts, (cells, 10) → (cells,)."""
        rank = np.empty(N_COLOURS, dtype=np.int64)
        rank[list(self.order)] = np.arange(N_COLOURS)
        return np.argmax(_keys(counts, self.rare) * N_COLOURS * 2 - rank[None, :], axis=1)

    def words(self) -> str:
        rare = f", {_colours(self.rare)} counted only where nothing else is" if self.rare else ""
        if self.backgrounds:
            rare = f", each input's most frequent colour ({_colours(self.rare)}) counted only where nothing else is"
        ties = "the lowest colour" if self.order == tuple(range(N_COLOURS)) else "the earlier of " + "".join(
            map(str, self.order)
        )
        return f"the block's most frequent colour{rare}; ties to {ties}"


def _colours(colours: tuple[int, ...]) -> str:
    return ("colour " if len(colours) == 1 else "colours ") + ", ".join(map(str, colours))


def _keys(counts: np.ndarray, rare) -> np.ndarray:
    """A colour's standing in its block: its count, above every rare colour's unless it is
    rare itself; absent colours below all (cells, 10)."""
    tier = np.full(N_COLOURS, MAX_COUNTED + 1, dtype=np.int64)  # above any count
    tier[list(rare)] = 0
    return np.where(counts > 0, counts + tier[None, :], -1)


def block_counts(cells: np.ndarray) -> np.ndarray:
    """(cells, block) colours (−1 where a block cell reads nothing) → (cells, 10) counts."""
    counts = np.zeros((len(cells), N_COLOURS), dtype=np.int64)
    for column in cells.T:
        seen = column >= 0
        np.add.at(counts, (np.flatnonzero(seen), column[seen]), 1)
    return counts


def count_rule(counts: np.ndarray, outputs: np.ndarray) -> tuple[CountRule, int] | None:
    """A count rule that gives every cell its output colour from its block's counts, with the
    number of choices it made (rare colours and tie constraints), or None. The rare colours
    are the fewest that must be: a colour that outnumbers a cell's output colour in its block
    is rare (unless the output is, and then every colour there is); ties decide the order,
    which must hold no cycle."""
    if len(counts) == 0 or not (counts[np.arange(len(counts)), outputs] > 0).all():
        return None  # an output colour its block does not hold
    rare: set[int] = set()
    for _ in range(N_COLOURS + 1):
        keys = _keys(counts, rare)
        own = keys[np.arange(len(keys)), outputs][:, None]
        beats = keys > own  # colours that would win over the output: they must be rare
        if not beats.any():
            break
        rare |= set(np.flatnonzero(beats.any(0)).tolist())
    else:
        return None
    keys = _keys(counts, rare)
    own = keys[np.arange(len(keys)), outputs][:, None]
    tied = (keys == own) & (np.arange(N_COLOURS)[None, :] != outputs[:, None])
    before = {(int(o), int(c)) for o, row in zip(outputs, tied, strict=True) for c in np.flatnonzero(row)}
    order = _topological(before)
    if order is None:
        return None
    return CountRule(tuple(sorted(rare)), order), len(rare) + len(before)


def with_test_backgrounds(
    rule: CountRule,
    counts: np.ndarray,
    outputs: np.ndarray,
    train_inputs: Sequence[np.ndarray],
    test_inputs: Sequence[np.ndarray],
) -> CountRule:
    """`rule` with every test input's most frequent colour rare too, where its rare colours
    are exactly the train inputs' most frequent colours and there are two or more of them:
    each pair then leaves out its own background, a role and not a colour, and a test drawn
    on a background that no pair shows leaves out its own. Unchanged where that rule no
    longer gives the train outputs from their blocks' `counts`."""
    train = {most_frequent_colour(x) for x in train_inputs}
    if len(rule.rare) < 2 or set(rule.rare) != train:
        return rule
    tests = {most_frequent_colour(x) for x in test_inputs}
    wider = CountRule(tuple(sorted(train | tests)), rule.order, backgrounds=True)
    return wider if np.array_equal(wider.apply(counts), outputs) else rule


def _topological(before: set[tuple[int, int]]) -> tuple[int, ...] | None:
    """The ten colours in an order where a comes before b for every (a, b) in `before`, the
    lower colour first where free to choose; None when `before` holds a cycle."""
    after: dict[int, list[int]] = {c: [] for c in range(N_COLOURS)}
    waiting = [0] * N_COLOURS
    for a, b in before:
        after[a].append(b)
        waiting[b] += 1
    ready = [c for c in range(N_COLOURS) if waiting[c] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        c = heapq.heappop(ready)
        order.append(c)
        for b in after[c]:
            waiting[b] -= 1
            if waiting[b] == 0:
                heapq.heappush(ready, b)
    return tuple(order) if len(order) == N_COLOURS else None


def set_count_rule(model: LatFormer, rule: CountRule, cells: int) -> None:
    """Write `rule` into a fresh LatFormer whose first layer pools blocks of `cells` cells (one
    head, rounded gates, no skip), so that it computes the rule as built.

    Colours embed as one-hot vectors, so a block's mean under the first layer's uniform
    attention, after the pre-norm, is a·hist − b·1 (a, b > 0, the same for every cell). Every
    later layer at the identity adds its input's normalised copy, which keeps that form with
    a positive scale λ ≥ a ≈ 5.7 and an offset of its own per cell. The classifier reads each
    colour's coordinate less a coordinate no colour uses (the offset), times its weight (a
    rare colour's half what one cell's share of a plain colour gives), plus a bias that
    orders ties, smaller than one cell of a rare colour gives."""
    d = model.config.d_model
    if d <= N_COLOURS:
        raise ValueError(f"a count rule needs d_model > {N_COLOURS}, not {d}")
    if not 1 <= cells <= MAX_COUNTED:
        raise ValueError(f"a count rule reads blocks of 1 to {MAX_COUNTED} cells, not {cells}")
    rare_weight = COUNT_WEIGHT / (2 * cells)
    tie_step = min(TIE_STEP, rare_weight * LAMBDA / cells / (2 * N_COLOURS))
    spare = N_COLOURS  # a coordinate no colour's embedding uses
    weight = torch.full((N_COLOURS,), COUNT_WEIGHT)
    weight[list(rule.rare)] = rare_weight
    rank = torch.empty(N_COLOURS)
    rank[list(rule.order)] = torch.arange(N_COLOURS, dtype=torch.float32)
    with torch.no_grad():
        model.embed.weight.zero_()
        model.embed.weight[:, :N_COLOURS] = torch.eye(N_COLOURS)
        model.head.weight.zero_()
        model.head.weight[torch.arange(N_COLOURS), torch.arange(N_COLOURS)] = weight
        model.head.weight[:, spare] = -weight
        model.head.bias.copy_(-tie_step * rank)
