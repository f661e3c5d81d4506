"""Sample efficiency on synthetic geometric tasks (paper §5.1, Figure 5) and robustness to
input noise (Appendix B.4, Table 4), run in resumable pieces.

    setting = choose_setting("quick")
    result = run_synthetic(setting, out_dir="out", progress=print)   # synthetic.json/.png
    noise = run_noise(setting, out_dir="out", progress=print)        # noise.json

Each study is a list of fits (`study_plan`); each fit trains one fresh model and scores it
(`study_fits`); finished fits go to `<study>.jsonl` as they end, a rerun resumes, and
`max_minutes` bounds a piece (`study_runner`). Every piece rewrites the summary from all the
fits so far: `<study>.json` (with `complete`, and the fits done and planned) and, for Figure 5,
`synthetic.png`. What the numbers mean: `study_summary`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import orjson

from arcsolve.bench.study_fits import train_and_score
from arcsolve.bench.study_plan import (
    MODELS,
    NOISE_EXAMPLES,
    NOISE_LEVELS,
    Setting,
    describe,
    figure5_plan,
    study_tasks,
    table4_plan,
)
from arcsolve.bench.study_plot import plot_figure5
from arcsolve.bench.study_runner import Piece, ResultsFile, Train, device_name, row_key, run_piece
from arcsolve.bench.study_summary import (
    examples_to_reach,
    figure5_lines,
    summarise,
    table4,
    table4_lines,
    verdicts,
)
from arcsolve.bench.synthetic_tasks import CATEGORIES
from arcsolve.files import write_atomically

Say = Callable[[str], None]


def run_study(
    name: str,
    plan: list,
    header: dict,
    out_dir: Path,
    train: Train,
    max_minutes: float | None,
    workers: int,
    device: str,
    say: Say,
    clock: Callable[[], float],
) -> tuple[list[dict], Piece, list[dict]]:
    """One piece of a study: the fits of `plan` not yet in `<out_dir>/<name>.jsonl`. Returns the
    rows of the plan's finished fits, the piece, and the log of every piece so far."""
    results = ResultsFile(out_dir / f"{name}.jsonl", header)
    say(f"{name}: {len(plan)} fits planned, {sum(k in results.done for k in plan)} already done")
    piece = run_piece(plan, results, train, max_minutes, workers, say, clock, device)
    planned = set(plan)
    rows = [r for r in results.rows if row_key(r) in planned]
    status = "complete" if piece.remaining == 0 else f"{piece.remaining} fits remain: run the same command again"
    say(f"{name}: this piece finished {piece.finished} fits in {piece.seconds:.0f} s; {status}")
    return rows, piece, results.pieces()


def progress_fields(plan: list, rows: list[dict], pieces: list[dict], device: str) -> dict:
    return {
        "device": device_name(device),
        "fits_planned": len(plan),
        "fits_done": len(rows),
        "complete": len(rows) == len(plan),
        "pieces": pieces,
        "fit_seconds": round(sum(r["seconds"] for r in rows), 1),
    }


def run_synthetic(
    setting: Setting,
    categories: Sequence[str] = CATEGORIES,
    models: Sequence[str] = MODELS,
    out_dir: Path | str = "benchmarks/results/synthetic",
    device: str = "cpu",
    workers: int = 1,
    max_minutes: float | None = None,
    progress: Say | None = None,
    command: str | None = None,
    train: Train | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> dict:
    """Figure 5: accuracy against training examples, per category and model. Runs one piece,
    then writes `synthetic.json` and `synthetic.png` to out_dir and returns the JSON's content.
    `train` (a fit key → results row) defaults to `train_and_score` on `device`."""
    say = progress or (lambda line: None)
    out = Path(out_dir)
    plan = figure5_plan(setting, categories, models)
    header = describe(setting)
    train = train or partial(train_and_score, setting=setting, device=device)
    rows, _, pieces = run_study("synthetic", plan, header, out, train, max_minutes, workers, device, say, clock)
    summary = summarise(rows, categories, models, setting.examples)
    reach = examples_to_reach(summary)
    result = {
        "command": command,
        "setting": {**header, "categories": list(categories), "models": list(models)},
        **progress_fields(plan, rows, pieces, device),
        "tasks": {c: [t.name for t in ts] for c, ts in study_tasks(setting, categories).items()},
        "summary": summary,
        "examples_to_reach": reach,
        "latformer_examples_to_095": {
            c: by_model["latformer"]
            for c, by_model in examples_to_reach(summary, 0.95).items()
            if "latformer" in by_model
        },
        "verdicts": verdicts(reach, setting.examples),
    }
    write_atomically(out / "synthetic.json", orjson.dumps(result, option=orjson.OPT_INDENT_2))
    plot_figure5(result, out / "synthetic.png")
    for line in figure5_lines(result):
        say(line)
    if not result["complete"]:
        say(f"partial: {result['fits_done']} of {result['fits_planned']} fits; not a finished study")
    return result


def run_noise(
    setting: Setting,
    categories: Sequence[str] = CATEGORIES,
    levels: Sequence[float] = NOISE_LEVELS,
    out_dir: Path | str = "benchmarks/results/synthetic",
    device: str = "cpu",
    workers: int = 1,
    max_minutes: float | None = None,
    progress: Say | None = None,
    command: str | None = None,
    train: Train | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> dict:
    """Table 4: LatFormer's accuracy per category and noise level w, NOISE_EXAMPLES training
    pairs per task. Runs one piece, then writes `noise.json` to out_dir and returns its content."""
    say = progress or (lambda line: None)
    out = Path(out_dir)
    plan = table4_plan(setting, categories, levels)
    header = describe(setting)
    train = train or partial(train_and_score, setting=setting, device=device)
    rows, _, pieces = run_study("noise", plan, header, out, train, max_minutes, workers, device, say, clock)
    result = {
        "command": command,
        "setting": {**header, "categories": list(categories), "levels": list(levels), "train_examples": NOISE_EXAMPLES},
        **progress_fields(plan, rows, pieces, device),
        "tasks": {c: [t.name for t in ts] for c, ts in study_tasks(setting, categories).items()},
        "accuracy": table4(rows, categories, levels),
    }
    write_atomically(out / "noise.json", orjson.dumps(result, option=orjson.OPT_INDENT_2))
    for line in table4_lines(result):
        say(line)
    return result


def run_benchmark(
    setting: Setting,
    categories: Sequence[str] = CATEGORIES,
    models: Sequence[str] = MODELS,
    noise: bool = False,
    out_dir: Path | str = "benchmarks/results/synthetic",
    device: str = "cpu",
    workers: int = 1,
    max_minutes: float | None = None,
    progress: Say | None = None,
    command: str | None = None,
    train: Train | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[dict, dict | None]:
    """One piece of `arcsolve bench synthetic`: Figure 5, then (with `noise`, once Figure 5 is
    complete) Table 4 in what is left of `max_minutes`."""
    start = clock()
    figure = run_synthetic(
        setting, categories, models, out_dir, device, workers, max_minutes, progress, command, train, clock
    )
    if not noise or not figure["complete"]:
        return figure, None
    left = None if max_minutes is None else max_minutes - (clock() - start) / 60
    if left is not None and left <= 0:
        return figure, None
    return figure, run_noise(
        setting, categories, NOISE_LEVELS, out_dir, device, workers, left, progress, command, train
    )
