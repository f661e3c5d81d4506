"""LatFormer on outputs that are what a box hides: the whole picture is repaired from its
mirror image, then the box cut out."""

import numpy as np

from arcsolve.hidden_boxes import PastedTask
from arcsolve.latformer.fit import plan_fit, solve
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair

HIDING = 5


def hidden_pair(rng, box_shape, cls=TrainPair, at=None):
    """A picture that is its own mirror image left to right, with a box of colour HIDING
    painted over a part of its left half (or with its corner at `at`); the output is what the
    box hides."""
    half = rng.choice([1, 2, 3, 4, 6], size=(8, 5))
    picture = np.concatenate([half, half[:, ::-1]], axis=1)
    h, w = box_shape
    r, c = at or (rng.integers(0, 8 - h + 1), rng.integers(0, 5 - w + 1))
    painted = picture.copy()
    painted[r : r + h, c : c + w] = HIDING
    return cls(input=Grid.from_numpy(painted), output=Grid.from_numpy(picture[r : r + h, c : c + w].copy()))


def hidden_box_task(seed=5, test_at=None):
    rng = np.random.default_rng(seed)
    train = [hidden_pair(rng, s) for s in [(2, 3), (3, 2), (3, 3)]]
    return Task(id="hidden-box", train=train, test=[hidden_pair(rng, (2, 4), Pair, test_at)])


def test_the_box_is_repaired_in_the_whole_picture_and_cut_out():
    task = hidden_box_task()
    plan = plan_fit(task, SolveConfig(device="cpu"))
    assert plan is not None and isinstance(plan.view, PastedTask) and plan.view.colour == HIDING
    best = solve(task, SolveConfig(device="cpu", steps=100)).candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output
    assert best.detail.startswith(f"latformer (the box of colour {HIDING} repaired in place, then cut out: ")


def test_without_the_view_the_task_has_no_plan():
    # the outputs' sizes are the boxes', which no rule of the inputs' shapes gives
    assert plan_fit(hidden_box_task(), SolveConfig(device="cpu"), crops=False) is None


def test_a_repair_that_leaves_cells_hidden_is_not_verified():
    # the test's box straddles the mirror axis: its cells' mirror images are hidden too
    task = hidden_box_task(test_at=(2, 3))
    best = solve(task, SolveConfig(device="cpu", steps=100)).candidates[0]
    assert (best.grids[0].to_numpy() == HIDING).all()
    assert not best.verified and "8 cells of the box still hidden" in best.detail
