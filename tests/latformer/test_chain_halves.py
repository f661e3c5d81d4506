"""The middle half of a tiling in a chain: halves swapped, each quadrant turned in place, on
grids whose sizes vary."""

import numpy as np
import pytest

from arcsolve.latformer.exact_starts.chains import AxisStep, _parts_moved, axis_chains, chain_reading, chain_sets
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair
from tests.grids import solved_in_a_batch


def swap_halves(x: np.ndarray) -> np.ndarray:
    return np.roll(x, x.shape[1] // 2, axis=1)


def quadrants_turned(x: np.ndarray) -> np.ndarray:
    h, w = x.shape[0] // 2, x.shape[1] // 2
    turn = lambda q: np.rot90(q, 2)  # noqa: E731
    return np.block([[turn(x[:h, :w]), turn(x[:h, w:])], [turn(x[h:, :w]), turn(x[h:, w:])]])


def task_of(rule, shapes, seed: int = 0) -> Task:
    rng = np.random.default_rng(seed)
    grids = [np.where(rng.random(s) < 0.5, rng.integers(1, 10, s), 0) for s in shapes]
    pairs = [(x, rule(x)) for x in grids]
    train = [TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(y)) for x, y in pairs[:-1]]
    x, y = pairs[-1]
    return Task(id="halves", train=train, test=[Pair(input=Grid.from_numpy(x), output=Grid.from_numpy(y))])


def arrays(task: Task):
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    test = task.test[0]
    return pairs, test.input.to_numpy(), test.output.to_numpy()


def test_the_middle_half_of_a_tiling_by_two_is_a_roll_by_half_the_side():
    maps = np.arange(6)[None]
    tiled = AxisStep("tile", 2).apply(maps)
    assert AxisStep("middle", 2).apply(tiled).tolist() == [[3, 4, 5, 0, 1, 2]]
    assert AxisStep("middle", 2).side(12) == 6 and AxisStep("middle", 2).side(7) is None
    mirrored = AxisStep("mirror", 2).apply(np.arange(4)[None])
    assert AxisStep("middle", 2).apply(mirrored).tolist() == [[2, 3, 3, 2]]


def test_the_middle_half_follows_only_a_tiling_by_two_and_only_when_asked():
    plain = axis_chains((4, 6, 8), (4, 6, 8))
    assert not any(step.kind == "middle" for steps in plain.steps for step in steps)
    halves = axis_chains((4, 6, 8), (4, 6, 8), halves=True)
    with_middle = [steps for steps in halves.steps if any(s.kind == "middle" for s in steps)]
    assert with_middle
    for steps in with_middle:
        for k, step in enumerate(steps):
            if step.kind == "middle":
                assert k > 0 and steps[k - 1].kind in ("tile", "mirror") and steps[k - 1].a == 2


@pytest.mark.parametrize("rule", [swap_halves, quadrants_turned])
def test_parts_moved_in_place_are_a_chain_that_reads_the_test_output(rule):
    task = task_of(rule, [(4, 6), (6, 8), (8, 4), (6, 10)])
    pairs, x, y = arrays(task)
    assert _parts_moved(pairs)
    found = chain_sets(pairs, [(x, y.shape)])
    assert found
    assert any(any(action.centre) for action in found[0].steps)  # a stage reads the middle half
    assert np.array_equal(chain_reading(found[0], x, y.shape), y)


def test_outputs_whose_parts_hold_other_cells_get_no_middle_halves():
    rng = np.random.default_rng(3)
    pairs = []
    for shape in [(4, 6), (6, 8), (8, 4)]:
        x = rng.integers(1, 10, shape)
        y = swap_halves(x)
        y[0, 0] = 0  # a cell no part of the input holds
        pairs.append((x, y))
    assert not _parts_moved(pairs)
    same = [(x, x.copy()) for x, _ in pairs]
    assert not _parts_moved(same)  # nothing moved at all


def test_swapped_halves_are_solved_and_explained():
    task = task_of(swap_halves, [(4, 6), (6, 8), (8, 4), (6, 10)], seed=1)
    best = solve(task, SolveConfig(device="cpu", steps=300, seed=0)).candidates[0]
    assert best.grids[0] == task.test[0].output and best.verified
    assert "read from the middle (columns)" in best.detail


@pytest.mark.parametrize(("side_by_side", "graphs"), [(False, False), (True, True)])
def test_solve_many_fits_a_middle_half_chain_as_solve_does(side_by_side, graphs):
    task = task_of(quadrants_turned, [(4, 6), (6, 8), (8, 4), (6, 10)], seed=2)
    config = SolveConfig(device="cpu", steps=300, seed=0)
    batched = solved_in_a_batch(task, config, side_by_side, graphs)
    assert batched.candidates[0].grids == solve(task, config).candidates[0].grids == (task.test[0].output,)
