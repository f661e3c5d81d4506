"""Overlay rules: heads whose cell rule is "the first that reads a colour other than a clear
one", with or without mask heads that clear a cell, found on the train pairs, widened with
the outputs' symmetries, and written into the model's weights."""

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


def test_masks_only_where_no_order_of_every_head_gives_the_outputs():
    readings = np.array([[3, 0, 4, 0, 3, 4], [3, 3, 0, 0, 5, 5]])  # head 0 where head 1 reads a colour
    outputs = np.array([3, 0, 0, 0, 3, 4])
    rules = overlay_rules(readings, outputs)
    assert [(rule.order, rule.masks, rule.clear) for rule in rules] == [((0,), (1,), 0)]
    assert np.array_equal(rules[0].apply(np.array([[4, 4], [7, 0]])), [4, 0])
    # one colour a pair: head 0 where head 1 reads it is an overlay too, with that colour clear
    plain = overlay_rules(np.array([[3, 0, 3, 0], [3, 3, 0, 0]]), np.array([3, 0, 0, 0]))
    assert plain and all((rule.masks, rule.clear) == ((), 3) for rule in plain)
    # where the pairs cannot tell which head gives the colour, the set's first one does
    alike = overlay_rules(np.array([[3, 0, 3, 0, 4, 0, 4], [3, 3, 0, 0, 4, 4, 0]]), np.array([3, 0, 0, 0, 4, 0, 0]))
    assert [(rule.order, rule.masks) for rule in alike] == [((0,), (1,)), ((1,), (0,))]


@pytest.mark.parametrize(("heads", "masked"), [(2, 0), (3, 0), (5, 0), (8, 0), (2, 1), (3, 1), (4, 2)])
def test_a_model_built_with_an_overlay_rule_computes_it_on_any_readings(heads, masked):
    rng = np.random.default_rng(heads + 10 * masked)
    actions = tuple(ExactAction(d) for d in rng.permutation(8)[:heads])
    shuffled = [int(k) for k in rng.permutation(heads)]
    order, masks = tuple(shuffled[masked:]), tuple(shuffled[:masked])
    rule = OverlayRule(order, clear=int(rng.integers(10)), rest=0, chosen=2, masks=masks)
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


def self_tiling_task():
    """y = kron(x ≠ 0, x): a copy of the input wherever the up-scaled input holds a colour,
    each train pair in one colour and the test in two, so a table of readings meets
    combinations on the test that no pair shows."""

    def pair(x, cls=TrainPair):
        x = np.array(x)
        y = np.kron(x != 0, x)
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(y))

    train = [pair([[0, 0, 0], [5, 5, 0]]), pair([[3, 0, 0], [0, 0, 3]]), pair([[0, 0, 0], [0, 0, 4]])]
    return Task(id="self-tiling", train=train, test=[pair([[4, 7, 0], [4, 4, 7]], Pair)])


def test_a_self_similar_tiling_in_new_colour_combinations_is_a_masked_overlay():
    task = self_tiling_task()
    best = solve(task, SolveConfig(device="cpu", steps=100)).candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output
    assert "head 0's reading, and colour 0 wherever head 1 reads it" in best.detail
