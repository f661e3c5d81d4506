"""The command line through typer's CliRunner: exit codes and one-line errors."""

import pytest
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
    assert "2 invalid, 1 valid tasks" in result.output
    ok = runner.invoke(app, ["validate", str(examples)])
    assert ok.exit_code == 0 and "4 valid tasks" in ok.output
