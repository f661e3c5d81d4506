"""A second opinion: where one head alone gives the only explanation of sparse train pairs,
actions in a row are searched too, and may give attempt 2, never attempt 1."""

import numpy as np

from arcsolve.bench.lattice_chains import KINDS, MORE_KINDS, make_chain_task
from arcsolve.latformer.exact_starts import consistent
from arcsolve.latformer.exact_starts.consistent import consistent_sets, mostly_background
from arcsolve.latformer.fit import solve
from arcsolve.loaders import find_task
from arcsolve.solution import SolveConfig
from arcsolve.tasks import task_from_dict


def sparse_task():
    """Every second column, then padded by a row above and below and a column on the right,
    on inputs of a few small objects whose last rows are empty: one head that samples and
    shifts with fill reads nothing there too, and explains the train pairs as well."""
    return make_chain_task(69, 42, KINDS + MORE_KINDS, inputs="objects")


def pairs_and_tests(task):
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    return pairs, [(p.input.to_numpy(), p.output.to_numpy().shape) for p in task.test]


def test_the_only_one_head_explanation_gets_second_opinions_ranked_after_it():
    sets = consistent_sets(*pairs_and_tests(sparse_task()))
    assert len(sets) >= 2
    assert len(sets[0].actions) == 1 and not sets[0].second
    assert all(s.second for s in sets[1:])


def test_no_second_opinion_where_one_head_already_explains_the_pairs_two_ways():
    # flipped left-right, on train inputs that read the same upside down: a flip of either
    # axis, a rotation by 180 and others explain them, each another answer on the test
    rng = np.random.default_rng(0)
    pairs = []
    for h, w in [(3, 4), (5, 3), (3, 5), (4, 4)]:
        top = rng.integers(0, 4, (h // 2 + 1, w))
        x = np.concatenate([top, top[: h // 2][::-1]]) if len(pairs) < 3 else rng.integers(0, 4, (h, w))
        pairs.append({"input": x.tolist(), "output": x[:, ::-1].tolist()})
    task = task_from_dict({"train": pairs[:3], "test": pairs[3:]}, "mirrored", "<mirrored>")
    sets = consistent_sets(*pairs_and_tests(task))
    assert len(sets) >= 2 and all(len(s.actions) == 1 for s in sets)
    assert not any(s.second for s in sets)


def test_the_second_opinion_is_attempt_2_and_the_one_head_answer_attempt_1():
    task = sparse_task()
    solution = solve(task, SolveConfig(device="cpu"))
    first, second = solution.candidates[:2]
    assert first.verified and second.verified
    assert "layer 1: identity" in first.detail and "layer 1: identity" not in second.detail
    truth = task.test[0].output.to_numpy()
    assert np.array_equal(second.grids[0].to_numpy(), truth)  # the pairs' padding, read as two actions
    assert not np.array_equal(first.grids[0].to_numpy(), truth)  # the sampling that reads nothing past row n-2


def test_the_best_start_s_answer_at_the_next_likeliest_size_comes_before_a_second_opinion():
    # turned, shifted with fill and padded, from two train pairs that leave the test size
    # open: a second opinion reads the pairs as a transpose and a flip, at the same size
    task = make_chain_task(14, 4, KINDS + ("pad", "mirror"), 2)
    solution = solve(task, SolveConfig(device="cpu"))
    kinds = ["next likeliest size" in c.detail for c in solution.candidates]
    assert kinds[:2] == [False, True]
    assert any("layer 1: flip" in c.detail for c in solution.candidates[2:])


def test_no_second_opinion_on_inputs_drawn_all_over(monkeypatch):
    # 3c9b0459 (a half turn of 3x3 grids with every cell coloured): a rotation is the only
    # explanation, and actions in a row that read the pairs alike exist (each column of the
    # output its own sampled action), but on grids with no background they are not searched
    train, tests = pairs_and_tests(find_task("3c9b0459"))
    assert not mostly_background(train)
    sets = consistent_sets(train, tests)
    assert len(sets) == 1 and len(sets[0].actions) == 1 and not sets[0].second
    monkeypatch.setattr(consistent, "SPARSE_SHARE", 0.0)  # every grid counts as mostly background
    assert any(s.second for s in consistent_sets(train, tests))


def test_mostly_background_asks_it_of_every_train_input():
    empty, full = np.zeros((4, 4), dtype=int), np.ones((4, 4), dtype=int)
    half = np.array([[0, 0, 1, 1]] * 4)
    assert mostly_background([(empty, empty), (half, half)])
    assert not mostly_background([(empty, empty), (half[:, 1:], half[:, 1:])])  # a third of its cells
    assert not mostly_background([(full, full), (full * 2, full * 2)])  # their commonest colours differ: 0 is counted
