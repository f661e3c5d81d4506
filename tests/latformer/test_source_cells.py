"""The numpy reading of an exact action (`source_cells`) against the model's own mask
kernels (`kernel_source_cells`), on random actions and lattices."""

from __future__ import annotations

import numpy as np
import pytest

from arcsolve.latformer.exact_starts.actions import ExactAction, expressible
from arcsolve.latformer.exact_starts.readings import kernel_source_cells, source_cells
from arcsolve.latformer.experts import SCALE_FACTORS


def random_action(rng: np.random.Generator) -> ExactAction:
    far = rng.random() < 0.2  # some shifts past what the experts write (2^5 − 1 cells)
    shift = tuple(int(v) for v in rng.integers(-33, 34, 2) if far) or tuple(int(v) for v in rng.integers(-4, 5, 2))
    factors = sorted(set(SCALE_FACTORS) | {1, 6, 8})  # 6 and 8: factors the scale chain does not hold
    scale = tuple(int(rng.choice(factors)) if rng.random() < 0.5 else 1 for _ in range(2))
    mirror = tuple(bool(rng.random() < 0.15) for _ in range(2))
    fill, down = bool(rng.random() < 0.4), bool(rng.random() < 0.3)
    # strides after an up-scaling (4: one the stride chain does not hold; with down, none is)
    stride = tuple(int(rng.choice([2, 3, 4, 6])) if rng.random() < 0.3 else 1 for _ in range(2))
    tiled_fill = bool(rng.random() < 0.3)  # without fill, none is
    shared = tuple(bool(rng.random() < 0.3) for _ in range(2))  # without a mirror on the axis, none is
    anchor = tuple(bool(rng.random() < 0.3) for _ in range(2))
    centre = tuple(bool(rng.random() < 0.2) for _ in range(2))
    # a folded padding: unscaled, no fill (else none is), the fold from the mirror and shared bits
    padded = tuple(bool(rng.random() < 0.15) for _ in range(2))
    return ExactAction(
        int(rng.integers(8)),
        shift,
        scale,
        fill,
        down,
        False,
        mirror,
        stride,
        tiled_fill,
        shared=shared,
        anchor=anchor,
        padded=padded,
        centre=centre,
    )


@pytest.mark.parametrize("seed", range(4))
def test_the_numpy_reading_is_the_kernels_reading(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):
        action = random_action(rng)
        in_shape = tuple(int(v) for v in rng.integers(1, 13, 2))
        out_shape = tuple(int(v) for v in rng.integers(1, 25, 2))
        quick, kernel = source_cells(action, in_shape, out_shape), kernel_source_cells(action, in_shape, out_shape)
        assert (quick is None) == (kernel is None) == (not expressible(action)), action
        if quick is not None:
            assert np.array_equal(quick, kernel), (action, in_shape, out_shape)


def test_a_sampling_with_fill_reads_nothing_past_the_input():
    action = ExactAction(0, (0, -4), (1, 9), fill=True, down=True)  # every ninth column from column 4
    cells = source_cells(action, (5, 6), (2, 6)).reshape(2, 6)
    assert np.array_equal(cells.reshape(-1), kernel_source_cells(action, (5, 6), (2, 6)))
    assert cells[:, 0].tolist() == [4, 10] and (cells[:, 1:] == -1).all()  # 9 + 4 is past the 6 columns


def test_a_tiled_fill_shifts_each_tile_with_fill():
    """Shifted one column right with fill inside each tile, tiled 1×2, then read as mirror
    images: each tile's first column reads nothing, the mirror image's last."""
    x = np.arange(6).reshape(2, 3)
    action = ExactAction(0, (0, 1), fill=True, tiled_fill=True)
    cells = source_cells(action, (2, 3), (2, 6))
    assert np.array_equal(cells, kernel_source_cells(action, (2, 3), (2, 6)))
    assert np.where(cells >= 0, x.reshape(-1)[cells], -1).reshape(2, 6)[0].tolist() == [-1, 0, 1, -1, 0, 1]
    mirrored = ExactAction(0, (0, 1), fill=True, mirror=(False, True), tiled_fill=True)
    cells = source_cells(mirrored, (2, 3), (2, 6))
    assert np.array_equal(cells, kernel_source_cells(mirrored, (2, 3), (2, 6)))
    assert np.where(cells >= 0, x.reshape(-1)[cells], -1).reshape(2, 6)[0].tolist() == [-1, 0, 1, 1, 0, -1]
    assert source_cells(ExactAction(0, (0, 1), tiled_fill=True), (2, 3), (2, 6)) is None  # no fill: not an action


def test_mirror_images_that_share_their_edge_cells_fold_at_the_edge_cell():
    x = np.arange(4).reshape(1, 4)
    action = ExactAction(mirror=(False, True), shared=(False, True))
    cells = source_cells(action, (1, 4), (1, 11))
    assert np.array_equal(cells, kernel_source_cells(action, (1, 4), (1, 11)))
    assert x.reshape(-1)[cells].tolist() == [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2]
    assert source_cells(ExactAction(shared=(False, True)), (1, 4), (1, 11)) is None  # no mirror: not an action
