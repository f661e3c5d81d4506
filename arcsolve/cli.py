"""The `arcsolve` command line. Each command parses options and calls one library function;
library errors (ArcsolveError) and bad options become a one-line message and exit status 2."""

from __future__ import annotations

import functools
import math
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from typer._click import Command, Context
from typer._click import exceptions as click_errors
from typer.core import TyperGroup, TyperOption

from arcsolve import __version__
from arcsolve.devices import GPU_BATCH, default_batch, default_jobs, resolve_device
from arcsolve.errors import ArcsolveError
from arcsolve.files import check_output_file, check_output_folder
from arcsolve.loaders import load_many
from arcsolve.render import pairs_table, plural, save_image, task_rows, task_table
from arcsolve.solution import SOLVERS, SolveConfig
from arcsolve.tasks import Task

console = Console()
err_console = Console(stderr=True)


def say(message: str, err: bool = False) -> None:
    """Print a message (rich markup allowed) on stdout, or on stderr with `err`, never broken
    into lines at the terminal's width, so that a path in it can be copied whole."""
    (err_console if err else console).print(message, highlight=False, soft_wrap=True)


def examples(*lines: str) -> str:
    """A help screen's epilog: one example command per line."""
    return "[bold]Examples[/]\n\n" + "\n\n".join(f"  [cyan]{escape(line)}[/]" for line in lines)


def _flags_shown_as_flags(options: list) -> None:
    """Help lists an on/off option as `--explain`, not `--explain <bool>`."""
    for option in options:
        if isinstance(option, TyperOption) and option.is_flag and option.metavar is None:
            option.metavar = ""


class ArcsolveGroup(TyperGroup):
    """The app's command groups: a usage error (a bad option value, a missing argument) is one
    line and exit status 2, like a library error, instead of a usage panel."""

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None and not isinstance(command, TyperGroup):
            _flags_shown_as_flags([*command.params, command.get_help_option(ctx)])
        return command

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        _flags_shown_as_flags([*self.params, option])
        return option

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click_errors.NoArgsIsHelpError as exc:  # the help, as click shows it, with its status
            typer.echo(exc.ctx.get_help())
            sys.exit(exc.exit_code)
        except click_errors.ClickException as exc:
            where = getattr(getattr(exc, "ctx", None), "command_path", "arcsolve")
            print_error(f"{exc.format_message()} (see '{where} -h')")
            sys.exit(2 if isinstance(exc, click_errors.UsageError) else exc.exit_code)
        except typer.Abort:
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="arcsolve",
    cls=ArcsolveGroup,
    help="Solve ARC tasks with lattice-symmetry attention (LatFormer), DSL search and a hybrid.",
    epilog=examples(
        "arcsolve show tasks/rotate.json",
        "arcsolve solve tasks/rotate.json --model dsl",
        "arcsolve eval --dataset arc1/evaluation --subset geometric --report runs/geo",
        "arcsolve export --challenges arc-agi_test_challenges.json -o submission.json",
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)

TasksArg = Annotated[
    list[str],
    typer.Argument(
        help="Task JSON file, folder, Kaggle challenges file, LARC folder, dataset name "
        "(arc1/training, arc1/evaluation, arc2/training, arc2/evaluation) or task id.",
        show_default=False,
    ),
]
SolutionsOpt = Annotated[Path | None, typer.Option("--solutions", help="Kaggle solutions file for a challenges file.")]
ModelOpt = Annotated[str, typer.Option("--model", "-m", help=f"Solver: {', '.join(SOLVERS)}.")]
DeviceOpt = Annotated[str, typer.Option(help="auto, cpu or cuda.")]


def positive_seconds(text: str) -> float:
    """A number of seconds above zero, for options that bound time."""
    try:
        value = float(text)
    except ValueError:
        raise typer.BadParameter(f"'{text}' is not a number of seconds") from None
    if not (value > 0 and math.isfinite(value)):
        raise typer.BadParameter(f"{text} is not a number of seconds above 0")
    return value


SeedOpt = Annotated[int, typer.Option(min=0, help="Random seed (runs are deterministic on CPU).")]
StepsOpt = Annotated[int, typer.Option(min=1, help="LatFormer step budget per task.")]
BudgetOpt = Annotated[
    float,
    typer.Option(
        "--time-budget", parser=positive_seconds, metavar="SECONDS", help="Seconds per task for the DSL search."
    ),
]
PriorsOpt = Annotated[
    str | None,
    typer.Option(
        help="Lattice priors deciding the experts, e.g. rotate,translate "
        "(default: the task's annotation, else all experts)."
    ),
]
AnnotationsOpt = Annotated[
    Path | None, typer.Option("--annotations", help="Prior annotation file (default: the bundled one).")
]
FitSecondsOpt = Annotated[
    float | None,
    typer.Option(
        "--fit-seconds",
        parser=positive_seconds,
        metavar="SECONDS",
        help="Cap on LatFormer fitting seconds per task (default: steps alone).",
    ),
]
BetaOpt = Annotated[float, typer.Option(min=0, max=1, help="Colour-attention mixing weight β (latformer-color).")]
JobsOpt = Annotated[
    int | None,
    typer.Option(min=1, help="Worker processes (default: one per visible GPU, else 1).", show_default=False),
]
BatchOpt = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Tasks of any grid shapes fitted as one batched computation (latformer, latformer-color; "
        f"default: {GPU_BATCH} on a GPU, else 1).",
        show_default=False,
    ),
]
RayOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="Run on a Ray cluster: 'auto' (a running one), 'local' (start one here) or an address. "
        "Needs arcsolve\\[ray].",
    ),
]


def _plain(value: bool) -> bool:
    if value:
        console.no_color = True
    return value


PlainOpt = Annotated[
    bool,
    typer.Option(
        "--plain",
        callback=_plain,
        help="Draw grids as digits, without colour (the default when output is not a terminal).",
    ),
]


def make_config(
    device: str,
    seed: int,
    steps: int,
    time_budget: float,
    priors: str | None,
    beta: float,
    fit_seconds: float | None = None,
) -> SolveConfig:
    names = tuple(p.strip() for p in priors.split(",") if p.strip()) if priors else None
    from arcsolve.priors.annotations import GEOMETRIC

    for name in names or ():
        if name not in GEOMETRIC:
            raise ArcsolveError(f"--priors: '{name}' is not one of {', '.join(GEOMETRIC)}")
    if device not in ("auto", "cpu", "cuda"):
        raise ArcsolveError(f"--device: '{device}' is not one of auto, cpu, cuda")
    if device == "cuda":  # say so before any task starts, not once per task
        resolve_device(device)
    try:
        return SolveConfig(
            device=device,
            seed=seed,
            steps=steps,
            time_budget=time_budget,
            priors=names,
            beta=beta,
            fit_seconds=fit_seconds,
        )
    except ValidationError as exc:  # a bound the options' own checks did not cover
        error = exc.errors(include_url=False)[0]
        option = "--" + str(error["loc"][0]).replace("_", "-")
        raise ArcsolveError(f"{option}: {error['msg'].lower()}, got {error['input']!r}") from None


def print_error(message: str) -> None:
    """One line on stderr; the message is printed as it is (brackets in paths and ids included)."""
    say(f"[bold red]error:[/] {escape(message)}", err=True)


def fail(message: str) -> typer.Exit:
    print_error(message)
    return typer.Exit(2)


def int_list(option: str, text: str) -> tuple[int, ...]:
    """A comma list of positive integers, e.g. --jobs 1,2; a one-line error otherwise."""
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ArcsolveError(f"{option}: expected a comma list of whole numbers like 1,2, got '{text}'") from None
    if any(v < 1 for v in values):
        raise ArcsolveError(f"{option}: every number must be at least 1, got '{text}'")
    return values


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
        say(f"arcsolve {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Solve ARC tasks with lattice-symmetry attention (LatFormer), DSL search and a hybrid."""
    console.no_color = os.environ.get("NO_COLOR", "") != ""  # --plain sets it for one command


@app.command(
    epilog=examples(
        "arcsolve show tasks/rotate.json",
        "arcsolve show arc1/training --limit 3",
        "arcsolve show 3c9b0459 --reveal --png 3c9b0459.png",
        "arcsolve show tasks/rotate.json --plain",
    )
)
@reports_errors
def show(
    tasks: TasksArg,
    solutions: SolutionsOpt = None,
    limit: Annotated[int, typer.Option(min=0, help="Show at most this many tasks.")] = 5,
    reveal: Annotated[
        bool, typer.Option("--reveal", help="Also draw the test outputs, where known (hidden by default).")
    ] = False,
    plain: PlainOpt = False,
    png: Annotated[Path | None, typer.Option("--png", help="Also draw the shown tasks to this PNG file.")] = None,
    svg: Annotated[Path | None, typer.Option("--svg", help="Also draw the shown tasks to this SVG file.")] = None,
) -> None:
    """Draw tasks' train pairs and test inputs in ARC's ten colours (digits when not a terminal)."""
    for path, option in ((png, "--png"), (svg, "--svg")):
        if path is not None:
            check_output_file(path, option)
    loaded = load_many(tasks, solutions)
    shown = loaded[:limit]
    for task in shown:
        console.print(task_table(task, show_test_outputs=reveal))
    if len(loaded) > limit:
        say(f"[dim]… {plural(len(loaded) - limit, 'more task')} (use --limit)[/]")
    for path, fmt in ((png, "png"), (svg, "svg")):
        if path is not None and shown:
            rows = [
                (f"{task.id} · {label}" if len(shown) > 1 else label, cells)
                for task in shown
                for label, cells in task_rows(task, reveal)
            ]
            save_image(rows, repr(shown[0]) if len(shown) == 1 else f"{len(shown)} tasks", path, fmt)
            say(f"wrote {escape(str(path))}")


@app.command(
    epilog=examples(
        "arcsolve validate tasks/",
        "arcsolve validate arc-agi_training_challenges.json --solutions arc-agi_training_solutions.json",
    )
)
def validate(
    paths: Annotated[list[str], typer.Argument(help="Task files, folders or datasets to check.")],
    solutions: SolutionsOpt = None,
) -> None:
    """Check task files and report every problem; exit 0 when all are valid, 2 otherwise."""
    problems: list = []  # every problem of every file, in order
    checked = 0
    for spec in paths:
        try:
            checked += len(load_many([spec], solutions, problems))
        except ArcsolveError as exc:  # nothing to check there: no such file, an empty folder
            problems.append(exc)
    for problem in problems:
        say(f"[red]✗[/] {escape(str(problem))}", err=True)
    if problems:
        say(f"{plural(len(problems), 'problem')}, {plural(checked, 'valid task')}", err=True)
        raise typer.Exit(2)
    if checked == 0:
        raise fail(f"no tasks found in {', '.join(paths)}")
    say(f"[green]✓[/] {plural(checked, 'valid task')}")


@app.command(
    epilog=examples(
        "arcsolve solve tasks/rotate.json",
        "arcsolve solve 3c9b0459 --model dsl --explain",
        "arcsolve solve arc1/evaluation --model hybrid -o attempts.json",
    )
)
@reports_errors
def solve(
    tasks: TasksArg,
    model: ModelOpt = "latformer",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Write attempts in Kaggle form, rewritten after every task (one run per file)."
        ),
    ] = None,
    device: DeviceOpt = "auto",
    seed: SeedOpt = 0,
    steps: StepsOpt = 300,
    time_budget: BudgetOpt = 5.0,
    priors: PriorsOpt = None,
    annotations: AnnotationsOpt = None,
    fit_seconds: FitSecondsOpt = None,
    beta: BetaOpt = 0.9,
    explain: Annotated[bool, typer.Option("--explain", help="Say what produced each attempt.")] = False,
    solutions: SolutionsOpt = None,
    plain: PlainOpt = False,
    png: Annotated[
        Path | None, typer.Option("--png", help="Also draw each test input, both attempts and the truth to this PNG.")
    ] = None,
) -> None:
    """Fit a fresh model on each task's train pairs and predict its test outputs."""
    from rich.markup import escape

    from arcsolve.evaluation.progress import FitProgress
    from arcsolve.evaluation.solving import Solved, SolveSummary, solve_tasks
    from arcsolve.priors.annotations import load_annotations

    loaded = load_many(tasks, solutions)
    config = make_config(device, seed, steps, time_budget, priors, beta, fit_seconds)
    ann = load_annotations(annotations)
    if png is not None:
        check_output_file(png, "--png")
    drawn: list = []  # the rows of every solved task, for --png

    def show_solved(done: Solved) -> None:
        task, rows = done.task, []
        for i, (pair, grids) in enumerate(zip(task.test, done.attempts, strict=True)):
            cells = [("input", pair.input)] + [(f"attempt {k + 1}", g) for k, g in enumerate(grids)]
            if pair.output is not None:
                cells.append(("truth", pair.output))
            rows.append((f"test {i}", cells))
        console.print(pairs_table(rows, f"{task!r} · {model} · {done.solution.seconds:.1f} s"))
        drawn.extend((f"{task.id} · {label}", cells) for label, cells in rows)
        if done.score is not None:
            verdict = "[green]correct[/]" if done.score.solved else "[red]wrong[/]"
            say(f"{escape(task.id)}: {verdict} ({sum(done.score.correct)}/{len(task.test)} test outputs)")
        if explain:
            for i, line in enumerate(done.explanation()):
                say(f"{escape(task.id)} test {i}: {escape(line)}")

    summary = SolveSummary()
    try:
        solve_tasks(
            loaded, model, config, annotations=ann, out=out, on_solved=show_solved, summary=summary,
            fit_display=lambda task: FitProgress(console, escape(f"{model} {task.id}"), config.steps),
        )
    except KeyboardInterrupt:
        kept = f" ({plural(len(summary.written), 'task')} written to {escape(str(out))})" if out else ""
        say(f"interrupted after {plural(summary.tasks, 'task')}{kept}", err=True)
        raise typer.Exit(130) from None
    if len(loaded) > 1:
        scored = ""
        if summary.scored:
            scored = f"solved {summary.solved}/{plural(summary.scored, 'task')} with known outputs, "
        say(f"total: {scored}{plural(summary.tasks, 'task')} in {summary.seconds:.1f} s")
    if out is not None:
        say(f"wrote {escape(str(out))}")
    if png is not None and drawn:
        save_image(drawn, f"{plural(summary.tasks, 'task')} · {model}", png, "png")
        say(f"wrote {escape(str(png))}")


SubsetOpt = Annotated[
    str | None,
    typer.Option("--subset", help="translate, rotate, reflect, scale, geometric or all (from the annotations)."),
]


@app.command(
    "eval",
    epilog=examples(
        "arcsolve eval --dataset arc1/evaluation --subset geometric --report runs/geo",
        "arcsolve eval --dataset arc1/training --model dsl --model latformer --limit 20",
    ),
)
@reports_errors
def eval_(
    tasks: Annotated[
        list[str] | None, typer.Argument(help="Tasks to evaluate (see `solve`).", show_default=False)
    ] = None,
    dataset: Annotated[list[str] | None, typer.Option("--dataset", help="Dataset name or path; repeatable.")] = None,
    subset: SubsetOpt = None,
    model: Annotated[
        list[str] | None, typer.Option("--model", "-m", help=f"Repeatable, or 'all': {', '.join(SOLVERS)}.")
    ] = None,
    report: Annotated[Path | None, typer.Option("--report", help="Report folder; reruns resume from it.")] = None,
    limit: Annotated[int | None, typer.Option(min=0, help="Evaluate only the first N tasks (by id).")] = None,
    jobs: JobsOpt = None,
    batch: BatchOpt = None,
    ray_address: RayOpt = None,
    time_budget: BudgetOpt = 5.0,
    device: DeviceOpt = "auto",
    seed: SeedOpt = 0,
    steps: StepsOpt = 300,
    priors: PriorsOpt = None,
    annotations: AnnotationsOpt = None,
    fit_seconds: FitSecondsOpt = None,
    beta: BetaOpt = 0.9,
    larc_dir: Annotated[
        Path | None, typer.Option("--larc-dir", help="LARC dataset folder (for --dataset larc).")
    ] = None,
    larc_split: Annotated[str | None, typer.Option("--larc-split", help="train or test: LARC's split.")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Discard results of another configuration.")] = False,
    solutions: SolutionsOpt = None,
) -> None:
    """Solved rates per model and geometric subset (the paper's Table 2), resumable."""
    from rich.markup import escape

    from arcsolve.evaluation.evaluate import EvalOptions, evaluate_models
    from arcsolve.evaluation.progress import EvalProgress, comparison_table, summary_table
    from arcsolve.evaluation.selection import tasks_to_evaluate
    from arcsolve.priors.annotations import load_annotations

    models = ["latformer"] if not model else list(SOLVERS) if "all" in model else model
    config = make_config(device, seed, steps, time_budget, priors, beta, fit_seconds)
    if report is not None:
        check_output_folder(report, "--report")
    ann = load_annotations(annotations)
    chosen, specs = tasks_to_evaluate(
        list(tasks or []) + list(dataset or []), subset, limit, ann, solutions, larc_dir, larc_split
    )

    def reused(name: str, count: int) -> None:
        say(f"{escape(name)}: reused {plural(count, 'result')} from {escape(str(report))}")

    try:
        with EvalProgress(total=len(chosen), console=console) as progress:
            reports = evaluate_models(chosen, models, config, EvalOptions(
                report_dir=report, jobs=default_jobs(jobs, device), batch=default_batch(batch, device),
                ray_address=ray_address, on_result=progress, on_reused=reused, annotations=ann,
                use_annotated_priors=True, dataset=" + ".join(specs), subset=subset, fresh=fresh,
                truth_source=solutions,
            ))
    except KeyboardInterrupt:
        if report is None:
            say("interrupted; nothing kept (give --report to make a run resumable)", err=True)
        else:
            say(f"interrupted; rerun the same command to resume ({plural(progress.done, 'task')} kept)", err=True)
        raise typer.Exit(130) from None
    console.print(summary_table(reports))
    console.print(comparison_table(reports, ann))
    if report is not None:
        say(f"report written to {escape(str(report))}/")


@app.command(
    epilog=examples(
        "arcsolve export --challenges arc-agi_test_challenges.json -o submission.json",
        "arcsolve export --dataset arc1/evaluation --model dsl --format 2020 -o submission.csv",
    )
)
@reports_errors
def export(
    challenges: Annotated[Path | None, typer.Option("--challenges", help="Kaggle challenges file.")] = None,
    dataset: Annotated[str | None, typer.Option("--dataset", help="Or a dataset name / path.")] = None,
    model: ModelOpt = "hybrid",
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Submission file to write (.json or .csv, unless --format says).")
    ] = Path("submission.json"),
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="2024 (also 2025, json: the ARC Prize 2024/2025 JSON) or 2020 (also csv); "
            "default: from the --out extension.",
            show_default=False,
        ),
    ] = None,
    total_time: Annotated[
        float | None,
        typer.Option(
            "--total-time",
            help="Wall seconds for the whole export, shared across tasks and models (Kaggle: 43200); "
            "each task's DSL search and LatFormer fit are capped to its share, in place of "
            "--time-budget and a larger --fit-seconds.",
            show_default=False,
        ),
    ] = None,
    time_budget: BudgetOpt = 5.0,
    device: DeviceOpt = "auto",
    seed: SeedOpt = 0,
    steps: StepsOpt = 300,
    priors: PriorsOpt = None,
    fit_seconds: FitSecondsOpt = None,
    beta: BetaOpt = 0.9,
    fresh: Annotated[bool, typer.Option("--fresh", help="Ignore a partial run of another configuration.")] = False,
    jobs: JobsOpt = None,
    batch: BatchOpt = None,
    ray_address: RayOpt = None,
) -> None:
    """Write a Kaggle submission; a killed run resumes and always leaves a valid file."""
    from rich.markup import escape

    from arcsolve.evaluation.export import ExportOptions, export_submission
    from arcsolve.evaluation.progress import EvalProgress
    from arcsolve.evaluation.submission import submission_format

    if (challenges is None) == (dataset is None):
        raise ArcsolveError("give exactly one of --challenges or --dataset")
    if total_time is not None and total_time <= 0:
        raise ArcsolveError(f"--total-time: must be more than 0 seconds, got {total_time}")
    check_output_file(out, "--out")
    chosen_format = submission_format(fmt, out)
    config = make_config(device, seed, steps, time_budget, priors, beta, fit_seconds)
    loaded = load_many([str(challenges or dataset)])

    def reused(count: int, path: Path) -> None:
        say(f"reused {plural(count, 'result')} from {escape(str(path))}")

    try:
        with EvalProgress(total=len(loaded), console=console) as progress:
            summary = export_submission(loaded, model, config, out, ExportOptions(
                fmt=chosen_format, total_seconds=total_time, progress=progress, on_reused=reused, fresh=fresh,
                jobs=default_jobs(jobs, device), batch=default_batch(batch, device), ray_address=ray_address,
            ))
    except KeyboardInterrupt:
        say(
            f"interrupted; {escape(str(out))} is complete and valid; rerun the same command to resume "
            f"({plural(progress.done, 'task')} kept)",
            err=True,
        )
        raise typer.Exit(130) from None
    say(
        f"wrote {escape(str(out))}: {plural(len(loaded), 'task')} ({summary.resumed} resumed, "
        f"{len(summary.unreached)} not reached)"
    )


@app.command(
    epilog=examples(
        "arcsolve score submission.json --dataset arc1/evaluation",
        "arcsolve score submission.json --solutions arc-agi_evaluation_solutions.json",
    )
)
@reports_errors
def score(
    submission: Annotated[Path, typer.Argument(help="A submission: 2024-format JSON or 2020-format CSV.")],
    solutions: Annotated[
        Path | None,
        typer.Option("--solutions", help="Kaggle solutions file, or a challenges file with its solutions beside it."),
    ] = None,
    dataset: Annotated[str | None, typer.Option("--dataset", help="Or a dataset with known outputs.")] = None,
) -> None:
    """Score a submission by the official rule: mean over test outputs of 'either attempt matches'."""
    from rich.markup import escape
    from rich.table import Table

    from arcsolve.evaluation.submission import is_solutions_file, score_submission, score_with_solutions

    if (solutions is None) == (dataset is None):
        raise ArcsolveError("give exactly one of --solutions or --dataset")
    if solutions is not None and is_solutions_file(solutions):
        result = score_with_solutions(submission, solutions)
    else:
        result = score_submission(submission, load_many([str(solutions or dataset)]))
    table = Table("task", "correct", title=escape(str(submission)))
    for task_id, task_score in result.per_task.items():
        table.add_row(escape(task_id), f"{sum(task_score.correct)}/{len(task_score.correct)}")
    console.print(table)
    say(
        f"score {result.score:.4f} ({result.correct}/{result.test_outputs} test outputs, "
        f"{plural(result.tasks_solved, 'task')} solved)"
    )


@app.command(
    epilog=examples(
        "arcsolve annotate tasks/ -o my-annotations.json",
        "arcsolve solve tasks/rotate.json --annotations my-annotations.json",
    )
)
@reports_errors
def annotate(
    tasks: TasksArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="Annotation file to write (resumes if it exists).")],
    annotations: AnnotationsOpt = None,
) -> None:
    """Propose priors with verifiable rules and confirm or edit them task by task."""
    from arcsolve.priors.annotations import load_annotations
    from arcsolve.priors.review import review

    proposals = load_annotations(annotations) if annotations is not None else None
    review(load_many(tasks), out, proposals=proposals, console=console)


bench = typer.Typer(
    cls=ArcsolveGroup, help="Benchmarks: print figures and write them to a file.", no_args_is_help=True
)
app.add_typer(bench, name="bench")


@bench.command("solve", epilog=examples("arcsolve bench solve", "arcsolve bench solve 3c9b0459 --model dsl"))
@reports_errors
def bench_solve(
    tasks: Annotated[
        list[str] | None,
        typer.Argument(help="Tasks (default: the four bundled examples and nine pure-lattice ARC-AGI-1 tasks)."),
    ] = None,
    model: ModelOpt = "latformer",
    device: DeviceOpt = "auto",
    steps: StepsOpt = 300,
    seed: SeedOpt = 0,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="JSON file to write the figures to (checked before solving).")
    ] = Path("benchmarks/results/solve.json"),
) -> None:
    """Seconds per task and solved flags for fitting one task at a time."""
    from arcsolve.bench.speed import DEFAULT_TASKS, run_solve_bench

    loaded = load_many(tasks or list(DEFAULT_TASKS))
    config = make_config(device, seed, steps, 5.0, None, 0.9)
    result = run_solve_bench(loaded, model, config, out, console)
    say(
        f"median {result['median_seconds']:.1f} s/task, solved {result['solved']}/{result['tasks']}; "
        f"wrote {escape(str(out))}"
    )


@bench.command("speed", epilog=examples("arcsolve bench speed --jobs 1,2 --batch 1,8"))
@reports_errors
def bench_speed(
    tasks: Annotated[list[str] | None, typer.Argument(help="Tasks (default: the bench solve set).")] = None,
    model: ModelOpt = "latformer",
    jobs: Annotated[str, typer.Option(help="Comma list of worker counts to compare.")] = "1,2",
    batch: Annotated[str, typer.Option(help="Comma list of batch sizes, each run with every --jobs value.")] = "1",
    device: DeviceOpt = "auto",
    steps: StepsOpt = 300,
    seed: SeedOpt = 0,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="JSON file to write the figures to (checked before solving).")
    ] = Path("benchmarks/results/speed.json"),
) -> None:
    """Tasks per minute, median and p90 seconds per task and peak memory, per --jobs and --batch value."""
    from arcsolve.bench.speed import DEFAULT_TASKS, run_speed_bench

    loaded = load_many(tasks or list(DEFAULT_TASKS))
    counts = int_list("--jobs", jobs)
    batches = int_list("--batch", batch)
    config = make_config(device, seed, steps, 5.0, None, 0.9)
    result = run_speed_bench(loaded, model, config, counts, out, console, batches)
    say(f"speed-up over the first run: {result['speedup']}; wrote {escape(str(out))}")


@bench.command(
    "lattice-tasks",
    epilog=examples(
        "arcsolve bench lattice-tasks --out lattice_tasks",
        "arcsolve eval lattice_tasks --model latformer --model dsl --report lattice_report",
    ),
)
@reports_errors
def bench_lattice_tasks(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the task files to.")],
    per_family: Annotated[int, typer.Option(min=1, help="Tasks per family.")] = 4,
    family: Annotated[
        list[str] | None, typer.Option("--family", help="Families to write (default: all); repeatable.")
    ] = None,
    seed: SeedOpt = 0,
) -> None:
    """Write ARC tasks built from one to nine lattice actions (shifts, crops, scalings, tilings,
    dihedral images, completions, overlays, recolourings), a family per kind, for `arcsolve eval`."""
    from arcsolve.bench.lattice_tasks import FAMILY_NAMES, make_tasks

    unknown = sorted(set(family or ()) - set(FAMILY_NAMES))
    if unknown:
        raise ArcsolveError(f"--family: unknown {', '.join(unknown)} (choose from {', '.join(FAMILY_NAMES)})")
    check_output_folder(out, "--out")
    _write_tasks(make_tasks(per_family, seed, tuple(family or FAMILY_NAMES)), out)


MAX_CHAIN_PAIRS = 10  # train pairs a chain task may have: distinct input sizes, at most


@bench.command(
    "lattice-chains",
    epilog=examples(
        "arcsolve bench lattice-chains --out chains --count 80",
        "arcsolve eval chains --model latformer --report chains_report",
    ),
)
@reports_errors
def bench_lattice_chains(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the task files to.")],
    count: Annotated[int, typer.Option(min=1, help="Tasks to write (chains of 1, 2, 3, 4 actions in turn).")] = 80,
    seed: SeedOpt = 0,
    kinds: Annotated[
        str,
        typer.Option(
            help="Comma list of the kinds of action to draw: dihedral, wrap, fill, up, tile, down, swap "
            "(the default), and pad, mirror, crop (a padding, a tiling of mirror images, a crop of fixed margins)."
        ),
    ] = "dihedral,wrap,fill,up,tile,down,swap",
    pairs: Annotated[
        int, typer.Option(min=1, max=MAX_CHAIN_PAIRS, help="Train pairs per task (each task also has one test pair).")
    ] = 3,
    inputs: Annotated[
        str,
        typer.Option(
            help="The inputs: random (scattered colours, 2 to 8 cells a side) or objects (one to three small "
            "objects on a background of 0, 3 to 12 cells a side)."
        ),
    ] = "random",
) -> None:
    """Write ARC tasks whose rule is a random chain of one to four lattice actions (rotations,
    reflections, shifts, scalings, tilings, colour swaps, and with --kinds paddings, mirror
    tilings and crops, in any order), for `arcsolve eval`."""
    from arcsolve.bench.lattice_chains import INPUTS, make_chain_tasks, parse_kinds

    try:
        chosen = parse_kinds(kinds)
    except ValueError as exc:
        raise ArcsolveError(f"--kinds: {exc}") from None
    if inputs not in INPUTS:
        raise ArcsolveError(f"--inputs: unknown kind of input '{inputs}' (known: {', '.join(INPUTS)})")
    check_output_folder(out, "--out")
    _write_tasks(make_chain_tasks(count, seed, chosen, pairs, inputs), out)


def _write_tasks(tasks: list[Task], out: Path) -> None:
    """Write each task to `out/<id>.json` (ARC's format) and say how many were written."""
    import orjson

    from arcsolve.files import write_atomically

    for task in tasks:
        write_atomically(out / f"{task.id}.json", orjson.dumps(task.to_json_dict()))
    say(f"wrote {plural(len(tasks), 'task')} to {escape(str(out))}")


SYNTHETIC_HELP = (
    "Sample efficiency on synthetic geometric tasks (paper Figure 5) and the noise study (Table 4), in pieces.\n\n"
    "Settings: --paper (the paper's protocol, for a GPU), --quick (minutes on a CPU), or by default the CPU "
    "setting (10×10 canvas, 1–8 examples, one task per category, 100 steps: about an hour on 2 cores). "
    "Outputs say which setting ran; only --paper is the paper's scale.\n\n"
    "Finished fits are appended to <out>/synthetic.jsonl and noise.jsonl; the same command again resumes where "
    "the last piece stopped and never repeats a finished fit."
)


@bench.command(
    "synthetic",
    help=SYNTHETIC_HELP,
    epilog=examples(
        "arcsolve bench synthetic --quick",
        "arcsolve bench synthetic --paper --noise --device cuda --workers 4 --max-minutes 8",
    ),
)
@reports_errors
def bench_synthetic(
    paper: Annotated[
        bool,
        typer.Option(
            "--paper",
            help="The paper's protocol (Appendix B.1): 30×30 canvas, 1…2048 examples, 10 tasks per category, "
            "3 seeds, 300 steps. Sized for a GPU: run it in pieces with --max-minutes.",
        ),
    ] = False,
    quick: Annotated[bool, typer.Option("--quick", help="A few-minute CPU setting (10×10, 1 and 2 examples).")] = False,
    category: Annotated[
        list[str] | None, typer.Option("--category", help="translation, rotation, reflection, scaling; repeatable.")
    ] = None,
    model: Annotated[list[str] | None, typer.Option("--model", "-m", help="Models to compare; repeatable.")] = None,
    examples: Annotated[str | None, typer.Option(help="Comma list of training-set sizes, e.g. 1,2,4,8.")] = None,
    tasks_per_category: Annotated[
        int | None, typer.Option(min=1, help="Tasks per category (all where fewer exist).")
    ] = None,
    seeds: Annotated[int | None, typer.Option(min=1, help="Replicates per fit (seeds --seed, --seed + 1, …).")] = None,
    steps: Annotated[int | None, typer.Option(min=1, help="Optimiser steps per fit, the same for every model.")] = None,
    canvas: Annotated[int | None, typer.Option(min=1, help="Lattice side (paper: 30).")] = None,
    augmentations: Annotated[int | None, typer.Option(min=1, help="Colour permutations per step (paper: 10).")] = None,
    batch: Annotated[
        int | None, typer.Option(min=1, help="At most this many grids per training step (minibatches).")
    ] = None,
    seed: SeedOpt = 0,
    device: DeviceOpt = "auto",
    workers: Annotated[int, typer.Option(min=1, help="Fits run at once, each in its own process.")] = 1,
    max_minutes: Annotated[
        float | None,
        typer.Option(help="Bound on this piece's minutes: no fit starts that would end past it; rerun to go on."),
    ] = None,
    noise: Annotated[
        bool, typer.Option("--noise", help="Also run the noise study (Table 4) once Figure 5 is done.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Results folder (default: benchmarks/results/synthetic_<setting>)."),
    ] = None,
) -> None:
    """Sample efficiency on synthetic tasks (paper Figure 5) and the noise study (Table 4), in pieces."""
    import sys

    from arcsolve.bench.sample_efficiency import run_benchmark
    from arcsolve.bench.study_plan import MODELS, choose_setting
    from arcsolve.bench.synthetic_tasks import CATEGORIES

    if paper and quick:
        raise ArcsolveError("--paper and --quick: choose one")
    if max_minutes is not None and max_minutes <= 0:
        raise ArcsolveError(f"--max-minutes: must be above 0, got {max_minutes}")
    setting = choose_setting(
        "paper" if paper else "quick" if quick else "cpu",
        examples=int_list("--examples", examples) if examples else None,
        tasks_per_category=tasks_per_category,
        seeds=seeds,
        steps=steps,
        canvas=canvas,
        augmentations=augmentations,
        batch=batch,
        seed=seed,
    )
    folder = out or Path(f"benchmarks/results/synthetic_{setting.name}")
    figure, table = run_benchmark(
        setting,
        category or CATEGORIES,
        model or MODELS,
        noise,
        folder,
        resolve_device(device).type,
        workers,
        max_minutes,
        say,  # one line per fit, for the log
        "arcsolve " + " ".join(sys.argv[1:]),
    )
    wrote = f"{folder}/synthetic.json and synthetic.png" + (" and noise.json" if table is not None else "")
    say(f"wrote {escape(wrote)}")
    if noise and table is None:
        say("Table 4 not run in this piece: it starts once Figure 5 is complete; run the same command again")
