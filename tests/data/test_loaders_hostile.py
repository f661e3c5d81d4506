"""Hostile inputs to the loaders: special files, huge files, bad bytes, wrong blame, fuzzed JSON."""

import json
import os
import subprocess
import sys

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arcsolve.errors import ArcsolveError, DatasetNotFoundError, TaskFormatError
from arcsolve.loaders import MAX_COLLECTION_BYTES, MAX_TASK_BYTES, MAX_TASKS_PER_FILE, load_many, load_tasks
from arcsolve.tasks import Task
from tests.conftest import ROOT

TASK = {"train": [{"input": [[1, 2]], "output": [[2, 1]]}], "test": [{"input": [[3, 4]], "output": [[4, 3]]}]}
CHALLENGE = {"train": TASK["train"], "test": [{"input": [[3, 4]]}]}


def write(path, data) -> str:
    path.write_bytes(orjson.dumps(data))
    return str(path)


# ---------------------------------------------------------------------- special and huge files


def test_a_named_pipe_in_a_folder_is_refused_without_blocking(tmp_path):
    write(tmp_path / "good.json", TASK)
    os.mkfifo(tmp_path / "pipe.json")  # opening it for reading would wait for a writer forever
    result = subprocess.run(
        [sys.executable, "-m", "arcsolve", "show", str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {tmp_path / 'pipe.json'}: not a regular file"


def test_a_link_to_a_device_is_refused_without_reading(tmp_path):
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    with pytest.raises(TaskFormatError, match=r"zero\.json: not a regular file$"):
        load_tasks(tmp_path / "zero.json")


def test_a_file_above_the_limit_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge_challenges.json"
    with open(path, "wb") as file:
        file.truncate(MAX_COLLECTION_BYTES + 2**20)  # sparse: nothing to read but zeros
    with pytest.raises(TaskFormatError) as error:
        load_tasks(path)
    assert str(error.value) == f"{path}: {MAX_COLLECTION_BYTES + 2**20:,} bytes, more than the 16 MB allowed"


def test_one_task_above_the_task_limit_is_refused(tmp_path):
    path = tmp_path / "padded.json"
    path.write_bytes(orjson.dumps(TASK)[:-1] + b" " * MAX_TASK_BYTES + b"}")
    with pytest.raises(TaskFormatError) as error:
        load_tasks(path)
    size = path.stat().st_size
    assert str(error.value) == f"{path}: {size:,} bytes for one task, more than the 4 MB allowed"


def test_a_file_of_too_many_tasks_is_refused(tmp_path):
    path = write(tmp_path / "many.json", {f"{i:08x}": CHALLENGE for i in range(MAX_TASKS_PER_FILE + 1)})
    with pytest.raises(TaskFormatError, match=f"many.json: {MAX_TASKS_PER_FILE + 1} tasks, more than the"):
        load_tasks(path)


# ---------------------------------------------------------------------- the right place and the right file


def test_invalid_utf8_is_reported_where_it_is(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"train": [],\n  "name": "caf\xe9"}')
    with pytest.raises(TaskFormatError) as error:
        load_tasks(path)
    assert str(error.value) == f"{path}: not valid UTF-8 at line 2, column 15 (byte 28)"


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + orjson.dumps(TASK))
    assert load_tasks(path)[0].id == "bom"


def test_a_bad_task_in_a_kaggle_file_is_named(tmp_path):
    path = write(tmp_path / "c.json", {"0000000a": CHALLENGE, "0000000b": {"test": CHALLENGE["test"]}})
    with pytest.raises(TaskFormatError) as error:
        load_tasks(path)
    assert str(error.value) == f"{path}: 0000000b: missing key 'train'"
    path = write(tmp_path / "d.json", {"0000000a": CHALLENGE, "0000000b": [1]})
    with pytest.raises(TaskFormatError, match=r"d\.json: 0000000b: expected a task object, got list$"):
        load_tasks(path)


def test_a_bad_grid_in_the_solutions_file_is_blamed_on_it(tmp_path):
    challenges = write(tmp_path / "x_challenges.json", {"0000000a": CHALLENGE})
    solutions = write(tmp_path / "x_solutions.json", {"0000000a": [[[4, 10]]]})
    with pytest.raises(TaskFormatError) as error:
        load_tasks(challenges)
    assert str(error.value) == f"{solutions}: 0000000a[0]: row 0, column 1: colour 10 is outside 0..9"


def test_a_solutions_file_missing_a_task_is_named(tmp_path):
    challenges = write(tmp_path / "x_challenges.json", {"0000000a": CHALLENGE, "0000000b": CHALLENGE})
    solutions = write(tmp_path / "x_solutions.json", {"0000000a": [[[4, 3]]]})
    with pytest.raises(TaskFormatError) as error:
        load_tasks(challenges)
    assert str(error.value) == f"{solutions}: 0000000b: no solutions for this task of the challenges file"
    write(tmp_path / "x_solutions.json", {"0000000a": [[[4, 3]]], "0000000b": [[[4, 3]]]})
    assert [t.test[0].output.cells for t in load_tasks(challenges)] == [((4, 3),), ((4, 3),)]


def test_every_problem_is_collected_when_asked(tmp_path):
    bad_grid = {"train": [{"input": [[1, 2], [3]], "output": [[1]]}], "test": [{"input": [[1]]}]}
    path = write(tmp_path / "c.json", {"0000000a": CHALLENGE, "0000000b": bad_grid, "0000000c": {"train": []}})
    problems: list = []
    tasks = load_many([path], problems=problems)
    assert [t.id for t in tasks] == ["0000000a"]
    assert [str(p) for p in problems] == [
        f"{path}: 0000000b.train[0].input: row 1 has 1 cells, expected 2",
        f"{path}: 0000000c.train: no train pairs",
        f"{path}: 0000000c: missing key 'test'",
    ]


def test_a_task_asked_of_the_wrong_set_says_where_it_is():
    with pytest.raises(DatasetNotFoundError) as error:
        load_tasks("arc1/evaluation/3c9b0459")
    assert str(error.value) == "task '3c9b0459' is not in arc1/evaluation; it is in arc1/training and arc2/training"


def test_ids_with_brackets_load_literally(tmp_path):
    path = write(tmp_path / "86_[red]bracket_name.json", TASK)
    assert load_tasks(path)[0].id == "86_[red]bracket_name"
    assert load_tasks(write(tmp_path / "k.json", {"[/x]": CHALLENGE}))[0].id == "[/x]"


# ---------------------------------------------------------------------- LARC's format


def larc_folder(tmp_path, data) -> str:
    (tmp_path / "tasks_json").mkdir(exist_ok=True)
    (tmp_path / "tasks_json" / "1.json").write_text(json.dumps(data))
    return str(tmp_path)


LARC = {"name": "0000000a.json", **TASK, "descriptions": {"d1": {"do_description": "swap", "confidence": 1}}}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"descriptions": 7}, "descriptions: expected an object or a list, got int"),
        ({"descriptions": {"d1": 7}}, "descriptions.d1: expected an object, got int"),
        ({"descriptions": [{"see_description": 3}]}, "descriptions.0.see_description: expected a string, got int"),
        ({"descriptions": [{"confidence": "high"}]}, "descriptions.0.confidence: expected a number, got str"),
        ({"name": 7}, "name: expected a file name, got 7"),
        ({"train": None}, "missing key 'train'"),
    ],
)
def test_larc_type_errors_are_task_format_errors(tmp_path, change, message):
    folder = larc_folder(tmp_path, {**LARC, **change})
    with pytest.raises(TaskFormatError) as error:
        load_tasks(folder)
    assert str(error.value) == f"{tmp_path / 'tasks_json' / '1.json'}: {message}"


# ---------------------------------------------------------------------- fuzzing


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.floats() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["train", "test", "input", "output", "see_description", "x"]), inner, max_size=3),
    max_leaves=20,
)


def larc_variants(value):
    """LARC tasks with one part replaced by random JSON."""
    return st.one_of(
        st.builds(lambda v: {**LARC, "descriptions": v}, value),
        st.builds(lambda v: {**LARC, "descriptions": {"d1": v}}, value),
        st.builds(lambda v: {**LARC, "descriptions": [{"do_description": "x", "confidence": v}]}, value),
        st.builds(lambda v: {**LARC, "name": v}, value),
        st.builds(lambda v: {**LARC, "train": v}, value),
        value,
    )


def kaggle_variants(value):
    """A Kaggle challenges file and its solutions file, one part of either replaced by random JSON."""
    answers = {"0000000a": [[[4, 3]]]}
    return st.one_of(
        st.builds(lambda v: ({"0000000a": v}, answers), value),
        st.builds(lambda v: ({"0000000a": {**CHALLENGE, "test": v}}, answers), value),
        st.builds(lambda v: ({"0000000a": CHALLENGE}, v), value),
        st.builds(lambda v: ({"0000000a": CHALLENGE}, {"0000000a": v}), value),
        st.builds(lambda v: ({"0000000a": CHALLENGE}, {"0000000a": [v]}), value),
    )


FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def only_our_errors(load) -> None:
    try:
        tasks = load()
    except ArcsolveError as exc:
        assert "\n" not in str(exc)
    else:
        assert all(isinstance(t, Task) for t in tasks)


@FUZZ
@given(data=larc_variants(json_values))
def test_fuzzed_larc_tasks_load_or_raise_our_error(tmp_path, data):
    folder = larc_folder(tmp_path, data)
    only_our_errors(lambda: load_tasks(folder))
    only_our_errors(lambda: load_tasks(folder, problems=[]))


@FUZZ
@given(files=kaggle_variants(json_values))
def test_fuzzed_kaggle_files_load_or_raise_our_error(tmp_path, files):
    challenges, solutions = files
    path = tmp_path / "f_challenges.json"
    path.write_text(json.dumps(challenges))
    (tmp_path / "f_solutions.json").write_text(json.dumps(solutions))
    only_our_errors(lambda: load_tasks(path))
    only_our_errors(lambda: load_tasks(path, problems=[]))
