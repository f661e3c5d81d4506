"""Random chains of lattice actions: what a chain does, determinism, the command."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from arcsolve.bench.lattice_chains import _draw, chain_id, chain_words, make_chain_task, make_chain_tasks, run_chain
from arcsolve.cli import app


def test_a_chain_task_is_its_chain_applied_to_every_input():
    for index in range(12):
        steps, _ = _draw(index, 5)
        task = make_chain_task(index, 5)
        assert task.id == chain_id(index) and len(steps) == 1 + index % 4
        assert chain_words(index, 5).count(";") == len(steps) - 1
        pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in [*task.train, *task.test]]
        assert len(task.train) == 3 and len(task.test) == 1
        assert len({x.shape for x, _ in pairs}) == 4  # distinct input sizes
        for x, y in pairs:
            assert np.array_equal(run_chain(steps, x), y)
            assert y.any() and max(y.shape) <= 30


def test_a_down_scaling_that_does_not_divide_its_grid_is_no_chain():
    steps, _ = next(_draw(k, 0) for k in range(200) if "down" in chain_words(k, 0))
    down = next(s for s in steps if s.kind == "down")
    a, b = (int(v) for v in down.params.split("x"))
    assert down.apply(np.zeros((2 * a + (a > 1), 2 * b + (b > 1)), dtype=int)) is None
    assert down.apply(np.ones((2 * a, 2 * b), dtype=int)).shape == (2, 2)


def test_chains_are_the_same_for_a_seed_and_differ_across_seeds():
    first = [t.to_json_dict() for t in make_chain_tasks(8, seed=1)]
    assert first == [t.to_json_dict() for t in make_chain_tasks(8, seed=1)]
    assert first != [t.to_json_dict() for t in make_chain_tasks(8, seed=2)]


def test_the_command_writes_chains_that_load_and_rejects_a_bad_count(tmp_path):
    runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})
    result = runner.invoke(app, ["bench", "lattice-chains", "--out", str(tmp_path), "--count", "5"])
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["chain1-000.json", "chain1-004.json", "chain2-001.json", "chain3-002.json", "chain4-003.json"]
    assert json.loads((tmp_path / "chain4-003.json").read_text())["test"][0]["output"]
    bad = runner.invoke(app, ["bench", "lattice-chains", "--out", str(tmp_path / "x"), "--count", "0"])
    assert bad.exit_code == 2 and "--count" in bad.output


def test_paddings_and_mirror_tilings_are_drawn_when_asked_for_and_leave_the_default_alone(tmp_path):
    from arcsolve.bench.lattice_chains import KINDS, MORE_KINDS, _mirror_tiled, parse_kinds

    assert [t.to_json_dict() for t in make_chain_tasks(8, 0)] == [
        t.to_json_dict() for t in make_chain_tasks(8, 0, parse_kinds(",".join(KINDS)))
    ]
    words = " ".join(chain_words(k, 0, KINDS + MORE_KINDS) for k in range(40))
    assert "pad top" in words and "mirror " in words
    for index in range(40):  # every pair is still its chain applied to its input
        steps, pairs = _draw(index, 0, ("pad", "mirror", "dihedral"))
        for pair in pairs:
            assert np.array_equal(run_chain(steps, np.array(pair["input"])), np.array(pair["output"]))
    x = np.arange(6).reshape(2, 3)
    assert np.array_equal(_mirror_tiled(x, 2, 2), np.block([[x, x[:, ::-1]], [x[::-1], x[::-1, ::-1]]]))
    runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})
    bad = runner.invoke(app, ["bench", "lattice-chains", "--out", str(tmp_path / "x"), "--kinds", "up,spin"])
    assert bad.exit_code == 2 and "--kinds" in bad.output and "spin" in bad.output and "Traceback" not in bad.output
    good = runner.invoke(
        app, ["bench", "lattice-chains", "--out", str(tmp_path / "y"), "--count", "4", "--kinds", "pad"]
    )
    assert good.exit_code == 0 and len(list((tmp_path / "y").iterdir())) == 4


def test_crops_take_fixed_margins_and_a_crop_that_leaves_nothing_is_no_chain():
    from arcsolve.bench.lattice_chains import _cropped

    x = np.arange(20).reshape(4, 5)
    assert np.array_equal(_cropped(x, 1, 0, 2, 1), x[1:, 2:4])
    assert _cropped(x, 2, 2, 0, 0) is None and _cropped(x, 0, 0, 3, 2) is None
    words = [chain_words(k, 0, ("crop", "up")) for k in range(24)]
    assert any("crop top" in w for w in words)
    for index in range(24):  # every pair is its chain applied to its input, whatever the crops
        steps, pairs = _draw(index, 0, ("crop", "up"))
        for pair in pairs:
            assert np.array_equal(run_chain(steps, np.array(pair["input"])), np.array(pair["output"]))


def test_pairs_sets_the_train_pairs_and_rejects_a_bad_count(tmp_path):
    for pairs in (1, 2, 5):
        for task in make_chain_tasks(8, 0, n_train=pairs):
            assert len(task.train) == pairs and len(task.test) == 1
            inputs = [p.input.shape for p in (*task.train, *task.test)]
            assert len(set(inputs)) == len(inputs)  # every input a size of its own
    assert [t.to_json_dict() for t in make_chain_tasks(8, 0, n_train=3)] == [
        t.to_json_dict() for t in make_chain_tasks(8, 0)
    ]
    runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})
    good = runner.invoke(app, ["bench", "lattice-chains", "--out", str(tmp_path / "a"), "--count", "2", "--pairs", "2"])
    assert good.exit_code == 0, good.output
    assert len(json.loads((tmp_path / "a" / "chain1-000.json").read_text())["train"]) == 2
    bad = runner.invoke(app, ["bench", "lattice-chains", "--out", str(tmp_path / "b"), "--pairs", "0"])
    assert bad.exit_code == 2 and "--pairs" in bad.output and "Traceback" not in bad.output


def test_object_inputs_are_a_few_objects_on_a_background_and_leave_the_default_alone(tmp_path):
    from arcsolve.bench.lattice_chains import KINDS, MORE_KINDS

    kinds = KINDS + MORE_KINDS
    assert [t.to_json_dict() for t in make_chain_tasks(4, 0, kinds)] == [
        t.to_json_dict() for t in make_chain_tasks(4, 0, kinds, inputs="random")
    ]
    sparse = []
    for index in range(16):
        steps, pairs = _draw(index, 3, kinds, inputs="objects")
        assert chain_words(index, 3, kinds, inputs="objects") == "; ".join(f"{s.kind} {s.params}" for s in steps)
        for pair in pairs:
            x = np.array(pair["input"])
            assert 3 <= min(x.shape) and max(x.shape) <= 12
            assert np.array_equal(run_chain(steps, x), np.array(pair["output"]))
            if "swap" not in chain_words(index, 3, kinds, inputs="objects"):  # a swap adds two cells of its colours
                assert 1 <= len(set(x.flat) - {0}) <= 3
            sparse.append((x == 0).mean())
    assert np.median(sparse) > 0.5  # mostly background, unlike the scattered colours
    runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})
    result = runner.invoke(
        app, ["bench", "lattice-chains", "--out", str(tmp_path / "o"), "--count", "3", "--inputs", "objects"]
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [
        "chain1-000.json",
        "chain2-001.json",
        "chain3-002.json",
    ]
    bad = runner.invoke(app, ["bench", "lattice-chains", "--out", str(tmp_path / "x"), "--inputs", "noise"])
    assert bad.exit_code == 2 and "--inputs" in bad.output and "noise" in bad.output and "Traceback" not in bad.output
