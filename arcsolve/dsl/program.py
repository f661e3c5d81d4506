"""Programs as data: a program is a tuple of named steps, printable, hashable, runnable.

A step names a registered primitive, or is an `overlay` of whole sub-programs run on the
same grid (see `arcsolve.dsl.compose`), which the search builds from partial programs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from arcsolve.dsl.compose import base_grid, overlay
from arcsolve.dsl.registry import PRIMITIVES

OVERLAY = "overlay"


class Step(NamedTuple):
    """One primitive applied with fixed parameters, e.g. `upscale{2,2}`; recolor's one
    parameter is the tuple of (from, to) colour pairs; overlay's are the base ("input",
    "empty" or "colour<c>") and the tuple of (sub-program, colours) pieces laid on it."""

    name: str
    params: tuple = ()

    def __str__(self) -> str:
        if not self.params:
            return self.name
        if self.name == OVERLAY:
            base, pieces = self.params
            return "overlay{" + "; ".join([base, *(_piece(*p) for p in pieces)]) + "}"
        if self.name == "cell_rule":
            return f"cell_rule{{{len(self.params[0][0])} neighbourhoods}}"
        if self.name == "cell_table":
            names, keys, _ = self.params[0]
            return f"cell_table{{{'+'.join(names) or 'one answer'},{len(keys)} keys}}"
        if self.name == "move_objects":
            kind, grouping, rules = self.params[0]
            said = ", ".join(f"{group}: {' '.join(map(str, rule))}" for group, rule in rules)
            return f"move_objects{{{kind[0]}{kind[1]} by {grouping}; {said}}}"
        if self.name == "stamp_around":
            kind, reach, stamps = self.params[0]
            return f"stamp_around{{{kind},reach {reach},{len(stamps)} sources}}"
        if self.name == "stamp_objects":  # learned tables are summarised, not printed
            return f"stamp_objects{{{self.params[0]},{len(self.params[1])} kinds}}"
        if self.name == "count_block":
            rows, cols, colour = self.params
            said = "main colour" if colour == -1 else f"colour {colour}"
            return f"count_block{{{_side_text(rows)} x {_side_text(cols)}, {said}}}"
        if self.name == "recolor":
            return "recolor{" + ",".join(f"{a}->{b}" for a, b in self.params[0]) + "}"
        return self.name + "{" + ",".join(str(p) for p in self.params) + "}"


Program = tuple[Step, ...]


def _side_text(side: tuple[str, int]) -> str:
    """A `count_block` side: a fixed length, a count, or a count plus an offset."""
    count, offset = side
    if not count:
        return str(offset)
    return count if offset == 0 else f"{count}{offset:+d}"


def format_program(program: Program) -> str:
    """The program as one readable line: `rot90 | crop_bbox | recolor{1->2}`."""
    return " | ".join(str(step) for step in program) if program else "identity"


def _piece(program: Program, colours: tuple) -> str:
    text = format_program(program)
    return text + " [" + ",".join(map(str, colours)) + "]" if colours else text


def run_overlay(grid: np.ndarray, base: str, pieces: tuple) -> np.ndarray | None:
    """Run the pieces' sub-programs on the grid and lay their outputs on the base, in order."""
    outs = [run_program(p, grid) for p, _ in pieces]
    if any(o is None for o in outs):
        return None
    start = base_grid(base, grid, outs[0].shape)
    return None if start is None else overlay(start, outs, [c for _, c in pieces])


def apply_step(step: Step, grid: np.ndarray) -> np.ndarray | None:
    """One step on one grid; None if the primitive does not apply or the result is not a grid."""
    if step.name == OVERLAY:
        out = run_overlay(grid, *step.params)
    else:
        out = PRIMITIVES[step.name].fn(grid, *step.params)
    if out is None or out.size == 0 or max(out.shape) > 30:
        return None
    return out


def grid_key_of(grid: np.ndarray) -> tuple:
    """What tells a grid from another in `StepCache`: its shape, dtype and bytes."""
    return grid.shape, grid.dtype.char, grid.tobytes()


class StepCache:
    """apply_step remembered on the step and the grid's shape, dtype and bytes, up to maxsize
    results: the search asks the same step of the same grid again (the lookahead pass and the
    full expansion of one state, and states that share a grid on some pair)."""

    def __init__(self, maxsize: int):
        self.maxsize = maxsize
        self.results: dict = {}

    def __call__(self, step: Step, grid: np.ndarray, grid_key: tuple | None = None) -> np.ndarray | None:
        """The step's result on the grid; `grid_key` is the grid's `grid_key`, if the caller
        has it already (a state's grids are asked of every step in turn)."""
        key = (step, grid_key or grid_key_of(grid))
        if key in self.results:
            return self.results[key]
        out = apply_step(step, grid)
        if len(self.results) < self.maxsize:
            self.results[key] = out
        return out


def run_program(program: Program, grid: np.ndarray) -> np.ndarray | None:
    """Run every step in order; None as soon as one does not apply."""
    for step in program:
        grid = apply_step(step, grid)
        if grid is None:
            return None
    return grid
