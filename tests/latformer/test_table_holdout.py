"""A table of readings that the FFN learned is verified only if it holds out with colours
renamed: on each train pair left out and on the test inputs."""

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.holdout import RENAMED, pattern, table_contradictions
from arcsolve.latformer.fit import solve, verified_before_held_back
from arcsolve.latformer.overlay_rules import OverlayRule
from arcsolve.solution import Candidate, SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair

HALVES = ActionSet((ExactAction(), ExactAction(anchor=(False, True))), 0, 0)


def halves_xor(x: np.ndarray, colour: int = 4) -> np.ndarray:
    n = x.shape[1] // 2
    return np.where((x[:, :n] > 0) ^ (x[:, n:] > 0), colour, 0)


def halves_over(x: np.ndarray) -> np.ndarray:
    """The left half over the right one: a left cell's colour where it has one."""
    n = x.shape[1] // 2
    return np.where(x[:, :n] > 0, x[:, :n], x[:, n:])


def drawn(rng: np.random.Generator, shape: tuple[int, int], colour: int) -> np.ndarray:
    return np.where(rng.random(shape) < 0.45, colour, 0)


def test_a_pattern_renames_colours_by_the_head_that_first_reads_them():
    assert pattern((3, 0, 3, -1), 3, background=0) == ((RENAMED, 0, RENAMED, -1), RENAMED)
    assert pattern((5, 2), 2, background=0) == ((RENAMED, RENAMED + 1), RENAMED + 1)
    assert pattern((5, 2), 7, background=0) == ((RENAMED, RENAMED + 1), 7)  # no head reads 7: kept
    assert pattern((5, 2), 5, background=5) == ((5, RENAMED), 5)  # the background stays


def test_an_overlay_in_new_colours_holds_out_and_a_wrong_test_answer_does_not():
    rng = np.random.default_rng(3)
    xs = [drawn(rng, (4, 8), 1), drawn(rng, (3, 6), 5), drawn(rng, (5, 10), 2)]
    pairs = [(x, halves_over(x)) for x in xs]
    test = drawn(rng, (4, 8), 7)  # a colour no pair shows: its readings are new
    assert table_contradictions(HALVES, pairs, [(test, halves_over(test))]) == 0
    wrong = np.where(test[:, :4] > 0, 0, test[:, 4:])  # the new colour's left cells left blank
    assert table_contradictions(HALVES, pairs, [(test, wrong)]) == int((test[:, :4] > 0).sum())


def test_a_rule_only_one_pair_shows_does_not_hold_out():
    rng = np.random.default_rng(4)
    xs = [drawn(rng, (4, 8), 1), drawn(rng, (3, 6), 5), drawn(rng, (5, 10), 1)]
    consistent = [(x, halves_xor(x)) for x in xs]
    assert table_contradictions(HALVES, consistent) == 0
    # the pair in colour 5 writes 6 where the others write 4: left out, the others' table of
    # renamed readings says 4 at each of its cells where one half is coloured
    odd = [(x, halves_xor(x, 6 if k == 1 else 4)) for k, x in enumerate(xs)]
    assert table_contradictions(HALVES, odd) == int((odd[1][1] == 6).sum())


def test_built_rules_and_single_readings_are_not_checked():
    rng = np.random.default_rng(5)
    xs = [drawn(rng, (4, 8), 1), drawn(rng, (3, 6), 5)]
    odd = [(x, halves_xor(x, 6 if k == 1 else 4)) for k, x in enumerate(xs)]
    built = ActionSet(HALVES.actions, 0, 0, overlay=OverlayRule((0, 1), 0))
    assert table_contradictions(built, odd) == 0
    assert table_contradictions(ActionSet((ExactAction(),), 0, 0), [(x, x[:, : x.shape[1] // 2]) for x in xs]) == 0


def xor_task(colours: tuple[int, ...], seed: int) -> Task:
    rng = np.random.default_rng(seed)
    xs = [drawn(rng, (4, 8), 1), drawn(rng, (3, 6), 5), drawn(rng, (5, 10), 1)]
    test = drawn(rng, (4, 8), 1)
    return Task(
        id="xor",
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(halves_xor(x, c)))
               for x, c in zip(xs, colours, strict=True)],
        test=[Pair(input=Grid.from_numpy(test), output=Grid.from_numpy(halves_xor(test)))],
    )


def test_solve_verifies_a_table_that_holds_out_and_not_one_that_does_not():
    config = SolveConfig(device="cpu", steps=200, seed=0)
    held = solve(xor_task((4, 4, 4), seed=6), config).candidates[0]
    assert held.verified and "not verified" not in held.detail
    lookup = solve(xor_task((4, 6, 4), seed=6), config).candidates[0]
    assert "combinations of readings" in lookup.detail  # the two heads' table, learned by the FFN
    assert not lookup.verified and "not verified: with colours renamed" in lookup.detail


def test_a_verified_answer_goes_before_a_table_that_does_not_hold_out():
    def answer(colour: int, verified: bool) -> Candidate:
        return Candidate((Grid.from_numpy(np.full((1, 1), colour)),), "latformer", verified)

    table, soft, chain, other = answer(1, False), answer(2, False), answer(3, True), answer(4, True)
    assert verified_before_held_back([table, soft, chain, other], [True, False, False, False]) == [
        chain, table, soft, other]
    # the first answer is no table that was held back, or nothing is verified: the order stays
    assert verified_before_held_back([soft, chain], [False, False]) == [soft, chain]
    assert verified_before_held_back([table, soft], [True, False]) == [table, soft]
    assert verified_before_held_back([], []) == []
