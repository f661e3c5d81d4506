"""The tasks of an ARC-AGI-2 set that ARC-AGI-1 does not have, as names `arcsolve eval` takes.

ARC-AGI-2's training set keeps most of ARC-AGI-1's 800 tasks; the others were written for
ARC-AGI-2 and were never used to design arcsolve, so they measure how it does on tasks that
it has never seen. Usage:

    python benchmarks/arc2_new_tasks.py [arc2/training|arc2/evaluation]

prints one name per line (`arc2/training/<id>`), in the set's order, for example for

    arcsolve eval $(python benchmarks/arc2_new_tasks.py) --model dsl ...
"""

from __future__ import annotations

import argparse

from arcsolve.loaders import load_dataset

SETS = ("arc2/training", "arc2/evaluation")


def new_tasks(dataset: str) -> list[str]:
    """The names of the dataset's tasks whose ids neither ARC-AGI-1 set has."""
    seen = {task.id for name in ("arc1/training", "arc1/evaluation") for task in load_dataset(name)}
    return [f"{dataset}/{task.id}" for task in load_dataset(dataset) if task.id not in seen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", default=SETS[0], choices=SETS)
    print("\n".join(new_tasks(parser.parse_args().dataset)))


if __name__ == "__main__":
    main()
