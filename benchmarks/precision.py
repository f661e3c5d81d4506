"""Does mixed precision change LatFormer's answers? Each task is fitted twice from the same
seed, in float32 and under bfloat16 autocast, and the rounded-gate answers are compared.

    OMP_NUM_THREADS=1 python benchmarks/precision.py --limit 4 --out benchmarks/results/precision_cpu.json

`--plain-restarts` fits plain restarts only (no exact starts), whose gates are learned.

On a CPU autocast runs matmuls in bfloat16 as a GPU would; its seconds say nothing about
a GPU's (this CPU has no fast bfloat16 path), only the answers are the point.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import orjson
import torch

from arcsolve.bench.speed import DEFAULT_TASKS
from arcsolve.devices import resolve_device
from arcsolve.latformer.fit import solve
from arcsolve.latformer.restarts import EXACT_RESTARTS
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig


def fit_once(task, device: str, bf16: bool, plain: bool = False) -> dict:
    """One fit of the task (with `plain`, from plain restarts only); its first attempt,
    whether it is right, and the seconds."""
    start = time.perf_counter()
    exact = 0 if plain else EXACT_RESTARTS
    with torch.autocast(resolve_device(device).type, dtype=torch.bfloat16, enabled=bf16):
        solution = solve(task, SolveConfig(device=device, seed=0), exact_restarts=exact)
    attempt = solution.candidates[0]
    return {
        "grids": [g.to_numpy().tolist() for g in attempt.grids],
        "correct": all(g == p.output for g, p in zip(attempt.grids, task.test, strict=True)),
        "verified": attempt.verified,
        "detail": attempt.detail,
        "seconds": round(time.perf_counter() - start, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="*", default=list(DEFAULT_TASKS))
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--limit", type=int, default=0, help="only the first N tasks (0 = all)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/precision.json"))
    parser.add_argument("--plain-restarts", action="store_true", help="fit plain restarts only, no exact starts")
    args = parser.parse_args()
    names = args.tasks[: args.limit] if args.limit else args.tasks
    rows = []
    for name in names:
        [task] = load_tasks(name)
        fp32 = fit_once(task, args.device, False, args.plain_restarts)
        bf16 = fit_once(task, args.device, True, args.plain_restarts)
        same = fp32.pop("grids") == bf16.pop("grids")
        rows.append({"task": task.id, "same_answer": same, "float32": fp32, "bfloat16": bf16})
        print(
            f"{task.id}: {'same answer' if same else 'DIFFERENT answer'}; correct "
            f"{fp32['correct']} / {bf16['correct']}; {fp32['seconds']} s / {bf16['seconds']} s",
            flush=True,
        )
    summary = {
        "device": args.device,
        "plain_restarts": args.plain_restarts,
        "same": sum(r["same_answer"] for r in rows),
        "tasks": len(rows),
        "rows": rows,
    }
    print(f"same answer on {summary['same']}/{len(rows)} tasks")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
