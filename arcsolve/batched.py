"""Batched fitting: many fits advance as one vmapped computation (issue 9).

A *member* is one fit (one task, one restart). Members of one `signature` (the model's
configuration, the number of colour maps per step, the canvas sides their lattices are
padded to) stack their parameters (`torch.func.stack_module_state`) and take every step
together, whatever their grid shapes: every train pair of every member sits on an S×S
canvas with its own lattice kernels (`arcsolve.latformer.lattices`; padded cells get zero
mask rows and columns and no loss), and one `vmap(functional_call)` forward runs over all
the pairs with their members' parameters gathered in. Then one backward of the summed
losses (members share no parameter, so each gets exactly its own gradient) and one Adam
update with a step count per member. A member leaves the batch as soon as it
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
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, stack_module_state, vmap
from torch.nn.utils import parameters_to_vector
from torch.utils._pytree import tree_flatten, tree_unflatten

from arcsolve.experts import EXPERTS
from arcsolve.fit import (
    Example,
    FitConfig,
    FitPlan,
    FitResult,
    colour_permutations,
    finish_solve,
    fixed_colours,
    maps_per_step,
    plan_fit,
    restart_model,
    to_device,
)
from arcsolve.latformer import LatFormer, LatFormerConfig, Lattices, lattices
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


# Lattices are padded to the next of these sides. On a CPU every padded cell costs real
# compute, so the sides are close together and inputs and outputs are padded apart. On a GPU
# a small step costs its kernel launches, not its cells, so a few large canvases, one side
# for inputs and outputs alike, let far more tasks share a batch.
CANVAS_SIDES = (4, 6, 8, 10, 12, 15, 20, 25, 30)
GPU_CANVAS_SIDES = (10, 15, 20, 30)


def canvas_side(n: int, sides: tuple[int, ...] = CANVAS_SIDES) -> int:
    """The canvas side a lattice side of n cells is padded to."""
    return next((side for side in sides if side >= n), n)


def canvas(examples: list[Example]) -> tuple[int, int]:
    """(S_out, S_in): the canvas sides of a job's output and input lattices (one side for
    both when the examples are on a GPU)."""
    out_side, in_side = max(max(y.shape) for _, y in examples), max(max(x.shape) for x, _ in examples)
    if examples[0][0].device.type == "cuda":
        side = canvas_side(max(out_side, in_side), GPU_CANVAS_SIDES)
        return side, side
    return canvas_side(out_side), canvas_side(in_side)


def signature(job: FitJob) -> Hashable:
    """Jobs with equal signatures can share a batch: same model and fitting rules, the same
    number of colour maps per step and the same canvas sides; the grids may differ in shape."""
    model_config = getattr(job.model, "config", None)
    cond = None if job.cond is None else tuple(job.cond.shape)
    c = job.config
    fit_rules = (c.lr, c.gate_lr, c.check_every, c.smoothing_loss)
    maps = maps_per_step(job.examples, c)
    return (type(job.model).__name__, repr(model_config), canvas(job.examples), maps, cond, fit_rules)


def _pad(grid: torch.Tensor, side: int) -> torch.Tensor:
    """A grid in the top-left corner of a side × side canvas of zeros."""
    out = grid.new_zeros(side, side)
    out[: grid.shape[0], : grid.shape[1]] = grid
    return out


class _Units(NamedTuple):
    """Every train pair of every member, on canvases: the batch's rows (one per pair)."""

    member: torch.Tensor  # (U,) which member each pair belongs to
    xs: torch.Tensor  # (U, S_in, S_in) input colours
    ys: torch.Tensor  # (U, S_out, S_out) output colours
    weight: torch.Tensor  # (U, S_out, S_out) 1/(H·W) on the real output cells, 0 on padding
    lattice: Lattices  # stacked over the pairs


def _join(trees: list, how: Callable = torch.stack):
    """Stack (or concatenate) pytrees of tensors of one structure, leaf by leaf."""
    leaves, specs = zip(*(tree_flatten(t) for t in trees), strict=True)
    return tree_unflatten([how(group) for group in zip(*leaves, strict=True)], specs[0])


@dataclass(eq=False)
class _Member:
    job: FitJob
    units: _Units  # its pairs, member index 0
    fixed: list[int]
    generator: torch.Generator
    check_perms: torch.Tensor
    deadline: float | None
    start: float
    step: int = 0  # steps taken
    losses: list[float] = field(default_factory=list)  # one per step taken, once `_Batch.settle` read them


class _Batch:
    """The members of one signature, their stacked parameters and Adam state.

    A step's rows are the members' train pairs, each on an S×S canvas (`lattices`), with
    its member's parameters gathered in: one vmapped forward for every pair of every member,
    whatever their shapes. Padded cells weigh nothing in the loss and in the checks."""

    betas, eps = (0.9, 0.999), 1e-8  # torch.optim.Adam's defaults

    def __init__(
        self, template: nn.Module, augmentations: int, sides: tuple[int, int], device: torch.device, config: FitConfig
    ):
        self.base = copy.deepcopy(template).to("meta")  # the architecture, without weights
        self.augmentations = augmentations
        self.sides = sides
        self.device = device
        self.members: list[_Member] = []
        # every member's parameters, one row each and one leaf for all: a step gathers them
        # once and Adam updates them in a few whole-batch operations, not a few per parameter
        named = list(template.named_parameters())
        self.layout = [(name, p.shape) for name, p in named]
        self.sizes = [p.numel() for _, p in named]
        self.flat: torch.Tensor | None = None  # (B, P), in `parameters_to_vector`'s order
        self.moments: tuple[torch.Tensor, torch.Tensor] | None = None  # Adam's m and v, (B, P)
        # each parameter's learning rate, (P,): the gates move faster (FitConfig.gate_lr)
        lrs = [torch.full((p.numel(),), config.lr_for(name), dtype=p.dtype) for name, p in named]
        self.lr = torch.cat(lrs).to(device)
        self.buffers: dict[str, torch.Tensor] = {}
        self._units: _Units | None = None  # every member's units, rebuilt after a join or leave
        self._pending: list[tuple[list[_Member], torch.Tensor]] = []  # losses not yet read back

    def _member_units(self, job: FitJob) -> _Units:
        """A job's train pairs as rows of this batch: padded to its canvases, with their kernels."""
        S_out, S_in = self.sides
        span = 2**job.model.config.shift_bits - 1
        dtype = next(job.model.parameters()).dtype
        rows = []
        for x, y in job.examples:
            weight = _pad(torch.ones_like(y, dtype=dtype), S_out) / y.numel()
            lattice = lattices(tuple(x.shape), tuple(y.shape), span, (S_out, S_in), self.device, dtype)
            rows.append((_pad(x, S_in), _pad(y, S_out), weight, lattice))
        xs, ys, weight, lattice = (_join(list(column)) for column in zip(*rows, strict=True))
        member = torch.zeros(len(rows), dtype=torch.long, device=self.device)
        return _Units(member, xs, ys, weight, lattice)

    def join(self, job: FitJob) -> None:
        """Add a job's model to the stack, with fresh Adam state; its colour maps come from
        generators seeded as in `arcsolve.fit.fit`."""
        fixed = fixed_colours(job.examples)
        check_generator = torch.Generator().manual_seed(-1 - job.config.seed)
        member = _Member(
            job,
            self._member_units(job),
            fixed,
            torch.Generator().manual_seed(job.config.seed),
            colour_permutations(self.augmentations, fixed, check_generator).to(self.device),
            None if job.seconds is None else time.perf_counter() + job.seconds,
            time.perf_counter(),
        )
        row = parameters_to_vector(job.model.parameters()).detach()[None]
        zeros = torch.zeros_like(row)
        if self.flat is None:
            self.flat, self.moments = row.requires_grad_(), (zeros, zeros.clone())
        else:
            m, v = self.moments
            self.flat = torch.cat([self.flat.detach(), row]).requires_grad_()
            self.moments = torch.cat([m, zeros]), torch.cat([v, zeros])
        _, buffers = stack_module_state([job.model])
        self.buffers = {k: b if k not in self.buffers else torch.cat([self.buffers[k], b]) for k, b in buffers.items()}
        self.members.append(member)
        self._units = None

    def leave(self, indices: list[int]) -> None:
        keep = [i for i in range(len(self.members)) if i not in set(indices)]
        index = torch.tensor(keep, dtype=torch.long, device=self.device)
        self.flat = self.flat.detach()[index].requires_grad_()
        self.moments = tuple(t[index] for t in self.moments)
        self.buffers = {k: v[index] for k, v in self.buffers.items()}
        self.members = [self.members[i] for i in keep]
        self._units = None

    def params(self, rows: torch.Tensor) -> dict[str, torch.Tensor]:
        """(N, P) rows of parameters as {name: (N, *shape)} views."""
        parts = rows.split(self.sizes, dim=1)
        return {name: part.view(len(rows), *shape) for (name, shape), part in zip(self.layout, parts, strict=True)}

    def model_of(self, i: int) -> nn.Module:
        """Member i's parameters, copied back into its own module."""
        model = self.members[i].job.model
        with torch.no_grad():
            row = self.params(self.flat[i : i + 1])
            for name, p in model.named_parameters():
                p.copy_(row[name][0])
            for name, b in model.named_buffers():
                b.copy_(self.buffers[name][i])
        return model

    # ------------------------------------------------------------------ the computation

    def units(self, indices: list[int] | None = None) -> _Units:
        """The units of these members (all by default), with member indices into that list."""
        if indices is None and self._units is not None:
            return self._units
        chosen = range(len(self.members)) if indices is None else indices
        parts = [self.members[i].units for i in chosen]
        member = torch.cat([torch.full_like(u.member, k) for k, u in enumerate(parts)])
        units = _Units(member, *_join([u[1:] for u in parts], torch.cat))
        if indices is None:
            self._units = units
        return units

    def _rows(self, flat: torch.Tensor, buffers: dict, members: list[_Member], units: _Units, perms: torch.Tensor):
        """Per unit: its member's parameters, buffers and condition, and its recoloured pair,
        (U, A, S_in, S_in) and (U, A, S_out, S_out), under its member's colour maps."""
        index = units.member
        gathered = self.params(flat[index])
        buffers = {k: v[index] for k, v in buffers.items()}
        conds = [m.job.cond for m in members]
        cond = None if conds[0] is None else torch.stack(conds)[index]
        unit_perms = perms[index]  # (U, A, 10)
        xs = vmap(lambda p, g: p[:, g])(unit_perms, units.xs)
        ys = vmap(lambda p, g: p[:, g])(unit_perms, units.ys)
        return gathered, buffers, cond, xs, ys

    def _forward(self, params, buffers, x, lattice, cond, discrete=False, smooth=False):
        out_shape = (self.sides[0], self.sides[0])
        kwargs = {"cond": cond, "discrete": discrete, "smooth": smooth, "lattice": lattice}
        return functional_call(self.base, (params, buffers), (x, out_shape), kwargs)[0]

    def losses(self, smoothing_loss: bool) -> torch.Tensor:
        """One training step's loss per member, (B,), with fresh colour permutations: each
        pair's mean cross-entropy over its real cells and colour maps, summed over the pairs
        (as `arcsolve.fit.fit` weighs them)."""
        perms = to_device(
            torch.stack([colour_permutations(self.augmentations, m.fixed, m.generator) for m in self.members]),
            self.device,
        )
        units = self.units()
        params, buffers, cond, xs, ys = self._rows(self.flat, self.buffers, self.members, units, perms)

        def unit_loss(params, buffers, x, y, weight, lattice, cond):
            loss = 0.0
            for smooth in (False, True) if smoothing_loss else (False,):
                logits = self._forward(params, buffers, x, lattice, cond, smooth=smooth)
                ce = F.cross_entropy(logits.flatten(0, 2), y.flatten(), reduction="none").view(y.shape)
                loss = loss + (ce * weight).sum() / len(x)
            return loss

        in_dims = (0, 0, 0, 0, 0, 0, None if cond is None else 0)
        per_unit = vmap(unit_loss, in_dims=in_dims)(params, buffers, xs, ys, units.weight, units.lattice, cond)
        return per_unit.new_zeros(len(self.members)).index_add(0, units.member, per_unit)

    def train_step(self, smoothing_loss: bool) -> None:
        """One step for every member: losses, one backward, Adam. The losses stay on the
        device until `settle`: reading them back each step would wait for every step."""
        losses = self.losses(smoothing_loss)
        losses.sum().backward()
        self._pending.append((list(self.members), losses.detach()))
        for m in self.members:
            m.step += 1
        self._adam()

    def settle(self) -> None:
        """Record the losses of the steps taken so far in each member's `losses`."""
        for members, losses in self._pending:
            for m, loss in zip(members, losses.tolist(), strict=True):
                m.losses.append(loss)
        self._pending.clear()

    def _adam(self) -> None:
        """torch.optim.Adam's update, with each member's own step count (members join at any
        time): the steps it has taken, this one included."""
        p, (m, v) = self.flat, self.moments
        steps = to_device(torch.tensor([m.step for m in self.members], dtype=torch.float64), self.device)
        b1, b2 = self.betas
        with torch.no_grad():
            # a parameter the architecture leaves unused gets zero gradients, so m and v stay 0
            # and it does not move (torch's Adam skips it)
            g = p.grad
            m.mul_(b1).add_(g, alpha=1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            bias1 = (1 - b1**steps).to(p.dtype)[:, None]
            bias2 = (1 - b2**steps).to(p.dtype)[:, None]
            p.sub_(self.lr / bias1 * m / (v.sqrt() / bias2.sqrt() + self.eps))
            p.grad = None

    def reproduced(self, indices: list[int]) -> list[bool]:
        """Do these members, with discretised gates, reproduce their pairs (real cells) under
        their check maps?"""
        members = [self.members[i] for i in indices]
        index = torch.tensor(indices, dtype=torch.long, device=self.device)
        buffers = {k: v[index] for k, v in self.buffers.items()}
        units = self.units(indices)
        perms = torch.stack([m.check_perms for m in members])
        params, buffers, cond, xs, ys = self._rows(self.flat.detach()[index], buffers, members, units, perms)

        def unit_logits(params, buffers, x, lattice, cond):
            return self._forward(params, buffers, x, lattice, cond, discrete=True)

        with torch.no_grad():
            in_dims = (0, 0, 0, 0, None if cond is None else 0)
            logits = vmap(unit_logits, in_dims=in_dims)(params, buffers, xs, units.lattice, cond)
        real = (units.weight > 0)[:, None]  # (U, 1, S_out, S_out)
        right = ((logits.argmax(-1) == ys) | ~real).flatten(1).all(1)  # (U,)
        wrong = torch.zeros(len(members), dtype=torch.long, device=self.device)
        return (wrong.index_add(0, units.member, (~right).long()) == 0).tolist()
def fit_many(
    jobs: Iterable[FitJob],
    on_done: Callable[[FitJob, nn.Module, FitResult], Iterable[FitJob]],
    capacity: int = 16,
    more: Callable[[int], Iterable[FitJob]] = lambda seats: (),
) -> None:
    """Fit every job, up to `capacity` members per batch. `on_done(job, model, result)` is
    called as each job finishes (not for cancelled ones); the jobs it returns are queued too
    (follow-ups join a running batch when their signature matches). `more(seats)` is asked
    for new jobs whenever a batch has seats that its queue cannot fill (a stream of tasks):
    early-stopped members leave and new work takes their seats at once."""
    queues: dict[Hashable, deque[FitJob]] = {}

    def enqueue(new: Iterable[FitJob]) -> None:
        for job in new:
            queues.setdefault(signature(job), deque()).append(job)

    enqueue(jobs)
    while True:
        if not queues:
            enqueue(more(capacity))
        if not queues:
            return
        key = next(iter(queues))
        _run_signature(queues, key, capacity, lambda j, m, r: enqueue(on_done(j, m, r)), lambda n: enqueue(more(n)))


def _run_signature(
    queues: dict[Hashable, deque[FitJob]], key: Hashable, capacity: int, finished: Callable, refill: Callable
) -> None:
    """Run the batch of one signature until its queue is empty and every member has left."""
    first = queues[key][0]
    device = first.examples[0][0].device
    augmentations, sides = maps_per_step(first.examples, first.config), canvas(first.examples)
    batch = _Batch(first.model, augmentations, sides, device, first.config)
    while True:
        queue = queues[key]  # finished() and refill() may queue jobs here while the batch runs
        if len(batch.members) + len(queue) < capacity:
            refill(capacity - len(batch.members) - len(queue))
        while queue and len(batch.members) < capacity:
            job = queue.popleft()
            if not job.cancelled:
                batch.join(job)
        if not batch.members:
            del queues[key]
            return
        batch.train_step(first.config.smoothing_loss)
        now = time.perf_counter()
        out_of_time = [m.deadline is not None and now > m.deadline for m in batch.members]
        due = [
            m.step % m.job.config.check_every == 0 or m.step == m.job.config.steps or late
            for m, late in zip(batch.members, out_of_time, strict=True)
        ]
        checked = [i for i, d in enumerate(due) if d]  # only the members due a check pay for one
        solved = dict(zip(checked, batch.reproduced(checked), strict=True)) if checked else {}
        if checked:  # the check has waited for the device: reading the losses back costs nothing more
            batch.settle()
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
    tasks: Iterable[tuple[Task, SolveConfig]],
    on_solution: Callable[[Solution], None],
    batch: int = 8,
    model_config: Callable[[SolveConfig], LatFormerConfig | None] = lambda config: None,
    restarts: int = 3,
    side_by_side: bool | None = None,
    all_experts: bool | None = None,
) -> None:
    """`arcsolve.fit.solve` for many tasks, fitted in batches; `on_solution` is called as
    each task is done. Each restart is a member with the same step budget, seed and initial
    gates as in `fit_with_restarts`; the first restart (in order) that reproduces the train
    pairs wins, else the lowest final loss, exactly as there.

    `tasks` is read lazily, a task whenever a batch has a free seat, with at most `batch`
    tasks begun and not yet reported (and so at most `batch` · `restarts` members); a
    stream of any length keeps the batches full, and a task's seconds count from when it
    is taken.

    `side_by_side`: run a task's restarts at once (the default on a GPU, where a few more
    members cost almost nothing) or each only after the previous one failed (the default on
    a CPU, where every member costs its full compute and restart 0 usually suffices).

    `all_experts`: build every member with all four experts and switch off those its
    task's priors rule out (`LatFormer.allow_experts`: the same function, up to rounding),
    so that tasks with different priors share a batch (the default on a GPU, where fewer,
    fuller batches are what counts; on a CPU each member then pays for experts it cannot use)."""
    source = iter(tasks)
    runs: dict[str, _TaskRun] = {}
    follow_ups: dict[FitJob, FitJob] = {}

    def take(seats: int) -> list[FitJob]:
        """The first jobs of the next tasks, until they fill `seats` seats."""
        jobs: list[FitJob] = []
        while len(jobs) < seats and len(runs) < batch:
            work = next(source, None)
            if work is None:
                break
            task, config = work
            start = time.perf_counter()
            plan = plan_fit(task, config, model_config(config), None, LatFormer)
            if plan is None:
                on_solution(Solution(task.id, [], time.perf_counter() - start))
                continue
            on_gpu = plan.device.type == "cuda"
            if on_gpu if all_experts is None else all_experts:
                plan.make_model = _with_all_experts(plan)
            run = _TaskRun(plan, start)
            per_run = max(1, config.steps // restarts)
            for r in range(restarts):
                model = restart_model(plan.make_model, r, config.seed)
                fit_config = FitConfig(steps=per_run, seed=config.seed + r)
                run.jobs.append(FitJob((task.id, r), model, plan.examples, fit_config, None, config.fit_seconds))
            runs[task.id] = run
            together = on_gpu if side_by_side is None else side_by_side
            jobs.extend(run.jobs if together else run.jobs[:1])
            if not together:
                follow_ups.update(zip(run.jobs, run.jobs[1:], strict=False))  # restart r+1 after r
        return jobs

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
            del runs[task_id]  # its models are no longer needed
        after = follow_ups.get(job)
        return [after] if after is not None and not run.reported else []

    fit_many((), done, batch * restarts, take)


def _with_all_experts(plan: FitPlan) -> Callable[[], nn.Module]:
    """A factory for the plan's model built with every expert, those it lacks switched off."""
    full, allowed = replace(plan.model_config, experts=EXPERTS), plan.model_config.experts
    return lambda: LatFormer(full).to(plan.device).allow_experts(allowed)


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
    tasks: Iterable[tuple[Task, SolveConfig]], on_solution: Callable[[Solution], None], batch: int = 8
) -> None:
    """`arcsolve.fit.solve_colour` for many tasks: colour attention with β = config.beta."""
    solve_many(tasks, on_solution, batch, lambda config: LatFormerConfig(beta=config.beta))
