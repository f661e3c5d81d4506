"""Exact masks: the gather and the Fourier constructions agree, and masked attention with a
mask performs the action exactly as numpy does it, on many sizes, square and not."""

import numpy as np
import pytest
import torch

from arcsolve.latformer import reference_masks as L

SHAPES = [(1, 1), (1, 4), (2, 2), (2, 3), (3, 2), (3, 5), (4, 4), (5, 3), (6, 7), (7, 7)]


def attend(mask: np.ndarray, grid: np.ndarray, d: int = 6, seed: int = 0) -> np.ndarray:
    """MaskedAttention(X; M) with random features X per cell; returns the colour each
    output cell received, decoded by nearest feature."""
    rng = np.random.default_rng(seed)
    features = rng.normal(size=(10, d))
    x = torch.tensor(features[grid.reshape(-1)])
    out = L.masked_attention(x, x, x, torch.tensor(mask, dtype=x.dtype)).numpy()
    distances = ((out[:, None, :] - features[None]) ** 2).sum(-1)
    return distances.argmin(-1)


def grid_of(shape, seed=1):
    return np.random.default_rng(seed).integers(0, 10, size=shape)


@pytest.mark.parametrize("n", [1, 2, 3, 8, 13, 30])
def test_fourier_equals_gather_1d(n):
    assert (L.fourier_mask(L.reflection_offsets(n)) == L.reflection_mask(n)).all()
    for delta in range(-n - 1, n + 2):
        assert (L.fourier_mask(L.translation_offsets(n, delta)) == L.translation_mask(n, delta)).all()
    for h in range(1, 6):
        assert (L.fourier_mask(L.upscale_offsets(n, h)) == L.upscale_mask(n, h)).all()


@pytest.mark.parametrize("side", [1, 2, 3, 4, 9])
def test_table1_rotation_row_holds_on_square_lattices(side):
    expected = L.rotation_mask(side, side)
    assert (L.fourier_mask(L.rotation_offsets_square(side)) == expected).all()
    assert (L.fourier_mask(L.rotation_offsets(side, side)) == expected).all()


def test_table1_rotation_row_fails_on_non_square_lattices():
    """Why rotation_offsets exists: the printed row is wrong for l1 != l2."""
    n = 2 * 3
    k = np.arange(1, n + 1)
    printed = k * (2 - 1) - (k - 1) // 2  # Table 1 with l1 = 2 for a 2x3 grid
    assert not (L.fourier_mask(printed) == L.rotation_mask(2, 3)).all()


def test_table1_upscaling_row_as_printed_has_the_wrong_sign():
    n, h = 6, 2
    k = np.arange(1, n + 1)
    printed = ((k - 1) % h) + (h - 1) * ((k - 1) // h)
    x = np.arange(n)
    assert not (L.fourier_mask(printed) @ x == np.repeat(x[:3], 2)).all()
    assert (L.fourier_mask(L.upscale_offsets(n, h)) @ x == np.repeat(x[:3], 2)).all()


@pytest.mark.parametrize("shape", SHAPES)
def test_rotation_fourier_equals_gather(shape):
    offsets = L.rotation_offsets(*shape)
    assert (L.fourier_mask(offsets) == L.rotation_mask(*shape)).all()


@pytest.mark.parametrize("shape", SHAPES)
def test_masked_attention_performs_each_action(shape):
    rows, cols = shape
    x = grid_of(shape)
    I_r, I_c = np.eye(rows, dtype=int), np.eye(cols, dtype=int)
    cases = {
        "rot90": (L.rotation_mask(rows, cols), np.rot90(x)),
        "rot180": (L.rotation_mask(cols, rows) @ L.rotation_mask(rows, cols), np.rot90(x, 2)),
        "flip rows": (L.kron(L.reflection_mask(rows), I_c), np.flip(x, 0)),
        "flip cols": (L.kron(I_r, L.reflection_mask(cols)), np.flip(x, 1)),
        "roll": (L.kron(L.translation_mask(rows, 1), L.translation_mask(cols, -2)), np.roll(x, (1, -2), (0, 1))),
    }
    for name, (mask, expected) in cases.items():
        assert (attend(mask, x) == expected.reshape(-1)).all(), name
        offsets = mask.argmax(1) - np.arange(rows * cols)
        assert (L.fourier_mask(offsets) == mask).all(), name


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (3, 2), (4, 4)])
@pytest.mark.parametrize("factors", [(2, 2), (3, 1), (1, 2), (2, 3)])
def test_upscaling_on_a_lattice_equals_kron(shape, factors):
    """On an (h·a)×(w·b) lattice holding x top-left, up-scaling equals np.kron."""
    (h, w), (a, b) = shape, factors
    x = grid_of(shape, seed=h * 10 + w)
    canvas = np.zeros((h * a, w * b), dtype=int)
    canvas[:h, :w] = x
    mask = L.kron(L.upscale_mask(h * a, a), L.upscale_mask(w * b, b))
    assert (attend(mask, canvas) == np.kron(x, np.ones((a, b), dtype=int)).reshape(-1)).all()


def test_downscaling_is_the_transpose_and_undoes_upscaling():
    x = grid_of((3, 4), seed=5)
    big = np.kron(x, np.ones((2, 3), dtype=int))
    down = L.kron(L.downscale_mask(6, 2), L.downscale_mask(12, 3))
    assert (down == L.kron(L.upscale_mask(6, 2), L.upscale_mask(12, 3)).T).all()
    out = attend(down, big).reshape(6, 12)
    assert (out[:3, :4] == x).all()


def test_composition_is_the_matrix_product():
    rows, cols = 3, 5
    x = grid_of((rows, cols), seed=7)
    flip_then_roll = L.kron(L.translation_mask(rows, 1), np.eye(cols, dtype=int)) @ L.kron(
        L.reflection_mask(rows), np.eye(cols, dtype=int)
    )
    assert (attend(flip_then_roll, x) == np.roll(np.flip(x, 0), 1, 0).reshape(-1)).all()
    rot = L.rotation_mask(rows, cols)
    back = L.rotation_mask(cols, rows) @ L.rotation_mask(rows, cols) @ L.rotation_mask(cols, rows) @ rot
    assert (back == np.eye(rows * cols, dtype=int)).all()
    assert (L.translation_mask(7, 3) @ L.translation_mask(7, 5) == L.translation_mask(7, 8)).all()


def test_masked_attention_renormalises_and_handles_empty_rows():
    q = torch.randn(4, 3)
    mask = torch.tensor([[1.0, 1, 0, 0], [0, 0, 0, 0], [0.5, 0, 0, 0.5], [0, 0, 1, 0]])
    out = L.masked_attention(q, q, q, mask)
    assert torch.allclose(out[3], q[2])
    assert torch.allclose(out[1], torch.zeros(3))
    scores = q @ q.T / 3**0.5
    a = torch.softmax(scores, -1) * mask
    expected = a / a.sum(-1, keepdim=True).clamp_min(1e-30) @ q
    assert torch.allclose(out[[0, 2]], expected[[0, 2]], atol=1e-6)
