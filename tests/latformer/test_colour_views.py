"""LatFormer in colour views: where no exact start explains the task as given, its pairs are
planned again with their colours renumbered (`arcsolve.colour_views`), and a start found
there is fitted there; the answers come back in the task's own colours, explained."""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from arcsolve.colour_views import viewed, views_for
from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.fit import plan_fit, solve
from arcsolve.latformer.restarts import Restart
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair
from tests.conftest import ROOT
from tests.grids import solved_in_a_batch

CONFIG = SolveConfig(device="cpu", seed=0)


def commonest_tiling_task(n_train: int = 3, seed: int = 0) -> Task:
    """3×3 grids of three colours, a different three in each pair, one of them on four or five
    cells; the output places the grid wherever its commonest colour lies (kron(x == c, x))."""
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n_train + 1):
        common, *others = rng.choice(np.arange(1, 10), 3, replace=False)
        cells = np.array([common] * int(rng.integers(4, 6)) + list(rng.choice(others, 9)))[:9]
        x = rng.permutation(cells).reshape(3, 3)
        pairs.append((Grid.from_numpy(x), Grid.from_numpy(np.kron((x == common).astype(x.dtype), x))))
    train = [TrainPair(input=x, output=y) for x, y in pairs[:-1]]
    return Task(id="commonest-tiling", train=train, test=[Pair(input=pairs[-1][0], output=pairs[-1][1])])


def test_a_task_whose_colours_change_roles_is_planned_in_the_ranked_view():
    task = commonest_tiling_task()
    plan = plan_fit(task, CONFIG)
    assert plan.view is not None and plan.view.view.name == "ranked"
    # the plan fits the viewed pairs: the commonest colour is 1 in every input
    assert all(np.bincount(p.input.to_numpy().ravel()).argmax() == 1 for p in plan.task.train)


def test_the_answer_found_in_a_view_comes_back_in_the_tasks_colours():
    task = commonest_tiling_task()
    best = solve(task, CONFIG).candidates[0]
    assert best.verified
    assert best.grids[0] == task.test[0].output
    assert best.detail.startswith("latformer (colours ranked by frequency: layer 0: 2 heads")


def test_without_views_the_task_as_given_has_no_start_that_explains_it(monkeypatch):
    monkeypatch.setattr("arcsolve.latformer.fit.views_for", lambda grids: [])
    task = commonest_tiling_task()
    plan = plan_fit(task, CONFIG)
    assert plan.view is None
    start = next((r.start for r in plan.restarts if r.start is not None), None)
    assert start is None or start.unseen > 0


def test_a_task_explained_as_given_is_not_planned_again(monkeypatch):
    planned = []
    monkeypatch.setattr("arcsolve.latformer.fit.viewed", lambda task, name: planned.append(name))
    rotate = load_tasks(ROOT / "tasks" / "rotate.json")[0]
    assert plan_fit(rotate, CONFIG).view is None and planned == []


def test_views_are_skipped_once_the_fit_cap_has_passed():
    task = commonest_tiling_task()
    assert plan_fit(task, CONFIG, deadline=0.0, clock=lambda: 1.0).view is None


def test_solve_many_fits_a_view_as_solve_does():
    task = commonest_tiling_task()
    got = solved_in_a_batch(task, CONFIG).candidates[0]
    assert got.verified and got.grids[0] == task.test[0].output
    assert got.detail.startswith("latformer (colours ranked by frequency:")


def test_a_task_whose_inputs_all_hold_the_same_colours_is_not_planned_in_views(monkeypatch):
    # 44f52bb0: 1 where the grid of 2s is symmetric, else 7. Taking the commoner of 0 and 2
    # for the background in some pairs only, a view reads the centre cell consistently, by chance
    planned = []
    monkeypatch.setattr("arcsolve.latformer.fit.viewed", lambda task, name: planned.append(name))
    monkeypatch.setattr("arcsolve.latformer.fit.content_cropped", lambda task: None)  # the task as given only
    [task] = load_tasks("arc1/training/44f52bb0")
    assert plan_fit(task, CONFIG).view is None and planned == []


def start_of(actions: int, unseen: int) -> ActionSet:
    return ActionSet(tuple(ExactAction(dihedral) for dihedral in range(actions)), unsupported=0, unseen=unseen)


@pytest.mark.parametrize(("in_view", "chosen"), [(1, "ranked"), (2, None), (3, None)])
def test_a_view_is_taken_only_with_fewer_actions_than_the_task_as_given_needs(monkeypatch, in_view, chosen):
    # as given: two actions, a test reading the pairs never show; in the ranked view: `in_view`
    # actions that leave nothing unseen
    def planned(task, *args):
        actions, unseen = (in_view, 0) if task.id == "viewed" else (2, 3)
        return SimpleNamespace(task=task, restarts=[Restart(3, start_of(actions, unseen))], view=None)

    monkeypatch.setattr("arcsolve.latformer.fit._plan", planned)
    monkeypatch.setattr("arcsolve.latformer.fit.views_for", lambda grids: ["ranked"])

    def seen_as_viewed(task, name):  # the real view, its task named so that `planned` tells it apart
        seen = viewed(task, name)
        return replace(seen, task=seen.task.model_copy(update={"id": "viewed"}))

    monkeypatch.setattr("arcsolve.latformer.fit.viewed", seen_as_viewed)
    plan = plan_fit(commonest_tiling_task(), CONFIG)
    assert (plan.view.view.name if plan.view is not None else None) == chosen


def marker_recolouring_task(seed: int = 2, shared: bool = False) -> Task:
    """A blob in one colour and a marker cell in another at the bottom-left corner, different
    colours in every pair and new ones in the test (with `shared`, the second pair's marker is
    the first pair's blob colour); the output paints the blob in the marker's colour and
    clears the marker."""
    rng = np.random.default_rng(seed)
    colours = rng.permutation(np.arange(1, 10))
    pairs = []
    for k in range(4):
        blob, marker = (int(c) for c in colours[2 * k : 2 * k + 2])
        if shared and k == 1:
            marker = int(colours[0])
        x = np.zeros((6, 6), dtype=np.int64)
        x[1:5, 1:6] = np.where(rng.random((4, 5)) < 0.7, blob, 0)
        x[2, 2] = blob
        x[5, 0] = marker
        y = np.where(x == blob, marker, 0)
        pairs.append((Grid.from_numpy(x), Grid.from_numpy(y)))
    train = [TrainPair(input=x, output=y) for x, y in pairs[:-1]]
    return Task(id="marker-recolouring", train=train, test=[Pair(input=pairs[-1][0], output=pairs[-1][1])])


@pytest.mark.parametrize(
    ("shared", "pairs", "given", "in_view", "chosen"),
    [
        (False, 3, 2, 2, "ranked"),
        (False, 3, 2, 3, None),
        (False, 3, 1, 1, "ranked"),
        (False, 3, 1, 2, None),
        (True, 3, 1, 1, None),
        (False, 1, 1, 1, None),
    ],
)
def test_inputs_in_colours_of_their_own_take_a_view_with_as_many_actions(
    monkeypatch, shared, pairs, given, in_view, chosen
):
    # as given: `given` actions that read the test's new colours, unseen on the train pairs;
    # in the ranked view: `in_view` actions that leave nothing unseen. With `shared`, two train
    # inputs share a colour that the third does not hold: colours are named, not roles; one
    # train pair shows no colours changing from pair to pair
    def planned(task, *args):
        actions, unseen = (in_view, 0) if task.id == "viewed" else (given, 3)
        return SimpleNamespace(task=task, restarts=[Restart(3, start_of(actions, unseen))], view=None)

    monkeypatch.setattr("arcsolve.latformer.fit._plan", planned)
    monkeypatch.setattr("arcsolve.latformer.fit.views_for", lambda grids: ["ranked"])

    def seen_as_viewed(task, name):
        seen = viewed(task, name)
        return replace(seen, task=seen.task.model_copy(update={"id": "viewed"}))

    monkeypatch.setattr("arcsolve.latformer.fit.viewed", seen_as_viewed)
    task = marker_recolouring_task(shared=shared)
    plan = plan_fit(task.model_copy(update={"train": task.train[:pairs]}), CONFIG)
    assert (plan.view.view.name if plan.view is not None else None) == chosen


def test_a_recolouring_by_a_marker_in_new_test_colours_is_solved_in_the_ranked_view(monkeypatch):
    task = marker_recolouring_task()
    best = solve(task, CONFIG).candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output
    assert best.detail.startswith("latformer (colours ranked by frequency: layer 0: identity")
    monkeypatch.setattr("arcsolve.latformer.fit.views_for", lambda grids: [])
    plan = plan_fit(task, CONFIG)  # as given, one head whose table meets the test's new colours
    start = next(r.start for r in plan.restarts if r.start is not None)
    assert plan.view is None and len(start.actions) == 1 and start.unseen > 0


def test_a_start_that_copies_cells_explains_a_test_colour_the_pairs_never_show(monkeypatch):
    # a quarter turn of grids in colours 1-5, the test drawn in 6-9 as well: its readings are
    # new, but a head that copies what it reads copies them too, so no view is planned
    planned = []
    monkeypatch.setattr("arcsolve.latformer.fit.viewed", lambda task, name: planned.append(name))
    rng = np.random.default_rng(3)
    grids = [rng.integers(1, 6, (3, 4)) for _ in range(3)] + [rng.integers(1, 10, (3, 4))]
    pairs = [(Grid.from_numpy(x), Grid.from_numpy(np.rot90(x, -1))) for x in grids]
    task = Task(
        id="turned",
        train=[TrainPair(input=x, output=y) for x, y in pairs[:-1]],
        test=[Pair(input=pairs[-1][0], output=pairs[-1][1])],
    )
    plan = plan_fit(task, CONFIG)
    start = next(r.start for r in plan.restarts if r.start is not None)
    assert start.unseen > 0 and len(start.actions) == 1
    assert plan.view is None and planned == []


def test_a_view_whose_outputs_take_as_many_colours_is_not_planned(monkeypatch):
    # every coloured cell becomes 5, the inputs drawn in other colours in each pair: ranked,
    # the outputs still take 0 and 5, so the view gives no two colours one role
    planned = []
    monkeypatch.setattr("arcsolve.latformer.fit._plan", lambda task, *args: planned.append(task.id) or
                        SimpleNamespace(task=task, restarts=[], view=None))
    rng = np.random.default_rng(5)
    pairs = []
    for a, b in ((1, 2), (3, 4), (6, 7), (8, 9)):
        x = rng.choice([0, 0, 0, a, b], (3, 3))
        pairs.append((Grid.from_numpy(x), Grid.from_numpy(np.where(x != 0, 5, 0))))
    task = Task(
        id="painted",
        train=[TrainPair(input=x, output=y) for x, y in pairs[:-1]],
        test=[Pair(input=pairs[-1][0], output=pairs[-1][1])],
    )
    assert views_for([p.input.to_numpy() for p in task.train]) == ["ranked"]
    plan_fit(task, CONFIG)
    assert planned == ["painted"]  # the task as given, and no view
