"""Programs as data: a program is a tuple of named steps, printable, hashable, runnable."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from arcsolve.dsl.primitives import PRIMITIVES


class Step(NamedTuple):
    """One primitive applied with fixed parameters, e.g. `upscale{2,2}`; recolor's one
    parameter is the tuple of (from, to) colour pairs."""

    name: str
    params: tuple = ()

    def __str__(self) -> str:
        if not self.params:
            return self.name
        if self.name == "recolor":
            return "recolor{" + ",".join(f"{a}->{b}" for a, b in self.params[0]) + "}"
        return self.name + "{" + ",".join(str(p) for p in self.params) + "}"


Program = tuple[Step, ...]


def format_program(program: Program) -> str:
    """The program as one readable line: `rot90 | crop_bbox | recolor{1->2}`."""
    return " | ".join(str(step) for step in program) if program else "identity"


def program_cost(program: Program) -> float:
    """Simplicity score (lower is simpler): the sum of the steps' costs."""
    return sum(PRIMITIVES[step.name].cost for step in program)


def apply_step(step: Step, grid: np.ndarray) -> np.ndarray | None:
    """One step on one grid; None if the primitive does not apply or the result is not a grid."""
    out = PRIMITIVES[step.name].fn(grid, *step.params)
    if out is None or out.size == 0 or max(out.shape) > 30:
        return None
    return out


def run_program(program: Program, grid: np.ndarray) -> np.ndarray | None:
    """Run every step in order; None as soon as one does not apply."""
    for step in program:
        grid = apply_step(step, grid)
        if grid is None:
            return None
    return grid
