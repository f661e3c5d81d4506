"""The `arcsolve` command line. Each command parses options and calls one library function;
library errors (ArcsolveError) become a one-line message and exit status 2."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console

from arcsolve import __version__
from arcsolve.devices import GPU_BATCH, default_batch, default_jobs
from arcsolve.errors import ArcsolveError
from arcsolve.loaders import load_many
from arcsolve.render import pairs_table, task_table
from arcsolve.solution import SOLVERS, SolveConfig

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
SolutionsOpt = Annotated[Path | None, typer.Option("--solutions", help="Kaggle solutions file for a challenges file.")]
ModelOpt = Annotated[str, typer.Option("--model", "-m", help=f"Solver: {', '.join(SOLVERS)}.")]
DeviceOpt = Annotated[str, typer.Option(help="auto, cpu or cuda.")]
SeedOpt = Annotated[int, typer.Option(help="Random seed (runs are deterministic on CPU).")]
StepsOpt = Annotated[int, typer.Option(help="LatFormer step budget per task.")]
BudgetOpt = Annotated[float, typer.Option("--time-budget", help="Seconds per task for the DSL search.")]
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
    typer.Option("--fit-seconds", help="Cap on LatFormer fitting seconds per task (default: steps alone)."),
]
BetaOpt = Annotated[float, typer.Option(help="Colour-attention mixing weight β (latformer-color).")]
JobsOpt = Annotated[
    int | None, typer.Option(help="Worker processes (default: one per visible GPU, else 1).", show_default=False)
]
BatchOpt = Annotated[
    int | None,
    typer.Option(
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
        from arcsolve.devices import resolve_device

        resolve_device(device)
    return SolveConfig(
        device=device, seed=seed, steps=steps, time_budget=time_budget, priors=names, beta=beta, fit_seconds=fit_seconds
    )


def fail(message: str) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
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
        targets = (
            sorted(Path(spec).glob("*.json"))
            if Path(spec).is_dir() and not (Path(spec) / "tasks_json").is_dir()
            else [spec]
        )
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


@app.command()
@reports_errors
def solve(
    tasks: TasksArg,
    model: ModelOpt = "latformer",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write attempts in Kaggle form.")] = None,
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
) -> None:
    """Fit a fresh model on each task's train pairs and predict its test outputs."""
    from arcsolve.evaluation.evaluate import score_attempts, task_config
    from arcsolve.evaluation.export import submission_json
    from arcsolve.evaluation.progress import FitProgress
    from arcsolve.files import write_atomically
    from arcsolve.priors.annotations import load_annotations
    from arcsolve.solution import get_solver, input_copy

    loaded = load_many(tasks, solutions)
    config = make_config(device, seed, steps, time_budget, priors, beta, fit_seconds)
    ann = load_annotations(annotations)
    solver = get_solver(model)
    answers = {}
    for task in loaded:
        with FitProgress(console, f"{model} {task.id}", config.steps) as progress:
            solution = solver(task, task_config(config, task, ann), **progress.kwargs(solver))
        attempts = solution.attempts(len(task.test), input_copy(task))
        answers[task.id] = attempts
        rows = []
        for i, (pair, grids) in enumerate(zip(task.test, attempts, strict=True)):
            cells = [("input", pair.input)] + [(f"attempt {k + 1}", g) for k, g in enumerate(grids)]
            if pair.output is not None:
                cells.append(("truth", pair.output))
            rows.append((f"test {i}", cells))
        console.print(pairs_table(rows, f"{task!r} · {model} · {solution.seconds:.1f} s"))
        if task.has_solutions:
            score = score_attempts(attempts, [p.output for p in task.test])
            verdict = "[green]correct[/]" if score.solved else "[red]wrong[/]"
            console.print(f"{task.id}: {verdict} ({sum(score.correct)}/{len(task.test)} test outputs)")
        if explain:
            for i, names in enumerate(solution.sources(len(task.test))):
                found = "; ".join(f"attempt {k + 1}: {n}" for k, n in enumerate(names))
                console.print(
                    f"{task.id} test {i}: {found or 'no candidate: both attempts copy the input'}", highlight=False
                )
        if out is not None:  # after every task, so an interrupted run keeps what it finished
            write_atomically(out, orjson.dumps(submission_json([t for t in loaded if t.id in answers], answers)))
    if out is not None:
        console.print(f"wrote {out}")


SubsetOpt = Annotated[
    str | None,
    typer.Option("--subset", help="translate, rotate, reflect, scale, geometric or all (from the annotations)."),
]


@app.command("eval")
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
    limit: Annotated[int | None, typer.Option(help="Evaluate only the first N tasks (by id).")] = None,
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
    from arcsolve.evaluation.evaluate import evaluate_models, select_tasks, subset_datasets
    from arcsolve.evaluation.progress import EvalProgress, comparison_table, summary_table
    from arcsolve.priors.annotations import load_annotations

    models = ["latformer"] if not model else list(SOLVERS) if "all" in model else model
    specs = list(tasks or []) + list(dataset or [])
    if "larc" in specs:
        specs = [str(larc_dir) if s == "larc" else s for s in specs]
        if larc_dir is None:
            raise ArcsolveError("--dataset larc needs --larc-dir pointing at LARC's dataset/ folder")
    specs = subset_datasets(specs, subset)
    if not specs:
        raise ArcsolveError("name tasks, a --dataset or a --subset")
    config = make_config(device, seed, steps, time_budget, priors, beta, fit_seconds)
    ann = load_annotations(annotations)
    loaded = load_many(specs, solutions)
    if larc_split is not None:
        from arcsolve.latformer.text_encoder import larc_split as split_ids

        if larc_dir is None:
            raise ArcsolveError("--larc-split needs --larc-dir")
        keep = split_ids(larc_dir, larc_split)
        loaded = [t for t in loaded if t.id in keep]
    chosen = select_tasks(loaded, ann, subset, limit)
    with EvalProgress(total=len(chosen), console=console) as progress:
        reports = evaluate_models(
            chosen,
            models,
            config,
            report,
            jobs=default_jobs(jobs, device),
            on_result=progress,
            annotations=ann,
            dataset=" + ".join(specs),
            subset=subset,
            use_annotated_priors=True,
            fresh=fresh,
            batch=default_batch(batch, device),
            ray_address=ray_address,
        )
    console.print(summary_table(reports))
    console.print(comparison_table(reports, ann))
    if report is not None:
        console.print(f"report written to {report}/")


@app.command()
@reports_errors
def export(
    challenges: Annotated[Path | None, typer.Option("--challenges", help="Kaggle challenges file.")] = None,
    dataset: Annotated[str | None, typer.Option("--dataset", help="Or a dataset name / path.")] = None,
    model: ModelOpt = "hybrid",
    out: Annotated[Path, typer.Option("--out", "-o", help="Submission file to write.")] = Path("submission.json"),
    fmt: Annotated[str, typer.Option("--format", help="2024 (JSON, ARC Prize 2024/2025) or 2020 (CSV).")] = "2024",
    time_budget: Annotated[
        float | None, typer.Option("--time-budget", help="Seconds for the whole run, shared across tasks.")
    ] = None,
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
    from arcsolve.evaluation.export import export_submission
    from arcsolve.evaluation.progress import EvalProgress

    if (challenges is None) == (dataset is None):
        raise ArcsolveError("give exactly one of --challenges or --dataset")
    if fmt not in ("2024", "2020"):
        raise ArcsolveError(f"--format: '{fmt}' is not 2024 or 2020")
    loaded = load_many([str(challenges or dataset)])
    config = make_config(device, seed, steps, 5.0, priors, beta, fit_seconds)
    with EvalProgress(total=len(loaded), console=console) as progress:
        summary = export_submission(
            loaded, model, config, out, fmt=fmt, time_budget_total=time_budget, progress=progress, fresh=fresh,
            jobs=default_jobs(jobs, device), batch=default_batch(batch, device), ray_address=ray_address,
        )
    console.print(f"wrote {out}: {len(loaded)} tasks ({summary.resumed} resumed, {len(summary.unreached)} not reached)")


@app.command()
@reports_errors
def score(
    submission: Annotated[Path, typer.Argument(help="A 2024-format submission JSON.")],
    solutions: Annotated[
        Path | None, typer.Option("--solutions", help="Challenges or solutions file with outputs.")
    ] = None,
    dataset: Annotated[str | None, typer.Option("--dataset", help="Or a dataset with known outputs.")] = None,
) -> None:
    """Score a submission by the official rule: mean over test outputs of 'either attempt matches'."""
    from rich.table import Table

    from arcsolve.evaluation.export import score_submission

    if (solutions is None) == (dataset is None):
        raise ArcsolveError("give exactly one of --solutions or --dataset")
    if solutions is not None and "solutions" in solutions.name:
        raise ArcsolveError(f"{solutions}: give the challenges file; its *_solutions.json beside it is read too")
    loaded = load_many([str(solutions or dataset)])
    result = score_submission(submission, loaded)
    table = Table("task", "correct", title=f"{submission}")
    for task_id, task_score in result.per_task.items():
        table.add_row(task_id, f"{sum(task_score.correct)}/{len(task_score.correct)}")
    console.print(table)
    console.print(
        f"score {result.score:.4f} ({result.correct}/{result.test_outputs} test outputs, "
        f"{result.tasks_solved} tasks solved)"
    )


@app.command()
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


bench = typer.Typer(help="Benchmarks: print figures and write them to a file.", no_args_is_help=True)
app.add_typer(bench, name="bench")


@bench.command("solve")
@reports_errors
def bench_solve(
    tasks: Annotated[
        list[str] | None, typer.Argument(help="Tasks (default: the examples and the issue's real tasks).")
    ] = None,
    model: ModelOpt = "latformer",
    device: DeviceOpt = "auto",
    steps: StepsOpt = 300,
    seed: SeedOpt = 0,
    out: Annotated[Path, typer.Option("--out", "-o")] = Path("benchmarks/results/solve.json"),
) -> None:
    """Seconds per task and solved flags for fitting one task at a time."""
    from arcsolve.bench.speed import DEFAULT_TASKS, run_solve_bench

    loaded = load_many(tasks or list(DEFAULT_TASKS))
    config = make_config(device, seed, steps, 5.0, None, 0.9)
    result = run_solve_bench(loaded, model, config, out, console)
    console.print(
        f"median {result['median_seconds']:.1f} s/task, solved {result['solved']}/{result['tasks']}; wrote {out}"
    )


@bench.command("speed")
@reports_errors
def bench_speed(
    tasks: Annotated[list[str] | None, typer.Argument(help="Tasks (default: the bench solve set).")] = None,
    model: ModelOpt = "latformer",
    jobs: Annotated[str, typer.Option(help="Comma list of worker counts to compare.")] = "1,2",
    batch: Annotated[str, typer.Option(help="Comma list of batch sizes, each run with every --jobs value.")] = "1",
    device: DeviceOpt = "auto",
    steps: StepsOpt = 300,
    seed: SeedOpt = 0,
    out: Annotated[Path, typer.Option("--out", "-o")] = Path("benchmarks/results/speed.json"),
) -> None:
    """Tasks per minute, median and p90 seconds per task and peak memory, per --jobs and --batch value."""
    from arcsolve.bench.speed import DEFAULT_TASKS, run_speed_bench

    loaded = load_many(tasks or list(DEFAULT_TASKS))
    counts = int_list("--jobs", jobs)
    batches = int_list("--batch", batch)
    config = make_config(device, seed, steps, 5.0, None, 0.9)
    result = run_speed_bench(loaded, model, config, counts, out, console, batches)
    console.print(f"speed-up over the first run: {result['speedup']}; wrote {out}")


SYNTHETIC_HELP = (
    "Sample efficiency on synthetic geometric tasks (paper Figure 5) and the noise study (Table 4), in pieces.\n\n"
    "Settings: --paper (the paper's protocol, for a GPU), --quick (minutes on a CPU), or by default the CPU "
    "setting (10×10 canvas, 1–8 examples, one task per category, 100 steps: about an hour on 2 cores). "
    "Outputs say which setting ran; only --paper is the paper's scale.\n\n"
    "Finished fits are appended to <out>/synthetic.jsonl and noise.jsonl; the same command again resumes where "
    "the last piece stopped and never repeats a finished fit."
)


@bench.command("synthetic", help=SYNTHETIC_HELP)
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
    tasks_per_category: Annotated[int | None, typer.Option(help="Tasks per category (all where fewer exist).")] = None,
    seeds: Annotated[int | None, typer.Option(help="Replicates per fit (seeds --seed, --seed + 1, …).")] = None,
    steps: Annotated[int | None, typer.Option(help="Optimiser steps per fit, the same for every model.")] = None,
    canvas: Annotated[int | None, typer.Option(help="Lattice side (paper: 30).")] = None,
    augmentations: Annotated[int | None, typer.Option(help="Colour permutations per step (paper: 10).")] = None,
    batch: Annotated[int | None, typer.Option(help="At most this many grids per training step (minibatches).")] = None,
    seed: SeedOpt = 0,
    device: DeviceOpt = "auto",
    workers: Annotated[int, typer.Option(help="Fits run at once, each in its own process.")] = 1,
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
    from arcsolve.devices import resolve_device

    if paper and quick:
        raise ArcsolveError("--paper and --quick: choose one")
    if workers < 1:
        raise ArcsolveError(f"--workers: must be at least 1, got {workers}")
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
        lambda line: console.print(line, soft_wrap=True, highlight=False),  # one line per fit, for the log
        "arcsolve " + " ".join(sys.argv[1:]),
    )
    wrote = f"{folder}/synthetic.json and synthetic.png" + (" and noise.json" if table is not None else "")
    console.print(f"wrote {wrote}")
    if noise and table is None:
        console.print(
            "Table 4 not run in this piece: it starts once Figure 5 is complete; run the same command again",
            soft_wrap=True,
        )
