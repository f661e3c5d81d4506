"""The command line through typer's CliRunner: exit codes and one-line errors."""

import pytest
import torch
from typer.testing import CliRunner

from arcsolve import __version__
from arcsolve.cli import app


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})


def test_version(runner):
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"arcsolve {__version__}"


def test_help_texts_keep_their_square_brackets(runner):
    result = runner.invoke(app, ["eval", "--help"])
    assert result.exit_code == 0
    assert "Needs arcsolve[ray]." in " ".join(result.output.split())  # not eaten as rich markup


def test_show_example_and_dataset(runner, examples):
    result = runner.invoke(app, ["show", str(examples / "rotate.json")])
    assert result.exit_code == 0, result.output
    assert "<Task rotate | 4 train | 1 test>" in result.output
    assert "input 4x3" in result.output and "output 3x4" in result.output
    result = runner.invoke(app, ["show", "arc1/evaluation", "--limit", "1"])
    assert result.exit_code == 0, result.output
    assert "<Task 00576224 | 2 train | 1 test>" in result.output
    assert "399 more tasks" in result.output


def test_show_bad_file_is_one_line_exit_2(runner, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"train": [{"input": [[1]], "output": [[1, 2], [3]]}], "test": [{"input": [[1]]}]}')
    result = runner.invoke(app, ["show", str(bad)])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {bad}: train[0].output: row 1 has 1 cells, expected 2"
    assert "Traceback" not in result.output


def test_validate_reports_every_problem(runner, tmp_path, examples):
    (tmp_path / "a.json").write_text("[]")
    (tmp_path / "b.json").write_text("{")
    (tmp_path / "c.json").write_text((examples / "scale.json").read_text())
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    assert "a.json: expected a task object, got list" in result.output
    assert "b.json: not valid JSON" in result.output
    assert "2 problems, 1 valid task" in result.output
    ok = runner.invoke(app, ["validate", str(examples)])
    assert ok.exit_code == 0 and "4 valid tasks" in ok.output


def test_validate_reports_every_problem_of_one_file(runner, tmp_path):
    bad = tmp_path / "two.json"
    bad.write_text('{"train": [{"input": [[1, 2], [3]], "output": [[10]]}], "test": [{"input": []}]}')
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        f"✗ {bad}: train[0].input: row 1 has 1 cells, expected 2",
        f"✗ {bad}: train[0].output: row 0, column 0: colour 10 is outside 0..9",
        f"✗ {bad}: test[0].input: empty grid",
        "3 problems, 0 valid tasks",
    ]


def test_validate_of_nothing_is_not_a_pass(runner, tmp_path):
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip() == f"✗ {tmp_path}: folder holds no .json task files\n1 problem, 0 valid tasks"


def test_solve_dsl_explain_and_kaggle_out(runner, tmp_path):
    out = tmp_path / "sub.json"
    result = runner.invoke(app, ["solve", "3c9b0459", "--model", "dsl", "--explain", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "3c9b0459: correct (1/1 test outputs)" in result.output
    assert "attempt 1: rot180" in result.output
    import orjson

    sub = orjson.loads(out.read_bytes())
    assert list(sub) == ["3c9b0459"] and set(sub["3c9b0459"][0]) == {"attempt_1", "attempt_2"}
    assert sub["3c9b0459"][0]["attempt_1"] == [[7, 6, 4], [4, 6, 6], [4, 4, 6]]


def test_solve_latformer_on_an_example(runner, examples):
    result = runner.invoke(
        app,
        [
            "solve",
            str(examples / "reflect.json"),
            "--device",
            "cpu",
            "--priors",
            "reflect",
            "--steps",
            "120",
            "--explain",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "reflect: correct (1/1 test outputs)" in result.output
    assert "flip left-right" in result.output


def test_bad_options_are_one_line_errors(runner, examples):
    result = runner.invoke(app, ["solve", str(examples / "reflect.json"), "--priors", "rotat"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: --priors: 'rotat' is not one of translate, rotate, reflect, scale"
    result = runner.invoke(app, ["solve", str(examples / "reflect.json"), "--model", "nope"])
    assert result.exit_code == 2 and "unknown model 'nope'" in result.output


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a machine without CUDA")
def test_asking_for_cuda_without_one_fails_before_any_task(runner, examples, tmp_path):
    out = tmp_path / "speed.json"
    args = ["bench", "speed", str(examples / "rotate.json"), "--device", "cuda", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.output.strip() == "error: --device cuda was asked for, but torch sees no CUDA device"
    assert not out.exists()


def test_eval_subset_with_dsl_writes_a_resumable_report(runner, tmp_path):
    args = [
        "eval",
        "--subset",
        "rotate",
        "--model",
        "dsl",
        "--limit",
        "2",
        "--report",
        str(tmp_path),
        "--time-budget",
        "2",
    ]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    import orjson

    report = orjson.loads((tmp_path / "report.json").read_bytes())
    assert report["model"] == "dsl" and report["tasks"] == 2 and report["subset"] == "rotate"
    again = runner.invoke(app, args)
    assert again.exit_code == 0
    lines = (tmp_path / "results-dsl.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 2  # header + one line per task; the rerun solved nothing again


def test_export_and_score_roundtrip(runner, tmp_path, examples):
    challenges = tmp_path / "arc_challenges.json"
    import orjson

    tasks = {name: orjson.loads((examples / f"{name}.json").read_bytes()) for name in ("reflect", "scale")}
    challenges.write_bytes(
        orjson.dumps(
            {k: {"train": v["train"], "test": [{"input": p["input"]} for p in v["test"]]} for k, v in tasks.items()}
        )
    )
    (tmp_path / "arc_solutions.json").write_bytes(
        orjson.dumps({k: [p["output"] for p in v["test"]] for k, v in tasks.items()})
    )
    sub = tmp_path / "submission.json"
    result = runner.invoke(app, ["export", "--challenges", str(challenges), "--model", "dsl", "-o", str(sub)])
    assert result.exit_code == 0, result.output
    scored = runner.invoke(app, ["score", str(sub), "--solutions", str(challenges)])
    assert scored.exit_code == 0, scored.output
    assert "score 1.0000 (2/2 test outputs, 2 tasks solved)" in scored.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["bench", "speed", "--jobs", "1,x"], "--jobs: expected a comma list of whole numbers like 1,2, got '1,x'"),
        (["bench", "speed", "--batch", "0"], "--batch: every number must be at least 1, got '0'"),
        (["bench", "synthetic", "--examples", "1,,2"], "--examples: expected a comma list"),
    ],
)
def test_bad_number_lists_are_one_line_errors(runner, args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output


def test_batch_defaults_to_one_on_a_cpu_and_to_a_gpu_batch_on_a_gpu(monkeypatch):
    from arcsolve import devices
    from arcsolve.devices import GPU_BATCH, default_batch

    assert default_batch(3, "cuda") == 3 and default_batch(None, "cpu") == 1
    monkeypatch.setattr(devices, "visible_gpus", lambda: 0)
    assert default_batch(None, "auto") == 1
    monkeypatch.setattr(devices, "visible_gpus", lambda: 1)
    assert default_batch(None, "auto") == GPU_BATCH == default_batch(None, "cuda")


def test_solve_out_clears_a_killed_runs_temporaries_and_writes_one_run_at_a_time(runner, tmp_path):
    from arcsolve.evaluation.solving import solve_lock_path
    from arcsolve.files import exclusive

    out = tmp_path / "sub.json"
    (tmp_path / ".sub.json.ab12cd34.tmp").write_text("x")  # left by a run killed mid-write
    (tmp_path / ".other.json.ab12cd34.tmp").write_text("x")  # another file's: not ours to clear
    args = ["solve", "3c9b0459", "--model", "dsl", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert not (tmp_path / ".sub.json.ab12cd34.tmp").exists()
    assert (tmp_path / ".other.json.ab12cd34.tmp").exists() and out.exists()
    with exclusive(solve_lock_path(out), "another run"):
        result = runner.invoke(app, args)
    assert result.exit_code == 2
    message = result.output.strip()
    assert len(message.splitlines()) == 1 and f"--out {out} is in use by another arcsolve run" in message
