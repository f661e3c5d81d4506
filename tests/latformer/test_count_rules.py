"""Count rules: a pooling head whose cell rule is the most frequent colour of its block, found
on the train pairs and written into the model's weights."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from arcsolve.latformer.count_rules import (
    CountRule,
    block_counts,
    count_rule,
    set_count_rule,
    with_test_backgrounds,
)
from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.readings import block_cells, reading
from arcsolve.latformer.fit import plan_fit, solve
from arcsolve.latformer.model import LatFormer, LatFormerConfig
from arcsolve.latformer.restarts import exact_model, restart_for
from arcsolve.latformer.training import fit
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair
from tests.grids import solved_in_a_batch


def blocks_of(x: np.ndarray, f: tuple[int, int]) -> np.ndarray:
    """(cells, f_r·f_c) the colours of each f-block, row-major blocks, in plain numpy."""
    (h, w), (a, b) = x.shape, f
    return x.reshape(h // a, a, w // b, b).transpose(0, 2, 1, 3).reshape(-1, a * b)


def majority(x: np.ndarray, f: tuple[int, int], rare: tuple[int, ...] = ()) -> np.ndarray:
    """Each block's most frequent colour, the `rare` ones only where nothing else is, ties to
    the lower colour: written out cell by cell."""
    out = []
    for block in blocks_of(x, f):
        counts = {int(c): int((block == c).sum()) for c in set(block.tolist())}
        plain = {c: n for c, n in counts.items() if c not in rare} or counts
        out.append(min(plain, key=lambda c: (-plain[c], c)))
    return np.array(out).reshape(x.shape[0] // f[0], x.shape[1] // f[1])


def pairs_of(make, shapes, rng, colours=5):
    xs = [rng.integers(0, colours, size=s) for s in shapes]
    return [(x, make(x)) for x in xs]


def counts_of(pairs, f):
    return np.concatenate([block_counts(blocks_of(x, f)) for x, _ in pairs]), np.concatenate(
        [y.reshape(-1) for _, y in pairs]
    )


def test_a_majority_with_ties_to_the_lower_colour_is_a_count_rule_that_answers_new_blocks():
    rng = np.random.default_rng(0)
    pairs = pairs_of(lambda x: majority(x, (1, 3)), [(4, 9), (5, 6), (3, 12)], rng)
    rule, choices = count_rule(*counts_of(pairs, (1, 3)))
    assert rule.rare == () and choices > 0  # ties constrain the order
    fresh = pairs_of(lambda x: majority(x, (1, 3)), [(6, 15)], rng)
    counts, outputs = counts_of(fresh, (1, 3))
    assert np.array_equal(rule.apply(counts), outputs)


def test_a_colour_counted_only_where_nothing_else_is_is_rare():
    rng = np.random.default_rng(1)
    make = lambda x: majority(x, (2, 2), rare=(0,))  # noqa: E731  (the most frequent colour that is not 0)
    pairs = pairs_of(make, [(6, 8), (8, 6), (4, 10)], rng, colours=3)
    rule, _ = count_rule(*counts_of(pairs, (2, 2)))
    assert rule.rare == (0,)
    assert "colour 0 counted only where nothing else is" in rule.words()


def test_no_count_rule_where_an_output_colour_is_not_in_its_block_or_ties_go_both_ways():
    counts = np.array([[2, 1, 0] + [0] * 7])
    assert count_rule(counts, np.array([2])) is None  # colour 2 is not in the block
    tied = np.array([[1, 1] + [0] * 8, [1, 1] + [0] * 8])
    assert count_rule(tied, np.array([0, 1])) is None  # 0 before 1, and 1 before 0


@pytest.mark.parametrize(
    ("f", "rare"), [((3, 3), ()), ((1, 3), ()), ((2, 2), (0,)), ((4, 4), (0, 3)), ((5, 5), (1,)), ((9, 9), (2, 4))]
)
def test_a_model_built_with_a_count_rule_computes_it_on_any_block(f, rare):
    rng = np.random.default_rng(2)
    pooling = ExactAction(0, scale=f, down=True, pool=True)
    order = tuple(int(c) for c in rng.permutation(10))
    rule = CountRule(rare, order)
    model = exact_model(LatFormer, LatFormerConfig(), ActionSet((pooling,), 0, 0), seed=0)
    set_count_rule(model, rule, f[0] * f[1])
    model.eval()
    for _ in range(5):
        x = rng.integers(0, 6, size=(f[0] * int(rng.integers(1, 5)), f[1] * int(rng.integers(1, 5))))
        shape = (x.shape[0] // f[0], x.shape[1] // f[1])
        blocks = np.stack([reading(b, x, shape).reshape(-1) for b in block_cells(pooling)], 1)
        with torch.no_grad():
            logits, _ = model(torch.tensor(x)[None], shape, discrete=True)
        assert np.array_equal(logits.argmax(-1).reshape(-1).numpy(), rule.apply(block_counts(blocks)))


def majority_task(rng, f=(3, 3)):
    def pair(shape, cls=TrainPair):
        x = rng.integers(0, 4, size=shape)
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(majority(x, f)))

    train = [pair((9, 12)), pair((12, 9)), pair((6, 15))]
    return Task(id="block-majority", train=train, test=[pair((15, 12), Pair)])


def test_a_block_majority_of_random_colours_is_solved_by_the_rule_as_built():
    task = majority_task(np.random.default_rng(3))
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    assert consistent_sets(pairs)[0].counts is not None
    solution = solve(task, SolveConfig(device="cpu", steps=100))
    best = solution.candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output
    assert "cell rule: the block's most frequent colour; ties to the lowest colour" in best.detail
    plan = plan_fit(task, SolveConfig(device="cpu", steps=100))
    first = plan.restarts[0]
    model = restart_for(first, plan.build, plan.model_config, plan.device, seed=0)
    result = fit(model, plan.examples, first.fit_config(100, seed=0))
    assert first.start.counts is not None and (result.steps, result.solved_train) == (0, True)  # built, not trained


def test_solve_many_checks_a_count_rule_as_solve_does():
    task = majority_task(np.random.default_rng(3))
    config = SolveConfig(device="cpu", steps=100)
    batched = solved_in_a_batch(task, config, False, False)
    assert batched.candidates[0].grids == solve(task, config).candidates[0].grids == (task.test[0].output,)
    assert batched.candidates[0].verified


def test_blocks_too_large_for_a_table_key_are_read_by_a_count_rule():
    rng = np.random.default_rng(7)

    def pair(shape, cls=TrainPair):  # 5×5 blocks: the most frequent colour other than 0
        x = np.where(rng.random(shape) < 0.6, 0, rng.integers(1, 4, size=shape))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(majority(x, (5, 5), rare=(0,))))

    task = Task(id="big-blocks", train=[pair((10, 15)), pair((15, 10)), pair((10, 10))], test=[pair((15, 15), Pair)])
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    first = consistent_sets(pairs)[0]
    assert first.actions == (ExactAction(0, scale=(5, 5), down=True, pool=True),) and first.counts.rare == (0,)
    best = solve(task, SolveConfig(device="cpu", steps=100)).candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output


def background_pooling_task(rng, backgrounds=(9, 8, 7), test_background=6) -> Task:
    """5×5 blocks: the block's most frequent colour other than the grid's own background,
    which is a different colour in every pair and another again in the test."""

    def pair(background, cls=TrainPair):
        x = np.where(rng.random((15, 15)) < 0.9, background, rng.integers(0, 3, size=(15, 15)))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(majority(x, (5, 5), rare=(background,))))

    return Task(id="background-pooling", train=[pair(b) for b in backgrounds], test=[pair(test_background, Pair)])


def test_rare_colours_that_are_each_inputs_background_take_the_test_background_too():
    task = background_pooling_task(np.random.default_rng(5))
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    tests = [(p.input.to_numpy(), p.output.to_numpy().shape) for p in task.test]
    assert consistent_sets(pairs)[0].counts.rare == (7, 8, 9)  # without the tests: the colours the pairs show
    rule = consistent_sets(pairs, tests)[0].counts
    assert rule.rare == (6, 7, 8, 9) and rule.backgrounds
    best = solve(task, SolveConfig(device="cpu", steps=100)).candidates[0]
    assert best.verified and best.grids[0] == task.test[0].output
    assert "each input's most frequent colour (colours 6, 7, 8, 9) counted only where nothing else is" in best.detail


def test_rare_colours_that_are_not_the_backgrounds_stay_as_the_pairs_show_them():
    rng = np.random.default_rng(5)
    pairs = [(x, majority(x, (3, 3), rare=(1, 2))) for x in (rng.integers(0, 4, size=(9, 9)) for _ in range(3))]
    rule, _ = count_rule(*counts_of(pairs, (3, 3)))
    counts, outputs = counts_of(pairs, (3, 3))
    test = np.full((9, 9), 5)
    assert with_test_backgrounds(rule, counts, outputs, [x for x, _ in pairs], [test]) == rule
