"""Tasks built from lattice actions: what each family's rule does, determinism, the command."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from arcsolve.bench.lattice_tasks import FAMILIES, FAMILY_NAMES, N_TRAIN, make_task, make_tasks
from arcsolve.cli import app
from arcsolve.loaders import load_many
from tests.grids import shifted_with_fill


def arrays(task):
    return [(p.input.to_numpy(), p.output.to_numpy()) for p in [*task.train, *task.test]]


@pytest.mark.parametrize("family", FAMILIES, ids=FAMILY_NAMES)
def test_every_family_makes_tasks_with_a_test_pair_and_sizes_that_vary(family):
    task = make_task(family, 0)
    pairs = arrays(task)
    assert len(task.train) == N_TRAIN and len(task.test) == 1
    assert all(y.any() for _, y in pairs)  # never a blank output
    shapes = {x.shape for x, _ in pairs}
    assert len(shapes) == (1 if family.one_size else len(pairs))
    if family.square:
        assert all(x.shape[0] == x.shape[1] for x, _ in pairs)


def test_rules_do_what_their_family_says():
    x, y = arrays(make_task(FAMILIES[FAMILY_NAMES.index("shift-fill")], 1))[0]
    # a shift with fill: some shift of x, with the cells it uncovers at 0, gives y
    shifts = [(dr, dc) for dr in range(-2, 3) for dc in range(-2, 3) if (dr, dc) != (0, 0)]
    assert any(np.array_equal(shifted_with_fill(x, dr, dc), y) for dr, dc in shifts)
    x, y = arrays(make_task(FAMILIES[FAMILY_NAMES.index("self-tiling")], 0))[0]
    h, w = x.shape
    for i in range(h):
        for j in range(w):
            block = y[i * h : (i + 1) * h, j * w : (j + 1) * w]
            assert np.array_equal(block, x if x[i, j] else np.zeros_like(x))
    x, y = arrays(make_task(FAMILIES[FAMILY_NAMES.index("completion-1")], 0))[0]
    assert np.array_equal(y[x != 0], x[x != 0]) and (y != 0).sum() > (x != 0).sum()


def family_pairs(name, index=0):
    return arrays(make_task(FAMILIES[FAMILY_NAMES.index(name)], index))


def test_the_families_beyond_one_plain_action_do_what_they_say():
    # a shift with fill on a background that is not 0: the uncovered cells take it
    pairs = family_pairs("shift-background")

    def shifted_on(x, background, dr, dc):
        moved = shifted_with_fill(np.where(x == background, 0, x + 10), dr, dc)
        return np.where(moved == 0, background, moved - 10)

    assert any(
        all(np.array_equal(shifted_on(x, background, dr, dc), y) for x, y in pairs)
        for background in range(1, 10) for dr in range(-2, 3) for dc in range(-2, 3)
    )
    # two colours swapped after a dihedral element: the colour counts swap, the rest stay
    for x, y in family_pairs("dihedral-recolour"):
        counts_x, counts_y = np.bincount(x.reshape(-1), minlength=10), np.bincount(y.reshape(-1), minlength=10)
        changed = np.flatnonzero(counts_x != counts_y)
        assert len(changed) in (0, 2)
        if len(changed) == 2:
            a, b = changed
            assert counts_x[a] == counts_y[b] and counts_x[b] == counts_y[a]
    # a block is coloured exactly when one of its cells is
    for x, y in family_pairs("block-any"):
        h, w = y.shape
        assert x.shape == (2 * h, 2 * w)
        assert np.array_equal(y != 0, (x.reshape(h, 2, w, 2) != 0).any(axis=(1, 3)))
    # the long shifts move by 3 to 6 cells along some axis
    x, y = family_pairs("shift-long")[0]
    moves = [(dr, dc) for dr in range(-6, 7) for dc in range(-6, 7) if np.array_equal(np.roll(x, (dr, dc), (0, 1)), y)]
    assert moves and max(abs(v) for v in moves[0]) >= 3
    # a zoom: some window of the input, up-scaled
    for x, y in family_pairs("zoom"):
        f = next(f for f in (2, 3) if y.shape[0] % f == 0 and y.shape[1] % f == 0
                 and np.array_equal(np.kron(y[::f, ::f], np.ones((f, f), dtype=y.dtype)), y))
        h, w = y.shape[0] // f, y.shape[1] // f
        assert any(np.array_equal(x[r:r + h, c:c + w], y[::f, ::f]) for r in range(3) for c in range(3))
    # the first cell of every 2×2 block of a dihedral image
    x, y = family_pairs("dihedral-downscale")[0]
    images = [np.rot90(g, k) for g in (x, x.T) for k in range(4)]
    assert any(g.shape[0] == 2 * y.shape[0] and np.array_equal(g[::2, ::2], y) for g in images)
    # up-scaled by 2, then repeated
    x, y = family_pairs("upscale-tile")[0]
    blown = np.kron(x, np.ones((2, 2), dtype=x.dtype))
    assert np.array_equal(y, np.tile(blown, (y.shape[0] // blown.shape[0], y.shape[1] // blown.shape[1])))
    # each block's most common colour
    for x, y in family_pairs("block-majority"):
        h, w = y.shape
        blocks = x.reshape(h, 3, w, 3).transpose(0, 2, 1, 3).reshape(h, w, 9)
        assert all((blocks[i, j] == y[i, j]).sum() >= 5 for i in range(h) for j in range(w))
    # nine tiles, each a dihedral image of the input
    x, y = family_pairs("nine-tiles")[0]
    n = x.shape[0]
    images = [np.rot90(g, k) for g in (x, x.T) for k in range(4)]
    assert y.shape == (3 * n, 3 * n)
    assert all(any(np.array_equal(y[i * n:(i + 1) * n, j * n:(j + 1) * n], g) for g in images)
               for i in range(3) for j in range(3))
    # tiled, then the whole result shifted with fill (by one rule for every pair)
    pairs = family_pairs("tile-shift")
    assert any(
        all(np.array_equal(shifted_with_fill(np.tile(x, tiles), dr, dc), y) for x, y in pairs)
        for tiles in ((1, 2), (2, 1)) for dr in range(-2, 3) for dc in range(-2, 3) if (dr, dc) != (0, 0)
    )
    # one cell of every 2×2 block, then up-scaled
    pairs = family_pairs("sample-upscale")
    assert any(
        all(np.array_equal(np.kron(x[r::2, c::2], np.ones((k, k), dtype=x.dtype)), y) for x, y in pairs)
        for r in range(2) for c in range(2) for k in (2, 3)
    )


def test_tasks_are_the_same_for_a_seed_and_differ_across_seeds():
    first = [t.to_json_dict() for t in make_tasks(2, seed=3)]
    assert first == [t.to_json_dict() for t in make_tasks(2, seed=3)]
    assert first != [t.to_json_dict() for t in make_tasks(2, seed=4)]
    assert len(first) == 2 * len(FAMILIES)


def test_the_command_writes_tasks_that_load_and_rejects_an_unknown_family(tmp_path):
    runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})
    result = runner.invoke(app, ["bench", "lattice-tasks", "--out", str(tmp_path), "--per-family", "1",
                                 "--family", "crop", "--family", "four-tiles"])
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["crop-0.json", "four-tiles-0.json"]
    assert json.loads((tmp_path / "crop-0.json").read_text())["test"][0]["output"]
    assert [t.id for t in load_many([str(tmp_path)])] == ["crop-0", "four-tiles-0"]
    bad = runner.invoke(app, ["bench", "lattice-tasks", "--out", str(tmp_path), "--family", "spin"])
    assert bad.exit_code == 2 and "--family: unknown spin" in bad.output
