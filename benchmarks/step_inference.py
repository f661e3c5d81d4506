"""Benchmark the inference of the steps the search tries on a state: how long it takes per
task, and which kinds of parameter take longest.

    python benchmarks/step_inference.py --dataset arc1/evaluation \
        --out benchmarks/results/step_inference_arc1_evaluation.json

Before the search can try the steps of a state it infers their parameters from the state's
train grids and the targets (`arcsolve.dsl.params.PARAMS`, one inference per kind of
parameter, shared by the primitives of that kind). For every task this takes the task's
first state (its train and test inputs) and infers the steps of both passes, the full
expansion and the last-step pass (`_Search.steps`), timing each kind. The memos are cleared
between tasks, so each task pays for the answers it shares between kinds, as the search
does on the first state of a task. Large grids cost most, so the slowest tasks are listed.
It also reports how long each task waits for its first step: the search can stop between
steps, so this is how far a state's inference can run past the end of a budget.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import orjson

import arcsolve.dsl.search as search_module
from arcsolve.dsl.memo import clear_memos
from arcsolve.loaders import load_tasks
from arcsolve.tasks import Task

SLOWEST = 10  # tasks and kinds listed


def measure(tasks: Iterable[Task]) -> dict:
    """Infer the steps of each task's first state; the figures, per task and per kind."""
    by_kind: Counter[str] = Counter()
    inferences = dict(search_module.PARAMS)

    def timed(kind: str):
        def infer(*given):
            start = time.perf_counter()
            try:
                return inferences[kind](*given)
            finally:
                by_kind[kind] += time.perf_counter() - start
        return infer

    per_task: dict[str, float] = {}
    first_step: dict[str, float] = {}
    search_module.PARAMS = {kind: timed(kind) for kind in inferences}
    try:
        for task in tasks:
            searched = search_module._Search(task, math.inf, 2, 100)
            state = tuple(searched.train_in + searched.test_in)
            clear_memos()
            start = time.perf_counter()
            for last in (False, True):
                for _ in searched.steps(state, last):
                    first_step.setdefault(task.id, time.perf_counter() - start)
            per_task[task.id] = time.perf_counter() - start
    finally:
        search_module.PARAMS = inferences
        clear_memos()

    seconds = sorted(per_task.values())
    slowest = sorted(per_task.items(), key=lambda kv: -kv[1])[:SLOWEST]
    return {
        "tasks": len(per_task),
        "total_seconds": round(sum(seconds), 3),
        "median_ms": round(1000 * statistics.median(seconds), 2),
        "largest_ms": round(1000 * seconds[-1], 2),
        "first_step_median_ms": round(1000 * statistics.median(first_step.values()), 2),
        "first_step_largest_ms": round(1000 * max(first_step.values()), 2),
        "slowest_tasks_ms": {i: round(1000 * s, 1) for i, s in slowest},
        "slowest_kinds_s": {k: round(s, 3) for k, s in by_kind.most_common(SLOWEST)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="arc1/evaluation")
    parser.add_argument("--out", type=Path, default=None, help="write the figures here (JSON)")
    args = parser.parse_args()

    summary = {"dataset": args.dataset, **measure(load_tasks(args.dataset))}
    print(f"{args.dataset}: {summary['tasks']} tasks, the steps of each first state inferred in "
          f"{summary['total_seconds']:.2f} s in all (median {summary['median_ms']:.1f} ms, "
          f"largest {summary['largest_ms']:.1f} ms)")
    print(f"the first step ready after {summary['first_step_median_ms']:.1f} ms median, "
          f"{summary['first_step_largest_ms']:.1f} ms largest")
    print("slowest tasks (ms):", ", ".join(f"{i} {ms}" for i, ms in summary["slowest_tasks_ms"].items()))
    print("slowest kinds (s):", ", ".join(f"{k} {s}" for k, s in summary["slowest_kinds_s"].items()))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
