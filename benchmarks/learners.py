"""Benchmark the search's learners alone: cell tables, stamps and object moves. On how many
tasks of a set does each answer, and how often rightly?

    python benchmarks/learners.py --dataset arc1/evaluation --out benchmarks/results/learners_arc1_evaluation.json

For every task whose train outputs have their inputs' sizes, the learners are fitted on the
raw train pairs by the search's own step (`_Search.learn`, no program searched), first as
given and, if none answers every test input, with each pair's background colour swapped
with 0 (the search's background view). A learner *answers* a task when one of its models
gives every test output, and is *right* when one of its first two distinct answers is the
truth; `all` counts the first two distinct answers of the learners together, in the order
the search ranks them. A task the DSL benchmark's results file (`--solved`) marks solved
and a learner gets wrong is listed: the search ranks its programs first, so such an answer
can only take the second attempt. Each learner's fitting time per task (in the views tried)
is recorded too, with its median and largest value: what it costs the search's budget.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import orjson

from arcsolve.dsl.memo import clear_memos
from arcsolve.dsl.search import _Search, distinct
from arcsolve.loaders import load_tasks
from arcsolve.solution import N_ATTEMPTS
from arcsolve.tasks import Task

TIME_BUDGET = 60.0  # seconds; the learners take a fraction of one, so it never binds
LEARNERS = ("cell_table", "stamp_around", "move_objects")


def answers(task: Task, seconds: dict[str, float]) -> dict[str, list[tuple[np.ndarray, ...]]]:
    """Each learner's distinct test predictions on the task's raw train pairs, as given or
    else in the background view; under 'all', theirs together. Adds each learner's fitting
    time, in the views tried, to `seconds`."""
    for view in ("", "background"):
        fitter = _Search(task, TIME_BUDGET, 0, 1, view=view)
        for name in LEARNERS:
            start = time.perf_counter()
            fitter.learn((name,))
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - start
        found = fitter.results()  # test outputs back in the task's own colours
        clear_memos()
        if found:
            by = {name: distinct([f for f in found if any(s.name == name for s in f.program)]) for name in LEARNERS}
            by["all"] = distinct(found)
            return {name: [f.outputs for f in fs] for name, fs in by.items() if fs}
    return {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="arc1/evaluation")
    parser.add_argument("--solved", type=Path, help="the DSL benchmark's results file for this set")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    solved = set()
    if args.solved:
        solved = {r["id"] for r in orjson.loads(args.solved.read_bytes())["results"] if r["solved"]}

    start = time.perf_counter()
    results, timings = [], []
    for task in load_tasks(args.dataset):
        if any(p.input.to_numpy().shape != p.output.to_numpy().shape for p in task.train):
            continue
        truth = [p.output.to_numpy() for p in task.test]
        seconds: dict[str, float] = {}
        found = answers(task, seconds)
        timings.append({"id": task.id, **{name: round(t, 4) for name, t in seconds.items()}})
        for name, predictions in found.items():
            right = any(all(np.array_equal(x, y) for x, y in zip(p, truth, strict=True))
                        for p in predictions[:N_ATTEMPTS])
            results.append({"id": task.id, "learner": name, "right": right, "answers": len(predictions)})
    wall = time.perf_counter() - start
    summary = {"dataset": args.dataset, "wall_seconds": round(wall, 1), "learners": {}, "results": results,
               "fit_seconds": timings}
    for name in (*LEARNERS, "all"):
        mine = [r for r in results if r["learner"] == name]
        line = {
            "answered": len(mine),
            "right": sum(r["right"] for r in mine),
            "right_where_the_search_fails": sorted(r["id"] for r in mine if r["right"] and r["id"] not in solved),
            "wrong_where_the_search_succeeds": sorted(r["id"] for r in mine if not r["right"] and r["id"] in solved),
        }
        if name in LEARNERS:
            times = sorted(t[name] for t in timings)
            line["fit_seconds_median"] = round(statistics.median(times), 3)
            line["fit_seconds_max"] = round(times[-1], 3)
        summary["learners"][name] = line
        print(f"{args.dataset} {name}: answers {line['answered']} tasks, right on {line['right']}; "
              f"right where the search fails: {' '.join(line['right_where_the_search_fails']) or '-'}; "
              f"wrong where it succeeds: {' '.join(line['wrong_where_the_search_succeeds']) or '-'}"
              + (f"; fitting {line['fit_seconds_median']} s the median task, {line['fit_seconds_max']} s the slowest"
                 if name in LEARNERS else ""))
    print(f"{wall:.1f} s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
