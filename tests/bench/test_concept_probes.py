"""The concept probes: deterministic, well-formed tasks, and the DSL steps that cover some of
them (centres, closed boxes, cells settling on a floor, the topmost object, a grid's centre,
dashed rays, boxes stretched to a marker, midpoints, band colours, rows and columns by colour,
the rarest colour ringed, holes cut in bars, a box spilling out of its gap, shapes copied onto
their keys, a cross's patterns repeated, rays towards and away from a line, stripes from two
seeds, the lower halves of bars, rows painted by where their mark lies, a shape repeated
towards pieces of it, a diagonal turned back by a wall, rays stepping past blocks, a ring
around a crossing, a cup brimming over, stripes in a key's colours, a line behind a shape,
stairs from a bar)."""

import json

import numpy as np
import pytest

from arcsolve.dsl.search import search
from arcsolve.loaders import load_tasks
from tests.benchmark_scripts import load_script


@pytest.fixture(scope="module")
def probes():
    return load_script("concept_probes")


@pytest.fixture(scope="module")
def written(probes, tmp_path_factory):
    folder = tmp_path_factory.mktemp("probes")
    assert probes.write(folder, seed=1) == len(probes.CONCEPTS) * probes.TASKS_PER_CONCEPT
    return folder


def test_tasks_are_well_formed_and_show_a_change(probes, written):
    for path in sorted(written.glob("*.json")):
        task = json.loads(path.read_text())
        assert len(task["train"]) == probes.PAIRS - 1 and len(task["test"]) == 1, path.name
        for pair in task["train"] + task["test"]:
            a, b = np.array(pair["input"]), np.array(pair["output"])
            assert a.ndim == b.ndim == 2 and max(a.shape + b.shape) <= 30, path.name
            assert a.shape != b.shape or (a != b).any(), path.name
            assert a.min() >= 0 and a.max() <= 9 and b.min() >= 0 and b.max() <= 9, path.name


def test_writing_is_deterministic_per_seed(probes, written, tmp_path):
    probes.write(tmp_path / "again", seed=1)
    probes.write(tmp_path / "other", seed=2)
    name = "mark-centre-0.json"
    assert (tmp_path / "again" / name).read_text() == (written / name).read_text()
    assert (tmp_path / "other" / name).read_text() != (written / name).read_text()


@pytest.mark.parametrize("name, step, depth", [
    ("mark-centre-0", "mark_centres", 2),
    ("close-box-0", "outline_bbox", 2),
    ("fall-onto-floor-0", "settle", 2),
    ("mark-topmost-0", "colour_by", 2),
    ("crop-centre-0", "crop_centre", 2),
    ("count-cells-0", "gather_cells", 2),  # the cells laid out in a row; place_on_canvas fits too
    ("colour-histogram-0", "place_on_canvas", 3),  # bars, turned to stand on the floor, on the canvas
    ("count-colours-0", "count_block", 2),
    ("dashed-rays-0", "extend_dashed", 2),
    ("stretch-to-marker-0", "stretch_to_markers", 2),
    ("mark-midpoint-0", "mark_midpoints", 2),
    ("colour-bands-0", "band_colours", 2),
    ("rows-and-columns-0", "line_rays", 2),
    ("ring-the-rarest-0", "halo", 2),  # around any colour (src 0), after the rarest is kept
    ("holes-in-bars-0", "cell_table", 2),
    ("spill-out-0", "spill", 2),
    ("copy-to-keys-0", "copy_to_keys", 2),
    ("repeat-cross-0", "repeat_runs", 2),
    ("rays-from-line-0", "wall_rays", 2),
    ("stripes-from-seeds-0", "seed_stripes", 2),
    ("lower-halves-1", "cell_table", 2),  # the first task's pairs do not all hold out
    ("rows-by-mark-0", "cell_table", 2),
    ("repeat-toward-piece-0", "repeat_toward", 2),
    ("bounce-off-wall-0", "bounce_diagonals", 2),
    ("detour-past-blocks-0", "detour_rays", 2),  # a colour per pair: from any edge cell
    ("ring-the-crossing-0", "ring_crossings", 2),
    ("brim-over-0", "overflow", 2),
    ("stripes-from-key-0", "key_stripes", 2),
    ("line-behind-shape-0", "line_behind", 2),  # after the shape is moved onto the wall
    ("stairs-from-bar-0", "stairs", 2),
])
def test_the_dsl_solves_a_probe_with_its_step(written, name, step, depth):
    """Searched without a clock (2000 states): the first answer is verified, uses the step and
    is right on the test."""
    [task] = load_tasks(str(written / f"{name}.json"))
    first = search(task, float("inf"), max_depth=depth, max_states=2000)[0]
    assert first.verified and step in [s.name for s in first.program]
    assert np.array_equal(first.outputs[0], task.test[0].output.to_numpy())


def test_table_counts_solved_tasks_per_concept(tmp_path, capsys):
    rows = [{"header": {"model": "dsl", "fingerprint": "0"}}, {"id": "crop-centre-0", "solved": True},
            {"id": "crop-centre-1", "solved": False}, {"id": "mark-centre-0", "solved": True}]
    (tmp_path / "results-dsl.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    load_script("lattice_variants").table(tmp_path, label="concept", per_group=3, out_name="concepts.json")
    counts = json.loads((tmp_path / "concepts.json").read_text())
    assert counts["concepts"] == {"crop-centre": {"dsl": 1}, "mark-centre": {"dsl": 1}}
    assert counts["total"] == {"dsl": {"solved": 2, "tasks": 3}}
    assert "| crop-centre | 1/3 |" in capsys.readouterr().out


def test_table_of_a_folder_without_results_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        load_script("lattice_variants").table(tmp_path)
    assert stop.value.code == 2
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and message.startswith(f"error: {tmp_path}: no results-<model>.jsonl files")


def test_table_of_a_cut_off_results_file_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "results-dsl.jsonl").write_text("not a header\n")
    with pytest.raises(SystemExit) as stop:
        load_script("lattice_variants").table(tmp_path)
    assert stop.value.code == 2
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and "results-dsl.jsonl: the first line is not an arcsolve results header" in message


def test_writing_over_a_file_is_a_clear_error(tmp_path, monkeypatch, capsys):
    (tmp_path / "taken").write_text("")
    monkeypatch.setattr("sys.argv", ["concept_probes.py", "write", str(tmp_path / "taken")])
    with pytest.raises(SystemExit) as stop:
        load_script("concept_probes").main()
    assert stop.value.code == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'taken'}: cannot write the tasks there (File exists)\n"


def test_tasks_take_the_train_pairs_and_tests_asked_for(probes, written, tmp_path):
    assert probes.write(tmp_path, seed=1, train_pairs=2, tests=3) == len(probes.CONCEPTS) * probes.TASKS_PER_CONCEPT
    for path in sorted(tmp_path.glob("*.json")):
        task, usual = json.loads(path.read_text()), json.loads((written / path.name).read_text())
        assert len(task["train"]) == 2 and len(task["test"]) == 3, path.name
        # the same draws as the usual split, then more: the usual task's pairs come first
        assert task["train"] + task["test"][:2] == usual["train"] + usual["test"], path.name


@pytest.mark.parametrize("option", ["--train-pairs", "--tests"])
def test_a_task_needs_a_train_pair_and_a_test(tmp_path, monkeypatch, capsys, option):
    monkeypatch.setattr("sys.argv", ["concept_probes.py", "write", str(tmp_path / "probes"), option, "0"])
    with pytest.raises(SystemExit) as stop:
        load_script("concept_probes").main()
    assert stop.value.code == 2
    assert capsys.readouterr().err.endswith(f"error: {option} must be at least 1, not 0\n")
    assert not (tmp_path / "probes").exists()
