"""What a run produces: one `TaskResult` per task (attempts, time, error, score and the ranked
candidates behind the attempts), its JSON record, and `EvalReport`, one model's results over a
list of tasks."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from arcsolve.evaluation.scoring import Score, score_attempts, truths
from arcsolve.solution import Candidate, Solution, SolveConfig, Solver, input_copy
from arcsolve.tasks import Grid, Task

if TYPE_CHECKING:
    from arcsolve.priors.annotations import Annotations


@dataclass(frozen=True)
class TaskResult:
    """One task's attempts (exactly two per test input), time, error and score, and the
    ranked candidates behind the attempts (None when unknown: a record from an older version)."""

    id: str
    attempts: tuple[tuple[Grid, ...], ...]
    seconds: float
    error: str | None = None
    score: Score | None = None  # None when the task's test outputs are unknown
    candidates: tuple[Candidate, ...] | None = None
    from_parts: bool = False  # a hybrid built from its parts' recorded candidates

    def solution(self) -> Solution | None:
        """The solver's output again (candidates and seconds), if it ran without error and
        its candidates were recorded."""
        if self.error is not None or self.candidates is None:
            return None
        return Solution(self.id, list(self.candidates), self.seconds)

    @property
    def solved(self) -> bool:
        return self.score is not None and self.score.solved

    def to_record(self) -> dict[str, Any]:
        """The JSON line written for this task."""
        return {
            "id": self.id,
            "solved": self.solved,
            "correct": list(self.score.correct) if self.score else None,
            "pixel_accuracy": list(self.score.pixel_accuracy) if self.score else None,
            "attempts": [[g.to_list() for g in tries] for tries in self.attempts],
            "seconds": round(self.seconds, 4),
            "error": self.error,
            "from_parts": self.from_parts,
            "candidates": None if self.candidates is None else [_candidate_record(c) for c in self.candidates],
        }

    @classmethod
    def from_record(cls, record: dict[str, Any], task: Task | None = None) -> TaskResult:
        """Read a JSON line back; with its task (outputs known), rescore the attempts, else
        keep the score it was written with."""
        attempts = tuple(tuple(Grid.from_numpy(g) for g in tries) for tries in record["attempts"])
        if task is not None and task.has_solutions:
            score = score_attempts(attempts, truths(task))
        elif task is None and record.get("correct") is not None:
            correct = tuple(record["correct"])
            score = Score(correct, tuple(record.get("pixel_accuracy") or [0.0] * len(correct)))
        else:
            score = None
        candidates = record.get("candidates")
        return cls(
            record["id"], attempts, float(record["seconds"]), record.get("error"), score,
            None if candidates is None else tuple(_candidate_from_record(c) for c in candidates),
            bool(record.get("from_parts", False)),
        )


def _candidate_record(candidate: Candidate) -> dict[str, Any]:
    return {
        "source": candidate.source,
        "verified": candidate.verified,
        "score": float(candidate.score),
        "detail": candidate.detail,
        "grids": [g.to_list() for g in candidate.grids],
    }


def _candidate_from_record(record: dict[str, Any]) -> Candidate:
    grids = tuple(Grid.from_numpy(g) for g in record["grids"])
    return Candidate(grids, record["source"], bool(record["verified"]), float(record["score"]), record["detail"])


def solve_task(solver: Solver, task: Task, config: SolveConfig) -> TaskResult:
    """Run one solver on one task. A solver that raises gets the fallback attempts (the test
    inputs) and its error recorded, so one bad task never stops a run."""
    start = time.perf_counter()
    error = None
    try:
        solution = solver(task, config)
    except Exception as exc:  # noqa: BLE001 - any solver failure is recorded, not fatal
        solution, error = None, f"{type(exc).__name__}: {exc}"
    return task_result(task, solution, time.perf_counter() - start, error)


def task_result(
    task: Task, solution: Solution | None, seconds: float, error: str | None = None, from_parts: bool = False
) -> TaskResult:
    """A solution's two attempts per test input (fallbacks where it has none), scored."""
    attempts = (solution or Solution(task.id)).attempts(len(task.test), input_copy(task))
    score = score_attempts(attempts, truths(task)) if task.has_solutions else None
    candidates = tuple(solution.candidates) if solution is not None else None
    return TaskResult(task.id, tuple(tuple(a) for a in attempts), seconds, error, score, candidates, from_parts)


@dataclass
class EvalReport:
    """One model's results over a list of tasks, in task order."""

    model: str
    dataset: str
    subset: str | None
    config: SolveConfig
    results: list[TaskResult]

    @property
    def tasks(self) -> int:
        return len(self.results)

    @property
    def solved(self) -> int:
        return sum(r.solved for r in self.results)

    @property
    def solved_rate(self) -> float:
        return self.solved / self.tasks if self.tasks else 0.0

    @property
    def test_outputs(self) -> int:
        return sum(len(r.score.correct) for r in self.results if r.score)

    @property
    def test_outputs_correct(self) -> int:
        return sum(sum(r.score.correct) for r in self.results if r.score)

    @property
    def pixel_accuracy(self) -> float:
        values = [p for r in self.results if r.score for p in r.score.pixel_accuracy]
        return float(np.mean(values)) if values else 0.0

    @property
    def errors(self) -> int:
        return sum(r.error is not None for r in self.results)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.results)

    def subset_counts(
        self, annotations: Annotations, names: Sequence[str]
    ) -> dict[str, tuple[int, int]]:
        """For each subset name: (solved, size) among this report's tasks."""
        out = {}
        for name in names:
            ids = annotations.subset(name)
            members = [r for r in self.results if r.id in ids]
            out[name] = (sum(r.solved for r in members), len(members))
        return out
