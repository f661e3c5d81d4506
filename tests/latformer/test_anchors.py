"""Actions counted from the far edge of both lattices (anchors): the gates only exact starts
switch on, the reading they give, and a task that overlays a grid's two halves, where the
sizes vary from pair to pair, solved and explained."""

import numpy as np

from arcsolve.latformer.exact_starts.actions import ExactAction, gate_bits
from arcsolve.latformer.exact_starts.candidates import anchored_axes
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.readings import kernel_source_cells, reading, source_cells
from arcsolve.latformer.experts import MaskExperts
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from tests.grids import task_from, train_arrays

EXPERTS = ("translate", "rotate", "reflect", "scale")


def halves_xor(x: np.ndarray) -> np.ndarray:
    """Colour 4 where exactly one of the left and right halves (a separator column between
    them) holds a colour, 0 elsewhere."""
    n = x.shape[1] // 2
    return np.where((x[:, :n] > 0) ^ (x[:, n + 1 :] > 0), 4, 0)


def test_anchors_are_gates_of_their_own_that_only_a_model_with_them_has():
    plain, anchored = MaskExperts(EXPERTS), MaskExperts(EXPERTS, anchors=True)
    assert "anchor" not in plain.enabled and len(anchored.gate_bias) == len(plain.gate_bias) + 2
    action = ExactAction(anchor=(False, True))
    assert gate_bits(plain, action) is None and gate_bits(anchored, action) is not None
    # with the translate expert ruled out by a task's priors, the anchors go with it
    anchored.allow(("rotate", "reflect", "scale"))
    assert gate_bits(anchored, action) is None


def test_an_anchored_crop_reads_the_last_part_of_every_grid():
    action = ExactAction(anchor=(True, True))
    for shape in ((4, 6), (7, 5)):
        x = np.arange(shape[0] * shape[1]).reshape(shape)
        assert np.array_equal(reading(action, x, (2, 3)), x[-2:, -3:])
        assert np.array_equal(source_cells(action, shape, (2, 3)), kernel_source_cells(action, shape, (2, 3)))
    # anchored, a shift counts from the far edge too: −1 reads one row further from it
    shifted = ExactAction(shift=(-1, 0), anchor=(True, False))
    x = np.arange(20).reshape(5, 4)
    assert np.array_equal(reading(shifted, x, (2, 4)), x[2:4])
    assert np.array_equal(source_cells(shifted, (5, 4), (2, 4)), kernel_source_cells(shifted, (5, 4), (2, 4)))


def test_anchored_axes_are_those_whose_margins_vary():
    same = [(np.zeros((4, 7)), np.zeros((4, 3))), (np.zeros((5, 7)), np.zeros((5, 3)))]
    varied = [(np.zeros((4, 7)), np.zeros((4, 3))), (np.zeros((5, 9)), np.zeros((5, 4)))]
    grown = [(np.zeros((4, 7)), np.zeros((4, 3))), (np.zeros((5, 9)), np.zeros((5, 12)))]
    assert anchored_axes(same) == (False, False)
    assert anchored_axes(varied) == (False, True)
    assert anchored_axes(grown) == (False, False)  # one output wider than its input: no crop


def test_halves_of_grids_of_several_sizes_are_overlaid_and_explained():
    rng = np.random.default_rng(3)
    task = task_from(halves_xor, [(4, 7), (5, 9), (3, 11)], (5, 13), rng, colours=3, task_id="halves")
    pairs = train_arrays(task)
    test = task.test[0]
    sets = consistent_sets(pairs, [(test.input.to_numpy(), test.output.shape)])
    assert sets[0].actions == (ExactAction(), ExactAction(anchor=(False, True)))
    solution = solve(task, SolveConfig(device="cpu", steps=200, seed=0))
    best = solution.candidates[0]
    assert best.grids[0] == test.output and best.verified
    assert "head 1: read from the right edge" in best.detail


def test_no_anchors_where_every_pair_crops_alike():
    # the right half of inputs that all have 8 columns: an anchored crop and a crop at a fixed
    # offset read alike on every train pair, so the pairs cannot tell one from the other
    rng = np.random.default_rng(6)
    task = task_from(lambda x: x[:, 4:], [(3, 8), (5, 8), (4, 8)], (4, 8), rng, task_id="right half")
    sets = consistent_sets(train_arrays(task))
    assert sets and not any(any(a.anchor) for s in sets for a in s.actions)


def test_the_last_part_beside_an_anchored_one_is_anchored_too():
    # the bottom-right quadrant of inputs that all have 8 rows and 8 to 12 columns: the columns
    # tell the anchor, and the rows, at their last part, read from the bottom edge beside them,
    # so a test input of 10 rows gets its bottom half
    rng = np.random.default_rng(7)
    task = task_from(lambda x: x[x.shape[0] // 2 :, x.shape[1] // 2 :], [(8, 10), (8, 12), (8, 8)], (10, 10), rng)
    test = task.test[0]
    sets = consistent_sets(train_arrays(task), [(test.input.to_numpy(), test.output.shape)])
    assert sets[0].actions == (ExactAction(anchor=(True, True)),)
    assert np.array_equal(reading(sets[0].actions[0], test.input.to_numpy(), (5, 5)), test.output.to_numpy())


def test_the_right_half_then_up_scaled_is_an_anchored_crop_onto_a_middle_lattice():
    rng = np.random.default_rng(11)

    def right_half_up(x):
        return np.kron(x[:, x.shape[1] // 2 :], np.ones((2, 2), dtype=x.dtype))

    task = task_from(right_half_up, [(3, 6), (4, 8), (2, 4)], (3, 10), rng, colours=4, task_id="half, up")
    test = task.test[0]
    sets = consistent_sets(train_arrays(task), [(test.input.to_numpy(), test.output.shape)])
    staged = [s for s in sets if s.stage is not None]
    assert staged and staged[0].actions == (ExactAction(anchor=(False, True)),) and staged[0].stage.scale == (2, 2)


def test_the_middle_half_of_grids_of_several_sizes_is_read_from_their_middle():
    rng = np.random.default_rng(12)

    def middle(x):
        h, w = x.shape
        return x[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4]

    task = task_from(middle, [(8, 8), (4, 12), (12, 8)], (8, 4), rng, task_id="middle")
    test = task.test[0]
    sets = consistent_sets(train_arrays(task), [(test.input.to_numpy(), test.output.shape)])
    assert sets[0].actions == (ExactAction(centre=(True, True)),)
    assert np.array_equal(reading(sets[0].actions[0], test.input.to_numpy(), (4, 2)), test.output.to_numpy())
    assert ExactAction(centre=(True, True)).words() == "read from the middle (rows and columns)"


def test_a_staged_model_skips_a_next_likeliest_size_that_its_middle_lattice_does_not_divide():
    # every train input has 5 rows and every output 10: 2n first, then n + 5, which a middle
    # lattice of half the output's rows does not divide at the test's 4 rows (9): that
    # attempt is left out, the task is answered
    rng = np.random.default_rng(13)

    def right_half_up(x):
        return np.kron(x[:, x.shape[1] // 2 :], np.ones((2, 2), dtype=x.dtype))

    task = task_from(right_half_up, [(5, 4), (5, 6), (5, 10)], (4, 10), rng, colours=4, task_id="half, up")
    solution = solve(task, SolveConfig(device="cpu", steps=100, seed=0))
    assert solution.candidates and solution.candidates[0].grids[0] == task.test[0].output
    assert all(c.grids[0].shape != (9, 10) for c in solution.candidates)
