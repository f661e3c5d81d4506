"""Terminal display of a running evaluation or export: a rich progress bar per model, and the
summary tables. The library never prints; the CLI hands `EvalProgress` in as the callback.

    with EvalProgress(total=len(tasks), console=console) as progress:
        reports = evaluate_models(tasks, models, config, report_dir, on_result=progress)
    console.print(comparison_table(reports, annotations))
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from arcsolve.evaluation.records import EvalReport, TaskResult
from arcsolve.evaluation.report import comparison

if TYPE_CHECKING:
    from arcsolve.priors.annotations import Annotations


@dataclass
class _Tally:
    done: int = 0
    solved: int = 0
    seconds: float = 0.0
    errors: int = 0


class EvalProgress:
    """A callback `(model, result)` that draws one bar per model: tasks done out of `total`,
    tasks solved so far (when the truth is known) and mean solver seconds per task."""

    def __init__(self, total: int, console: Console | None = None, transient: bool = False):
        self.total = total
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("solved [green]{task.fields[solved]}[/]"),
            TextColumn("{task.fields[per_task]:.2f} s/task"),
            TextColumn("[red]{task.fields[errors]}[/]"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=transient,
        )
        self._bars: dict[str, TaskID] = {}
        self._stats: dict[str, _Tally] = {}

    def __enter__(self) -> EvalProgress:
        self._progress.start()
        return self

    @property
    def done(self) -> int:
        """Results reported so far, over every model."""
        return sum(tally.done for tally in self._stats.values())

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def __call__(self, model: str, result: TaskResult) -> None:
        if model not in self._bars:
            self._bars[model] = self._progress.add_task(
                model, total=self.total, solved=0, per_task=0.0, errors=""
            )
            self._stats[model] = _Tally()
        tally = self._stats[model]
        tally.done += 1
        tally.solved += result.solved
        tally.seconds += result.seconds
        tally.errors += result.error is not None
        self._progress.update(
            self._bars[model],
            advance=1,
            solved=tally.solved,
            per_task=tally.seconds / tally.done,
            errors=f"{tally.errors} errors" if tally.errors else "",
        )


class FitProgress:
    """A bar over fitting steps for solvers that report them (`on_step`), a spinner otherwise.

        with FitProgress(console, "latformer 3c9b0459", steps) as progress:
            solution = solver(task, config, **progress.kwargs(solver))
    """

    def __init__(self, console: Console, description: str, steps: int):
        self._progress = Progress(
            SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("step {task.completed:.0f}"), TextColumn("loss {task.fields[loss]}"),
            TimeElapsedColumn(), console=console, transient=True,
        )
        self._bar = self._progress.add_task(description, total=steps, loss="-")

    def __enter__(self) -> FitProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def on_step(self, step: int, loss: float) -> None:
        self._progress.update(self._bar, completed=step, loss=f"{loss:.3f}")

    def kwargs(self, solver: Callable) -> dict:
        """Pass `on_step` only to solvers that take it."""
        return {"on_step": self.on_step} if "on_step" in inspect.signature(solver).parameters else {}


def summary_table(reports: Sequence[EvalReport]) -> Table:
    """One row per model: solved, rate, test outputs, pixel accuracy, errors, time per task."""
    table = Table(title="Evaluation")
    columns = ("model", "solved", "solved rate", "test outputs", "pixel acc.", "errors", "s/task")
    for name in columns:
        table.add_column(name, justify="left" if name == "model" else "right")
    for r in reports:
        table.add_row(
            r.model, f"{r.solved}/{r.tasks}", f"{r.solved_rate:.3f}",
            f"{r.test_outputs_correct}/{r.test_outputs}", f"{r.pixel_accuracy:.3f}",
            str(r.errors), f"{r.seconds / max(r.tasks, 1):.2f}",
        )
    return table


def comparison_table(reports: Sequence[EvalReport], annotations: Annotations | None) -> Table:
    """Solved/size (rate) per model and subset, with the paper's Table 2 rows beneath."""
    header, rows = comparison(reports, annotations)
    table = Table(title="Solved by subset (paper: Atzeni et al. 2023, Table 2)")
    for name in header:
        table.add_column(name, justify="left" if name == "model" else "right")
    for row in rows:
        style = "dim" if row[0] not in {r.model for r in reports} else None
        table.add_row(*row, style=style)
    return table
