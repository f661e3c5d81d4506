"""Two moves in a row that no one head writes: a one-head action, then a shift of the whole
output by the second layer (`moved_last`)."""

from __future__ import annotations

import numpy as np

from arcsolve.latformer.exact_starts import composed
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.composed import moved_last
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.readings import reading, then_reading
from arcsolve.latformer.exact_starts.single_heads import single_actions
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair
from tests.grids import shifted_with_fill, task_from


def task_of(make, shapes, test_shape, rng, colours=5):
    task = task_from(make, shapes, test_shape, rng, colours)
    return task.train, task.test[0]


def test_a_roll_then_a_shift_with_fill_is_a_head_and_a_later_shift_that_fit():
    rng = np.random.default_rng(3)

    def make(x):  # rolled by (3, 1), then shifted by (-1, 2) with fill: the vacated cells are 0
        return shifted_with_fill(np.roll(x, (3, 1), (0, 1)), -1, 2)

    train, test = task_of(make, [(4, 5), (7, 4), (5, 8), (6, 6)], (6, 7), rng)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    assert not single_actions(pairs)  # no one shift writes it
    found = moved_last(pairs)
    assert (found[0].actions, found[0].then) == ((ExactAction(0, (3, 1)),), ExactAction(0, (-1, 2), fill=True))
    for x, y in pairs:  # as the kernels read it: the roll, then the shift of its result
        assert np.array_equal(np.maximum(then_reading(found[0].then, reading(found[0].actions[0], x, y.shape)), 0), y)
    assert any(s.then == found[0].then and s.actions == found[0].actions for s in consistent_sets(pairs))
    solution = solve(Task(id="roll-then-fill", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert "layer 1: shift -1,+2 with fill" in solution.candidates[0].detail.replace("\n", " ")
    assert solution.candidates[0].grids[0] == test.output


def test_two_fills_that_clear_opposite_edges_are_found():
    rng = np.random.default_rng(4)

    def make(x):  # up by 3 with fill, then down by 1: the top row and the bottom two are cleared
        return shifted_with_fill(shifted_with_fill(x, -3, 0), 1, 0)

    train, _ = task_of(make, [(6, 4), (7, 5), (8, 3)], (7, 7), rng)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    assert not single_actions(pairs)
    (first, *_) = moved_last(pairs)
    for x, y in pairs:
        assert np.array_equal(np.maximum(then_reading(first.then, reading(first.actions[0], x, y.shape)), 0), y)


def test_an_up_scaling_shifted_by_output_cells_is_a_scaled_head_then_a_shift():
    rng = np.random.default_rng(5)

    def make(x):  # blown up 3×2, then shifted by (2, 1) output cells with fill: no whole input cells
        return shifted_with_fill(np.kron(x, np.ones((3, 2), dtype=x.dtype)), 2, 1)

    train, _ = task_of(make, [(3, 4), (4, 3), (2, 5)], (4, 4), rng)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    assert not single_actions(pairs)
    (first, *_) = moved_last(pairs)
    assert first.actions[0].scale == (3, 2) and first.then == ExactAction(0, (2, 1), fill=True)


def test_the_screen_keeps_the_least_moved_heads_when_its_cells_run_out(monkeypatch):
    rng = np.random.default_rng(3)

    def make(x):
        return shifted_with_fill(np.roll(x, (3, 1), (0, 1)), -1, 2)

    train, _ = task_of(make, [(4, 5), (7, 4), (5, 8)], (6, 7), rng)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    smallest = min(y.size for _, y in pairs)
    monkeypatch.setattr(composed, "MOVED_SCREEN_CELLS", 20 * smallest)  # 20 heads: shifts of 0 to 2
    assert moved_last(pairs) == []  # the roll by (3, 1) is not among them
    monkeypatch.setattr(composed, "MOVED_SCREEN_CELLS", 1000 * smallest)
    assert moved_last(pairs)[0].actions == (ExactAction(0, (3, 1)),)


def test_shifts_alike_on_the_train_lattices_but_not_on_the_tests_are_two_starts():
    rng = np.random.default_rng(6)

    def make(x):  # rolled 2 columns, blown up 2×2, then moved down 1 output row with fill
        return shifted_with_fill(np.kron(np.roll(x, (0, 2), (0, 1)), np.ones((2, 2), dtype=x.dtype)), 1, 0)

    train, test = task_of(make, [(3, 4), (5, 4), (4, 2)], (4, 3), rng)  # a roll by 2 or by −2, until the test
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    tests = [(test.input.to_numpy(), test.output.to_numpy().shape)]
    rolls = {s.actions[0].shift for s in moved_last(pairs, tests) if s.actions[0].scale == (2, 2)}
    assert {(0, 2), (0, -2)} <= rolls
    assert len({s.actions[0].shift for s in moved_last(pairs) if s.actions[0].scale == (2, 2)} & {(0, 2), (0, -2)}) == 1


def test_a_second_layer_start_learns_a_colour_swap():
    """Shifted up 2 and right 1 with fill, colours 4 and 6 swapped, then rolled back down 2
    and left 1: a head's shift and the second layer's roll, with a cell rule that swaps two
    colours and keeps the others (an unseen one too)."""
    rng = np.random.default_rng(7)

    def make(x):
        moved = shifted_with_fill(x, -2, 1)
        swapped = np.select([moved == 4, moved == 6], [6, 4], moved)
        return np.roll(swapped, (2, -1), (0, 1))

    def grid(shape, colours):
        return rng.choice(colours, size=shape)

    shapes, colours = [(3, 4), (6, 7), (4, 7)], [0, 0, 0, 4, 6, 7, 8]
    train = [TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(make(x)))
             for x in (grid(s, colours) for s in shapes)]
    x = grid((5, 5), [0, 0, 4, 6, 9])  # 9: a colour no train pair shows
    test = Pair(input=Grid.from_numpy(x), output=Grid.from_numpy(make(x)))
    solution = solve(Task(id="moved-swapped", train=train, test=[test]), SolveConfig(device="cpu"))
    first = solution.candidates[0]
    assert first.verified and first.grids[0] == test.output
    # the simplest start fits (at the plain fits' learning rate it stalled, and a table of
    # two heads' readings answered instead)
    assert "layer 0: shift -2,+1 with fill (no wrap); layer 1: shift +2,-1 (cyclic)" in first.detail.replace("\n", " ")


def test_samplings_wrapped_as_mirror_images_come_after_the_commoner_heads():
    """Shifted with fill, tiled 1×2 as mirror images, then rolled up two rows: the head (a
    shift with fill inside each mirror image) is within the screen's budget of heads because
    the samplings wrapped as mirror images, rarer before a shift, are screened after it."""
    rng = np.random.default_rng(6)

    def make(x):
        moved = shifted_with_fill(x, 1, 2)
        return np.roll(np.concatenate([moved, moved[:, ::-1]], axis=1), -2, axis=0)

    train, _ = task_of(make, [(7, 6), (8, 4), (5, 6)], (6, 5), rng)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    head = ExactAction(0, (1, 2), fill=True, mirror=(False, True), tiled_fill=True)
    assert any(s.actions == (head,) and s.then == ExactAction(0, (-2, 0)) for s in moved_last(pairs))
