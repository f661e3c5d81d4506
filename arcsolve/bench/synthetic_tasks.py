"""Synthetic geometric tasks (LatFormer paper §5.1, Appendix B.1): an ARC grid in, the same
grid translated, rotated, reflected or scaled out.

Inputs are grids drawn from ARC-AGI-1 (every train/test input and output of
`arc1/training` whose sides fit the canvas), padded with colour 0 at the bottom and right
to a `canvas`×`canvas` lattice (30×30 in the paper; the reduced CPU runs use smaller ones);
grids that coincide after padding are kept once and one-colour grids are dropped.
Input and output are both canvas×canvas. With S = canvas, the categories are:

  * translation (dr, dc), dr, dc ∈ [1, S−1]: y = np.roll(x, (dr, dc), (0, 1)), cyclic on the
    S×S lattice. The paper samples a few shifts per run; here `sample_transforms` draws
    `count` distinct shifts with the run's seed.
  * rotation by 90°, 180°, 270° counter-clockwise: y = np.rot90(x, k).
  * reflection: flip_rows (np.flipud), flip_cols (np.fliplr), transpose (x.T, main
    diagonal), anti_transpose (np.rot90(x, 2).T, anti-diagonal).
  * scaling by (fr, fc) ∈ [2, 5]², up and down (32 tasks):
      up:   y[i, j] = x[i // fr, j // fc], i.e. np.kron(x, ones((fr, fc)))[:S, :S]: the
            top-left ⌈S/fr⌉×⌈S/fc⌉ block of x blown up and cropped to the canvas.
      down: the input is itself an up-scaled grid, x = up(g), so its fr×fc blocks are
            constant, and y[i, j] = x[(i·fr) mod S, (j·fc) mod S]: one cell per block, read
            cyclically, which for fr | S is np.tile(x[::fr, ::fc], (fr, fc)). When a factor
            does not divide S the last block is partial (also true of the paper's ×4 on 30).

Each task has `n_train` training pairs and `n_test` (100) test pairs, all determined by the
seed. Test grids are drawn first, so a task's test set is the same for every n_train and
smaller training sets are prefixes of larger ones: accuracy curves over n_train are nested.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import cache

import numpy as np

from arcsolve import symmetry
from arcsolve.errors import ArcsolveError
from arcsolve.loaders import load_tasks

CATEGORIES = ("translation", "rotation", "reflection", "scaling")
SCALE_FACTORS = (2, 3, 4, 5)
REFLECTION_MAPS = {
    "flip_rows": symmetry.flip_v,
    "flip_cols": symmetry.flip_h,
    "transpose": symmetry.transpose,
    "anti_transpose": symmetry.antitranspose,
}
REFLECTIONS = tuple(REFLECTION_MAPS)


@dataclass(frozen=True)
class Transform:
    """One task's transformation: `kind` with its parameters (shift, quarter turns, factors)."""

    category: str
    kind: str  # "shift", "rot90", one of REFLECTIONS, "up", "down"
    params: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        return self.kind + "".join(f"_{p}" for p in self.params)


@dataclass(frozen=True)
class SyntheticTask:
    transform: Transform
    canvas: int
    train: tuple[tuple[np.ndarray, np.ndarray], ...]  # (input, output), both canvas×canvas
    test: tuple[tuple[np.ndarray, np.ndarray], ...]

    def __repr__(self) -> str:
        sizes = f"{len(self.train)} train | {len(self.test)} test | {self.canvas}×{self.canvas}"
        return f"<SyntheticTask {self.transform.name} | {sizes}>"


def upscale(x: np.ndarray, fr: int, fc: int) -> np.ndarray:
    """y[i, j] = x[i // fr, j // fc] on the same canvas (blow up the top-left block, crop)."""
    S, T = x.shape
    return x[np.ix_(np.arange(S) // fr, np.arange(T) // fc)]


def downscale(x: np.ndarray, fr: int, fc: int) -> np.ndarray:
    """y[i, j] = x[(i·fr) mod S, (j·fc) mod T]: one cell per fr×fc block, read cyclically."""
    S, T = x.shape
    return x[np.ix_((np.arange(S) * fr) % S, (np.arange(T) * fc) % T)]


def apply(transform: Transform, x: np.ndarray) -> np.ndarray:
    """The output grid of `transform` on the canvas-sized input `x`."""
    kind, p = transform.kind, transform.params
    if kind == "shift":
        return np.roll(x, p, axis=(0, 1))
    if kind == "rot90":
        return np.rot90(x, p[0])
    if kind in REFLECTION_MAPS:
        return REFLECTION_MAPS[kind](x)
    if kind == "up":
        return upscale(x, *p)
    if kind == "down":
        return downscale(x, *p)
    raise ValueError(f"unknown transform kind {kind!r}")


def all_transforms(category: str) -> list[Transform]:
    """Every transformation of a finite category (translation is sampled: see sample_transforms)."""
    if category == "rotation":
        return [Transform(category, "rot90", (k,)) for k in (1, 2, 3)]
    if category == "reflection":
        return [Transform(category, kind) for kind in REFLECTIONS]
    if category == "scaling":
        return [
            Transform(category, kind, (fr, fc))
            for kind in ("up", "down")
            for fr in SCALE_FACTORS
            for fc in SCALE_FACTORS
        ]
    raise ValueError(f"category {category!r} has no finite list of transforms")


def sample_transforms(category: str, count: int, canvas: int, rng: np.random.Generator) -> list[Transform]:
    """`count` distinct tasks of a category (all of them where it has fewer): random shifts in
    [1, S−1]² for translation; for scaling, up- and down-scaling in turn with the row factor
    cycling through 2..5 (so even a small sample holds both directions and the factor 5),
    the column factor drawn at random; a random subset of the category's transforms otherwise."""
    if category == "translation":
        cells = rng.choice((canvas - 1) ** 2, size=min(count, (canvas - 1) ** 2), replace=False)
        return [Transform(category, "shift", (int(c // (canvas - 1)) + 1, int(c % (canvas - 1)) + 1)) for c in cells]
    if category == "scaling":
        # one shuffled queue of column factors per (direction, row factor), visited in turn
        queues = {
            (kind, fr): [Transform(category, kind, (fr, int(fc))) for fc in rng.permutation(SCALE_FACTORS)]
            for fr in SCALE_FACTORS
            for kind in ("up", "down")
        }
        order = [queue[i] for i in range(len(SCALE_FACTORS)) for queue in queues.values()]
        return order[:count]
    options = all_transforms(category)
    order = rng.permutation(len(options))[:count]
    return [options[i] for i in order]


@cache
def arc_grids(canvas: int) -> tuple[np.ndarray, ...]:
    """Every ARC-AGI-1 training-set grid whose sides are ≤ canvas, padded with 0, keeping
    distinct padded grids only and dropping one-colour ones (every transform fixes them)."""
    seen, grids = set(), []
    for task in load_tasks("arc1/training"):
        for pair in (*task.train, *task.test):
            for grid in (pair.input, pair.output):
                g = grid.to_numpy()
                if max(g.shape) > canvas:
                    continue
                padded = np.zeros((canvas, canvas), dtype=np.int64)
                padded[: g.shape[0], : g.shape[1]] = g
                if padded.tobytes() in seen or (padded == padded[0, 0]).all():
                    continue
                seen.add(padded.tobytes())
                grids.append(padded)
    return tuple(grids)


def make_task(transform: Transform, n_train: int, canvas: int = 30, n_test: int = 100, seed: int = 0) -> SyntheticTask:
    """A task of `transform` with distinct ARC input grids; deterministic given the seed."""
    pool = arc_grids(canvas)
    if n_train + n_test > len(pool):
        raise ArcsolveError(
            f"{n_train + n_test} pairs asked for, only {len(pool)} ARC grids fit a {canvas}×{canvas} canvas"
        )
    # the seed and the transform pick the grids, so tasks of one run draw different grids
    rng = np.random.default_rng([seed, zlib.crc32(transform.name.encode())])
    order = rng.permutation(len(pool))
    test_idx, train_idx = order[:n_test], order[n_test : n_test + n_train]

    def pair(i: int) -> tuple[np.ndarray, np.ndarray]:
        x = pool[i]
        if transform.kind == "down":  # input is an up-scaled grid, so each block is one colour
            x = upscale(x, *transform.params)
        return np.ascontiguousarray(x), np.ascontiguousarray(apply(transform, x))

    return SyntheticTask(transform, canvas, tuple(pair(i) for i in train_idx), tuple(pair(i) for i in test_idx))
