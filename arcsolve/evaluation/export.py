"""Kaggle submissions: write one for a model (resumably, within a total time budget), score one.

Formats written by `export_submission`:
  * "2024" (ARC Prize 2024 and 2025): JSON `{task_id: [{"attempt_1": grid, "attempt_2": grid},
    ...]}`, one object per test input in order, every task present, both keys always set;
  * "2020": CSV with header `output_id,output`, one row per test input, output_id
    `<task_id>_<test_index>`, output the distinct attempts as `|row|row|` strings joined by
    spaces (`|123|456| |111|222|`).
Where a solver has no answer, raises, or is never reached, the test input is the answer.

Resuming: each finished task is appended to `<out>.partial.jsonl` (header: model and config)
and the whole submission is rewritten atomically (temporary file, then os.replace) after every
task, so a killed run leaves a valid file and a rerun with the same model and config solves
only the tasks not yet in the partial file. `fresh=True` starts again.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic
from typing import Any, Literal

import orjson
from pydantic import TypeAdapter, ValidationError

from arcsolve.errors import ArcsolveError, SubmissionMismatchError, TaskFormatError
from arcsolve.evaluation.evaluate import ResultLog, Score, TaskResult, score_attempts, truths
from arcsolve.files import write_atomically
from arcsolve.loaders import read_json
from arcsolve.solution import SolveConfig, get_solver
from arcsolve.tasks import Grid, GridField, Task

Format = Literal["2024", "2020"]
FORMATS: tuple[str, ...] = ("2024", "2020")
KEYS = ("attempt_1", "attempt_2")
Attempts = Sequence[Sequence[Grid]]  # per test input, the grids tried


# ---------------------------------------------------------------------------- writing


def fallback_attempts(task: Task) -> list[list[Grid]]:
    """Both attempts of every test input: the input itself."""
    return [[pair.input, pair.input] for pair in task.test]


def submission_json(tasks: Sequence[Task], answers: dict[str, Attempts]) -> dict[str, Any]:
    """The 2024 format; tasks missing from `answers` get the fallback."""
    out = {}
    for task in tasks:
        attempts = answers.get(task.id) or fallback_attempts(task)
        out[task.id] = [
            {key: tries[min(k, len(tries) - 1)].to_list() for k, key in enumerate(KEYS)}
            for tries in attempts
        ]
    return out


def _flat(grid: Grid) -> str:
    return "|" + "|".join("".join(str(c) for c in row) for row in grid.cells) + "|"


def submission_csv(tasks: Sequence[Task], answers: dict[str, Attempts]) -> str:
    """The 2020 format; tasks missing from `answers` get the fallback."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["output_id", "output"])
    for task in tasks:
        for i, tries in enumerate(answers.get(task.id) or fallback_attempts(task)):
            distinct = list(dict.fromkeys(tries))
            writer.writerow([f"{task.id}_{i}", " ".join(_flat(g) for g in distinct)])
    return buffer.getvalue()


def write_submission(
    path: Path, tasks: Sequence[Task], answers: dict[str, Attempts], fmt: Format = "2024"
) -> None:
    if fmt == "2024":
        data = orjson.dumps(submission_json(tasks, answers))
    else:
        data = submission_csv(tasks, answers).encode()
    write_atomically(path, data)


def partial_path(out_path: Path) -> Path:
    return out_path.with_name(out_path.name + ".partial.jsonl")


@dataclass
class ExportSummary:
    """What an export did: tasks resumed from the partial file, solved now, failed, unreached."""

    path: Path
    tasks: int
    resumed: int = 0
    solved_now: int = 0
    errors: list[str] = field(default_factory=list)
    unreached: list[str] = field(default_factory=list)  # out of time: fallback answers


def export_submission(
    tasks: Sequence[Task],
    model: str,
    config: SolveConfig,
    out_path: Path,
    fmt: Format = "2024",
    time_budget_total: float | None = None,
    progress: Callable[[str, TaskResult], None] | None = None,
    *,
    fresh: bool = False,
    jobs: int = 1,
    batch: int = 1,
    ray_address: str | None = None,
) -> ExportSummary:
    """Solve every task with `model` and write the submission to `out_path`, rewritten after
    every task. `jobs`, `batch`, `ray_address`: where tasks are solved (`arcsolve.evaluation.runner`).

    With `time_budget_total` (seconds for the whole run; Kaggle allows 12 hours), each task
    gets `config.time_budget` = time left / tasks left (times `jobs`, which run side by side)
    as it starts, and when no time is left the remaining tasks get the fallback.
    `progress(model, result)` is called once per task."""
    from arcsolve.evaluation.runner import run_all

    if fmt not in FORMATS:
        raise ArcsolveError(f"unknown submission format '{fmt}'; choose from {', '.join(FORMATS)}")
    if time_budget_total is not None and time_budget_total <= 0:
        raise ArcsolveError(f"the total time budget must be positive, got {time_budget_total}")
    solver = get_solver(model)
    settings = config.model_dump(mode="json")
    if time_budget_total is not None:  # shared out afresh on resume, so not part of the identity
        settings["time_budget"] = "shared"
    log = ResultLog(
        partial_path(out_path), {"kind": "export", "model": model, "config": settings}, fresh
    )
    summary = ExportSummary(out_path, len(tasks))
    answers: dict[str, Attempts] = {}
    for task in tasks:
        if task.id in log.records:
            result = TaskResult.from_record(log.records[task.id], task)
            answers[task.id] = result.attempts
            summary.resumed += 1
            if progress:
                progress(model, result)
    todo = [task for task in tasks if task.id not in answers]
    start = monotonic()
    write_submission(out_path, tasks, answers, fmt)

    budgets: dict[str, float] = {}  # the search budget each task was given

    def config_for(task: Task, waiting: int) -> SolveConfig | None:
        budgets[task.id] = config.time_budget
        if time_budget_total is None:
            return config
        left = time_budget_total - (monotonic() - start)
        if left <= 0:
            return None
        budgets[task.id] = left * jobs / waiting
        return config.model_copy(update={"time_budget": budgets[task.id]})

    def record(result: TaskResult) -> None:
        log.append({**result.to_record(), "time_budget": budgets[result.id]})
        answers[result.id] = result.attempts
        summary.solved_now += result.solved
        if result.error is not None:
            summary.errors.append(result.id)
        write_submission(out_path, tasks, answers, fmt)
        if progress:
            progress(model, result)

    try:
        summary.unreached = run_all(model, solver, todo, config_for, record, jobs, batch, ray_address)
    finally:  # even on Ctrl-C: a complete, valid file, fallbacks where unreached
        write_submission(out_path, tasks, answers, fmt)
    return summary


# ---------------------------------------------------------------------------- scoring

_GRID = TypeAdapter(GridField)


@dataclass
class ScoreReport:
    """Official score: the mean over all test outputs of 1 if either attempt matches."""

    path: Path
    per_task: dict[str, Score]

    @property
    def test_outputs(self) -> int:
        return sum(len(s.correct) for s in self.per_task.values())

    @property
    def correct(self) -> int:
        return sum(sum(s.correct) for s in self.per_task.values())

    @property
    def score(self) -> float:
        return self.correct / self.test_outputs if self.test_outputs else 0.0

    @property
    def tasks_solved(self) -> int:
        return sum(s.solved for s in self.per_task.values())

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "submission": str(self.path),
            "score": self.score,
            "test_outputs": self.test_outputs,
            "correct": self.correct,
            "tasks": len(self.per_task),
            "tasks_solved": self.tasks_solved,
            "per_task": {task_id: list(s.correct) for task_id, s in self.per_task.items()},
        }


def read_submission(path: Path, tasks: Sequence[Task]) -> dict[str, list[list[Grid]]]:
    """Parse and check a 2024-format submission against the tasks it answers."""
    source = str(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise TaskFormatError(source, "", f"expected an object of {{task_id: [attempts]}}, "
                              f"got {type(data).__name__}")
    expected = {task.id for task in tasks}
    for task in tasks:
        if task.id not in data:
            raise SubmissionMismatchError(
                f"{source}: task {task.id} is missing (the submission has {len(data)} tasks, "
                f"{len(tasks)} expected)"
            )
    for task_id in data:
        if task_id not in expected:
            raise SubmissionMismatchError(
                f"{source}: task {task_id} is not among the {len(tasks)} tasks scored"
            )
    return {task.id: _task_attempts(data[task.id], task, source) for task in tasks}


def _task_attempts(entry: Any, task: Task, source: str) -> list[list[Grid]]:
    if not isinstance(entry, list):
        raise TaskFormatError(source, task.id, f"expected a list of attempt objects, "
                              f"got {type(entry).__name__}")
    if len(entry) != len(task.test):
        raise SubmissionMismatchError(
            f"{source}: task {task.id} has {len(entry)} test entries, expected {len(task.test)}"
        )
    attempts = []
    for i, item in enumerate(entry):
        where = f"{task.id}[{i}]"
        if not isinstance(item, dict):
            raise TaskFormatError(source, where, f"expected an object with {' and '.join(KEYS)}, "
                                  f"got {type(item).__name__}")
        grids = []
        for key in KEYS:
            if key not in item:
                raise TaskFormatError(source, where, f"missing key '{key}'")
            try:
                grids.append(_GRID.validate_python(item[key]))
            except ValidationError as exc:
                raise TaskFormatError(
                    source, f"{where}.{key}", exc.errors(include_url=False)[0]["msg"]
                ) from None
        attempts.append(grids)
    return attempts


def score_submission(submission_path: Path, tasks_with_solutions: Sequence[Task]) -> ScoreReport:
    """Score a 2024-format submission with the one scorer (arcsolve.evaluation.evaluate.score_attempts)."""
    answers = {task.id: truths(task) for task in tasks_with_solutions}
    submitted = read_submission(Path(submission_path), tasks_with_solutions)
    return ScoreReport(
        Path(submission_path),
        {task_id: score_attempts(submitted[task_id], answers[task_id]) for task_id in answers},
    )
