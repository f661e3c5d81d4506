"""Batched fitting: many fits advance as one vmapped computation (`arcsolve.latformer.batch`).

A *member* is one fit (one task, one restart). `fit_many` queues fits by `signature` (the
model's configuration, the number of colour maps per step, the canvas sides their
lattices are padded to): members of one signature share a `Batch`. A member leaves it as
soon as it reproduces its train pairs, runs out of steps or time, or is cancelled, and a
queued member of the same signature takes its place.

Each member follows the trajectory `arcsolve.latformer.fit.fit` would give it (same colour
permutations, same checks, same Adam) up to floating-point rounding: batched matmuls sum in
another order, and Adam's ±lr steps on gradients that are zero up to rounding let two runs
drift apart over many steps. The tests check the first steps to 1e-9 (float64) and that
`solve_many` gives the same rounded-gate answers as `solve`. `solve_many` is
`arcsolve.latformer.fit.solve` for a stream of tasks: every restart of every task is a
member; on a GPU a task's restarts run side by side, on a CPU one after another.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace

from torch import nn

from arcsolve.latformer.batch import Batch, FitJob
from arcsolve.latformer.canvases import GPU_CANVAS_SIDES, canvas  # noqa: F401  (GPU_CANVAS_SIDES: part of this module's API)
from arcsolve.latformer.experts import EXPERTS
from arcsolve.latformer.fit import (
    FitConfig,
    FitPlan,
    FitResult,
    finish_solve,
    maps_per_step,
    plan_fit,
    restart_model,
)
from arcsolve.latformer.model import LatFormer, LatFormerConfig
from arcsolve.solution import Solution, SolveConfig
from arcsolve.tasks import Task


def signature(job: FitJob) -> Hashable:
    """Jobs with equal signatures can share a batch: same model and fitting rules, the same
    number of colour maps per step and the same canvas sides; the grids may differ in shape."""
    model_config = getattr(job.model, "config", None)
    cond = None if job.cond is None else tuple(job.cond.shape)
    c = job.config
    fit_rules = (c.lr, c.gate_lr, c.check_every, c.smoothing_loss)
    maps = maps_per_step(job.examples, c)
    return (type(job.model).__name__, repr(model_config), canvas(job.examples), maps, cond, fit_rules)


def fit_many(
    jobs: Iterable[FitJob],
    on_done: Callable[[FitJob, nn.Module, FitResult], Iterable[FitJob]],
    capacity: int = 16,
    more: Callable[[int], Iterable[FitJob]] = lambda seats: (),
    graphs: bool | None = None,
) -> None:
    """Fit every job, up to `capacity` members per batch. `on_done(job, model, result)` is
    called as each job finishes (not for cancelled ones); the jobs it returns are queued too
    (follow-ups join a running batch when their signature matches). `more(seats)` is asked
    for new jobs whenever a batch has seats that its queue cannot fill (a stream of tasks):
    early-stopped members leave and new work takes their seats.

    `graphs`: replay each batch's step as a CUDA graph (`Batch`; the default on a GPU).
    Members then join only every `check_every` steps, when the members due a check are
    checked, so that all members are due together and a batch stops for one check, not one
    per member."""
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
        finished, refill = (lambda j, m, r: enqueue(on_done(j, m, r))), (lambda n: enqueue(more(n)))
        _run_signature(queues, key, capacity, finished, refill, graphs)


def _run_signature(
    queues: dict[Hashable, deque[FitJob]],
    key: Hashable,
    capacity: int,
    finished: Callable,
    refill: Callable,
    graphs: bool | None,
) -> None:
    """Run the batch of one signature until its queue is empty and every member has left."""
    first = queues[key][0]
    device = first.examples[0][0].device
    augmentations, sides = maps_per_step(first.examples, first.config), canvas(first.examples)
    graphs = device.type == "cuda" if graphs is None else graphs
    batch = Batch(first.model, augmentations, sides, device, first.config, capacity, graphs)
    check_every = first.config.check_every
    while True:
        queue = queues[key]  # finished() and refill() may queue jobs here while the batch runs
        if not graphs or batch.ticks % check_every == 0 or not batch.members:
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
        live = batch.live()
        out_of_time = {i: m.deadline is not None and now > m.deadline for i, m in live}
        due = [  # only the members due a check pay for one
            i
            for i, m in live
            if m.step % m.job.config.check_every == 0 or m.step == m.job.config.steps or out_of_time[i]
        ]
        solved = dict(zip(due, batch.reproduced(due), strict=True)) if due else {}
        if due:  # the check has waited for the device: reading the losses back costs nothing more
            batch.settle()
        leaving = []
        for i, m in live:
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
    graphs: bool | None = None,
) -> None:
    """`arcsolve.latformer.fit.solve` for many tasks, fitted in batches; `on_solution` is called as
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
    fuller batches are what counts; on a CPU each member then pays for experts it cannot use).

    `graphs`: replay each batch's step as a CUDA graph (`fit_many`; the default on a GPU)."""
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

    fit_many((), done, batch * restarts, take, graphs)


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
    """`arcsolve.latformer.fit.solve_colour` for many tasks: colour attention with β = config.beta."""
    solve_many(tasks, on_solution, batch, lambda config: LatFormerConfig(beta=config.beta))
