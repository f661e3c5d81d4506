"""Lattice tasks drawn the ways the chains do not draw them, and the solved count per variant.

    python benchmarks/lattice_variants.py write benchmarks/results/lattice_variants/tasks --seed 11
    OMP_NUM_THREADS=1 arcsolve eval benchmarks/results/lattice_variants/tasks --model dsl --model latformer \\
        --jobs 2 --time-budget 3 --fit-seconds 10 --device cpu --report benchmarks/results/lattice_variants
    python benchmarks/lattice_variants.py table benchmarks/results/lattice_variants

`arcsolve bench lattice-chains` draws its actions from one vocabulary: shifts of at most two
cells on a background of 0, samplings by 2, up-scalings and tilings by at most 3, grids of
scattered cells. Tasks written by other people draw them otherwise. Each variant here is one
or two lattice actions drawn another way: longer shifts, another background, sparse
rectangles for objects, samplings by 3, factors of 4, paddings of a colour, dense grids,
colour permutations, tilings of turned or mirrored copies, halves and quadrants of grids
whose sizes vary, overlays of two halves, numpy's paddings (edge, symmetric, reflect, wrap),
a tiling with a separator column, an up-scaling with grid lines, the middle half of a grid,
chains of those paddings and halves with another action, and, appended last, sparse
up-scalings, lines between rows, panels between lines (turned, mirrored or swapped),
halves or quadrants moved in place, grids scaled or tiled by their own sides (the input
placed wherever it has colour, or wherever it has none), and grids of several sizes sampled
down to one. `write` writes three tasks per
variant (three train pairs and one test each); `table` reads an eval report and writes, beside it,
`variants.json`: the solved count per variant and model.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arcsolve.errors import ArcsolveError  # noqa: E402
from arcsolve.evaluation.results import records_by_model  # noqa: E402

Grid = np.ndarray
Variant = tuple[Callable[[np.random.Generator, int, int], Grid], Callable[[Grid], Grid], tuple[int, int]]
TASKS_PER_VARIANT = 3
PAIRS = 4  # three train pairs, then the test


def scattered(rng: np.random.Generator, h: int, w: int, background: int = 0, density=None, colours=None) -> Grid:
    """A background with `colours` other colours (two to four) over a share `density` of the cells."""
    density = rng.uniform(0.3, 0.6) if density is None else density
    palette = rng.choice(
        [c for c in range(10) if c != background], size=colours or int(rng.integers(2, 5)), replace=False
    )
    grid = np.where(rng.random((h, w)) < density, rng.choice(palette, size=(h, w)), background)
    if len(np.unique(grid)) < 2:
        grid[0, 0] = palette[0]
    return grid


def rectangles(rng: np.random.Generator, h: int, w: int, background: int = 0, count: int = 3) -> Grid:
    """A background with `count` solid rectangles of one to three cells a side."""
    grid = np.full((h, w), background)
    for _ in range(count):
        colour = rng.choice([c for c in range(10) if c != background])
        a, b = (int(v) for v in rng.integers(1, 4, 2))
        r, c = int(rng.integers(0, h - a + 1)), int(rng.integers(0, w - b + 1))
        grid[r : r + a, c : c + b] = colour
    return grid


def shifted(x: Grid, dr: int, dc: int, background: int = 0) -> Grid:
    """x moved dr rows down and dc columns right; the cells it leaves take the background."""
    out, (h, w) = np.full_like(x, background), x.shape
    out[max(dr, 0) : h + min(dr, 0), max(dc, 0) : w + min(dc, 0)] = x[
        max(-dr, 0) : h - max(dr, 0), max(-dc, 0) : w - max(dc, 0)
    ]
    return out


def _swapped(a: int, b: int) -> Callable[[Grid], Grid]:
    def swap(x: Grid) -> Grid:
        y = x.copy()
        y[x == a], y[x == b] = b, a
        return y

    return swap


def _halves(x: Grid) -> Grid:
    """Colour 4 where exactly one of the two halves holds a colour."""
    n = x.shape[1] // 2
    return np.where((x[:, :n] > 0) ^ (x[:, n:] > 0), 4, 0)


def _split(rng: np.random.Generator, h: int, w: int) -> Grid:
    """Two halves of one colour each (1 and 6), a separator column of 5 between them."""
    left, right = (np.where(rng.random((h, w)) < 0.4, c, 0) for c in (1, 6))
    return np.concatenate([left, np.full((h, 1), 5), right], 1)


def _split_or(x: Grid) -> Grid:
    n = x.shape[1] // 2
    return np.where((x[:, :n] > 0) | (x[:, n + 1 :] > 0), 2, 0)


def _permuted(x: Grid) -> Grid:
    table = np.arange(10)
    table[[1, 2, 3]] = [2, 3, 1]
    return table[x]


def _any_colour(x: Grid) -> Grid:
    h, w = x.shape
    return x.reshape(h // 2, 2, w // 2, 2).max(axis=(1, 3))


def _tiled_with_separator(x: Grid) -> Grid:
    """x, a column of colour 5, then x again."""
    return np.concatenate([x, np.full((x.shape[0], 1), 5), x], 1)


def _spread(x: Grid, k: int) -> Grid:
    """Each cell at the top left of a k×k block of background 0."""
    y = np.zeros((k * x.shape[0], k * x.shape[1]), dtype=x.dtype)
    y[::k, ::k] = x
    return y


def _up_with_grid_lines(x: Grid) -> Grid:
    """Each cell a 2×2 block, the blocks apart by lines of colour 5."""
    h, w = x.shape
    y = np.full((3 * h - 1, 3 * w - 1), 5)
    for i, j in np.ndindex(h, w):
        y[3 * i : 3 * i + 2, 3 * j : 3 * j + 2] = x[i, j]
    return y


def _centre_half(x: Grid) -> Grid:
    """The middle half of the rows and of the columns."""
    h, w = x.shape
    return x[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4]


def variants(rng: np.random.Generator) -> dict[str, Variant]:
    """Each variant: how an input of h × w is drawn, the rule, and the range of h and w."""
    far, across = int(rng.choice([-4, -3, 3, 4])), int(rng.integers(-1, 2))
    side = max(2, abs(far) + across - 1)  # the panels' side, one per task (2 to 4), from draws made already
    ones = np.ones
    return {
        "long-shift-fill": (scattered, lambda x: shifted(x, far, across), (6, 10)),
        "shift-fill-background-7": (
            lambda r, h, w: scattered(r, h, w, background=7),
            lambda x: shifted(x, 1, -1, 7),
            (4, 9),
        ),
        "rectangles-shift-fill": (rectangles, lambda x: shifted(x, 2, 1), (6, 12)),
        "sample-3x3": (lambda r, h, w: scattered(r, 3 * h, 3 * w), lambda x: x[::3, ::3], (2, 6)),
        "blocks-down-2x2": (
            lambda r, h, w: np.kron(scattered(r, h, w), ones((2, 2), int)),
            lambda x: x[::2, ::2],
            (2, 7),
        ),
        "up-4x1": (scattered, lambda x: np.kron(x, ones((4, 1), int)), (2, 6)),
        "tile-1x4": (scattered, lambda x: np.tile(x, (1, 4)), (2, 6)),
        "pad-colour-8": (scattered, lambda x: np.pad(x, ((1, 1), (2, 0)), constant_values=8), (3, 8)),
        "dense-rotate": (lambda r, h, w: scattered(r, h, w, density=0.95, colours=8), np.rot90, (3, 9)),
        "flip-shift-fill-background-3": (
            lambda r, h, w: scattered(r, h, w, background=3),
            lambda x: shifted(x[:, ::-1], 0, 2, 3),
            (4, 9),
        ),
        "crop-3-1-2-0": (scattered, lambda x: x[3:-1, 2:], (6, 12)),
        "transpose-tile-2x2": (scattered, lambda x: np.tile(x.T, (2, 2)), (2, 6)),
        "rectangles-turn-up-2x2": (rectangles, lambda x: np.kron(np.rot90(x, 2), ones((2, 2), int)), (4, 8)),
        "swap-with-background": (lambda r, h, w: scattered(r, h, w, colours=3), _swapped(0, 5), (3, 8)),
        "large-rotate-shift-fill": (scattered, lambda x: shifted(np.rot90(x), 1, 0), (14, 22)),
        "colour-cycle": (lambda r, h, w: scattered(r, h, w, colours=4), _permuted, (3, 8)),
        "mirror-quadrants": (
            scattered,
            lambda x: np.block([[x, x[:, ::-1]], [x[::-1], x[::-1, ::-1]]]),
            (2, 6),
        ),
        "turned-quadrants": (
            lambda r, h, w: scattered(r, h, h),
            lambda x: np.block([[x, np.rot90(x, -1)], [np.rot90(x, 1), np.rot90(x, 2)]]),
            (2, 6),
        ),
        "any-colour-down-2x2": (
            lambda r, h, w: scattered(r, 2 * h, 2 * w, colours=1, density=0.3),
            _any_colour,
            (2, 6),
        ),
        "crop-then-up-2x2": (scattered, lambda x: np.kron(x[1:, 1:-1], ones((2, 2), int)), (4, 8)),
        "sample-then-tile": (
            lambda r, h, w: scattered(r, 2 * h, 2 * w),
            lambda x: np.tile(x[::2, ::2], (2, 1)),
            (2, 5),
        ),
        "rectangles-roll-3": (rectangles, lambda x: np.roll(x, 3, 1), (6, 12)),
        "transpose-pad": (scattered, lambda x: np.pad(x.T, 1), (3, 8)),
        "flip-shift-fill-up-1x2": (scattered, lambda x: np.kron(shifted(x[::-1], 1, 1), ones((1, 2), int)), (3, 7)),
        "split-halves-or": (_split, _split_or, (3, 6)),
        "tile-2x2-roll": (scattered, lambda x: np.roll(np.tile(x, (2, 2)), (1, 1), (0, 1)), (2, 6)),
        "right-half": (lambda r, h, w: scattered(r, h, 2 * w), lambda x: x[:, x.shape[1] // 2 :], (2, 7)),
        "bottom-half-odd": (
            lambda r, h, w: scattered(r, 2 * h + 1, w),
            lambda x: x[x.shape[0] // 2 + 1 :],
            (2, 7),
        ),
        "bottom-right-quadrant": (
            lambda r, h, w: scattered(r, 2 * h, 2 * w),
            lambda x: x[x.shape[0] // 2 :, x.shape[1] // 2 :],
            (2, 6),
        ),
        "last-3-rows": (scattered, lambda x: x[-3:], (4, 9)),
        "halves-xor": (lambda r, h, w: scattered(r, h, 2 * w, colours=1), _halves, (3, 6)),
        "right-half-turned": (
            lambda r, h, w: scattered(r, h, 2 * w),
            lambda x: np.rot90(x[:, x.shape[1] // 2 :]),
            (2, 7),
        ),
        # numpy's paddings and more: drawn after the variants above, so that their tasks stay
        "pad-edge": (scattered, lambda x: np.pad(x, 1, mode="edge"), (3, 8)),
        "pad-symmetric": (scattered, lambda x: np.pad(x, ((0, 0), (2, 2)), mode="symmetric"), (3, 8)),
        "pad-reflect": (scattered, lambda x: np.pad(x, ((1, 1), (0, 0)), mode="reflect"), (3, 8)),
        "pad-wrap": (scattered, lambda x: np.pad(x, ((0, 0), (2, 1)), mode="wrap"), (3, 8)),
        "tile-with-separator": (scattered, _tiled_with_separator, (2, 6)),
        "up-3x3-with-grid-lines": (scattered, _up_with_grid_lines, (2, 5)),
        "centre-half": (lambda r, h, w: scattered(r, 4 * h, 4 * w), _centre_half, (1, 3)),
        "long-roll": (scattered, lambda x: np.roll(x, (5, -6), (0, 1)), (10, 16)),
        "sample-then-turn": (lambda r, h, w: scattered(r, 2 * h, 2 * w), lambda x: np.rot90(x[1::2, ::2]), (2, 6)),
        "crop-border-turn": (scattered, lambda x: np.rot90(x[1:-1, 1:-1], 3), (4, 9)),
        "stack-flipped": (scattered, lambda x: np.concatenate([x, x[::-1]], 0), (2, 7)),
        # chains of the paddings and halves with another action
        "pad-edge-then-up-2x2": (scattered, lambda x: np.kron(np.pad(x, 1, mode="edge"), ones((2, 2), int)), (2, 5)),
        "pad-reflect-then-tile-1x2": (
            scattered,
            lambda x: np.tile(np.pad(x, ((1, 1), (0, 0)), mode="reflect"), (1, 2)),
            (3, 6),
        ),
        "right-half-then-up-2x2": (
            lambda r, h, w: scattered(r, h, 2 * w),
            lambda x: np.kron(x[:, x.shape[1] // 2 :], ones((2, 2), int)),
            (2, 5),
        ),
        "turn-then-pad-edge": (scattered, lambda x: np.pad(np.rot90(x), 1, mode="edge"), (3, 7)),
        "pad-symmetric-then-turn": (
            scattered,
            lambda x: np.rot90(np.pad(x, ((0, 0), (2, 2)), mode="symmetric")),
            (3, 7),
        ),
        # lines that read nothing between blocks: sparse up-scalings, lines between rows
        "spread-2x2": (scattered, lambda x: _spread(x, 2), (2, 6)),
        "flip-spread-3x3": (scattered, lambda x: _spread(x[:, ::-1], 3), (2, 5)),
        "lines-between-rows": (scattered, lambda x: np.insert(x, range(1, x.shape[0]), 5, axis=0), (2, 7)),
        # panels between lines of colour 5: each panel of the output its own turn or flip of one
        "panels-turned-row": (
            lambda r, h, w: _panels(r, side, (1, 3), drawn=1),
            lambda x: _panels_from(x, side, (1, 3), lambda p: [p, np.rot90(p, -1), np.rot90(p, 2)]),
            (side, side),
        ),
        "panels-mirrored-2x2": (
            lambda r, h, w: _panels(r, side, (2, 2), drawn=1),
            lambda x: _panels_from(x, side, (2, 2), lambda p: [p, p[:, ::-1], p[::-1], p[::-1, ::-1]]),
            (side, side),
        ),
        "panels-swapped": (
            lambda r, h, w: _panels(r, side, (1, 2), drawn=2),
            lambda x: _panels_from(x, side, (1, 2), lambda p, q: [q, p[:, ::-1]], every=True),
            (side, side),
        ),
        # parts of a grid moved in place, on grids of even sides that vary
        "swap-halves": (_even, lambda x: np.roll(x, x.shape[1] // 2, axis=1), (4, 10)),
        "quadrants-turned-180": (_even, lambda x: _quadrants(x, lambda q: np.rot90(q, 2)), (4, 10)),
        "quadrants-flipped-lr": (_even, lambda x: _quadrants(x, lambda q: q[:, ::-1]), (4, 10)),
        # grids scaled by their own sides, whose sizes vary: h·h × w·w
        "up-by-own-sides": (scattered, lambda x: np.kron(x, ones(x.shape, int)), (2, 5)),
        "self-tiling-sizes": (scattered, lambda x: np.kron((x != 0).astype(int), x), (2, 5)),
        "self-tiling-background": (scattered, lambda x: np.kron((x == 0).astype(int), x), (2, 5)),
        # grids of several sizes sampled down to one: the first cell of each block
        "sampled-to-3x3": (
            lambda r, h, w: scattered(r, 3 * h, 3 * w),
            lambda x: x[:: x.shape[0] // 3, :: x.shape[1] // 3],
            (2, 5),
        ),
    }


def _even(rng: np.random.Generator, h: int, w: int) -> Grid:
    """`scattered`, its sides rounded down to even ones."""
    return scattered(rng, 2 * max(1, h // 2), 2 * max(1, w // 2))


def _quadrants(x: Grid, rule: Callable[[Grid], Grid]) -> Grid:
    """Each quadrant of x (even sides) replaced by `rule` of it, in place."""
    h, w = x.shape[0] // 2, x.shape[1] // 2
    return np.block([[rule(x[:h, :w]), rule(x[:h, w:])], [rule(x[h:, :w]), rule(x[h:, w:])]])


LINE = 5  # the colour of the lines between panels


def _panels(rng: np.random.Generator, side: int, tiles: tuple[int, int], drawn: int) -> Grid:
    """a×b square panels of `side` cells between lines of colour LINE, the first `drawn` of
    them scattered with colours other than LINE, the rest background."""
    panels = [
        np.where(rng.random((side, side)) < 0.5, rng.choice([1, 2, 3, 4, 6, 7, 8, 9], size=(side, side)), 0)
        if k < drawn else np.zeros((side, side), int)
        for k in range(tiles[0] * tiles[1])
    ]
    return _join(panels, tiles)


def _join(panels: list[Grid], tiles: tuple[int, int]) -> Grid:
    """Panels (row-major) joined by lines of colour LINE one cell wide."""
    side = panels[0].shape[0]
    grid = np.full((tiles[0] * (side + 1) - 1, tiles[1] * (side + 1) - 1), LINE)
    for k, panel in enumerate(panels):
        r, c = divmod(k, tiles[1])
        grid[r * (side + 1) : r * (side + 1) + side, c * (side + 1) : c * (side + 1) + side] = panel
    return grid


def _panels_from(x: Grid, side: int, tiles: tuple[int, int], rule: Callable, every: bool = False) -> Grid:
    """The panels `rule` makes of the first of x's panels (of all of them, with `every`)."""
    panels = [
        x[r * (side + 1) : r * (side + 1) + side, c * (side + 1) : c * (side + 1) + side]
        for r in range(tiles[0]) for c in range(tiles[1])
    ]
    return _join(rule(*panels) if every else rule(panels[0]), tiles)


def write(folder: Path, seed: int, train_pairs: int = PAIRS - 1, tests: int = 1) -> int:
    """Write TASKS_PER_VARIANT tasks per variant, each of `train_pairs` train pairs and `tests`
    test pairs, into `folder`; returns how many."""
    folder.mkdir(parents=True, exist_ok=True)
    names = list(variants(np.random.default_rng(0)))
    count = 0
    for index, name in enumerate(names):
        for k in range(TASKS_PER_VARIANT):
            rng = np.random.default_rng([seed, index, k])
            draw, rule, (lo, hi) = variants(rng)[name]
            pairs = []
            for _ in range(train_pairs + tests):
                h, w = (int(v) for v in rng.integers(lo, hi + 1, 2))
                x = np.asarray(draw(rng, h, w))
                pairs.append({"input": x.tolist(), "output": np.asarray(rule(x)).tolist()})
            task = {"train": pairs[:train_pairs], "test": pairs[train_pairs:]}
            (folder / f"{name}-{k}.json").write_text(json.dumps(task))
            count += 1
    return count


def table(report: Path, label: str = "variant", per_group: int = TASKS_PER_VARIANT,
          out_name: str = "variants.json") -> None:
    """Print the solved count per group of tasks (a task `<group>-<k>`) and model, and write
    it to `report`/`out_name`."""
    try:
        models = records_by_model(report)
    except ArcsolveError as error:  # a results file cut off or of another kind
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    if not models:
        print(f"error: {report}: no results-<model>.jsonl files (run arcsolve eval --report there)", file=sys.stderr)
        sys.exit(2)
    names = sorted({task_id.rsplit("-", 1)[0] for rows in models.values() for task_id in rows})
    rows = {
        name: {m: sum(r["solved"] for t, r in got.items() if t.rsplit("-", 1)[0] == name) for m, got in models.items()}
        for name in names
    }
    totals = {m: {"solved": sum(r["solved"] for r in got.values()), "tasks": len(got)} for m, got in models.items()}
    print(f"| {label} | " + " | ".join(models) + " |")
    print("| --- | " + " | ".join("---" for _ in models) + " |")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(f"{row[m]}/{per_group}" for m in models) + " |")
    print("| all | " + " | ".join(f"**{t['solved']}/{t['tasks']}**" for t in totals.values()) + " |")
    (report / out_name).write_text(json.dumps({f"{label}s": rows, "total": totals}, indent=1))


def write_or_table(doc: str, write: Callable[[Path, int, int, int], int], seed: int, label: str = "variant",
                   per_group: int = TASKS_PER_VARIANT, out_name: str = "variants.json") -> None:
    """The command line of a script that writes groups of tasks and tables an eval report of
    them: `write FOLDER [--seed N] [--train-pairs N] [--tests N]` or `table REPORT`."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    writing = commands.add_parser("write", help="write the tasks into a folder")
    writing.add_argument("folder", type=Path)
    writing.add_argument("--seed", type=int, default=seed)
    writing.add_argument("--train-pairs", type=int, default=PAIRS - 1, help="train pairs per task")
    writing.add_argument("--tests", type=int, default=1,
                         help="test pairs per task (a task counts as solved when every test is)")
    reading = commands.add_parser("table", help=f"the solved count per {label}, from an eval report")
    reading.add_argument("report", type=Path)
    args = parser.parse_args()
    if args.command == "write":
        for option, value in (("--train-pairs", args.train_pairs), ("--tests", args.tests)):
            if value < 1:
                writing.error(f"{option} must be at least 1, not {value}")
        try:
            print(f"{write(args.folder, args.seed, args.train_pairs, args.tests)} tasks written to {args.folder}")
        except OSError as error:  # a file where the folder should be, no room, no permission
            print(f"error: {args.folder}: cannot write the tasks there ({error.strerror})", file=sys.stderr)
            sys.exit(2)
    else:
        table(args.report, label=label, per_group=per_group, out_name=out_name)


def main() -> None:
    write_or_table(__doc__, write, seed=11)


if __name__ == "__main__":
    main()
