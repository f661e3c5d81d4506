"""Restarts: fresh models for one task, fitted one after another (`fit_with_restarts`) or
side by side (`arcsolve.latformer.batched`), and the choice among them.

A *plain* restart starts from the model's own initial gates (or all gates off, or
jittered: `restart_model`). An *exact* restart starts its first layer's heads at exact
lattice actions (`arcsolve.latformer.exact_starts`) chosen because the train outputs are a
function of what those heads read, cell by cell; the model gets one head per action, so
y = f(g1·x, …, gK·x) is one model whose FFN learns f. Gradient descent on products of gates
settles near where it starts: starting at different exact actions searches where jitter
around one start does not reach.

Restarts are chosen by whether they reproduce the train pairs, then by how few held-out
cells their action set leaves unexplained (a leave-one-pair-out check), then by loss.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch
from torch import nn

from arcsolve.latformer.count_rules import set_count_rule
from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import set_action
from arcsolve.latformer.exact_starts.colours import background_colour, colours_to_fix, set_readings
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.experts import EXPERTS
from arcsolve.latformer.model import N_COLOURS, LatFormerConfig
from arcsolve.latformer.overlay_rules import set_overlay_rule
from arcsolve.latformer.training import Example, FitConfig, FitResult, fit, fixed_colours, restart_model

PLAIN_RESTARTS = 3
EXACT_RESTARTS = 3  # on a CPU
GPU_EXACT_RESTARTS = 16  # side by side in a batch (`arcsolve.latformer.batched.solve_many`)
MAX_HEADS = 4
# An exact restart learns only its cell rule (its gates stay rounded), and smaller steps
# settle it sooner: at the plain fits' rate, a second-layer start whose rule swaps two
# colours overshoots and stalls (a shift with fill, two colours swapped, then a roll).
EXACT_LR = 0.01


@dataclass(frozen=True)
class Restart:
    """One restart of a task's fit: plain restart `index`, or (with `start`) an exact one."""

    index: int
    start: ActionSet | None = None

    @property
    def exact(self) -> bool:
        return self.start is not None

    @property
    def second(self) -> bool:
        """A second opinion's start (`ActionSet.second`): it may give attempt 2, never 1."""
        return self.start is not None and self.start.second

    def fit_config(self, steps: int, seed: int) -> FitConfig:
        """How this restart is fitted: an exact one with its gates rounded, so that its heads
        keep the actions they start at and only the cell rule is learned (the readings
        determine the outputs, `consistent_sets`), a plain one by the paper's recipe."""
        fixed = self.start.fixed if self.start is not None else None
        if self.start is not None and self.start.rule is not None:
            steps = 0  # built to compute its cell rule: only checked (`set_count_rule`, `set_overlay_rule`)
        lr = EXACT_LR if self.exact else FitConfig.lr
        return FitConfig(steps=steps, seed=seed + self.index, rounded_gates=self.exact, fixed=fixed, lr=lr)


def plan_restarts(
    examples: list[Example],
    tests: Sequence[np.ndarray] = (),
    out_shapes: Sequence[tuple[int, int]] = (),
    plain: int = PLAIN_RESTARTS,
    exact: int = EXACT_RESTARTS,
    max_heads: int = MAX_HEADS,
) -> list[Restart]:
    """The restarts of a task, in the order they run: up to `exact` exact ones from the
    best-ranked action sets (fitted with rounded gates, they settle in a few steps when
    their actions are right), then the plain ones (which find the actions by gradient
    descent, composed over the layers, where no exact start explains the pairs)."""
    pairs = [(x.cpu().numpy(), y.cpu().numpy()) for x, y in examples]
    sets = consistent_sets(pairs, list(zip(tests, out_shapes, strict=True)), max_heads) if exact else []
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs]) if pairs else np.zeros(0, dtype=np.int64)
    default = set(fixed_colours(examples))
    background = background_colour(pairs)

    def fixed(s: ActionSet) -> tuple[int, ...]:
        # Where the test reads more than the train pairs show, the fit permutes every colour
        # its rule treats alike; elsewhere it keeps the default permutations, with the
        # colours its rule tells apart (two it swaps, the colour that cells reading nothing
        # take) left out of them too.
        if s.rule is not None:
            return tuple(range(N_COLOURS))  # its rule names colours (rare ones, a tie order, a clear one)
        holes = {a.hole for a in s.actions if a.hole is not None}
        if holes:  # a periodic read: its unknown colour stays unknown
            return tuple(sorted(default | {background, *holes}))
        told_apart = colours_to_fix(set_readings(s, pairs), outputs, background)
        return told_apart if s.unseen else tuple(sorted(default | set(told_apart)))

    starts = [Restart(plain + i, replace(s, fixed=fixed(s))) for i, s in enumerate(sets[:exact])]
    plains = [Restart(r) for r in range(plain)]
    return starts + plains


def exact_config(config: LatFormerConfig, start: ActionSet) -> LatFormerConfig:
    """The model of an exact restart: one first-layer head per action (per tile's action
    with per-tile actions), every expert there, the first layer staged onto the set's middle
    lattice where it has a stage, the second layer at the set's `then` action (without its
    residual) where it has one, and no skip connection: the train outputs are a function of
    the heads' readings (`consistent_sets`), so the model reads nothing else (an input cell's
    own colour, through the skip, would make it a function of combinations that the train
    pairs may never show)."""
    tiles = start.tiles[0] * start.tiles[1] + bool(start.lines)  # per-panel heads: the lines one tile more
    heads = len(start.actions) // tiles
    # with a second action, the second layer moves the first one's result, adding nothing back
    composed = start.then is not None
    later = config.later_experts
    if composed and start.then.scale != (1, 1) and "scale" not in later:
        later = (*later, "scale")  # the second layer up-scales what the first sampled
    actions = (*start.actions, *([start.then] if composed else []))
    return replace(
        config,
        heads=heads,
        tiles=start.tiles,
        lines=start.lines,
        middle=start.middle,
        chain=start.chain,
        experts=EXPERTS,
        skip=False,
        later_residual=not composed,
        later_experts=later,
        strides=config.strides or any(a.stride != (1, 1) for a in actions),
        tiled_fills=config.tiled_fills or any(a.tiled_fill for a in actions),
        hole=next((a.hole for a in actions if a.hole is not None), config.hole),
        shared_edges=config.shared_edges or any(any(a.shared) for a in actions),
        anchors=config.anchors or any(any(a.anchor) for a in actions),
        paddings=config.paddings or any(any(a.padded) for a in actions),
        centres=config.centres or any(any(a.centre) for a in (*actions, *start.steps)),
        stretches=config.stretches or any(any(a.stretch) for a in actions),
        n_layers=max(config.n_layers, 2) if composed else config.n_layers,  # a second layer to act
        # an overlay rule gives each head ten coordinates of its own, and one more for the offset
        d_model=max(config.d_model, N_COLOURS * heads + 1) if start.overlay is not None else config.d_model,
    )


def exact_model(
    make_model: Callable[[LatFormerConfig], nn.Module], config: LatFormerConfig, start: ActionSet, seed: int
) -> nn.Module:
    """A fresh model whose first layer's heads start at `start`'s actions."""
    torch.manual_seed(seed)
    model = make_model(exact_config(config, start))
    with torch.no_grad():
        for gates, action in zip(model.layers[0].gate_sets, start.actions, strict=True):
            set_action(gates, action)
        if start.window:
            # the window head writes through its own rotation, not the content head's identity:
            # with one projection for both, their sum cannot tell which head read which colour,
            # and the cell rule (the content where the window head reads something) stalls.
            # Heads alike in role (an overlay) keep one projection: it generalizes better there.
            draws = torch.Generator().manual_seed(seed)
            for projection in model.layers[0].more_o:
                rotation, _ = torch.linalg.qr(torch.randn(projection.weight.shape, generator=draws))
                projection.weight.copy_(rotation)
        if start.then is not None:
            set_action(model.layers[1].experts, start.then)
        if start.stage is not None:
            set_action(model.layers[0].stage, start.stage)
        for gates, action in zip(model.layers[0].chain, start.steps, strict=True):
            set_action(gates, action)
    if start.counts is not None:
        (f_r, f_c) = start.actions[0].scale
        set_count_rule(model, start.counts, f_r * f_c)
    if start.overlay is not None:
        set_overlay_rule(model, start.overlay)
    return model


def restart_for(
    restart: Restart,
    make_model: Callable[[LatFormerConfig], nn.Module],
    config: LatFormerConfig,
    device: torch.device,
    seed: int,
) -> nn.Module:
    """The fresh model a restart starts from, on `device`."""
    if restart.start is not None:
        return exact_model(make_model, config, restart.start, seed + restart.index).to(device)
    return restart_model(lambda: make_model(config).to(device), restart.index, seed)


def fit_is_done(solved: Sequence[Restart], queued: Sequence[Restart]) -> bool:
    """Whether a task's fit can stop, given the restarts that reproduced the train pairs so
    far and those still queued: once a plain one did, or two exact ones (the second gives a
    distinct second attempt), or an exact one did and no exact restart is left to try (the
    plain ones search for actions that an exact start already explains)."""
    if not solved:
        return False
    return not solved[0].exact or len(solved) > 1 or not any(r.exact for r in queued)


@dataclass
class Fitted:
    """One restart's fitted model and how its fit went."""

    restart: Restart
    model: nn.Module
    result: FitResult


def preference(fitted: Fitted) -> tuple:
    """Sort key, best first: reproduces the train pairs, then not a second opinion (an
    `ActionSet.second` gives attempt 2 at most), then fewer held-out cells left unexplained
    by its action set, then lower loss."""
    held_out = fitted.restart.start.unsupported if fitted.restart.start is not None else 0
    return (not fitted.result.solved_train, fitted.restart.second, held_out, fitted.result.final_loss())


def fit_with_restarts(
    make_model: Callable[[LatFormerConfig], nn.Module],
    config: LatFormerConfig,
    examples: list[Example],
    restarts: list[Restart],
    steps: int,
    seed: int,
    device: torch.device,
    cond: torch.Tensor | None = None,
    on_step: Callable[[int, float], None] | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[Fitted]:
    """Fit the restarts in order, each with steps // (plain restarts) steps, all before
    `deadline`, until `fit_is_done`. Returns them best first (`preference`). The first one is
    built and checked even when planning took the whole time, so that a task always gets
    an answer."""
    per_run = max(1, steps // max(1, sum(not r.exact for r in restarts)))
    done, fitted = 0, []
    for n, restart in enumerate(restarts):
        if deadline is not None and clock() >= deadline and fitted:
            break
        model = restart_for(restart, make_model, config, device, seed)
        offset = done
        result = fit(
            model,
            examples,
            restart.fit_config(per_run, seed),
            cond,
            (lambda s, loss, offset=offset: on_step(offset + s, loss)) if on_step else None,
            deadline,
            clock,
        )
        done += result.steps
        fitted.append(Fitted(restart, model, result))
        if fit_is_done([f.restart for f in fitted if f.result.solved_train], restarts[n + 1 :]):
            break
    return sorted(fitted, key=preference)


def total(fitted: list[Fitted]) -> FitResult:
    """The best restart's result with the steps and seconds of all of them, cut short when
    any was."""
    best = fitted[0].result
    return FitResult(
        sum(f.result.steps for f in fitted),
        best.solved_train,
        sum(f.result.seconds for f in fitted),
        best.losses,
        any(f.result.cut_short for f in fitted),
    )
