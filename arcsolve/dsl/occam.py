"""Occam's razor for the search's answers: the shortest description first, and a model learned
from the train outputs only where it predicts a train pair it was not fitted on.

Every answer has a description length (`description_length`): each step's cost, a tenth per
parameter value, and, for a step whose parameters were fitted on the train outputs (a colour
map, a cell table or rule, stamps, object moves, a tally, the outputs of classes, an overlay
of pieces), half a unit per entry of what it learned (`learned_size`). The search ranks its
answers by it, shortest first.

A learned model *holds out* (`holds_out`) if, fitted again on every train pair but one, it
predicts the pair left out, for each pair in turn; a task with fewer than `MIN_HELD_OUT`
pairs cannot tell a rule from a memory that way, so there a model may hold at most
`MAX_FEW_PAIRS_ENTRIES` entries instead, and with one pair, which any model fits, nothing
learned holds out (`few_pairs_hold`). An answer whose learned model fails this is kept as
an unverified guess, ranked after every verified answer; so is one that is not shorter, in
bits, than the train outputs it rebuilds (`significant`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from arcsolve.dsl.families.patterns import fit_stamps
from arcsolve.dsl.families.tallying import refit_classes, refit_tally
from arcsolve.dsl.learned.cell_tables import fit_table
from arcsolve.dsl.learned.object_moves import refit_moves
from arcsolve.dsl.learned.rules import fit_rule
from arcsolve.dsl.learned.stamping import refit_stamps
from arcsolve.dsl.primitives.drawing import fit_ray_axes
from arcsolve.dsl.program import OVERLAY, Program, Step, apply_step
from arcsolve.dsl.registry import PRIMITIVES

Array = np.ndarray

ENTRY_COST = 0.5  # per entry of a learned model
PARAM_COST = 0.1  # per parameter value of a plain step
MIN_HELD_OUT = 3  # train pairs a task needs for leaving one out
MAX_FEW_PAIRS_ENTRIES = 4  # a learned model's entries at most, with fewer pairs than that
UNSET = np.full(10, -1, dtype=np.int8)  # a colour table with no colour mapped yet
BITS_PER_UNIT = math.log2(len(PRIMITIVES))  # what naming one step of unit cost takes


def _atoms(params) -> int:
    """How many plain values a parameter tuple holds, however nested."""
    if isinstance(params, tuple):
        return sum(_atoms(p) for p in params)
    return 1


# What each learned step holds, as a number of entries (the keys of its lookup: colours
# mapped, cell keys, stamp sources or kinds of object, groups of objects, classes, pieces;
# a tally's cells in order), from its parameters.
_SIZES: dict[str, Callable[[tuple], int]] = {
    "recolor": lambda p: len(p[0]),
    "cell_table": lambda p: len(p[0][1]),
    "cell_rule": lambda p: len(p[0][0]),
    "stamp_around": lambda p: len(p[0][2]),
    "line_rays": lambda p: len(p[0]),
    "stamp_objects": lambda p: len(p[1]),
    "move_objects": lambda p: len(p[0][2]),
    "tally_fill": lambda p: len(p[0].order),
    "pick_output": lambda p: len(p[0].outputs),
    OVERLAY: lambda p: len(p[1]),
}


def learned_size(step: Step) -> int | None:
    """How many entries a step learned from the train outputs; None for a plain step."""
    size = _SIZES.get(step.name)
    return None if size is None else size(step.params)


def description_length(program: Program) -> float:
    """How long the program is to write down (lower is simpler): each step's cost, plus a
    tenth per parameter value of a plain step or half a unit per entry of a learned one; an
    overlay costs its pieces' programs plus one per piece."""
    total = 0.0
    for step in program:
        if step.name == OVERLAY:
            total += sum(description_length(p) + 1.0 for p, _ in step.params[1])
            continue
        size = learned_size(step)
        extra = PARAM_COST * _atoms(step.params) if size is None else ENTRY_COST * size
        total += PRIMITIVES[step.name].cost + extra
    return total


def explained_bits(targets: Sequence[Array]) -> float:
    """What the train outputs hold, in bits: each cell one of the colours they use (at least two)."""
    colours = len(set(np.unique(np.concatenate([t.ravel() for t in targets])).tolist()))
    return sum(t.size for t in targets) * math.log2(max(2, colours))


def significant(length: float, bits: float) -> bool:
    """Whether a program of this description length is shorter than `bits`, what the train
    outputs it rebuilds hold (`explained_bits`): one that is not (a pick of one colour cell
    on three pairs, after a step that changes nothing they show) explains them no better
    than chance among all the programs of its length."""
    return length * BITS_PER_UNIT <= bits


def fit_colours(table: Array, out: Array, target: Array) -> bool:
    """Extend the colour table (-1 = unset) so that table[out] == target; False if impossible."""
    o, t = out.ravel(), target.ravel().astype(table.dtype, copy=False)
    trial = table.copy()
    trial[o] = t  # a colour sent to two targets keeps one of them, which the check below refutes
    # arrays of one dtype compared as bytes: the search asks this of most steps it tries
    if trial[o].tobytes() != t.tobytes():
        return False
    if np.where(table >= 0, table, trial).tobytes() != trial.tobytes():  # a colour set before changed
        return False
    table[:] = trial
    return True


def full_map(table: Array) -> Array:
    """The colour map a fitted table applies: its colours, and every unset colour kept."""
    full = np.arange(10, dtype=np.int8)
    full[table >= 0] = table[table >= 0]
    return full


Refit = Callable[[tuple, list[Array], list[Array], float | None], list[tuple]]


def _one(params: tuple | None) -> list[tuple]:
    return [] if params is None else [params]


# For each learned step: its parameters fitted again on some pairs, of the same form (the
# same features, kind of object or stamp), as the list of parameter tuples found.
REFITS: dict[str, Refit] = {
    "cell_table": lambda p, grids, targets, deadline: _one(
        None if (table := fit_table(grids, targets, p[0][0])) is None else (table,)),
    "cell_rule": lambda p, grids, targets, deadline: _one(
        None if (table := fit_rule(grids, targets)) is None else (table,)),
    "line_rays": lambda p, grids, targets, deadline: _one(
        None if (axes := fit_ray_axes(grids, targets)) is None else (axes, p[1])),
    "stamp_around": lambda p, grids, targets, deadline: [(m,) for m in refit_stamps(grids, targets, p[0][0])],
    "move_objects": lambda p, grids, targets, deadline: [
        (m,) for m in refit_moves(grids, targets, p[0][0], p[0][1], deadline)],
    "stamp_objects": lambda p, grids, targets, deadline: _one(
        None if (table := fit_stamps(grids, targets, p[0])) is None else (p[0], table)),
    "tally_fill": lambda p, grids, targets, deadline: _one(
        None if (tally := refit_tally(p[0], grids, targets)) is None else (tally,)),
    "pick_output": lambda p, grids, targets, deadline: _one(
        None if (classes := refit_classes(p[0], grids, targets)) is None else (classes,)),
}


def _colours_hold_out(outs: Sequence[Array], targets: Sequence[Array]) -> bool:
    """Does the colour map fitted on all pairs but one give the pair left out, for each pair?"""
    for k, (out, target) in enumerate(zip(outs, targets, strict=True)):
        table = UNSET.copy()
        for j, (o, t) in enumerate(zip(outs, targets, strict=True)):
            if j != k and not fit_colours(table, o, t):
                return False
        if out.shape != target.shape or not np.array_equal(full_map(table)[out], target):
            return False
    return True


def _model_holds_out(step: Step, before: Sequence[Array], targets: Sequence[Array], deadline: float | None) -> bool:
    """Does the step, fitted again on all pairs but one, give the pair left out, for each pair?"""
    refit = REFITS.get(step.name)
    if refit is None:
        return False
    for k in range(len(targets)):
        if deadline is not None and time.monotonic() > deadline:
            return False
        grids = [g for j, g in enumerate(before) if j != k]
        others = [t for j, t in enumerate(targets) if j != k]
        models = refit(step.params, grids, others, deadline)
        if not any(np.array_equal(apply_step(Step(step.name, p), before[k]), targets[k]) for p in models):
            return False
    return True


def few_pairs_hold(n_pairs: int, sizes: Sequence[int]) -> bool:
    """Whether learned models of these sizes (entries) count as rules on a task with fewer than
    MIN_HELD_OUT train pairs: with two, if each holds at most MAX_FEW_PAIRS_ENTRIES entries;
    with one, never, since a model fitted on one pair reproduces it whatever its rule."""
    return n_pairs > 1 and all(size <= MAX_FEW_PAIRS_ENTRIES for size in sizes)


def holds_out(
    program: Program,
    before: Sequence[Array],
    outs: Sequence[Array],
    targets: Sequence[Array],
    tail: Program = (),
    deadline: float | None = None,
) -> bool:
    """Whether what the program learned from the train outputs generalizes: with at least
    MIN_HELD_OUT pairs, a learned last step (`before`: the train grids it took) or a colour
    map `tail` (fitted from `outs`, the program's train outputs, to the targets) predicts
    each pair when fitted on the others; with fewer, `few_pairs_hold`. A program
    that learns nothing holds; one that learns in two places, or before its last step, does
    not (it cannot be refitted step by step). Overlays are checked by their cover
    (`arcsolve.dsl.compose.Cover.holds_out`)."""
    learned = [s for s in (*program, *tail) if learned_size(s) is not None]
    if not learned:
        return True
    if len(targets) < MIN_HELD_OUT:
        return few_pairs_hold(len(targets), [learned_size(s) for s in learned])
    if len(learned) > 1:
        return False
    if tail:
        return _colours_hold_out(outs, targets)
    if learned_size(program[-1]) is None:
        return False
    return _model_holds_out(program[-1], before, targets, deadline)
