"""Kaggle submissions: write one for a model, resumably, within one total wall budget.

Where a solver has no answer, raises, or is never reached, the test input is the answer.

Resuming: each finished task is appended to `<out>.partial.jsonl` (header: model and the
settings that change its answers) and the whole submission is rewritten atomically after every
task, so a killed run (Ctrl-C or kill -9) leaves a valid file and a rerun with the same model
and settings solves only the tasks not yet in the partial file. `fresh=True` starts again.
One run at a time writes a submission: the partial file is locked while the run goes on.

The total budget (`total_seconds`, e.g. Kaggle's 12 hours) bounds the whole run, every task
and every model in it: as each task starts it gets an even share of the time left (times
`jobs`, which run side by side); the hybrid gives half of its share to the DSL search and the
rest to the LatFormer fit (`SolveConfig.fit_seconds`), which it skips where the DSL already has
two verified answers, so that share goes back to the tasks still waiting. A tenth of the
budget is kept for what the caps do not bound (model setup, predictions, writing files);
when no time is left, the remaining tasks get the fallback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic

from arcsolve.errors import ArcsolveError
from arcsolve.evaluation.records import TaskResult
from arcsolve.evaluation.results import ResultLog
from arcsolve.evaluation.runner import run_all
from arcsolve.evaluation.submission import Attempts, Format, write_submission
from arcsolve.files import check_output_file, exclusive, file_target, remove_stale_temporaries
from arcsolve.hybrid import budgeted
from arcsolve.solution import SolveConfig, answer_settings, get_solver
from arcsolve.tasks import Task

RESERVE_SHARE = 0.1  # of the total budget, kept for what the per-task caps do not bound


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
    kept: int = 0  # tasks in the partial file when the run ended


@dataclass(frozen=True)
class ExportOptions:
    """How an export runs, apart from the solver settings.

    `fmt`: "2024" (JSON) or "2020" (CSV). `total_seconds`: the wall budget of the whole run
    (None: each task gets `config` as it is). `progress(model, result)`: called once per task.
    `on_reused(count, path)`: called when results were resumed from the partial file `path`.
    `fresh`: start a partial file of another configuration again. `jobs`, `batch`,
    `ray_address`: where tasks are solved (`arcsolve.evaluation.runner`)."""

    fmt: Format = "2024"
    total_seconds: float | None = None
    progress: Callable[[str, TaskResult], None] | None = None
    on_reused: Callable[[int, Path], None] | None = None
    fresh: bool = False
    jobs: int = 1
    batch: int = 1
    ray_address: str | None = None


def export_submission(
    tasks: Sequence[Task], model: str, config: SolveConfig, out_path: Path, options: ExportOptions = ExportOptions()
) -> ExportSummary:
    """Solve every task with `model` and write the submission to `out_path`, rewritten after
    every task; a complete, valid file is there whatever happens, Ctrl-C included."""
    total = options.total_seconds
    if options.fmt not in ("2024", "2020"):
        raise ArcsolveError(f"unknown submission format '{options.fmt}'; choose from 2024, 2020")
    if total is not None and total <= 0:
        raise ArcsolveError(f"the total time budget must be positive, got {total}")
    solver = get_solver(model)
    check_output_file(out_path, "--out")
    check_output_file(partial_path(out_path), "--out")
    start = monotonic()
    settings = answer_settings(model, config)
    if total is not None:  # shared out afresh on resume, so not part of the identity
        settings.update({k: "shared" for k in ("time_budget", "fit_seconds") if k in settings})
    with exclusive(partial_path(out_path), f"--out {out_path}"):
        target = file_target(out_path, "--out")
        remove_stale_temporaries(target.parent, target.name)  # left by a run killed mid-write
        log = ResultLog(
            partial_path(out_path), {"kind": "export", "model": model, "config": settings}, options.fresh
        )
        summary = ExportSummary(out_path, len(tasks))
        answers: dict[str, Attempts] = {}
        for task in tasks:
            if task.id in log.records:
                result = TaskResult.from_record(log.records[task.id], task)
                answers[task.id] = result.attempts
                summary.resumed += 1
                if options.progress:
                    options.progress(model, result)
        if summary.resumed and options.on_reused:
            options.on_reused(summary.resumed, partial_path(out_path))
        todo = [task for task in tasks if task.id not in answers]
        write_submission(out_path, tasks, answers, options.fmt)

        budgets: dict[str, float] = {}  # the wall seconds each task was given

        def config_for(task: Task, waiting: int) -> SolveConfig | None:
            budgets[task.id] = config.time_budget
            if total is None:
                return config
            left = total * (1 - RESERVE_SHARE) - (monotonic() - start)
            if left <= 0:
                return None
            budgets[task.id] = left * min(options.jobs, waiting) / waiting
            return budgeted(model, config, budgets[task.id])

        def record(result: TaskResult) -> None:
            log.append({**result.to_record(), "time_budget": budgets[result.id]})
            answers[result.id] = result.attempts
            summary.solved_now += result.solved
            if result.error is not None:
                summary.errors.append(result.id)
            write_submission(out_path, tasks, answers, options.fmt)
            if options.progress:
                options.progress(model, result)

        try:
            summary.unreached = run_all(
                model, solver, todo, config_for, record, options.jobs, options.batch, options.ray_address
            )
        finally:  # even on Ctrl-C: a complete, valid file, fallbacks where unreached
            summary.kept = len(answers)
            write_submission(out_path, tasks, answers, options.fmt)
    return summary
