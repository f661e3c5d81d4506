"""Periodic reads: a grid's own period found through its holes, the translate expert's
periods in the masks, the exact start that repairs a periodic pattern, and fits of it alone
and in a batch."""

import numpy as np
import pytest
import torch

from arcsolve.latformer.exact_starts.actions import ExactAction, gate_bits, set_action
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.periodic import periodic_sets
from arcsolve.latformer.exact_starts.readings import reading
from arcsolve.latformer.experts import MaskExperts
from arcsolve.latformer.fit import solve
from arcsolve.latformer.mask_kernels import mask_bases, mask_from_bases
from arcsolve.latformer.model import LatFormer, LatFormerConfig
from arcsolve.latformer.periods import grid_period
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair
from tests.grids import solved_in_a_batch

HOLE = 0


def pattern(shape: tuple[int, int], period: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A grid of colours 1–9 that repeats a random tile of the period's size (a period of 1:
    none on that axis, the tile as long as the side), and at no smaller period."""
    size = tuple(n if p == 1 else p for p, n in zip(period, shape, strict=True))
    while True:
        tile = rng.integers(1, 10, size=size)
        grid = np.tile(tile, (shape[0] // size[0] + 1, shape[1] // size[1] + 1))[: shape[0], : shape[1]]
        if grid_period(grid, HOLE) == period:
            return grid


def hidden(grid: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
    """The grid with each box (top, left, height, width) hidden under the hole's colour."""
    out = grid.copy()
    for top, left, h, w in boxes:
        out[top : top + h, left : left + w] = HOLE
    return out


def repair_task(rng: np.random.Generator) -> Task:
    """Three train pairs and a test, each a pattern of its own period with two boxes hidden."""
    specs = [((9, 10), (3, 4)), ((10, 9), (2, 3)), ((8, 8), (4, 2)), ((10, 10), (3, 3))]
    pairs = []
    for shape, period in specs:
        y = pattern(shape, period, rng)
        x = hidden(y, [(1, 1, 2, 3), (shape[0] - 3, shape[1] - 4, 2, 2)])
        pairs.append((x, y))
    train = [TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(y)) for x, y in pairs[:3]]
    x, y = pairs[3]
    return Task(id="repair", train=train, test=[Pair(input=Grid.from_numpy(x), output=Grid.from_numpy(y))])


def test_a_grid_period_is_found_through_its_holes_and_kept_under_recolouring():
    rng = np.random.default_rng(0)
    for period in [(3, 4), (2, 5), (4, 1), (1, 3)]:
        y = pattern((11, 12), period, rng)
        x = hidden(y, [(2, 2, 3, 3), (7, 6, 2, 4)])
        assert grid_period(x, HOLE) == period
        recoloured = np.concatenate([[HOLE], rng.permutation(np.arange(1, 10))])[x]
        assert grid_period(recoloured, HOLE) == period
    assert grid_period(rng.integers(1, 10, size=(7, 7)), HOLE) == (1, 1)  # no period at all


def test_a_periodic_read_attends_to_every_translate_that_is_no_hole():
    experts = MaskExperts(("translate", "rotate", "reflect", "scale"), periods=True)
    bits = gate_bits(experts, ExactAction(hole=HOLE))
    mask = mask_from_bases(experts.actions_of(bits), mask_bases((6, 8), (6, 8), 31, period=(3, 4))).view(6, 8, 6, 8)
    rows, cols = np.indices((6, 8))
    for r, c in [(0, 0), (4, 7), (5, 2)]:
        expected = ((rows - r) % 3 == 0) & ((cols - c) % 4 == 0)
        assert np.array_equal(mask[r, c].numpy(), expected.astype(np.float32))
    # transposed, an output row reads input columns: the columns' period applies there
    turned = gate_bits(experts, ExactAction(dihedral=4, hole=HOLE))
    mask = mask_from_bases(experts.actions_of(turned), mask_bases((6, 8), (8, 6), 31, period=(3, 4))).view(8, 6, 6, 8)
    expected = ((rows - 2) % 3 == 0) & ((cols - 5) % 4 == 0)
    assert np.array_equal(mask[5, 2].numpy(), expected.astype(np.float32))
    # in the model, holes are never read; a model without a hole has no period gates at all
    model = LatFormer(LatFormerConfig(hole=HOLE))
    assert set_action(model.layers[0].experts, ExactAction(hole=HOLE))
    plain = MaskExperts(("translate", "rotate", "reflect", "scale"))
    assert "period" not in plain.enabled and len(plain.gate_bias) == len(experts.gate_bias) - 2
    assert gate_bits(plain, ExactAction(hole=HOLE)) is None


def test_the_reading_and_the_start_repair_pairs_of_different_periods():
    task = repair_task(np.random.default_rng(1))
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    test = task.test[0]
    found = periodic_sets(pairs, [(test.input.to_numpy(), test.input.shape)])
    assert [s.actions for s in found] == [(ExactAction(hole=HOLE),)] and found[0].unseen == 0
    read = reading(ExactAction(hole=HOLE), test.input.to_numpy(), test.input.shape)
    assert np.array_equal(read, test.output.to_numpy())
    assert consistent_sets(pairs)[0].actions == (ExactAction(hole=HOLE),)  # the simplest set
    # a pair that changes a cell that is no hole, or an output that keeps a hole: no periodic read
    x, y = pairs[0]
    changed = y.copy()
    changed[0, 0] = changed[0, 0] % 9 + 1
    assert periodic_sets([(x, changed), *pairs[1:]]) == []
    assert periodic_sets([(x, x), *pairs[1:]]) == []


def test_latformer_repairs_a_periodic_pattern_and_says_so():
    task = repair_task(np.random.default_rng(2))
    solution = solve(task, SolveConfig(device="cpu", steps=200, seed=0))
    best = solution.candidates[0]
    assert best.grids[0] == task.test[0].output and best.verified
    assert "read periodically" in best.detail


@pytest.mark.parametrize(("side_by_side", "graphs"), [(False, False), (True, True)])
def test_solve_many_repairs_as_solve_does(side_by_side, graphs):
    task = repair_task(np.random.default_rng(2))
    config = SolveConfig(device="cpu", steps=200, seed=0)
    batched = solved_in_a_batch(task, config, side_by_side, graphs)
    assert batched.candidates[0].grids == solve(task, config).candidates[0].grids == (task.test[0].output,)


def test_a_batch_of_grids_with_other_periods_is_read_each_at_its_own():
    rng = np.random.default_rng(3)
    model = LatFormer(LatFormerConfig(hole=HOLE)).double()
    assert set_action(model.layers[0].experts, ExactAction(hole=HOLE))
    ys = [pattern((8, 9), period, rng) for period in [(2, 3), (4, 3)]]
    xs = torch.tensor(np.stack([hidden(y, [(1, 1, 2, 2)]) for y in ys]))
    with torch.no_grad():
        together, _ = model(xs, (8, 9), discrete=True)
        alone = [model(x[None], (8, 9), discrete=True)[0] for x in xs]
    assert torch.equal(together, torch.cat(alone))
