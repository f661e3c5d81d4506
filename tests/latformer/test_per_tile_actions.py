"""Per-tile actions: where the output is a tiling of the input's size (or its transpose's),
each tile of a head takes its own exact action; and exact restarts fitted with rounded
gates."""

import numpy as np
import pytest
import torch

from arcsolve.latformer.exact_starts.actions import ExactAction, set_action
from arcsolve.latformer.exact_starts.candidates import output_periods, output_symmetries, part_offsets
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.per_tile import per_tile_sets, tiling
from arcsolve.latformer.exact_starts.readings import reading
from arcsolve.latformer.explain import describe_actions
from arcsolve.latformer.fit import FitConfig, fit, predict, solve, task_examples
from arcsolve.latformer.model import LatFormer, LatFormerConfig, tile_cells
from arcsolve.solution import SolveConfig
from arcsolve.symmetry import ELEMENT_NAMES, apply_dihedral
from arcsolve.tasks import Grid, Task
from tests.grids import solved_in_a_batch, task_from, train_arrays

RNG = np.random.default_rng(7)
ROT90, ROT180, ROT270 = (ELEMENT_NAMES.index(f"rotate {n}") for n in ("90 clockwise", "180", "90 counter-clockwise"))


def rotations_tiling(x: np.ndarray) -> np.ndarray:
    """[[x, rot90 x], [rot270 x, rot180 x]] as the model's actions read them (checked below)."""
    return np.block([[x, apply_dihedral(x, ROT90)], [apply_dihedral(x, ROT270), apply_dihedral(x, ROT180)]])


def task_of(make, shapes, test_shape) -> Task:
    return task_from(make, shapes, test_shape, RNG, task_id="tiles")


def test_tile_cells_mark_each_output_cell_with_its_tile():
    on = tile_cells((4, 6), (2, 2))
    tiles = on.argmax(0).view(4, 6)
    assert on.sum(0).eq(1).all()
    assert tiles.tolist() == [[0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 1], [2, 2, 2, 3, 3, 3], [2, 2, 2, 3, 3, 3]]
    canvas = tile_cells((4, 6), (2, 2), side=8)
    assert canvas.shape == (4, 64) and canvas.sum() == 24 and canvas[:, 6:8].sum() == 0  # padding in no tile


def test_per_tile_sets_find_each_tiles_rotation():
    task = task_of(rotations_tiling, [(3, 3), (3, 3), (4, 4)], (5, 5))
    pairs = train_arrays(task)
    assert tiling(pairs) == (2, 2)
    (found,) = per_tile_sets(pairs, [(task.test[0].input.to_numpy(), (10, 10))])
    assert found.tiles == (2, 2)
    assert [a.dihedral for a in found.actions] == [0, ROT90, ROT270, ROT180]
    assert found.unseen == 0
    assert found in consistent_sets(pairs)  # offered among the exact starts


def mirror_then_tiled(x: np.ndarray, mirror: int, tiles: int) -> np.ndarray:
    """x tiled `mirror` times each way as mirror images, and that block tiled `tiles` times."""
    rows = [x if r % 2 == 0 else x[::-1] for r in range(mirror)]
    block = np.concatenate(rows, axis=0)
    block = np.concatenate([block if c % 2 == 0 else block[:, ::-1] for c in range(mirror)], axis=1)
    return np.tile(block, (tiles, tiles))


def test_per_tile_sets_reach_tilings_of_eighty_one_tiles():
    # a 3x3 mirror tiling tiled 3x3: 81 tiles, each the input or one of its flips
    task = task_of(lambda x: mirror_then_tiled(x, 3, 3), [(2, 3), (3, 2), (2, 2)], (3, 3))
    pairs = train_arrays(task)
    assert tiling(pairs) == (9, 9)
    test = task.test[0]
    (found,) = per_tile_sets(pairs, [(test.input.to_numpy(), test.output.to_numpy().shape)])
    assert len(found.actions) == 81
    assert {a.dihedral for a in found.actions} == {0, ELEMENT_NAMES.index("flip up-down"),
                                                   ELEMENT_NAMES.index("flip left-right"), ROT180}
    tile_rows = [found.actions[9 * r].dihedral for r in range(9)]
    assert tile_rows == [0, ELEMENT_NAMES.index("flip up-down"), 0] * 3
    x, y = test.input.to_numpy(), test.output.to_numpy()  # the test output, read exactly
    tile = tile_cells(y.shape, (9, 9)).argmax(0).numpy()
    read = np.stack([reading(a, x, y.shape).reshape(-1) for a in found.actions])[tile, np.arange(y.size)]
    assert (read == y.reshape(-1)).all()


def test_per_tile_sets_shift_a_tiles_copy_cyclically():
    # the input rolled by one row and one column, then tiled 2x1 as mirror images
    def make(x):
        rolled = np.roll(x, (1, 1), axis=(0, 1))
        return np.concatenate([rolled, rolled[::-1]], axis=0)

    task = task_of(make, [(4, 5), (5, 4), (4, 4)], (5, 5))
    pairs = train_arrays(task)
    test = task.test[0]
    (found,) = per_tile_sets(pairs, [(test.input.to_numpy(), test.output.to_numpy().shape)])
    assert found.tiles == (2, 1) and all(a.shift != (0, 0) and not a.fill for a in found.actions)
    for x, y in pairs + [(test.input.to_numpy(), test.output.to_numpy())]:  # the actions read the outputs exactly
        tile = tile_cells(y.shape, (2, 1)).argmax(0).numpy()
        read = np.stack([reading(a, x, y.shape).reshape(-1) for a in found.actions])[tile, np.arange(y.size)]
        assert (read == y.reshape(-1)).all()


def test_tiles_of_the_transposes_size_take_their_own_actions():
    # a non-square input turned a quarter and tiled twice down, then that block mirrored below
    # it: t, t, flipped t, flipped t, which neither a tiling nor a mirror tiling writes
    def make(x):
        block = np.tile(apply_dihedral(x, ROT90), (2, 1))
        return np.concatenate([block, block[::-1]], axis=0)

    task = task_of(make, [(2, 3), (3, 5), (4, 2)], (2, 5))
    pairs = train_arrays(task)
    assert tiling(pairs) == (4, 1)
    test = task.test[0]
    (found,) = per_tile_sets(pairs, [(test.input.to_numpy(), test.output.to_numpy().shape)])
    assert all(a.dihedral >= 4 for a in found.actions)  # each tile reads the input turned
    x, y = test.input.to_numpy(), test.output.to_numpy()  # the test output, read exactly
    tile = tile_cells(y.shape, (4, 1)).argmax(0).numpy()
    read = np.stack([reading(a, x, y.shape).reshape(-1) for a in found.actions])[tile, np.arange(y.size)]
    assert (read == y.reshape(-1)).all()
    solution = solve(task, SolveConfig(device="cpu", steps=300, seed=0))
    assert solution.candidates[0].verified and solution.candidates[0].grids[0] == test.output


def test_a_plain_tiling_needs_no_per_tile_actions():
    task = task_of(lambda x: np.tile(x, (2, 3)), [(3, 3), (2, 4)], (3, 2))
    assert tiling(train_arrays(task)) == (2, 3)
    assert per_tile_sets(train_arrays(task)) == []
    assert (ExactAction(),) in {s.actions for s in consistent_sets(train_arrays(task))}


def test_outputs_that_are_no_tiling_get_no_per_tile_sets():
    task = task_of(lambda x: x[:, ::-1], [(3, 3), (3, 4)], (2, 2))
    assert tiling(train_arrays(task)) is None and per_tile_sets(train_arrays(task)) == []
    # the rows sampled every third cell, each tile at its own row: a flip, which one head has
    assert tiling(train_arrays(task), (3, 1)) == (3, 1)
    # (a sampling, then each tile's action, is at most a second opinion beside the one head)
    assert all(s.tiles == (1, 1) for s in consistent_sets(train_arrays(task)) if not s.second)


def test_a_head_with_per_tile_gates_computes_each_tiles_action_and_is_explained():
    model = LatFormer(LatFormerConfig(tiles=(2, 2)))
    assert len(model.layers[0].gate_sets) == 4 and len(model.layers[0].heads) == 1
    for gates, d in zip(model.layers[0].gate_sets, [0, ROT90, ROT270, ROT180], strict=True):
        assert set_action(gates, ExactAction(d))
    model.eval()
    x = RNG.integers(1, 10, size=(4, 4))
    got = predict(model, Grid.from_numpy(x), (8, 8), torch.device("cpu"))
    assert got == Grid.from_numpy(rotations_tiling(x))
    words = describe_actions(model, [((4, 4), (8, 8))])
    tiles = "identity | rotate 90 clockwise / rotate 90 counter-clockwise | rotate 180"
    assert f"per tile of a 2x2 tiling: {tiles}" in words


def test_a_tiling_of_rotated_copies_is_solved_and_explained():
    task = task_of(rotations_tiling, [(3, 3), (3, 3), (4, 4)], (5, 5))
    solution = solve(task, SolveConfig(device="cpu", steps=300, seed=0))
    assert solution.candidates[0].grids[0] == task.test[0].output
    assert solution.candidates[0].verified
    assert "per tile of a 2x2 tiling" in solution.candidates[0].detail


@pytest.mark.parametrize(("side_by_side", "graphs"), [(False, False), (True, True)])
def test_solve_many_fits_per_tile_restarts_as_solve_does(side_by_side, graphs):
    task = task_of(rotations_tiling, [(3, 3), (3, 3), (4, 4)], (5, 5))
    config = SolveConfig(device="cpu", steps=300, seed=0)
    batched = solved_in_a_batch(task, config, side_by_side, graphs)
    expected = solve(task, config)
    assert batched.candidates[0].grids == expected.candidates[0].grids == (task.test[0].output,)


def test_rounded_gates_keep_the_actions_and_skip_the_smoothing_loss(monkeypatch):
    task = task_of(rotations_tiling, [(3, 3), (4, 4)], (2, 2))
    model = LatFormer(LatFormerConfig(tiles=(2, 2)))
    for gates, d in zip(model.layers[0].gate_sets, [0, ROT90, ROT270, ROT180], strict=True):
        set_action(gates, ExactAction(d))
    before = [g.gate_bias.detach().clone() for layer in model.layers for g in layer.gate_sets]
    calls = []
    forward = LatFormer.forward

    def spy(self, *args, **kwargs):
        calls.append((kwargs.get("discrete", False), kwargs.get("smooth", False)))
        return forward(self, *args, **kwargs)

    monkeypatch.setattr(LatFormer, "forward", spy)
    fit(model, task_examples(task, torch.device("cpu")), FitConfig(steps=3, check_every=100, rounded_gates=True))
    after = [g.gate_bias for layer in model.layers for g in layer.gate_sets]
    assert all(torch.equal(a, b) for a, b in zip(before, after, strict=True))
    training = calls[:3]  # the three steps' forwards, before the final check
    assert training == [(True, False)] * 3


@pytest.mark.parametrize(("factor", "offset"), [((2, 2), (0, 0)), ((2, 2), (1, 1)), ((3, 2), (2, 1))])
def test_down_scaling_by_sampling_reads_one_cell_of_each_block(factor, offset):
    x = RNG.integers(0, 10, size=(factor[0] * 4, factor[1] * 3))
    action = ExactAction(0, (-offset[0], -offset[1]), factor, down=True)
    assert (reading(action, x, (4, 3)) == x[offset[0] :: factor[0], offset[1] :: factor[1]]).all()
    assert "down-scale" in action.words() and "by sampling" in action.words()


def test_a_task_sampling_every_second_cell_is_solved_and_explained():
    task = task_of(lambda x: x[1::2, ::2], [(6, 6), (4, 8), (8, 4)], (6, 10))
    pairs = train_arrays(task)
    assert (ExactAction(0, (-1, 0), (2, 2), down=True),) in {s.actions for s in consistent_sets(pairs)}
    solution = solve(task, SolveConfig(device="cpu", steps=300, seed=0))
    assert solution.candidates[0].grids[0] == task.test[0].output
    assert "down-scale 2x2 by sampling" in solution.candidates[0].detail


def test_part_offsets_find_halves_thirds_and_quarters_with_or_without_separators():
    assert part_offsets(9, 4) == [0, 5]  # two halves and a separator
    assert part_offsets(12, 3) == [0, 3, 6, 9]  # four parts side by side (and the two halves' ends)
    assert part_offsets(14, 4) == [0, 5, 10]  # three parts, one separator line between each
    assert part_offsets(19, 4) == [0, 5, 10, 15]
    assert part_offsets(7, 2) == [0, 5]  # no whole spacing: the first and the last part only


def symmetric_picture(n: int, hidden: int) -> tuple[np.ndarray, np.ndarray]:
    """A picture symmetric left-right and up-down (a random quarter, mirrored), with a square
    of its cells hidden by colour 9 in the input."""
    quarter = RNG.integers(0, 9, size=(n, n))
    y = np.block([[quarter, quarter[:, ::-1]], [quarter[::-1], quarter[::-1, ::-1]]])
    x = y.copy()
    r, c = RNG.integers(0, 2 * n - 2, size=2)
    x[r : r + hidden, c : c + hidden] = 9
    return x, y


def test_the_outputs_symmetries_are_offered_for_completing_hidden_cells():
    pairs = [symmetric_picture(3, 2) for _ in range(3)]
    symmetries = output_symmetries(pairs)
    flips = {ELEMENT_NAMES.index(n) for n in ("flip left-right", "flip up-down", "rotate 180")}
    assert {a.dihedral for a in symmetries} == flips and all(a.shift == (0, 0) for a in symmetries)
    sets = consistent_sets(pairs)
    assert any(ExactAction() in s.actions and len(s.actions) >= 2 for s in sets)


def test_a_symmetry_about_an_off_centre_axis_is_a_reflection_after_a_shift_with_fill():
    y = np.zeros((7, 7), dtype=int)
    y[:, :5] = RNG.integers(1, 9, size=(7, 5))
    y[:, :5] = (y[:, :5] + y[:, 4::-1]) % 9  # symmetric about column 2, off the centre (3) by one
    found = output_symmetries([(y, y)], max_shift=2)
    lr = ELEMENT_NAMES.index("flip left-right")
    assert ExactAction(lr, (0, -2), fill=True) in found or ExactAction(lr, (0, 2), fill=True) in found
    for action in found:
        read = reading(action, y, y.shape)
        assert ((read == y) | (read == -1)).all()


def test_the_outputs_periods_are_offered_for_repairing_a_repeating_pattern():
    tile = RNG.integers(1, 9, size=(3, 4))
    pairs = []
    for shape in [(9, 12), (12, 8)]:
        y = np.tile(tile, (shape[0] // 3, shape[1] // 4))
        x = y.copy()
        x[4:6, 2:4] = 0
        pairs.append((x, y))
    periods = output_periods(pairs)
    assert [a.shift for a in periods] == [(-3, 0), (3, 0), (0, -4), (0, 4)]
    assert all(a.fill and a.dihedral == 0 for a in periods)
    for action in periods:  # each a translation of every output onto itself, as the model reads it
        for _, y in pairs:
            read = reading(action, y, y.shape)
            assert ((read == y) | (read == -1)).all()
    assert any(ExactAction() in s.actions and set(s.actions) & set(periods) for s in consistent_sets(pairs))


def test_tiles_of_a_sampled_grid_take_their_own_actions():
    """Every second row and column, then tiled 1×2 as mirror images: each tile is a copy of
    the sampled grid, the second flipped, so the tiles are half the input's size and the
    flipped one samples the odd columns of the flipped input. Fitted, it answers the test."""

    def make(x):
        sampled = x[::2, ::2]
        return np.concatenate([sampled, sampled[:, ::-1]], axis=1)

    assert tiling([(np.zeros((4, 6)), np.zeros((2, 6)))]) is None  # not input-sized tiles
    assert tiling([(np.zeros((4, 6)), np.zeros((2, 6)))], (2, 2)) == (1, 2)
    task = task_of(make, [(4, 6), (2, 4), (4, 4)], (6, 6))  # a sampled tile may be one row
    pairs = train_arrays(task)
    test = task.test[0]
    tests = [(test.input.to_numpy(), test.output.to_numpy().shape)]
    assert per_tile_sets(pairs, tests) == []  # not input-sized tiles
    (found,) = per_tile_sets(pairs, tests, sampled=True)
    assert found in consistent_sets(pairs, tests)  # no one head explains the pairs
    assert found.tiles == (1, 2) and all(a.down and a.scale == (2, 2) for a in found.actions)
    assert found.actions[0] == ExactAction(0, scale=(2, 2), down=True)
    for x, y in pairs + [(test.input.to_numpy(), test.output.to_numpy())]:  # the actions read the outputs exactly
        tile = tile_cells(y.shape, (1, 2)).argmax(0).numpy()
        read = np.stack([reading(a, x, y.shape).reshape(-1) for a in found.actions])[tile, np.arange(y.size)]
        assert (read == y.reshape(-1)).all()
    solution = solve(task, SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == test.output
