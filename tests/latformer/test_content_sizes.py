"""Output sizes that count the input's content (`content_size_rule`): each grid scaled by its
number of colours, a row as long as its number of cells; tried only where no rule of the
shapes alone fits, and solved with the stretch that scales each grid by its own factor."""

import numpy as np
import pytest

from arcsolve.latformer.fit import solve
from arcsolve.latformer.sizing import content_size_rule, infer_size_rule, repeat_side
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair


def scaled_by_colours(x: np.ndarray) -> np.ndarray:
    q = len(np.unique(x[x != 0]))
    return np.kron(x, np.ones((q, q), dtype=x.dtype))


def sparse_grid(rng, shape, colours: int) -> np.ndarray:
    """A grid with `colours` non-zero colours, each on one or two cells."""
    x = np.zeros(shape, dtype=np.int64)
    cells = rng.permutation(x.size)
    picked = rng.choice(np.arange(1, 10), colours, replace=False)
    counts = rng.integers(1, 3, colours)
    at = 0
    for c, k in zip(picked, counts, strict=True):
        x.flat[cells[at : at + k]] = c
        at += k
    return x


def task_of(pairs) -> Task:
    train = [TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(y)) for x, y in pairs[:-1]]
    x, y = pairs[-1]
    return Task(id="content-size", train=train, test=[Pair(input=Grid.from_numpy(x), output=Grid.from_numpy(y))])


def test_each_grid_scaled_by_its_number_of_colours():
    rng = np.random.default_rng(0)
    pairs = [(x, scaled_by_colours(x)) for x in (sparse_grid(rng, (3, 3), k) for k in (2, 3, 4))]
    assert infer_size_rule([(x.shape, y.shape) for x, y in pairs]) is None  # no rule of the shapes
    rule = content_size_rule(pairs)
    assert rule.name == "multiplied by its number of colours"
    assert rule(sparse_grid(rng, (3, 3), 5)) == (15, 15)
    assert rule(Grid.from_numpy(sparse_grid(rng, (2, 4), 3))) == (6, 12)  # a Grid too


def test_a_content_rule_needs_the_grid_not_its_shape():
    rng = np.random.default_rng(1)
    rule = content_size_rule([(x, scaled_by_colours(x)) for x in (sparse_grid(rng, (3, 3), k) for k in (2, 3))])
    with pytest.raises(TypeError, match="reads the grid"):
        rule((3, 3))


@pytest.mark.parametrize(
    ("pairs", "name"),
    [
        # a row as long as the input's cells of colour, every output one row high
        ([(np.array([[1, 0], [0, 1]]), np.ones((1, 2))), (np.array([[2, 2], [0, 2]]), np.ones((1, 3)))],
         "rows fixed 1, columns q, q its number of cells"),
        # as many columns as objects, the rows unchanged
        ([(np.array([[1, 0, 1], [0, 0, 0]]), np.ones((2, 2))), (np.array([[1, 0, 1], [0, 1, 0]]), np.ones((2, 3))),
          (np.array([[3, 3, 0], [0, 0, 0]]), np.ones((2, 1)))],
         "rows n, columns q, q its number of objects"),
        # a row of n cells drawn into n·q rows and columns
        ([(np.array([[1, 0, 2, 0, 0]]), np.ones((10, 10))), (np.array([[0, 0, 5, 0, 0]]), np.ones((5, 5)))],
         "rows m·q, columns n·q, q its number of colours"),
    ],
)
def test_a_side_may_be_the_count_fixed_unchanged_or_from_the_other_axis(pairs, name):
    assert content_size_rule(pairs).name == name


def test_no_content_rule_where_no_count_explains_the_sizes():
    pairs = [(np.array([[1, 2]]), np.ones((5, 7))), (np.array([[3, 3]]), np.ones((2, 9)))]
    assert content_size_rule(pairs) is None


def test_a_task_scaled_by_its_number_of_colours_is_solved_by_a_stretch():
    rng = np.random.default_rng(2)
    task = task_of([(x, scaled_by_colours(x)) for x in (sparse_grid(rng, (3, 3), k) for k in (2, 3, 4, 3))])
    best = solve(task, SolveConfig(device="cpu", seed=0)).candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output
    assert "stretched to the output's size" in best.detail
    assert "size multiplied by its number of colours" in best.detail


def test_the_repeating_part_of_a_grid_along_each_axis():
    x = np.array([[1, 2, 1, 2, 1, 2], [3, 0, 3, 0, 3, 0]])
    assert (repeat_side(x, 0), repeat_side(x, 1)) == (2, 2)
    assert repeat_side(np.vstack([x, x]), 0) == 2
    assert repeat_side(np.array([[1, 2, 1]]), 1) == 3  # not whole copies: no repeat


def test_grids_doubled_along_either_axis_are_halved_along_it():
    rng = np.random.default_rng(4)
    parts = [rng.integers(0, 10, s) for s in ((3, 4), (4, 3), (2, 5), (3, 3))]
    copies = [(1, 2), (2, 1), (1, 3), (2, 1)]  # along the columns, the rows, the columns, the rows
    doubled = [np.tile(part, reps) for part, reps in zip(parts, copies, strict=True)]
    pairs = list(zip(doubled, parts, strict=True))
    rule = content_size_rule(pairs[:3])
    assert rule.name == "one repeat of the input's copies"
    assert rule(doubled[3]) == (3, 3)
    best = solve(task_of(pairs), SolveConfig(device="cpu", seed=0)).candidates[0]
    assert best.verified and best.grids[0] == Grid.from_numpy(parts[3])
