"""Local rules: an output cell that is a function of its input cell and up to three of its
neighbours, each neighbour read by a head that shifts by one cell with fill."""

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import edits_recur, is_function, train_cells
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.consistent import IDENTITY, NEIGHBOURS, consistent_sets
from arcsolve.latformer.exact_starts.readings import cell_keys, reading
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from tests.grids import task_from, train_arrays


def neighbour(dr: int, dc: int) -> ExactAction:
    """The head that reads the cell dr rows down and dc columns right of each output cell."""
    return ExactAction(0, (-dr, -dc), fill=True)


def between_left_and_right(x: np.ndarray) -> np.ndarray:
    """Empty cells whose left and right neighbours are both 1 become 2."""
    y = x.copy()
    gap = (x[:, 1:-1] == 0) & (x[:, :-2] == 1) & (x[:, 2:] == 1)
    y[:, 1:-1][gap] = 2
    return y


def inside_a_diagonal(x: np.ndarray) -> np.ndarray:
    """Cells of colour 1 whose up-left and down-right neighbours are 1 too become 3."""
    y = x.copy()
    inner = (x[1:-1, 1:-1] == 1) & (x[:-2, :-2] == 1) & (x[2:, 2:] == 1)
    y[1:-1, 1:-1][inner] = 3
    return y


def sparse_task(make, seed: int):
    """Three 9×9 train pairs and a 10×8 test, inputs of colour 1 on 0."""
    rng = np.random.default_rng(seed)
    return task_from(make, [(9, 9)] * 3, (10, 8), rng, colours=2, task_id=make.__name__)


def test_a_cell_between_two_neighbours_is_read_by_three_heads():
    pairs = train_arrays(sparse_task(between_left_and_right, seed=1))
    sets = [s.actions for s in consistent_sets(pairs)]
    assert {IDENTITY, neighbour(0, -1), neighbour(0, 1)} in [set(a) for a in sets]


def test_a_local_rule_on_a_diagonal_is_solved_at_attempt_1():
    task = sparse_task(inside_a_diagonal, seed=2)
    solution = solve(task, SolveConfig(device="cpu", seed=0))
    assert solution.candidates[0].grids[0] == task.test[0].output
    assert "3 heads" in solution.candidates[0].detail
    assert "shift -1,-1 with fill" in solution.candidates[0].detail
    assert "shift +1,+1 with fill" in solution.candidates[0].detail


def test_between_left_and_right_is_solved_at_attempt_1():
    task = sparse_task(between_left_and_right, seed=3)
    solution = solve(task, SolveConfig(device="cpu", seed=0))
    assert solution.candidates[0].grids[0] == task.test[0].output


DRIP_READS = (IDENTITY, neighbour(-1, -1), neighbour(-1, 0), neighbour(-1, 1))


def read_alike(pairs, reads) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The train cells' readings under `reads` as one key each, their own input colours and
    their output colours."""
    keys = cell_keys([np.concatenate([reading(a, x, y.shape).reshape(-1) for x, y in pairs]) for a in reads])
    own = np.concatenate([x.reshape(-1) for x, _ in pairs])
    return keys, own, train_cells(pairs)[0]


def drip_down(x: np.ndarray) -> np.ndarray:
    """Every empty cell takes the colour of the nearest coloured cell above it."""
    y = x.copy()
    for r in range(1, len(y)):
        y[r] = np.where(y[r] == 0, y[r - 1], y[r])
    return y


def test_a_table_of_edits_one_reading_each_is_no_local_rule():
    # three 3×3 pairs: read with three neighbours, nearly every changed cell reads alike
    # with no other, so a table would list the edits rather than a rule
    pairs = [
        (x, drip_down(x))
        for x in (
            np.array([[0, 0, 6], [0, 4, 0], [3, 0, 0]]),
            np.array([[0, 2, 0], [7, 0, 8], [0, 0, 0]]),
            np.array([[4, 0, 0], [0, 2, 0], [0, 0, 0]]),
        )
    ]
    changed = sum(int((x != y).sum()) for x, y in pairs)
    keys, own, outputs = read_alike(pairs, DRIP_READS)
    assert is_function(keys, outputs)  # the four reads do determine the outputs
    assert 2 * len(np.unique(keys[outputs != own])) > changed
    assert not edits_recur(keys, own, outputs)
    sets = [set(s.actions) for s in consistent_sets(pairs)]
    assert not any(len(a) >= 3 and a & set(NEIGHBOURS) for a in sets)


def test_edits_that_recur_keep_a_local_rule():
    pairs = train_arrays(sparse_task(between_left_and_right, seed=1))
    keys, own, outputs = read_alike(pairs, (IDENTITY, neighbour(0, -1), neighbour(0, 1)))
    assert edits_recur(keys, own, outputs)  # one reading, (0; 1, 1), changes every gap
