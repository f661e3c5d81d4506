"""Stretches: an axis of the input's lattice laid over the output's, so that each example is
scaled by its own factor. The gates only exact starts switch on, the reading they give
(against the model's own kernels), when they are offered, and a self-similar tiling of
grids whose sizes vary (kron(x ≠ 0, x)) solved and explained, by `solve` and `solve_many`."""

import numpy as np
import pytest

from arcsolve.latformer.exact_starts.actions import ExactAction, expressible, gate_bits
from arcsolve.latformer.exact_starts.candidates import stretched_reads
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.readings import kernel_source_cells, reading, source_cells
from arcsolve.latformer.experts import MaskExperts
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair
from tests.grids import solved_in_a_batch, train_arrays

EXPERTS = ("translate", "rotate", "reflect", "scale")


def self_tiling(x: np.ndarray) -> np.ndarray:
    """The input placed wherever the input has colour: h·h × w·w."""
    return np.kron((x != 0).astype(x.dtype), x)


def tiling_task(shapes, seed: int = 0) -> Task:
    """Self-similar tilings of random grids of `shapes` (the last one the test)."""
    rng = np.random.default_rng(seed)
    grids = [np.where(rng.random(s) < 0.6, rng.integers(1, 10, s), 0) for s in shapes]
    pairs = [(Grid.from_numpy(x), Grid.from_numpy(self_tiling(x))) for x in grids]
    train = [TrainPair(input=x, output=y) for x, y in pairs[:-1]]
    return Task(id="self-tiling", train=train, test=[Pair(input=pairs[-1][0], output=pairs[-1][1])])


def test_stretches_are_gates_of_their_own_that_go_with_the_scale_expert():
    plain, stretching = MaskExperts(EXPERTS), MaskExperts(EXPERTS, stretches=True)
    assert "stretch" not in plain.enabled and len(stretching.gate_bias) == len(plain.gate_bias) + 2
    action = ExactAction(stretch=(True, False))
    assert gate_bits(plain, action) is None and gate_bits(stretching, action) is not None
    stretching.allow(("translate", "rotate", "reflect"))  # a task's priors rule the scale expert out
    assert gate_bits(stretching, action) is None


def test_a_stretched_axis_does_nothing_else():
    assert expressible(ExactAction(3, stretch=(True, True)))
    assert expressible(ExactAction(0, (2, 0), stretch=(False, True)))  # a shift of the other axis
    assert not expressible(ExactAction(0, (0, 2), stretch=(False, True)))  # a shift of its own
    assert not expressible(ExactAction(0, scale=(2, 1), stretch=(True, False)))
    assert not expressible(ExactAction(0, (1, 0), fill=True, stretch=(False, True)))
    assert expressible(ExactAction(0, (1, 0), fill=True))  # a shift with fill needs no stretch


@pytest.mark.parametrize("seed", range(3))
def test_the_numpy_reading_of_a_stretch_is_the_kernels_reading(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        stretch = [(True, True), (True, False), (False, True)][int(rng.integers(3))]
        # the other axis scaled, shifted or mirrored, or not
        other = 1 if stretch == (True, False) else 0
        scale, shift, mirror = [1, 1], [0, 0], [False, False]
        if not all(stretch):
            scale[other] = int(rng.choice([1, 2, 3]))
            shift[other] = int(rng.integers(-2, 3))
            mirror[other] = bool(rng.random() < 0.3)
        action = ExactAction(int(rng.integers(8)), tuple(shift), tuple(scale), mirror=tuple(mirror), stretch=stretch)
        in_shape = tuple(int(v) for v in rng.integers(1, 9, 2))
        out_shape = tuple(int(v) for v in rng.integers(1, 25, 2))
        quick, kernel = source_cells(action, in_shape, out_shape), kernel_source_cells(action, in_shape, out_shape)
        assert quick is not None and np.array_equal(quick, kernel), (action, in_shape, out_shape)


def test_a_stretch_scales_each_grid_by_its_own_factor():
    action = ExactAction(stretch=(True, True))
    for side in (2, 3, 4):
        x = np.arange(side * side).reshape(side, side)
        assert np.array_equal(reading(action, x, (side * side,) * 2), np.kron(x, np.ones((side, side), int)))
    x = np.arange(12).reshape(3, 4)  # laid over a smaller lattice: every other column
    assert np.array_equal(reading(action, x, (3, 2)), x[:, ::2])
    assert action.words() == "stretched to the output's size (rows and columns)"


def test_stretches_are_offered_only_where_the_pairs_scale_by_different_factors():
    by_three = [(np.zeros((2, 3)), np.zeros((6, 9))), (np.zeros((4, 2)), np.zeros((12, 6)))]
    assert stretched_reads(by_three) == []  # one factor: an up-scaling by it reads alike
    own = [(np.zeros((2, 2)), np.zeros((4, 4))), (np.zeros((3, 3)), np.zeros((9, 9)))]
    assert ExactAction(0, stretch=(True, True)) in stretched_reads(own)
    rows_only = [(np.zeros((2, 5)), np.zeros((4, 5))), (np.zeros((3, 4)), np.zeros((9, 4)))]
    assert ExactAction(0, stretch=(True, False)) in stretched_reads(rows_only)
    down = [(np.zeros((6, 6)), np.zeros((3, 3))), (np.zeros((9, 12)), np.zeros((3, 3)))]
    assert ExactAction(0, stretch=(True, True)) in stretched_reads(down)
    mixed = [(np.zeros((2, 2)), np.zeros((4, 4))), (np.zeros((6, 6)), np.zeros((3, 3)))]
    assert stretched_reads(mixed) == []  # grown on one pair, shrunk on another: no lattice read
    one_cell = [(np.zeros((2, 2)), np.zeros((1, 1))), (np.zeros((3, 3)), np.zeros((1, 1)))]
    assert stretched_reads(one_cell) == []  # a pick of one cell, not a sampling


def test_a_self_similar_tiling_of_grids_of_several_sizes_is_a_tiling_and_a_stretch():
    task = tiling_task([(2, 2), (3, 3), (4, 3), (3, 2)])
    test = task.test[0]
    sets = consistent_sets(train_arrays(task), [(test.input.to_numpy(), test.output.shape)])
    assert sets[0].actions == (ExactAction(0), ExactAction(0, stretch=(True, True)))


def test_a_self_similar_tiling_of_grids_of_several_sizes_is_solved_and_explained():
    task = tiling_task([(2, 2), (3, 3), (4, 3), (3, 2)])
    best = solve(task, SolveConfig(device="cpu", steps=300, seed=0)).candidates[0]
    assert best.grids[0] == task.test[0].output and best.verified
    assert "stretched to the output's size (rows and columns)" in best.detail


def test_grids_of_several_sizes_sampled_down_to_one_size_are_a_stretch():
    rng = np.random.default_rng(3)
    grids = [np.where(rng.random((s, s)) < 0.6, rng.integers(1, 10, (s, s)), 0) for s in (6, 9, 12, 15)]
    pairs = [(Grid.from_numpy(x), Grid.from_numpy(x[:: len(x) // 3, :: len(x) // 3])) for x in grids]
    task = Task(
        id="sampled",
        train=[TrainPair(input=x, output=y) for x, y in pairs[:-1]],
        test=[Pair(input=pairs[-1][0], output=pairs[-1][1])],
    )
    best = solve(task, SolveConfig(device="cpu", steps=300, seed=0)).candidates[0]
    assert best.grids[0] == task.test[0].output and best.verified
    assert "stretched to the output's size (rows and columns)" in best.detail


def test_solve_many_fits_a_stretch_as_solve_does():
    task = tiling_task([(2, 2), (3, 3), (4, 3), (3, 2)])
    config = SolveConfig(device="cpu", steps=300, seed=0)
    batched = solved_in_a_batch(task, config)
    assert batched.candidates[0].grids == solve(task, config).candidates[0].grids == (task.test[0].output,)
