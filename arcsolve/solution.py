"""What every solver returns, and the registry that maps `--model` names to solvers.

A solver is `solve(task, config) -> Solution`. A Solution holds ranked candidates; each
candidate predicts one grid per test input. `Solution.attempts()` turns the ranking into
ARC's two attempts per test input, distinct where possible.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from arcsolve.errors import ArcsolveError
from arcsolve.tasks import Grid, Task

N_ATTEMPTS = 2
T = TypeVar("T")


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

    def distinct_grids(self, test_index: int, n: int = N_ATTEMPTS) -> list[tuple[Grid, Candidate]]:
        """The first `n` distinct grids the ranked candidates give for one test input, each
        with the first candidate that gave it. The one home of this choice: attempts, their
        sources and the Kaggle CSV all take it from here."""
        return first_distinct(
            ((cand.grids[test_index], cand) for cand in self.candidates if test_index < len(cand.grids)), n
        )

    def attempts(self, n_tests: int, fallback: Callable[[int], Grid]) -> list[list[Grid]]:
        """N_ATTEMPTS grids per test input: the first distinct grids of the ranked candidates.

        Where candidates run out, `fallback(test_index)` fills the slot (so that every test
        input always has exactly N_ATTEMPTS grids, as Kaggle requires), unless it equals an
        attempt already there; only then is an attempt repeated."""
        out: list[list[Grid]] = []
        for i in range(n_tests):
            grids = [grid for grid, _ in self.distinct_grids(i)]
            if len(grids) < N_ATTEMPTS and fallback(i) not in grids:
                grids.append(fallback(i))
            while len(grids) < N_ATTEMPTS:
                grids.append(grids[0])
            out.append(grids)
        return out

    def sources(self, n_tests: int) -> list[list[str]]:
        """For each test input, which candidate produced each distinct attempt."""
        return [[cand.detail or cand.source for _, cand in self.distinct_grids(i)] for i in range(n_tests)]


def first_distinct(items: Iterable[tuple[Grid, T]], n: int) -> list[tuple[Grid, T]]:
    """The first `n` items whose grids differ from every grid before them, in order."""
    out: list[tuple[Grid, T]] = []
    for grid, tag in items:
        if len(out) == n:
            break
        if all(grid != seen for seen, _ in out):
            out.append((grid, tag))
    return out


Solver = Callable[[Task, SolveConfig], Solution]

@dataclass(frozen=True)
class Model:
    """Where a `--model` is implemented, as "module:function" paths imported on first use, so
    that `arcsolve show` never loads torch; and which SolveConfig fields its answers depend on
    (None: all of them), so that a results file is tied only to the settings that matter."""

    solve: str  # solve(task, config) -> Solution
    solve_many: str | None = None  # the batched solver, for models whose fits can share a batch
    reads: tuple[str, ...] | None = None


_LATFORMER_READS = ("device", "seed", "steps", "fit_seconds", "priors")
_DSL_READS = ("time_budget",)

SOLVERS: dict[str, Model] = {
    "latformer": Model("arcsolve.latformer.fit:solve", "arcsolve.latformer.batched:solve_many", _LATFORMER_READS),
    "latformer-color": Model(
        "arcsolve.latformer.fit:solve_colour", "arcsolve.latformer.batched:solve_many_colour",
        (*_LATFORMER_READS, "beta"),
    ),
    "latformer-nl": Model("arcsolve.latformer.nl:solve", None, _LATFORMER_READS),
    "dsl": Model("arcsolve.dsl.search:solve", None, _DSL_READS),
    "hybrid": Model("arcsolve.hybrid:solve", None, (*_LATFORMER_READS, *_DSL_READS)),
}


def answer_settings(name: str, config: SolveConfig) -> dict:
    """The settings of `config` that change `name`'s answers, as JSON values."""
    settings = config.model_dump(mode="json")
    reads = SOLVERS[name].reads if name in SOLVERS else None
    return settings if reads is None else {k: v for k, v in settings.items() if k in reads}


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
