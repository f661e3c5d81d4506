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
