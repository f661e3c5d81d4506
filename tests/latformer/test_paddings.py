"""Paddings that fold (numpy's `pad` modes edge, symmetric and reflect): the gates only exact
starts switch on, the reading against numpy, the screen, and a task solved and explained."""

import numpy as np
import pytest

from arcsolve.latformer.exact_starts.actions import ExactAction, gate_bits
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.paddings import padding_sets
from arcsolve.latformer.exact_starts.readings import kernel_source_cells, reading, source_cells
from arcsolve.latformer.experts import MaskExperts
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from tests.grids import task_from, train_arrays

EXPERTS = ("translate", "rotate", "reflect", "scale")
MODES = {"edge": (False, False), "symmetric": (True, False), "reflect": (True, True)}


def folded(mode: str, shift=(1, 2), padded=(True, True)) -> ExactAction:
    mirror, shared = MODES[mode]
    return ExactAction(
        shift=shift,
        padded=padded,
        mirror=(mirror and padded[0], mirror and padded[1]),
        shared=(shared and padded[0], shared and padded[1]),
    )


def test_paddings_are_gates_of_their_own_that_only_a_model_with_them_has():
    plain, padding = MaskExperts(EXPERTS), MaskExperts(EXPERTS, paddings=True)
    assert "pad" not in plain.enabled and len(padding.gate_bias) == len(plain.gate_bias) + 2
    action = folded("edge")
    assert gate_bits(plain, action) is None and gate_bits(padding, action) is not None
    assert gate_bits(padding, ExactAction(scale=(2, 2), padded=(True, False))) is None  # unscaled only


@pytest.mark.parametrize("mode", list(MODES))
def test_a_folded_padding_reads_as_numpy_pads(mode):
    x = np.arange(1, 13).reshape(3, 4)
    action = folded(mode)
    assert np.array_equal(reading(action, x, (6, 9)), np.pad(x, ((1, 2), (2, 3)), mode=mode))
    assert np.array_equal(source_cells(action, (3, 4), (6, 9)), kernel_source_cells(action, (3, 4), (6, 9)))


@pytest.mark.parametrize("mode", list(MODES))
def test_the_screen_finds_the_padding_and_the_model_solves_it(mode):
    rng = np.random.default_rng(8)

    def pad(x):
        return np.pad(x, ((2, 1), (0, 0)), mode=mode)

    task = task_from(pad, [(3, 4), (5, 3), (4, 6)], (6, 5), rng, colours=5, task_id=mode)
    test = task.test[0]
    sets = padding_sets(train_arrays(task), [(test.input.to_numpy(), test.output.shape)])
    assert [s.actions for s in sets] == [(folded(mode, (2, 0), (True, False)),)]
    solution = solve(task, SolveConfig(device="cpu", steps=200, seed=0))
    best = solution.candidates[0]
    assert best.grids[0] == test.output and best.verified
    assert "padded (rows) by 2,0" in best.detail


def test_no_folded_padding_where_a_mirror_tiling_or_a_plain_placement_writes_it():
    rng = np.random.default_rng(9)
    xs = [rng.integers(0, 4, s) for s in ((3, 4), (2, 5), (4, 4))]
    tiled = [(x, np.concatenate([x, x[:, ::-1]], 1)) for x in xs]  # the mirror wrap writes it
    placed = [(x, np.pad(x, 1)) for x in xs]  # margins of one colour: a placement with fill
    assert padding_sets(tiled) == [] and padding_sets(placed) == []


def test_a_padding_then_up_scaled_is_a_padding_onto_a_middle_lattice_and_its_stage():
    rng = np.random.default_rng(10)

    def padded_then_up(x):
        return np.kron(np.pad(x, 1, mode="edge"), np.ones((2, 2), dtype=x.dtype))

    task = task_from(padded_then_up, [(3, 4), (4, 3), (2, 5)], (4, 4), rng, colours=4, task_id="padded, up")
    test = task.test[0]
    sets = consistent_sets(train_arrays(task), [(test.input.to_numpy(), test.output.shape)])
    staged = [s for s in sets if s.stage is not None and any(a.padded for a in s.actions)]
    assert staged and staged[0].actions == (folded("edge", (1, 1)),) and staged[0].stage.scale == (2, 2)
