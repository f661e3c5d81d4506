"""What the sample-efficiency study (paper §5.1, Figure 5) and the noise study (Appendix B.4,
Table 4) fit: their settings, and the list of fits each one is made of.

A study is a list of `FitKey`s (model, category, task, training examples, seed, noise level);
each fit trains one fresh model on one task and scores it on the task's 100 test pairs. The
list is ordered seed first, so a study cut short still holds whole curves for its first
seeds.

Three settings:
  * PAPER: the paper's protocol (Appendix B.1): 30×30 canvas, 1, 2, 4, …, 2048 training
    examples, 100 test pairs, 10 tasks per category (all 3 rotations, all 4 reflections),
    3 seeds, the step budget `solve` uses for every model. Sized for a GPU.
  * CPU: the reduced scale a 2-core CPU finishes in about an hour (10×10 canvas, 1–8
    examples, one task per category, 100 steps).
  * QUICK: a few minutes on a CPU (10×10, 1 and 2 examples, 30 steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from arcsolve.bench.synthetic_tasks import CATEGORIES, Transform, sample_transforms
from arcsolve.errors import ArcsolveError
from arcsolve.solution import SolveConfig

MODELS = (
    "latformer",
    "latformer-nosmooth",
    "attention-abs",
    "attention-rel",
    "transformer-abs",
    "transformer-rel",
)
TEST_PAIRS = 100
NOISE_LEVELS = (0.2, 0.4, 0.6)  # Table 4
NOISE_EXAMPLES = 32


@dataclass(frozen=True)
class Setting:
    """Everything that decides a study's numbers (recorded next to them)."""

    name: str  # "paper", "cpu", "quick"; "custom" once an option changes one of its fields
    canvas: int
    examples: tuple[int, ...]
    tasks_per_category: int
    seeds: int  # replicates: seeds seed, seed + 1, …
    steps: int  # optimiser steps per fit, the same for every model
    augmentations: int  # colour permutations per step, as in fit (the paper uses 10)
    batch: int = 32  # at most this many grids per training forward: minibatches over large sets
    baseline_lr: float = 0.003  # Adam on attention/Transformer weights; LatFormer keeps fit's defaults
    d_model: int = 32
    seed: int = 0  # picks the tasks (shifts, scaling factors) and the first replicate

    def seed_list(self) -> list[int]:
        return [self.seed + i for i in range(self.seeds)]


PAPER = Setting(
    "paper",
    canvas=30,
    examples=tuple(2**i for i in range(12)),  # 1 … 2048
    tasks_per_category=10,
    seeds=3,
    steps=SolveConfig().steps,
    augmentations=10,
)
CPU = Setting("cpu", canvas=10, examples=(1, 2, 4, 8), tasks_per_category=1, seeds=1, steps=100, augmentations=10)
QUICK = Setting("quick", canvas=10, examples=(1, 2), tasks_per_category=1, seeds=1, steps=30, augmentations=2)
SETTINGS = {s.name: s for s in (PAPER, CPU, QUICK)}
PROTOCOL_FIELDS = tuple(f.name for f in fields(Setting) if f.name not in ("name", "seed"))


def choose_setting(name: str, **given) -> Setting:
    """The named setting with every given value that is not None put in its place; the name
    becomes "custom" when that changes any field of the protocol."""
    if name not in SETTINGS:
        raise ArcsolveError(f"unknown setting {name!r}: choose one of {', '.join(SETTINGS)}")
    base = SETTINGS[name]
    chosen = replace(base, **{k: tuple(v) if k == "examples" else v for k, v in given.items() if v is not None})
    if any(getattr(chosen, f) != getattr(base, f) for f in PROTOCOL_FIELDS):
        chosen = replace(chosen, name="custom")
    return chosen


def is_paper_scale(setting: Setting) -> bool:
    """Does the setting match the paper's protocol on every field that decides the numbers?"""
    return all(getattr(setting, f) == getattr(PAPER, f) for f in PROTOCOL_FIELDS)


def describe(setting: Setting) -> dict:
    return {**asdict(setting), "paper_scale": is_paper_scale(setting), "test_pairs": TEST_PAIRS}


@dataclass(frozen=True, order=True)
class FitKey:
    """One fit of a study: a fresh `model` trained on `examples` pairs of `task`."""

    seed: int
    examples: int
    category: str
    task: str
    model: str
    w: float | None = None  # noise level (Table 4); None: clean inputs

    def label(self) -> str:
        noise = "" if self.w is None else f" w={self.w}"
        return f"seed {self.seed} {self.category:<11} {self.task:<12} n={self.examples:<4} {self.model:<18}{noise}"


def check_names(models: Sequence[str], categories: Sequence[str]) -> None:
    unknown = [m for m in models if m not in MODELS] + [c for c in categories if c not in CATEGORIES]
    if unknown:
        raise ArcsolveError(f"unknown model or category: {', '.join(unknown)}")


def study_tasks(setting: Setting, categories: Sequence[str]) -> dict[str, list[Transform]]:
    """The tasks of each category, drawn once with the setting's seed (the same for every
    replicate, so the seeds replicate the fits of one set of tasks). Every category is drawn,
    in CATEGORIES order, so a category's tasks do not depend on which others are studied."""
    rng = np.random.default_rng(setting.seed)
    drawn = {c: sample_transforms(c, setting.tasks_per_category, setting.canvas, rng) for c in CATEGORIES}
    return {c: drawn[c] for c in categories}


def figure5_plan(setting: Setting, categories: Sequence[str], models: Sequence[str]) -> list[FitKey]:
    """Every fit of Figure 5: models × tasks × training-set sizes × seeds, seed first."""
    check_names(models, categories)
    tasks = study_tasks(setting, categories)
    return [
        FitKey(seed, n, c, t.name, m)
        for seed in setting.seed_list()
        for n in setting.examples
        for c in categories
        for t in tasks[c]
        for m in models
    ]


def table4_plan(setting: Setting, categories: Sequence[str], levels: Sequence[float] = NOISE_LEVELS) -> list[FitKey]:
    """Every fit of Table 4: LatFormer on NOISE_EXAMPLES pairs of each task, per noise level and seed."""
    check_names((), categories)
    tasks = study_tasks(setting, categories)
    return [
        FitKey(seed, NOISE_EXAMPLES, c, t.name, "latformer", w)
        for seed in setting.seed_list()
        for c in categories
        for t in tasks[c]
        for w in levels
    ]


def transform_named(setting: Setting, category: str, name: str) -> Transform:
    """The task called `name` in the study's draw for `category`."""
    for t in study_tasks(setting, (category,))[category]:
        if t.name == name:
            return t
    raise ArcsolveError(f"no task {name!r} in the {category} tasks of this setting")
