"""Kaggle export (2024 JSON, 2020 CSV, shared time budget, resume) and submission scoring."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from arcsolve.errors import ArcsolveError, ConfigMismatchError, SubmissionMismatchError, TaskFormatError
from arcsolve.evaluation.evaluate import EvalOptions, evaluate
from arcsolve.evaluation.export import ExportOptions, export_submission, partial_path
from arcsolve.evaluation.submission import score_submission
from arcsolve.solution import Candidate, Solution, SolveConfig
from arcsolve.tasks import Grid, Task
from tests.fake_solvers import called, four_tasks, make_task, use_fakes


@pytest.fixture(autouse=True)
def fake_solvers(monkeypatch, tmp_path):
    calls = use_fakes(monkeypatch, tmp_path)
    return lambda: called(calls)


@pytest.fixture
def tasks() -> list[Task]:
    return four_tasks()


def turned(grid: Grid, k: int = 1) -> list[list[int]]:
    return np.rot90(grid.to_numpy(), k).tolist()


# ---------------------------------------------------------------- writing


def test_2024_json_has_every_task_both_attempts_in_order(tmp_path, tasks):
    out = tmp_path / "submission.json"
    summary = export_submission(tasks, "test-rot90", SolveConfig(), out)
    data = orjson.loads(out.read_bytes())
    assert list(data) == [t.id for t in tasks]
    for task in tasks:
        assert len(data[task.id]) == len(task.test)
        for entry, pair in zip(data[task.id], task.test, strict=True):
            assert entry == {"attempt_1": turned(pair.input), "attempt_2": turned(pair.input, -1)}
    assert (summary.tasks, summary.resumed, summary.solved_now, summary.errors) == (4, 0, 2, [])


def test_a_run_removes_the_temporaries_a_killed_run_left_and_keeps_others(tmp_path, tasks):
    out = tmp_path / "submission.json"
    stale, other = tmp_path / ".submission.json.k1ll3d_9.tmp", tmp_path / ".other.json.k1ll3d_9.tmp"
    stale.write_text("{")
    other.write_text("{")
    export_submission(tasks, "test-rot90", SolveConfig(), out)
    assert not stale.exists() and other.exists()
    report = tmp_path / "report"
    report.mkdir()
    (report / ".report.json.k1ll3d_9.tmp").write_text("{")
    evaluate(tasks, "test-rot90", SolveConfig(), EvalOptions(report_dir=report, pictures=False))
    assert not [p.name for p in report.iterdir() if p.name.endswith(".tmp")]


def test_fallback_when_a_solver_has_nothing_or_raises(tmp_path, tasks):
    out = tmp_path / "submission.json"
    export_submission(tasks, "test-nothing", SolveConfig(), out)
    data = orjson.loads(out.read_bytes())
    a2 = tasks[1]
    assert data["000000a2"] == [
        {"attempt_1": p.input.to_list(), "attempt_2": p.input.to_list()} for p in a2.test
    ]
    summary = export_submission(tasks, "test-raises", SolveConfig(), tmp_path / "raises.json")
    assert summary.errors == ["000000b1", "000000b2"]
    data = orjson.loads((tmp_path / "raises.json").read_bytes())
    assert data["000000b1"] == [{"attempt_1": tasks[2].test[0].input.to_list(),
                                 "attempt_2": tasks[2].test[0].input.to_list()}]


def test_2020_csv_format(tmp_path, monkeypatch):
    task = Task.model_validate({
        "id": "0000abcd",
        "train": [{"input": [[1]], "output": [[1]]}],
        "test": [{"input": [[1, 2, 3], [4, 5, 6]]}, {"input": [[7]]}],
    })
    out = tmp_path / "submission.csv"
    export_submission([task], "test-rot90", SolveConfig(), out, ExportOptions(fmt="2020"))
    # rot90 of [[1,2,3],[4,5,6]] is [[3,6],[2,5],[1,4]]; clockwise [[4,1],[5,2],[6,3]];
    # a 1x1 grid turns into itself, so its two attempts are one answer
    assert out.read_text() == (
        "output_id,output\n"
        "0000abcd_0,|36|25|14| |41|52|63|\n"
        "0000abcd_1,|7|\n"
    )
    with pytest.raises(ArcsolveError, match="unknown submission format '2019'"):
        export_submission([task], "test-rot90", SolveConfig(), out, ExportOptions(fmt="2019"))


def test_total_time_budget_is_shared_over_the_tasks_left(tmp_path, tasks, monkeypatch):
    clock = {"now": 1000.0}
    budgets = []

    def greedy(task, config):
        """Spends its budget, twice over on the first task."""
        budgets.append(config.time_budget)
        clock["now"] += config.time_budget * (2 if len(budgets) == 1 else 1)
        return Solution(task.id)

    monkeypatch.setattr("arcsolve.evaluation.export.monotonic", lambda: clock["now"])
    monkeypatch.setattr("arcsolve.evaluation.export.get_solver", lambda name: greedy)
    out = tmp_path / "submission.json"
    summary = export_submission(tasks, "greedy", SolveConfig(), out, ExportOptions(total_seconds=100))
    # 100 s, a tenth kept back: 90 over 4 tasks; the first spends 45, leaving 45 over 3
    assert budgets == pytest.approx([22.5, 15, 15, 15])
    records = [orjson.loads(line) for line in partial_path(out).read_bytes().splitlines()[1:]]
    assert [r["time_budget"] for r in records] == pytest.approx(budgets)
    assert summary.unreached == []


def test_tasks_beyond_the_budget_get_the_fallback_then_resume(tmp_path, tasks, monkeypatch):
    clock = {"now": 0.0}
    solved = []

    def slow(task, config):
        solved.append(task.id)
        clock["now"] += 100  # the whole budget on one task
        grids = tuple(Grid.from_numpy(np.rot90(p.input.to_numpy())) for p in task.test)
        return Solution(task.id, [Candidate(grids, "rot90", False)])

    monkeypatch.setattr("arcsolve.evaluation.export.monotonic", lambda: clock["now"])
    monkeypatch.setattr("arcsolve.evaluation.export.get_solver", lambda name: slow)
    out = tmp_path / "submission.json"
    summary = export_submission(tasks, "slow", SolveConfig(), out, ExportOptions(total_seconds=100))
    assert solved == ["000000a1"]
    assert summary.unreached == ["000000a2", "000000b1", "000000b2"]
    data = orjson.loads(out.read_bytes())
    assert data["000000a1"][0]["attempt_1"] == turned(tasks[0].test[0].input)
    assert data["000000b1"][0]["attempt_1"] == tasks[2].test[0].input.to_list()
    summary = export_submission(tasks, "slow", SolveConfig(), out, ExportOptions(total_seconds=1000))
    assert solved == [t.id for t in tasks]
    assert (summary.resumed, summary.unreached) == (1, [])


def test_a_killed_export_leaves_a_valid_file_and_resumes(tmp_path, tasks, fake_solvers):
    out = tmp_path / "submission.json"
    with pytest.raises(KeyboardInterrupt):
        export_submission(tasks, "test-interrupted", SolveConfig(), out)
    data = orjson.loads(out.read_bytes())
    assert list(data) == [t.id for t in tasks]
    assert all(set(e) == {"attempt_1", "attempt_2"} for v in data.values() for e in v)
    records = partial_path(out).read_bytes().splitlines()
    assert [orjson.loads(r)["id"] for r in records[1:]] == ["000000a1", "000000a2"]
    summary = export_submission(tasks, "test-interrupted", SolveConfig(), out)
    assert fake_solvers() == ["000000a1", "000000a2", "000000b1", "000000b1", "000000b2"]
    assert (summary.resumed, summary.solved_now) == (2, 2)
    assert not out.with_name(out.name + ".tmp").exists()
    with pytest.raises(ConfigMismatchError, match="config.seed 0 -> 1"):
        export_submission(tasks, "test-interrupted", SolveConfig(seed=1), out)
    export_submission(tasks, "test-interrupted", SolveConfig(seed=1), out, ExportOptions(fresh=True))
    assert len(fake_solvers()) == 9


# ---------------------------------------------------------------- scoring


def write(path, data) -> None:
    path.write_bytes(orjson.dumps(data))


def test_score_uses_the_one_scorer(tmp_path, tasks):
    out = tmp_path / "submission.json"
    export_submission(tasks, "test-rot90", SolveConfig(), out)
    report = score_submission(out, tasks)
    assert (report.correct, report.test_outputs, report.tasks_solved) == (3, 5, 2)
    assert report.score == pytest.approx(3 / 5)
    assert report.to_json_dict()["per_task"] == {
        "000000a1": [True], "000000a2": [True, True], "000000b1": [False], "000000b2": [False]}
    evaluated = evaluate(tasks, "test-rot90", SolveConfig())
    assert report.correct == evaluated.test_outputs_correct


def test_score_counts_the_second_attempt_and_each_test_output(tmp_path):
    task = make_task("000000a2", rotated=True, n_tests=2)
    right = [turned(p.input) for p in task.test]
    wrong = [[[0]], [[0]]]
    write(tmp_path / "s.json", {"000000a2": [
        {"attempt_1": wrong[0], "attempt_2": right[0]},
        {"attempt_1": wrong[1], "attempt_2": wrong[1]},
    ]})
    report = score_submission(tmp_path / "s.json", [task])
    assert report.per_task["000000a2"].correct == (True, False)
    assert (report.score, report.tasks_solved) == (0.5, 0)


def test_score_refuses_mismatched_ids_and_counts(tmp_path, tasks):
    out = tmp_path / "submission.json"
    export_submission(tasks, "test-rot90", SolveConfig(), out)
    data = orjson.loads(out.read_bytes())
    bad = tmp_path / "bad.json"
    write(bad, {k: v for k, v in data.items() if k != "000000a2"})
    with pytest.raises(SubmissionMismatchError,
                       match="task 000000a2 is missing .the submission has 3 tasks, 4 expected"):
        score_submission(bad, tasks)
    write(bad, {**data, "0000ffff": data["000000a1"]})
    with pytest.raises(SubmissionMismatchError, match="task 0000ffff is not among the 4 tasks"):
        score_submission(bad, tasks)
    write(bad, {**data, "000000a2": data["000000a2"][:1]})
    with pytest.raises(SubmissionMismatchError,
                       match="task 000000a2 has 1 test entries, expected 2"):
        score_submission(bad, tasks)
    unknown = [make_task("000000a1", rotated=True, solutions=False)]
    with pytest.raises(ArcsolveError, match="task 000000a1 has no known test outputs"):
        score_submission(out, unknown)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ([{"attempt_1": [[1, 2, 3]], "attempt_2": [[1, 2, 3], [4, 5]]}],
         "sub.json: 000000a1[0].attempt_2: row 1 has 2 cells, expected 3"),
        ([{"attempt_1": [[1, 2, 3]]}], "sub.json: 000000a1[0]: missing key 'attempt_2'"),
        ([[[1]]],
         "sub.json: 000000a1[0]: expected an object with attempt_1 and attempt_2, got list"),
        ({"attempt_1": [[1]]}, "sub.json: 000000a1: expected a list of attempt objects, got dict"),
        ([{"attempt_1": [[12]], "attempt_2": [[1]]}],
         "sub.json: 000000a1[0].attempt_1: row 0, column 0: colour 12 is outside 0..9"),
    ],
)
def test_malformed_submission_names_the_place(tmp_path, monkeypatch, entry, message):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "sub.json", {"000000a1": entry})
    with pytest.raises(TaskFormatError) as error:
        score_submission("sub.json", [make_task("000000a1", rotated=True)])
    assert str(error.value) == message


def test_submission_that_is_not_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub.json").write_text("{oops")
    with pytest.raises(TaskFormatError, match=r"^sub.json: not valid JSON"):
        score_submission("sub.json", [make_task("000000a1", rotated=True)])
    (tmp_path / "sub.json").write_text("[]")
    with pytest.raises(TaskFormatError, match=r"^sub.json: expected an object of \{task_id"):
        score_submission("sub.json", [make_task("000000a1", rotated=True)])


@pytest.mark.parametrize("name", ["sub.json", "sub.csv"])
def test_a_submission_that_is_not_a_regular_file_is_refused_without_reading(tmp_path, name):
    import os

    from arcsolve.evaluation.submission import read_submission

    fifo = tmp_path / name
    os.mkfifo(fifo)  # reading it would block forever
    with pytest.raises(TaskFormatError, match="not a regular file"):
        read_submission(fifo)
