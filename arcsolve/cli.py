"""The `arcsolve` command line. Each command parses options and calls one library function;
library errors (ArcsolveError) become a one-line message and exit status 2."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from arcsolve import __version__
from arcsolve.errors import ArcsolveError
from arcsolve.loaders import load_many
from arcsolve.render import task_table

app = typer.Typer(
    name="arcsolve",
    help="Solve ARC tasks with lattice-symmetry attention (LatFormer), DSL search and a hybrid.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
console = Console()
err_console = Console(stderr=True)

TasksArg = Annotated[
    list[str],
    typer.Argument(
        help="Task JSON file, folder, Kaggle challenges file, LARC folder, dataset name "
        "(arc1/training, arc1/evaluation, arc2/training, arc2/evaluation) or task id.",
        show_default=False,
    ),
]
SolutionsOpt = Annotated[
    Path | None, typer.Option("--solutions", help="Kaggle solutions file for a challenges file.")
]


def fail(message: str) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(2)


def reports_errors(command):
    """Turn library errors into one line on stderr and exit status 2."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except ArcsolveError as exc:
            raise fail(str(exc)) from None

    return wrapper


def _version(value: bool) -> None:
    if value:
        console.print(f"arcsolve {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Solve ARC tasks with lattice-symmetry attention (LatFormer), DSL search and a hybrid."""


@app.command()
@reports_errors
def show(
    tasks: TasksArg,
    solutions: SolutionsOpt = None,
    limit: Annotated[int, typer.Option(help="Show at most this many tasks.")] = 5,
) -> None:
    """Draw tasks' train and test grids in ARC's ten colours."""
    loaded = load_many(tasks, solutions)
    for task in loaded[:limit]:
        console.print(task_table(task))
    if len(loaded) > limit:
        console.print(f"[dim]… {len(loaded) - limit} more tasks (use --limit)[/]")


@app.command()
def validate(
    paths: Annotated[list[str], typer.Argument(help="Task files, folders or datasets to check.")],
) -> None:
    """Check task files and report every problem; exit 0 when all are valid, 2 otherwise."""
    problems = 0
    checked = 0
    for spec in paths:
        targets = sorted(Path(spec).glob("*.json")) if Path(spec).is_dir() and not (
            Path(spec) / "tasks_json"
        ).is_dir() else [spec]
        for target in targets:
            try:
                checked += len(load_many([target]))
            except ArcsolveError as exc:
                problems += 1
                err_console.print(f"[red]✗[/] {exc}", highlight=False, soft_wrap=True)
    if problems:
        err_console.print(f"{problems} invalid, {checked} valid tasks")
        raise typer.Exit(2)
    console.print(f"[green]✓[/] {checked} valid tasks")
