"""Primitives rewritten for speed, checked against plain numpy or a brute-force reference."""

from __future__ import annotations

import numpy as np
import pytest

from arcsolve.dsl.primitives.geometry import antitranspose, roll, rot90, rot180, rot270, self_tile, self_tile_inverse
from arcsolve.dsl.primitives.moving import attract, shoot
from arcsolve.dsl.primitives.objects import label
from tests.grids import flood_labels


def _random_grids(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    grids = []
    for _ in range(n):
        h, w = (int(x) for x in rng.integers(1, 9, 2))
        g = rng.integers(0, 4, (h, w)).astype(np.int8)
        g[rng.random((h, w)) < 0.4] = 0
        grids.append(g)
    return grids


@pytest.mark.parametrize(("diagonal", "by_colour"), [(True, False), (False, True), (False, False), (True, True)])
def test_label_matches_a_flood_fill(diagonal, by_colour):
    for g in _random_grids(300):
        lab, n = label(g, g != 0, diagonal, by_colour)
        expected, count = flood_labels(g, g != 0, diagonal, by_colour)
        assert np.array_equal(lab, expected)
        assert n == count == expected.max()


def test_quarter_turns_roll_and_self_tiles_match_numpy():
    for g in _random_grids(100, seed=1):
        assert np.array_equal(rot90(g), np.rot90(g, 1))
        assert np.array_equal(rot180(g), np.rot90(g, 2))
        assert np.array_equal(rot270(g), np.rot90(g, 3))
        assert np.array_equal(antitranspose(g), np.rot90(g, 2).T)
        for dy, dx in ((0, 1), (-1, 0), (2, -3), (5, 7)):
            assert np.array_equal(roll(g, dy, dx), np.roll(g, (dy, dx), axis=(0, 1)))
        assert np.array_equal(self_tile(g), np.kron((g != 0).astype(g.dtype), g))
        assert np.array_equal(self_tile_inverse(g), np.kron((g == 0).astype(g.dtype), g))
        assert self_tile(g).dtype == g.dtype


def test_attract_moves_along_a_single_column():
    g = np.array([[4], [2], [0], [1]], dtype=np.int8)
    assert attract(g, 4).tolist() == [[4], [1], [0], [0]]  # the 1 slides onto the 2, already touching


def test_shoot_trail_keeps_the_first_colour_drawn():
    g = np.array([[3, 0, 0, 0, 5]], dtype=np.int8)
    assert shoot(g, 5).tolist() == [[3, 3, 3, 3, 5]]
    g = np.array([[0], [1], [2], [0], [0], [6]], dtype=np.int8)
    assert shoot(g, 6).tolist() == [[0], [1], [2], [2], [2], [6]]  # row 3 gets the 2 first, then the 1
