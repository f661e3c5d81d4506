"""Small tasks of the core-knowledge concepts ARC is built on, and the solved count per concept.

    python benchmarks/concept_probes.py write benchmarks/results/concept_probes/tasks --seed 1
    OMP_NUM_THREADS=1 arcsolve eval benchmarks/results/concept_probes/tasks --model dsl \\
        --jobs 2 --time-budget 3 --report benchmarks/results/concept_probes
    python benchmarks/concept_probes.py table benchmarks/results/concept_probes

Each concept is a random generator of input and output grids for one rule that people name
when they describe ARC tasks: the largest object cropped, noise cleaned up, objects fallen
to the bottom or onto a floor, a bar extended to the edge, objects counted, hollow boxes
marked, insides filled, the odd shape marked, the centre cell marked, boxes closed, a
grid's centre cropped, the topmost object marked, a shape repeated towards pieces of it,
the gaps in lines mended, the noise on a shape recoloured, sparse cells pooled, line shapes
recoloured by their form, pieces moved into the holes of their shape, facing blocks
bridged, a board's corner and centre blocks marked, rays from a box's corners, a ring's
contents cropped, corner pieces fitted together, a marked panel moved where its marker
points, a shape fitted between posts of its colours, a block smeared towards its marked
corners, cells snapped onto a block, a box drawn within markers, a frame drawn again around
the other hole of its size, a diagonal turned back by a wall, rays stepping past blocks, a
ring around a crossing, a cup brimming over, stripes in a key's colours, a line drawn
behind a shape moved onto a wall, stairs grown from a bar, and so on. The grids are drawn
afresh for every pair: sizes, places, colours and counts vary, so a solver must find the
rule. None of them comes from an ARC set. They probe which concepts a solver covers, not
how well it generalizes: a solver's steps may have been written with these tasks in view.

`write` writes three tasks per concept (three train pairs and one test each) as ARC JSON
files (`<concept>-<k>.json`); `--train-pairs` and `--tests` change those numbers. Fewer
train pairs and several tests ask more of a solver: the pairs leave more rules open, and a
task counts as solved only when every test output is right:

    python benchmarks/concept_probes.py write /tmp/probes_2x3 --seed 5 --train-pairs 2 --tests 3

`table` reads an eval report and writes, beside it, `concepts.json`: the solved count per
concept and model.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import ndimage

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lattice_variants import write_or_table  # noqa: E402

Grid = np.ndarray
Rng = np.random.Generator
Pair = tuple[Grid, Grid] | None  # None: this draw does not show the rule; draw again
TASKS_PER_CONCEPT = 3
PAIRS = 4  # three train pairs and one test pair
DRAWS = 200  # tries to draw the pairs of one task


def _canvas(rng: Rng, lo: int = 8, hi: int = 14) -> Grid:
    """An empty grid with sides in [lo, hi)."""
    return np.zeros((int(rng.integers(lo, hi)), int(rng.integers(lo, hi))), dtype=int)


def _colour(rng: Rng, lo: int = 1, hi: int = 10) -> int:
    return int(rng.integers(lo, hi))


def _free(g: Grid, y: int, x: int, h: int, w: int, gap: int) -> bool:
    """Whether the h x w box at (y, x) and `gap` cells around it are all empty."""
    return not g[max(0, y - gap) : y + h + gap, max(0, x - gap) : x + w + gap].any()


def _rectangles(rng: Rng, g: Grid, n: int, colour: Callable[[int], int], sides=(1, 3), gap: int = 1):
    """Up to n solid rectangles drawn where they keep `gap` empty cells from the others:
    a list of (top, left, height, width, colour)."""
    placed = []
    for _ in range(DRAWS):
        if len(placed) == n:
            break
        h, w = (int(v) for v in rng.integers(sides[0], sides[1] + 1, 2))
        y, x = int(rng.integers(0, g.shape[0] - h + 1)), int(rng.integers(0, g.shape[1] - w + 1))
        if _free(g, y, x, h, w, gap):
            c = colour(len(placed))
            g[y : y + h, x : x + w] = c
            placed.append((y, x, h, w, c))
    return placed


def _blob(rng: Rng, h: int, w: int) -> Grid:
    """A random 4-connected shape that touches every side of its h x w box."""
    while True:
        mask = rng.random((h, w)) < 0.7
        if (ndimage.label(mask)[1] == 1 and mask[0].any() and mask[-1].any()
                and mask[:, 0].any() and mask[:, -1].any()):
            return mask


def _blobs(rng: Rng, g: Grid, n: int, colour: Callable[[int], int], sides=(2, 4), gap: int = 1):
    """Up to n random shapes drawn apart: a list of (top, left, mask, colour)."""
    placed = []
    for _ in range(DRAWS):
        if len(placed) == n:
            break
        h, w = (int(v) for v in rng.integers(sides[0], sides[1] + 1, 2))
        y, x = int(rng.integers(0, g.shape[0] - h + 1)), int(rng.integers(0, g.shape[1] - w + 1))
        if _free(g, y, x, h, w, gap):
            mask, c = _blob(rng, h, w), colour(len(placed))
            g[y : y + h, x : x + w][mask] = c
            placed.append((y, x, mask, c))
    return placed


def _paint(g: Grid, blob, colour: int) -> None:
    y, x, mask, _ = blob
    g[y : y + mask.shape[0], x : x + mask.shape[1]][mask] = colour


def _crop(g: Grid, blob) -> Grid:
    y, x, mask, _ = blob
    return g[y : y + mask.shape[0], x : x + mask.shape[1]].copy()


def _unique_max(values) -> int | None:
    """The index of the one largest value, or None on a tie."""
    values = list(values)
    best = max(values)
    return values.index(best) if values.count(best) == 1 else None


# --- the concepts ------------------------------------------------------------------------


def crop_largest(rng: Rng) -> Pair:
    """Crop the largest object."""
    g = _canvas(rng)
    blobs = _blobs(rng, g, int(rng.integers(3, 5)), lambda i: _colour(rng), sides=(1, 5))
    best = _unique_max(b[2].sum() for b in blobs) if len(blobs) > 1 else None
    return None if best is None else (g, _crop(g, blobs[best]))


def crop_odd_colour(rng: Rng) -> Pair:
    """Crop the one object of another colour than the rest."""
    g = _canvas(rng)
    odd, common = (int(c) for c in rng.choice(np.arange(1, 10), 2, replace=False))
    blobs = _blobs(rng, g, int(rng.integers(3, 5)), lambda i: odd if i == 0 else common)
    return None if len(blobs) < 3 else (g, _crop(g, blobs[0]))


def clean_noise(rng: Rng) -> Pair:
    """Erase the scattered cells of a noise colour."""
    g, c = _canvas(rng), _colour(rng)
    _rectangles(rng, g, int(rng.integers(2, 4)), lambda i: c, sides=(2, 4))
    out, noise = g.copy(), _colour(rng)
    for _ in range(int(rng.integers(4, 9))):
        y, x = int(rng.integers(0, g.shape[0])), int(rng.integers(0, g.shape[1]))
        if g[y, x] == 0:
            g[y, x] = noise
    return g, out


def fall_to_bottom(rng: Rng) -> Pair:
    """Every object falls, whole, to the bottom edge."""
    g = _canvas(rng)
    blobs = _blobs(rng, g, int(rng.integers(1, 3)), lambda i: _colour(rng), sides=(2, 3), gap=0)
    out, columns = np.zeros_like(g), set()
    for _, x, mask, c in blobs:
        spans = set(range(x, x + mask.shape[1]))
        if spans & columns:
            return None
        columns |= spans
        _paint(out, (g.shape[0] - mask.shape[0], x, mask, c), c)
    return g, out


def extend_bar(rng: Rng) -> Pair:
    """A two-cell bar (grey, then red) grows red cells from its red end to the edge."""
    g = _canvas(rng, 10, 15)
    h, w = g.shape
    out = g.copy()
    for _ in range(int(rng.integers(1, 3))):
        y, x = int(rng.integers(2, h - 2)), int(rng.integers(2, w - 2))
        dy, dx = [(0, 1), (0, -1), (1, 0), (-1, 0)][int(rng.integers(4))]
        path = [(y + k * dy, x + k * dx) for k in range(max(h, w)) if 0 <= y + k * dy < h and 0 <= x + k * dx < w]
        box = [(y - dy, x - dx), *path]  # the bar and where it grows, with a cell of room around
        if any(out[max(0, a - 1) : a + 2, max(0, b - 1) : b + 2].any() for a, b in box):
            continue
        g[y - dy, x - dx], g[y, x] = 5, 2
        out[y - dy, x - dx] = 5
        for a, b in path:
            out[a, b] = 2
    return g, out


def count_objects(rng: Rng) -> Pair:
    """A row of as many cells as there are objects, in their colour."""
    g, c, n = _canvas(rng), _colour(rng), int(rng.integers(1, 7))
    if len(_blobs(rng, g, n, lambda i: c, sides=(1, 3))) != n:
        return None
    return g, np.full((1, n), c)


def mark_hollow(rng: Rng) -> Pair:
    """Hollow boxes turn red; solid ones stay blue."""
    g = _canvas(rng, 10, 15)
    boxes = _rectangles(rng, g, int(rng.integers(2, 5)), lambda i: 1, sides=(3, 4))
    out = g.copy()
    for y, x, h, w, _ in boxes:
        if rng.random() < 0.5:
            g[y + 1 : y + h - 1, x + 1 : x + w - 1] = 0
            out[y : y + h, x : x + w] = 2
            out[y + 1 : y + h - 1, x + 1 : x + w - 1] = 0
    return g, out


def fill_inside(rng: Rng) -> Pair:
    """The insides of box outlines are filled yellow."""
    g, colour = _canvas(rng, 10, 15), _colour(rng)
    out = g.copy()
    for y, x, h, w, c in _rectangles(rng, g, int(rng.integers(1, 3)), lambda i: colour, sides=(3, 5)):
        g[y + 1 : y + h - 1, x + 1 : x + w - 1] = 0
        out[y : y + h, x : x + w] = c
        out[y + 1 : y + h - 1, x + 1 : x + w - 1] = 4
    return g, out


def mark_odd_shape(rng: Rng) -> Pair:
    """Among copies of one shape, the one of another shape turns azure."""
    g, c = _canvas(rng, 10, 14), _colour(rng, 1, 8)
    common = _blob(rng, 3, 3)
    odd = _blob(rng, 3, 3)
    if (odd == common).all():
        return None
    placed = []
    for _ in range(DRAWS):
        if len(placed) == int(rng.integers(3, 5)):
            break
        y, x = int(rng.integers(0, g.shape[0] - 2)), int(rng.integers(0, g.shape[1] - 2))
        if _free(g, y, x, 3, 3, 1):
            blob = (y, x, odd if not placed else common, c)
            _paint(g, blob, c)
            placed.append(blob)
    if len(placed) < 3:
        return None
    out = g.copy()
    _paint(out, placed[0], 8)
    return g, out


def colour_by_orientation(rng: Rng) -> Pair:
    """Grey lines turn blue if they lie across, red if they stand up."""
    g = _canvas(rng, 10, 15)
    h, w = g.shape
    out = g.copy()
    for _ in range(int(rng.integers(2, 5))):
        n = int(rng.integers(2, 5))
        if rng.random() < 0.5:
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w - n))
            if _free(g, y, x, 1, n, 1):
                g[y, x : x + n], out[y, x : x + n] = 5, 1
        else:
            y, x = int(rng.integers(0, h - n)), int(rng.integers(0, w))
            if _free(g, y, x, n, 1, 1):
                g[y : y + n, x], out[y : y + n, x] = 5, 2
    return g, out


def sort_bars(rng: Rng) -> Pair:
    """Bars standing on the bottom are sorted, shortest first."""
    w, h = int(rng.integers(4, 8)), int(rng.integers(8, 10))
    heights, c = rng.choice(np.arange(1, h + 1), w, replace=False), _colour(rng)
    g, out = np.zeros((h, w), dtype=int), np.zeros((h, w), dtype=int)
    for x, (a, b) in enumerate(zip(heights, sorted(heights), strict=True)):
        g[h - a :, x], out[h - b :, x] = c, c
    return g, out


def mark_centre(rng: Rng) -> Pair:
    """The centre cell of each solid box turns maroon."""
    g, c = _canvas(rng, 10, 15), _colour(rng, 1, 9)
    boxes = _rectangles(rng, g, int(rng.integers(1, 3)), lambda i: c, sides=(3, 5))
    out = g.copy()
    for y, x, h, w, _ in boxes:
        if h % 2 == 0 or w % 2 == 0:
            return None
        out[y + h // 2, x + w // 2] = 9
    return g, out


def copy_to_markers(rng: Rng) -> Pair:
    """A shape is copied onto each grey marker, centred on it."""
    g = _canvas(rng, 12, 16)
    h, w = g.shape
    shape, c = _blob(rng, 3, 3), _colour(rng, 1, 5)
    y, x = int(rng.integers(0, h - 2)), int(rng.integers(0, w - 2))
    _paint(g, (y, x, shape, c), c)
    out, copies = g.copy(), 0
    for _ in range(DRAWS):
        if copies == 2:
            break
        y, x = int(rng.integers(0, h - 2)), int(rng.integers(0, w - 2))
        if _free(out, y, x, 3, 3, 1):
            g[y + 1, x + 1] = 5
            _paint(out, (y, x, shape, c), c)
            copies += 1
    return g, out


def keep_above_line(rng: Rng) -> Pair:
    """Of the cells on both sides of a grey line, only those above it stay."""
    g = _canvas(rng, 10, 14)
    h, w = g.shape
    line = int(rng.integers(3, h - 3))
    g[line] = 5
    out = g.copy()
    for _ in range(int(rng.integers(4, 8))):
        y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
        if g[y, x] == 0:
            g[y, x], out[y, x] = 3, 3 if y < line else 0
    return g, out


def cells_fall(rng: Rng) -> Pair:
    """Every cell falls to the bottom of its column, in order."""
    g = _canvas(rng, 6, 10)
    h, w = g.shape
    cells = rng.random((h, w)) < 0.25
    g[cells] = rng.integers(1, 10, int(cells.sum()))
    out = np.zeros_like(g)
    for x in range(w):
        column = g[:, x][g[:, x] != 0]
        out[h - len(column) :, x] = column
    return g, out


def colour_by_size(rng: Rng) -> Pair:
    """Each grey object takes the colour numbered by its size."""
    g = _canvas(rng, 10, 15)
    out = g.copy()
    for blob in _blobs(rng, g, int(rng.integers(3, 6)), lambda i: 5, sides=(1, 3)):
        _paint(out, blob, min(int(blob[2].sum()), 9))
    return g, out


def mark_largest(rng: Rng) -> Pair:
    """The largest grey object turns red."""
    g = _canvas(rng, 10, 15)
    blobs = _blobs(rng, g, int(rng.integers(3, 5)), lambda i: 5, sides=(1, 4))
    best = _unique_max(b[2].sum() for b in blobs) if len(blobs) > 1 else None
    if best is None:
        return None
    out = g.copy()
    _paint(out, blobs[best], 2)
    return g, out


def connect_pairs(rng: Rng) -> Pair:
    """Two cells of a colour on one row or column are joined by a line of it."""
    g = _canvas(rng, 10, 15)
    h, w = g.shape
    out = g.copy()
    for _ in range(int(rng.integers(1, 3))):
        c = _colour(rng)
        if rng.random() < 0.5:
            y = int(rng.integers(0, h))
            a, b = sorted(int(v) for v in rng.choice(w, 2, replace=False))
            if b - a >= 2 and not out[y].any():
                g[y, a] = g[y, b] = c
                out[y, a : b + 1] = c
        else:
            x = int(rng.integers(0, w))
            a, b = sorted(int(v) for v in rng.choice(h, 2, replace=False))
            if b - a >= 2 and not out[a : b + 1, x].any() and not g[:, x].any():
                g[a, x] = g[b, x] = c
                out[a : b + 1, x] = c
    return g, out


def mark_topmost(rng: Rng) -> Pair:
    """The topmost yellow object turns red."""
    g = _canvas(rng, 10, 15)
    blobs = _blobs(rng, g, int(rng.integers(3, 5)), lambda i: 4, sides=(1, 3))
    tops = sorted(b[0] for b in blobs)
    if len(tops) < 2 or tops[0] == tops[1]:
        return None
    out = g.copy()
    _paint(out, min(blobs, key=lambda b: b[0]), 2)
    return g, out


def keep_repeated_shape(rng: Rng) -> Pair:
    """Of four shapes, only the two that are alike stay."""
    g = _canvas(rng, 12, 15)
    shapes = [_blob(rng, 3, 3) for _ in range(3)]
    if any((shapes[i] == shapes[j]).all() for i in range(3) for j in range(i)):
        return None
    order = [0, 0, 1, 2]
    rng.shuffle(order)
    out = np.zeros_like(g)
    for k in order:
        for _ in range(DRAWS):
            y, x = int(rng.integers(0, g.shape[0] - 2)), int(rng.integers(0, g.shape[1] - 2))
            if _free(g, y, x, 3, 3, 1):
                _paint(g, (y, x, shapes[k], 6), 6)
                if k == 0:
                    _paint(out, (y, x, shapes[k], 6), 6)
                break
    return g, out


def mirror_across_line(rng: Rng) -> Pair:
    """The left half is mirrored onto the empty right half, across a grey line."""
    h, w = int(rng.integers(6, 10)), int(rng.integers(3, 6))
    g = np.zeros((h, 2 * w + 1), dtype=int)
    g[:, w] = 5
    cells = rng.random((h, w)) < 0.3
    g[:, :w][cells] = rng.integers(1, 5, int(cells.sum()))
    out = g.copy()
    out[:, w + 1 :] = g[:, :w][:, ::-1]
    return g, out


def keep_solid(rng: Rng) -> Pair:
    """Hollow boxes are erased; solid ones stay."""
    g = _canvas(rng, 10, 15)
    out, hollow = g.copy(), 0
    for y, x, h, w, _ in _rectangles(rng, g, int(rng.integers(2, 5)), lambda i: 3, sides=(3, 4)):
        out[y : y + h, x : x + w] = 3
        if rng.random() < 0.5:
            g[y + 1 : y + h - 1, x + 1 : x + w - 1] = 0
            out[y : y + h, x : x + w] = 0
            hollow += 1
    return (g, out) if hollow else None


def crop_inside_frame(rng: Rng) -> Pair:
    """Crop what an azure frame holds, on a noisy grid."""
    g = _canvas(rng, 12, 16)
    h, w = g.shape
    cells = rng.random((h, w)) < 0.25
    g[cells] = rng.integers(1, 5, int(cells.sum()))
    fh, fw = int(rng.integers(4, 7)), int(rng.integers(4, 7))
    y, x = int(rng.integers(0, h - fh)), int(rng.integers(0, w - fw))
    g[y, x : x + fw] = g[y + fh - 1, x : x + fw] = 8
    g[y : y + fh, x] = g[y : y + fh, x + fw - 1] = 8
    return g, g[y + 1 : y + fh - 1, x + 1 : x + fw - 1].copy()


def close_box(rng: Rng) -> Pair:
    """A box outline with a cell missing from its top or bottom side is closed."""
    g = _canvas(rng, 10, 14)
    boxes = _rectangles(rng, g, int(rng.integers(1, 3)), lambda i: 1, sides=(4, 6))
    for y, x, h, w, _ in boxes:
        g[y + 1 : y + h - 1, x + 1 : x + w - 1] = 0
    out = g.copy()
    for y, x, h, w, _ in boxes:
        side = [(y, x + i) for i in range(1, w - 1)] + [(y + h - 1, x + i) for i in range(1, w - 1)]
        g[side[int(rng.integers(len(side)))]] = 0
    return g, out


def commonest_colour(rng: Rng) -> Pair:
    """One cell of the colour that covers the most cells."""
    g = _canvas(rng, 5, 9)
    colours = rng.choice(np.arange(1, 10), 3, replace=False)
    cells = rng.random(g.shape) < 0.6
    g[cells] = rng.choice(colours, int(cells.sum()), p=[0.5, 0.3, 0.2])
    values, counts = np.unique(g[g != 0], return_counts=True)
    best = _unique_max(counts.tolist())
    return None if best is None else (g, np.array([[values[best]]]))


def move_to_wall(rng: Rng) -> Pair:
    """A red block slides right until it touches the azure wall."""
    h, w = int(rng.integers(6, 10)), int(rng.integers(10, 15))
    g = np.zeros((h, w), dtype=int)
    g[:, -1] = 8
    out = g.copy()
    y, x = int(rng.integers(0, h - 2)), int(rng.integers(0, w - 6))
    bh, bw = (int(v) for v in rng.integers(1, 3, 2))
    g[y : y + bh, x : x + bw] = 2
    out[y : y + bh, w - 1 - bw : w - 1] = 2
    return g, out


def count_cells(rng: Rng) -> Pair:
    """A 1 x 5 row holds as many cells of the colour as the grid has."""
    g, c, n = _canvas(rng, 6, 10), _colour(rng), int(rng.integers(1, 6))
    g.flat[rng.choice(g.size, n, replace=False)] = c
    out = np.zeros((1, 5), dtype=int)
    out[0, :n] = c
    return g, out


def draw_border(rng: Rng) -> Pair:
    """An azure border is drawn around the grid."""
    g = _canvas(rng, 5, 10)
    g[rng.random(g.shape) < 0.2] = 3
    out = g.copy()
    out[0], out[-1], out[:, 0], out[:, -1] = 8, 8, 8, 8
    return g, out


def colour_of_the_key(rng: Rng) -> Pair:
    """Grey objects take the colour of the key cell in the corner, which goes."""
    g, c = _canvas(rng, 10, 14), _colour(rng, 2, 10)
    g[0, 0] = c
    _blobs(rng, g[2:], int(rng.integers(2, 4)), lambda i: 5, sides=(2, 3))
    out = np.where(g == 5, c, g)
    out[0, 0] = 0
    return g, out


def mark_cells_inside(rng: Rng) -> Pair:
    """Green cells inside a blue frame turn red; those outside stay."""
    g = _canvas(rng, 12, 16)
    h, w = g.shape
    fh, fw = int(rng.integers(5, 8)), int(rng.integers(5, 8))
    y, x = int(rng.integers(0, h - fh)), int(rng.integers(0, w - fw))
    g[y, x : x + fw] = g[y + fh - 1, x : x + fw] = 1
    g[y : y + fh, x] = g[y : y + fh, x + fw - 1] = 1
    out = g.copy()
    for _ in range(int(rng.integers(5, 10))):
        yy, xx = int(rng.integers(0, h)), int(rng.integers(0, w))
        if g[yy, xx] == 0:
            inside = y < yy < y + fh - 1 and x < xx < x + fw - 1
            g[yy, xx], out[yy, xx] = 3, 2 if inside else 3
    return g, out


def keep_key_colour(rng: Rng) -> Pair:
    """Only the objects of the key cell's colour stay (the key is in the corner)."""
    g = _canvas(rng, 10, 14)
    colours = [int(c) for c in rng.choice(np.arange(1, 10), 3, replace=False)]
    g[0, 0] = colours[0]
    _blobs(rng, g[2:], int(rng.integers(3, 6)), lambda i: colours[i % 3], sides=(1, 3))
    out = g.copy()
    out[2:][out[2:] != colours[0]] = 0
    return g, out


def colour_on_top(rng: Rng) -> Pair:
    """One cell of the colour of the rectangle drawn over another."""
    g = _canvas(rng, 6, 10)
    h, w = g.shape
    below, above = (int(c) for c in rng.choice(np.arange(1, 10), 2, replace=False))
    h1, w1, h2, w2 = (int(v) for v in rng.integers(3, 5, 4))
    y1, x1 = int(rng.integers(0, h - h1)), int(rng.integers(0, w - w1))
    g[y1 : y1 + h1, x1 : x1 + w1] = below
    y2 = int(np.clip(y1 + rng.integers(-2, 3), 0, h - h2))
    x2 = int(np.clip(x1 + rng.integers(-2, 3), 0, w - w2))
    g[y2 : y2 + h2, x2 : x2 + w2] = above
    return None if (g == below).sum() == h1 * w1 else (g, np.array([[above]]))


def crop_centre(rng: Rng) -> Pair:
    """Crop the 3 x 3 centre of an odd-sized square grid."""
    n = int(rng.choice([5, 7, 9]))
    g = rng.integers(0, 10, (n, n)) * (rng.random((n, n)) < 0.7)
    return g, g[n // 2 - 1 : n // 2 + 2, n // 2 - 1 : n // 2 + 2].copy()


def cells_to_walls(rng: Rng) -> Pair:
    """Each cell draws a line to the wall (top or bottom row) of its colour."""
    h, w = int(rng.integers(8, 13)), int(rng.integers(8, 13))
    g = np.zeros((h, w), dtype=int)
    top, bottom = (int(c) for c in rng.choice(np.arange(1, 10), 2, replace=False))
    g[0], g[-1] = top, bottom
    out = g.copy()
    for _ in range(int(rng.integers(2, 5))):
        y, x = int(rng.integers(2, h - 2)), int(rng.integers(0, w))
        if g[1:-1, x].any():
            continue
        c = top if rng.random() < 0.5 else bottom
        g[y, x] = c
        if c == top:
            out[1 : y + 1, x] = c
        else:
            out[y:-1, x] = c
    return g, out


def fall_onto_floor(rng: Rng) -> Pair:
    """Red cells fall until they land on a grey floor cell or the bottom."""
    h, w = int(rng.integers(7, 11)), int(rng.integers(6, 10))
    g = np.zeros((h, w), dtype=int)
    floor = int(rng.integers(h // 2, h - 1))
    g[floor, rng.choice(w, int(rng.integers(2, w)), replace=False)] = 5
    out = g.copy()
    for x in range(w):
        if rng.random() < 0.6:
            g[int(rng.integers(0, floor - 1)), x] = 2
            out[(floor if g[floor, x] == 5 else h) - 1, x] = 2
    return g, out


def recolour_touching_wall(rng: Rng) -> Pair:
    """Azure bars that touch the coloured left wall take its colour."""
    h, w = int(rng.integers(8, 13)), int(rng.integers(8, 13))
    g, c = np.zeros((h, w), dtype=int), _colour(rng, 1, 5)
    g[:, 0] = c
    out = g.copy()
    for _ in range(int(rng.integers(3, 6))):
        y, n = int(rng.integers(0, h)), int(rng.integers(1, 4))
        x = 1 if rng.random() < 0.5 else int(rng.integers(2, w - n))
        if not g[max(0, y - 1) : y + 2, max(1, x - 1) : x + n + 1].any():
            g[y, x : x + n], out[y, x : x + n] = 8, c if x == 1 else 8
    return g, out


def colour_histogram(rng: Rng) -> Pair:
    """Bars of each colour's cell count, tallest first, in a 5 x 3 grid."""
    g = _canvas(rng, 5, 8)
    colours = rng.choice(np.arange(1, 10), 3, replace=False)
    counts = rng.choice(np.arange(1, 6), 3, replace=False)
    cells = rng.choice(g.size, int(counts.sum()), replace=False)
    start = 0
    for c, n in zip(colours, counts, strict=True):
        g.flat[cells[start : start + n]] = c
        start += n
    out = np.zeros((5, 3), dtype=int)
    for x, k in enumerate(np.argsort(-counts)):
        out[5 - counts[k] :, x] = colours[k]
    return g, out


def connect_diagonal(rng: Rng) -> Pair:
    """Two cells on one diagonal are joined by a diagonal line."""
    h, w = int(rng.integers(8, 13)), int(rng.integers(8, 13))
    g, c = np.zeros((h, w), dtype=int), _colour(rng)
    y, x = int(rng.integers(0, h - 4)), int(rng.integers(0, w - 4))
    n = int(rng.integers(3, min(h - y, w - x)))
    g[y, x] = g[y + n, x + n] = c
    out = g.copy()
    out[y + np.arange(n + 1), x + np.arange(n + 1)] = c
    return g, out


def fill_marked_rows(rng: Rng) -> Pair:
    """A cell at a row's left end fills the row with its colour."""
    h, w = int(rng.integers(6, 12)), int(rng.integers(6, 12))
    g = np.zeros((h, w), dtype=int)
    out = g.copy()
    for y in rng.choice(h, int(rng.integers(1, 4)), replace=False):
        c = _colour(rng)
        g[y, 0], out[y] = c, c
    return g, out


def holes_by_size(rng: Rng) -> Pair:
    """The hole of each grey box is filled with the colour numbered by its size."""
    g = _canvas(rng, 12, 15)
    out = g.copy()
    for y, x, h, w, _ in _rectangles(rng, g, int(rng.integers(2, 4)), lambda i: 5, sides=(3, 5)):
        g[y + 1 : y + h - 1, x + 1 : x + w - 1] = 0
        out[y : y + h, x : x + w] = 5
        out[y + 1 : y + h - 1, x + 1 : x + w - 1] = min((h - 2) * (w - 2), 9)
    return g, out


def join_objects(rng: Rng) -> Pair:
    """The 3 x 3 objects are set side by side, left to right."""
    g = _canvas(rng, 10, 14)
    n = int(rng.integers(2, 4))
    columns = np.arange(0, g.shape[1] - 2, 4)
    if len(columns) < n:
        return None
    pieces = []
    for x in sorted(int(v) for v in rng.choice(columns, n, replace=False)):
        y, piece = int(rng.integers(0, g.shape[0] - 2)), np.where(_blob(rng, 3, 3), _colour(rng), 0)
        g[y : y + 3, x : x + 3] = piece
        pieces.append(piece)
    return g, np.hstack(pieces)


def and_halves(rng: Rng) -> Pair:
    """Green where both halves, split by a grey line, have a cell."""
    h, w = int(rng.integers(3, 6)), int(rng.integers(3, 6))
    a, b = rng.random((h, w)) < 0.5, rng.random((h, w)) < 0.5
    g = np.zeros((h, 2 * w + 1), dtype=int)
    g[:, :w][a], g[:, w], g[:, w + 1 :][b] = 1, 5, 2
    return g, np.where(a & b, 3, 0)


def mark_crossings(rng: Rng) -> Pair:
    """Where a row marked on the left meets a column marked on top, a yellow cell."""
    h, w = int(rng.integers(7, 12)), int(rng.integers(7, 12))
    g = np.zeros((h, w), dtype=int)
    rows = rng.choice(np.arange(1, h), int(rng.integers(1, 3)), replace=False)
    cols = rng.choice(np.arange(1, w), int(rng.integers(1, 3)), replace=False)
    g[rows, 0], g[0, cols] = 1, 2
    out = g.copy()
    out[np.ix_(rows, cols)] = 4
    return g, out


def count_colours(rng: Rng) -> Pair:
    """A grey square with a side of the number of colours."""
    g, k = _canvas(rng, 5, 8), int(rng.integers(1, 5))
    colours = rng.choice(np.arange(1, 10), k, replace=False)
    cells = rng.random(g.shape) < 0.5
    g[cells] = rng.choice(colours, int(cells.sum()))
    return None if len(np.unique(g[g != 0])) != k else (g, np.full((k, k), 5))


def scale_object(rng: Rng) -> Pair:
    """The one object, cropped and scaled up twice."""
    g = _canvas(rng, 8, 12)
    blobs = _blobs(rng, g, 1, lambda i: _colour(rng), sides=(2, 3))
    return g, np.kron(_crop(g, blobs[0]), np.ones((2, 2), dtype=int))


def commonest_object_colour(rng: Rng) -> Pair:
    """One cell of the colour that the most objects have."""
    g = _canvas(rng, 10, 14)
    colours = [int(c) for c in rng.choice(np.arange(1, 10), 3, replace=False)]
    counts = [int(n) for n in rng.choice(np.arange(1, 5), 3, replace=False)]
    sequence = [c for c, n in zip(colours, counts, strict=True) for _ in range(n)]
    if len(_blobs(rng, g, len(sequence), lambda i: sequence[i], sides=(1, 2))) < len(sequence):
        return None
    return g, np.array([[colours[int(np.argmax(counts))]]])


def diagonal_corners(rng: Rng) -> Pair:
    """Each lone cell gets yellow cells at its four diagonal corners."""
    g = _canvas(rng, 8, 12)
    h, w = g.shape
    out = g.copy()
    for _ in range(int(rng.integers(1, 4))):
        y, x = int(rng.integers(1, h - 1)), int(rng.integers(1, w - 1))
        if not out[y - 1 : y + 2, x - 1 : x + 2].any():
            c = _colour(rng)
            g[y, x] = out[y, x] = c
            out[[y - 1, y - 1, y + 1, y + 1], [x - 1, x + 1, x - 1, x + 1]] = 4
    return g, out


def mirror_through_marker(rng: Rng) -> Pair:
    """In one row, a bar jumps to the other side of a maroon marker cell, as far from it."""
    w, n, gap = int(rng.integers(14, 30)), int(rng.integers(2, 6)), int(rng.integers(0, 4))
    start = int(rng.integers(0, w))
    marker = start + n + gap
    if 2 * marker - start >= w:
        return None
    g = np.zeros((1, w), dtype=int)
    g[0, start : start + n] = _colour(rng, 1, 9)
    g[0, marker] = 9
    out = np.zeros_like(g)
    out[0, marker] = 9
    out[0, 2 * marker - start - n + 1 : 2 * marker - start + 1] = g[0, start : start + n]
    return (g, out) if rng.random() < 0.5 else (g[:, ::-1], out[:, ::-1])


def colour_by_parity(rng: Rng) -> Pair:
    """Grey objects of an odd number of cells turn blue, those of an even number red."""
    g = _canvas(rng, 10, 15)
    out = g.copy()
    blobs = _blobs(rng, g, int(rng.integers(3, 6)), lambda i: 5, sides=(1, 4))
    sizes = [int(b[2].sum()) for b in blobs]
    if len({s % 2 for s in sizes}) < 2:
        return None
    for blob, size in zip(blobs, sizes, strict=True):
        _paint(out, blob, 1 if size % 2 else 2)
    return g, out


def dashed_rays(rng: Rng) -> Pair:
    """Each cell shoots a ray to the right edge, every other cell of it grey."""
    g = _canvas(rng, 8, 14)
    h, w = g.shape
    rows = rng.choice(h, size=int(rng.integers(1, 4)), replace=False)
    for y in rows:
        g[y, int(rng.integers(0, w - 2))] = _colour(rng, 1, 5)
    out = g.copy()
    for y in rows:
        x = int(np.flatnonzero(g[y])[0])
        out[y, x + 1 :] = [5 if k % 2 == 0 else g[y, x] for k in range(w - x - 1)]
    return g, out


def stretch_to_marker(rng: Rng) -> Pair:
    """A framed box stretches over the lone cell in line with it, its frame kept."""
    g = _canvas(rng, 10, 16)
    h, w = g.shape
    bh, bw = int(rng.integers(3, 5)), int(rng.integers(3, 5))
    frame, inside = (int(c) for c in rng.choice(np.arange(1, 10), size=2, replace=False))
    box = np.full((bh, bw), frame)
    box[1:-1, 1:-1] = inside
    y, x = int(rng.integers(0, h - bh + 1)), int(rng.integers(0, w - bw + 1))
    side = int(rng.integers(4))
    room = [h - y - bh, y, w - x - bw, x][side]  # rows below, above, columns right, left
    if room < 2:
        return None
    far = int(rng.integers(2, room + 1))
    g[y : y + bh, x : x + bw] = box
    if side < 2:
        my, mx = (y + bh - 1 + far, x + int(rng.integers(bw))) if side == 0 else (y - far, x + int(rng.integers(bw)))
        top, bottom = min(y, my), max(y + bh, my + 1)
        grown = np.concatenate([box[:1], np.repeat(box[1:2], bottom - top - 2, 0), box[-1:]])
        out = np.zeros_like(g)
        out[top:bottom, x : x + bw] = grown
    else:
        my, mx = (y + int(rng.integers(bh)), x + bw - 1 + far) if side == 2 else (y + int(rng.integers(bh)), x - far)
        left, right = min(x, mx), max(x + bw, mx + 1)
        grown = np.concatenate([box[:, :1], np.repeat(box[:, 1:2], right - left - 2, 1), box[:, -1:]], 1)
        out = np.zeros_like(g)
        out[y : y + bh, left:right] = grown
    g[my, mx] = _colour(rng, 1, 10)
    return g, out


def mark_midpoint(rng: Rng) -> Pair:
    """Two blue cells in a row or column, an odd number of cells apart: a green plus halfway."""
    g = _canvas(rng, 9, 15)
    h, w = g.shape
    y, x = int(rng.integers(1, h - 1)), int(rng.integers(1, w - 1))
    half = int(rng.integers(2, 5))
    a, b = ((y, x - half), (y, x + half)) if rng.random() < 0.5 else ((y - half, x), (y + half, x))
    if not all(0 <= r < h and 0 <= c < w for r, c in (a, b)):
        return None
    g[a], g[b] = 1, 1
    out = g.copy()
    for dy, dx in ((0, 0), (0, 1), (1, 0), (0, -1), (-1, 0)):
        out[y + dy, x + dx] = 3
    return g, out


def colour_bands(rng: Rng) -> Pair:
    """Bands of colour side by side or stacked, their borders ragged: their colours in order, as a row or a column."""
    n = int(rng.integers(2, 5))
    colours = [int(c) for c in rng.choice(np.arange(1, 10), size=n, replace=False)]
    widths = [int(v) for v in rng.integers(3, 6, n)]
    h = int(rng.integers(6, 13))
    g = np.repeat(np.array(colours)[None, :], h, 0).repeat(widths, 1)
    edges = np.cumsum(widths)[:-1]
    for y in range(h):  # each border moves by a cell or stays, row by row
        for k, e in enumerate(edges):
            shift = int(rng.integers(-1, 2))
            if shift < 0:
                g[y, e - 1] = colours[k + 1]
            elif shift > 0:
                g[y, e] = colours[k]
    out = np.array([colours])
    return (g, out) if rng.random() < 0.5 else (g.T, out.T)


def rows_and_columns(rng: Rng) -> Pair:
    """Red cells draw their columns, blue cells their rows, over the red ones."""
    g = _canvas(rng, 9, 15)
    h, w = g.shape
    ys = rng.choice(h, size=int(rng.integers(2, 5)), replace=False)
    xs = rng.choice(w, size=len(ys), replace=False)
    colours = [1, 2, *(int(c) for c in rng.integers(1, 3, len(ys) - 2))]
    g[ys, xs] = colours
    out = g.copy()
    for x, c in zip(xs, colours, strict=True):
        if c == 2:
            out[:, x] = np.where(g[:, x] == 0, 2, g[:, x])
    for y, c in zip(ys, colours, strict=True):
        if c == 1:
            out[y] = np.where(g[y] == 0, 1, g[y])
    return g, out


def ring_the_rarest(rng: Rng) -> Pair:
    """Of scattered cells, the one whose colour no other cell has stays, ringed in red."""
    g = _canvas(rng, 8, 13)
    h, w = g.shape
    colours = [int(c) for c in rng.choice([1, 3, 4, 5, 6, 7, 8, 9], size=int(rng.integers(3, 6)), replace=False)]
    cells = rng.choice(h * w, size=1 + 2 * (len(colours) - 1) + int(rng.integers(0, 4)), replace=False)
    g.flat[cells[0]] = colours[0]
    for k, cell in enumerate(cells[1:]):  # two cells at least of every other colour
        g.flat[cell] = colours[1 + k % (len(colours) - 1)]
    y, x = divmod(int(cells[0]), w)
    out = np.zeros_like(g)
    out[max(0, y - 1) : y + 2, max(0, x - 1) : x + 2] = 2
    out[y, x] = colours[0]
    return g, out


def holes_in_bars(rng: Rng) -> Pair:
    """Every other cell of each bar's middle row is cut out, counted from the bar's left end."""
    g = _canvas(rng, 9, 15)
    n, bars = int(rng.integers(1, 4)), []
    for _ in range(DRAWS):
        if len(bars) == n:
            break
        w = int(rng.integers(4, min(11, g.shape[1]) + 1))
        y, x = int(rng.integers(0, g.shape[0] - 2)), int(rng.integers(0, g.shape[1] - w + 1))
        if _free(g, y, x, 3, w, 1):
            g[y : y + 3, x : x + w] = _colour(rng)
            bars.append((y, x, w))
    out = g.copy()
    for y, x, w in bars:
        out[y + 1, x + 1 : x + w - 1 : 2] = 0
    return (g, out) if bars else None


def spill_out(rng: Rng) -> Pair:
    """A box outline with a gap in one side fills with azure, which pours out of the gap to the edge."""
    g = _canvas(rng, 10, 15)
    h, w = g.shape
    bh, bw = (int(v) for v in rng.integers(4, 7, 2))
    y, x = int(rng.integers(1, h - bh)), int(rng.integers(1, w - bw))
    g[y : y + bh, x : x + bw] = _colour(rng, 1, 8)
    g[y + 1 : y + bh - 1, x + 1 : x + bw - 1] = 0
    side = int(rng.integers(4))  # top, bottom, left, right
    along = int(rng.integers(1, (bw if side < 2 else bh) - 1))
    gy, gx = [(y, x + along), (y + bh - 1, x + along), (y + along, x), (y + along, x + bw - 1)][side]
    g[gy, gx] = 0
    out = g.copy()
    out[y + 1 : y + bh - 1, x + 1 : x + bw - 1] = 8
    if side == 0:
        out[: gy + 1, gx] = 8
    elif side == 1:
        out[gy:, gx] = 8
    elif side == 2:
        out[gy, : gx + 1] = 8
    else:
        out[gy, gx:] = 8
    return g, out


def copy_to_keys(rng: Rng) -> Pair:
    """Two shapes each hold one cell of a key colour; each lone key cell gets a copy of its shape."""
    g = _canvas(rng, 12, 16)
    h, w = g.shape
    body, *keys = (int(c) for c in rng.choice(np.arange(1, 10), size=3, replace=False))
    shapes = []
    for key in keys:
        for _ in range(DRAWS):
            mask = _blob(rng, 3, 3)
            shape = np.where(mask, body, 0)
            cells = np.argwhere(mask)
            shape[tuple(cells[int(rng.integers(len(cells)))])] = key
            y, x = int(rng.integers(0, h - 2)), int(rng.integers(0, w - 2))
            if _free(g, y, x, 3, 3, 1):
                g[y : y + 3, x : x + 3] = shape
                shapes.append(shape)
                break
    if len(shapes) < 2:
        return None
    out, copies = g.copy(), 0
    for _ in range(DRAWS):
        if copies == 3:
            break
        shape = shapes[copies % 2]
        y, x = int(rng.integers(0, h - 2)), int(rng.integers(0, w - 2))
        if _free(out, y, x, 3, 3, 1):
            [(ky, kx)] = np.argwhere(shape == keys[copies % 2])
            g[y + ky, x + kx] = keys[copies % 2]
            out[y : y + 3, x : x + 3] = np.where(shape != 0, shape, out[y : y + 3, x : x + 3])
            copies += 1
    return (g, out) if copies == 3 else None


def repeat_cross(rng: Rng) -> Pair:
    """A cross whose arms hold several colours repeats each arm's pattern along its row and column."""
    g = _canvas(rng, 9, 15)
    h, w = g.shape
    y, x = int(rng.integers(2, h - 2)), int(rng.integers(2, w - 2))
    g[y, x] = _colour(rng)
    for axis in (0, 1):  # the row, then the column
        before, after = (int(v) for v in rng.integers(0, 3, 2))
        if before + after == 0:
            after = 1
        for k in range(-before, after + 1):
            if k:
                cell = (y, x + k) if axis == 0 else (y + k, x)
                g[cell] = _colour(rng)
    out = g.copy()
    for line in (out[y], out[:, x]):  # views of the row, then the column
        run = np.flatnonzero(line)
        if np.unique(line[run]).size < 2:
            return None
        line[:] = line[run[0] + (np.arange(line.size) - run[0]) % run.size]
    return g, out


def rays_from_line(rng: Rng) -> Pair:
    """Across a grey line, red cells draw towards it and blue cells away from it, to the edge."""
    g = _canvas(rng, 9, 15)
    h, w = g.shape
    wall = int(rng.integers(2, h - 2))
    g[wall] = 5
    xs = rng.choice(w, size=int(rng.integers(2, min(6, w) + 1)), replace=False)
    out = g.copy()
    for x in xs:
        y = int(rng.choice([r for r in range(h) if r != wall]))
        colour = int(rng.integers(1, 3))
        g[y, x] = out[y, x] = colour
        if colour == 2:  # towards the line
            out[min(y, wall) + 1 : max(y, wall), x] = 2
        elif y < wall:  # away from it
            out[:y, x] = 1
        else:
            out[y + 1 :, x] = 1
    return (g, out) if rng.random() < 0.5 else (g.T, out.T)


def stripes_from_seeds(rng: Rng) -> Pair:
    """Two cells on a long grid start lines across it, which repeat in turn, evenly spaced, to the far edge."""
    h, w = int(rng.integers(5, 10)), int(rng.integers(14, 24))
    g = np.zeros((h, w), dtype=int)
    first, gap = int(rng.integers(0, w // 3)), int(rng.integers(2, 5))
    colours = [int(c) for c in rng.choice(np.arange(1, 10), size=2, replace=False)]
    g[int(rng.integers(h)), first] = colours[0]
    g[int(rng.integers(h)), first + gap] = colours[1]
    out = np.zeros_like(g)
    for k, x in enumerate(range(first, w, gap)):
        out[:, x] = colours[k % 2]
    return (g, out) if rng.random() < 0.5 else (g.T, out.T)


def lower_halves(rng: Rng) -> Pair:
    """Upright bars turn azure in their lower half; the middle cell of a bar of odd height stays."""
    g = _canvas(rng, 7, 12)
    h, w = g.shape
    colour = _colour(rng, 1, 8)
    out = g.copy()
    xs = rng.choice(np.arange(0, w, 2), size=int(rng.integers(2, min(5, (w + 1) // 2) + 1)), replace=False)
    for x in xs:
        length = int(rng.integers(2, h + 1))
        top = int(rng.integers(0, h - length + 1))
        g[top : top + length, x] = out[top : top + length, x] = colour
        out[top + length - length // 2 : top + length, x] = 8
    return g, out


_MARK_COLOURS = (2, 4, 3)  # the colour of a row whose grey cell is in column 0, 1, 2


def rows_by_mark(rng: Rng) -> Pair:
    """Each row holds one grey cell; the whole row takes the colour that the cell's column names."""
    h, w = int(rng.integers(3, 7)), 3
    g = np.zeros((h, w), dtype=int)
    marks = rng.integers(0, w, size=h)
    g[np.arange(h), marks] = 5
    out = np.array(_MARK_COLOURS)[marks][:, None].repeat(w, 1)
    return g, out


def react_on_contact(rng: Rng) -> Pair:
    """Where a green cell touches a red one along a side, the green turns azure and the red
    goes; green cells beside grey ones, and lone cells, stay."""
    g = _canvas(rng, 6, 11)
    out = g.copy()
    pieces = [(3, 2)] * int(rng.integers(1, 4)) + [(3, 5)] * int(rng.integers(0, 3)) + [(3,), (2,)]
    for colours in pieces:
        for _ in range(DRAWS):
            down = rng.random() < 0.5
            h, w = (len(colours), 1) if down else (1, len(colours))
            y, x = int(rng.integers(0, g.shape[0] - h + 1)), int(rng.integers(0, g.shape[1] - w + 1))
            if _free(g, y, x, h, w, 1):
                flip = rng.random() < 0.5
                cells = colours[::-1] if flip else colours
                for k, c in enumerate(cells):
                    cy, cx = (y + k, x) if down else (y, x + k)
                    g[cy, cx] = c
                    out[cy, cx] = {3: 8, 2: 0}[c] if colours == (3, 2) else c
                break
    return g, out


_EIGHT = tuple((dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)


def repeat_toward_piece(rng: Rng) -> Pair:
    """A shape repeats, each copy a line apart from the last, towards each piece of it drawn
    in another colour beside it, in that piece's colour, to the edge of the grid. A piece is
    the side of the first copy that faces the shape."""
    g = _canvas(rng, 12, 18)
    h, w = g.shape
    shape, c = _blob(rng, 3, 3), _colour(rng)
    y, x = int(rng.integers(0, h - 2)), int(rng.integers(0, w - 2))
    g[y : y + 3, x : x + 3][shape] = c
    out = g.copy()
    ys, xs = np.nonzero(shape)
    others = [k for k in range(1, 10) if k != c]
    headings = rng.permutation(len(_EIGHT))[: int(rng.integers(1, 3))]
    colours = rng.choice(others, size=2, replace=False).tolist()
    for piece_colour, heading in zip(colours, headings.tolist(), strict=False):
        dy, dx = _EIGHT[heading]
        cy, cx = ys + y + 4 * dy, xs + x + 4 * dx  # the first copy
        if cy.min() < 0 or cy.max() >= h or cx.min() < 0 or cx.max() >= w:
            return None
        facing = -(dy * ys + dx * xs)  # largest on the side towards the shape
        near = facing == facing.max()
        g[cy[near], cx[near]] = piece_colour
        for k in range(1, max(h, w)):
            cy, cx = ys + y + 4 * k * dy, xs + x + 4 * k * dx
            inside = (cy >= 0) & (cy < h) & (cx >= 0) & (cx < w)
            out[cy[inside], cx[inside]] = piece_colour
    return g, out


def mend_dashed_lines(rng: Rng) -> Pair:
    """Lines across the grid with a few cells missing (none at their ends) are mended in
    their own colours; a cell or two alone on their line stay as they are."""
    g = _canvas(rng, 9, 15)
    t = g if rng.random() < 0.5 else g.T  # rows, or columns
    rows = rng.permutation(np.arange(0, t.shape[0], 2))[: int(rng.integers(2, 4))]
    others = [r for r in range(t.shape[0]) if r not in set(rows.tolist())]
    for r in rows.tolist():
        t[r] = _colour(rng)
    out = g.copy()
    o = out if t is g else out.T  # the output, seen as t sees the input
    for r in rows.tolist():
        t[r, 1 + rng.choice(t.shape[1] - 2, int(rng.integers(1, t.shape[1] // 3 + 1)), replace=False)] = 0
    for r in rng.choice(others, 2, replace=False).tolist():
        c = _colour(rng)
        cells = rng.choice(t.shape[1], int(rng.integers(1, 3)), replace=False)
        t[r, cells] = o[r, cells] = c
    return g, out


def shape_under_noise(rng: Rng) -> Pair:
    """Red rectangles lie under noise of another colour, which covers some of their cells;
    the noise on a rectangle turns yellow, the rest stays."""
    g = _canvas(rng, 10, 16)
    boxes = _rectangles(rng, g, int(rng.integers(1, 3)), lambda i: 2, sides=(3, 5), gap=3)
    noise = int(rng.choice([c for c in range(1, 10) if c not in (2, 4)]))
    scatter = (rng.random(g.shape) < 0.3) & (g == 0)
    out = g.copy()
    for y, x, h, w, _ in boxes:
        inner = np.zeros(g.shape, dtype=bool)
        inner[y + 1 : y + h - 1, x : x + w] = True  # the corners stay red: the box keeps its size
        inner[y : y + h, x + 1 : x + w - 1] = True
        hidden = inner & (rng.random(g.shape) < 0.3)
        g[hidden], out[hidden] = noise, 4
    g[scatter], out[scatter] = noise, noise
    return g, out


def pool_sparse_cells(rng: Rng) -> Pair:
    """A grid of 3 x 3 blocks, each with at most one coloured cell anywhere in it, shrinks to
    one cell per block: that cell's colour, or 0."""
    rows, cols = (int(v) for v in rng.integers(3, 6, 2))
    small = np.where(rng.random((rows, cols)) < 0.5, rng.integers(1, 10, (rows, cols)), 0)
    g = np.zeros((3 * rows, 3 * cols), dtype=int)
    for (y, x), c in np.ndenumerate(small):
        g[3 * y + int(rng.integers(3)), 3 * x + int(rng.integers(3))] = c
    return (g, small) if small.any() else None


def _path(rng: Rng, form: str) -> Grid:
    """The mask of a line shape in a random size and turn: 'L', 'U' (arms may differ) or 'T'."""
    arm, base = int(rng.integers(2, 5)), int(rng.integers(3, 6))
    if form == "L":
        mask = np.zeros((arm, base), dtype=bool)
        mask[:, 0] = mask[-1] = True
    elif form == "U":
        mask = np.zeros((max(arm, 3), base), dtype=bool)
        mask[-arm:, 0] = mask[-int(rng.integers(2, mask.shape[0] + 1)):, -1] = mask[-1] = True
    else:
        mask = np.zeros((arm + 1, base | 1), dtype=bool)
        mask[0] = mask[:, int(rng.integers(1, (base | 1) - 1))] = True
    return np.rot90(mask, int(rng.integers(4)))


def recolour_by_form(rng: Rng) -> Pair:
    """Line shapes of one colour, of any size and turn: each L turns blue, each U magenta and
    each T (a branch) red."""
    g, c = _canvas(rng, 12, 18), _colour(rng, 3, 6)
    out = g.copy()
    forms = ["L", "U", "T", *rng.choice(["L", "U", "T"], int(rng.integers(0, 3))).tolist()]
    placed = 0
    for form in forms:
        mask = _path(rng, form)
        h, w = mask.shape
        for _ in range(DRAWS):
            y, x = int(rng.integers(0, g.shape[0] - h + 1)), int(rng.integers(0, g.shape[1] - w + 1))
            if _free(g, y, x, h, w, 1):
                g[y : y + h, x : x + w][mask] = c
                out[y : y + h, x : x + w][mask] = {"L": 1, "U": 6, "T": 2}[form]
                placed += 1
                break
    return (g, out) if placed == len(forms) else None


def pieces_into_holes(rng: Rng) -> Pair:
    """Grey boxes have holes of different shapes; the loose piece of each hole's shape moves
    into it, and a piece that fits no hole stays."""
    g = _canvas(rng, 12, 17)
    boxes = _rectangles(rng, g, 2, lambda i: 5, sides=(4, 6), gap=1)
    holes = []
    for y, x, h, w, _ in boxes:
        hole = _blob(rng, int(rng.integers(1, min(3, h - 2) + 1)), int(rng.integers(1, min(3, w - 2) + 1)))
        hy, hx = y + int(rng.integers(1, h - hole.shape[0])), x + int(rng.integers(1, w - hole.shape[1]))
        g[hy : hy + hole.shape[0], hx : hx + hole.shape[1]][hole] = 0
        holes.append((hy, hx, hole))
    colours = iter(rng.permutation([1, 2, 3, 4, 6, 7, 8, 9]).tolist())
    out = g.copy()
    for hy, hx, hole in holes:
        c, (ph, pw) = next(colours), hole.shape
        for _ in range(DRAWS):
            y, x = int(rng.integers(0, g.shape[0] - ph + 1)), int(rng.integers(0, g.shape[1] - pw + 1))
            if _free(g, y, x, ph, pw, 1):
                g[y : y + ph, x : x + pw][hole] = c
                out[hy : hy + ph, hx : hx + pw][hole] = c
                break
        else:
            return None
    forms = {(m.shape, m.tobytes()) for _, _, m in holes}
    stray = _blobs(rng, g, 1, lambda i: next(colours), sides=(1, 3))
    if len(forms) < 2 or not stray or (stray[0][2].shape, stray[0][2].tobytes()) in forms:
        return None
    _paint(out, stray[0], stray[0][3])
    return g, out


def bridge_facing_blocks(rng: Rng) -> Pair:
    """Two blocks face each other across a gap, side by side or one above the other; an azure
    bridge fills the gap over the rows or columns they share."""
    g = _canvas(rng, 10, 15)
    h1, w1, h2, w2 = (int(v) for v in rng.integers(2, 5, 4))
    y1, x1 = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    y2 = y1 + int(rng.integers(-h2 + 1, h1))  # the rows overlap
    x2 = x1 + w1 + int(rng.integers(1, 5))  # to the right, a gap apart
    if y2 < 0 or y2 + h2 > g.shape[0] or x2 + w2 > g.shape[1]:
        return None
    c1, c2 = (int(c) for c in rng.choice([1, 2, 3, 4, 5, 6, 7, 9], 2, replace=False))
    g[y1 : y1 + h1, x1 : x1 + w1], g[y2 : y2 + h2, x2 : x2 + w2] = c1, c2
    out = g.copy()
    out[max(y1, y2) : min(y1 + h1, y2 + h2), x1 + w1 : x2] = 8
    if rng.random() < 0.5:  # one above the other
        g, out = g.T.copy(), out.T.copy()
    return g, out


def board_corners_and_centre(rng: Rng) -> Pair:
    """On a board of blocks of many sizes between grey lines, an odd number of them each way,
    the corner blocks turn yellow and the centre block red."""
    counts = [int(rng.choice([3, 5])) for _ in range(2)]
    sides = [rng.integers(1, 4, n).tolist() for n in counts]
    starts = [np.cumsum([0] + [s + 1 for s in side]) for side in sides]
    g = np.zeros((int(starts[0][-1]) - 1, int(starts[1][-1]) - 1), dtype=int)
    for axis in (0, 1):
        for cut in starts[axis][1:-1]:
            (g[cut - 1] if axis == 0 else g[:, cut - 1]).fill(5)
    out = g.copy()
    (ry, cy), (rx, cx) = ((starts[a][:-1], sides[a]) for a in (0, 1))
    for i, j, c in [(0, 0, 4), (0, -1, 4), (-1, 0, 4), (-1, -1, 4), (len(cy) // 2, len(cx) // 2, 2)]:
        out[ry[i] : ry[i] + cy[i], rx[j] : rx[j] + cx[j]] = c
    return g, out


def rays_from_box_corners(rng: Rng) -> Pair:
    """A box outline holds a cell of another colour; diagonal rays of that colour leave the
    box's four outer corners and run to the edges."""
    g = _canvas(rng, 10, 16)
    h, w = (int(v) for v in rng.integers(3, 7, 2))
    y, x = int(rng.integers(0, g.shape[0] - h + 1)), int(rng.integers(0, g.shape[1] - w + 1))
    c, inner = (int(v) for v in rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9], 2, replace=False))
    g[y : y + h, x : x + w] = c
    g[y + 1 : y + h - 1, x + 1 : x + w - 1] = 0
    g[y + int(rng.integers(1, h - 1)), x + int(rng.integers(1, w - 1))] = inner
    out = g.copy()
    for (cy, cx), (dy, dx) in [((y, x), (-1, -1)), ((y, x + w - 1), (-1, 1)),
                               ((y + h - 1, x), (1, -1)), ((y + h - 1, x + w - 1), (1, 1))]:
        cy, cx = cy + dy, cx + dx
        while 0 <= cy < g.shape[0] and 0 <= cx < g.shape[1]:
            out[cy, cx] = inner
            cy, cx = cy + dy, cx + dx
    return g, out


def _walls_in(g: Grid, c: int) -> bool:
    """Whether the cells of colour c cut some other cell off from the grid's border."""
    lab = ndimage.label(g != c)[0]
    border = np.concatenate((lab[0], lab[-1], lab[:, 0], lab[:, -1]))
    return bool(set(np.unique(lab).tolist()) - {0} - set(border.tolist()))


def crop_ring_contents(rng: Rng) -> Pair:
    """A diamond ring of one colour, amid noise of other colours, holds a few cells; the
    output is the box of what it holds."""
    g, c, r = _canvas(rng, 11, 16), _colour(rng), int(rng.integers(2, 4))
    cy, cx = int(rng.integers(r, g.shape[0] - r)), int(rng.integers(r, g.shape[1] - r))
    ys, xs = np.indices(g.shape)
    far = np.abs(ys - cy) + np.abs(xs - cx)
    others = [k for k in range(1, 10) if k != c]
    g[far == r] = c
    content = (rng.random(g.shape) < 0.4) & (far < r)
    noise = (rng.random(g.shape) < 0.15) & (far > r + 1)
    g[content], g[noise] = rng.choice(others, int(content.sum())), rng.choice(others, int(noise.sum()))
    if not content.any() or any(_walls_in(g, k) for k in others):
        return None
    return g, g[cy - r + 1 : cy + r, cx - r + 1 : cx + r].copy()


def fit_corner_pieces(rng: Rng) -> Pair:
    """The four corners of a square outline, each its own colour, lie scattered; the output is
    the outline put back together."""
    side = int(rng.integers(2, 4))
    frame = np.zeros((2 * side, 2 * side), dtype=int)
    colours = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9], 4, replace=False).tolist()
    for k, (ry, rx) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
        quarter = frame[ry * side : (ry + 1) * side, rx * side : (rx + 1) * side]
        quarter[-ry, :] = quarter[:, -rx] = colours[k]  # its outer row and column
    g = _canvas(rng, 9, 14)
    for ry, rx in rng.permutation([(0, 0), (0, 1), (1, 0), (1, 1)]).tolist():
        piece = frame[ry * side : (ry + 1) * side, rx * side : (rx + 1) * side]
        for _ in range(DRAWS):
            y, x = int(rng.integers(0, g.shape[0] - side + 1)), int(rng.integers(0, g.shape[1] - side + 1))
            if _free(g, y, x, side, side, 1):
                g[y : y + side, x : x + side] = piece
                break
        else:
            return None
    return g, frame


def panel_to_marker(rng: Rng) -> Pair:
    """A board of n x n panels, each n x n cells of noise; the one panel holding a yellow cell
    moves to the panel that the cell's place inside it names, and the others are emptied."""
    n, sep = int(rng.integers(2, 4)), int(rng.choice([1, 2, 3, 5, 6, 7, 8, 9]))
    noise = [c for c in (1, 2, 3, 5, 6, 7, 8, 9) if c != sep]
    size = n * n + n - 1
    g = np.full((size, size), sep, dtype=int)
    out = g.copy()
    starts = [k * (n + 1) for k in range(n)]
    for y in starts:
        for x in starts:
            g[y : y + n, x : x + n] = np.where(rng.random((n, n)) < 0.5, rng.choice(noise, (n, n)), 0)
            out[y : y + n, x : x + n] = 0
    py, px, my, mx = (int(v) for v in rng.integers(0, n, 4))
    panel = g[starts[py] : starts[py] + n, starts[px] : starts[px] + n]
    panel[my, mx] = 4
    out[starts[my] : starts[my] + n, starts[mx] : starts[mx] + n] = panel
    return g, out


def fit_between_posts(rng: Rng) -> Pair:
    """A frame of two posts of different colours, its corners yellow, and a shape of those two
    colours outside it; the output is the frame with the shape inside, flipped if need be so
    that each colour lies on its post's side."""
    h, w = int(rng.integers(2, 5)), int(rng.integers(4, 7))
    a, b = (int(v) for v in rng.choice([1, 2, 3, 5, 6, 7, 8, 9], 2, replace=False))
    frame = np.zeros((h + 2, w + 2), dtype=int)
    frame[[0, 0, -1, -1], [0, -1, 0, -1]] = 4
    frame[1:-1, 0], frame[1:-1, -1] = a, b
    split = int(rng.integers(1, w))
    shape = np.where(np.arange(w) < split, a, b) * (rng.random((h, w)) < 0.7)
    shape[:, 0], shape[:, -1] = a, b  # it meets both posts
    out = frame.copy()
    out[1:-1, 1:-1] = shape
    g = _canvas(rng, 12, 16)
    fy, fx = int(rng.integers(0, g.shape[0] - h - 1)), int(rng.integers(0, g.shape[1] - w - 1))
    g[fy : fy + h + 2, fx : fx + w + 2] = frame
    loose = shape[:, ::-1] if rng.random() < 0.5 else shape
    for _ in range(DRAWS):
        y, x = int(rng.integers(0, g.shape[0] - h + 1)), int(rng.integers(0, g.shape[1] - w + 1))
        outside = y + h <= fy or y >= fy + h + 2 or x + w <= fx or x >= fx + w + 2  # apart from the frame's box
        if outside and _free(g, y, x, h, w, 1):
            g[y : y + h, x : x + w] = loose
            break
    else:
        return None
    if rng.random() < 0.5:  # posts above and below
        g, out = g.T.copy(), out.T.copy()
    return g, out


def smear_toward_marker(rng: Rng) -> Pair:
    """A square block carries red cells in some of its corners; copies of it run diagonally
    from it to the edges, towards each red corner, all in the block's colour."""
    g, side = _canvas(rng, 10, 15), int(rng.integers(2, 4))
    c = int(rng.choice([1, 3, 4, 5, 6, 7, 8, 9]))
    y, x = int(rng.integers(0, g.shape[0] - side + 1)), int(rng.integers(0, g.shape[1] - side + 1))
    g[y : y + side, x : x + side] = c
    corners = [(0, 0), (0, side - 1), (side - 1, 0), (side - 1, side - 1)]
    marked = [corners[k] for k in rng.choice(4, int(rng.integers(1, 3)), replace=False)]
    out = g.copy()
    for my, mx in marked:
        g[y + my, x + mx] = 2
        dy, dx = (1 if my else -1), (1 if mx else -1)
        k = 1
        while -side < y + k * dy < g.shape[0] and -side < x + k * dx < g.shape[1]:
            ty, tx = y + k * dy, x + k * dx
            out[max(ty, 0) : max(ty + side, 0), max(tx, 0) : max(tx + side, 0)] = c
            k += 1
    return g, out


def snap_to_block(rng: Rng) -> Pair:
    """Lone cells lie around an azure 2 x 2 block, each nearer one corner of it than the
    others; each takes the place of the block's cell nearest it."""
    g = _canvas(rng, 9, 14)
    y, x = int(rng.integers(2, g.shape[0] - 3)), int(rng.integers(2, g.shape[1] - 3))
    g[y : y + 2, x : x + 2] = 8
    out = g.copy()
    quarters = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    colours = rng.choice([1, 2, 3, 4, 5, 6, 7, 9], 4, replace=False).tolist()
    for k in rng.choice(4, int(rng.integers(2, 5)), replace=False).tolist():
        qy, qx = quarters[k]
        rows = range(0, y - 1) if qy < 0 else range(y + 3, g.shape[0])
        cols = range(0, x - 1) if qx < 0 else range(x + 3, g.shape[1])
        if not rows or not cols:
            return None
        cy, cx = int(rng.choice(rows)), int(rng.choice(cols))
        g[cy, cx] = colours[k]
        out[y + (qy > 0), x + (qx > 0)] = colours[k]
    return g, out


def box_within_markers(rng: Rng) -> Pair:
    """Four grey markers, one on each side of a small shape; a box in the shape's colour is
    drawn one cell within them."""
    g = _canvas(rng, 11, 16)
    top, left = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    bottom, right = int(rng.integers(top + 6, g.shape[0])), int(rng.integers(left + 6, g.shape[1]))
    c = int(rng.choice([1, 2, 3, 4, 6, 7, 8, 9]))
    g[top, int(rng.integers(left + 1, right))] = g[bottom, int(rng.integers(left + 1, right))] = 5
    g[int(rng.integers(top + 1, bottom)), left] = g[int(rng.integers(top + 1, bottom)), right] = 5
    h, w = int(rng.integers(1, bottom - top - 3)), int(rng.integers(1, right - left - 3))
    sy, sx = int(rng.integers(top + 2, bottom - h)), int(rng.integers(left + 2, right - w))
    g[sy : sy + h, sx : sx + w] = c * _blob(rng, h, w)
    out = g.copy()
    ring = np.zeros(g.shape, dtype=bool)
    ring[top + 1 : bottom, [left + 1, right - 1]] = ring[[top + 1, bottom - 1], left + 1 : right] = True
    out[ring & (g == 0)] = c
    return g, out


def frame_the_twin_hole(rng: Rng) -> Pair:
    """On a grid of noise, an empty frame of one colour, and one other empty box of its
    inside's size; the frame is drawn again around that box."""
    g = _canvas(rng, 12, 17)
    f = int(rng.choice([2, 3, 4, 6, 7, 8, 9]))
    noise = [k for k in (1, 5) if k != f]
    g[:] = np.where(rng.random(g.shape) < 0.65, rng.choice(noise, g.shape), 0)
    h, w = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    spots = []
    for _ in range(2):
        y, x = int(rng.integers(0, g.shape[0] - h - 1)), int(rng.integers(0, g.shape[1] - w - 1))
        spots.append((y, x))
    (fy, fx), (ty, tx) = spots
    if abs(fy - ty) < h + 3 and abs(fx - tx) < w + 3:
        return None  # the two boxes would overlap
    g[fy : fy + h + 2, fx : fx + w + 2] = f
    g[fy + 1 : fy + h + 1, fx + 1 : fx + w + 1] = 0
    g[ty + 1 : ty + h + 1, tx + 1 : tx + w + 1] = 0
    inside = np.lib.stride_tricks.sliding_window_view(g != 0, (h, w)).any((2, 3)) == 0
    if np.count_nonzero(inside[1 : g.shape[0] - h, 1 : g.shape[1] - w]) != 2 or (g == f).sum() != 2 * (h + w + 2):
        return None  # another empty box of that size, or the frame's colour in the noise
    out = g.copy()
    out[ty : ty + h + 2, tx : tx + w + 2] = f
    out[ty + 1 : ty + h + 1, tx + 1 : tx + w + 1] = 0
    return g, out


def bounce_off_wall(rng: Rng) -> Pair:
    """A red wall along one side and a short diagonal of azure heading towards it; a green
    trail goes on from the diagonal, turns back off the wall and ends at the grid's edge."""
    g = _canvas(rng, 10, 15)
    h, w = g.shape
    g[:, w - 2 :] = 2
    n, y = int(rng.integers(2, 4)), int(rng.integers(4, h - 4))
    x = int(rng.integers(0, w - 2 - n - 3))
    dy = int(rng.choice([-1, 1]))
    cells = [(y + k * dy, x + k) for k in range(n)]
    for cy, cx in cells:
        g[cy, cx] = 8
    out = g.copy()
    (cy, cx), (vy, vx) = cells[-1], (dy, 1)
    while True:
        ny, nx = cy + vy, cx + vx
        if not 0 <= ny < h:
            break
        if g[ny, nx] == 2:  # the wall is to the right: the path turns back left
            vx = -vx
            ny, nx = cy + vy, cx + vx
            if not 0 <= nx < w:
                break
        if not 0 <= nx < w:
            break
        out[ny, nx] = 3
        cy, cx = ny, nx
    (ty, tx), (uy, ux) = cells[0], (-dy, -1)
    while 0 <= ty + uy < h and 0 <= tx + ux < w:  # the diagonal's other end goes on away from the wall
        ty, tx = ty + uy, tx + ux
        out[ty, tx] = 3
    return g, out


def detour_past_blocks(rng: Rng) -> Pair:
    """Coloured cells on the bottom edge and grey blocks above; each cell shoots a ray up in its
    colour, which steps one cell right past any grey cell in its way."""
    g = _canvas(rng, 9, 14)
    h, w = g.shape
    out = g.copy()
    spots = np.arange(1, w - 2, 3)  # three columns apart, so that a ray stepped aside meets no other
    columns = sorted(rng.choice(spots, min(spots.size, int(rng.integers(2, 4))), replace=False).tolist())
    c = int(rng.choice([1, 2, 3, 4, 6, 7, 8, 9]))
    for x in columns:
        g[h - 1, x] = c
        if rng.random() < 0.7:
            g[int(rng.integers(1, h - 3)), x] = 5
    out = g.copy()
    for x0 in columns:
        y, x = h - 1, x0
        while y > 0:
            if g[y - 1, x] != 0:
                if x + 1 >= w or g[y, x + 1] != 0:
                    break
                x += 1
            else:
                y -= 1
            out[y, x] = c
    return g, out


def ring_the_crossing(rng: Rng) -> Pair:
    """A full row and a full column of two colours cross inside the grid; a yellow ring is
    drawn around the crossing."""
    g = _canvas(rng, 5, 13)
    h, w = g.shape
    a, b = (int(v) for v in rng.choice([1, 2, 3, 5, 6, 7, 8, 9], 2, replace=False))
    y, x = int(rng.integers(1, h - 1)), int(rng.integers(1, w - 1))
    g[y, :] = a
    g[:, x] = b
    out = g.copy()
    out[y - 1 : y + 2, x - 1 : x + 2] = 4
    out[y, x] = g[y, x]
    return g, out


def brim_over(rng: Rng) -> Pair:
    """A cup, an outline with a gap in its top, holds one coloured cell; the cup fills with
    that colour, which also brims over the row above the cup."""
    g = _canvas(rng, 9, 14)
    h, w = g.shape
    bh, bw = int(rng.integers(4, 6)), int(rng.integers(4, 7))
    y, x = int(rng.integers(1, h - bh + 1)), int(rng.integers(0, w - bw + 1))
    cup, c = int(rng.choice([1, 5])), int(rng.choice([2, 3, 4, 6, 7, 8, 9]))
    g[y : y + bh, x : x + bw] = cup
    g[y + 1 : y + bh - 1, x + 1 : x + bw - 1] = 0
    g[y, int(rng.integers(x + 1, x + bw - 1))] = 0
    g[int(rng.integers(y + 1, y + bh - 1)), int(rng.integers(x + 1, x + bw - 1))] = c
    out = g.copy()
    inside = out[y : y + bh - 1, x + 1 : x + bw - 1]
    inside[inside == 0] = c
    out[y - 1, x : x + bw] = c
    return g, out


def stripes_from_key(rng: Rng) -> Pair:
    """A top row of colours and a grey separator; the empty rows below take the key's colours
    in turn."""
    w, h = int(rng.integers(2, 6)), int(rng.integers(5, 13))
    g = np.zeros((h, w), dtype=int)
    g[0] = rng.choice([1, 2, 3, 4, 6, 7, 8, 9], w, replace=False)
    g[1] = 5
    out = g.copy()
    out[2:] = g[0][np.arange(h - 2) % w, None]
    return g, out


def line_behind_shape(rng: Rng) -> Pair:
    """A red wall along a column and a green shape to its left; the shape slides right onto the
    wall and an azure column is drawn just behind it."""
    g = _canvas(rng, 5, 10)
    h, w = g.shape
    wall = int(rng.integers(6, w)) if w > 6 else w - 1
    g[:, wall] = 2
    sh, sw = int(rng.integers(2, min(4, h) + 1)), int(rng.integers(2, 4))
    if wall - sw - 2 < 1:
        return None
    y, x = int(rng.integers(0, h - sh + 1)), int(rng.integers(1, wall - sw - 1))
    mask = _blob(rng, sh, sw)
    g[y : y + sh, x : x + sw][mask] = 3
    out = np.zeros_like(g)
    out[:, wall] = 2
    out[y : y + sh, wall - sw : wall][mask] = 3
    out[:, wall - sw - 1] = 8
    return g, out


def stairs_from_bar(rng: Rng) -> Pair:
    """A red bar from the left edge; the rows above it are one cell longer each in green, the
    rows below one cell shorter each in blue."""
    g = _canvas(rng, 6, 12)
    h, w = g.shape
    n, y = int(rng.integers(2, w - 1)), int(rng.integers(1, h - 1))
    g[y, :n] = 2
    out = g.copy()
    for k in range(1, h):
        if y - k >= 0:
            out[y - k, : n + k] = 3
        if y + k < h and n - k > 0:
            out[y + k, : n - k] = 1
    return g, out


CONCEPTS: dict[str, Callable[[Rng], Pair]] = {
    fn.__name__.replace("_", "-"): fn
    for fn in (
        crop_largest, crop_odd_colour, clean_noise, fall_to_bottom, extend_bar, count_objects, mark_hollow,
        fill_inside, mark_odd_shape, colour_by_orientation, sort_bars, mark_centre, copy_to_markers,
        keep_above_line, cells_fall, colour_by_size, mark_largest, connect_pairs, mark_topmost,
        keep_repeated_shape, mirror_across_line, keep_solid, crop_inside_frame, close_box, commonest_colour,
        move_to_wall, count_cells, draw_border, colour_of_the_key, mark_cells_inside, keep_key_colour,
        colour_on_top, crop_centre, cells_to_walls, fall_onto_floor, recolour_touching_wall, colour_histogram,
        connect_diagonal, fill_marked_rows, holes_by_size, join_objects, and_halves, mark_crossings,
        count_colours, scale_object, commonest_object_colour, diagonal_corners, mirror_through_marker,
        colour_by_parity, dashed_rays, stretch_to_marker, mark_midpoint, colour_bands, rows_and_columns,
        ring_the_rarest, holes_in_bars, spill_out, copy_to_keys, repeat_cross, rays_from_line,
        stripes_from_seeds, lower_halves, rows_by_mark, react_on_contact, repeat_toward_piece,
        mend_dashed_lines, shape_under_noise, pool_sparse_cells, recolour_by_form, pieces_into_holes,
        bridge_facing_blocks, board_corners_and_centre, rays_from_box_corners, crop_ring_contents,
        fit_corner_pieces, panel_to_marker, fit_between_posts, smear_toward_marker, snap_to_block,
        box_within_markers, frame_the_twin_hole, bounce_off_wall, detour_past_blocks, ring_the_crossing,
        brim_over, stripes_from_key, line_behind_shape, stairs_from_bar,
    )
}


def draw_pairs(concept: str, rng: Rng, n: int = PAIRS) -> list[tuple[Grid, Grid]]:
    """n pairs of one concept, each showing a change (the input is not the output)."""
    pairs = []
    for _ in range(DRAWS):
        if len(pairs) == n:
            return pairs
        pair = CONCEPTS[concept](rng)
        if pair is not None and (pair[0].shape != pair[1].shape or (pair[0] != pair[1]).any()):
            pairs.append(pair)
    raise RuntimeError(f"{concept}: could not draw {n} pairs in {DRAWS} tries")


def write(folder: Path, seed: int, train_pairs: int = PAIRS - 1, tests: int = 1) -> int:
    """Write TASKS_PER_CONCEPT tasks per concept, each of `train_pairs` train pairs and `tests`
    test pairs, into `folder`; returns how many."""
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for index, concept in enumerate(CONCEPTS):
        for k in range(TASKS_PER_CONCEPT):
            drawn = draw_pairs(concept, np.random.default_rng([seed, index, k]), train_pairs + tests)
            pairs = [{"input": a.tolist(), "output": b.tolist()} for a, b in drawn]
            task = {"train": pairs[:train_pairs], "test": pairs[train_pairs:]}
            (folder / f"{concept}-{k}.json").write_text(json.dumps(task))
            count += 1
    return count


def main() -> None:
    write_or_table(__doc__, write, seed=1, label="concept", per_group=TASKS_PER_CONCEPT, out_name="concepts.json")


if __name__ == "__main__":
    main()
