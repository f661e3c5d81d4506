"""Chains of one-axis lattice actions: each step an exact action of its own stage, onto a
lattice of its own size, found on the train pairs and fitted as a chained first layer."""

import numpy as np
import pytest

from arcsolve.latformer.batched import solve_many
from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.chains import STEPS, axis_chains, chain_reading, chain_sets
from arcsolve.latformer.exact_starts.readings import source_cells
from arcsolve.latformer.fit import solve
from arcsolve.latformer.model import Chain, LatticeMismatch, chain_shapes
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair


def shifted(x: np.ndarray, dr: int, dc: int) -> np.ndarray:
    """x moved dr rows down and dc columns right, the vacated cells 0."""
    out, (h, w) = np.zeros_like(x), x.shape
    out[max(dr, 0) : h + min(dr, 0), max(dc, 0) : w + min(dc, 0)] = x[
        max(-dr, 0) : h - max(dr, 0), max(-dc, 0) : w - max(dc, 0)
    ]
    return out


def up_fill_roll(x: np.ndarray) -> np.ndarray:
    """Up-scaled 2×2, moved one row down with fill on the up-scaled lattice, then rolled one
    column: three actions, the second and third of a lattice the input does not have."""
    return np.roll(shifted(np.kron(x, np.ones((2, 2), dtype=x.dtype)), 1, 0), 1, axis=1)


def drawn(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return np.where(rng.random(shape) < 0.6, rng.integers(1, 10, shape), 0)


@pytest.mark.parametrize("axis", [0, 1])
def test_each_step_reads_as_its_stage_action(axis):
    for step in STEPS:
        for n in range(1, 8):
            after = step.side(n)
            if after is None:
                continue
            expected = step.apply(np.arange(n)[None])[0]
            in_shape, out_shape = ((n, 2), (after, 2)) if axis == 0 else ((2, n), (2, after))
            cells = source_cells(step.action(axis), in_shape, out_shape).reshape(out_shape)
            line = cells[:, 0] // 2 if axis == 0 else cells[0, :]
            assert np.array_equal(np.where(line >= 0, line, -1), expected), (step, n)


def test_axis_chains_are_fewest_steps_first_and_one_per_map():
    found = axis_chains((3, 4), (6, 8))  # every side doubled
    assert [len(steps) for steps, _ in found] == sorted(len(steps) for steps, _ in found)
    assert len(found[0][0]) == 1  # one step: up-scaled or tiled
    maps = {b"".join(m.tobytes() for m in maps) for _, maps in found}
    assert len(maps) == len(found)


def test_a_three_action_chain_is_found_and_read_on_the_test():
    rng = np.random.default_rng(5)
    xs = [drawn(rng, shape) for shape in [(3, 4), (4, 3), (3, 5)]]
    pairs = [(x, up_fill_roll(x)) for x in xs]
    test = drawn(rng, (4, 4))
    sets = chain_sets(pairs, [(test, (8, 8))])
    assert sets
    read = chain_reading(sets[0], test, (8, 8))
    assert np.array_equal(np.where(read < 0, 0, read), up_fill_roll(test))
    # the chain's lattices end on the output's, or the chain gives no reading
    assert chain_reading(sets[0], test, (8, 9)) is None


def test_chain_lattices_and_their_mismatch():
    chain = Chain(True, ((2, 1, 0, 1, 1, 0), (1, 1, 1, 1, 2, 0)))  # turned, rows doubled, then one more, columns halved
    assert chain.shapes((3, 4)) == [(4, 3), (8, 3), (9, 1)]
    assert chain_shapes((3, 4), (9, 1), chain)[-1] == (9, 1)
    with pytest.raises(LatticeMismatch):
        chain_shapes((3, 4), (9, 2), chain)


def chain_task(seed: int) -> Task:
    rng = np.random.default_rng(seed)
    xs = [drawn(rng, shape) for shape in [(3, 4), (4, 3), (3, 5)]]
    test = drawn(rng, (4, 4))
    return Task(
        id="chain",
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(up_fill_roll(x))) for x in xs],
        test=[Pair(input=Grid.from_numpy(test), output=Grid.from_numpy(up_fill_roll(test)))],
    )


def test_solve_many_fits_a_chain_on_its_own_lattices():
    task = chain_task(6)
    solutions = []
    solve_many([(task, SolveConfig(device="cpu", steps=100, seed=0))], solutions.append, batch=2)
    [solution] = solutions
    assert solution.candidates[0].verified and solution.candidates[0].grids[0] == task.test[0].output


def test_solve_fits_a_chain_of_three_actions():
    task = chain_task(6)
    solution = solve(task, SolveConfig(device="cpu", steps=100, seed=0))
    assert solution.candidates[0].grids[0] == task.test[0].output
    assert "a chain of" in solution.candidates[0].detail


def test_a_chain_ranks_after_one_head_and_before_two_heads_with_a_table():
    chain = ActionSet((ExactAction(),), 3, 5, chain=Chain(False, ((2, 1, 0, 2, 1, 0),) * 3), steps=(ExactAction(),) * 3)
    one_head = ActionSet((ExactAction(shift=(1, 0)),), 9, 9)
    two_heads = ActionSet((ExactAction(), ExactAction(shift=(0, 1))), 0, 0)
    staged = ActionSet((ExactAction(),), 0, 0, stage=ExactAction(scale=(2, 2)), middle=(2, 2))
    ranked = sorted([two_heads, staged, chain, one_head], key=ActionSet.rank)
    assert ranked == [one_head, chain, two_heads, staged]
