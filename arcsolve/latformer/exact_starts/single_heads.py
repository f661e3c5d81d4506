"""One head's wider actions, screened in numpy on the train pairs (`single_actions`, among
those `one_head_actions` lists): shifts of any length, dihedral elements after shifts, crops
anywhere, placements in larger outputs (`placements`), zooms, and scalings (up, down, tiled
as mirror images, strided) after dihedral elements and shifts."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import is_function
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.readings import follow, reading, scaled_cells, shift_cells, source_cells
from arcsolve.latformer.experts import SCALE_FACTORS, STRIDES
from arcsolve.latformer.sizing import common_factor


def single_actions(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    max_shift: int = 4,
    most: int = 8,
    shift_bits: int = 5,
    placed: bool = True,
    also: Sequence[tuple[int, int]] = (),
) -> list[ExactAction]:
    """One-head actions beyond `candidate_actions` (those `one_head_actions` lists), screened
    in numpy and kept when every train output is a function of their reading, cell by cell.
    The kernels' own reading confirms each; at most `most`, the least shifted first. Cyclic
    shifts that read alike on the train lattices but not on those of `also` (the test
    inputs' shapes) are kept apart."""
    return single_actions_of(pairs, [[y for _, y in pairs]], max_shift, most, shift_bits, placed, also)[0]


def single_actions_of(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    targets: Sequence[Sequence[np.ndarray]],
    max_shift: int = 4,
    most: int = 8,
    shift_bits: int = 5,
    placed: bool = True,
    also: Sequence[tuple[int, int]] = (),
) -> list[list[ExactAction]]:
    """`single_actions` for several sets of outputs at once (`targets`, each one output per
    pair, of the shapes of the pairs' outputs): the one-head actions and their readings
    depend on the lattices alone, so they are listed and read once for all the sets."""
    order = sorted(range(len(pairs)), key=lambda k: pairs[k][1].size)  # the cheapest pair rejects first
    outputs = [np.concatenate([y.reshape(-1) for y in ys]) for ys in targets]
    found: list[list[ExactAction]] = [[] for _ in targets]
    for action, cells in one_head_actions(pairs, max_shift, shift_bits, placed, also):
        if all(len(f) >= most for f in found):
            break
        keys: dict[int, np.ndarray | None] = {}  # each pair's reading + 1, made when first asked for
        read: np.ndarray | None = None  # the kernels' reading of every pair, likewise
        for t, ys in enumerate(targets):
            if len(found[t]) >= most or action in found[t]:
                continue
            seen = np.zeros((11, 10), dtype=bool)  # (reading + 1, output colour) pairs met so far
            for k in order:
                if k not in keys:
                    c = cells(k)  # None: not an action of the experts on this pair's lattices
                    keys[k] = None if c is None else follow(pairs[k][0], c) + 1
                if keys[k] is None:
                    break
                seen[keys[k], ys[k].reshape(-1)] = True
                if (seen.sum(1) > 1).any():
                    break  # two cells read alike and ask for different colours
            else:
                if read is None:
                    try:
                        read = np.concatenate([reading(action, x, y.shape, shift_bits).reshape(-1) for x, y in pairs])
                    except ValueError:
                        break  # not an action of the experts: for no set of outputs
                if is_function(read + 1, outputs[t]):
                    found[t].append(action)
    return found


CellMap = Callable[[int], "np.ndarray | None"]  # pair index -> each output cell's input cell (or None)


def one_head_actions(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    max_shift: int = 4,
    shift_bits: int = 5,
    placed: bool = True,
    also: Sequence[tuple[int, int]] = (),
) -> Iterator[tuple[ExactAction, CellMap]]:
    """The one-head actions the screens try, each with a quick numpy map of the input cell
    every output cell of pair k reads (NOTHING where none; None where the experts cannot act
    on that pair's lattices), the least shifted first within each kind: a shift of any length
    up to the smallest output's sides, and a dihedral element after a shift of up to
    `max_shift` cells, cyclic or with fill (outputs of the input's shape or its transpose), a
    crop at any offset (outputs no larger than their inputs), or the input after any dihedral
    element placed at any offset in a larger output (a padding). Also: where every output has
    one size, windows of two or more input cells up-scaled 2× or 3× (a zoom); and scalings
    (up by the size ratio or a part of it, the rest tiled, or down by sampling) after every
    dihedral element and a shift of up to `max_shift` input cells, cyclic or with fill (the
    unscaled input too, into outputs of other sizes), and the up-scalings tiled as mirror
    images (unshifted, also as mirror images that share their edge cells); where the output's size is not the input's,
    up-scalings followed by a stride (`_strided_scalings`), shifted by up to
    MAX_STRIDE_SHIFT input cells; a stride or a sampling that reads past the input's edge
    also wraps as mirror images on those axes, then shifts cyclically. Without `placed`, no
    placements. Cyclic shifts of a scaling that read alike on every input lattice, the train
    pairs' and those of `also` (the test inputs' shapes), are listed once."""
    same = all(x.shape == y.shape for x, y in pairs)
    turned_shape = all(x.shape == y.shape[::-1] for x, y in pairs)
    if same or turned_shape:
        rows, cols = (max(max_shift, min(y.shape[axis] for _, y in pairs) - 1) for axis in (0, 1))
        deltas = sorted(
            itertools.product(range(-rows, rows + 1), range(-cols, cols + 1)),
            key=lambda s: (abs(s[0]) + abs(s[1]), s),
        )
        elements = {d: [source_cells(ExactAction(d), x.shape, y.shape, shift_bits) for x, y in pairs] for d in range(8)}
        turned = {d: cells for d, cells in elements.items() if all(c is not None for c in cells)}
        for delta, fill in itertools.product(deltas, (True, False)):
            near = max(abs(delta[0]), abs(delta[1])) <= max_shift  # a dihedral element goes with near shifts
            moved: dict[int, np.ndarray] = {}  # each pair's shifted lattice, made when first asked for
            for d, sources in turned.items():
                if d and not near:
                    continue

                def cells(k: int, sources=sources, delta=delta, fill=fill, moved=moved) -> np.ndarray:
                    if k not in moved:
                        moved[k] = shift_cells(tuple(pairs[k][1].shape), delta, fill)
                    return follow(sources[k], moved[k])

                yield ExactAction(d, delta, fill=fill and delta != (0, 0)), cells
    elif all(x.shape[0] >= y.shape[0] and x.shape[1] >= y.shape[1] for x, y in pairs):
        rows = min(x.shape[0] - y.shape[0] for x, y in pairs)
        cols = min(x.shape[1] - y.shape[1] for x, y in pairs)
        for r, c in sorted(itertools.product(range(rows + 1), range(cols + 1)), key=sum):

            def window(k: int, r=r, c=c) -> np.ndarray:
                (x, y) = pairs[k]
                (H, W), w = y.shape, x.shape[1]
                return ((np.arange(H)[:, None] + r) * w + np.arange(W)[None, :] + c).reshape(-1)

            yield ExactAction(0, (-r, -c)), window
    if placed and not (same or turned_shape):  # outputs as large as the (turned) input or larger: a placement
        for action in placements(pairs, shift_bits):
            yield action, lambda k, a=action: scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)
    if len({y.shape for _, y in pairs}) == 1:  # one output size: a window, then up-scaled
        (H, W) = pairs[0][1].shape
        for f in (2, 3):
            if H % f or W % f or H * W < 2 * f * f:
                continue  # whole blocks of a window of two cells or more (one cell is a crop's)
            # the window's offset, in input cells (the experts shift before they scale)
            rows = min(min(x.shape[0] - H // f for x, _ in pairs), 2**shift_bits - 1)
            cols = min(min(x.shape[1] - W // f for x, _ in pairs), 2**shift_bits - 1)
            if rows < 0 or cols < 0:
                continue
            for r, c in sorted(itertools.product(range(rows + 1), range(cols + 1)), key=sum):

                def zoomed(k: int, f=f, r=r, c=c) -> np.ndarray:
                    w = pairs[k][0].shape[1]
                    return ((np.arange(H)[:, None] // f + r) * w + np.arange(W)[None, :] // f + c).reshape(-1)

                yield ExactAction(0, (-r, -c), (f, f)), zoomed
    # scalings (up by the size ratio or a part of it, the rest tiled; down by sampling; up,
    # then a stride), each after any dihedral element and a shift of up to `max_shift` input
    # cells (MAX_STRIDE_SHIFT with a stride), cyclic or with fill
    near = sorted(
        itertools.product(range(-max_shift, max_shift + 1), repeat=2), key=lambda s: (abs(s[0]) + abs(s[1]), s)
    )
    inputs = [x.shape for x, _ in pairs] + list(also)
    sides = {d: [shape[::-1] if d >= 4 else shape for shape in inputs] for d in range(8)}  # shifted lattices
    scalings = [(factor, down, (1, 1), range(8)) for factor, down in _scalings(pairs)] + _strided_scalings(pairs)
    for factor, down, stride, elements in scalings:
        met: dict[int, set] = {d: set() for d in range(8)}  # cyclic shifts alike on every pair's lattice are one
        # where the scaled input tiles some train output, a shift with fill may act inside each tile
        wraps = {d: _wraps(factor, down, stride, sides[d][: len(pairs)], pairs) for d in elements}
        for delta, fill, d in itertools.product(near, (False, True), elements):
            if stride != (1, 1) and max(abs(delta[0]), abs(delta[1])) > MAX_STRIDE_SHIFT:
                continue
            if fill and (delta == (0, 0) or all(abs(delta[0]) >= h or abs(delta[1]) >= w for h, w in sides[d])):
                continue  # no shift, or one that pushes every input out of its lattice
            if not fill:
                alike = tuple((delta[0] % h, delta[1] % w) for h, w in sides[d])
                if alike in met[d]:
                    continue
                met[d].add(alike)
            action = ExactAction(d, delta, factor, fill, down, stride=stride)
            yield action, lambda k, a=action: scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)
            if fill and wraps[d]:
                action = replace(action, tiled_fill=True)
                yield action, lambda k, a=action: scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)
        if down or stride != (1, 1):  # a sampling that wraps, as mirror images, then shifted cyclically
            for action in _mirrored_samplings(factor, down, stride, elements, sides, pairs, near):
                yield action, lambda k, a=action: scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)
            continue
        for d in range(8):  # tiled as mirror images on the axes where the scaled input repeats
            trained = list(zip(sides[d][: len(pairs)], pairs, strict=True))  # the train pairs' lattices
            repeats = [any(y.shape[axis] > s[axis] * factor[axis] for s, (_, y) in trained) for axis in (0, 1)]
            for mirror in ((True, False), (False, True), (True, True)):
                if not all(repeats[axis] for axis in (0, 1) if mirror[axis]):
                    continue
                # unshifted, then the input shifted with fill in each mirror image
                for delta in [(0, 0)] + [s for s in near if s != (0, 0) and max(map(abs, s)) <= MAX_STRIDE_SHIFT]:
                    fill = delta != (0, 0)
                    action = ExactAction(d, delta, factor, fill, mirror=mirror, tiled_fill=fill)
                    yield action, lambda k, a=action: scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)
            # unshifted mirror images that share their edge cells (a reflection about the
            # edge cell's centre), on the axes where some train pair tells them from a tiling
            # and from mirror images that do not share them: the scaled input repeats there
            # and is three cells or more on that axis (two cells fold alike either way)
            told = [
                any(y.shape[axis] > s[axis] * factor[axis] and s[axis] > 2 for s, (_, y) in trained)
                for axis in (0, 1)
            ]
            for shared in ((True, False), (False, True), (True, True)):
                if not all(told[axis] for axis in (0, 1) if shared[axis]):
                    continue
                action = ExactAction(d, scale=factor, mirror=shared, shared=shared)
                yield action, lambda k, a=action: scaled_cells(a, pairs[k][0].shape, pairs[k][1].shape, shift_bits)


def _mirrored_samplings(
    factor: tuple[int, int],
    down: bool,
    stride: tuple[int, int],
    elements: Sequence[int],
    sides: dict[int, list[tuple[int, int]]],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    near: Sequence[tuple[int, int]],
) -> Iterator[ExactAction]:
    """A down-scaling, or an up-scaling then a stride, wrapped as mirror images on the axes
    where it reads past the input's edge on some train pair, after each dihedral element,
    then shifted cyclically by up to MAX_STRIDE_SHIFT input cells (shifts alike on every
    lattice, `sides`, once)."""
    for d in elements:
        wrapping = _wrapping_axes(factor, down, stride, sides[d][: len(pairs)], pairs)
        for mirror in ((True, False), (False, True), (True, True)):
            if not all(wrapping[axis] for axis in (0, 1) if mirror[axis]):
                continue
            met: set = set()
            for delta in near:
                if max(abs(delta[0]), abs(delta[1])) > MAX_STRIDE_SHIFT:
                    continue
                alike = tuple((delta[0] % h, delta[1] % w) for h, w in sides[d])
                if alike in met:
                    continue
                met.add(alike)
                yield ExactAction(d, delta, factor, down=down, mirror=mirror, stride=stride)


MAX_PLACEMENTS = 4000  # placements screened, at most (the simplest first)
MAX_CUT = 2  # input cells a placement may move back past the output's start


def placements(pairs: Sequence[tuple[np.ndarray, np.ndarray]], shift_bits: int = 5) -> list[ExactAction]:
    """Every placement of the input, after any dihedral element and scaled (up, or down by
    sampling) by one factor on every pair, at one offset inside each output that is larger
    than it on some pair (a padding, or a grid set on a canvas): the least scaled and moved
    first. Offsets are in input cells, as the experts shift before they scale, and may move
    the input back past the output's start by up to MAX_CUT cells (shifted, then padded); a
    sampled input is placed at the output's top-left corner only."""
    found = []
    span = 2**shift_bits - 1
    for d in range(8):
        sides = [x.shape[::-1] if d >= 4 else x.shape for x, _ in pairs]
        outs = [y.shape for _, y in pairs]
        per_axis = []
        for axis in (0, 1):
            options = []  # (factor, down, offsets in input cells)
            for f in SCALE_FACTORS:
                room = min(o[axis] - s[axis] * f for s, o in zip(sides, outs, strict=True))
                if room >= 0:  # placed inside, or moved back by up to MAX_CUT cells (cut at the start)
                    back = min(MAX_CUT, min(s[axis] for s in sides) - 1)
                    options.append((f, False, range(-back, min(room // f, span) + 1)))
                if f > 1 and all(s[axis] % f == 0 for s in sides):
                    # sampled from any cell of the block, at the output's start: the kernels sample
                    # within the input before they shift, so a sampled grid moves back, not on
                    if all(o[axis] >= s[axis] // f for s, o in zip(sides, outs, strict=True)):
                        options.append((f, True, [-p for p in range(f)]))
            per_axis.append(options)
        for (f_r, down_r, rows), (f_c, down_c, cols) in itertools.product(*per_axis):
            if (down_r and not down_c and f_c > 1) or (down_c and not down_r and f_r > 1):
                continue  # a head scales both axes the same way (by 1 either way)
            down = down_r or down_c
            if down:  # an axis by 1 is sampled too, so it is placed at the start as well
                rows, cols = [r for r in rows if r <= 0], [c for c in cols if c <= 0]
            if all(y.shape == ((s[0] // f_r, s[1] // f_c) if down else (s[0] * f_r, s[1] * f_c))
                   for s, (_, y) in zip(sides, pairs, strict=True)):
                continue  # no room on any pair: a plain scaling (`_scalings`)
            found += [ExactAction(d, (r, c), (f_r, f_c), True, down) for r in rows for c in cols]
    found.sort(key=lambda a: (a.scale[0] * a.scale[1], abs(a.shift[0]) + abs(a.shift[1]), a.down, a.shift, a.dihedral))
    return found[:MAX_PLACEMENTS]


def _scalings(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[tuple[tuple[int, int], bool]]:
    """(factor, down) for the scalings a head may take on every pair: down-scalings by a
    stride (`_down_factors`), up-scalings by the size ratio between each input (or its
    transpose) and its output, or by a part of it (1×1 too) whose rest is tiled, samplings
    with a crop or a padding around them (`_cropped_down_factors`), and where
    some output has neither the input's shape nor its transpose's, 1×1: the input read at
    an offset into an output of any size, wrapped or filled (a padding and a crop in one,
    a tiling that starts inside the input)."""
    found = [(f, True) for f in _down_factors(pairs) + _tiled_down_factors(pairs)]
    found += [(f, True) for f in _cropped_down_factors(pairs) if (f, True) not in found]
    shapes = [(x.shape, y.shape) for x, y in pairs]
    if not all(o in (i, i[::-1]) for i, o in shapes):  # unscaled: read at an offset, wrapped or filled
        found.append(((1, 1), False))
    for turned in (False, True):
        ratio = common_factor(shapes, turned, down=False)
        if ratio is None or ratio == (1, 1):
            continue
        a, b = ratio
        for f in itertools.product(SCALE_FACTORS, SCALE_FACTORS):  # (1, 1): the input tiled or placed
            if a % f[0] == 0 and b % f[1] == 0 and (f, False) not in found:
                found.append((f, False))
    return found


MAX_STRIDE_TILES = 2  # a strided up-scaling may wrap (tile) at most this many times
MAX_STRIDE_SHIFT = 2  # and is shifted by at most this many input cells a side


def _strided_scalings(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
) -> list[tuple[tuple[int, int], bool, tuple[int, int], range]]:
    """(factor, down, stride, dihedral elements) for up-scalings followed by a stride on some
    axis (output cell i reads ⌊i·s/f⌋): per output axis, f and s (coprime, s in STRIDES) with
    out·s = in·f·t on every pair, t the same whole number of tiles (at most MAX_STRIDE_TILES),
    for the input read straight (elements 0–3) or turned (4–7). On an axis where every
    output has its input's side, a stride of 2 wraps twice: a sampled grid tiled back to
    the input's size (on an odd side, every second cell, then the others)."""
    found = []
    for turned in (False, True):
        per_axis = []
        for axis in (0, 1):
            sides = [(x.shape[axis ^ turned], y.shape[axis]) for x, y in pairs]
            per_axis.append([(f, s) for f, s, _ in axis_strides(sides)])
        elements = range(4, 8) if turned else range(4)
        for (f_r, s_r), (f_c, s_c) in itertools.product(*per_axis):
            if (s_r, s_c) != (1, 1):
                found.append(((f_r, f_c), False, (s_r, s_c), elements))
    return found


def axis_strides(sides: Sequence[tuple[int, int]], thens: Sequence[int] = (1,)) -> list[tuple[int, int, int]]:
    """For one axis's (in, out) sides: (f, s, g), an up-scaling by f then a stride s (coprime,
    s in STRIDES), then the second layer's up-scaling by g among `thens` (1: none), with
    out·s = in·f·g·t on every side, t the same whole number of tiles, at most MAX_STRIDE_TILES."""
    return [
        (f, s, g)
        for s in STRIDES
        for f in SCALE_FACTORS
        for g in thens
        if math.gcd(f, s) == 1 and (tiles := tiles_of(s, f * g, sides)) is not None and tiles <= MAX_STRIDE_TILES
    ]


def tiles_of(f: int, g: int, sides: Sequence[tuple[int, int]]) -> int | None:
    """The whole number of tiles t with out·f = in·g·t on every (in, out) side of one axis,
    the same on all of them, or None."""
    tiles = {(out * f) // (side * g) if (out * f) % (side * g) == 0 else 0 for side, out in sides}
    return tiles.pop() if len(tiles) == 1 and min(tiles) > 0 else None


def _wraps(
    factor: tuple[int, int],
    down: bool,
    stride: tuple[int, int],
    sides: Sequence[tuple[int, int]],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
) -> bool:
    """Does a scaling by `factor` (down, or up then `stride`) read past the edge of some input
    lattice (`sides`, turned as a dihedral element turns them) on some pair's output, so that
    it tiles there?"""
    return any(_wrapping_axes(factor, down, stride, sides, pairs))


def _wrapping_axes(
    factor: tuple[int, int],
    down: bool,
    stride: tuple[int, int],
    sides: Sequence[tuple[int, int]],
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
) -> tuple[bool, bool]:
    """Per output axis: does the scaling (as `_wraps`) read past the input's edge on some pair?"""
    wrapping = [False, False]
    for (n_rows, n_cols), (_, y) in zip(sides, pairs, strict=True):
        for axis, (n_out, n_in, f, s) in enumerate(zip(y.shape, (n_rows, n_cols), factor, stride, strict=True)):
            wrapping[axis] |= ((n_out - 1) * f if down else (n_out - 1) * s // f) >= n_in
    return wrapping[0], wrapping[1]


def _down_factors(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[tuple[int, int]]:
    """The strides (a, b) ≠ (1, 1) by which every input is a whole multiple of its output,
    or of its output's transpose: the down-scalings a reading by sampling may take."""
    found = []
    for turned in (False, True):
        ratio = common_factor([(x.shape, y.shape) for x, y in pairs], turned, down=True)
        if ratio is None:
            continue
        a, b = ratio[::-1] if turned else ratio  # per output axis when the output is transposed
        for f in ((a, b), (b, a)):
            if f != (1, 1) and set(f) <= set(SCALE_FACTORS) and f not in found:
                found.append(f)
    return found


MAX_SAMPLED_MARGIN = 2  # sampled cells a cropped or padded sampling may lose or gain a side


def _cropped_down_factors(pairs: Sequence[tuple[np.ndarray, np.ndarray]], most: int = 3) -> list[tuple[int, int]]:
    """Strides (a, b), each up to `most` and one above 1, where on each axis every output
    side times the stride is its input side plus one margin c, the same on every pair, of
    at most MAX_SAMPLED_MARGIN strides, and not 0 on both axes (outputs read straight or
    transposed; both orders, as `_down_factors` gives them): a sampling with a crop or a
    padding before or after it, which a sampling at an offset, cut or filled at the edges,
    reads. A stride above 1 needs input sides that vary on its axis, so that the pairs pin
    it down, and outputs shorter than their inputs there."""
    found = []
    for turned in (False, True):
        shapes = [(x.shape, y.shape[::-1] if turned else y.shape) for x, y in pairs]
        per_axis = []
        for axis in (0, 1):
            options = []  # (stride, margin)
            varied = len({i[axis] for i, _ in shapes}) > 1 and all(o[axis] < i[axis] for i, o in shapes)
            for f in range(1, most + 1):
                margins = {o[axis] * f - i[axis] for i, o in shapes}
                if len(margins) == 1 and abs(c := margins.pop()) <= MAX_SAMPLED_MARGIN * f and (f == 1 or varied):
                    options.append((f, c))
            per_axis.append(options)
        for (a, c_r), (b, c_c) in itertools.product(*per_axis):
            if (a, b) == (1, 1) or (c_r, c_c) == (0, 0):
                continue  # no sampling, or an exact one (`_down_factors`)
            for stride in ((a, b), (b, a)):
                if stride not in found:
                    found.append(stride)
    return found


def _tiled_down_factors(pairs: Sequence[tuple[np.ndarray, np.ndarray]], most: int = 3) -> list[tuple[int, int]]:
    """Strides (a, b) per output axis, one of them above 1, whose sampled grid the output
    tiles along some axis (every output side a whole multiple, the same on every pair and
    above 1 on some axis, of its input side over the stride; outputs read straight or
    transposed): a down-scaling in one direction and a tiling in the other, which a sampling
    that wraps cyclically reads."""
    found = []
    for turned in (False, True):
        per_axis = []
        for axis in (0, 1):
            options = []
            for f in range(1, most + 1):
                multiples = set()
                for x, y in pairs:
                    n_in, n_out = x.shape[axis], (y.shape[::-1] if turned else y.shape)[axis]
                    if n_in % f or n_out % (n_in // f):
                        break
                    multiples.add(n_out // (n_in // f))
                else:
                    if len(multiples) == 1:
                        options.append((f, multiples.pop()))
            per_axis.append(options)
        for (a, k_r), (b, k_c) in itertools.product(*per_axis):
            resized = (k_r, k_c) != (a, b)  # a grid of its input's own size is no down-scaling
            stride = (b, a) if turned else (a, b)  # per output axis
            if (a, b) != (1, 1) and (k_r, k_c) != (1, 1) and resized and stride not in found:
                found.append(stride)
    return found
