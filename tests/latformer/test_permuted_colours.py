"""Test colours that no train input holds, answered as the rest of the rule's permutation of
colours (`permuted_unseen`): a cycle of three seen two steps of it, a swap seen one way."""

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.colours import permuted_unseen
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair

IDENTITY = ActionSet((ExactAction(),), 0, 0)
CYCLE = np.array([0, 2, 3, 1, 4, 5, 6, 7, 8, 9])  # 1 → 2 → 3 → 1, the rest kept


def cycle_pairs(rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """Inputs of 0, 1, 2 and 4: the pairs show 1 becoming 2 and 2 becoming 3, never a 3 read."""
    xs = [rng.choice([0, 1, 2, 4], size=s) for s in [(4, 5), (5, 3), (3, 6)]]
    for x in xs:
        x[0, :2] = (1, 2)
    return [(x, CYCLE[x]) for x in xs]


def test_a_cycle_of_three_seen_two_steps_of_it_is_completed():
    pairs = cycle_pairs(np.random.default_rng(0))
    test = np.array([[3, 1, 0], [2, 3, 4]])
    guess = np.where(test == 3, 7, CYCLE[test])  # the fit's answer: the 3s left to chance
    answer = permuted_unseen(IDENTITY, pairs, test, guess)
    assert answer is not None and np.array_equal(answer, CYCLE[test])  # each 3 becomes 1
    assert permuted_unseen(IDENTITY, pairs, test, answer) is None  # nothing left to change


def test_a_swap_seen_one_way_is_completed_too():
    swap = np.array([5, 1, 2, 3, 4, 0, 6, 7, 8, 9])  # 0 and 5 swapped
    rng = np.random.default_rng(1)
    pairs = [(x, swap[x]) for x in (rng.choice([0, 1, 2], size=s) for s in [(3, 4), (4, 4)])]
    test = np.array([[5, 0], [1, 5]])
    answer = permuted_unseen(IDENTITY, pairs, test, np.where(test == 5, 5, swap[test]))
    assert answer is not None and np.array_equal(answer, swap[test])


def test_no_completion_where_the_rule_merges_colours_or_reads_several_heads():
    rng = np.random.default_rng(2)
    merge = np.array([0, 2, 2, 3, 4, 5, 6, 7, 8, 9])  # 1 and 2 both become 2: no permutation
    pairs = [(x, merge[x]) for x in (rng.choice([0, 1, 2], size=s) for s in [(3, 4), (4, 4)])]
    test = np.array([[3, 1]])
    assert permuted_unseen(IDENTITY, pairs, test, test.copy()) is None
    two_heads = ActionSet((ExactAction(), ExactAction(4)), 0, 0)
    cycle = cycle_pairs(np.random.default_rng(3))
    assert permuted_unseen(two_heads, cycle, np.array([[3, 1], [2, 3]]), np.zeros((2, 2), int)) is None
    # a colour the rule never turns anything into is no part of the permutation
    assert permuted_unseen(IDENTITY, cycle, np.array([[6, 1]]), np.array([[6, 2]])) is None


def test_a_cycle_completed_is_attempt_2():
    pairs = cycle_pairs(np.random.default_rng(4))
    train = [TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(y)) for x, y in pairs]
    x = np.array([[3, 1, 0, 2], [4, 3, 3, 0], [2, 0, 1, 3]])
    test = Pair(input=Grid.from_numpy(x), output=Grid.from_numpy(CYCLE[x]))
    solution = solve(Task(id="cycle", train=train, test=[test]), SolveConfig(device="cpu", steps=300))
    second = solution.candidates[1]
    assert "completes the rule's permutation" in second.detail
    assert second.grids[0] == test.output
