"""ARC-format tasks built from one to nine lattice actions, for probing what LatFormer expresses.

Each family is one way of building an output from lattice actions of the input (the
dihedral group, shifts that wrap or fill, crops, scalings, tilings) and, for the families of
several actions, a cell rule that combines their readings; some also recolour (two colours
swapped, a background that is not 0, one colour for a block with any colour in it). A task
has 3 train pairs and one test pair whose input sizes differ (except in the families of one
size per task, as in ARC's overlays of parts and self-similar tilings), so a solver must
find the rule, not the sizes. The grids are random (`random_grid`): a background of 0 with
two to four colours scattered over 30 to 60 % of the cells, unless a family draws its own.

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


def random_grid(rng: np.random.Generator, h: int, w: int, background: int = 0) -> np.ndarray:
    """A background with two to four other colours scattered over 30 to 60 % of the cells."""
    colours = rng.choice([c for c in range(10) if c != background], size=int(rng.integers(2, 5)), replace=False)
    density = rng.uniform(0.3, 0.6)
    grid = np.where(rng.random((h, w)) < density, rng.choice(colours, size=(h, w)), background)
    if len(np.unique(grid)) < 2:
        grid[rng.integers(h), rng.integers(w)] = colours[0]
    return grid.astype(np.int64)


@dataclass(frozen=True)
class Recipe:
    """One task's rule (input -> output), the input sides it allows, a name for its
    parameters, and how an input of h × w cells is drawn."""

    rule: Callable[[np.ndarray], np.ndarray]
    sides: tuple[int, int]
    params: str
    draw: Callable[[np.random.Generator, int, int], np.ndarray] = random_grid


@dataclass(frozen=True)
class Family:
    """How one family builds a task: `actions` lattice actions; `make(rng)` draws a task's
    recipe."""

    name: str
    actions: int
    make: Callable[[np.random.Generator], Recipe]
    square: bool = False
    one_size: bool = False  # every input of a task has one size, as in ARC's overlays of parts


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
    return Recipe(DIHEDRAL[g], (3, 9), g)


def shift(wrap: bool):
    def make(rng):
        dr, dc = (int(v) for v in rng.integers(-2, 3, size=2))
        if dr == dc == 0:
            dc = 1
        return Recipe(lambda x: _shift(x, dr, dc, wrap), (4, 9), f"{dr},{dc}")

    return make


def crop(rng):
    r, c = (int(v) for v in rng.integers(0, 3, size=2))
    h, w = (int(v) for v in rng.integers(2, 4, size=2))
    return Recipe(lambda x: x[r : r + h, c : c + w], (6, 9), f"{r},{c} {h}x{w}")


def upscale(rng):
    a, b = (int(v) for v in rng.integers(2, 4, size=2))
    return Recipe(lambda x: np.kron(x, np.ones((a, b), dtype=x.dtype)), (2, 5), f"{a}x{b}")


def downscale(rng):
    a, b = (int(v) for v in rng.integers(2, 4, size=2))
    # The input is an up-scaled grid; the rule reads one cell per block.
    def draw(rng, h, w):
        return np.kron(random_grid(rng, h, w), np.ones((a, b), dtype=np.int64))

    return Recipe(lambda x: x[::a, ::b], (2, 5), f"{a}x{b}", draw)


def tile(rng):
    a, b = (int(v) for v in rng.integers(1, 4, size=2))
    if a == b == 1:
        b = 2
    return Recipe(lambda x: np.tile(x, (a, b)), (2, 5), f"{a}x{b}")


def dihedral_then(second: str):
    def make(rng):
        g = _element(rng)
        f = DIHEDRAL[g]
        if second == "upscale":
            k = int(rng.integers(2, 4))
            return Recipe(lambda x: np.kron(f(x), np.ones((k, k), dtype=x.dtype)), (2, 5), f"{g}, up {k}")
        if second == "tile":
            a, b = int(rng.integers(1, 3)), int(rng.integers(2, 4))
            return Recipe(lambda x: np.tile(f(x), (a, b)), (2, 5), f"{g}, tile {a}x{b}")
        dr, dc = (int(v) for v in rng.integers(-2, 3, size=2))
        dc = dc or 1
        return Recipe(lambda x: _shift(f(x), dr, dc, wrap=False), (4, 8), f"{g}, shift {dr},{dc}")

    return make


def mirrored_pair(rng):
    """Two tiles side by side or stacked: the input and a transformed copy."""
    g = _element(rng, SHAPE_KEEPING[1:])
    axis = int(rng.integers(0, 2))
    f = DIHEDRAL[g]
    return Recipe(lambda x: np.concatenate([x, f(x)], axis=axis), (2, 6), f"{g}, axis {axis}")


def four_tiles(rng):
    """A 2x2 tiling of four dihedral images of a square input."""
    names = [str(n) for n in rng.choice(list(DIHEDRAL), size=4)]
    fs = [DIHEDRAL[n] for n in names]
    return Recipe(lambda x: np.block([[fs[0](x), fs[1](x)], [fs[2](x), fs[3](x)]]), (2, 5), " ".join(names))


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

        return Recipe(rule, (3, 9), " ".join(names))

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

    def draw(rng, h, w):  # two halves of h × w without colour 5, and the column of 5 between
        halves = random_grid(rng, h, 2 * w + 1)
        halves[halves == 5] = 0
        halves[:, w] = 5
        return halves

    return Recipe(rule, (3, 6), f"{op} -> {colour}", draw)


def self_tiling(rng):
    """kron(x != 0, x): the input placed where the input has colour."""
    return Recipe(lambda x: np.kron((x != 0).astype(x.dtype), x), (2, 4), "")


def shift_long(rng):
    """A cyclic shift of 3 to 6 cells along at least one axis, on grids of 8 to 13 cells a side."""
    dr, dc = (int(v) * int(rng.choice([-1, 1])) for v in rng.integers(0, 7, size=2))
    if max(abs(dr), abs(dc)) < 3:
        dr = int(rng.integers(3, 7))
    return Recipe(lambda x: _shift(x, dr, dc, wrap=True), (8, 13), f"{dr},{dc}")


def dihedral_recolour(rng):
    """A rotation or reflection, then two colours swapped (both in every input)."""
    g = _element(rng)
    a, b = (int(c) for c in rng.choice(np.arange(1, 10), size=2, replace=False))

    def rule(x):
        y = DIHEDRAL[g](x)
        return np.select([y == a, y == b], [b, a], y)

    def draw(rng, h, w):
        grid = random_grid(rng, h, w)
        cells = rng.choice(h * w, size=2, replace=False)
        grid.reshape(-1)[cells] = (a, b)
        return grid

    return Recipe(rule, (3, 8), f"{g}, {a}<->{b}", draw)


def shift_on_background(rng):
    """A shift with fill on a background that is not 0: the vacated cells take it."""
    background = int(rng.integers(1, 10))
    dr, dc = (int(v) for v in rng.integers(-2, 3, size=2))
    dc = dc or 1

    def rule(x):
        moved = _shift(np.where(x == background, 0, x + 10), dr, dc, wrap=False)
        return np.where(moved == 0, background, moved - 10)

    return Recipe(rule, (4, 9), f"{dr},{dc} on {background}", lambda rng, h, w: random_grid(rng, h, w, background))


def block_any(rng):
    """A 2×2 down-scaling where a cell takes one colour if any cell of its block is coloured
    (half the blocks hold one or two coloured cells anywhere in the block)."""
    colour = int(rng.integers(1, 10))

    def rule(x):
        h, w = x.shape
        return np.where((x.reshape(h // 2, 2, w // 2, 2) != 0).any(axis=(1, 3)), colour, 0)

    def draw(rng, h, w):
        grid = np.zeros((2 * h, 2 * w), dtype=np.int64)
        for i, j in np.argwhere(rng.random((h, w)) < 0.5):
            cells = rng.choice(4, size=int(rng.integers(1, 3)), replace=False)
            for cell in cells:
                grid[2 * i + cell // 2, 2 * j + cell % 2] = rng.integers(1, 10)
        return grid

    return Recipe(rule, (3, 6), f"any -> {colour}", draw)


def nine_tiles(rng):
    """A 3x3 tiling of nine dihedral images of a square input."""
    names = [str(n) for n in rng.choice(list(DIHEDRAL), size=9)]
    fs = [DIHEDRAL[n] for n in names]
    return Recipe(lambda x: np.block([[fs[3 * i + j](x) for j in range(3)] for i in range(3)]), (2, 5), " ".join(names))


def zoom(rng):
    """A 2-3 × 2-3 window at a fixed offset of up to 2 cells, up-scaled 2× or 3×."""
    r, c = (int(v) for v in rng.integers(0, 3, size=2))
    h, w = (int(v) for v in rng.integers(2, 4, size=2))
    f = int(rng.integers(2, 4))
    return Recipe(
        lambda x: np.kron(x[r : r + h, c : c + w], np.ones((f, f), dtype=x.dtype)), (6, 9), f"{r},{c} {h}x{w}, up {f}"
    )


def dihedral_downscale(rng):
    """A rotation or reflection, then one cell of every 2×2 block (the first)."""
    g = _element(rng)
    return Recipe(lambda x: DIHEDRAL[g](x)[::2, ::2], (2, 5), g, lambda rng, h, w: random_grid(rng, 2 * h, 2 * w))


def upscale_tile(rng):
    """An up-scaling by 2, then the up-scaled grid repeated 1×2 or 2×1."""
    a, b = ((1, 2), (2, 1))[int(rng.integers(0, 2))]
    return Recipe(lambda x: np.tile(np.kron(x, np.ones((2, 2), dtype=x.dtype)), (a, b)), (2, 5), f"up 2, tile {a}x{b}")


def block_majority(rng):
    """A 3×3 down-scaling by each block's colour: blocks of one colour, with one or two cells
    of another colour in some of them."""

    def rule(x):
        h, w = x.shape[0] // 3, x.shape[1] // 3
        blocks = x.reshape(h, 3, w, 3).transpose(0, 2, 1, 3).reshape(h, w, 9)
        return np.apply_along_axis(lambda b: np.bincount(b, minlength=10).argmax(), 2, blocks)

    def draw(rng, h, w):
        grid = np.kron(random_grid(rng, h, w), np.ones((3, 3), dtype=np.int64))
        for i, j in np.argwhere(rng.random((h, w)) < 0.5):
            for cell in rng.choice(9, size=int(rng.integers(1, 3)), replace=False):
                grid[3 * i + cell // 3, 3 * j + cell % 3] = rng.integers(0, 10)
        return grid

    return Recipe(rule, (2, 5), "", draw)


def tile_shift(rng):
    """The input tiled 1×2 or 2×1, then the whole result shifted by 1 or 2 cells with fill."""
    a, b = ((1, 2), (2, 1))[rng.integers(2)]
    dr, dc = (0, int(rng.choice([-2, -1, 1, 2]))) if b == 2 else (int(rng.choice([-2, -1, 1, 2])), 0)
    return Recipe(lambda x: _shift(np.tile(x, (a, b)), dr, dc, wrap=False), (3, 6), f"tile {a}x{b}, shift {dr},{dc}")


def sample_upscale(rng):
    """One cell of every 2×2 block (a fixed one), then the result up-scaled 2× or 3×."""
    r, c = (int(v) for v in rng.integers(0, 2, 2))
    k = int(rng.integers(2, 4))
    return Recipe(
        lambda x: np.kron(x[r::2, c::2], np.ones((k, k), dtype=x.dtype)),
        (2, 4),
        f"cell {r},{c}, up {k}",
        lambda rng, h, w: random_grid(rng, 2 * h, 2 * w),
    )


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
    Family("shift-long", 1, shift_long),
    Family("dihedral-recolour", 1, dihedral_recolour),
    Family("shift-background", 1, shift_on_background),
    Family("block-any", 1, block_any),
    Family("nine-tiles", 9, nine_tiles, square=True),
    Family("zoom", 2, zoom),
    Family("dihedral-downscale", 2, dihedral_downscale),
    Family("upscale-tile", 2, upscale_tile),
    Family("block-majority", 1, block_majority),
    Family("tile-shift", 2, tile_shift),
    Family("sample-upscale", 2, sample_upscale),
)
FAMILY_NAMES = tuple(f.name for f in FAMILIES)


def _shape(family: Family, rng: np.random.Generator, sides: tuple[int, int]) -> tuple[int, int]:
    lo, hi = sides
    h = int(rng.integers(lo, hi + 1))
    return h, h if family.square else int(rng.integers(lo, hi + 1))


def make_task(family: Family, index: int, seed: int = 0) -> Task:
    """Task `index` of `family`: one rule, 3 train pairs and a test pair of distinct input sizes."""
    rng = np.random.default_rng([seed, FAMILY_NAMES.index(family.name), index])
    recipe = family.make(rng)
    sides = recipe.sides
    pairs, shapes = [], set()
    one_shape = _shape(family, rng, sides)
    while len(pairs) < N_TRAIN + 1:
        x = recipe.draw(rng, *(one_shape if family.one_size else _shape(family, rng, sides)))
        y = recipe.rule(x)
        fresh = family.one_size or x.shape not in shapes or len(shapes) > sides[1] - sides[0]
        if not fresh or y.size == 0 or not y.any():
            continue
        shapes.add(x.shape)
        pairs.append({"input": x.tolist(), "output": y.tolist()})
    task_id = f"{family.name}-{index}"
    return task_from_dict(
        {"train": pairs[:N_TRAIN], "test": pairs[N_TRAIN:]}, task_id, f"<{task_id}: {recipe.params}>"
    )


def make_tasks(per_family: int, seed: int = 0, families: tuple[str, ...] = FAMILY_NAMES) -> list[Task]:
    return [make_task(f, k, seed) for f in FAMILIES if f.name in families for k in range(per_family)]
