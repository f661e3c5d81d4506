"""The one scorer, the ARC Prize way (used by `eval`, `solve`, `score` and the benchmarks):
  * a test output is *correct* when one of its first two attempts equals it exactly;
  * a task is *solved* when every one of its test outputs is correct;
  * the *pixel accuracy* of a test output is, over its two attempts, the best fraction of
    cells equal to the truth, counting an attempt of the wrong shape as 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arcsolve.errors import ArcsolveError
from arcsolve.solution import N_ATTEMPTS
from arcsolve.tasks import Grid, Task


def pixel_accuracy(attempt: Grid, truth: Grid) -> float:
    """Fraction of cells equal to the truth; 0 when the shapes differ."""
    if attempt.shape != truth.shape:
        return 0.0
    return float(np.mean(attempt.to_numpy() == truth.to_numpy()))


@dataclass(frozen=True)
class Score:
    """How one task's attempts fare against its test outputs (one entry per test output)."""

    correct: tuple[bool, ...]
    pixel_accuracy: tuple[float, ...]

    @property
    def solved(self) -> bool:
        return all(self.correct)


def score_attempts(attempts: Sequence[Sequence[Grid]], truths: Sequence[Grid]) -> Score:
    """Score attempts (a list of grids per test input; only the first two count) against truths."""
    if len(attempts) != len(truths):
        raise ArcsolveError(f"{len(attempts)} attempt lists for {len(truths)} test outputs")
    counted = [list(a)[:N_ATTEMPTS] for a in attempts]
    return Score(
        correct=tuple(any(a == t for a in tries) for tries, t in zip(counted, truths, strict=True)),
        pixel_accuracy=tuple(
            max((pixel_accuracy(a, t) for a in tries), default=0.0)
            for tries, t in zip(counted, truths, strict=True)
        ),
    )


def truths(task: Task, solutions: object = None) -> list[Grid]:
    """A task's test outputs; ArcsolveError when one is unknown, naming the solutions file
    (`solutions`) where one was given."""
    if not task.has_solutions:
        if solutions is not None:
            raise ArcsolveError(f"{solutions}: has no test outputs for task {task.id}")
        raise ArcsolveError(
            f"task {task.id} has no known test outputs to score against (give the solutions file)"
        )
    return [pair.output for pair in task.test]
