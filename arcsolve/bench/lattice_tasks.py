"""ARC-format tasks built from one to four lattice actions, for probing what LatFormer expresses.

Each family is one way of building an output from lattice actions of the input (the
dihedral group, shifts that wrap or fill, crops, scalings, tilings) and, for the families of
several actions, a cell rule that combines their readings. A task has 3 train pairs and one
test pair whose input sizes differ (except in the families of one size per task, as in
ARC's overlays of parts and self-similar tilings), so a solver must find the rule, not the
sizes. The grids
are random: a background of 0 with two to four colours scattered over 30 to 60 % of the cells.

`make_tasks(per_family, seed)` is deterministic; `arcsolve bench lattice-tasks` writes the
tasks as ARC JSON files (`<family>-<k>.json`) for `arcsolve eval`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from arcsolve import symmetry
from arcsolve.tasks import Task, task_from_dict

N_TRAIN = 3
DIHEDRAL: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "identity": lambda x: x,
    "rot90": lambda x: np.rot90(x, -1),
    "rot180": lambda x: np.rot90(x, 2),
    "rot270": lambda x: np.rot90(x, 1),
    "flip_rows": symmetry.flip_v,
    "flip_cols": symmetry.flip_h,
    "transpose": symmetry.transpose,
    "anti_transpose": symmetry.antitranspose,
}
# Elements that keep a non-square grid's shape, for families that need it.
SHAPE_KEEPING = ("identity", "rot180", "flip_rows", "flip_cols")


@dataclass(frozen=True)
class Family:
    """How one family builds a task: `actions` lattice actions, `make(rng)` returns the
    rule (input -> output), the input sides it allows and a name for its parameters."""

    name: str
    actions: int
    make: Callable[[np.random.Generator], tuple[Callable[[np.ndarray], np.ndarray], tuple[int, int], str]]
    square: bool = False
    one_size: bool = False  # every input of a task has one size, as in ARC's overlays of parts


def random_grid(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    colours = rng.choice(np.arange(1, 10), size=int(rng.integers(2, 5)), replace=False)
    density = rng.uniform(0.3, 0.6)
    grid = np.where(rng.random((h, w)) < density, rng.choice(colours, size=(h, w)), 0)
    if len(np.unique(grid)) < 2:
        grid[rng.integers(h), rng.integers(w)] = colours[0]
    return grid.astype(np.int64)


def _shift(x: np.ndarray, dr: int, dc: int, wrap: bool) -> np.ndarray:
    if wrap:
        return np.roll(x, (dr, dc), (0, 1))
    out = np.zeros_like(x)
    h, w = x.shape
    out[max(dr, 0) : h + min(dr, 0), max(dc, 0) : w + min(dc, 0)] = x[
        max(-dr, 0) : h - max(dr, 0), max(-dc, 0) : w - max(dc, 0)
    ]
    return out


def _element(rng: np.random.Generator, pool: tuple[str, ...] = tuple(DIHEDRAL)[1:]) -> str:
    return str(rng.choice(pool))


def dihedral(rng):
    g = _element(rng)
    return DIHEDRAL[g], (3, 9), g


def shift(wrap: bool):
    def make(rng):
        dr, dc = (int(v) for v in rng.integers(-2, 3, size=2))
        if dr == dc == 0:
            dc = 1
        return (lambda x: _shift(x, dr, dc, wrap)), (4, 9), f"{dr},{dc}"

    return make


def crop(rng):
    r, c = (int(v) for v in rng.integers(0, 3, size=2))
    h, w = (int(v) for v in rng.integers(2, 4, size=2))
    return (lambda x: x[r : r + h, c : c + w]), (6, 9), f"{r},{c} {h}x{w}"


def upscale(rng):
    a, b = (int(v) for v in rng.integers(2, 4, size=2))
    return (lambda x: np.kron(x, np.ones((a, b), dtype=x.dtype))), (2, 5), f"{a}x{b}"


def downscale(rng):
    a, b = (int(v) for v in rng.integers(2, 4, size=2))
    # The input is the up-scaled grid; the rule reads one cell per block.
    return (lambda x: x[::a, ::b]), (2, 5), f"{a}x{b}"


def tile(rng):
    a, b = (int(v) for v in rng.integers(1, 4, size=2))
    if a == b == 1:
        b = 2
    return (lambda x: np.tile(x, (a, b))), (2, 5), f"{a}x{b}"


def dihedral_then(second: str):
    def make(rng):
        g = _element(rng)
        f = DIHEDRAL[g]
        if second == "upscale":
            k = int(rng.integers(2, 4))
            return (lambda x: np.kron(f(x), np.ones((k, k), dtype=x.dtype))), (2, 5), f"{g}, up {k}"
        if second == "tile":
            a, b = int(rng.integers(1, 3)), int(rng.integers(2, 4))
            return (lambda x: np.tile(f(x), (a, b))), (2, 5), f"{g}, tile {a}x{b}"
        dr, dc = (int(v) for v in rng.integers(-2, 3, size=2))
        dc = dc or 1
        return (lambda x: _shift(f(x), dr, dc, wrap=False)), (4, 8), f"{g}, shift {dr},{dc}"

    return make


def mirrored_pair(rng):
    """Two tiles side by side or stacked: the input and a transformed copy."""
    g = _element(rng, SHAPE_KEEPING[1:])
    axis = int(rng.integers(0, 2))
    f = DIHEDRAL[g]
    return (lambda x: np.concatenate([x, f(x)], axis=axis)), (2, 6), f"{g}, axis {axis}"


def four_tiles(rng):
    """A 2x2 tiling of four dihedral images of a square input."""
    names = [str(n) for n in rng.choice(list(DIHEDRAL), size=4)]
    fs = [DIHEDRAL[n] for n in names]
    return (lambda x: np.block([[fs[0](x), fs[1](x)], [fs[2](x), fs[3](x)]])), (2, 5), " ".join(names)


def completion(count: int):
    """The input with its images under `count` dihedral elements laid under it."""

    def make(rng):
        names = [str(n) for n in rng.choice(list(DIHEDRAL)[1:], size=count, replace=False)]

        def rule(x):
            out = x.copy()
            for n in names:
                image = DIHEDRAL[n](x)
                out = np.where(out == 0, image, out)
            return out

        return rule, (3, 9), " ".join(names)

    return make


def overlay_halves(rng):
    """Two halves of the input, split by a column of colour 5, combined cell by cell."""
    op = str(rng.choice(["and", "or", "xor", "neither"]))
    colour = int(rng.choice([c for c in range(1, 10) if c != 5]))

    def rule(x):
        w = (x.shape[1] - 1) // 2
        a, b = x[:, :w] != 0, x[:, w + 1 :] != 0
        hit = {"and": a & b, "or": a | b, "xor": a ^ b, "neither": ~(a | b)}[op]
        return np.where(hit, colour, 0)

    return rule, (3, 6), f"{op} -> {colour}"


def self_tiling(rng):
    """kron(x != 0, x): the input placed where the input has colour."""
    return (lambda x: np.kron((x != 0).astype(x.dtype), x)), (2, 4), ""


FAMILIES: tuple[Family, ...] = (
    Family("dihedral", 1, dihedral),
    Family("shift-wrap", 1, shift(True)),
    Family("shift-fill", 1, shift(False)),
    Family("crop", 1, crop),
    Family("upscale", 1, upscale),
    Family("downscale", 1, downscale),
    Family("tile", 1, tile),
    Family("dihedral-upscale", 2, dihedral_then("upscale")),
    Family("dihedral-tile", 2, dihedral_then("tile")),
    Family("dihedral-shift-fill", 2, dihedral_then("shift")),
    Family("mirrored-pair", 2, mirrored_pair),
    Family("self-tiling", 2, self_tiling, one_size=True),
    Family("overlay-halves", 2, overlay_halves, one_size=True),
    Family("completion-1", 2, completion(1), square=True),
    Family("completion-2", 3, completion(2), square=True),
    Family("four-tiles", 4, four_tiles, square=True),
)
FAMILY_NAMES = tuple(f.name for f in FAMILIES)


def _shape(family: Family, rng: np.random.Generator, sides: tuple[int, int]) -> tuple[int, int]:
    lo, hi = sides
    h = int(rng.integers(lo, hi + 1))
    return h, h if family.square else int(rng.integers(lo, hi + 1))


def _input(family: Family, rng: np.random.Generator, shape: tuple[int, int], params: str) -> np.ndarray:
    h, w = shape
    if family.name == "overlay-halves":
        halves = random_grid(rng, h, 2 * w + 1)
        halves[:, w] = 5
        halves[:, :w][halves[:, :w] == 5] = 0
        halves[:, w + 1 :][halves[:, w + 1 :] == 5] = 0
        return halves
    if family.name == "downscale":
        a, b = (int(v) for v in params.split("x"))
        return np.kron(random_grid(rng, h, w), np.ones((a, b), dtype=np.int64))
    return random_grid(rng, h, w)


def make_task(family: Family, index: int, seed: int = 0) -> Task:
    """Task `index` of `family`: one rule, 3 train pairs and a test pair of distinct input sizes."""
    rng = np.random.default_rng([seed, FAMILY_NAMES.index(family.name), index])
    rule, sides, params = family.make(rng)
    pairs, shapes = [], set()
    one_shape = _shape(family, rng, sides)
    while len(pairs) < N_TRAIN + 1:
        x = _input(family, rng, one_shape if family.one_size else _shape(family, rng, sides), params)
        y = rule(x)
        fresh = family.one_size or x.shape not in shapes or len(shapes) > sides[1] - sides[0]
        if not fresh or y.size == 0 or not y.any():
            continue
        shapes.add(x.shape)
        pairs.append({"input": x.tolist(), "output": y.tolist()})
    task_id = f"{family.name}-{index}"
    return task_from_dict({"train": pairs[:N_TRAIN], "test": pairs[N_TRAIN:]}, task_id, f"<{task_id}: {params}>")


def make_tasks(per_family: int, seed: int = 0, families: tuple[str, ...] = FAMILY_NAMES) -> list[Task]:
    return [make_task(f, k, seed) for f in FAMILIES if f.name in families for k in range(per_family)]
