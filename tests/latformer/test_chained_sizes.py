"""Sizes the train pairs leave open, told by a chain: where every train input has the same
number of rows, several size rules fit the pairs, and a chain that reproduces them takes the
test input to one of those sizes."""

from arcsolve.bench.lattice_chains import KINDS, MORE_KINDS, make_chain_task
from arcsolve.latformer.fit import chained_rule, plan_fit, solve
from arcsolve.latformer.sizing import infer_size_rule
from arcsolve.solution import SolveConfig


def open_sized_task():
    # a padding, a mirror tiling of the columns, a colour swap, a mirror tiling of the rows;
    # every train input has 3 rows, the test 8
    return make_chain_task(75, seed=8, kinds=KINDS + MORE_KINDS)


def test_the_chain_picks_the_rule_that_gives_the_test_its_size():
    task = open_sized_task()
    assert {p.input.shape[0] for p in task.train} == {3}
    rule = infer_size_rule([(p.input.shape, p.output.shape) for p in task.train])
    test = task.test[0]
    assert rule(test.input.shape) != test.output.shape  # the likeliest rule alone is wrong here
    sized = chained_rule(rule, task, [test.input.to_numpy()])
    assert sized is not None and sized(test.input.shape) == test.output.shape
    assert plan_fit(task, SolveConfig(device="cpu")).rule(test.input.shape) == test.output.shape


def test_the_task_is_solved_at_the_chains_size():
    task = open_sized_task()
    solution = solve(task, SolveConfig(device="cpu", steps=100, seed=0))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == task.test[0].output
