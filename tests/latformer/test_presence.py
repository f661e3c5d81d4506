"""The presence answer: where a cell rule depends only on which heads read a colour, test
readings of a colour no train pair reads are answered by that pattern."""

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.colours import presence_answer
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair

HALVES = ActionSet((ExactAction(), ExactAction(anchor=(False, True))), 0, 0)


def halves_xor(x: np.ndarray) -> np.ndarray:
    n = x.shape[1] // 2
    return np.where((x[:, :n] > 0) ^ (x[:, n:] > 0), 4, 0)


def drawn(rng: np.random.Generator, shape: tuple[int, int], colour: int) -> np.ndarray:
    return np.where(rng.random(shape) < 0.45, colour, 0)


def test_an_overlay_by_xor_answers_a_test_drawn_in_a_new_colour():
    rng = np.random.default_rng(14)
    xs = [drawn(rng, (4, 8), 1), drawn(rng, (3, 6), 5), drawn(rng, (5, 10), 1)]
    pairs = [(x, halves_xor(x)) for x in xs]
    test = drawn(rng, (4, 8), 4)  # colour 4: no pair draws it, and the rule writes it
    wrong = np.where((test[:, :4] > 0) | (test[:, 4:] > 0), 4, 0)  # a guess for the new readings
    answer = presence_answer(HALVES, pairs, test, wrong)
    assert answer is not None and np.array_equal(answer, halves_xor(test))
    # one colour besides the background on the train pairs: they do not show that its name
    # does not matter, so there is no such answer
    same = [(x, halves_xor(x)) for x in (drawn(rng, (4, 8), 1), drawn(rng, (3, 6), 1))]
    assert presence_answer(HALVES, same, test, wrong) is None


def test_a_rule_that_reads_the_colours_gets_no_presence_answer():
    rng = np.random.default_rng(15)
    xs = [drawn(rng, (4, 8), 1), drawn(rng, (3, 6), 5)]
    pairs = [(x, x[:, : x.shape[1] // 2]) for x in xs]  # the left half, its colours kept
    test = drawn(rng, (4, 8), 4)
    assert presence_answer(ActionSet((ExactAction(),), 0, 0), pairs, test, test[:, :4]) is None


def test_solve_gives_the_presence_answer_as_an_attempt():
    rng = np.random.default_rng(16)
    xs = [drawn(rng, (4, 8), 1), drawn(rng, (3, 6), 5), drawn(rng, (5, 10), 1)]
    test = drawn(rng, (4, 8), 4)
    task = Task(
        id="xor",
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(halves_xor(x))) for x in xs],
        test=[Pair(input=Grid.from_numpy(test), output=Grid.from_numpy(halves_xor(test)))],
    )
    solution = solve(task, SolveConfig(device="cpu", steps=200, seed=0))
    grids = [c.grids[0] for c in solution.candidates[:2]]
    assert task.test[0].output in grids


def test_a_pooling_start_gets_neither_a_swapped_nor_a_presence_answer():
    # a pooling head of 5×5 blocks reads 25 cells a block, more than one key can hold; its
    # readings are no colours of one head each: no colour to swap
    from arcsolve.latformer.exact_starts.colours import swapped_unseen

    rng = np.random.default_rng(17)
    pool = ActionSet((ExactAction(scale=(5, 5), down=True, pool=True),), 0, 0)  # 25 cells a block
    xs = [rng.integers(1, 4, (10, 10)), rng.integers(1, 4, (10, 5))]
    pairs = [(x, np.full((x.shape[0] // 5, x.shape[1] // 5), 5)) for x in xs]
    test = rng.integers(1, 4, (10, 10))
    test[0, 0] = test[7, 7] = 7  # a colour no train cell reads
    guess = np.full((2, 2), 5)
    assert swapped_unseen(pool, pairs, test, guess) is None
    assert presence_answer(pool, pairs, test, guess) is None


def test_the_presence_answer_comes_right_after_the_best_ahead_of_other_restarts():
    # two halves split by a column of 5, compared by xor: the test pairs colours that no
    # pair does (1 with 7, 4 with 4), and another start (three dihedral heads) also
    # reproduces the train pairs; the presence answer comes before its answer
    rows = {
        "train": [
            ([[0, 2, 0, 5, 2, 0, 0], [0, 9, 1, 5, 0, 9, 0], [9, 1, 9, 5, 1, 9, 0]], [[1, 1, 0], [0, 0, 1], [0, 0, 1]]),
            ([[0, 0, 4, 5, 0, 6, 0], [1, 0, 4, 5, 2, 0, 0], [6, 0, 6, 5, 2, 4, 0]], [[0, 1, 1], [0, 0, 1], [0, 1, 1]]),
            ([[6, 0, 0, 5, 0, 0, 0], [1, 1, 0, 5, 0, 7, 0], [0, 0, 1, 5, 0, 0, 7]], [[1, 0, 0], [1, 0, 0], [0, 0, 0]]),
        ],
        "test": (
            [[0, 1, 0, 5, 0, 7, 4], [4, 0, 0, 5, 7, 1, 0], [4, 0, 0, 5, 0, 4, 1]],
            [[0, 0, 1], [0, 1, 0], [1, 1, 1]],
        ),
    }
    grid = Grid.from_numpy
    task = Task(
        id="halves-xor",
        train=[TrainPair(input=grid(np.array(x)), output=grid(np.array(y))) for x, y in rows["train"]],
        test=[Pair(input=grid(np.array(rows["test"][0])), output=grid(np.array(rows["test"][1])))],
    )
    candidates = solve(task, SolveConfig(device="cpu", seed=0)).candidates
    assert "answered by which heads read a colour" in candidates[1].detail
    assert candidates[1].grids[0] == task.test[0].output
