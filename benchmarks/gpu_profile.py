"""Where a batched GPU run spends its time: per batch (one signature), the members, steps
and seconds, and per step the host's share, and the tasks solved (test outputs right).
Usage: [GRAPHS=0] python benchmarks/gpu_profile.py BATCH TASK...; GRAPHS=0 runs each step
eagerly instead of replaying it as a CUDA graph, for comparison."""

import os
import sys
import time

import torch

from arcsolve.evaluation.runner import expected_work
from arcsolve.evaluation.selection import task_config
from arcsolve.latformer import batch, batched
from arcsolve.loaders import load_many
from arcsolve.priors.annotations import load_annotations
from arcsolve.solution import SolveConfig

rows = []
run_signature, train_step = batched._run_signature, batch.Batch.train_step
steps = {"n": 0, "members": 0, "host": 0.0}


def timed_step(self, *args):
    start = time.perf_counter()
    train_step(self, *args)
    steps["host"] += time.perf_counter() - start  # the host's time to queue the step
    steps["n"] += 1
    steps["members"] += len(self.members)


def timed_signature(queues, key, *args):
    before, start = dict(steps), time.perf_counter()
    run_signature(queues, key, *args)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    n = steps["n"] - before["n"]
    rows.append(
        (
            key[2],
            key[3],
            n,
            (steps["members"] - before["members"]) / max(n, 1),
            time.perf_counter() - start,
            steps["host"] - before["host"],
        )
    )


batched._run_signature, batch.Batch.train_step = timed_signature, timed_step
batch, specs = int(sys.argv[1]), sys.argv[2:]
annotations = load_annotations()
tasks = sorted(load_many(specs), key=expected_work, reverse=True)
works = [(t, task_config(SolveConfig(device=os.environ.get("DEVICE", "cuda")), t, annotations)) for t in tasks]
start = time.perf_counter()
solved = []
graphs = os.environ.get("GRAPHS", "1") == "1"
batched.solve_many(works, solved.append, batch, graphs=graphs)
wall = time.perf_counter() - start
by_id = {t.id: t for t in tasks}
right = sum(
    bool(s.candidates) and s.candidates[0].grids == tuple(p.output for p in by_id[s.task_id].test) for s in solved
)
print(f"{len(tasks)} tasks, batch {batch}, graphs {graphs}: {wall:.1f} s, {len(rows)} batches, {right} solved")
print("canvas      maps  steps  members/step  seconds  ms/step  host ms/step")
for canvas, maps, n, members, seconds, host in rows:
    print(
        f"{str(canvas):11} {maps:4} {n:6} {members:13.1f} {seconds:8.1f} {1000 * seconds / max(n, 1):8.1f}"
        f" {1000 * host / max(n, 1):12.1f}"
    )
