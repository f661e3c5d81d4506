"""How many PyTorch operations one batched training step dispatches, by part.

On a GPU a small batched step was bound by the host queueing its operations, not by the
kernels (benchmarks/gpu_profile.py); replayed as a CUDA graph it no longer pays the host for
them, but each operation that computes is still a kernel of the graph, so the count is what a faster step must
cut. It does not depend on the device, so it is counted here on the CPU, with a
dispatch mode, on the second step of a batch of four small tasks (every expert in every
member, restarts side by side, the layout a CUDA graph reads: the GPU's batching). Usage:

    python benchmarks/op_count.py [--out FILE]
"""

from __future__ import annotations

import argparse
import collections
from contextlib import ExitStack
from pathlib import Path
from unittest.mock import patch

import orjson
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from arcsolve.latformer import batch, batched
from arcsolve.latformer import model as latformer
from arcsolve.loaders import load_many
from arcsolve.solution import SolveConfig

TASKS = ["tasks/rotate.json", "tasks/reflect.json", "3c9b0459", "6150a2bd"]


class Count(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.n = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.n += 1
        return func(*args, **(kwargs or {}))


def count_step() -> dict[str, int]:
    parts: collections.Counter = collections.Counter()
    counting = {"on": False, "step": 0}

    def counted(name, fn):
        def inner(*args, **kwargs):
            if not counting["on"]:
                return fn(*args, **kwargs)
            with Count() as c:
                out = fn(*args, **kwargs)
            parts[name] += c.n
            return out

        return inner

    train_step = batch.Batch.train_step

    def step(self, *args):
        counting["step"] += 1
        counting["on"] = counting["step"] == 2
        try:
            if counting["on"]:
                with Count() as c:
                    train_step(self, *args)
                parts["step, all"] = c.n
            else:
                train_step(self, *args)
        finally:
            counting["on"] = False

    patches = [
        (latformer, "mask_from_bases", "forward: masks from actions"),
        (latformer.LatFormer, "actions", "forward: expert actions"),
        (latformer.LatFormerLayer, "forward", "forward: attention layers"),
        (batch.Batch, "losses", "forward, all"),
        (batch.Batch, "_adam", "adam"),
        (batch.Batch, "_new_perms", "colour maps"),
    ]
    with ExitStack() as stack:  # every patch is undone on the way out
        for owner, attribute, name in patches:
            stack.enter_context(patch.object(owner, attribute, counted(name, getattr(owner, attribute))))
        stack.enter_context(patch.object(batch.Batch, "train_step", step))
        tasks = load_many(TASKS)
        works = [(t, SolveConfig(device="cpu", steps=6)) for t in tasks]
        batched.solve_many(works, lambda s: None, len(tasks), side_by_side=True, all_experts=True, graphs=True)
    parts["backward"] = parts["step, all"] - parts["forward, all"] - parts["adam"] - parts["colour maps"]
    return dict(sorted(parts.items()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/op_count.json"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    parts = count_step()
    for name, n in parts.items():
        print(f"{name:30} {n:6}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(orjson.dumps({"tasks": TASKS, "ops": parts}, option=orjson.OPT_INDENT_2))
