"""Shifts that fill, exact actions, several heads per layer, restarts from exact actions,
the fit cap and distinct attempts."""

import numpy as np
import pytest
import torch

from arcsolve.latformer.exact_starts.actions import ExactAction, set_action
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.readings import NOTHING, reading
from arcsolve.latformer.explain import describe_actions, describe_cell_rule
from arcsolve.latformer.fit import solve
from arcsolve.latformer.model import LatFormer, LatFormerConfig
from arcsolve.solution import SolveConfig
from arcsolve.symmetry import apply_dihedral
from tests.grids import halves_task, shifted_with_fill, solved_in_a_batch

RNG = np.random.default_rng(0)


def grid(h: int, w: int) -> np.ndarray:
    return RNG.integers(0, 10, size=(h, w))


@pytest.mark.parametrize("shape", [(3, 3), (4, 6), (5, 2)])
@pytest.mark.parametrize("shift", [(1, 0), (0, -2), (2, 1), (-1, -1)])
def test_a_shift_with_fill_moves_the_content_and_vacated_cells_read_nothing(shape, shift):
    x = grid(*shape)
    assert (reading(ExactAction(0, shift, fill=True), x, shape) == shifted_with_fill(x, *shift, NOTHING)).all()
    assert (reading(ExactAction(0, shift), x, shape) == np.roll(x, shift, (0, 1))).all()  # cyclic


def test_a_placement_without_wrapping_reads_nothing_past_the_input():
    x = grid(2, 3)
    placed = reading(ExactAction(0, (1, 2), fill=True), x, (4, 6))
    expected = np.full((4, 6), NOTHING)
    expected[1:3, 2:5] = x
    assert (placed == expected).all()
    assert (reading(ExactAction(0), x, (4, 6)) == np.tile(x, (2, 2))).all()  # wrapping tiles


@pytest.mark.parametrize("element", range(8))
def test_an_exact_action_sets_gates_that_give_each_dihedral_element(element):
    x = grid(4, 4)
    assert (reading(ExactAction(element), x, (4, 4)) == apply_dihedral(x, element)).all()


def test_exact_up_scaling_is_a_kronecker_product():
    x = grid(2, 3)
    assert (reading(ExactAction(0, scale=(2, 3)), x, (4, 9)) == np.kron(x, np.ones((2, 3), dtype=int))).all()


def test_consistent_sets_find_the_two_crops_of_an_overlay():
    task = halves_task(lambda a, b: a & b)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    sets = consistent_sets(pairs)
    crops = {(ExactAction(), ExactAction(0, (0, -4)))}
    assert crops & {s.actions for s in sets}
    assert all(len(s.actions) >= 2 for s in sets)  # no single action explains an overlay
    # and no set holds a set that explains the outputs with fewer heads
    assert not any(set(a.actions) < set(b.actions) for a in sets for b in sets)


def test_heads_each_read_their_own_action_and_the_explanation_names_them():
    model = LatFormer(LatFormerConfig(heads=2))
    set_action(model.layers[0].gate_sets[0], ExactAction())
    set_action(model.layers[0].gate_sets[1], ExactAction(0, (1, 0), fill=True))
    words = describe_actions(model, [((3, 3), (3, 3))])
    assert "2 heads (head 0: identity; head 1: shift +1,+0 with fill (no wrap))" in words
    assert "combined cell by cell by the FFN" in words


def test_an_overlay_of_two_halves_is_learned_by_two_heads():
    task = halves_task(lambda a, b: a ^ b)
    solution = solve(task, SolveConfig(device="cpu", steps=300, seed=0))
    truth = task.test[0].output
    assert solution.candidates[0].grids[0] == truth
    assert "2 heads" in solution.candidates[0].detail


class FakeClock:
    """A clock that moves only when told: one second per training step."""

    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def step(self, *_):
        self.now += 1.0


def test_the_fit_cap_bounds_all_restarts_together_and_the_explanation_says_it_was_cut():
    task = halves_task(lambda a, b: a | b)
    clock = FakeClock()
    solution = solve(task, SolveConfig(device="cpu", steps=300, fit_seconds=5), on_step=clock.step, clock=clock)
    assert clock.now - 100.0 <= 5.0  # steps of every restart and the predictions, within the cap
    assert "cut short by the 5 s fit cap" in solution.candidates[0].detail
    assert solution.seconds <= 5.0


class SlowPlanningClock(FakeClock):
    """A clock that runs ten seconds every time it is read: planning alone passes any cap."""

    def __call__(self) -> float:
        self.now += 10.0
        return self.now


def test_a_task_whose_planning_takes_the_whole_cap_still_gets_an_answer():
    task = halves_task(lambda a, b: a | b)
    solution = solve(task, SolveConfig(device="cpu", steps=300, fit_seconds=5), clock=SlowPlanningClock())
    assert solution.candidates  # the first restart, built and checked past the cap
    assert "cut short by the 5 s fit cap" in solution.candidates[0].detail


def test_attempts_are_distinct_grids():
    # plain restarts cannot reproduce an overlay: every restart runs and offers its grids
    task = halves_task(lambda a, b: a & b)
    solution = solve(task, SolveConfig(device="cpu", steps=30, seed=1), exact_restarts=0)
    grids = [c.grids for c in solution.candidates]
    assert len(grids) >= 2
    assert all(a != b for i, a in enumerate(grids) for b in grids[i + 1 :])


def test_where_nothing_reproduces_the_pairs_the_soft_gates_answer_is_attempt_2():
    task = halves_task(lambda a, b: a & b)
    solution = solve(task, SolveConfig(device="cpu", steps=30, seed=1), exact_restarts=0)
    assert not any(c.verified for c in solution.candidates)
    assert len(solution.candidates) >= 3  # the rounded answers of two restarts at least, and the soft one
    assert "(soft gates" not in solution.candidates[0].detail
    assert "(soft gates" in solution.candidates[1].detail


def test_a_fit_ends_with_the_exact_restart_that_explains_the_pairs():
    task = halves_task(lambda a, b: a & b)
    solution = solve(task, SolveConfig(device="cpu", steps=30, seed=1), exact_restarts=1)
    assert solution.candidates[0].verified
    assert "2 heads" in solution.candidates[0].detail
    # no plain restart ran: every candidate is the exact fit's (10 steps, its gates rounded or soft)
    assert all(c.detail.endswith("; 10 steps)") for c in solution.candidates)


def test_fill_gates_start_cyclic_so_a_fresh_model_wraps():
    model = LatFormer(LatFormerConfig())
    acts = model.layers[0].experts.actions(None, discrete=True)
    assert float(acts.fill_rows) == 0.0 and float(acts.fill_cols) == 0.0
    x = torch.arange(9).view(1, 3, 3) % 10
    shifted = LatFormer(LatFormerConfig(experts=("translate",)))
    set_action(shifted.layers[0].experts, ExactAction(0, (1, 0)))
    logits, _ = shifted(x, (3, 3), discrete=True)
    assert torch.equal(logits.argmax(-1)[0], torch.roll(x[0], 1, 0))  # cyclic: the last row wraps to the top


@pytest.mark.parametrize(("rule", "name"), [(np.logical_and, "and"), (np.logical_or, "or"), (np.logical_xor, "xor")])
def test_the_cell_rule_of_two_heads_is_named(rule, name):
    task = halves_task(lambda a, b: rule(a, b).astype(int))
    model = LatFormer(LatFormerConfig(heads=2))
    set_action(model.layers[0].gate_sets[0], ExactAction())
    set_action(model.layers[0].gate_sets[1], ExactAction(0, (0, -4)))
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    assert describe_cell_rule(model, pairs) == f"colour 2 where the heads' readings ({name}) hold a colour, else 0"


def test_an_overlay_rule_names_which_head_wins():
    x = np.array([[1, 0, 0, 0, 3, 3]])
    y = np.array([[1, 3, 3]])  # the left half over the right
    model = LatFormer(LatFormerConfig(heads=2))
    set_action(model.layers[0].gate_sets[0], ExactAction())
    set_action(model.layers[0].gate_sets[1], ExactAction(0, (0, -3)))
    assert describe_cell_rule(model, [(x, y)]).startswith("overlay: heads 0 over 1")


@pytest.mark.parametrize(("side_by_side", "graphs"), [(False, False), (True, True)])
def test_solve_many_fits_exact_restarts_as_solve_does(side_by_side, graphs):
    task = halves_task(lambda a, b: a ^ b)
    config = SolveConfig(device="cpu", steps=300, seed=0)
    batched = solved_in_a_batch(task, config, side_by_side, graphs)
    expected = solve(task, config)
    assert batched.candidates[0].grids == expected.candidates[0].grids == (task.test[0].output,)
    assert batched.candidates[0].verified and "2 heads" in batched.candidates[0].detail
