"""Per-task fitting: one model-agnostic loop (Adam, colour-permutation augmentation, early
stop once the train pairs are reproduced with discretised gates), and `solve` for LatFormer.

Any model with `forward(grids, out_shape, targets, cond=, discrete=, smooth=) -> (logits,
loss)` can be fitted: LatFormer, its colour-attention and NL variants, and the baselines.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from arcsolve.devices import resolve_device, to_device
from arcsolve.latformer.experts import EXPERTS, SCALE_FACTORS
from arcsolve.latformer.model import N_COLOURS, LatFormer, LatFormerConfig
from arcsolve.latformer.sizing import Shape, SizeRule, infer_size_rule
from arcsolve.solution import Candidate, Solution, SolveConfig
from arcsolve.symmetry import DIHEDRAL, ELEMENT_NAMES
from arcsolve.tasks import Grid, Task

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


def fixed_colours(examples: list[Example]) -> list[int]:
    """Colours a permutation must leave alone: those a pair adds or removes.

    A pure lattice transformation moves colours without changing them, so permuting them
    changes nothing; a colour a pair introduces (or erases) is part of the task's rule."""
    fixed: set[int] = set()
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
) -> FitResult:
    """Train `model` from scratch on `examples`; stop early once they are reproduced, or at
    `deadline` (a time.perf_counter() value) if one is given."""
    start = time.perf_counter()
    torch.manual_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    gates = [p for name, p in model.named_parameters() if is_gate(name)]
    others = [p for name, p in model.named_parameters() if not is_gate(name)]
    optimizer = torch.optim.Adam([{"params": others, "lr": config.lr}, {"params": gates, "lr": config.gate_lr}])
    fixed = fixed_colours(examples)
    groups = group_by_shape(examples)
    augmentations = maps_per_step(examples, config)
    device = examples[0][0].device
    check_perms = colour_permutations(augmentations, fixed, torch.Generator().manual_seed(-1 - config.seed)).to(device)
    losses: list[torch.Tensor] = []  # read back only when the fit ends: a read waits for the device

    def result(step: int, solved: bool) -> FitResult:
        return FitResult(step, solved, time.perf_counter() - start, torch.stack(losses).tolist())

    model.train()
    for step in range(1, config.steps + 1):
        perms = to_device(colour_permutations(augmentations, fixed, generator), device)
        loss = torch.zeros((), device=perms.device)
        for xs, ys in groups:
            xb, yb = recoloured(perms, xs), recoloured(perms, ys)  # (A·n, h, w), (A·n, H, W)
            out_shape, weight = tuple(ys.shape[1:]), len(xs)  # each pair weighs the same
            _, plain = model(xb, out_shape, yb, cond=cond)
            loss = loss + weight * plain
            if config.smoothing_loss:
                _, smoothed = model(xb, out_shape, yb, cond=cond, smooth=True)
                loss = loss + weight * smoothed
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        if on_step is not None:
            on_step(step, loss.item())
        out_of_time = deadline is not None and time.perf_counter() > deadline
        if step % config.check_every == 0 or step == config.steps or out_of_time:
            if reproduces(model, groups, check_perms, cond):
                return result(step, True)
        if out_of_time:
            return result(step, False)
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


def fit_with_restarts(
    make_model: Callable[[], nn.Module],
    examples: list[Example],
    steps: int,
    seed: int,
    cond: torch.Tensor | None = None,
    on_step: Callable[[int, float], None] | None = None,
    restarts: int = 3,
    jitter: float = 0.5,
    seconds: float | None = None,
) -> tuple[nn.Module, FitResult]:
    """Split the step budget over fresh models (`restart_model`); keep the first that
    reproduces the train pairs, or else the one with the lowest final loss.

    Gradient descent on products of gates can settle on a wrong combination of actions
    (a local minimum); a restart from other gate logits usually escapes it more cheaply than
    more steps would. With `seconds`, restart r must finish by (r + 1)/restarts of it."""
    per_run = max(1, steps // restarts)
    begin = time.perf_counter()
    done, best, total = 0, None, 0.0
    for r in range(restarts):
        model = restart_model(make_model, r, seed, jitter)
        offset = done
        deadline = None if seconds is None else begin + seconds * (r + 1) / restarts
        result = fit(
            model,
            examples,
            FitConfig(steps=per_run, seed=seed + r),
            cond,
            (lambda s, loss, offset=offset: on_step(offset + s, loss)) if on_step else None,
            deadline,
        )
        done += result.steps
        total += result.seconds
        if best is None or result.solved_train or result.losses[-1] < best[1].losses[-1]:
            best = (model, result)
        if result.solved_train:
            break
    model, result = best
    return model, FitResult(done, result.solved_train, total, result.losses)


def predict(
    model: nn.Module, grid: Grid, out_shape: tuple[int, int], device: torch.device, cond=None, discrete: bool = True
) -> Grid:
    x = torch.tensor(grid.to_numpy(), device=device)
    with torch.no_grad():
        logits, _ = model(x[None], out_shape, cond=cond, discrete=discrete)
    return Grid.from_numpy(logits[0].argmax(-1).cpu().numpy())


def task_examples(task: Task, device: torch.device) -> list[Example]:
    return [
        (torch.tensor(p.input.to_numpy(), device=device), torch.tensor(p.output.to_numpy(), device=device))
        for p in task.train
    ]


def _wraps_past_edge(n_out: int, n_in: int, factor: int, down: bool) -> bool:
    """Does scaling n_out cells by `factor` read past the n_in input cells (so that how the
    lattice wraps, cyclically or mirrored, changes the result)?"""
    last = n_out * factor - 1 if down else (n_out - 1) // factor
    return last >= n_in


def describe_actions(model: LatFormer, shapes: Sequence[tuple[Shape, Shape]] = ()) -> str:
    """The action each layer performs with discretised gates, in words (for --explain).

    `shapes`: the (input, output) shapes the model is applied to; mirror-wrapping an axis is
    mentioned only if it changes the result for one of them (all of them when none are given)."""
    parts = []
    for i, layer in enumerate(model.layers):
        with torch.no_grad():
            acts = layer.experts.actions(None, discrete=True)
        span = (len(acts.shift_rows) - 1) // 2
        words = []
        dihedral = int(acts.dihedral.argmax())
        if dihedral:
            words.append(ELEMENT_NAMES[dihedral])
        f_r = SCALE_FACTORS[int(acts.scale_rows.argmax())]
        f_c = SCALE_FACTORS[int(acts.scale_cols.argmax())]
        down = bool(acts.down > 0.5)
        if (f_r, f_c) != (1, 1):
            words.append(f"{'down' if down else 'up'}-scale {f_r}x{f_c}")
        shift = (int(acts.shift_rows.argmax()) - span, int(acts.shift_cols.argmax()) - span)
        transposed = DIHEDRAL[dihedral][0] == 1  # output rows read input columns
        layer_shapes = [(inp if i == 0 else out, out) for inp, out in shapes]
        mirrored = []
        for axis, p, f in (("rows", acts.mirror_rows, f_r), ("columns", acts.mirror_cols, f_c)):
            if p is None or p <= 0.5:
                continue
            out_axis = 0 if axis == "rows" else 1
            in_axis = 1 - out_axis if transposed else out_axis
            if not layer_shapes or any(
                _wraps_past_edge(out[out_axis], inp[in_axis], f, down) for inp, out in layer_shapes
            ):
                mirrored.append(axis)
        if mirrored:
            words.append(f"mirror-wrap {' and '.join(mirrored)}")
        if shift != (0, 0):
            words.append(f"shift {shift[0]:+d},{shift[1]:+d}")
        parts.append(f"layer {i}: {', then '.join(words) if words else 'identity'}")
    return "; ".join(parts)


@dataclass
class FitPlan:
    """Everything `solve` decides about a task before fitting: the output size rule, the
    model (config and factory, with the experts its priors allow), the examples, the device."""

    task: Task
    rule: SizeRule
    make_model: Callable[[], nn.Module]
    examples: list[Example]
    device: torch.device
    cond: torch.Tensor | None
    model_config: LatFormerConfig  # what make_model builds from, its experts chosen by the priors


def plan_fit(
    task: Task,
    config: SolveConfig,
    model_config: LatFormerConfig | None = None,
    cond: torch.Tensor | None = None,
    make_model: Callable[[LatFormerConfig], nn.Module] = LatFormer,
) -> FitPlan | None:
    """The plan for fitting `task`, or None when no output size rule fits its train pairs."""
    rule = infer_size_rule([(p.input.shape, p.output.shape) for p in task.train])
    if rule is None:
        return None
    device = resolve_device(config.device)
    experts = tuple(e for e in EXPERTS if config.priors is None or e in config.priors) or ("translate",)
    base = model_config or LatFormerConfig()
    model_config = LatFormerConfig(**{**base.__dict__, "experts": experts})
    return FitPlan(
        task,
        rule,
        lambda: make_model(model_config).to(device),
        task_examples(task, device),
        device,
        cond.to(device) if cond is not None else None,
        model_config,
    )


def finish_solve(
    plan: FitPlan,
    model: nn.Module,
    result: FitResult,
    start: float,
    source: str = "latformer",
    describe: Callable[[nn.Module, Sequence[tuple[Shape, Shape]]], str] = describe_actions,
) -> Solution:
    """Predict the test outputs of a fitted model: attempt 1 with rounded gates, attempt 2
    with the soft ones."""
    task, device, cond = plan.task, plan.device, plan.cond
    model.eval()
    shapes = [plan.rule(p.input.shape) for p in task.test]
    hard = tuple(predict(model, p.input, s, device, cond) for p, s in zip(task.test, shapes, strict=True))
    soft = tuple(
        predict(model, p.input, s, device, cond, discrete=False) for p, s in zip(task.test, shapes, strict=True)
    )
    applied = [(p.input.shape, p.output.shape) for p in task.train]
    applied += [(p.input.shape, s) for p, s in zip(task.test, shapes, strict=True)]
    detail = f"{source} ({describe(model, applied)}; size {plan.rule.name}; {result.steps} steps)"
    candidates = [
        Candidate(hard, source, result.solved_train, score=1.0, detail=detail),
        Candidate(soft, source, False, score=0.5, detail=f"{source}, soft gates"),
    ]
    return Solution(task.id, candidates, time.perf_counter() - start)


def solve(
    task: Task,
    config: SolveConfig,
    model_config: LatFormerConfig | None = None,
    cond: torch.Tensor | None = None,
    on_step: Callable[[int, float], None] | None = None,
    make_model: Callable[[LatFormerConfig], nn.Module] = LatFormer,
    source: str = "latformer",
    describe: Callable[[nn.Module, Sequence[tuple[Shape, Shape]]], str] = describe_actions,
) -> Solution:
    """Fit a fresh LatFormer (or `make_model(config)`, a variant) on the task's train pairs and
    predict its test outputs (`finish_solve`)."""
    start = time.perf_counter()
    plan = plan_fit(task, config, model_config, cond, make_model)
    if plan is None:
        return Solution(task.id, [], time.perf_counter() - start)
    model, result = fit_with_restarts(
        plan.make_model, plan.examples, config.steps, config.seed, plan.cond, on_step, seconds=config.fit_seconds
    )
    return finish_solve(plan, model, result, start, source, describe)


def solve_colour(task: Task, config: SolveConfig, on_step: Callable[[int, float], None] | None = None) -> Solution:
    """LatFormer with colour attention on the values (mixing weight β = config.beta)."""
    return solve(task, config, LatFormerConfig(beta=config.beta), on_step=on_step)
