"""Drawing grids and tasks: in the terminal in ARC's ten colours (rich), or as PNG/SVG (matplotlib).

In a terminal a cell is two coloured spaces; when that is too wide for the terminal it is one
half-block character (two rows of cells per line), panels that still do not fit wrap onto more
lines, and below the width of one bordered panel the grids are stacked without borders. Where
colour cannot be seen (output piped to a file, NO_COLOR, `--plain`) a cell is its digit. No grid
is ever cropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text

from arcsolve.errors import ArcsolveError
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
MISSING = "?"  # drawn where a grid is not known (a test output nobody has)
HALF_BLOCK = "▀"  # foreground: the upper cell, background: the lower one
# characters per cell in each drawing style
CELL_WIDTH = {"blocks": 2, "half": 1, "digits": 1}

Cells = list[tuple[str, Grid | None]]
Rows = list[tuple[str, Cells]]


def grid_text(grid: Grid | None, style: str = "blocks") -> Text:
    """A grid as `blocks` (two coloured spaces per cell), `half` (half-blocks) or `digits`."""
    if grid is None:
        return Text(MISSING, style="dim")
    text = Text()
    if style == "half":
        for r in range(0, len(grid.cells), 2):
            if r:
                text.append("\n")
            lower = grid.cells[r + 1] if r + 1 < len(grid.cells) else None
            for c, top in enumerate(grid.cells[r]):
                below = f" on {PALETTE[lower[c]]}" if lower is not None else ""
                text.append(HALF_BLOCK, style=PALETTE[top] + below)
        return text
    for r, row in enumerate(grid.cells):
        if r:
            text.append("\n")
        for cell in row:
            if style == "digits":
                text.append(str(cell))
            else:
                text.append("  ", style=f"on {PALETTE[cell]}")
    return text


def _caption(name: str, grid: Grid | None) -> str:
    return name + (f" {grid.shape[0]}x{grid.shape[1]}" if grid is not None else "")


def _panel_width(name: str, grid: Grid | None, style: str) -> int:
    drawn = grid.shape[1] * CELL_WIDTH[style] if grid is not None else len(MISSING)
    return max(len(_caption(name, grid)), drawn)


@dataclass(frozen=True)
class GridTable:
    """Rows of titled grids under a title, fitted to the width it is drawn in.

    `plain` True draws digits; None decides when drawn: digits where the console shows no
    colour (not a terminal, or NO_COLOR), coloured cells otherwise."""

    rows: Rows
    title: str
    plain: bool | None = None

    def styles(self, console: Console) -> tuple[str, ...]:
        """The drawing styles to try, widest first."""
        if self.plain or (self.plain is None and (not console.is_terminal or console.no_color)):
            return ("digits",)
        return ("blocks", "half")

    def layout(self, style: str, width: int) -> tuple[int, bool, bool]:
        """For a table `width` characters wide: how many panels one line holds, whether every
        row fits on one line, and whether even one panel per line fits."""
        label = max(len(label) for label, _ in self.rows) + 3  # padding 2, border 1
        panel = max(_panel_width(n, g, style) for _, cells in self.rows for n, g in cells) + 3
        most = max(len(cells) for _, cells in self.rows)
        per_line = max(1, (width - 1 - label) // panel)
        return min(per_line, most), per_line >= most, label + panel + 1 <= width

    def table(self, style: str, per_line: int) -> Table:
        table = Table(show_header=False, show_lines=True, expand=False)
        table.add_column("", style="bold", no_wrap=True)
        for _ in range(per_line):
            table.add_column("", no_wrap=True)
        for label, cells in self.rows:
            for start in range(0, len(cells), per_line):
                chunk = cells[start : start + per_line]
                name = label if start == 0 else "…"
                table.add_row(Text(name), *[self.panel(n, g, style) for n, g in chunk])
        return table

    def panel(self, name: str, grid: Grid | None, style: str) -> Group:
        return Group(Text(_caption(name, grid), style="bold"), grid_text(grid, style))

    def stacked(self, style: str) -> Group:
        """Without the table's borders, every panel under its row's label: the narrowest layout."""
        parts: list = [Text(self.title, style="bold")]
        for label, cells in self.rows:
            parts.append(Text(f"{label}:", style="bold underline"))
            parts.extend(self.panel(n, g, style) for n, g in cells)
        return Group(*parts)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        styles = self.styles(console)
        for style in styles:
            per_line, fits, one_fits = self.layout(style, options.max_width)
            if fits or (style == styles[-1] and one_fits):
                yield Text(self.title, style="bold")  # above the table, so not wrapped to its width
                yield self.table(style, per_line)
                return
        yield self.stacked(styles[-1])  # a grid wider than the terminal folds; it is never cut


def pairs_table(rows: Rows, title: str, plain: bool | None = None) -> GridTable:
    """A table whose rows are labelled lists of titled grids (see GridTable)."""
    return GridTable(rows, title, plain)


def task_rows(task: Task, show_test_outputs: bool = True) -> Rows:
    """A task's train pairs and test inputs (and test outputs when known and asked for)."""
    rows: Rows = [(f"train {i}", [("input", p.input), ("output", p.output)]) for i, p in enumerate(task.train)]
    for i, p in enumerate(task.test):
        cells: Cells = [("input", p.input)]
        if show_test_outputs and p.output is not None:
            cells.append(("output", p.output))
        rows.append((f"test {i}", cells))
    return rows


def task_table(task: Task, show_test_outputs: bool = True, plain: bool | None = None) -> GridTable:
    """All train pairs and test inputs of a task (and test outputs when known and asked for)."""
    return pairs_table(task_rows(task, show_test_outputs), repr(task), plain)


def save_image(rows: Rows, title: str, path: Path, fmt: str = "png") -> None:
    """Draw labelled rows of grids to a PNG or SVG file (`fmt`), offline.

    Text is drawn with matplotlib's bundled font (as paths in an SVG), so nothing is fetched."""
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure

    if fmt not in ("png", "svg"):
        raise ArcsolveError(f"{path}: image format '{fmt}' is not png or svg")
    columns = max(len(cells) for _, cells in rows)
    figure = Figure(figsize=(2.2 * columns + 0.8, 2.4 * len(rows) + 0.6))
    figure.suptitle(title, parse_math=False)
    colours = ListedColormap(PALETTE)
    axes = figure.subplots(len(rows), columns, squeeze=False)
    for r, (label, cells) in enumerate(rows):
        axes[r][0].set_ylabel(label, parse_math=False)
        for c in range(columns):
            ax = axes[r][c]
            ax.set_xticks([])
            ax.set_yticks([])
            if c >= len(cells):
                ax.set_axis_off()
                continue
            name, grid = cells[c]
            ax.set_title(_caption(name, grid), fontsize=9, parse_math=False)
            if grid is None:
                ax.text(0.5, 0.5, MISSING, ha="center", va="center", fontsize=20, parse_math=False)
                continue
            ax.imshow(grid.to_numpy(), cmap=colours, vmin=0, vmax=len(PALETTE) - 1, interpolation="nearest")
            h, w = grid.shape
            ax.set_xticks([x - 0.5 for x in range(1, w)], minor=True)
            ax.set_yticks([y - 0.5 for y in range(1, h)], minor=True)
            ax.grid(which="minor", color="#555555", linewidth=0.5)
            ax.tick_params(which="minor", length=0)
    try:
        figure.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    except OSError as exc:
        raise ArcsolveError(f"{path}: {exc.strerror or 'cannot write the image'}") from None


def plural(count: int, noun: str) -> str:
    """`1 task`, `2 tasks`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
