"""What every solver returns, and the registry that maps `--model` names to solvers.

A solver is `solve(task, config) -> Solution`. A Solution holds ranked candidates; each
candidate predicts one grid per test input. `Solution.attempts()` turns the ranking into
ARC's two attempts per test input, distinct where possible.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from arcsolve.errors import ArcsolveError
from arcsolve.tasks import Grid, Task

N_ATTEMPTS = 2


class SolveConfig(BaseModel):
    """Options shared by all solvers; each solver reads the ones it needs."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    device: Literal["auto", "cpu", "cuda"] = "auto"
    seed: int = 0
    steps: int = Field(default=300, ge=1, description="LatFormer step budget per task")
    time_budget: float = Field(default=5.0, gt=0, description="seconds per task for searches")
    fit_seconds: float | None = Field(
        default=None, gt=0, description="cap on LatFormer fitting seconds per task; None = the step budget alone"
    )
    priors: tuple[str, ...] | None = Field(
        default=None, description="geometric priors that decide the experts; None = all"
    )
    beta: float = Field(default=0.9, ge=0, le=1, description="colour-attention mixing weight")


@dataclass(frozen=True)
class Candidate:
    """One way of answering a task: a grid per test input, with where it came from."""

    grids: tuple[Grid, ...]
    source: str
    verified: bool
    score: float = 0.0
    detail: str = ""


@dataclass
class Solution:
    task_id: str
    candidates: list[Candidate] = field(default_factory=list)
    seconds: float = 0.0

    def attempts(self, n_tests: int, fallback: Callable[[int], Grid]) -> list[list[Grid]]:
        """Up to N_ATTEMPTS distinct grids per test input, best candidates first.

        Where candidates run out, `fallback(test_index)` fills the slot so that every
        test input always has exactly N_ATTEMPTS grids (Kaggle requires both keys)."""
        out: list[list[Grid]] = []
        for i in range(n_tests):
            grids: list[Grid] = []
            for cand in self.candidates:
                if i < len(cand.grids) and cand.grids[i] not in grids:
                    grids.append(cand.grids[i])
                if len(grids) == N_ATTEMPTS:
                    break
            while len(grids) < N_ATTEMPTS:
                grids.append(grids[0] if grids else fallback(i))
            out.append(grids)
        return out

    def sources(self, n_tests: int) -> list[list[str]]:
        """For each test input, which candidate produced each distinct attempt."""
        out = []
        for i in range(n_tests):
            seen: list[Grid] = []
            names: list[str] = []
            for cand in self.candidates:
                if i < len(cand.grids) and cand.grids[i] not in seen:
                    seen.append(cand.grids[i])
                    names.append(cand.detail or cand.source)
                if len(names) == N_ATTEMPTS:
                    break
            out.append(names)
        return out


Solver = Callable[[Task, SolveConfig], Solution]

@dataclass(frozen=True)
class Model:
    """Where a `--model` is implemented, as "module:function" paths imported on first use, so
    that `arcsolve show` never loads torch."""

    solve: str  # solve(task, config) -> Solution
    solve_many: str | None = None  # the batched solver, for models whose fits can share a batch


SOLVERS: dict[str, Model] = {
    "latformer": Model("arcsolve.latformer.fit:solve", "arcsolve.latformer.batched:solve_many"),
    "latformer-color": Model("arcsolve.latformer.fit:solve_colour", "arcsolve.latformer.batched:solve_many_colour"),
    "latformer-nl": Model("arcsolve.latformer.nl:solve"),
    "dsl": Model("arcsolve.dsl.search:solve"),
    "hybrid": Model("arcsolve.hybrid:solve"),
}


def _function(path: str) -> Callable:
    module, func = path.split(":")
    return getattr(importlib.import_module(module), func)


def get_solver(name: str) -> Solver:
    if name not in SOLVERS:
        raise ArcsolveError(f"unknown model '{name}'; choose from {', '.join(SOLVERS)}")
    return _function(SOLVERS[name].solve)


def get_batched_solver(name: str) -> Callable | None:
    """The model's batched solver (`arcsolve.latformer.batched.solve_many`'s form), or None."""
    model = SOLVERS.get(name)
    return None if model is None or model.solve_many is None else _function(model.solve_many)


def input_copy(task: Task) -> Callable[[int], Grid]:
    """The fallback answer for a test input: the input itself."""
    return lambda i: task.test[i].input
