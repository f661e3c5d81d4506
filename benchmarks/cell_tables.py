"""Benchmark cell tables alone: on how many tasks of a set they answer, and how often rightly.

    python benchmarks/cell_tables.py --dataset arc1/evaluation --out benchmarks/results/cell_tables_arc1_evaluation.json

For every task whose train outputs have their inputs' sizes, the tables are fitted on the
raw train pairs by the search's own fitting step (`_Search.learn`), first as given and, if
none answers every test input, with each pair's background colour swapped with 0 (the
search's background view). A task is *answered* when some table gives every test
output, and *right* when one of the first two distinct answers is the truth. No search runs,
so this measures how far the tables can be trusted on their own.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import orjson

from arcsolve.dsl.memo import clear_memos
from arcsolve.dsl.search import _Search, distinct
from arcsolve.loaders import load_tasks
from arcsolve.solution import N_ATTEMPTS
from arcsolve.tasks import Task

TIME_BUDGET = 60.0  # seconds; fitting tables takes a fraction of one, so it never binds


def answers(task: Task) -> list[tuple[np.ndarray, ...]]:
    """The distinct test predictions of the tables the search fits on the task's raw train
    pairs (`_Search.learn`, with no program searched), as given or else in the background view."""
    for view in ("", "background"):
        fitter = _Search(task, TIME_BUDGET, 0, 1, view=view)
        fitter.learn()
        found = distinct(fitter.results())  # test outputs back in the task's own colours
        clear_memos()
        if found:
            return [f.outputs for f in found]
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="arc1/evaluation")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    start = time.perf_counter()
    results = []
    for task in load_tasks(args.dataset):
        if any(p.input.to_numpy().shape != p.output.to_numpy().shape for p in task.train):
            continue
        predictions = answers(task)
        if not predictions:
            continue
        truth = [p.output.to_numpy() for p in task.test]
        right = any(all(np.array_equal(x, y) for x, y in zip(p, truth, strict=True))
                    for p in predictions[:N_ATTEMPTS])
        results.append({"id": task.id, "right": right, "answers": len(predictions)})
    wall = time.perf_counter() - start
    n_right = sum(r["right"] for r in results)
    print(f"{args.dataset}: tables answer {len(results)} tasks, right on {n_right}, in {wall:.1f} s")
    if args.out:
        summary = {"dataset": args.dataset, "answered": len(results), "right": n_right,
                   "wall_seconds": round(wall, 1), "results": results}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
