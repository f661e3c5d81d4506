"""Terminal rendering of grids and tasks in ARC's ten colours (rich)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from arcsolve.tasks import Grid, Task

# ARC's standard palette, colour 0..9.
PALETTE = (
    "#000000",
    "#0074D9",
    "#FF4136",
    "#2ECC40",
    "#FFDC00",
    "#AAAAAA",
    "#F012BE",
    "#FF851B",
    "#7FDBFF",
    "#870C25",
)


def grid_text(grid: Grid | None) -> Text:
    """A grid as coloured blocks, two characters per cell."""
    if grid is None:
        return Text("?", style="dim")
    text = Text()
    for r, row in enumerate(grid.cells):
        if r:
            text.append("\n")
        for cell in row:
            text.append("  ", style=f"on {PALETTE[cell]}")
    return text


def _titled(title: str, grid: Grid | None) -> RenderableType:
    size = f" {grid.shape[0]}x{grid.shape[1]}" if grid is not None else ""
    return Group(Text(title + size, style="bold"), grid_text(grid))


def pairs_table(rows: list[tuple[str, list[tuple[str, Grid | None]]]], title: str) -> Table:
    """A table whose rows are labelled lists of titled grids."""
    table = Table(title=title, show_header=False, show_lines=True, expand=False)
    width = max(len(cells) for _, cells in rows)
    table.add_column("", style="bold")
    for _ in range(width):
        table.add_column("")
    for label, cells in rows:
        table.add_row(label, *[_titled(name, grid) for name, grid in cells])
    return table


def task_table(task: Task, show_test_outputs: bool = True) -> Table:
    """All train pairs and test inputs of a task (and test outputs when known)."""
    rows = [(f"train {i}", [("input", p.input), ("output", p.output)]) for i, p in enumerate(task.train)]
    for i, p in enumerate(task.test):
        cells = [("input", p.input)]
        if show_test_outputs and p.output is not None:
            cells.append(("output", p.output))
        rows.append((f"test {i}", cells))
    return pairs_table(rows, repr(task))
