"""The evaluation commands end to end (`solve`, `eval`, `export`, `score`, `bench solve`) with
the fake solvers on tiny tasks: formats, reports that accumulate, attempts, messages, output
paths and locks."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from arcsolve import solution
from arcsolve.cli import app
from arcsolve.evaluation.results import lock_path, results_path
from arcsolve.files import exclusive
from tests.fake_solvers import called, four_tasks, use_fakes


@pytest.fixture(autouse=True)
def calls(monkeypatch, tmp_path):
    path = use_fakes(monkeypatch, tmp_path)
    return lambda: called(path)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})


def task_json(task) -> dict:
    return {
        "train": [{"input": p.input.to_list(), "output": p.output.to_list()} for p in task.train],
        "test": [{"input": p.input.to_list(), "output": p.output.to_list()} for p in task.test],
    }


@pytest.fixture
def folder(tmp_path):
    """The four fake tasks as task files: rot90 solves the a-tasks, identity the b-tasks."""
    path = tmp_path / "tasks"
    path.mkdir()
    for task in four_tasks():
        (path / f"{task.id}.json").write_bytes(orjson.dumps(task_json(task)))
    return path


@pytest.fixture
def kaggle(tmp_path):
    """The four tasks as a Kaggle challenges file and a plain solutions file."""
    challenges, solutions = tmp_path / "kaggle_challenges.json", tmp_path / "truth.json"
    data = {t.id: task_json(t) for t in four_tasks()}
    for entry in data.values():
        for pair in entry["test"]:
            del pair["output"]
    challenges.write_bytes(orjson.dumps(data))
    solutions.write_bytes(orjson.dumps({t.id: [p.output.to_list() for p in t.test] for t in four_tasks()}))
    return challenges, solutions


def ok(result) -> str:
    assert result.exit_code == 0, result.output
    return result.output


def refused(result) -> str:
    """One line on exit 2, no traceback; the line."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


# ---------------------------------------------------------------- score and formats


def test_score_with_a_plain_solutions_file(runner, tmp_path, kaggle):
    challenges, truth = kaggle
    sub = tmp_path / "sub.json"
    ok(runner.invoke(app, ["export", "--challenges", str(challenges), "-m", "test-rot90", "-o", str(sub)]))
    out = ok(runner.invoke(app, ["score", str(sub), "--solutions", str(truth)]))
    assert "score 0.6000 (3/5 test outputs, 2 tasks solved)" in out
    partial = orjson.loads(truth.read_bytes())
    del partial["000000b2"]
    (tmp_path / "short.json").write_bytes(orjson.dumps(partial))
    line = refused(runner.invoke(app, ["score", str(sub), "--solutions", str(tmp_path / "short.json")]))
    assert line == f"error: {tmp_path / 'short.json'}: has no outputs for task 000000b2 of {sub}"
    partial = orjson.loads(truth.read_bytes())
    partial["000000a2"] = partial["000000a2"][:1]
    (tmp_path / "fewer.json").write_bytes(orjson.dumps(partial))
    line = refused(runner.invoke(app, ["score", str(sub), "--solutions", str(tmp_path / "fewer.json")]))
    assert line.endswith(f"task 000000a2 has 2 test entries, {tmp_path / 'fewer.json'} has 1 outputs for it")
    # a challenges file still works, its solutions read from beside it
    (tmp_path / "kaggle_solutions.json").write_bytes(truth.read_bytes())
    assert "score 0.6000" in ok(runner.invoke(app, ["score", str(sub), "--solutions", str(challenges)]))


def test_score_reads_the_2020_csv_and_the_format_comes_from_the_extension(runner, tmp_path, folder):
    csv_out, json_out = tmp_path / "sub.csv", tmp_path / "sub.json"
    ok(runner.invoke(app, ["export", "--dataset", str(folder), "-m", "test-rot90", "-o", str(csv_out)]))
    assert csv_out.read_text().startswith("output_id,output\n000000a1_0,|")
    ok(runner.invoke(app, ["export", "--dataset", str(folder), "-m", "test-rot90", "-o", str(json_out)]))
    assert set(orjson.loads(json_out.read_bytes())) == {t.id for t in four_tasks()}
    for sub in (csv_out, json_out):
        assert "score 0.6000 (3/5 test outputs, 2 tasks solved)" in ok(
            runner.invoke(app, ["score", str(sub), "--dataset", str(folder)])
        )
    bad = tmp_path / "bad.csv"
    bad.write_text("output_id,output\n000000a1_0,|12|3x|\n")
    line = refused(runner.invoke(app, ["score", str(bad), "--dataset", str(folder)]))
    assert line.startswith(f"error: {bad}: line 2: expected rows of digits")


@pytest.mark.parametrize(
    ("name", "csv"), [("2025", False), ("json", False), ("2024", False), ("CSV", True), ("2020", True)]
)
def test_format_accepts_the_names_users_type(runner, tmp_path, folder, name, csv):
    out = tmp_path / "submission.out"
    ok(
        runner.invoke(
            app, ["export", "--dataset", str(folder), "-m", "test-identity", "-o", str(out), "--format", name]
        )
    )
    assert out.read_text().startswith("output_id,output") == csv


def test_an_unknown_format_or_extension_is_refused(runner, tmp_path, folder, calls):
    line = refused(
        runner.invoke(app, ["export", "--dataset", str(folder), "--format", "2019", "-o", str(tmp_path / "s.json")])
    )
    assert "--format: '2019' is not a submission format" in line
    line = refused(
        runner.invoke(app, ["export", "--dataset", str(folder), "-m", "test-identity", "-o", str(tmp_path / "s.txt")])
    )
    assert "cannot tell the format from the extension" in line
    assert calls() == [] and not (tmp_path / "s.txt").exists()


def test_score_with_a_dataset(runner, tmp_path, folder):
    sub = tmp_path / "sub.json"
    ok(runner.invoke(app, ["export", "--dataset", str(folder), "-m", "test-identity", "-o", str(sub)]))
    out = ok(runner.invoke(app, ["score", str(sub), "--dataset", str(folder)]))
    assert "score 0.4000 (2/5 test outputs, 2 tasks solved)" in out and "000000b1" in out


# ---------------------------------------------------------------- reports


def test_reports_accumulate_over_runs_into_one_folder(runner, tmp_path, folder):
    report = tmp_path / "r"
    ok(runner.invoke(app, ["eval", str(folder), "-m", "test-rot90", "--report", str(report)]))
    ok(runner.invoke(app, ["eval", str(folder), "-m", "test-identity", "--report", str(report)]))
    data = orjson.loads((report / "report.json").read_bytes())
    assert [(d["model"], d["solved"], d["tasks"]) for d in data] == [("test-identity", 2, 4), ("test-rot90", 2, 4)]
    markdown = (report / "report.md").read_text()
    assert "## test-rot90" in markdown and "## test-identity" in markdown
    assert "| test-rot90 | 2 | 0.500 | 3/5 |" in markdown and "| test-identity | 2 | 0.500 | 2/5 |" in markdown


def test_the_fingerprint_covers_only_what_changes_a_model_s_answers(runner, tmp_path, folder, monkeypatch, calls):
    reads = solution.SOLVERS["dsl"].reads
    monkeypatch.setitem(solution.SOLVERS, "dsl", solution.Model("tests.fake_solvers:dsl_like", None, reads))
    report = tmp_path / "r"
    ok(runner.invoke(app, ["eval", str(folder), "-m", "dsl", "--report", str(report)]))
    out = ok(
        runner.invoke(
            app,
            [
                "eval",
                str(folder),
                "-m",
                "dsl",
                "--report",
                str(report),
                "--device",
                "cpu",
                "--fit-seconds",
                "3",
                "--steps",
                "7",
                "--seed",
                "5",
            ],
        )
    )
    assert "dsl: reused 4 results from" in out and len(calls()) == 4
    line = refused(
        runner.invoke(app, ["eval", str(folder), "-m", "dsl", "--report", str(report), "--time-budget", "9"])
    )
    assert "config.time_budget 5.0 -> 9.0" in line and "--fresh" in line
    header = orjson.loads(results_path(report, "dsl").read_bytes().splitlines()[0])["header"]
    assert header["config"] == {"time_budget": 5.0}


# ---------------------------------------------------------------- attempts and messages


def test_attempts_are_distinct_and_explain_says_when_there_was_one(runner, tmp_path, folder):
    out_file = tmp_path / "sub.json"
    task = folder / "000000a1.json"
    out = ok(runner.invoke(app, ["solve", str(task), "-m", "test-one_twice", "--explain", "-o", str(out_file)]))
    assert "000000a1 test 0: attempt 1: rot90; only one candidate, so attempt 2 is the test input" in out
    entry = orjson.loads(out_file.read_bytes())["000000a1"][0]
    test_input = orjson.loads(task.read_bytes())["test"][0]["input"]
    assert entry["attempt_1"] != entry["attempt_2"] and entry["attempt_2"] == test_input


def test_solve_on_a_folder_prints_a_total(runner, folder):
    out = ok(runner.invoke(app, ["solve", str(folder), "-m", "test-rot90"]))
    assert "total: solved 2/4 tasks with known outputs, 4 tasks in" in out
    single = ok(runner.invoke(app, ["solve", str(folder / "000000a1.json"), "-m", "test-rot90"]))
    assert "total:" not in single


def test_ctrl_c_says_how_to_resume_and_the_rerun_says_what_it_reused(runner, tmp_path, folder, calls):
    report = tmp_path / "r"
    result = runner.invoke(app, ["eval", str(folder), "-m", "test-interrupted", "--report", str(report)])
    assert result.exit_code == 130
    assert "interrupted; rerun the same command to resume (2 tasks kept)" in result.output
    out = ok(runner.invoke(app, ["eval", str(folder), "-m", "test-interrupted", "--report", str(report)]))
    assert "test-interrupted: reused 2 results from" in out and len(calls()) == 5
    (tmp_path / "calls.txt").write_text("")  # the fake interrupts on its third call
    result = runner.invoke(
        app, ["export", "--dataset", str(folder), "-m", "test-interrupted", "-o", str(tmp_path / "s.json")]
    )
    assert result.exit_code == 130 and "rerun the same command to resume (2 tasks kept)" in result.output
    out = ok(
        runner.invoke(
            app, ["export", "--dataset", str(folder), "-m", "test-interrupted", "-o", str(tmp_path / "s.json")]
        )
    )
    assert f"reused 2 results from {tmp_path / 's.json.partial.jsonl'}" in out and "4 tasks (2 resumed" in out


def test_one_task_is_one_task(runner, tmp_path, folder):
    one = folder / "000000a1.json"
    out = ok(runner.invoke(app, ["export", "--dataset", str(one), "-m", "test-rot90", "-o", str(tmp_path / "s.json")]))
    assert "1 task (0 resumed" in out and "1 tasks" not in out
    ok(runner.invoke(app, ["eval", str(one), "-m", "test-rot90", "--report", str(tmp_path / "r")]))
    assert ": 1 task\n" in (tmp_path / "r" / "report.md").read_text()


def test_an_export_of_another_configuration_names_the_file_and_fresh(runner, tmp_path, folder):
    out = tmp_path / "s.json"
    ok(runner.invoke(app, ["export", "--dataset", str(folder), "-m", "test-identity", "-o", str(out)]))
    line = refused(
        runner.invoke(app, ["export", "--dataset", str(folder), "-m", "test-identity", "-o", str(out), "--seed", "2"])
    )
    assert f"{out}.partial.jsonl holds results of another configuration (config.seed 0 -> 2)" in line
    assert "--fresh" in line and "report directory" not in line


def test_bench_out_has_help_and_bench_solve_runs(runner, tmp_path, folder):
    for command in ("solve", "speed"):
        assert "JSON file to write the figures to" in ok(runner.invoke(app, ["bench", command, "--help"]))
    out = tmp_path / "bench.json"
    text = ok(
        runner.invoke(app, ["bench", "solve", str(folder), "-m", "test-rot90", "--device", "cpu", "-o", str(out)])
    )
    assert "solved 2/4" in text
    data = orjson.loads(out.read_bytes())
    assert (data["model"], data["tasks"], data["solved"]) == ("test-rot90", 4, 2)
    assert {k: v["solved"] for k, v in data["per_task"].items()} == {
        "000000a1": True,
        "000000a2": True,
        "000000b1": False,
        "000000b2": False,
    }


# ---------------------------------------------------------------- output paths, locks, bad files


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["eval", "{folder}", "-m", "test-identity", "--report", "/proc/arcsolve-r"],
            "--report /proc/arcsolve-r: cannot make the folder",
        ),
        (["eval", "{folder}", "-m", "test-identity", "--report", "{folder}/000000a1.json"], "is a file, not a folder"),
        (["export", "--dataset", "{folder}", "-m", "test-identity", "-o", "{tmp}"], "is a folder, not a regular file"),
        (
            ["export", "--dataset", "{folder}", "-m", "test-identity", "-o", "/proc/s.json"],
            "--out /proc/s.json: cannot write there",
        ),
        (["solve", "{folder}", "-m", "test-identity", "-o", "/proc/s.json"], "--out /proc/s.json: cannot write there"),
        (["solve", "{folder}", "-m", "test-identity", "-o", "/dev/null"], "--out /dev/null: is a character device"),
        (
            ["bench", "solve", "{folder}", "-m", "test-identity", "-o", "/sys/b.json"],
            "--out /sys/b.json: cannot write there",
        ),
    ],
)
def test_output_paths_are_checked_before_the_work(runner, tmp_path, folder, calls, args, message):
    argv = [a.format(folder=folder, tmp=tmp_path) for a in args]
    line = refused(runner.invoke(app, argv))
    assert message in line
    assert calls() == []
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith((".tmp", ".probe", ".partial.jsonl"))]


def test_a_second_run_on_a_report_folder_is_refused(runner, tmp_path, folder, calls):
    report = tmp_path / "r"
    report.mkdir()
    with exclusive(lock_path(report), "another run"):
        line = refused(runner.invoke(app, ["eval", str(folder), "-m", "test-identity", "--report", str(report)]))
    assert (
        line == f"error: --report {report} is in use by another arcsolve run; wait for it to finish or choose another"
    )
    assert calls() == []
    ok(runner.invoke(app, ["eval", str(folder), "-m", "test-identity", "--report", str(report)]))


def test_a_solutions_file_missing_a_task_is_named(runner, tmp_path, kaggle):
    challenges, truth = kaggle
    partial = orjson.loads(truth.read_bytes())
    del partial["000000b1"]
    short = tmp_path / "short_truth.json"
    short.write_bytes(orjson.dumps(partial))
    line = refused(runner.invoke(app, ["eval", str(challenges), "--solutions", str(short), "-m", "test-identity"]))
    assert line == f"error: {short}: 000000b1: no solutions for this task of the challenges file"


def test_a_results_file_with_a_cut_off_first_line_points_at_fresh(runner, tmp_path, folder):
    report = tmp_path / "r"
    ok(runner.invoke(app, ["eval", str(folder), "-m", "test-identity", "--report", str(report)]))
    path = results_path(report, "test-identity")
    path.write_bytes(path.read_bytes()[:30])
    line = refused(runner.invoke(app, ["eval", str(folder), "-m", "test-identity", "--report", str(report)]))
    assert "the first line is not an arcsolve results header" in line and "--fresh" in line
    ok(runner.invoke(app, ["eval", str(folder), "-m", "test-identity", "--report", str(report), "--fresh"]))


def test_a_full_disk_while_writing_the_report_keeps_the_old_one_whole(runner, tmp_path, folder, monkeypatch):
    import errno

    from arcsolve import files

    report = tmp_path / "r"
    ok(runner.invoke(app, ["eval", str(folder), "-m", "test-rot90", "--report", str(report)]))
    before = (report / "report.json").read_bytes()

    def full_disk(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "replace", full_disk)
    result = runner.invoke(app, ["eval", str(folder), "-m", "test-identity", "--report", str(report)])
    assert result.exit_code == 2 and "Traceback" not in result.output  # after the progress bar, one line:
    assert result.output.strip().splitlines()[-1].endswith(": cannot write (No space left on device)")
    assert (report / "report.json").read_bytes() == before and orjson.loads(before)["model"] == "test-rot90"
    assert not [p.name for p in report.iterdir() if p.name.endswith((".tmp", ".probe"))]
    monkeypatch.undo()
    use_fakes(monkeypatch, tmp_path)
    ok(runner.invoke(app, ["eval", str(folder), "-m", "test-identity", "--report", str(report)]))  # resumes
    assert [d["model"] for d in orjson.loads((report / "report.json").read_bytes())] == ["test-identity", "test-rot90"]


def test_a_second_export_to_one_file_is_refused(runner, tmp_path, folder, calls):
    out = tmp_path / "sub.json"
    with exclusive(out.with_name(out.name + ".partial.jsonl"), "another run"):
        line = refused(runner.invoke(app, ["export", "--dataset", str(folder), "-m", "test-identity", "-o", str(out)]))
    assert line == f"error: --out {out} is in use by another arcsolve run; wait for it to finish or choose another"
    assert calls() == []


def test_an_unreadable_results_file_of_another_model_is_left_out_of_the_report(runner, tmp_path, folder):
    report = tmp_path / "r"
    report.mkdir()
    (report / "results-other.jsonl").write_bytes(b'{"header": {"fingerpr')
    ok(runner.invoke(app, ["eval", str(folder), "-m", "test-rot90", "--report", str(report)]))
    assert orjson.loads((report / "report.json").read_bytes())["model"] == "test-rot90"


def test_ctrl_c_in_solve_says_what_was_written(runner, tmp_path, folder):
    out = tmp_path / "sub.json"
    result = runner.invoke(app, ["solve", str(folder), "-m", "test-interrupted", "-o", str(out)])
    assert result.exit_code == 130
    assert f"interrupted after 2 tasks (2 tasks written to {out})" in result.output
    assert list(orjson.loads(out.read_bytes())) == ["000000a1", "000000a2"]
