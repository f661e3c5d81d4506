"""Benchmark the DSL search on a dataset: solved count, wall time, peak memory per task.

    python benchmarks/dsl.py --dataset arc1/training --jobs 2 --time-budget 5 \
        --out benchmarks/results/dsl_arc1_training.json

With `--max-states N` the search has no clock: it runs to `--max-depth` (2 by default) and
stores at most N states per view, so its programs are the same on every machine and under
any load. That mode checks that a change to the code leaves the search's answers alone:

    python benchmarks/dsl.py --dataset arc1/training --max-states 2000 --out /tmp/programs.json

`--max-depth` also bounds a timed search (3 by default there, the third step by the last-step
pass only), and `--unsolved-in` runs only the tasks an earlier summary left unsolved, so that a
deeper search can be measured where it could add something:

    python benchmarks/dsl.py --dataset arc1/evaluation --time-budget 20 --max-depth 4 \
        --unsolved-in benchmarks/results/dsl_arc1_evaluation_20s.json --limit 40

`--train-pairs N` keeps only the first N train pairs of each task that has more (the tests
are kept). With two, more programs fit the train pairs by chance, as on sets whose tasks
give few examples, so the run shows how often the search's first answer generalizes there:

    python benchmarks/dsl.py --dataset arc1/training --train-pairs 2 --max-states 2000 --out /tmp/two.json

The search's speed is reported as the states it reached and the steps it applied
(`arcsolve.dsl.search.SearchCounts`) per second of the tasks' own time, learners included.

Precision is the share of the tasks with a verified program (one that reproduces every train
pair) whose test outputs are right.

A task counts as solved when every test output is among the first two distinct answers of
its candidates: programs that reproduce every train pair (the verified ones, then those
whose test size breaks the train pairs' pattern; no other fallback answers).

Memory is the resident size a worker reaches while it solves a task (its own start-up, about
40 MB of Python, numpy and arcsolve, included). Workers are forked from a server process that
has imported the search and nothing else (`forkserver`, `spawn` where there is none), so they
start in milliseconds and do not inherit the parent's copy of the whole dataset; each
freezes its imports for the garbage collector (`freeze_imports`). Each is replaced after
`--tasks-per-worker` tasks, so that what the allocator keeps from earlier tasks does not pile
up; before each task the worker also hands freed memory back (`release_memory`). On Linux the peak is reset before
each task (`/proc/self/clear_refs`), so each task gets its own figure;
elsewhere it is the worker's peak so far. Each result also keeps the worker's resident size
when the task began (`start_mb`, Linux only): the peak less that is what the task itself
added, and the summary gives its median and largest value too (`*_growth_mb`).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import math
import multiprocessing
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

import orjson

from arcsolve.dsl.search import MAX_DEPTH, MAX_STATES, SearchCounts, solve
from arcsolve.loaders import load_tasks
from arcsolve.solution import Solution, SolveConfig
from arcsolve.tasks import Task


def solved(task: Task, solution: Solution) -> bool:
    """Every test output is among the first N_ATTEMPTS distinct candidate answers."""
    return all(
        pair.output is not None and pair.output in [grid for grid, _ in solution.distinct_grids(i)]
        for i, pair in enumerate(task.test)
    )


def release_memory() -> None:
    """Collect garbage and hand the memory freed objects left in the allocator's pools back to
    the system (glibc's malloc_trim; elsewhere only the collection), so that a task's figure
    starts from what the worker still holds, not from what earlier tasks once needed."""
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def freeze_imports() -> None:
    """Set a new worker's objects (its imports) aside from the cyclic garbage collector, so
    that the collection before each task (`release_memory`) and those during it scan only
    what tasks made: a full scan of a worker's objects takes tens of milliseconds."""
    gc.freeze()


def reset_peak() -> None:
    """Start a new peak resident size for this process (Linux; elsewhere the peak runs on)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _status_mb(field: str) -> float | None:
    """A size from /proc/self/status in MB (Linux), or None."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def peak_mb() -> float:
    """This process's peak resident size in MB since the last `reset_peak` (or since it started)."""
    hwm = _status_mb("VmHWM")
    if hwm is not None:
        return hwm
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes on macOS, else kB


def run_one(task: Task, time_budget: float, max_depth: int = MAX_DEPTH, max_states: int = MAX_STATES) -> dict:
    """Solve one task in a worker; report the result and the peak memory while it ran. A task
    whose search raises counts as unsolved, with the error kept, and the run goes on."""
    release_memory()
    reset_peak()
    start = _status_mb("VmRSS")
    start_mb = None if start is None else round(start, 1)
    counts = SearchCounts()
    try:
        solution = solve(task, SolveConfig(time_budget=time_budget), max_depth, max_states, counts)
    except Exception as exc:  # noqa: BLE001 - one task's failure must not cost the others
        return {"id": task.id, "solved": False, "programs": [], "verified": False,
                "error": f"{type(exc).__name__}: {exc}", "seconds": None, "peak_mb": round(peak_mb(), 1),
                "start_mb": start_mb}
    return {
        "id": task.id,
        "solved": solved(task, solution),
        "programs": [c.detail for c in solution.candidates],
        "verified": any(c.verified for c in solution.candidates),
        "seconds": round(solution.seconds, 3),
        "states": counts.states,
        "steps": counts.steps,
        "peak_mb": round(peak_mb(), 1),
        "start_mb": start_mb,
    }


def worker_context() -> multiprocessing.context.BaseContext:
    """Where workers come from: forked from a server that imported the search once, so that
    replacing a worker costs a fork instead of a fresh interpreter's imports; spawned where the
    platform has no fork server."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["__main__", "arcsolve.dsl.search"])
    return context


def first_pairs(tasks: list[Task], n: int) -> list[Task]:
    """Each task with only its first `n` train pairs (a task with fewer is left as it is)."""
    return [task.model_copy(update={"train": task.train[:n]}) if len(task.train) > n else task for task in tasks]


def run_job(job: tuple[Task, float, int, int]) -> dict:
    """run_one on a (task, time budget, depth, states) tuple, the form Pool.imap hands over."""
    return run_one(*job)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="arc1/training")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--time-budget", type=float, default=5.0)
    parser.add_argument("--tasks-per-worker", type=int, default=5,
                        help="replace a worker after this many tasks (0 = never)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N tasks (0 = all)")
    parser.add_argument("--unsolved-in", type=Path,
                        help="only the tasks that this earlier summary (an --out file) left unsolved")
    parser.add_argument("--max-states", type=int, default=0,
                        help="no clock: at most N stored states per view (0 = the time budget bounds the search)")
    parser.add_argument("--max-depth", type=int,
                        help=f"the search's depth (2 with --max-states, else {MAX_DEPTH}: the last step by the "
                             "last-step pass only)")
    parser.add_argument("--train-pairs", type=int, default=0,
                        help="keep only the first N train pairs of each task (0 = all of them)")
    parser.add_argument("--out", type=Path, help="write the summary and every task's programs here (JSON)")
    args = parser.parse_args()
    if args.train_pairs < 0:
        parser.error(f"--train-pairs must be 0 (all) or more, not {args.train_pairs}")
    if args.max_depth is not None and args.max_depth < 1:
        parser.error(f"--max-depth must be at least 1, not {args.max_depth}")
    if args.max_states:
        args.time_budget = math.inf
        depth, states = args.max_depth or 2, args.max_states
    else:
        depth, states = args.max_depth or MAX_DEPTH, MAX_STATES

    tasks = load_tasks(args.dataset)
    if args.unsolved_in:
        try:
            unsolved = {r["id"] for r in orjson.loads(args.unsolved_in.read_bytes())["results"] if not r["solved"]}
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
            parser.error(f"{args.unsolved_in}: not a summary written by --out ({type(exc).__name__}: {exc})")
        tasks = [task for task in tasks if task.id in unsolved]
    if args.limit:
        tasks = tasks[: args.limit]
    if args.train_pairs:
        tasks = first_pairs(tasks, args.train_pairs)
    start = time.perf_counter()
    context = worker_context()
    # multiprocessing's Pool, not concurrent.futures: ProcessPoolExecutor's max_tasks_per_child
    # can hang on Python 3.11 once a worker is replaced
    with context.Pool(args.jobs, initializer=freeze_imports, maxtasksperchild=args.tasks_per_worker or None) as pool:
        jobs = [(task, args.time_budget, depth, states) for task in tasks]
        results = list(pool.imap(run_job, jobs, chunksize=1))
    wall = time.perf_counter() - start

    n_solved = sum(r["solved"] for r in results)
    n_found = sum(r["verified"] for r in results)
    n_right = sum(r["verified"] and r["solved"] for r in results)
    precision = n_right / n_found if n_found else None
    peak = max(r["peak_mb"] for r in results)
    median = statistics.median(r["peak_mb"] for r in results)
    growth = [r["peak_mb"] - r["start_mb"] for r in results if r["start_mb"] is not None]
    grew_median, grew_most = (statistics.median(growth), max(growth)) if growth else (None, None)
    grew = f" (growth in the task {grew_median:.0f} MB median, {grew_most:.0f} MB largest)" if growth else ""
    ran = [r for r in results if "error" not in r]
    searched = sum(r["seconds"] for r in ran) or math.nan  # the tasks' own seconds, learners included
    states_per_s, steps_per_s = (sum(r[key] for r in ran) / searched for key in ("states", "steps"))
    print(f"{args.dataset}: solved {n_solved}/{len(tasks)} "
          f"(a verified program for {n_found}: {n_right} right, {n_found - n_right} wrong on the test, "
          f"precision {'-' if precision is None else f'{precision:.1%}'}), wall {wall:.1f} s, "
          f"memory per task {median:.0f} MB median, {peak:.0f} MB peak{grew}, "
          f"{states_per_s:,.0f} states and {steps_per_s:,.0f} steps per second of a task, "
          f"jobs {args.jobs}, " + (f"first {args.train_pairs} train pairs, " if args.train_pairs else "")
          + (f"at most {states} states to depth {depth}" if args.max_states
             else f"budget {args.time_budget} s/task, depth {depth}"))
    for r in results:
        if "error" in r:
            print(f"{r['id']}: the search failed: {r['error']}")
    if args.out:
        summary = {
            "dataset": args.dataset, "solved": n_solved, "tasks": len(tasks),
            "verified": n_found, "verified_right": n_right, "verified_wrong": n_found - n_right,
            "precision": None if precision is None else round(precision, 4),
            "errors": sum("error" in r for r in results),
            "wall_seconds": round(wall, 1), "peak_task_mb": round(peak),
            "median_task_mb": round(median),
            "median_growth_mb": None if grew_median is None else round(grew_median),
            "peak_growth_mb": None if grew_most is None else round(grew_most),
            "states_per_second": round(states_per_s), "steps_per_second": round(steps_per_s),
            "jobs": args.jobs, "time_budget": None if args.max_states else args.time_budget,
            "max_states": args.max_states or None, "max_depth": depth, "train_pairs": args.train_pairs or None,
            "machine": platform.machine(),
            "results": sorted(results, key=lambda r: r["id"]),
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
