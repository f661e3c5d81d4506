"""One fit of the synthetic studies: build the model a `FitKey` names, train it on the task's
training pairs with `arcsolve.latformer.fit.fit`, score it on the 100 test pairs.

Every model, LatFormer and baselines alike, is trained by the one loop `fit` with the same
step budget and colour augmentations; accuracy = the fraction of test pairs predicted exactly
(whole grid), LatFormer with discretised gates. Large training sets are met with minibatches:
`Minibatched` hands the model a random subset of at most `Setting.batch` of the grids `fit`
trains on each step, and evaluates in chunks of that size, so a fit on 2048 pairs of a 30×30
canvas costs what a fit on a few dozen does per step.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from arcsolve.bench.baselines import AttentionBaseline, BaselineConfig, TransformerBaseline
from arcsolve.bench.study_plan import TEST_PAIRS, FitKey, Setting, transform_named
from arcsolve.bench.synthetic_tasks import SyntheticTask, make_task
from arcsolve.latformer.fit import Example, FitConfig, fit
from arcsolve.latformer.model import N_COLOURS, LatFormer, LatFormerConfig


def noisy_embedding(weight: torch.Tensor, grids: torch.Tensor, w: float) -> torch.Tensor:
    """x_noise = (1 − w)·Wᵀ·onehot(x) + w·Wᵀ·1 for every cell: (B, h, w) → (B, h, w, d)."""
    onehot = F.one_hot(grids, N_COLOURS).to(weight)
    return (1 - w) * onehot @ weight + w * weight.sum(0)


class NoisyInput(nn.Module):
    """LatFormer fed the noisy embedding of its input grids (train and test alike)."""

    def __init__(self, model: LatFormer, w: float):
        super().__init__()
        self.model, self.w = model, w

    def forward(self, grids, out_shape, targets=None, cond=None, discrete=False, smooth=False, embedded=None):
        noisy = noisy_embedding(self.model.embed.weight, grids, self.w)
        return self.model(grids, out_shape, targets, cond=cond, discrete=discrete, smooth=smooth, embedded=noisy)


class Minibatched(nn.Module):
    """`model` seeing at most `batch` grids per forward: a random subset of them while training
    (gradients on), every grid in chunks of `batch` otherwise (fit's check that the train pairs
    are reproduced, and scoring)."""

    def __init__(self, model: nn.Module, batch: int, seed: int):
        super().__init__()
        self.model, self.batch = model, batch
        self.generator = torch.Generator().manual_seed(seed)

    def forward(self, grids, out_shape, targets=None, cond=None, discrete=False, smooth=False):
        B = grids.shape[0]
        if B <= self.batch:
            return self.model(grids, out_shape, targets, cond=cond, discrete=discrete, smooth=smooth)
        if torch.is_grad_enabled() and targets is not None:
            pick = torch.randperm(B, generator=self.generator)[: self.batch].to(grids.device)
            return self.model(grids[pick], out_shape, targets[pick], cond=cond, discrete=discrete, smooth=smooth)
        chunks = [
            self.model(grids[i : i + self.batch], out_shape, cond=cond, discrete=discrete, smooth=smooth)[0]
            for i in range(0, B, self.batch)
        ]
        logits = torch.cat(chunks)
        loss = None if targets is None else F.cross_entropy(logits.reshape(-1, N_COLOURS), targets.reshape(-1))
        return logits, loss


@dataclass(frozen=True)
class ModelSpec:
    make: Callable[[], nn.Module]
    fit_config: FitConfig


def model_specs(setting: Setting, w: float | None = None) -> dict[str, ModelSpec]:
    """The six models of Figure 5 with their fit settings (same steps and augmentations);
    with a noise level `w`, LatFormer reads its inputs through `NoisyInput`."""
    base = FitConfig(steps=setting.steps, augmentations=setting.augmentations)
    plain = replace(base, smoothing_loss=False, lr=setting.baseline_lr)
    d = setting.d_model
    side = max(30, setting.canvas)

    def latformer(config: LatFormerConfig) -> Callable[[], nn.Module]:
        return lambda: LatFormer(config) if w is None else NoisyInput(LatFormer(config), w)

    def baseline(cls: type[nn.Module], positional: str, heads: int) -> Callable[[], nn.Module]:
        return lambda: cls(BaselineConfig(d_model=d, n_heads=heads, positional=positional, max_side=side))

    return {
        "latformer": ModelSpec(latformer(LatFormerConfig(d_model=d)), base),
        "latformer-nosmooth": ModelSpec(
            latformer(LatFormerConfig(d_model=d, smoothing=0)), replace(base, smoothing_loss=False)
        ),
        "attention-abs": ModelSpec(baseline(AttentionBaseline, "absolute", 1), plain),
        "attention-rel": ModelSpec(baseline(AttentionBaseline, "relative", 1), plain),
        "transformer-abs": ModelSpec(baseline(TransformerBaseline, "absolute", 4), plain),
        "transformer-rel": ModelSpec(baseline(TransformerBaseline, "relative", 4), plain),
    }


def check_every(n_train: int, batch: int) -> int:
    """Steps between fit's checks that the train pairs are reproduced. A check reads about
    2·n_train grids (the pairs under one colour map besides their own, which is what fit
    uses once pairs are large), a step at most `batch` grids forward and backward (about 3
    forwards); checking every max(10, 8·n_train / (3·batch)) steps keeps checks at a quarter
    of the training cost or less."""
    return max(10, math.ceil(8 * n_train / (3 * batch)))


def to_examples(pairs: Sequence[tuple[np.ndarray, np.ndarray]], device: torch.device | str = "cpu") -> list[Example]:
    return [(torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)) for x, y in pairs]


def accuracy(
    model: nn.Module, pairs: Sequence[tuple[np.ndarray, np.ndarray]], device: torch.device | str = "cpu"
) -> float:
    """Fraction of pairs whose whole output grid is predicted exactly (discretised gates)."""
    model.eval()
    x = torch.from_numpy(np.stack([p[0] for p in pairs])).to(device)
    y = torch.from_numpy(np.stack([p[1] for p in pairs])).to(device)
    with torch.no_grad():
        logits, _ = model(x, tuple(y.shape[1:]), discrete=True)
    return int((logits.argmax(-1) == y).flatten(1).all(1).sum()) / len(pairs)


def build_task(key: FitKey, setting: Setting) -> SyntheticTask:
    """The task of a fit: its training pairs and test pairs drawn with the fit's seed."""
    transform = transform_named(setting, key.category, key.task)
    return make_task(transform, key.examples, setting.canvas, TEST_PAIRS, seed=key.seed)


def train_and_score(key: FitKey, setting: Setting, device: str = "cpu") -> dict:
    """Fit the model `key` names from scratch and score it: a results row (key fields, test
    accuracy, steps taken, whether the train pairs were reproduced, seconds)."""
    task = build_task(key, setting)
    spec = model_specs(setting, key.w)[key.model]
    torch.manual_seed(key.seed)
    model = Minibatched(spec.make(), setting.batch, key.seed).to(device)
    config = replace(spec.fit_config, seed=key.seed, check_every=check_every(key.examples, setting.batch))
    fitted = fit(model, to_examples(task.train, device), config)
    row = {
        **key.__dict__,
        "accuracy": accuracy(model, task.test, device),
        "train_steps": fitted.steps,
        "solved_train": fitted.solved_train,
        "seconds": round(fitted.seconds, 3),
    }
    if torch.device(device).type == "cuda":
        torch.cuda.empty_cache()  # hand the fit's memory back: other worker processes share the GPU
    return row
