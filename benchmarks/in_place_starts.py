"""Which tasks LatFormer plans with their content changed in place, by task set: the tasks
whose every output is its input changed only inside the input's content box
(`arcsolve.content_crops.content_in_place`), and of those the ones whose plan takes that
view (`arcsolve.latformer.fit.plan_fit`: no start as given or in a colour view explains
them, and one on the content's box does). Every other task is planned as it would be
without the view. Usage:

    python benchmarks/in_place_starts.py SPEC... [--together NAME] [--out FILE]

Each SPEC is what `arcsolve eval` takes; with `--together NAME` all of them form one set
of that name. Planning only, no fitting, and only of the tasks the view applies to. The
file is written after each set, and a rerun keeps the sets it already holds.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import orjson

from arcsolve.content_crops import InPlaceTask, content_in_place
from arcsolve.latformer.fit import plan_fit
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig


def screen(specs: list[str]) -> dict:
    """The tasks of one set that the view applies to, and those planned in it."""
    tasks = [task for spec in specs for task in load_tasks(spec)]
    applies, planned = [], []
    start = time.perf_counter()
    for task in tasks:
        if content_in_place(task) is None:
            continue
        applies.append(task.id)
        plan = plan_fit(task, SolveConfig(device="cpu"))
        if plan is not None and isinstance(plan.view, InPlaceTask):
            planned.append(task.id)
    return {"tasks": len(tasks), "applies": applies, "planned": planned, "seconds": time.perf_counter() - start}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="task sources, as arcsolve eval takes them")
    parser.add_argument("--together", metavar="NAME", help="one set of this name made of every SPEC")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/in_place_starts.json"))
    args = parser.parse_args()
    sets = {args.together: args.specs} if args.together else {spec: [spec] for spec in args.specs}
    results = orjson.loads(args.out.read_bytes()) if args.out.exists() else {}
    for spec, specs in sets.items():
        found = results[spec] if spec in results else screen(specs)
        results[spec] = found
        planned = ", ".join(found["planned"])
        print(
            f"{spec}: {found['tasks']} tasks, the view applies to {len(found['applies'])}, "
            f"{len(found['planned'])} planned in it{': ' + planned if planned else ''} ({found['seconds']:.0f} s)",
            flush=True,
        )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
