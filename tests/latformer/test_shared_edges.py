"""Mirror images that share their edge cells (a reflection about the edge cell's centre):
the gates only exact starts switch on, and a task that tiles them, solved and explained."""

import numpy as np

from arcsolve.latformer.exact_starts.actions import ExactAction, gate_bits
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.experts import MaskExperts
from arcsolve.latformer.fit import solve
from arcsolve.solution import SolveConfig
from tests.grids import task_from

EXPERTS = ("translate", "rotate", "reflect", "scale")


def shared_edge_tiling(x: np.ndarray) -> np.ndarray:
    """x, then its rows mirrored about the last row, then about the first, and so on: 4h − 3 rows."""
    h = x.shape[0]
    k = np.arange(4 * h - 3) % (2 * h - 2)
    return x[np.where(k < h, k, 2 * h - 2 - k)]


def test_shared_edges_are_gates_of_their_own_that_only_a_model_with_them_has():
    plain, edged = MaskExperts(EXPERTS), MaskExperts(EXPERTS, shared_edges=True)
    assert "edge" not in plain.enabled and len(edged.gate_bias) == len(plain.gate_bias) + 2
    action = ExactAction(mirror=(True, False), shared=(True, False))
    assert gate_bits(plain, action) is None and gate_bits(edged, action) is not None
    # with the reflect expert ruled out by a task's priors, the edges go with it
    edged.allow(("translate", "rotate", "scale"))
    assert gate_bits(edged, action) is None


def test_a_tiling_of_mirror_images_that_share_their_edge_rows_is_solved_and_explained():
    rng = np.random.default_rng(4)
    task = task_from(shared_edge_tiling, [(3, 5), (4, 5)], (5, 4), rng, task_id="edges")
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    assert consistent_sets(pairs)[0].actions == (ExactAction(mirror=(True, False), shared=(True, False)),)
    solution = solve(task, SolveConfig(device="cpu", steps=200, seed=0))
    best = solution.candidates[0]
    assert best.grids[0] == task.test[0].output and best.verified
    assert "mirror-wrap rows (sharing their edge rows)" in best.detail


def test_no_shared_edges_where_the_train_pairs_cannot_tell_them_from_a_tiling():
    # tiled 3×3, transposed, then up-scaled 1×3: the train inputs' two rows, tiled across the
    # output's columns, fold alike cyclically and as mirror images that share their edges;
    # the test input's three rows do not, and the tiling, the commoner action, is the start
    rng = np.random.default_rng(5)

    def make(x):
        return np.repeat(np.tile(x, (3, 3)).T, 3, axis=1)

    task = task_from(make, [(2, 4), (2, 8), (2, 3)], (3, 3), rng, task_id="two rows")
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]
    test = task.test[0]
    sets = consistent_sets(pairs, [(test.input.to_numpy(), test.output.shape)])
    assert not any(any(a.shared) for s in sets for a in s.actions)
    assert sets[0].actions == (ExactAction(dihedral=4, scale=(1, 3)),)
