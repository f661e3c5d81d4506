"""Chains whose lattices on the way are larger than a grid may be (a tiling cropped back),
chains of one axis that the search would otherwise cut off, and the order of one axis's
steps chosen to share stages with the other axis's."""

import numpy as np

from arcsolve.latformer.exact_starts.chains import MAX_LATTICE, AxisStep, axis_chains, chain_reading, chain_sets
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from arcsolve.tasks import MAX_SIDE, Grid, Pair, Task, TrainPair


def drawn(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return np.where(rng.random(shape) < 0.5, rng.integers(1, 10, shape), 0)


def through(x: np.ndarray, rows: list[AxisStep], cols: list[AxisStep]) -> np.ndarray:
    """x read through one sequence of steps on its rows and one on its columns (0 where a
    step reads nothing)."""
    r, c = np.arange(x.shape[0])[None], np.arange(x.shape[1])[None]
    for step in rows:
        r = step.apply(r)
    for step in cols:
        c = step.apply(c)
    edged = np.zeros((x.shape[0] + 1, x.shape[1] + 1), dtype=x.dtype)
    edged[:-1, :-1] = x
    return edged[r[0][:, None], c[0][None, :]]  # NOTHING (-1) reads the last row or column: 0


def task_of(pairs: list[tuple[np.ndarray, np.ndarray]], test: tuple[np.ndarray, np.ndarray]) -> Task:
    return Task(
        id="chain",
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(y)) for x, y in pairs],
        test=[Pair(input=Grid.from_numpy(test[0]), output=Grid.from_numpy(test[1]))],
    )


# rows tiled by 2, then a mirror tiling by 2, then 2 rows cropped from the top: an 8-row input
# passes a 32-row lattice on its way to 30 rows; columns tiled by 2, then cropped 2 and 1
TILED_ROWS = [AxisStep("tile", 2), AxisStep("mirror", 2), AxisStep("crop", 2, 0)]
TILED_COLS = [AxisStep("tile", 2), AxisStep("crop", 2, 1)]


def test_a_tiling_larger_than_a_grid_then_cropped_is_a_chain():
    rng = np.random.default_rng(3)
    xs = [drawn(rng, shape) for shape in [(8, 6), (6, 10), (8, 10)]]
    assert 4 * 8 > MAX_SIDE and MAX_LATTICE >= 4 * 8
    pairs = [(x, through(x, TILED_ROWS, TILED_COLS)) for x in xs]
    assert max(y.shape[0] for _, y in pairs) == MAX_SIDE
    test = drawn(rng, (7, 9))
    truth = through(test, TILED_ROWS, TILED_COLS)
    sets = chain_sets(pairs, [(test, truth.shape)])
    assert sets
    read = chain_reading(sets[0], test, truth.shape)
    assert np.array_equal(np.where(read < 0, 0, read), truth)


def test_the_tiled_chain_is_solved_at_attempt_1():
    rng = np.random.default_rng(4)
    xs = [drawn(rng, shape) for shape in [(8, 6), (6, 10), (8, 10)]]
    test = drawn(rng, (7, 9))
    task = task_of([(x, through(x, TILED_ROWS, TILED_COLS)) for x in xs], (test, through(test, TILED_ROWS, TILED_COLS)))
    solution = solve(task, SolveConfig(device="cpu", fit_seconds=20))
    assert solution.candidates[0].grids[0] == task.test[0].output


def test_one_axis_chains_of_equal_sides_are_not_cut_off():
    # six cells cropped to four, tiled by 3, mirror-tiled by 2, moved 2 with fill: of the
    # thousands of maps that take 6 cells to 24, this one comes late in the search's order
    found = axis_chains((6, 6, 6), (24, 24, 24))
    wanted = (AxisStep("crop", 0, 2), AxisStep("tile", 3), AxisStep("mirror", 2), AxisStep("fill", -2))
    line = np.arange(6)[None]
    for step in wanted:
        line = step.apply(line)
    assert any(np.array_equal(m, line[0]) for m in found.maps[0])


def test_steps_are_ordered_to_share_stages_across_the_axes():
    # columns tiled by 2, padded 2 on the left, then sampled 1 of 2: as a map the same as tiled
    # by 2, sampled, then padded 1, which the search meets first. Only the first order shares
    # every stage with the rows' steps (tiled by 3, padded 1 at the bottom, sampled), so the
    # chain takes 3 stages, few enough for a colour table (a swap of two colours)
    rows = [AxisStep("tile", 3), AxisStep("pad", 0, 1), AxisStep("down", 2)]
    cols = [AxisStep("tile", 2), AxisStep("pad", 2, 0), AxisStep("down", 2)]
    found = axis_chains((4, 7, 8), (5, 8, 9))
    line = [np.arange(n)[None] for n in (4, 7, 8)]
    for step in cols:
        line = [step.apply(m) for m in line]
    place = next(
        i
        for i in range(len(found.steps))
        if all(np.array_equal(m[i], want[0]) for m, want in zip(found.maps, line, strict=True))
    )
    assert tuple(cols) in found.orders[place]
    assert found.steps[place] == found.orders[place][0]

    rng = np.random.default_rng(6)
    swap = np.arange(10)
    swap[[1, 2]] = [2, 1]
    xs = [drawn(rng, shape) for shape in [(7, 4), (5, 7), (3, 8)]]
    pairs = [(x, swap[through(x, rows, cols)]) for x in xs]
    sets = chain_sets(pairs)
    assert sets and sets[0].recoloured
    assert len(sets[0].steps) == 3
