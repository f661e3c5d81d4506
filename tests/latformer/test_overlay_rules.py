"""Overlay rules: heads whose cell rule is "the first that reads a colour other than a clear
one", found on the train pairs, widened with the outputs' symmetries, and written into the
model's weights."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.readings import reading
from arcsolve.latformer.fit import solve
from arcsolve.latformer.model import LatFormer, LatFormerConfig
from arcsolve.latformer.overlay_rules import OverlayRule, overlay_rules, set_overlay_rule
from arcsolve.latformer.restarts import exact_config, exact_model
from arcsolve.solution import SolveConfig
from arcsolve.symmetry import apply_dihedral
from arcsolve.tasks import Grid, Pair, Task, TrainPair


def test_an_overlay_rule_is_found_with_its_order_and_clear_colour():
    readings = np.array([[3, 5, 5, -1, 2], [1, 4, 5, 6, 5]])  # head 0 over head 1, 5 clear
    outputs = np.array([3, 4, 5, 6, 2])
    (rule,) = overlay_rules(readings, outputs)
    assert (rule.order, rule.clear) == ((0, 1), 5)
    assert np.array_equal(rule.apply(readings), outputs)
    assert overlay_rules(readings, np.array([3, 4, 5, 6, 7])) == []  # 7 is no head's reading


def test_orders_the_train_pairs_cannot_tell_apart_are_each_a_rule():
    readings = np.array([[1, 0, 0, 0], [2, 3, 0, 0], [2, 0, 4, 0]])  # heads 1 and 2 never differ
    outputs = np.array([1, 3, 4, 0])
    orders = [rule.order for rule in overlay_rules(readings, outputs)]
    assert (0, 1, 2) in orders and (0, 2, 1) in orders and all(order[0] == 0 for order in orders)
    both = np.array([[0], [5], [6]])  # a test cell where they do
    assert {int(OverlayRule(order, 0).apply(both)[0]) for order in orders} == {5, 6}


@pytest.mark.parametrize("heads", [2, 3, 5, 8])
def test_a_model_built_with_an_overlay_rule_computes_it_on_any_readings(heads):
    rng = np.random.default_rng(heads)
    actions = tuple(ExactAction(d) for d in rng.permutation(8)[:heads])
    rule = OverlayRule(tuple(int(k) for k in rng.permutation(heads)), clear=int(rng.integers(10)), rest=0, chosen=2)
    start = ActionSet(actions, 0, 0, overlay=rule)
    model = exact_model(LatFormer, LatFormerConfig(), start, seed=0)
    assert model.config.d_model == exact_config(LatFormerConfig(), start).d_model >= 10 * heads + 1
    set_overlay_rule(model, rule)
    model.eval()
    for _ in range(4):
        side = int(rng.integers(2, 7))
        x = np.where(rng.random((side, side)) < 0.4, rule.clear, rng.integers(0, 10, size=(side, side)))
        readings = np.stack([reading(a, x, x.shape).reshape(-1) for a in actions])
        with torch.no_grad():
            logits, _ = model(torch.tensor(x)[None], x.shape, discrete=True)
        assert np.array_equal(logits.argmax(-1).reshape(-1).numpy(), rule.apply(readings))


def symmetric_grid(rng, side, colours=(1, 2, 3, 4)):
    """A grid equal to all eight of its rotations and reflections."""
    x = rng.choice(colours, size=(side, side))
    for d in range(8):
        x = np.maximum(x, apply_dihedral(x, d))
    return x


def completion_task(rng, hidden=7):
    def pair(side, cls=TrainPair, holes=1):
        y = symmetric_grid(rng, side)
        x = y.copy()
        for _ in range(holes):  # a square of hidden cells
            r, c = rng.integers(0, side - 2, size=2)
            x[r : r + 2, c : c + 2] = hidden
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(y))

    return Task(id="completion", train=[pair(8), pair(10), pair(9)], test=[pair(10, Pair, holes=3)])


def test_a_symmetry_completion_is_an_overlay_widened_with_the_outputs_symmetries():
    task = completion_task(np.random.default_rng(5))
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    first = consistent_sets(pairs)[0]
    assert first.overlay is not None and first.overlay.clear == 7
    assert len(first.actions) > first.overlay.chosen  # more mirror images than the train pairs needed
    best = solve(task, SolveConfig(device="cpu", steps=100)).candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output
    assert "colour 7 clear" in best.detail and "combined cell by cell by the rule" in best.detail
