"""Random chains of one to four lattice actions, as ARC tasks.

The families of `arcsolve.bench.lattice_tasks` are kinds chosen by hand; a chain draws its
actions at random, in any order: a rotation or reflection, a shift (cyclic or with fill),
an up-scaling, a down-scaling by sampling, a tiling, or a swap of two colours (`KINDS`), and
on request a padding, a tiling of mirror images or a crop of fixed margins (`MORE_KINDS`). Chains that
no single lattice action writes (a tiling then shifted, a sampling then up-scaled, a shift
then tiled) are what they measure. Inputs are scattered colours, or on request a few small
objects on a background of 0 (`INPUTS`), where a sparse grid leaves more actions that agree
with the pairs. Input sizes are drawn so that every down-scaling divides its grid; a chain
whose outputs would exceed 30 cells a side, or vanish (a crop wider than its grid), is
drawn again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from arcsolve.bench.lattice_tasks import DIHEDRAL, N_TRAIN, _shift, random_grid
from arcsolve.tasks import Task, task_from_dict

KINDS = ("dihedral", "wrap", "fill", "up", "tile", "down", "swap")
INPUTS = ("random", "objects")  # scattered cells, or a few small objects on a background of 0
MORE_KINDS = ("pad", "mirror", "crop")  # drawn only when asked for, so the chains of KINDS stay as they are
MAX_SIDE = 30


@dataclass(frozen=True)
class Step:
    """One action of a chain: its kind, its parameters in words, and what it does to a grid
    (None where it cannot apply, a down-scaling that does not divide the grid)."""

    kind: str
    params: str
    apply: Callable[[np.ndarray], np.ndarray | None]


def _factors(rng: np.random.Generator, most: int) -> tuple[int, int]:
    a, b = 1, 1
    while (a, b) == (1, 1):
        a, b = (int(v) for v in rng.integers(1, most + 1, 2))
    return a, b


def _mirror_tiled(x: np.ndarray, a: int, b: int) -> np.ndarray:
    """An a×b tiling whose tile (i, j) is flipped upside down when i is odd, left-right when j is."""
    return np.concatenate(
        [np.concatenate([x[:: -1 if i % 2 else 1, :: -1 if j % 2 else 1] for j in range(b)], 1) for i in range(a)], 0
    )


def _cropped(x: np.ndarray, top: int, bottom: int, left: int, right: int) -> np.ndarray | None:
    """`x` without the given margins, or None where they leave no cell."""
    h, w = x.shape
    if top + bottom >= h or left + right >= w:
        return None
    return x[top : h - bottom, left : w - right]


def draw_step(rng: np.random.Generator, swap: tuple[int, int], kinds: tuple[str, ...] = KINDS) -> Step:
    """One random action of one of `kinds`; `swap` is the task's pair of colours for a swap."""
    kind = kinds[rng.integers(len(kinds))]
    if kind == "dihedral":
        name = list(DIHEDRAL)[1 + rng.integers(len(DIHEDRAL) - 1)]
        return Step(kind, name, DIHEDRAL[name])
    if kind in ("wrap", "fill"):
        dr, dc = 0, 0
        while (dr, dc) == (0, 0):
            dr, dc = (int(v) for v in rng.integers(-2, 3, 2))
        return Step(kind, f"{dr},{dc}", lambda x: _shift(x, dr, dc, wrap=kind == "wrap"))
    if kind == "up":
        a, b = _factors(rng, 3)
        return Step(kind, f"{a}x{b}", lambda x: np.kron(x, np.ones((a, b), dtype=x.dtype)))
    if kind == "tile":
        a, b = _factors(rng, 3)
        return Step(kind, f"{a}x{b}", lambda x: np.tile(x, (a, b)))
    if kind == "down":
        a, b = _factors(rng, 2)
        return Step(kind, f"{a}x{b}", lambda x: None if x.shape[0] % a or x.shape[1] % b else x[::a, ::b])
    if kind in ("pad", "crop"):
        margins = (0, 0, 0, 0)
        while margins == (0, 0, 0, 0):
            margins = tuple(int(v) for v in rng.integers(0, 3, 4))
        top, bottom, left, right = margins
        words = f"top {top} bottom {bottom} left {left} right {right}"
        if kind == "pad":
            return Step(kind, words, lambda x: np.pad(x, ((top, bottom), (left, right))))
        return Step(kind, words, lambda x: _cropped(x, top, bottom, left, right))
    if kind == "mirror":
        a, b = _factors(rng, 3)
        return Step(kind, f"{a}x{b}", lambda x: _mirror_tiled(x, a, b))
    c1, c2 = swap

    def swapped(x: np.ndarray) -> np.ndarray:
        y = x.copy()
        y[x == c1], y[x == c2] = c2, c1
        return y

    return Step(kind, f"{c1}<->{c2}", swapped)


def object_grid(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """One to three objects of one colour each, up to 3×3 cells (about 70 % of their box
    filled, its top-left cell always), placed anywhere on a background of 0; they may overlap."""
    grid = np.zeros((h, w), dtype=np.int64)
    for _ in range(int(rng.integers(1, 4))):
        oh, ow = int(rng.integers(1, min(4, h) + 1)), int(rng.integers(1, min(4, w) + 1))
        top, left = int(rng.integers(0, h - oh + 1)), int(rng.integers(0, w - ow + 1))
        colour = int(rng.integers(1, 10))
        shape = rng.random((oh, ow)) < 0.7
        shape[0, 0] = True
        grid[top : top + oh, left : left + ow][shape] = colour
    return grid


def run_chain(steps: list[Step], x: np.ndarray) -> np.ndarray | None:
    for step in steps:
        x = step.apply(x)
        if x is None:
            return None
    return x


def _draw(
    index: int, seed: int, kinds: tuple[str, ...] = KINDS, n_train: int = N_TRAIN, inputs: str = "random"
) -> tuple[list[Step], list[dict]]:
    """Chain `index`'s actions and its n_train + 1 pairs (as JSON dicts): inputs of 2 to 8
    cells a side with scattered colours (`random_grid`), or with `inputs` "objects" of 3 to
    12 cells a side with a few objects (`object_grid`), drawn from a stream of their own."""
    objects = inputs == "objects"
    rng = np.random.default_rng([seed, 2000 if objects else 1000, index])
    low, high = (3, 13) if objects else (2, 9)
    length = 1 + index % 4
    while True:
        swap = tuple(int(v) for v in rng.choice(np.arange(1, 10), 2, replace=False))
        steps = [draw_step(rng, swap, kinds) for _ in range(length)]
        pairs, shapes = [], set()
        for _ in range(200):
            h, w = (int(v) for v in rng.integers(low, high, 2))
            if (h, w) in shapes:
                continue
            x = object_grid(rng, h, w) if objects else random_grid(rng, h, w)
            if any(s.kind == "swap" for s in steps):  # both colours in every input
                x[rng.integers(h), rng.integers(w)] = swap[0]
                x[rng.integers(h), rng.integers(w)] = swap[1]
            y = run_chain(steps, x)
            if y is None or y.size == 0 or max(y.shape) > MAX_SIDE or not y.any():
                continue
            shapes.add((h, w))
            pairs.append({"input": x.tolist(), "output": y.tolist()})
            if len(pairs) == n_train + 1:
                return steps, pairs


def chain_id(index: int) -> str:
    return f"chain{1 + index % 4}-{index:03d}"


def chain_words(
    index: int, seed: int = 0, kinds: tuple[str, ...] = KINDS, n_train: int = N_TRAIN, inputs: str = "random"
) -> str:
    """Chain task `index`'s actions in order, in words ("tile 1x2; fill 0,2")."""
    steps, _ = _draw(index, seed, kinds, n_train, inputs)
    return "; ".join(f"{s.kind} {s.params}" for s in steps)


def make_chain_task(
    index: int, seed: int = 0, kinds: tuple[str, ...] = KINDS, n_train: int = N_TRAIN, inputs: str = "random"
) -> Task:
    """Chain task `index`: a chain of 1 + index % 4 actions of `kinds`, `n_train` train pairs
    and a test pair of distinct input sizes (2 to 8 cells a side; 3 to 12 with `inputs`
    "objects"). The pairs are drawn in order, so fewer train pairs are the first of the
    default's, then a test pair."""
    _, pairs = _draw(index, seed, kinds, n_train, inputs)
    task_id = chain_id(index)
    return task_from_dict({"train": pairs[:n_train], "test": pairs[n_train:]}, task_id, f"<{task_id}>")


def make_chain_tasks(
    count: int, seed: int = 0, kinds: tuple[str, ...] = KINDS, n_train: int = N_TRAIN, inputs: str = "random"
) -> list[Task]:
    return [make_chain_task(k, seed, kinds, n_train, inputs) for k in range(count)]


def parse_kinds(text: str) -> tuple[str, ...]:
    """A comma list of kinds of action ("dihedral,pad"), each of KINDS + MORE_KINDS, in the
    order given; ValueError naming the first unknown one."""
    kinds = tuple(part.strip() for part in text.split(",") if part.strip())
    for kind in kinds:
        if kind not in KINDS + MORE_KINDS:
            raise ValueError(f"unknown kind of action '{kind}' (known: {', '.join(KINDS + MORE_KINDS)})")
    if not kinds:
        raise ValueError("no kind of action given")
    return kinds
