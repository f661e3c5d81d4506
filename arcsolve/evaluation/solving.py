"""The `solve` command's loop: each task solved in turn, its attempts scored where the truth
is known, explained on request, and written in Kaggle form after every task."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from arcsolve.evaluation.records import task_result
from arcsolve.evaluation.scoring import Score
from arcsolve.evaluation.selection import task_config
from arcsolve.evaluation.submission import submission_json
from arcsolve.files import check_output_file, exclusive, file_target, remove_stale_temporaries, write_atomically
from arcsolve.solution import N_ATTEMPTS, Solution, SolveConfig, get_solver
from arcsolve.tasks import Grid, Task

if TYPE_CHECKING:
    from arcsolve.priors.annotations import Annotations


@dataclass
class Solved:
    """One task's solution, its two attempts per test input and, where known, their score."""

    task: Task
    solution: Solution
    attempts: list[list[Grid]]
    score: Score | None

    def explanation(self) -> list[str]:
        """Per test input, what produced each attempt, and when there was only one candidate."""
        lines = []
        for i, names in enumerate(self.solution.sources(len(self.task.test))):
            if not names:
                lines.append("no candidate: both attempts copy the input")
                continue
            said = "; ".join(f"attempt {k + 1}: {name}" for k, name in enumerate(names))
            if len(names) < N_ATTEMPTS:
                tries = self.attempts[i]
                second = "repeats attempt 1" if tries[1] == tries[0] else "is the test input"
                said += f"; only one candidate, so attempt 2 {second}"
            lines.append(said)
        return lines


@dataclass
class SolveSummary:
    """What a solve run did: tasks solved, among those whose test outputs are known."""

    tasks: int = 0
    scored: int = 0
    solved: int = 0
    seconds: float = 0.0
    written: list[str] = field(default_factory=list)  # task ids in the --out file


FitDisplay = Callable[[Task], AbstractContextManager[Any]]  # a context whose `kwargs(solver)` go to the solver


def solve_lock_path(out: Path) -> Path:
    """The lock that `solve --out` holds, beside its file, while it writes it."""
    return out.with_name(f".{out.name}.lock")


def solve_tasks(
    tasks: Sequence[Task],
    model: str,
    config: SolveConfig,
    *,
    annotations: Annotations | None = None,
    out: Path | None = None,
    fit_display: FitDisplay | None = None,
    on_solved: Callable[[Solved], None] | None = None,
    summary: SolveSummary | None = None,
) -> SolveSummary:
    """Solve each task with `model` (its annotated priors deciding the experts unless
    `config.priors` is set); `on_solved` is called after each. With `out`, checked before any
    work, the Kaggle JSON of the tasks finished so far is written after every task, so an
    interrupted run keeps them. `summary` (filled in as tasks finish) may be given to read
    it after an interruption."""
    if out is not None:
        check_output_file(out, "--out")
    solver = get_solver(model)
    summary = summary if summary is not None else SolveSummary()
    answers: dict[str, list[list[Grid]]] = {}
    # one run at a time writes a file; holding it, clear the temporaries a killed run left
    with exclusive(solve_lock_path(out), f"--out {out}") if out is not None else nullcontext():
        if out is not None:
            target = file_target(out, "--out")
            remove_stale_temporaries(target.parent, target.name)
        for task in tasks:
            display = fit_display(task) if fit_display is not None else nullcontext()
            with display as shown:
                kwargs = shown.kwargs(solver) if shown is not None else {}
                solution = solver(task, task_config(config, task, annotations), **kwargs)
            result = task_result(task, solution, solution.seconds)
            attempts, score = [list(tries) for tries in result.attempts], result.score
            answers[task.id] = attempts
            summary.tasks += 1
            summary.seconds += solution.seconds
            if score is not None:
                summary.scored += 1
                summary.solved += score.solved
            if out is not None:
                write_atomically(out, orjson.dumps(submission_json([t for t in tasks if t.id in answers], answers)))
                summary.written.append(task.id)
            if on_solved is not None:
                on_solved(Solved(task, solution, attempts, score))
    return summary
