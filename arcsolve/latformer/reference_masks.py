"""Exact lattice masks (LatFormer paper §3, Table 1, Appendix D) and masked attention.

A mask M ∈ {0,1}^{n_out×n_in} implements an action g when MaskedAttention(X; M) = g∘X.
Row k of a permutation mask has its single 1 at column k + o_k (the Fourier shift o of
Table 1, 0-based here), i.e. output cell k reads input cell k + o_k (mod n).

Every mask is built in two independent ways, which the tests compare:
  * `*_mask` functions gather from coordinates directly (what np.roll / np.flip / np.rot90
    / np.kron do to an index), and
  * `fourier_mask(offsets)` applies Theorem 3.2: each row of the identity is shifted in
    Fourier space, F⁻¹(F(I) · exp(−2πj/n · o rᵀ)), with the offsets of Table 1.

Corrections to Table 1, checked against numpy by tests/latformer/test_reference_masks.py:
  * Up-scaling: the table's o_k = (k−1 mod h) + (h−1)⌊(k−1)/h⌋ has the wrong sign; the
    right shift is o_k = −((k−1 mod h) + (h−1)⌊(k−1)/h⌋), which gives (x₁, x₁, x₂, x₂, …).
  * Rotation: the table's row holds only for square lattices (l₁ = l₂). For an l₁×l₂ grid
    the rotated grid is l₂×l₁; `rotation_offsets` derives the offsets for any shape.
  * The frequency vector r is 0-based here (0, 1, …, n−1). With the paper's 1-based
    r = (1, …, n) every row picks up an extra phase exp(−2πj o_k / n) and the result is no
    longer a 0/1 matrix, so the 1-based r only makes sense with a 1-based DFT.
  * The DFT runs along each row (over the column index), since o shifts the 1 within a row.
Down-scaling is the transpose of up-scaling; its rows hold h ones (block averages).
"""

from __future__ import annotations

import numpy as np
import torch

# ---------------------------------------------------------------- Table 1 offsets (0-based k)


def translation_offsets(n: int, delta: int) -> np.ndarray:
    """Translation by δ: every cell reads the cell δ before it, o_k = −δ."""
    return np.full(n, -delta, dtype=np.int64)


def reflection_offsets(n: int) -> np.ndarray:
    """Reflection: o_0 = n−1, o_k = o_{k−1} − 2."""
    return (n - 1) - 2 * np.arange(n, dtype=np.int64)


def rotation_offsets_square(side: int) -> np.ndarray:
    """90° counter-clockwise rotation on a square lattice, Table 1 as printed (1-based k)."""
    k = np.arange(1, side * side + 1, dtype=np.int64)
    return k * (side - 1) - (k - 1) // side


def rotation_offsets(rows: int, cols: int) -> np.ndarray:
    """90° counter-clockwise rotation of a rows×cols grid (any shape); the output is cols×rows.

    Output cell (i, j) of the cols×rows result reads input cell (j, cols−1−i)."""
    i, j = np.divmod(np.arange(rows * cols, dtype=np.int64), rows)
    return j * cols + (cols - 1 - i) - np.arange(rows * cols)


def upscale_offsets(n: int, h: int) -> np.ndarray:
    """Up-scaling by h (corrected sign): o_k = −((k mod h) + (h−1)⌊k/h⌋) for 0-based k."""
    k = np.arange(n, dtype=np.int64)
    return -((k % h) + (h - 1) * (k // h))


def fourier_mask(offsets: np.ndarray) -> np.ndarray:
    """Theorem 3.2: shift each row of the identity by o_k in Fourier space (0/1 result)."""
    n = len(offsets)
    r = np.arange(n)
    spectrum = np.fft.fft(np.eye(n), axis=1) * np.exp(-2j * np.pi / n * np.outer(offsets, r))
    return np.rint(np.fft.ifft(spectrum, axis=1).real).astype(np.int64)


# ---------------------------------------------------------------- masks by gathering indices


def mask_from_sources(sources: np.ndarray, n_in: int) -> np.ndarray:
    """Row k has a 1 at column sources[k] (a gather written as a mask)."""
    mask = np.zeros((len(sources), n_in), dtype=np.int64)
    mask[np.arange(len(sources)), sources] = 1
    return mask


def translation_mask(n: int, delta: int) -> np.ndarray:
    """Cyclic translation by δ (what np.roll(x, δ) does)."""
    return mask_from_sources((np.arange(n) - delta) % n, n)


def reflection_mask(n: int) -> np.ndarray:
    """Reflection of a 1-D lattice (what x[::-1] does)."""
    return mask_from_sources(np.arange(n)[::-1].copy(), n)


def rotation_mask(rows: int, cols: int) -> np.ndarray:
    """90° counter-clockwise rotation of a row-major rows×cols grid (what np.rot90 does)."""
    index = np.arange(rows * cols).reshape(rows, cols)
    return mask_from_sources(np.rot90(index).reshape(-1), rows * cols)


def upscale_mask(n: int, h: int) -> np.ndarray:
    """Up-scaling by h on a lattice of n cells: cell k reads cell ⌊k/h⌋."""
    return mask_from_sources(np.arange(n) // h, n)


def downscale_mask(n: int, h: int) -> np.ndarray:
    """Down-scaling by h: the transpose of up-scaling; cell k averages cells kh … kh+h−1."""
    return upscale_mask(n, h).T.copy()


def kron(*masks: np.ndarray) -> np.ndarray:
    """Theorem 3.2: masks of higher-dimensional lattices are Kronecker products (row-major)."""
    out = np.ones((1, 1), dtype=np.int64)
    for mask in masks:
        out = np.kron(out, mask)
    return out


# ---------------------------------------------------------------- attention


def masked_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor, eps: float = 1e-9
) -> torch.Tensor:
    """§3.1: A = softmax(QKᵀ/√d) ⊙ M, rows renormalised to sum to 1, times V.

    q: (..., n_q, d), k and v: (..., n_k, d), mask: (..., n_q, n_k) in [0, 1]. A row whose
    mask is all zero attends to nothing and yields 0."""
    d = q.shape[-1]
    scores = q @ k.transpose(-1, -2) / d**0.5
    # softmax then ⊙ M then renormalise == exp(s − max) ⊙ M renormalised; the softmax
    # denominator cancels, and this form never divides by a tiny number for sparse masks.
    weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True)) * mask
    weights = weights / (weights.sum(dim=-1, keepdim=True) + eps)
    return weights @ v
