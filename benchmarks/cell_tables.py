"""Benchmark cell tables alone: on how many tasks of a set they answer, and how often rightly.

    python benchmarks/cell_tables.py --dataset arc1/evaluation --out benchmarks/results/cell_tables_arc1_evaluation.json

For every task whose train outputs have their inputs' sizes, the tables are fitted on the
raw train pairs as the search fits them (`arcsolve.dsl.cell_tables.fit_tables`), first as
given and, if none answers every test input, with each pair's background colour swapped with
0 (the search's background view). A task is *answered* when some table gives every test
output, and *right* when one of the first two distinct answers is the truth. No search runs,
so this measures how far the tables can be trusted on their own.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import orjson

from arcsolve.dsl.cell_tables import apply_table, fit_tables
from arcsolve.dsl.memo import clear_memos
from arcsolve.dsl.search import VIEWS
from arcsolve.loaders import load_tasks
from arcsolve.solution import N_ATTEMPTS
from arcsolve.tasks import Task


def answers(task: Task) -> list[list[np.ndarray]]:
    """The distinct test predictions of the tables fitted on the task, in order."""
    pairs = [(p.input.to_numpy().astype(np.int8), p.output.to_numpy().astype(np.int8)) for p in task.train]
    tests = [p.input.to_numpy().astype(np.int8) for p in task.test]
    predictions: list[list[np.ndarray]] = []
    for view in ("", "background"):
        perms = [VIEWS[view].perm(a) if view else np.arange(10, dtype=np.int8) for a, _ in pairs]
        test_perms = [VIEWS[view].perm(a) if view else np.arange(10, dtype=np.int8) for a in tests]
        grids = [m[a] for m, (a, _) in zip(perms, pairs, strict=True)]
        targets = [m[b] for m, (_, b) in zip(perms, pairs, strict=True)]
        for table in fit_tables(grids, targets):
            outs = [apply_table(m[a], table) for m, a in zip(test_perms, tests, strict=True)]
            if any(o is None for o in outs):
                continue
            outs = [np.argsort(m)[o] for m, o in zip(test_perms, outs, strict=True)]
            if not any(all(np.array_equal(x, y) for x, y in zip(outs, p, strict=True)) for p in predictions):
                predictions.append(outs)
        clear_memos()
        if predictions:
            break
    return predictions


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
