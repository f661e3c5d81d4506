"""Report files of an evaluation: report.json, report.md and one examples PNG per model.

report.json holds, for one model, an object
  {"model", "dataset", "subset", "tasks", "solved", "solved_rate", "per_task": {id: {"solved",
   "attempts", "seconds", ...}}, "config", "arcsolve_version", ...}
and, when several models were evaluated together, a list of such objects in the order given.
report.md has a summary table, the comparison by subset (with the paper's Table 2 beside ours)
and each model's per-task table; examples-<model>.png draws up to 8 tasks (solved ones first,
then unsolved): test input, truth and the best attempt, in ARC's palette.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from arcsolve import __version__
from arcsolve.evaluation.records import EvalReport, TaskResult
from arcsolve.evaluation.scoring import pixel_accuracy
from arcsolve.files import ensure_folder, write_atomically
from arcsolve.priors.annotations import SUBSETS
from arcsolve.render import PALETTE, plural
from arcsolve.solution import answer_settings
from arcsolve.tasks import Grid, Task

if TYPE_CHECKING:
    from arcsolve.priors.annotations import Annotations

# Solved rates from Table 2 of Atzeni, Sachan & Loukas, "Infusing Lattice Symmetry Priors in
# Attention Mechanisms for Sample-Efficient Abstract Geometric Reasoning" (ICML 2023), on the
# ARC tasks that need each lattice transformation.
PAPER_TABLE2: dict[str, dict[str, float]] = {
    "LatFormer (paper)": {"translate": 0.365, "rotate": 0.800, "reflect": 0.591, "scale": 0.545},
    "DSL search (paper)": {"translate": 0.673, "rotate": 0.400, "reflect": 0.614, "scale": 0.727},
}
COMPARED_SUBSETS: tuple[str, ...] = ("translate", "rotate", "reflect", "scale", "geometric")
EXAMPLES = 8


def report_dict(report: EvalReport, annotations: Annotations | None = None) -> dict[str, Any]:
    """One model's report.json object."""
    data: dict[str, Any] = {
        "model": report.model,
        "dataset": report.dataset,
        "subset": report.subset,
        "tasks": report.tasks,
        "solved": report.solved,
        "solved_rate": report.solved_rate,
        "test_outputs": report.test_outputs,
        "test_outputs_correct": report.test_outputs_correct,
        "pixel_accuracy": report.pixel_accuracy,
        "errors": report.errors,
        "seconds": round(report.seconds, 3),
        "per_task": {
            r.id: {
                "solved": r.solved,
                "attempts": [[g.to_list() for g in tries] for tries in r.attempts],
                "seconds": round(r.seconds, 4),
                "correct": list(r.score.correct) if r.score else None,
                "pixel_accuracy": list(r.score.pixel_accuracy) if r.score else None,
                "error": r.error,
            }
            for r in report.results
        },
        "config": answer_settings(report.model, report.config),
        "arcsolve_version": __version__,
    }
    if annotations is not None:
        counts = report.subset_counts(annotations, SUBSETS)
        data["subsets"] = {name: {"solved": s, "tasks": n} for name, (s, n) in counts.items()}
    return data


def comparison(
    reports: Sequence[EvalReport], annotations: Annotations | None
) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the comparison table: one row per model (`solved/size (rate)` per
    subset that has tasks, then all evaluated tasks), then the paper's rows."""
    subsets: list[str] = []
    if annotations is not None and reports:
        counts = reports[0].subset_counts(annotations, COMPARED_SUBSETS)
        subsets = [name for name in COMPARED_SUBSETS if counts[name][1] > 0]
    header = ["model", *subsets, "all"]
    rows = []
    for report in reports:
        counts = report.subset_counts(annotations, subsets) if subsets else {}
        cells = [_fraction(*counts[name]) for name in subsets]
        rows.append([report.model, *cells, _fraction(report.solved, report.tasks)])
    if subsets:
        for name, rates in PAPER_TABLE2.items():
            rows.append([name, *[f"{rates[s]:.3f}" if s in rates else "–" for s in subsets], "–"])
    return header, rows


def _fraction(solved: int, size: int) -> str:
    return f"{solved}/{size} ({solved / size:.3f})" if size else "–"


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *map(line, rows)])


def report_markdown(
    reports: Sequence[EvalReport], annotations: Annotations | None, pictures: dict[str, str]
) -> str:
    first = reports[0]
    scope = f"`{first.dataset or 'tasks given'}`"
    if first.subset:
        scope += f", subset `{first.subset}`"
    parts = [f"# arcsolve evaluation\n\n{scope}: {plural(first.tasks, 'task')}"]
    summary = [
        [
            r.model, str(r.solved), f"{r.solved_rate:.3f}",
            f"{r.test_outputs_correct}/{r.test_outputs}", f"{r.pixel_accuracy:.3f}",
            str(r.errors), f"{r.seconds / max(r.tasks, 1):.2f}",
        ]
        for r in reports
    ]
    parts.append(_markdown_table(
        ["model", "solved", "solved rate", "test outputs correct", "pixel accuracy",
         "errors", "s/task"],
        summary,
    ))
    if annotations is not None:
        parts.append("## By subset, beside the paper's Table 2\n\n" + _markdown_table(
            *comparison(reports, annotations)
        ))
    for r in reports:
        section = f"## {r.model}\n\n"
        if r.model in pictures:
            section += f"![examples of {r.model}]({pictures[r.model]})\n\n"
        rows = [
            [
                res.id, "yes" if res.solved else "no",
                f"{sum(res.score.correct)}/{len(res.score.correct)}" if res.score else "–",
                " ".join(f"{p:.2f}" for p in res.score.pixel_accuracy) if res.score else "–",
                f"{res.seconds:.2f}", res.error or "",
            ]
            for res in r.results
        ]
        section += _markdown_table(
            ["task", "solved", "test outputs", "pixel accuracy", "seconds", "error"], rows
        )
        parts.append(section)
    return "\n\n".join(parts) + "\n"


def _examples(results: Sequence[TaskResult]) -> list[TaskResult]:
    solved = [r for r in results if r.solved]
    unsolved = [r for r in results if not r.solved]
    half = EXAMPLES // 2
    take_solved = min(len(solved), max(half, EXAMPLES - len(unsolved)))
    return solved[:take_solved] + unsolved[: EXAMPLES - take_solved]


def grid_image(grid: Grid, cell: int = 12) -> np.ndarray:
    """A grid as an RGB image in ARC's palette, `cell` pixels a side, grey lines between cells."""
    rgb = np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in PALETTE], dtype=np.uint8)
    image = np.kron(rgb[grid.to_numpy()], np.ones((cell, cell, 1), dtype=np.uint8))  # H*c, W*c, 3
    image[::cell, :] = image[:, ::cell] = image[-1, :] = image[:, -1] = 85
    return image


def write_examples_png(report: EvalReport, tasks: Sequence[Task], path: Path) -> bool:
    """Draw the example tasks (written atomically); False (nothing written) when matplotlib is
    not installed or there is nothing to draw."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return False
    by_id = {t.id: t for t in tasks}
    chosen = [r for r in _examples(report.results) if r.id in by_id]
    if not chosen:
        return False
    fig = Figure(figsize=(7.5, 2.6 * len(chosen)))
    axes = fig.subplots(len(chosen), 3, squeeze=False)
    for row, result in zip(axes, chosen, strict=True):
        truth = by_id[result.id].test[0].output
        tries = result.attempts[0]
        best = max(
            range(len(tries)), key=lambda i: (tries[i] == truth, pixel_accuracy(tries[i], truth))
        )
        mark = "solved" if result.solved else "not solved"
        panels = [
            (f"{result.id} test input", by_id[result.id].test[0].input),
            ("truth", truth),
            (f"attempt {best + 1} ({mark})", tries[best]),
        ]
        for ax, (title, grid) in zip(row, panels, strict=True):
            ax.imshow(grid_image(grid), interpolation="nearest")
            ax.set_axis_off()
            ax.set_title(title, fontsize=9)
    fig.subplots_adjust(left=0.02, right=0.98, top=1 - 0.3 / len(chosen), bottom=0.02)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    write_atomically(path, buffer.getvalue())
    return True


def write_reports(
    report_dir: Path,
    reports: Sequence[EvalReport],
    tasks: Sequence[Task],
    annotations: Annotations | None = None,
    pictures: bool = True,
    others: Sequence[EvalReport] = (),
) -> list[Path]:
    """Write report.json, report.md and (with `pictures`) examples-<model>.png for `reports`;
    `others` (models evaluated earlier into the same folder) join report.json and report.md,
    with the pictures they already have. Every file is written atomically. Return the paths
    written."""
    ensure_folder(report_dir)
    written = []
    png_names = {}
    for report in reports:
        png = report_dir / f"examples-{report.model}.png"
        if pictures and write_examples_png(report, tasks, png):
            png_names[report.model] = png.name
            written.append(png)
    for report in others:
        png = report_dir / f"examples-{report.model}.png"
        if png.is_file():
            png_names[report.model] = png.name
    every = [*reports, *others]
    dicts = [report_dict(r, annotations) for r in every]
    json_path = report_dir / "report.json"
    # compact: indented, every cell of every attempt grid takes a line (14 MB for 3 models × 400 tasks)
    write_atomically(json_path, orjson.dumps(dicts[0] if len(dicts) == 1 else dicts) + b"\n")
    md_path = report_dir / "report.md"
    write_atomically(md_path, report_markdown(every, annotations, png_names).encode())
    return [json_path, md_path, *written]
