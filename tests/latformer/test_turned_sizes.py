"""Square train inputs leave open whether the output's axes are the input's or swapped; an
action that swaps them (a quarter turn, a transpose) decides the size of a test input that
is not square."""

import numpy as np

from arcsolve.latformer.fit import plan_fit, solve
from arcsolve.latformer.sizing import alternative_sizes, infer_size_rule, turned_rule
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair


def task_of(rule, inputs: list[np.ndarray], test: np.ndarray) -> Task:
    return Task(
        id="t",
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(rule(x))) for x in inputs],
        test=[Pair(input=Grid.from_numpy(test), output=Grid.from_numpy(rule(test)))],
    )


def drawn(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return np.where(rng.random(shape) < 0.5, rng.integers(1, 10, shape), 0)


def test_the_turned_rule_only_where_the_train_pairs_leave_the_axes_open():
    square = [((4, 4), (8, 8)), ((3, 3), (6, 6))]
    rule = infer_size_rule(square)
    turned = turned_rule(rule, square, [(2, 5)])
    assert rule((2, 5)) == (4, 10) and turned((2, 5)) == (10, 4)
    assert turned_rule(rule, square, [(3, 3)]) is None  # a square test: either rule gives its size
    oblong = [((4, 2), (8, 4))]
    assert turned_rule(infer_size_rule(oblong), oblong, [(2, 5)]) is None  # the pairs tell the axes apart
    # the rule chosen is left out of the alternatives, the first one among them
    assert [r((2, 5)) for r in alternative_sizes(square, [(2, 5)], most=3, chosen=turned)][0] == (4, 10)


def test_a_quarter_turn_of_square_train_inputs_turns_the_test_size():
    rng = np.random.default_rng(3)
    task = task_of(np.rot90, [drawn(rng, (4, 4)), drawn(rng, (4, 4))], drawn(rng, (7, 5)))
    plan = plan_fit(task, SolveConfig(device="cpu"))
    assert plan.rule(task.test[0].input.shape) == (5, 7)
    solution = solve(task, SolveConfig(device="cpu", steps=50, seed=0))
    assert solution.candidates[0].grids[0] == task.test[0].output


def test_a_flip_of_square_train_inputs_keeps_the_test_size():
    rng = np.random.default_rng(4)
    task = task_of(np.flipud, [drawn(rng, (4, 4)), drawn(rng, (5, 5))], drawn(rng, (7, 5)))
    assert plan_fit(task, SolveConfig(device="cpu")).rule(task.test[0].input.shape) == (7, 5)
