"""`arcsolve bench solve` and `bench speed`: seconds per task, tasks per minute, memory."""

from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path

import orjson
import torch
from rich.console import Console

from arcsolve import __version__
from arcsolve.devices import resolve_device
from arcsolve.evaluation.evaluate import EvalOptions, evaluate
from arcsolve.evaluation.scoring import score_attempts
from arcsolve.evaluation.selection import task_config
from arcsolve.files import check_output_file, write_atomically
from arcsolve.priors.annotations import load_annotations
from arcsolve.solution import SolveConfig, get_solver, input_copy
from arcsolve.tasks import Task

# The bundled examples and nine ARC-AGI-1 tasks that are one lattice action each.
DEFAULT_TASKS = (
    "tasks/rotate.json",
    "tasks/reflect.json",
    "tasks/translate.json",
    "tasks/scale.json",
    "3c9b0459",
    "6150a2bd",
    "67a3c6ac",
    "68b16354",
    "74dd1130",
    "9dfd6313",
    "ed36ccf7",
    "c59eb873",
    "9172f3a0",
)


def run_solve_bench(
    tasks: list[Task], model: str, config: SolveConfig, out: Path, console: Console | None = None
) -> dict:
    check_output_file(out, "--out")
    solver = get_solver(model)
    annotations = load_annotations()
    rows = {}
    for task in tasks:
        start = time.perf_counter()
        solution = solver(task, task_config(config, task, annotations))
        seconds = time.perf_counter() - start
        attempts = solution.attempts(len(task.test), input_copy(task))
        solved = score_attempts(attempts, [p.output for p in task.test]).solved if task.has_solutions else None
        rows[task.id] = {
            "solved": solved,
            "seconds": round(seconds, 3),
            "detail": solution.candidates[0].detail if solution.candidates else "",
        }
        if console is not None:
            console.print(f"{task.id}: {'solved' if solved else 'not solved'} in {seconds:.1f} s", highlight=False)
    times = [r["seconds"] for r in rows.values()]
    result = {
        "model": model,
        "device": str(resolve_device(config.device)),
        "cpu_threads": torch.get_num_threads(),
        "machine": platform.machine(),
        "config": config.model_dump(),
        "tasks": len(rows),
        "solved": sum(bool(r["solved"]) for r in rows.values()),
        "median_seconds": statistics.median(times),
        "max_seconds": max(times),
        "per_task": rows,
        "arcsolve_version": __version__,
    }
    write_atomically(out, orjson.dumps(result, option=orjson.OPT_INDENT_2))
    return result


def _peak_mb() -> float:
    """Peak resident memory of this process and of its finished children, in MB."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def speed_settings(jobs: tuple[int, ...], batches: tuple[int, ...]) -> dict[str, tuple[int, int]]:
    """The runs of `bench speed`, by name: every worker count one task at a time, then every
    worker count with each batch size above 1."""
    settings = [(n, b) for b in dict.fromkeys((1, *batches)) for n in jobs]
    return {f"jobs={n}" if b == 1 else f"batch={b}" if n == 1 else f"jobs={n},batch={b}": (n, b) for n, b in settings}


def run_speed_bench(
    tasks: list[Task],
    model: str,
    config: SolveConfig,
    jobs: tuple[int, ...],
    out: Path,
    console: Console | None = None,
    batches: tuple[int, ...] = (1,),
) -> dict:
    """Tasks per minute, median and p90 seconds per task and peak memory: one run per number
    of worker processes and batch size (one task at a time when the batch is 1, else `batch`
    tasks fitted together in each worker; see arcsolve.latformer.batched), batch sizes in the outer
    loop, so the first run is the first worker count fitting one task at a time."""
    check_output_file(out, "--out")
    on_gpu = torch.cuda.is_available() and config.device != "cpu"
    runs = {}
    for name, (n, b) in speed_settings(jobs, batches).items():
        if on_gpu:
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        report = evaluate(tasks, model, config, EvalOptions(jobs=n, batch=b, pictures=False))
        wall = time.perf_counter() - start
        seconds = sorted(r.seconds for r in report.results)
        runs[name] = {
            "jobs": n,
            "batch": b,
            "wall_seconds": round(wall, 2),
            "tasks_per_minute": round(60 * len(tasks) / wall, 2),
            "median_seconds": round(statistics.median(seconds), 2),
            "p90_seconds": round(seconds[min(len(seconds) - 1, int(0.9 * len(seconds)))], 2),
            "solved": report.solved,
            "peak_mb": round(_peak_mb(), 1),
        }
        if on_gpu and n == 1:  # worker processes keep their GPU memory to themselves
            runs[name]["peak_gpu_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
        if console is not None:
            r = runs[name]
            console.print(
                f"{name}: {r['tasks_per_minute']} tasks/min, median {r['median_seconds']} s, "
                f"p90 {r['p90_seconds']} s, solved {r['solved']}/{len(tasks)}, peak {r['peak_mb']} MB",
                highlight=False,
            )
    base = next(iter(runs.values()))["tasks_per_minute"]
    result = {
        "model": model,
        "device": str(resolve_device(config.device)),
        "cpu_count": os.cpu_count(),
        "tasks": [t.id for t in tasks],
        "config": config.model_dump(),
        "runs": runs,
        "speedup": {k: round(v["tasks_per_minute"] / base, 2) for k, v in runs.items()},
        "arcsolve_version": __version__,
    }
    write_atomically(out, orjson.dumps(result, option=orjson.OPT_INDENT_2))
    return result
