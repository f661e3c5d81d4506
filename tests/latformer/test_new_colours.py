"""Test inputs drawn in colours that no train grid shows: the starts are ranked as if the test
were drawn in the pairs' own colours, so a set is not preferred for reading the new colours
least."""

import numpy as np

from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.consistent import consistent_sets, drawn_as_seen
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair

# one train pair, drawn in 0 and 2 only; the test in colours no train grid shows
TRAIN = np.array([[2, 0, 2], [2, 2, 0]])
TEST = np.array([[6, 9], [0, 8], [9, 8], [6, 6], [7, 9]])


def up2(x: np.ndarray) -> np.ndarray:
    return np.kron(x, np.ones((2, 2), dtype=x.dtype))


def test_new_colours_are_drawn_in_the_most_frequent_free_colour():
    pairs = [(TRAIN, up2(TRAIN))]
    # the background is the colour every input shows most, 2 here, so 0 is the free colour
    # that the new ones are drawn in
    assert np.array_equal(drawn_as_seen(TEST, pairs), np.zeros_like(TEST))
    other = np.array([[1, 1, 0], [0, 1, 3], [0, 0, 0]])
    pairs = [(other, up2(other))]
    assert np.array_equal(drawn_as_seen(np.array([[5, 0], [3, 1]]), pairs), np.array([[1, 0], [3, 1]]))
    # no new colour, or no free colour (the pair adds 4 and removes 0): unchanged
    assert drawn_as_seen(other, pairs) is other
    added = [(np.zeros((2, 2), dtype=int), np.full((2, 2), 4))]
    grid = np.array([[7, 0]])
    assert drawn_as_seen(grid, added) is grid


def test_the_plain_up_scaling_ranks_first_when_the_test_is_drawn_in_new_colours():
    sets = consistent_sets([(TRAIN, up2(TRAIN))], [(TEST, (10, 4))])
    # before, a turn and a shift with fill ranked first: it reads nothing on many test cells,
    # and the cells that read the new colours counted against every set that reads them
    assert sets[0].actions == (ExactAction(scale=(2, 2)),)


def test_solve_answers_an_up_scaling_drawn_in_new_colours():
    task = Task(
        id="up2",
        train=[TrainPair(input=Grid.from_numpy(TRAIN), output=Grid.from_numpy(up2(TRAIN)))],
        test=[Pair(input=Grid.from_numpy(TEST), output=Grid.from_numpy(up2(TEST)))],
    )
    solution = solve(task, SolveConfig(device="cpu", steps=100, seed=0))
    assert solution.candidates[0].grids[0] == task.test[0].output
