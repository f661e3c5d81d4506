"""Regenerate the rule-made labels of annotations/arc1.json; labels set by hand are kept.

    python annotations/make_labels.py            # about 3 minutes on 2 cores
    python annotations/make_labels.py --check    # only print where the rules now disagree

Entries whose source is `manual` are never overwritten: the rules propose, a person decides.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from arcsolve.loaders import load_tasks
from arcsolve.priors.annotations import (
    Annotations,
    default_annotations_path,
    load_annotations,
    save_annotations,
)
from arcsolve.priors.review import propose
from arcsolve.tasks import Task

SPLITS = ("arc1/training", "arc1/evaluation")


def _propose(task: Task):
    return task.id, propose(task)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(default_annotations_path()))
    parser.add_argument("--check", action="store_true", help="report disagreements, write nothing")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    old = load_annotations(args.out).entries if Path(args.out).exists() else {}
    tasks = [task for split in SPLITS for task in load_tasks(split)]
    with ProcessPoolExecutor(args.workers) as pool:
        proposed = dict(pool.map(_propose, tasks, chunksize=4))
    entries = {}
    for task_id, proposal in proposed.items():
        kept = old.get(task_id)
        if kept is not None and kept.source == "manual":
            entries[task_id] = kept
            if sorted(kept.priors) != sorted(proposal.priors):
                print(f"{task_id}: manual {kept.priors}, rules {proposal.priors} ({proposal.note})")
        else:
            entries[task_id] = proposal
    if not args.check:
        save_annotations(Annotations(entries=entries), args.out)
        print(f"wrote {len(entries)} labels to {args.out}")


if __name__ == "__main__":
    main()
