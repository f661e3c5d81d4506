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

from arcsolve.devices import resolve_device
from arcsolve.latformer.batch import Batch, FitJob
from arcsolve.latformer.canvases import GPU_CANVAS_SIDES, canvas  # noqa: F401  (GPU_CANVAS_SIDES: part of this module's API)
from arcsolve.latformer.experts import EXPERTS
from arcsolve.latformer.fit import FitPlan, finish_solve, plan_fit
from arcsolve.latformer.model import LatFormer, LatFormerConfig
from arcsolve.latformer.restarts import (
    EXACT_RESTARTS,
    GPU_EXACT_RESTARTS,
    PLAIN_RESTARTS,
    Fitted,
    Restart,
    fit_is_done,
    preference,
    restart_for,
)
from arcsolve.latformer.training import FitResult, fit, maps_per_step, restart_model
from arcsolve.solution import Solution, SolveConfig
from arcsolve.tasks import Task


def signature(job: FitJob) -> Hashable:
    """Jobs with equal signatures can share a batch: same model and fitting rules, the same
    number of colour maps per step and the same canvas sides; the grids may differ in shape."""
    model_config = getattr(job.model, "config", None)
    cond = None if job.cond is None else tuple(job.cond.shape)
    c = job.config
    fit_rules = (c.lr, c.gate_lr, c.check_every, c.smoothing_loss, c.rounded_gates)
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
            # a staged or chained first layer has lattices that no canvas holds: fitted on its own
            config = getattr(job.model, "config", None)
            staged = getattr(config, "middle", None) is not None or getattr(config, "chain", None) is not None
            if job.config.steps > 0 and not staged:
                queues.setdefault(signature(job), deque()).append(job)
            elif not job.cancelled:  # a model built to compute its rule: checked at once, not batched
                result = fit(job.model, job.examples, job.config, job.cond, deadline=job.deadline)
                enqueue(on_done(job, job.model, result))

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
    jobs: list[FitJob] = field(default_factory=list)
    restarts: dict[FitJob, Restart] = field(default_factory=dict)
    results: dict[FitJob, Fitted] = field(default_factory=dict)

    def settled(self) -> bool:
        return all(job in self.results or job.cancelled for job in self.jobs)


def solve_many(
    tasks: Iterable[tuple[Task, SolveConfig]],
    on_solution: Callable[[Solution], None],
    batch: int = 8,
    model_config: Callable[[SolveConfig], LatFormerConfig | None] = lambda config: None,
    restarts: int = PLAIN_RESTARTS,
    side_by_side: bool | None = None,
    all_experts: bool | None = None,
    graphs: bool | None = None,
    exact_restarts: int | None = None,
    source: str = "latformer",
) -> None:
    """`arcsolve.latformer.fit.solve` for many tasks, fitted in batches; `on_solution` is called as
    each task is done. Each restart (`arcsolve.latformer.restarts.plan_restarts`: `restarts`
    plain ones and `exact_restarts` from exact actions) is a member with the step budget,
    seed and initial gates it has in `fit_with_restarts`; a plain restart that reproduces
    the train pairs, or a second exact one that does, or one that does when no other exact
    restart is left (`arcsolve.latformer.restarts.fit_is_done`), cancels the restarts after
    it, and the task is decided as there (`arcsolve.latformer.restarts.preference`).

    `tasks` is read lazily, a task whenever a batch has a free seat, with at most `batch`
    tasks begun and not yet reported; a stream of any length keeps the batches full, and a
    task's `fit_seconds` bound all its restarts together, counted from when it is taken.

    `side_by_side`: run a task's restarts at once (the default on a GPU, where a few more
    members cost almost nothing, and where `exact_restarts` defaults to 16) or each only
    after the previous one failed (the default on a CPU, where every member costs its full
    compute, and `exact_restarts` defaults to 3).

    `all_experts`: build every plain member with all four experts and switch off those its
    task's priors rule out (`LatFormer.allow_experts`: the same function, up to rounding),
    so that tasks with different priors share a batch (the default on a GPU).

    `graphs`: replay each batch's step as a CUDA graph (`fit_many`; the default on a GPU)."""
    stream = iter(tasks)
    runs: dict[str, _TaskRun] = {}
    follow_ups: dict[FitJob, FitJob] = {}

    def take(seats: int) -> list[FitJob]:
        """The first jobs of the next tasks, until they fill `seats` seats."""
        jobs: list[FitJob] = []
        while len(jobs) < seats and len(runs) < batch:
            work = next(stream, None)
            if work is None:
                break
            task, config = work
            start = time.perf_counter()
            deadline = None if config.fit_seconds is None else start + config.fit_seconds
            on_gpu = resolve_device(config.device).type == "cuda"
            exact = exact_restarts if exact_restarts is not None else (GPU_EXACT_RESTARTS if on_gpu else EXACT_RESTARTS)
            plan = plan_fit(task, config, model_config(config), None, LatFormer, exact, deadline)
            if plan is None:
                on_solution(Solution(task.id, [], time.perf_counter() - start))
                continue
            plan.seconds = config.fit_seconds
            plan.restarts = [r for r in plan.restarts if r.exact] + [Restart(r) for r in range(restarts)]
            build_plain = _with_all_experts(plan) if (on_gpu if all_experts is None else all_experts) else None
            run = _TaskRun(plan, start)
            per_run = max(1, config.steps // max(1, restarts))
            for restart in plan.restarts:
                if restart.exact or build_plain is None:
                    model = restart_for(restart, plan.build, plan.model_config, plan.device, config.seed)
                else:
                    model = restart_model(build_plain, restart.index, config.seed)
                fit_config = restart.fit_config(per_run, config.seed)
                job = FitJob((task.id, restart.index), model, plan.examples, fit_config, None, deadline)
                run.jobs.append(job)
                run.restarts[job] = restart
            runs[task.id] = run
            together = on_gpu if side_by_side is None else side_by_side
            jobs.extend(run.jobs if together else run.jobs[:1])
            if not together:
                follow_ups.update(zip(run.jobs, run.jobs[1:], strict=False))  # restart r+1 after r
        return jobs

    def done(job: FitJob, model: nn.Module, result: FitResult) -> list[FitJob]:
        task_id, _ = job.key
        run = runs[task_id]
        run.results[job] = Fitted(run.restarts[job], model, result)
        solved = [run.restarts[j] for j in run.jobs if j in run.results and run.results[j].result.solved_train]
        queued = [run.restarts[j] for j in run.jobs if j not in run.results and not j.cancelled]
        if fit_is_done(solved, queued):
            for later in run.jobs[run.jobs.index(job) + 1 :]:
                later.cancelled = True
        if run.settled():
            fitted = sorted((run.results[j] for j in run.jobs if j in run.results), key=preference)
            on_solution(finish_solve(run.plan, fitted, run.start, source))
            del runs[task_id]  # its models are no longer needed
            return []
        after = follow_ups.get(job)
        return [after] if after is not None and not after.cancelled else []

    most_exact = GPU_EXACT_RESTARTS if exact_restarts is None else exact_restarts
    fit_many((), done, batch * (restarts + most_exact), take, graphs)


def _with_all_experts(plan: FitPlan) -> Callable[[], nn.Module]:
    """A factory for the plan's model built with every expert, those it lacks switched off."""
    full, allowed = replace(plan.model_config, experts=EXPERTS), plan.model_config.experts
    return lambda: LatFormer(full).to(plan.device).allow_experts(allowed)


def solve_many_colour(
    tasks: Iterable[tuple[Task, SolveConfig]], on_solution: Callable[[Solution], None], batch: int = 8
) -> None:
    """`arcsolve.latformer.fit.solve_colour` for many tasks: colour attention with β = config.beta."""
    solve_many(tasks, on_solution, batch, lambda config: LatFormerConfig(beta=config.beta), source="latformer-color")
