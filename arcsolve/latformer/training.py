"""The per-task fitting loop: one model-agnostic loop (Adam, colour-permutation
augmentation, early stop once the train pairs are reproduced with discretised gates).

Any model with `forward(grids, out_shape, targets, cond=, discrete=, smooth=) -> (logits,
loss)` can be fitted: LatFormer, its colour-attention and NL variants, and the baselines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from arcsolve.devices import to_device
from arcsolve.latformer.model import N_COLOURS

BACKGROUND = 0
Example = tuple[torch.Tensor, torch.Tensor]  # input (h, w), output (H, W), colour indices


@dataclass(frozen=True)
class FitConfig:
    steps: int = 300
    lr: float = 0.02
    gate_lr: float = 0.15  # gates must travel several logits; the rest of the model very little
    augmentations: int = 10  # colour permutations per step (paper, Appendix B.2)
    cells_per_step: int = 12_000  # cap on augmented cells per step: big grids get fewer permutations
    check_every: int = 10
    seed: int = 0
    smoothing_loss: bool = True  # §4.2: add the cross-entropy under the smoothed mask
    # fit with rounded gates: the experts stay at the exact actions they start at (an exact
    # restart's) and only the rest of the model learns; no smoothing loss then, since a
    # smoothed mask reads neighbours that the rounded one never reads
    rounded_gates: bool = False
    # colours the colour permutations leave alone; None: those a pair adds or removes
    # (`fixed_colours`). An exact restart knows better from its heads' readings.
    fixed: tuple[int, ...] | None = None

    def lr_for(self, name: str) -> float:
        """The learning rate of the parameter called `name`."""
        return self.gate_lr if is_gate(name) else self.lr


def is_gate(name: str) -> bool:
    """Is the parameter called `name` a gate's logits (trained at FitConfig.gate_lr: gates must
    travel several logits, the rest of the model very little)?"""
    return "gate" in name


@dataclass
class FitResult:
    steps: int
    solved_train: bool
    seconds: float
    losses: list[float] = field(default_factory=list)
    cut_short: bool = False  # stopped by its time cap before its steps were taken

    def final_loss(self) -> float:
        return self.losses[-1] if self.losses else float("inf")


def fixed_colours(examples: list[Example]) -> list[int]:
    """Colours a permutation must leave alone: those a pair adds or removes.

    A pure lattice transformation moves colours without changing them, so permuting them
    changes nothing; a colour a pair introduces (or erases) is part of the task's rule. The
    background (colour 0) stays too: a cell that reads nothing (a shift with fill) takes it."""
    fixed: set[int] = {BACKGROUND}
    for x, y in examples:
        xs, ys = set(x.unique().tolist()), set(y.unique().tolist())
        fixed |= xs ^ ys
    return sorted(fixed)


def colour_permutations(n: int, fixed: list[int], generator: torch.Generator) -> torch.Tensor:
    """(n + 1, 10) colour maps: the identity, then n random permutations of the free colours."""
    free = torch.tensor([c for c in range(N_COLOURS) if c not in fixed], dtype=torch.long)
    perms = torch.arange(N_COLOURS).repeat(n + 1, 1)
    for i in range(1, n + 1):
        perms[i, free] = free[torch.randperm(len(free), generator=generator)]
    return perms


def group_by_shape(examples: list[Example]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Stack pairs whose input and output shapes agree: (n, h, w) and (n, H, W) per group,
    so a task whose pairs share a shape costs one batched forward instead of one per pair."""
    groups: dict[tuple, list[Example]] = {}
    for x, y in examples:
        groups.setdefault((tuple(x.shape), tuple(y.shape)), []).append((x, y))
    return [(torch.stack([x for x, _ in g]), torch.stack([y for _, y in g])) for g in groups.values()]


def maps_per_step(examples: list[Example], config: FitConfig) -> int:
    """Colour permutations per step: config.augmentations, fewer when the pairs are large so
    that a step holds at most config.cells_per_step augmented cells (at least one map)."""
    cells = sum(x.numel() + y.numel() for x, y in examples)
    return min(config.augmentations, max(1, config.cells_per_step // cells - 1))


def recoloured(perms: torch.Tensor, grids: torch.Tensor) -> torch.Tensor:
    """(A, 10) colour maps applied to (n, h, w) grids: (A·n, h, w), the same map per pair."""
    return perms[:, grids].flatten(0, 1)


def reproduces(
    model: nn.Module, groups: list[tuple[torch.Tensor, torch.Tensor]], perms: torch.Tensor, cond=None
) -> bool:
    """Does the model with discretised gates reproduce every pair exactly, under each of the
    colour maps `perms`? Checking recoloured pairs too means an early stop only happens once
    the model handles colours generically, not just the ones the train pairs happen to use."""
    with torch.no_grad():
        for xs, ys in groups:
            logits, _ = model(recoloured(perms, xs), tuple(ys.shape[1:]), cond=cond, discrete=True)
            if not torch.equal(logits.argmax(-1), recoloured(perms, ys)):
                return False
    return True


def fit(
    model: nn.Module,
    examples: list[Example],
    config: FitConfig,
    cond: torch.Tensor | None = None,
    on_step: Callable[[int, float], None] | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> FitResult:
    """Train `model` from scratch on `examples`; stop early once they are reproduced, or
    before `deadline` (a `clock()` value) if one is given: a step is begun only when it and
    one more (the last check and the predictions) fit before it. With `config.steps` 0, the
    model (built to compute its rule) is only checked."""
    start = clock()
    torch.manual_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    gates = [p for name, p in model.named_parameters() if is_gate(name)]
    others = [p for name, p in model.named_parameters() if not is_gate(name)]
    param_groups = [{"params": others, "lr": config.lr}]
    if not config.rounded_gates:  # rounded gates get no gradient
        param_groups.append({"params": gates, "lr": config.gate_lr})
    optimizer = torch.optim.Adam(param_groups)
    fixed = fixed_colours(examples) if config.fixed is None else list(config.fixed)
    groups = group_by_shape(examples)
    augmentations = maps_per_step(examples, config)
    device = examples[0][0].device
    check_perms = colour_permutations(augmentations, fixed, torch.Generator().manual_seed(-1 - config.seed)).to(device)
    losses: list[torch.Tensor] = []  # read back only when the fit ends: a read waits for the device

    def result(step: int, solved: bool, cut: bool = False) -> FitResult:
        return FitResult(step, solved, clock() - start, torch.stack(losses).tolist() if losses else [], cut)

    if config.steps == 0:  # a model built to compute its rule: only checked
        return result(0, reproduces(model, groups, check_perms, cond))
    model.train()
    step_cost = 0.0
    for step in range(1, config.steps + 1):
        began = clock()
        if deadline is not None and began + 2 * step_cost > deadline:
            return result(step - 1, step > 1 and reproduces(model, groups, check_perms, cond), cut=True)
        perms = to_device(colour_permutations(augmentations, fixed, generator), device)
        loss = torch.zeros((), device=perms.device)
        for xs, ys in groups:
            xb, yb = recoloured(perms, xs), recoloured(perms, ys)  # (A·n, h, w), (A·n, H, W)
            out_shape, weight = tuple(ys.shape[1:]), len(xs)  # each pair weighs the same
            _, plain = model(xb, out_shape, yb, cond=cond, discrete=config.rounded_gates)
            loss = loss + weight * plain
            if config.smoothing_loss and not config.rounded_gates:
                _, smoothed = model(xb, out_shape, yb, cond=cond, smooth=True)
                loss = loss + weight * smoothed
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        if on_step is not None:
            on_step(step, loss.item())
        step_cost = clock() - began
        if step % config.check_every == 0 or step == config.steps:
            if reproduces(model, groups, check_perms, cond):
                return result(step, True)
    return result(config.steps, False)


def restart_model(make_model: Callable[[], nn.Module], restart: int, seed: int, jitter: float = 0.5) -> nn.Module:
    """A fresh model for restart r (seeded with seed + r): odd restarts start every gate
    near "off" (the identity action), even ones at the model's own initial gates; restarts
    after the second are jittered by N(0, jitter²), the gates of switched-off experts
    excepted (so a model with every expert, some switched off, draws the same noise for
    its live gates as a model built with only those experts)."""
    torch.manual_seed(seed + restart)
    model = make_model()
    if restart > 0:
        with torch.no_grad():
            for name, param in model.named_parameters():
                if name.endswith("gate_bias"):
                    if restart % 2:
                        param.fill_(-3.0)
                    if restart > 1:
                        on = model.get_buffer(name.removesuffix("gate_bias") + "gate_on").bool()
                        noise = torch.randn(int(on.sum()), device=param.device, dtype=param.dtype)
                        param[on] += noise * jitter
    return model
