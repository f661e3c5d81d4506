"""Batched fitting: many fits advance as one vmapped computation (issue 9).

A *member* is one fit (one task, one restart). Members whose computation has the same shape
(a `signature`: the model's configuration, the shapes of their example groups, the number of
colour maps per step) stack their parameters (`torch.func.stack_module_state`) and take
every step together: one `vmap(functional_call)` forward over the stack, one backward of the
summed losses (members share no parameter, so each gets exactly its own gradient) and one
Adam update with a step count per member. A member leaves the batch as soon as it
reproduces its train pairs, runs out of steps or time, or is cancelled, and a queued member
of the same signature takes its place.

Each member follows the trajectory `arcsolve.fit.fit` would give it (same colour
permutations, same checks, same Adam) up to floating-point rounding: batched matmuls sum in
another order, and Adam's ±lr steps on gradients that are zero up to rounding let two runs
drift apart over many steps. The tests check the first steps to 1e-9 (float64) and that
`solve_many` gives the same rounded-gate answers as `solve`. `solve_many` is
`arcsolve.fit.solve` for a list of tasks: every restart of every task is a member; on a GPU a
task's restarts run side by side (later ones are cancelled once an earlier one succeeds, so
the model kept is the one the sequential loop would keep), on a CPU one after another.
"""

from __future__ import annotations

import copy
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap

from arcsolve.fit import (
    Example,
    FitConfig,
    FitPlan,
    FitResult,
    colour_permutations,
    finish_solve,
    fixed_colours,
    group_by_shape,
    maps_per_step,
    plan_fit,
    recoloured,
    restart_model,
)
from arcsolve.latformer import LatFormer, LatFormerConfig
from arcsolve.solution import Solution, SolveConfig
from arcsolve.tasks import Task


@dataclass(eq=False)
class FitJob:
    """One fit to run: a freshly initialised model and its examples."""

    key: Hashable
    model: nn.Module
    examples: list[Example]
    config: FitConfig
    cond: torch.Tensor | None = None
    seconds: float | None = None  # wall-clock cap, counted from when the job joins a batch
    cancelled: bool = False


def signature(job: FitJob) -> Hashable:
    """Jobs with equal signatures can share a batch: same model, same tensor shapes."""
    groups = tuple((tuple(xs.shape), tuple(ys.shape)) for xs, ys in group_by_shape(job.examples))
    model_config = getattr(job.model, "config", None)
    cond = None if job.cond is None else tuple(job.cond.shape)
    c = job.config
    fit_rules = (c.lr, c.gate_lr, c.check_every, c.smoothing_loss)
    return (type(job.model).__name__, repr(model_config), groups, maps_per_step(job.examples, c), cond, fit_rules)


@dataclass(eq=False)
class _Member:
    job: FitJob
    groups: list[tuple[torch.Tensor, torch.Tensor]]
    fixed: list[int]
    generator: torch.Generator
    check_perms: torch.Tensor
    deadline: float | None
    start: float
    losses: list[float] = field(default_factory=list)  # one per step taken

    @property
    def step(self) -> int:
        return len(self.losses)


class _Batch:
    """The members of one signature, their stacked parameters and Adam state."""

    betas, eps = (0.9, 0.999), 1e-8  # torch.optim.Adam's defaults

    def __init__(self, template: nn.Module, augmentations: int, device: torch.device):
        self.base = copy.deepcopy(template).to("meta")  # the architecture, without weights
        self.augmentations = augmentations
        self.device = device
        self.members: list[_Member] = []
        self.params: dict[str, torch.Tensor] = {}
        self.buffers: dict[str, torch.Tensor] = {}
        self.state: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}  # Adam moments

    def join(self, job: FitJob) -> None:
        """Add a job's model to the stack, with fresh Adam state; its colour maps come from
        generators seeded as in `arcsolve.fit.fit`."""
        fixed = fixed_colours(job.examples)
        check_generator = torch.Generator().manual_seed(-1 - job.config.seed)
        member = _Member(
            job,
            group_by_shape(job.examples),
            fixed,
            torch.Generator().manual_seed(job.config.seed),
            colour_permutations(self.augmentations, fixed, check_generator).to(self.device),
            None if job.seconds is None else time.perf_counter() + job.seconds,
            time.perf_counter(),
        )
        params, buffers = stack_module_state([job.model])
        self.params = self._concat(self.params, params, grad=True)
        self.buffers = self._concat(self.buffers, buffers, grad=False)
        for name, p in params.items():
            zeros = (torch.zeros_like(p), torch.zeros_like(p))
            old = self.state.get(name)
            self.state[name] = zeros if old is None else (torch.cat([old[0], zeros[0]]), torch.cat([old[1], zeros[1]]))
        self.members.append(member)

    @staticmethod
    def _concat(old: dict, new: dict, grad: bool) -> dict:
        out = {}
        for name, tensor in new.items():
            joined = tensor.detach() if name not in old else torch.cat([old[name].detach(), tensor.detach()])
            out[name] = joined.requires_grad_(grad) if grad else joined
        return out

    def leave(self, indices: list[int]) -> None:
        keep = [i for i in range(len(self.members)) if i not in set(indices)]
        index = torch.tensor(keep, dtype=torch.long, device=self.device)
        self.params = {k: v.detach()[index].requires_grad_() for k, v in self.params.items()}
        self.buffers = {k: v[index] for k, v in self.buffers.items()}
        self.state = {k: (m[index], v[index]) for k, (m, v) in self.state.items()}
        self.members = [self.members[i] for i in keep]

    def model_of(self, i: int) -> nn.Module:
        """Member i's parameters, copied back into its own module."""
        model = self.members[i].job.model
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(self.params[name][i])
            for name, b in model.named_buffers():
                b.copy_(self.buffers[name][i])
        return model

    # ------------------------------------------------------------------ the computation

    @staticmethod
    def _stacked_groups(members: list[_Member], perms: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Per group, the members' recoloured pairs: (B, A·n, h, w) and (B, A·n, H, W)."""
        out = []
        for g in range(len(members[0].groups)):
            xs = torch.stack([m.groups[g][0] for m in members])
            ys = torch.stack([m.groups[g][1] for m in members])
            out.append((vmap(recoloured)(perms, xs), vmap(recoloured)(perms, ys)))
        return out

    @staticmethod
    def _conds(members: list[_Member]) -> torch.Tensor | None:
        conds = [m.job.cond for m in members]
        return None if conds[0] is None else torch.stack(conds)

    def _forward(self, params, buffers, xb, out_shape, yb, cond, discrete=False, smooth=False):
        return functional_call(
            self.base, (params, buffers), (xb, out_shape, yb), {"cond": cond, "discrete": discrete, "smooth": smooth}
        )

    def losses(self, smoothing_loss: bool) -> torch.Tensor:
        """One training step's loss per member, (B,), with fresh colour permutations."""
        perms = torch.stack(
            [colour_permutations(self.augmentations, m.fixed, m.generator) for m in self.members]
        ).to(self.device)
        groups = self._stacked_groups(self.members, perms)
        weights = [len(xs) for xs, _ in self.members[0].groups]  # each pair weighs the same

        def member_loss(params, buffers, xbs, ybs, cond):
            loss = 0.0
            for xb, yb, weight in zip(xbs, ybs, weights, strict=True):
                out_shape = tuple(yb.shape[1:])
                loss = loss + weight * self._forward(params, buffers, xb, out_shape, yb, cond)[1]
                if smoothing_loss:
                    loss = loss + weight * self._forward(params, buffers, xb, out_shape, yb, cond, smooth=True)[1]
            return loss

        cond = self._conds(self.members)
        xbs, ybs = [x for x, _ in groups], [y for _, y in groups]
        return vmap(member_loss, in_dims=(0, 0, 0, 0, None if cond is None else 0))(
            self.params, self.buffers, xbs, ybs, cond
        )

    def train_step(self, lrs: dict[str, float], smoothing_loss: bool) -> None:
        """One step for every member: losses, one backward, each member's loss recorded, Adam."""
        losses = self.losses(smoothing_loss)
        losses.sum().backward()
        for m, loss in zip(self.members, losses.tolist(), strict=True):
            m.losses.append(loss)
        self._adam(lrs)

    def _adam(self, lrs: dict[str, float]) -> None:
        """torch.optim.Adam's update, with each member's own step count (members join at any
        time): the number of losses it has recorded, this step's included."""
        steps = torch.tensor([m.step for m in self.members], dtype=torch.float64, device=self.device)
        b1, b2 = self.betas
        with torch.no_grad():
            for name, p in self.params.items():
                m, v = self.state[name]
                g = p.grad
                if g is None:  # a parameter this architecture does not use (torch's Adam skips it too)
                    continue
                m.mul_(b1).add_(g, alpha=1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                shape = (-1,) + (1,) * (p.dim() - 1)
                bias1 = (1 - b1**steps).to(p.dtype).view(shape)
                bias2 = (1 - b2**steps).to(p.dtype).view(shape)
                p.sub_(lrs[name] / bias1 * m / (v.sqrt() / bias2.sqrt() + self.eps))
                p.grad = None

    def reproduced(self, indices: list[int]) -> list[bool]:
        """Do these members, with discretised gates, reproduce their pairs under their check maps?"""
        members = [self.members[i] for i in indices]
        index = torch.tensor(indices, dtype=torch.long, device=self.device)
        params = {k: v.detach()[index] for k, v in self.params.items()}
        buffers = {k: v[index] for k, v in self.buffers.items()}
        ok = torch.ones(len(members), dtype=torch.bool, device=self.device)
        perms = torch.stack([m.check_perms for m in members])
        cond = self._conds(members)
        with torch.no_grad():
            for xb, yb in self._stacked_groups(members, perms):
                out_shape = tuple(yb.shape[2:])

                def member_logits(params, buffers, x, c, out_shape=out_shape):
                    return self._forward(params, buffers, x, out_shape, None, c, discrete=True)[0]

                logits = vmap(member_logits, in_dims=(0, 0, 0, None if cond is None else 0))(params, buffers, xb, cond)
                ok &= (logits.argmax(-1) == yb).flatten(1).all(1)
        return ok.tolist()


def fit_many(
    jobs: Iterable[FitJob],
    on_done: Callable[[FitJob, nn.Module, FitResult], Iterable[FitJob]],
    capacity: int = 16,
) -> None:
    """Fit every job, up to `capacity` members per batch. `on_done(job, model, result)` is
    called as each job finishes (not for cancelled ones); the jobs it returns are queued too
    (follow-ups join a running batch when their signature matches)."""
    queues: dict[Hashable, deque[FitJob]] = {}

    def enqueue(new: Iterable[FitJob]) -> None:
        for job in new:
            queues.setdefault(signature(job), deque()).append(job)

    enqueue(jobs)
    while queues:
        key = next(iter(queues))
        _run_signature(queues, key, capacity, lambda j, m, r: enqueue(on_done(j, m, r)))


def _run_signature(queues: dict[Hashable, deque[FitJob]], key: Hashable, capacity: int, finished: Callable) -> None:
    """Run the batch of one signature until its queue is empty and every member has left."""
    first = queues[key][0]
    device = first.examples[0][0].device
    batch = _Batch(first.model, maps_per_step(first.examples, first.config), device)
    lrs = {n: first.config.gate_lr if "gate" in n else first.config.lr for n, _ in first.model.named_parameters()}
    while True:
        queue = queues[key]  # finished() may queue follow-ups here while the batch runs
        while queue and len(batch.members) < capacity:
            job = queue.popleft()
            if not job.cancelled:
                batch.join(job)
        if not batch.members:
            del queues[key]
            return
        batch.train_step(lrs, first.config.smoothing_loss)
        now = time.perf_counter()
        out_of_time = [m.deadline is not None and now > m.deadline for m in batch.members]
        due = [
            m.step % m.job.config.check_every == 0 or m.step == m.job.config.steps or late
            for m, late in zip(batch.members, out_of_time, strict=True)
        ]
        checked = [i for i, d in enumerate(due) if d]  # only the members due a check pay for one
        solved = dict(zip(checked, batch.reproduced(checked), strict=True)) if checked else {}
        leaving = []
        for i, m in enumerate(batch.members):
            ok = solved.get(i, False)
            if m.job.cancelled:
                leaving.append(i)
            elif ok or out_of_time[i] or m.step >= m.job.config.steps:
                leaving.append(i)
                finished(m.job, batch.model_of(i), FitResult(m.step, ok, time.perf_counter() - m.start, m.losses))
        if leaving:
            batch.leave(leaving)


# ---------------------------------------------------------------------------- many tasks


@dataclass(eq=False)
class _TaskRun:
    plan: FitPlan
    start: float
    results: dict[int, tuple[nn.Module, FitResult]] = field(default_factory=dict)
    jobs: list[FitJob] = field(default_factory=list)
    reported: bool = False


def solve_many(
    tasks: list[tuple[Task, SolveConfig]],
    on_solution: Callable[[Solution], None],
    capacity: int = 16,
    model_config: Callable[[SolveConfig], LatFormerConfig | None] = lambda config: None,
    restarts: int = 3,
    side_by_side: bool | None = None,
) -> None:
    """`arcsolve.fit.solve` for many tasks, fitted in batches; `on_solution` is called as
    each task is done. Each restart is a member with the same step budget, seed and initial
    gates as in `fit_with_restarts`; the first restart (in order) that reproduces the train
    pairs wins, else the lowest final loss, exactly as there.

    `side_by_side`: run a task's restarts at once (the default on a GPU, where a few more
    members cost almost nothing) or each only after the previous one failed (the default on
    a CPU, where every member costs its full compute and restart 0 usually suffices)."""
    runs: dict[str, _TaskRun] = {}
    jobs = []
    follow_ups: dict[FitJob, FitJob] = {}
    for task, config in tasks:
        start = time.perf_counter()
        plan = plan_fit(task, config, model_config(config), None, LatFormer)
        if plan is None:
            on_solution(Solution(task.id, [], time.perf_counter() - start))
            continue
        run = _TaskRun(plan, start)
        per_run = max(1, config.steps // restarts)
        for r in range(restarts):
            model = restart_model(plan.make_model, r, config.seed)
            fit_config = FitConfig(steps=per_run, seed=config.seed + r)
            run.jobs.append(FitJob((task.id, r), model, plan.examples, fit_config, None, config.fit_seconds))
        runs[task.id] = run
        together = plan.device.type == "cuda" if side_by_side is None else side_by_side
        jobs.extend(run.jobs if together else run.jobs[:1])
        if not together:
            follow_ups.update(zip(run.jobs, run.jobs[1:], strict=False))  # restart r+1 after r

    def done(job: FitJob, model: nn.Module, result: FitResult) -> list[FitJob]:
        task_id, r = job.key
        run = runs[task_id]
        run.results[r] = (model, result)
        if result.solved_train:
            for later in run.jobs[r + 1 :]:
                later.cancelled = True
        decided = None if run.reported else _decision(run, restarts)
        if decided is not None:
            run.reported = True
            on_solution(finish_solve(run.plan, *decided, run.start))
        after = follow_ups.get(job)
        return [after] if after is not None and not run.reported else []

    fit_many(jobs, done, capacity)


def _decision(run: _TaskRun, restarts: int) -> tuple[nn.Module, FitResult] | None:
    """The restart the sequential loop would keep, once it is known; None while it is not."""
    for r in range(restarts):
        if r not in run.results:
            return None
        model, result = run.results[r]
        if result.solved_train:
            return model, _total(run, r, result)
    best = min(range(restarts), key=lambda r: run.results[r][1].losses[-1])
    return run.results[best][0], _total(run, restarts - 1, run.results[best][1])


def _total(run: _TaskRun, last: int, kept: FitResult) -> FitResult:
    steps = sum(run.results[r][1].steps for r in range(last + 1))
    seconds = sum(run.results[r][1].seconds for r in range(last + 1))
    return FitResult(steps, kept.solved_train, seconds, kept.losses)


def solve_many_colour(
    tasks: list[tuple[Task, SolveConfig]], on_solution: Callable[[Solution], None], capacity: int = 16
) -> None:
    """`arcsolve.fit.solve_colour` for many tasks: colour attention with β = config.beta."""
    solve_many(tasks, on_solution, capacity, lambda config: LatFormerConfig(beta=config.beta))
