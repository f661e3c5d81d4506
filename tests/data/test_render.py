"""Drawing grids: colours, the placeholder, the pairs table, digits, fitting the width, images."""

import io
import re

import numpy as np
import pytest
from matplotlib.image import imread
from rich.console import Console

from arcsolve.errors import ArcsolveError
from arcsolve.render import HALF_BLOCK, PALETTE, grid_text, pairs_table, save_image, task_rows, task_table
from arcsolve.tasks import Grid, Task

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def terminal(width: int) -> Console:
    return Console(width=width, force_terminal=True, color_system="truecolor", file=io.StringIO())


def drawn(console: Console, renderable) -> str:
    """What the console prints, colour codes removed."""
    with console.capture() as capture:
        console.print(renderable)
    return ANSI.sub("", capture.get())


def wide_task(side: int = 30) -> Task:
    """Two train pairs and one test of side x side grids whose rows are told apart by their digits."""
    grid = np.arange(side * side).reshape(side, side) * 7 % 10
    pair = {"input": grid.tolist(), "output": grid[::-1].tolist()}
    return Task.model_validate({"id": "wide", "train": [pair, pair], "test": [pair]})


def test_blocks_are_two_spaces_on_the_cells_colour():
    text = grid_text(Grid.from_numpy([[0, 1], [2, 9]]))
    assert text.plain == "    \n    "
    assert [str(span.style) for span in text.spans] == [f"on {PALETTE[c]}" for c in (0, 1, 2, 9)]


def test_half_blocks_colour_the_upper_cell_and_the_lower_cell():
    text = grid_text(Grid.from_numpy([[1, 2], [3, 4], [5, 6]]), "half")
    assert text.plain == f"{HALF_BLOCK * 2}\n{HALF_BLOCK * 2}"
    styles = [str(span.style) for span in text.spans]
    assert styles == [f"{PALETTE[1]} on {PALETTE[3]}", f"{PALETTE[2]} on {PALETTE[4]}", PALETTE[5], PALETTE[6]]


def test_digits_and_the_placeholder_for_a_missing_grid():
    assert grid_text(Grid.from_numpy([[0, 1, 2], [7, 8, 9]]), "digits").plain == "012\n789"
    missing = grid_text(None)
    assert missing.plain == "?" and str(missing.style) == "dim"


def test_pairs_table_labels_rows_and_captions_grids():
    rows = [("test 0", [("input", Grid.from_numpy([[1, 2]])), ("truth", None)])]
    out = drawn(Console(width=80, file=io.StringIO()), pairs_table(rows, "<Task x | 1 train | 1 test>"))
    assert "<Task x | 1 train | 1 test>" in out
    line = next(line for line in out.splitlines() if "test 0" in line)
    assert "input 1x2" in line and "truth" in line and "truth 1" not in line
    assert "│ 12 " in out and "│ ?" in out


def test_plain_output_where_colour_cannot_be_seen():
    table = task_table(wide_task(3))
    not_a_terminal = Console(width=120, file=io.StringIO())
    no_colour = Console(width=120, force_terminal=True, no_color=True, file=io.StringIO())
    asked = (terminal(120), task_table(wide_task(3), plain=True))
    for console, renderable in ((not_a_terminal, table), (no_colour, table), asked):
        out = drawn(console, renderable)
        assert "│ 074 " in out and "│ 185 " in out  # the first rows of the 3x3 grid, as digits
        assert HALF_BLOCK not in out


def test_test_outputs_are_drawn_only_when_asked():
    task = wide_task(2)
    assert [name for name, _ in task_rows(task, show_test_outputs=False)[-1][1]] == ["input"]
    assert [name for name, _ in task_rows(task)[-1][1]] == ["input", "output"]


@pytest.mark.parametrize("width", [200, 100, 60, 40, 30])
def test_a_30_wide_grid_is_never_cropped(width):
    out = drawn(terminal(width), task_table(wide_task()))
    assert max(len(line) for line in out.splitlines()) <= width
    # 6 grids of 30 rows: every cell is drawn, as blocks (two spaces) or half-blocks (two rows each)
    assert out.count(HALF_BLOCK) in (0, 6 * 15 * 30)
    if width >= 200:
        assert HALF_BLOCK not in out and "…" not in out  # wide enough for full blocks on one line
    else:
        assert out.count(HALF_BLOCK) == 6 * 15 * 30
        assert "…" not in out.replace("│ …", "")  # only the label of a wrapped row, no ellipsis


def test_digits_at_a_narrow_width_wrap_panels_onto_more_lines():
    task = wide_task()
    out = drawn(Console(width=50, file=io.StringIO()), task_table(task))
    for row in task.train[0].input.cells:
        assert "".join(map(str, row)) in out  # each row of 30 digits whole
    assert "│ …" in out  # the output panel went to a line of its own


def test_png_has_the_palette_colours(tmp_path):
    rows = [("train 0", [("input", Grid.from_numpy([[1] * 4] * 4)), ("output", Grid.from_numpy([[2] * 4] * 4))])]
    rows.append(("test 0", [("input", Grid.from_numpy([[4]])), ("output", None)]))
    path = tmp_path / "task.png"
    save_image(rows, "<Task x>", path, "png")
    pixels = (imread(path)[..., :3] * 255).round().astype(int).reshape(-1, 3)
    colours = {tuple(p) for p in pixels}
    for c in (1, 2, 4):
        assert tuple(int(PALETTE[c][i : i + 2], 16) for i in (1, 3, 5)) in colours


def test_svg_needs_no_font_download(tmp_path):
    path = tmp_path / "task.svg"
    save_image(task_rows(wide_task(3)), "<Task $wide$ [red]>", path, "svg")
    svg = path.read_text()
    assert svg.startswith("<?xml") and "<svg" in svg
    assert "@import" not in svg and "font-face" not in svg and "url(http" not in svg


def test_image_errors_are_arcsolve_errors(tmp_path):
    rows = task_rows(wide_task(2))
    with pytest.raises(ArcsolveError, match="not png or svg"):
        save_image(rows, "t", tmp_path / "x.gif", "gif")
    with pytest.raises(ArcsolveError, match="x.png"):
        save_image(rows, "t", tmp_path / "missing" / "x.png", "png")
