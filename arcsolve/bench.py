"""`arcsolve bench solve`: time and outcome of fitting tasks one at a time."""

from __future__ import annotations

import platform
import statistics
import time
from pathlib import Path

import orjson
import torch
from rich.console import Console

from arcsolve import __version__
from arcsolve.annotations import load_annotations
from arcsolve.evaluate import score_attempts, task_config
from arcsolve.export import write_atomically
from arcsolve.fit import resolve_device
from arcsolve.solution import SolveConfig, get_solver, input_copy
from arcsolve.tasks import Task

# The bundled examples and the pure-lattice ARC-AGI-1 tasks named by the LatFormer issue.
DEFAULT_TASKS = (
    "tasks/rotate.json", "tasks/reflect.json", "tasks/translate.json", "tasks/scale.json",
    "3c9b0459", "6150a2bd", "67a3c6ac", "68b16354", "74dd1130", "9dfd6313", "ed36ccf7",
    "c59eb873", "9172f3a0",
)


def run_solve_bench(tasks: list[Task], model: str, config: SolveConfig, out: Path,
                    console: Console | None = None) -> dict:
    solver = get_solver(model)
    annotations = load_annotations()
    rows = {}
    for task in tasks:
        start = time.perf_counter()
        solution = solver(task, task_config(config, task, annotations))
        seconds = time.perf_counter() - start
        attempts = solution.attempts(len(task.test), input_copy(task))
        solved = score_attempts(attempts, [p.output for p in task.test]).solved if task.has_solutions else None
        rows[task.id] = {"solved": solved, "seconds": round(seconds, 3),
                         "detail": solution.candidates[0].detail if solution.candidates else ""}
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
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(out, orjson.dumps(result, option=orjson.OPT_INDENT_2))
    return result
