"""Chains of one-axis lattice actions: each step an exact action of its own stage, onto a
lattice of its own size, found on the train pairs and fitted as a chained first layer."""

import numpy as np
import pytest

from arcsolve.latformer.batched import solve_many
from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.chains import GAPS, STEPS, axis_chains, chain_reading, chain_sets, line_colours
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
    for step in STEPS + GAPS:
        for n in range(1, 8):
            after = step.side(n)
            if after is None:
                continue
            expected = step.apply(np.arange(n)[None])[0]
            in_shape, out_shape = ((n, 2), (after, 2)) if axis == 0 else ((2, n), (2, after))
            cells = source_cells(step.action(axis), in_shape, out_shape).reshape(out_shape)
            line = cells[:, 0] // 2 if axis == 0 else cells[0, :]
            line = np.where(step.reads(after), line, -1)  # a gap's lines read nothing (`Chain.gaps`)
            assert np.array_equal(np.where(line >= 0, line, -1), expected), (step, n)


def test_axis_chains_are_fewest_steps_first_and_one_per_map():
    found = axis_chains((3, 4), (6, 8))  # every side doubled
    assert [len(steps) for steps in found.steps] == sorted(len(steps) for steps in found.steps)
    assert len(found.steps[0]) == 1  # one step: up-scaled or tiled
    assert [m.shape[1] for m in found.maps] == [6, 8]
    maps = {found.maps[0][i].tobytes() + found.maps[1][i].tobytes() for i in range(len(found.steps))}
    assert len(maps) == len(found.steps)


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


def separated(x: np.ndarray) -> np.ndarray:
    """Tiled 2×2 with a line of colour 5 between the copies: padded by one cell of 5 after
    each axis, tiled, then the last line cropped."""
    return np.tile(np.pad(x, ((0, 1), (0, 1)), constant_values=5), (2, 2))[:-1, :-1]


def swapped_chain(x: np.ndarray) -> np.ndarray:
    """`up_fill_roll`, then colours 3 and 7 swapped."""
    y = up_fill_roll(x)
    return np.select([y == 3, y == 7], [7, 3], y)


def test_cells_that_read_nothing_may_take_a_separator_colour():
    rng = np.random.default_rng(3)
    xs = [np.where(drawn(rng, shape) == 5, 1, drawn(rng, shape)) for shape in [(3, 4), (4, 3), (2, 5)]]
    pairs = [(x, separated(x)) for x in xs]
    sets = chain_sets(pairs)
    assert sets, "no chain with the separator's colour where the chain reads nothing"
    test = np.array([[1, 2, 0], [3, 4, 6]])
    read = chain_reading(sets[0], test, separated(test).shape)
    assert np.array_equal(np.where(read < 0, 5, read), separated(test))
    assert line_colours(pairs)[0] == 5  # the colour of the most whole lines is tried first


def test_a_chain_with_a_colour_swap_is_found_and_solved():
    rng = np.random.default_rng(4)
    xs = []
    for shape in [(3, 4), (4, 3), (3, 5)]:
        x = drawn(rng, shape)
        x[0, 0], x[-1, -1] = 3, 7  # both colours of the swap in every input
        xs.append(x)
    pairs = [(x, swapped_chain(x)) for x in xs]
    [found] = chain_sets(pairs, most=1)  # through a colour table: no chain copies the cells
    assert found.chain is not None
    test = drawn(rng, (4, 4))
    test[1, 1], test[2, 2] = 3, 7
    task = Task(
        id="swapped-chain",
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(y)) for x, y in pairs],
        test=[Pair(input=Grid.from_numpy(test), output=Grid.from_numpy(swapped_chain(test)))],
    )
    solution = solve(task, SolveConfig(device="cpu", steps=100, seed=0))
    assert solution.candidates[0].verified and "a chain of" in solution.candidates[0].detail
    assert solution.candidates[0].grids[0] == task.test[0].output


def test_a_chain_through_a_lattice_with_no_cell_reads_nothing():
    # cropped by two columns, then padded by two: a 2-wide grid has no lattice in between
    chain = Chain(False, ((1, 1, 0, 1, 1, -2), (1, 1, 0, 1, 1, 2)))
    start = ActionSet(
        (ExactAction(),), 0, 0, chain=chain, steps=(ExactAction(shift=(0, -1), fill=True), ExactAction(fill=True))
    )
    assert chain_reading(start, np.ones((3, 5), dtype=int), (3, 5)) is not None
    assert chain_reading(start, np.ones((3, 2), dtype=int), (3, 2)) is None


def with_grid_lines(x: np.ndarray) -> np.ndarray:
    """Each cell a 2×2 block, a line of colour 5 between every two blocks: up-scaled 3×3,
    the last line of every three read nothing, the last line cropped."""
    y = np.kron(x, np.ones((3, 3), dtype=x.dtype))
    y[2::3, :], y[:, 2::3] = 5, 5
    return y[:-1, :-1]


def test_a_gap_leaves_lines_of_its_step_unread():
    chain = Chain(False, ((3, 1, 0, 1, 1, 0), (1, 1, 0, 1, 1, 0)), ((1, 1, 1, 1), (3, 2, 1, 1)))
    assert chain.read_lines(0, (6, 2)) is None
    read = chain.read_lines(1, (6, 2)).reshape(6, 2)
    assert read[:, 0].tolist() == [1, 1, 0, 1, 1, 0] and (read[:, 0] == read[:, 1]).all()


def test_grid_lines_between_up_scaled_cells_are_a_chain_with_a_gap():
    rng = np.random.default_rng(8)
    xs = [np.where(drawn(rng, shape) == 5, 1, drawn(rng, shape)) for shape in [(3, 4), (4, 3), (2, 5)]]
    test = np.where(drawn(rng, (4, 4)) == 5, 2, drawn(rng, (4, 4)))
    task = Task(
        id="grid-lines",
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(with_grid_lines(x))) for x in xs],
        test=[Pair(input=Grid.from_numpy(test), output=Grid.from_numpy(with_grid_lines(test)))],
    )
    [found] = chain_sets([(x, with_grid_lines(x)) for x in xs], most=1)
    assert found.chain.gaps  # the gap's step reads two lines of every three
    solution = solve(task, SolveConfig(device="cpu", steps=100, seed=0))
    assert solution.candidates[0].verified and "read nothing" in solution.candidates[0].detail
    assert solution.candidates[0].grids[0] == task.test[0].output
