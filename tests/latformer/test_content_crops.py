"""LatFormer with inputs cropped to their content: content drawn at different places on grids
of different sizes lies on one lattice there."""

import numpy as np

from arcsolve.content_crops import CroppedTask, InPlaceTask
from arcsolve.latformer.fit import _explains, plan_fit, solve
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair


def placed(rng, shape, part):
    """`part` drawn at a random place on a grid of zeros of `shape`."""
    grid = np.zeros(shape, dtype=int)
    r, c = rng.integers(0, shape[0] - part.shape[0] + 1), rng.integers(0, shape[1] - part.shape[1] + 1)
    grid[r : r + part.shape[0], c : c + part.shape[1]] = part
    return grid


def part(rng, shape):
    """A random part whose box is its own: a coloured cell on each of its four edges."""
    x = np.where(rng.random(shape) < 0.5, rng.integers(1, 10, size=shape), 0)
    x[0, 0], x[-1, -1] = rng.integers(1, 10), rng.integers(1, 10)
    return x


def flipped_part_task(seed=3):
    """Each output is the input's part, flipped left to right: no rule of the grids' shapes
    gives the outputs' sizes, so the task as given gets no plan."""
    rng = np.random.default_rng(seed)

    def pair(grid_shape, part_shape, cls=TrainPair):
        p = part(rng, part_shape)
        return cls(input=Grid.from_numpy(placed(rng, grid_shape, p)), output=Grid.from_numpy(p[:, ::-1].copy()))

    train = [pair((8, 9), (3, 4)), pair((10, 7), (4, 3)), pair((9, 9), (2, 5))]
    return Task(id="flipped-part", train=train, test=[pair((11, 10), (4, 4), Pair)])


def test_a_part_found_anywhere_is_planned_and_solved_on_its_own_lattice():
    task = flipped_part_task()
    plan = plan_fit(task, SolveConfig(device="cpu"))
    assert plan is not None and isinstance(plan.view, CroppedTask)
    assert plan_fit(task, SolveConfig(device="cpu"), crops=False) is None  # as given: no size rule
    best = solve(task, SolveConfig(device="cpu", steps=100)).candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output
    assert best.detail.startswith("latformer (inputs cropped to their content: layer 0: flip left-right")


def test_a_task_explained_as_given_is_not_cropped():
    rng = np.random.default_rng(4)
    xs = [placed(rng, (6, 6), part(rng, (2, 3))) for _ in range(4)]
    pairs = [(x, x[::-1].copy()) for x in xs]  # the whole grid flipped up-down
    task = Task(
        id="flipped",
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(y)) for x, y in pairs[:3]],
        test=[Pair(input=Grid.from_numpy(pairs[3][0]), output=Grid.from_numpy(pairs[3][1]))],
    )
    plan = plan_fit(task, SolveConfig(device="cpu"))
    assert plan is not None and plan.view is None


def flipped_in_place_task(seed=6):
    """Each output is its input with the part flipped left to right where it lies: the
    axis is the part's own, at another place in every pair."""
    rng = np.random.default_rng(seed)

    def pair(part_shape, cls=TrainPair):
        p = part(rng, part_shape)
        x = placed(rng, (10, 10), p)
        rows, cols = np.flatnonzero(x.any(1)), np.flatnonzero(x.any(0))
        box = slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1)
        y = x.copy()
        y[box] = x[box][:, ::-1]
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(y))

    train = [pair((3, 4)), pair((4, 3)), pair((2, 5))]
    return Task(id="flipped-in-place", train=train, test=[pair((4, 4), Pair)])


def test_a_part_changed_where_it_lies_is_planned_on_its_own_box():
    task = flipped_in_place_task()
    plan = plan_fit(task, SolveConfig(device="cpu"))
    assert plan is not None and isinstance(plan.view, InPlaceTask)
    assert not _explains(plan_fit(task, SolveConfig(device="cpu"), crops=False))  # as given: no start explains it
    best = solve(task, SolveConfig(device="cpu", steps=100)).candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output
    assert best.detail.startswith("latformer (the inputs' content changed in place: layer 0: flip left-right")
