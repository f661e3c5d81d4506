"""Staged first layers: heads onto a middle lattice, then a stage (an up-scaling, tiling or
mirror tiling) onto the output; the masks, the search for staged starts, and their fits."""

import numpy as np
import pytest
import torch

from arcsolve.latformer.batched import solve_many
from arcsolve.latformer.exact_starts.actions import ExactAction, set_action
from arcsolve.latformer.exact_starts.colours import set_readings
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.staged import middle_outputs, stage_options, staged_sets
from arcsolve.latformer.fit import predict, solve
from arcsolve.latformer.model import LatFormer, LatFormerConfig, middle_shape
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Task
from tests.grids import task_from, train_arrays

RNG = np.random.default_rng(3)
SAMPLE_COLUMNS = ExactAction(0, scale=(1, 2), down=True)  # every second column
UP_THEN_MIRRORED = ExactAction(0, scale=(2, 2), mirror=(False, True))  # up 2x2, columns tiled as mirror images


def sampled_mirrored_scaled(x: np.ndarray) -> np.ndarray:
    """Every second column, tiled 1x2 as mirror images, then each cell up-scaled 2x2."""
    sampled = x[:, ::2]
    return np.kron(np.concatenate([sampled, sampled[:, ::-1]], axis=1), np.ones((2, 2), dtype=x.dtype))


def task_of(make, shapes, test_shape) -> Task:
    return task_from(make, shapes, test_shape, RNG, task_id="staged")


def test_the_middle_lattice_divides_the_outputs_sides():
    assert middle_shape((8, 12), (2, 4)) == (4, 3)
    with pytest.raises(ValueError, match="no 2x4 multiple"):
        middle_shape((8, 10), (2, 4))


def test_a_staged_head_reads_through_its_stage():
    model = LatFormer(LatFormerConfig(middle=(2, 4)))
    assert set_action(model.layers[0].experts, SAMPLE_COLUMNS)
    assert set_action(model.layers[0].stage, UP_THEN_MIRRORED)
    model.eval()
    for shape in [(3, 4), (2, 8), (5, 6)]:
        x = RNG.integers(0, 10, size=shape)
        got = predict(model, Grid.from_numpy(x), (2 * shape[0], 2 * shape[1]), torch.device("cpu"))
        assert got == Grid.from_numpy(sampled_mirrored_scaled(x))


def test_stage_options_divide_every_side():
    options = stage_options([12, 24])
    assert (1, 1, False) in options and (3, 4, True) in options and (2, 3, False) in options
    assert (5, 1, False) not in options and (1, 1, True) not in options  # one copy is never mirrored
    assert all(12 % (g * t) == 0 for g, t, _ in options)


def test_outputs_read_back_through_a_stage_or_refused():
    task = task_of(sampled_mirrored_scaled, [(3, 4), (5, 6), (4, 4)], (2, 8))
    pairs = train_arrays(task)
    inner = middle_outputs(pairs, UP_THEN_MIRRORED, (2, 4))
    assert inner is not None
    for (x, _), (_, mid) in zip(pairs, inner, strict=True):
        assert np.array_equal(mid, x[:, ::2])
    assert middle_outputs(pairs, ExactAction(0, scale=(2, 2), mirror=(False, False)), (2, 4)) is None  # tiled plainly


def test_a_chain_ending_in_a_tiling_and_up_scaling_is_a_staged_start_and_is_solved():
    task = task_of(sampled_mirrored_scaled, [(3, 4), (5, 6), (4, 4)], (2, 8))
    pairs = train_arrays(task)
    tests = [(task.test[0].input.to_numpy(), task.test[0].output.shape)]
    staged = staged_sets(pairs, tests)
    assert any(s.actions == (SAMPLE_COLUMNS,) and s.stage == UP_THEN_MIRRORED and s.middle == (2, 4) for s in staged)
    best = consistent_sets(pairs, tests)[0]
    assert best.stage is not None
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs])
    assert np.array_equal(set_readings(best, pairs)[0], outputs)  # the identity rule, through the stage
    solution = solve(task, SolveConfig(device="cpu", seed=0))
    assert solution.candidates[0].verified and solution.candidates[0].grids[0] == task.test[0].output
    words = "(onto a middle lattice, the output's sides over 2x4), then up-scale 2x2, then tiled 1x2 (columns as mirror"
    assert words + " images)" in solution.candidates[0].detail.replace("\n", " ")


def test_a_middle_lattice_of_one_cell_a_pair_is_chance_not_a_start():
    # every output one colour, the input's at a fixed cell: three cells to explain, and
    # hundreds of one-head actions that read one cell to choose from
    xs = [RNG.integers(0, 10, size=s) for s in [(4, 5), (5, 4), (4, 4)]]
    for x, colour in zip(xs, (3, 3, 5), strict=True):
        x[1, 2] = colour  # two pairs alike: a rule, not a table of positions
    pairs = [(x, np.full((2, 2), x[1, 2])) for x in xs]
    assert middle_outputs(pairs, ExactAction(0), (2, 2)) is not None  # a 1x1 middle lattice, tiled 2x2
    assert all(s.middle != (2, 2) for s in staged_sets(pairs))


def test_solve_many_fits_a_staged_start_on_its_own_lattices():
    task = task_of(sampled_mirrored_scaled, [(3, 4), (5, 6), (4, 4)], (2, 8))
    solutions = []
    solve_many([(task, SolveConfig(device="cpu", seed=0))], solutions.append, batch=2)
    [solution] = solutions
    assert solution.candidates[0].verified and solution.candidates[0].grids[0] == task.test[0].output
