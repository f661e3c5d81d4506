"""What a new user meets first: option checks, help, plain and fitted output, user data printed
literally, `show`'s flags and images, and `annotate` round trips."""

import io

import orjson
import pytest
from rich.console import Console
from typer.testing import CliRunner

from arcsolve import cli
from arcsolve.cli import app

COMMANDS = ["show", "validate", "solve", "eval", "export", "score", "annotate", "bench solve", "bench speed"]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "tasks/rotate.json", "--steps", "0"], "Invalid value for '--steps'"),
        (["solve", "tasks/rotate.json", "--fit-seconds", "-1"], "Invalid value for '--fit-seconds': -1 is not a"),
        (["solve", "tasks/rotate.json", "--time-budget", "0"], "Invalid value for '--time-budget'"),
        (["solve", "tasks/rotate.json", "--fit-seconds", "nan"], "Invalid value for '--fit-seconds'"),
        (["solve", "tasks/rotate.json", "--beta", "1.5"], "Invalid value for '--beta'"),
        (["solve", "tasks/rotate.json", "--seed", "-1"], "Invalid value for '--seed'"),
        (["solve", "tasks/rotate.json", "--steps", "many"], "Invalid value for '--steps'"),
        (["show", "tasks/rotate.json", "--limit", "-1"], "Invalid value for '--limit'"),
        (["eval", "tasks", "--limit", "-1"], "Invalid value for '--limit'"),
        (["eval", "tasks", "--jobs", "0"], "Invalid value for '--jobs'"),
        (["export", "--dataset", "tasks", "--batch", "0"], "Invalid value for '--batch'"),
        (["export", "--dataset", "tasks", "--steps", "0"], "Invalid value for '--steps'"),
        (["bench", "synthetic", "--steps", "0"], "Invalid value for '--steps'"),
        (["bench", "solve", "tasks/rotate.json", "--steps", "-3"], "Invalid value for '--steps'"),
        (["solve"], "Missing argument 'tasks'"),
        (["sovle", "tasks"], "No such command 'sovle'"),
        (["solve", "tasks/rotate.json", "--stpes", "3"], "No such option: --stpes"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(runner, args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert result.output.startswith(f"error: {message}")
    assert "Traceback" not in result.output


def test_a_bound_the_option_types_miss_is_named_by_option():
    with pytest.raises(cli.ArcsolveError, match=r"^--steps: input should be greater than or equal to 1, got 0$"):
        cli.make_config("cpu", 0, 0, 5.0, None, 0.9)


def test_short_help_and_version(runner):
    assert runner.invoke(app, ["-V"]).output.strip() == runner.invoke(app, ["--version"]).output.strip()
    for command in COMMANDS:
        result = runner.invoke(app, [*command.split(), "-h"])
        assert result.exit_code == 0, (command, result.output)
        assert "Examples" in result.output and f"arcsolve {command}" in result.output, command


def test_flags_are_listed_as_flags(runner):
    for command in ("solve", "eval", "show", "bench synthetic"):
        result = runner.invoke(app, [*command.split(), "--help"])
        assert "--help" in result.output and "<bool>" not in result.output, command
    assert "<bool>" not in runner.invoke(app, ["--help"]).output


# ---------------------------------------------------------------------- show


def test_show_says_which_set_holds_a_task(runner):
    result = runner.invoke(app, ["show", "arc1/evaluation/3c9b0459"])
    assert result.exit_code == 2
    assert result.output.strip() == (
        "error: task '3c9b0459' is not in arc1/evaluation; it is in arc1/training and arc2/training"
    )


def test_show_hides_test_outputs_unless_revealed(runner, examples):
    hidden = runner.invoke(app, ["show", str(examples / "rotate.json")])
    revealed = runner.invoke(app, ["show", str(examples / "rotate.json"), "--reveal"])
    test_row = [line for line in hidden.output.splitlines() if "test 0" in line]
    assert test_row and "output" not in test_row[0]
    assert "output" in next(line for line in revealed.output.splitlines() if "test 0" in line)


def test_show_prints_digits_when_not_a_terminal(runner, examples):
    task = orjson.loads((examples / "rotate.json").read_bytes())
    result = runner.invoke(app, ["show", str(examples / "rotate.json")])
    for row in task["train"][0]["input"]:
        assert "".join(map(str, row)) in result.output


def test_plain_prints_digits_in_a_terminal(runner, examples, monkeypatch):
    monkeypatch.setattr(cli, "console", Console(force_terminal=True, color_system="truecolor", width=200))
    task = orjson.loads((examples / "rotate.json").read_bytes())
    first_row = "".join(map(str, task["train"][0]["input"][0]))
    coloured = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["show", str(examples / "rotate.json")])
    assert coloured.exit_code == 0 and "\x1b[" in coloured.output and first_row not in coloured.output
    plain = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["show", str(examples / "rotate.json"), "--plain"])
    assert first_row in plain.output and "\x1b[48;2" not in plain.output  # no cell backgrounds


def test_show_fits_a_30x30_task_in_a_narrow_terminal(examples, monkeypatch):
    console = Console(force_terminal=True, color_system="truecolor", width=50, file=io.StringIO())
    monkeypatch.setattr(cli, "console", console)
    result = CliRunner().invoke(app, ["show", "25094a63", "--reveal"])
    assert result.exit_code == 0
    drawn = console.file.getvalue()
    assert drawn.count("▀") == 6 * 15 * 30  # six 30x30 grids, two rows of cells per line: nothing cut
    assert "30x30" in drawn


def test_a_long_path_is_printed_whole_in_a_narrow_terminal(examples, tmp_path, monkeypatch):
    console = Console(width=40, file=io.StringIO())
    monkeypatch.setattr(cli, "console", console)
    png = tmp_path.joinpath(*["a_folder_with_a_long_name"] * 4) / "rotate.png"
    png.parent.mkdir(parents=True)
    result = CliRunner().invoke(app, ["show", str(examples / "rotate.json"), "--png", str(png)])
    assert result.exit_code == 0 and f"wrote {png}\n" in console.file.getvalue()


def test_show_writes_png_and_svg(runner, examples, tmp_path):
    png, svg = tmp_path / "rotate.png", tmp_path / "two.svg"
    result = runner.invoke(app, ["show", str(examples / "rotate.json"), "--png", str(png)])
    assert result.exit_code == 0 and f"wrote {png}" in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    result = runner.invoke(app, ["show", str(examples), "--limit", "2", "--svg", str(svg)])
    assert result.exit_code == 0
    text = svg.read_text()
    assert "<svg" in text and "url(http" not in text


def test_more_tasks_are_counted_in_words(runner, examples):
    result = runner.invoke(app, ["show", str(examples), "--limit", "3"])
    assert "… 1 more task (use --limit)" in result.output


# ---------------------------------------------------------------------- user data printed literally


def test_a_task_id_with_markup_is_shown_literally(runner, tmp_path):
    task = {"train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[3]]}]}
    path = tmp_path / "kaggle.json"
    path.write_bytes(orjson.dumps({"[/x]": task, "[bold]y": task}))
    result = runner.invoke(app, ["show", str(path)])
    assert result.exit_code == 0, result.output
    assert "<Task [/x] | 1 train | 1 test>" in result.output
    assert "<Task [bold]y | 1 train | 1 test>" in result.output


def test_a_path_with_markup_is_printed_literally(runner, tmp_path):
    good = tmp_path / "86_[red]bracket_name.json"
    good.write_text('{"train": [{"input": [[1]], "output": [[2]]}], "test": [{"input": [[3]]}]}')
    assert "<Task 86_[red]bracket_name | 1 train | 1 test>" in runner.invoke(app, ["show", str(good)]).output
    (tmp_path / "a[").mkdir()
    bad = tmp_path / "a[" / "b].json"  # its path holds the closing tag [/b]
    bad.write_text("[")
    for command in ("show", "validate"):
        result = runner.invoke(app, [command, str(bad)])
        assert result.exit_code == 2
        assert f"{bad}: not valid JSON" in result.output


# ---------------------------------------------------------------------- annotate


def test_annotate_round_trips_any_task_id(runner, tmp_path, examples):
    out = tmp_path / "ann.json"
    first = runner.invoke(app, ["annotate", str(examples / "rotate.json"), "-o", str(out)], input="rotate\n")
    assert first.exit_code == 0, first.output
    saved = orjson.loads(out.read_bytes())
    assert saved == {"rotate": {"priors": ["rotate"], "source": "manual", "note": "set by hand"}}
    again = runner.invoke(app, ["annotate", str(examples / "rotate.json"), "-o", str(out)])
    assert again.exit_code == 0, again.output
    assert "proposed" not in again.output  # already annotated: nothing is asked
    solved = runner.invoke(
        app, ["solve", str(examples / "rotate.json"), "--annotations", str(out), "--model", "dsl", "--time-budget", "2"]
    )
    assert solved.exit_code == 0, solved.output
    assert "rotate: correct" in solved.output


def test_annotate_asks_and_stops_at_end_of_input(runner, tmp_path, examples):
    out = tmp_path / "ann.json"
    result = runner.invoke(app, ["annotate", str(examples), "-o", str(out)], input="\ns\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("proposed:") == 3  # confirmed one, skipped one, then input ran out
    saved = orjson.loads(out.read_bytes())
    assert list(saved) == ["reflect"] and saved["reflect"]["source"].startswith(("rule:", "manual"))


def test_solve_draws_digits_with_plain(examples, monkeypatch):
    monkeypatch.setattr(cli, "console", Console(force_terminal=True, color_system="truecolor", width=200))
    args = ["solve", str(examples / "rotate.json"), "--model", "dsl", "--time-budget", "2", "--plain"]
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, args)
    assert result.exit_code == 0, result.output
    task = orjson.loads((examples / "rotate.json").read_bytes())
    assert "".join(map(str, task["test"][0]["input"][0])) in result.output
    assert "\x1b[48;2" not in result.output  # no coloured cells
