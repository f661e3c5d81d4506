"""Sets that copy what they read rank before sets of as many actions that learn a table of
readings: with two train pairs, a turned and shifted sampling reproduces the pairs as well
as the plain one, through a table that erases a colour, and it reads the test's new colours
less; the plain sampling copies every cell, so it answers any colour."""

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet, copies
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.readings import NOTHING
from arcsolve.latformer.fit import solve
from arcsolve.latformer.model import Chain
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair

# every second cell of every second row; the sampled cells of the train pairs never hold 8
PAIRS = [
    np.array([[0, 0, 0, 8], [4, 0, 0, 0], [0, 0, 4, 0], [0, 8, 0, 0]]),
    np.array([[0, 0], [6, 8], [0, 8], [6, 6], [6, 0], [0, 0], [6, 0], [0, 0]]),
]
TEST = np.array([[8, 0, 0, 7], [2, 7, 0, 0]])


def sampled(x: np.ndarray) -> np.ndarray:
    return x[::2, ::2]


def test_copies_asks_one_reading_per_cell_equal_to_the_output_where_it_reads_a_cell():
    outputs = np.array([3, 0, 5, 5])
    assert copies(np.array([[3, 0, 5, 5]]), outputs)
    assert copies(np.array([[3, NOTHING, 5, 5]]), outputs)  # a cell that reads nothing takes a colour
    assert not copies(np.array([[3, 0, 5, 4]]), outputs)  # 4 becomes 5: a table
    assert not copies(np.array([[3, 0, 5, 5], [3, 0, 5, 5]]), outputs)  # two heads: a table of pairs


def test_a_copying_set_ranks_after_a_chain_and_before_a_table_of_as_many_actions():
    table = ActionSet((ExactAction(2, (0, 1)),), 0, 0)
    copying = ActionSet((ExactAction(),), 4, 3)
    assert copying.rank(copies=True) < table.rank()
    two = ActionSet((ExactAction(), ExactAction(shift=(0, 1))), 0, 0)
    assert copying.rank(copies=True) < two.rank()  # fewer actions still come first
    # of two layers: a chain, a head and a second layer's action that copies, a table, a
    # chain through a table (the last two by their unexplained cells)
    steps = {"chain": Chain(False, ((2, 1, 0, 2, 1, 0),) * 3), "steps": (ExactAction(),) * 3}
    chain = ActionSet((ExactAction(),), 3, 5, **steps)
    recoloured = ActionSet((ExactAction(),), 3, 5, recoloured=True, **steps)
    then = ActionSet((ExactAction(),), 4, 3, then=ExactAction(shift=(1, 0)))
    ranked = sorted([recoloured, two, then, chain], key=lambda s: s.rank(copies=s is then))
    assert ranked == [chain, then, two, recoloured]


def test_the_plain_sampling_ranks_first_where_a_turned_one_reads_new_colours_less():
    sets = consistent_sets([(x, sampled(x)) for x in PAIRS], [(TEST, (1, 2))])
    assert sets[0].actions == (ExactAction(0, (0, 0), (2, 2), down=True),)
    turned = [s for s in sets if s.actions[0].dihedral != 0 and len(s.actions) == 1]
    assert turned, "the turned sampling no longer explains the pairs: the test tells nothing"


def test_solve_answers_the_sampling_in_new_colours_first():
    task = Task(
        id="sampled",
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(sampled(x))) for x in PAIRS],
        test=[Pair(input=Grid.from_numpy(TEST), output=Grid.from_numpy(sampled(TEST)))],
    )
    solution = solve(task, SolveConfig(device="cpu", steps=100, seed=0))
    assert solution.candidates[0].grids[0] == task.test[0].output
