"""Solving a task with LatFormer: plan the fit (output size rule, experts, restarts), fit
the restarts (`arcsolve.latformer.restarts`) within the task's time cap, predict two
distinct attempts and explain them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from arcsolve.colour_views import ViewedTask, viewed, views_for
from arcsolve.content_crops import CroppedTask, InPlaceTask, content_cropped, content_in_place
from arcsolve.devices import resolve_device
from arcsolve.hidden_boxes import PastedTask, pasted_into_boxes
from arcsolve.latformer.exact_starts.action_sets import ActionSet, copies, train_cells
from arcsolve.latformer.exact_starts.chains import chain_sets
from arcsolve.latformer.exact_starts.colours import (
    background_colour,
    permuted_unseen,
    presence_answer,
    set_readings,
    swapped_unseen,
)
from arcsolve.latformer.exact_starts.holdout import NOT_HELD_OUT, table_contradictions
from arcsolve.latformer.experts import EXPERTS
from arcsolve.latformer.explain import describe_actions, describe_cell_rule
from arcsolve.latformer.model import LatFormer, LatFormerConfig, LatticeMismatch
from arcsolve.latformer.restarts import EXACT_RESTARTS, Fitted, Restart, fit_with_restarts, plan_restarts, total
from arcsolve.latformer.sizing import (
    Shape,
    SizeRule,
    alternative_sizes,
    content_size_rule,
    infer_size_rule,
    turned_rule,
)
from arcsolve.latformer.training import (  # noqa: F401  (the fitting loop's API, re-exported for its users)
    Example,
    FitConfig,
    FitResult,
    colour_permutations,
    fit,
    fixed_colours,
    restart_model,
)
from arcsolve.solution import Candidate, Solution, SolveConfig
from arcsolve.tasks import MAX_SIDE, Grid, Task


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


@dataclass
class FitPlan:
    """Everything `solve` decides about a task before fitting: the output size rule, the
    model (config and factory, with the experts its priors allow), the examples, the device;
    with a `view`, `task` is the task seen in that view (a colour view, a content crop, its
    content changed in place, or outputs pasted into the boxes they hide), and answers are
    mapped back."""

    task: Task
    rule: SizeRule
    make_model: Callable[[], nn.Module]
    examples: list[Example]
    device: torch.device
    cond: torch.Tensor | None
    model_config: LatFormerConfig  # what make_model builds from, its experts chosen by the priors
    build: Callable[[LatFormerConfig], nn.Module] = LatFormer  # the model class (a variant's)
    restarts: list[Restart] = field(default_factory=list)
    seconds: float | None = None  # the fit's time cap, when one is set
    view: ViewedTask | CroppedTask | InPlaceTask | PastedTask | None = None  # the view `task` is seen in, if any


def plan_fit(
    task: Task,
    config: SolveConfig,
    model_config: LatFormerConfig | None = None,
    cond: torch.Tensor | None = None,
    make_model: Callable[[LatFormerConfig], nn.Module] = LatFormer,
    exact_restarts: int = EXACT_RESTARTS,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    crops: bool = True,
) -> FitPlan | None:
    """The plan for fitting `task`, or None when no output size rule fits its train pairs or
    the rule gives a test output no grid can have (no cells, or more than MAX_SIDE a side).

    Where no exact start explains the task as given (`_explains`: every test reading seen on
    the train pairs, or every cell it reads copied), the task is planned again in its colour
    views (`arcsolve.colour_views`: colours ranked by frequency, the background swapped with
    0, each pair by its own input), and the first view whose start does explain it is fitted
    instead (else the first view with a start, where the task as given has none): pairs that
    draw the same roles in different colours read alike there. Where the task as given has
    a start, a view's must also take fewer actions (so none is planned where that start has
    one): a view renumbers colours into a few ranks, so its readings are seen on the train
    pairs more easily, and a start of as many actions that only reads the test better there
    is no better explanation (a chain that swaps two named colours, read as a swap of two
    ranks). Where every input draws in colours of its own (two or more train inputs that
    share one colour at most, a background, and a test input that holds a colour none
    does), a view's start of as many actions is taken too, if it explains the task: as
    given, a start reads each pair's colours on that pair alone, and the test's on none.
    Only a task whose inputs do not all hold the same colours is planned in views: where
    they do, a view that renumbers them differently pair by pair (the commoner of two
    colours taken for the background in some pairs only) finds explanations by chance. And
    only a view whose train outputs take fewer colours than the task's own is planned:
    there it gives different colours in different pairs one role.

    Where the task as given has no size rule or no exact start at all, and no colour view
    gives one, it is planned again (with `crops`) with every input cut down to its content's
    box (`arcsolve.content_crops`), in its colour views too, and fitted there if a start
    explains it: content drawn at different places on grids of different sizes lies on one
    lattice there. The views are skipped once `deadline` has passed.

    Where no colour view explains it either, and every output is its input changed only
    inside the input's content box, the task is planned again (with `crops`) with inputs
    and outputs both cut down to that box (`content_in_place`), in its colour views too,
    and fitted there if a start explains it: an object mirrored about its own axis is one
    action there, and the answer is pasted back into the test input.

    Before the colour views and the crops, where every output is what a solid box of one
    colour hides in its input (`arcsolve.hidden_boxes`), the task is planned (with `crops`)
    with each output pasted back into its input's box, and fitted there if a start explains
    it: the whole picture is repaired from its own mirror images or periods, and the answer
    is the test input's box cut out of the repaired picture."""
    plan = _plan(task, config, model_config, cond, make_model, exact_restarts)
    if not exact_restarts or (plan is not None and _explains(plan)):
        return plan
    pasted = pasted_into_boxes(task) if crops else None
    if pasted is not None:
        whole = plan_fit(pasted.task, config, model_config, cond, make_model, exact_restarts, deadline, clock, False)
        if whole is not None and _explains(whole):
            whole.view = replace(pasted, inner=whole.view)
            return whole
    if plan is not None:
        seen = _in_a_colour_view(task, plan, config, model_config, cond, make_model, exact_restarts, deadline, clock)
        if seen is not plan and _explains(seen):
            return seen
        cut = content_in_place(task) if crops and (deadline is None or clock() < deadline) else None
        if cut is not None:
            inside = plan_fit(cut.task, config, model_config, cond, make_model, exact_restarts, deadline, clock, False)
            if inside is not None and _explains(inside):
                inside.view = replace(cut, inner=inside.view)
                return inside
        if seen is not plan or _first_start(plan) is not None:
            return seen
    if deadline is not None and clock() >= deadline:
        return plan
    cropped = content_cropped(task) if crops else None
    if cropped is None:
        return plan
    other = plan_fit(cropped.task, config, model_config, cond, make_model, exact_restarts, deadline, clock, crops=False)
    if other is None or not _explains(other):
        return plan
    other.view = replace(cropped, inner=other.view)
    return other


def _in_a_colour_view(
    task: Task,
    plan: FitPlan,
    config: SolveConfig,
    model_config: LatFormerConfig | None,
    cond: torch.Tensor | None,
    make_model: Callable[[LatFormerConfig], nn.Module],
    exact_restarts: int,
    deadline: float | None,
    clock: Callable[[], float],
) -> FitPlan:
    """`plan_fit`'s colour views: the plan of the view it takes, else `plan`."""
    inputs = [p.input.to_numpy() for p in (*task.train, *task.test)]
    if len({frozenset(np.unique(x).tolist()) for x in inputs}) == 1:
        return plan  # every input draws with the same colours: no roles to align
    given = _first_start(plan)
    fewer = 1 - _new_colours_in_every_pair(task)  # how many actions fewer a view's start must take
    if given is not None and given.rank()[0] <= fewer:
        return plan  # no view can explain it with fewer actions
    fallback = None
    for name in views_for(inputs):
        if deadline is not None and clock() >= deadline:
            break
        seen = viewed(task, name)
        if len(_output_colours(seen.task)) >= len(_output_colours(task)):
            continue  # the view aligns no roles: its outputs take as many colours
        other = _plan(seen.task, config, model_config, cond, make_model, exact_restarts)
        start = _first_start(other) if other is not None else None
        if start is None or (given is not None and start.rank()[0] > given.rank()[0] - fewer):
            continue  # nothing there, or no fewer actions than the start the task as given has
        other.view = seen
        if _explains(other):
            return other
        fallback = fallback or other
    return fallback if fallback is not None and given is None else plan


def _new_colours_in_every_pair(task: Task) -> bool:
    """Does every input draw in colours of its own: do two or more train inputs share one
    colour at most (a background), each other colour held by one of them alone, and does a
    test input hold a colour that no train input holds?"""
    own = [set(np.unique(p.input.to_numpy()).tolist()) for p in task.train]
    if len(own) < 2:
        return False  # one pair shows no colours changing from pair to pair
    shared = set.intersection(*own)
    drawn = [colours - shared for colours in own]
    if len(shared) > 1 or sum(map(len, drawn)) != len(set().union(*drawn)):
        return False  # colours that recur from pair to pair: named, not roles
    shown = set().union(*own)
    return any(set(np.unique(p.input.to_numpy()).tolist()) - shown for p in task.test)


def _output_colours(task: Task) -> set[int]:
    """The colours the train outputs use, all pairs together."""
    return {c for p in task.train for c in np.unique(p.output.to_numpy()).tolist()}


def _first_start(plan: FitPlan) -> ActionSet | None:
    """The start of the plan's first exact restart that may give attempt 1, if any."""
    return next((r.start for r in plan.restarts if r.start is not None and not r.second), None)


def _explains(plan: FitPlan) -> bool:
    """Does an exact start explain the train pairs and read nothing on the test inputs that
    they do not show, or copy every cell it reads (one head whose reading is the output
    wherever it reads a cell: a colour the test alone shows is copied like any other)?"""
    start = _first_start(plan)
    if start is None:
        return False
    if start.unseen == 0:
        return True
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in plan.task.train]
    return start.rule is None and copies(set_readings(start, pairs), train_cells(pairs)[0])


def _plan(
    task: Task,
    config: SolveConfig,
    model_config: LatFormerConfig | None,
    cond: torch.Tensor | None,
    make_model: Callable[[LatFormerConfig], nn.Module],
    exact_restarts: int,
) -> FitPlan | None:
    """`plan_fit` for the task as given (the caller's view of it)."""
    rule = infer_size_rule([(p.input.shape, p.output.shape) for p in task.train])
    if rule is None:  # no rule of the shapes alone: one that counts the inputs' content
        rule = content_size_rule([(p.input.to_numpy(), p.output.to_numpy()) for p in task.train])
    if rule is None or any(not 1 <= side <= MAX_SIDE for p in task.test for side in rule(p.input)):
        return None
    device = resolve_device(config.device)
    experts = tuple(e for e in EXPERTS if config.priors is None or e in config.priors) or ("translate",)
    base = model_config or LatFormerConfig()
    model_config = LatFormerConfig(**{**base.__dict__, "experts": experts})
    examples = task_examples(task, device)
    tests = [p.input.to_numpy() for p in task.test]
    # a variant (colour attention, LatFormer+NL) starts from the same exact actions: its gates
    # are rounded and not trained there, so a text path cannot move them either
    restarts = plan_restarts(examples, tests, [rule(x) for x in tests], exact=exact_restarts)
    turned = turned_rule(rule, [(p.input.shape, p.output.shape) for p in task.train], [x.shape for x in tests])
    fits = turned is not None and all(1 <= side <= MAX_SIDE for x in tests for side in turned(x.shape))
    if fits and _swaps_axes(restarts):  # the square train pairs leave it open: the action tells
        rule = turned
        restarts = plan_restarts(examples, tests, [rule(x) for x in tests], exact=exact_restarts)
    elif exact_restarts and all(r.start is None for r in restarts):  # no start at this size: a chain may tell
        sized = chained_rule(rule, task, tests)
        if sized is not None:
            rule = sized
            restarts = plan_restarts(examples, tests, [rule(x) for x in tests], exact=exact_restarts)
    return FitPlan(
        task,
        rule,
        lambda: make_model(model_config).to(device),
        examples,
        device,
        cond.to(device) if cond is not None else None,
        model_config,
        make_model,
        restarts,
    )


def chained_rule(rule: SizeRule, task: Task, tests: Sequence[np.ndarray]) -> SizeRule | None:
    """Where the train pairs leave the test size open (`alternative_sizes`) and a chain of
    lattice actions reproduces them (`chain_sets`, read on the train pairs alone), the
    likeliest other rule that gives each test input the size the chain takes it to; None
    where there is none."""
    shapes = [(p.input.shape, p.output.shape) for p in task.train]
    others = alternative_sizes(shapes, [x.shape for x in tests], most=8, chosen=rule)
    if not others:
        return None
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    found = chain_sets(pairs, (), background_colour(pairs), most=1)
    if not found:
        return None
    sizes = []
    for x in tests:
        lattices = found[0].chain.shapes(tuple(x.shape))
        if min(min(shape) for shape in lattices) < 1:
            return None
        sizes.append(lattices[-1])
    return next((other for other in others if [other(x.shape) for x in tests] == sizes), None)


def _swaps_axes(restarts: Sequence[Restart]) -> bool:
    """Does the first exact start swap the input's axes (a quarter turn or a transpose, in
    every head, or in the second layer's action)?"""
    start = next((r.start for r in restarts if r.start is not None), None)
    if start is None or start.stage is not None:
        return False
    heads = {a.dihedral >= 4 for a in start.actions}
    then = start.then is not None and start.then.dihedral >= 4
    return len(heads) == 1 and heads.pop() != then


class Attempt(NamedTuple):
    """One candidate answer: the test outputs, the restart that made them, how ("rounded",
    "swapped", "permuted", "resized", "present" or "soft") and the output size rule they were
    predicted at."""

    grids: tuple[Grid, ...]
    fitted: Fitted
    how: str
    size: SizeRule


def attempts(plan: FitPlan, fitted: list[Fitted]) -> list[Attempt]:
    """Candidate test outputs, best first: each restart's with rounded gates (restarts best
    first), those that reproduce the train pairs first, except that where the best of those is
    an exact start whose test input shows colours no train cell reads, its answer with them
    swapped (`swapped_unseen`), then its answer with each such colour given the one that
    makes the rule's map of colours a permutation (`permuted_unseen`), then, where its rule
    depends only on which heads read a colour and the test reads combinations the pairs do
    not, its answer by those presence patterns (`presence_answer`), come right after it (the
    best answer leaves those cells to chance, and another restart that reproduces the pairs
    reads them no better); then, where the train pairs leave the test size open, its answer
    at the next likeliest size (`alternative_sizes`); then the best restart's with soft gates.
    A second opinion's answer (`ActionSet.second`) comes after all of the best start's.
    Where no restart reproduces the train pairs, the soft gates' answer comes second, right
    after the best restart's, ahead of the other restarts' rounded answers: the soft gates
    keep what the fit could not round to one action.
    Duplicates are dropped, so attempt 2 is never a copy of attempt 1 while another grid
    exists."""
    shapes = [plan.rule(p.input) for p in plan.task.test]
    found: list[Attempt] = []
    seen = set()

    def add(grids: tuple[Grid, ...] | None, f: Fitted, how: str, size: SizeRule = plan.rule) -> None:
        if grids is None:
            return
        key = tuple(g.to_numpy().tobytes() + bytes(g.shape) for g in grids)
        if key not in seen:
            seen.add(key)
            found.append(Attempt(grids, f, how, size))

    def predicted(f: Fitted, soft: bool, sizes: list[Shape] = shapes) -> tuple[Grid, ...] | None:
        """The model's test outputs at `sizes`, or None where its structure cannot write one
        of them (a staged model at a size its middle lattice does not divide)."""
        f.model.eval()
        try:
            return tuple(
                predict(f.model, p.input, s, plan.device, plan.cond, discrete=not soft)
                for p, s in zip(plan.task.test, sizes, strict=True)
            )
        except LatticeMismatch:
            return None

    for f in fitted:
        add(predicted(f, False), f, "rounded")
    verified = [c for c in found if c.fitted.result.solved_train]
    best = verified[0] if verified and verified[0].fitted.restart.start is not None else None
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in plan.task.train]

    def rewritten(answer: Callable[..., np.ndarray | None], how: str) -> None:
        """The best verified exact start's answer, its cells rewritten by `answer` where it
        gives another grid for a test input."""
        if best is None:
            return
        grids, f = best.grids, best.fitted
        others = [
            answer(f.restart.start, pairs, p.input.to_numpy(), g.to_numpy())
            for p, g in zip(plan.task.test, grids, strict=True)
        ]
        if any(o is not None for o in others):
            add(tuple(g if o is None else Grid.from_numpy(o) for g, o in zip(grids, others, strict=True)), f, how)

    rewritten(swapped_unseen, "swapped")
    rewritten(permuted_unseen, "permuted")
    rewritten(presence_answer, "present")
    if best is not None:  # the unseen readings' answers right after the best one, in this order
        completed = [c for c in found if c.how in ("swapped", "permuted", "present")]
        found[:] = [c for c in found if c not in completed]
        found[found.index(best) + 1 : found.index(best) + 1] = completed
    if verified:
        train = [(p.input.shape, p.output.shape) for p in plan.task.train]
        f = verified[0].fitted
        for rule in alternative_sizes(train, [p.input.shape for p in plan.task.test], chosen=plan.rule):
            add(predicted(f, False, [rule(p.input.shape) for p in plan.task.test]), f, "resized", rule)
    add(predicted(fitted[0], True), fitted[0], "soft")
    ordered = [c for c in found if c.fitted.result.solved_train and c.how != "soft"]
    # a second opinion's answer after the best start's other answers (`ActionSet.second`)
    ordered.sort(key=lambda c: c.fitted.restart.second)
    if not ordered:  # nothing reproduces the pairs: the soft gates' answer second
        ordered = found[:1] + [c for c in found[1:] if c.how == "soft"]
    return ordered + [c for c in found if c not in ordered]


def finish_solve(
    plan: FitPlan,
    fitted: list[Fitted],
    start: float,
    source: str = "latformer",
    describe: Callable[[nn.Module, Sequence[tuple[Shape, Shape]], str], str] = describe_actions,
    clock: Callable[[], float] = time.perf_counter,
) -> Solution:
    """Predict the test outputs of the fitted restarts (best first): two distinct attempts
    (`attempts`), each explained. An answer is verified where its restart reproduces the
    train pairs with rounded gates, unless the table of readings its FFN learned does not
    hold out with colours renamed (`table_contradictions`); such an answer gives up first
    place to a verified one (`verified_before_held_back`). An answer cut out of a repaired
    picture (`PastedTask`) that still shows the hiding colour, which no train output shows,
    is not verified either, and gives up first place the same way."""
    task = plan.task
    result = total(fitted)
    cut = (
        f"; cut short by the {plan.seconds:g} s fit cap"
        if result.cut_short and plan.seconds
        else ("; cut short by the fit cap" if result.cut_short else "")
    )
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    candidates = []
    held_back = []  # whether each candidate reproduces the pairs but fails a check: the holdout, the repair
    for grids, f, kind, size in attempts(plan, fitted):
        soft = kind == "soft"
        applied = [(p.input.shape, p.output.shape) for p in task.train]
        applied += [(p.input.shape, size(p.input)) for p in task.test]
        built = f.restart.start.rule if f.restart.start is not None else None
        # the weights compute a built rule as built, not a table the FFN learned
        how = "soft gates" if soft else describe(f.model, applied, "the FFN" if built is None else "the rule")
        if not soft and built is not None:
            how += f"; cell rule: {built.words()}"
        elif not soft and isinstance(f.model, LatFormer):
            rule = describe_cell_rule(f.model, pairs)
            how += f"; cell rule: {rule}" if rule else ""
        if kind == "swapped":
            how += "; test colours no train cell reads, swapped with the colour the rule turns into each"
        if kind == "permuted":
            how += "; test colours no train input holds, each given the colour that completes the rule's permutation"
        if kind == "resized":
            how += "; the train pairs leave the test size open: the next likeliest size"
        if kind == "present":
            how += "; test readings no train cell shows, answered by which heads read a colour"
        verified = f.result.solved_train and kind == "rounded"
        wrong = 0
        if verified and f.restart.start is not None:
            tests = [(p.input.to_numpy(), g.to_numpy()) for p, g in zip(task.test, grids, strict=True)]
            wrong = table_contradictions(f.restart.start, pairs, tests)
            if wrong:  # a lookup of the train cells: a guess, not a verified answer
                verified = False
                how += (f"; {NOT_HELD_OUT}, the table of readings asks otherwise at {wrong} "
                        f"cell{'s' if wrong > 1 else ''} of a pair left out or a test input")
        if plan.view is not None:  # found in a view: the answer to the task as given
            how = f"{plan.view.label}: {how}"
            grids = plan.view.original(grids)
        hidden = plan.view.still_hidden(grids) if verified and isinstance(plan.view, PastedTask) else 0
        if hidden:  # the repair left hidden cells hidden: not an answer it checked
            verified = False
            cells = f"{hidden} cell{'s' if hidden > 1 else ''}"
            how += f"; {cells} of the box still hidden, in a colour no train output shows"
        detail = f"{source} ({how}; size {size.name}; {result.steps} steps{cut})"
        candidates.append(Candidate(grids, source, verified, detail=detail))
        held_back.append(bool(wrong or hidden))
    ranked = verified_before_held_back(candidates, held_back)
    return Solution(task.id, [replace(c, score=1.0 / (1 + rank)) for rank, c in enumerate(ranked)], clock() - start)


def verified_before_held_back(candidates: Sequence[Candidate], held_back: Sequence[bool]) -> list[Candidate]:
    """The candidates in order, except that where the first reproduces the train pairs but
    fails a check (`held_back`: a table that does not hold out, a repair that leaves cells
    hidden) and a later one is verified, the first verified one comes first: restarts that
    reproduce the pairs rank by whether they pass, then by their fit."""
    first = next((k for k, c in enumerate(candidates) if c.verified), None)
    if first is None or not held_back[0]:
        return list(candidates)
    return [candidates[first], *candidates[:first], *candidates[first + 1 :]]


def solve(
    task: Task,
    config: SolveConfig,
    model_config: LatFormerConfig | None = None,
    cond: torch.Tensor | None = None,
    on_step: Callable[[int, float], None] | None = None,
    make_model: Callable[[LatFormerConfig], nn.Module] = LatFormer,
    source: str = "latformer",
    describe: Callable[[nn.Module, Sequence[tuple[Shape, Shape]], str], str] = describe_actions,
    clock: Callable[[], float] = time.perf_counter,
    exact_restarts: int = EXACT_RESTARTS,
) -> Solution:
    """Fit a fresh LatFormer (or `make_model(config)`, a variant) on the task's train pairs,
    its restarts one after another, and predict its test outputs (`finish_solve`).
    `config.fit_seconds` bounds all of it, restarts and predictions together."""
    start = clock()
    deadline = None if config.fit_seconds is None else start + config.fit_seconds
    plan = plan_fit(task, config, model_config, cond, make_model, exact_restarts, deadline, clock)
    if plan is None:
        return Solution(task.id, [], clock() - start)
    plan.seconds = config.fit_seconds
    fitted = fit_with_restarts(
        plan.build,
        plan.model_config,
        plan.examples,
        plan.restarts,
        config.steps,
        config.seed,
        plan.device,
        plan.cond,
        on_step,
        deadline,
        clock,
    )
    return finish_solve(plan, fitted, start, source, describe, clock)


def solve_colour(task: Task, config: SolveConfig, on_step: Callable[[int, float], None] | None = None) -> Solution:
    """LatFormer with colour attention on the values (mixing weight β = config.beta)."""
    return solve(task, config, LatFormerConfig(beta=config.beta), on_step=on_step, source="latformer-color")
