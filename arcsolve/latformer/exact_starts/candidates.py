"""The short candidate actions of a head, from a pair's shapes (`candidate_actions`:
dihedral elements, scalings by the size ratio, crops at the input's evenly spaced parts,
short shifts with fill), and the outputs' own symmetries and periods
(`output_symmetries`, `output_periods`): the views a picture with hidden cells is
completed from."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.readings import MAX_POOLED, NOTHING, follow, reading, source_cells
from arcsolve.latformer.experts import SCALE_FACTORS


def part_offsets(n_in: int, n_out: int, most: int = 4) -> list[int]:
    """Where the parts of an input axis of n_in cells begin, when it holds 2 to `most` parts
    of n_out cells evenly spaced (side by side, or apart by one or two separator lines):
    the first and last part always, the ones between when the spacing is whole."""
    offsets = {0, n_in - n_out}
    for parts in range(3, most + 1):
        step, rest = divmod(n_in - n_out, parts - 1)
        if not rest and n_out <= step <= n_out + 2:
            offsets |= {k * step for k in range(parts)}
    return sorted(offsets)


def candidate_actions(
    in_shape: tuple[int, int], out_shape: tuple[int, int], anchors: tuple[bool, bool] = (False, False)
) -> list[ExactAction]:
    """The exact actions worth a head for a pair of these shapes: the eight dihedral
    elements (tiling when the output is larger), up-scaling by the size ratio or by a part of
    it (the rest tiled), crops at the input's evenly spaced parts (`part_offsets`: its
    halves, thirds, quarters), and short shifts with fill. On an axis of `anchors` (where
    the inputs exceed their outputs by different amounts, `anchored_axes`), the last part is
    counted from the far edge, so that it is the last part of every grid, and so is the last
    part of the other axis beside it (the far corner)."""
    (h, w), (H, W) = in_shape, out_shape
    actions = [ExactAction(d) for d in range(8)]
    for a, b in {(H, W), (W, H)}:  # up-scaling, and up-scaling of a transposed image
        if a % h or b % w or (a, b) == (h, w):
            continue
        # by the size ratio, or by a part of it with the rest tiled (the reading wraps)
        for f_r, f_c in itertools.product(SCALE_FACTORS, SCALE_FACTORS):
            if (f_r, f_c) != (1, 1) and (a // h) % f_r == 0 and (b // w) % f_c == 0:
                actions += [ExactAction(d, scale=(f_r, f_c)) for d in range(8)]
    if H <= h and W <= w and (H, W) != (h, w):
        # per axis, (offset, anchored): the parts, the last one from the far edge where anchored
        axes = [
            [(-k, False) for k in part_offsets(n, m) if not (anchored and k == n - m)] + [(0, True)] * anchored
            for n, m, anchored in ((h, H, anchors[0]), (w, W, anchors[1]))
        ]
        for (r, a_r), (c, a_c) in itertools.product(*axes):
            # the far corner: an axis at its last part is anchored too where the other one is
            if a_c and h > H and r == H - h:
                r, a_r = 0, True
            if a_r and w > W and c == W - w:
                c, a_c = 0, True
            if (r, c, a_r, a_c) != (0, 0, False, False):
                actions.append(ExactAction(0, (r, c), anchor=(a_r, a_c)))
        if h % H == 0 and w % W == 0 and {h // H, w // W} <= set(SCALE_FACTORS):
            # down-scaling by a stride, from each cell of a block (the shift picks it)
            f_r, f_c = h // H, w // W
            actions += [
                ExactAction(0, (-r, -c), (f_r, f_c), down=True) for r in range(f_r) for c in range(f_c)
            ]
            if f_r * f_c <= MAX_POOLED:  # and each block read whole
                actions.append(ExactAction(0, scale=(f_r, f_c), down=True, pool=True))
    if (H, W) == (h, w):
        steps = range(-2, 3)
        actions += [ExactAction(0, (r, c), fill=True) for r in steps for c in steps if (r, c) != (0, 0)]
    return list(dict.fromkeys(actions))


def anchored_axes(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[bool, bool]:
    """Per axis, whether the train inputs exceed their outputs there by different amounts,
    each output no larger: only then do a crop's last part and a crop at a fixed offset read
    differently on the train pairs, and the pairs can tell which one they show."""
    return tuple(
        all(x.shape[a] >= y.shape[a] for x, y in pairs) and len({x.shape[a] - y.shape[a] for x, y in pairs}) > 1
        for a in (0, 1)
    )


def centred_crop(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> ExactAction | None:
    """The crop of each input's middle, on every axis where the outputs are smaller, where
    the inputs exceed their outputs by different amounts on some axis (`anchored_axes`):
    elsewhere it reads as a crop at a fixed offset. None where there is none."""
    told = anchored_axes(pairs)
    if not any(told):
        return None
    smaller = tuple(
        all(x.shape[a] >= y.shape[a] for x, y in pairs) and any(x.shape[a] > y.shape[a] for x, y in pairs)
        for a in (0, 1)
    )
    return ExactAction(centre=smaller) if all(s or not t for s, t in zip(smaller, told, strict=True)) else None


def stretched_reads(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[ExactAction]:
    """The input's lattice laid over the output's (`ExactAction.stretch`), after each dihedral
    element, where on each axis every output's side is a whole multiple of its input's, or
    every input's a whole multiple of its output's of two cells or more (one cell is a pick,
    not a sampling), and the pairs scale some axis by different factors (a grid blown up by
    its own side, 3×3 into 9×9 and 4×4 into 16×16; grids of 6, 9 and 12 cells a side sampled
    down to 3): with one factor, a scaling by it reads alike. Stretched on every axis that
    some pair scales."""
    actions = []
    for d in range(8):
        axes = [(x.shape[::-1] if d >= 4 else x.shape, y.shape) for x, y in pairs]
        ups = [all(out[a] % inp[a] == 0 for inp, out in axes) for a in (0, 1)]
        downs = [all(inp[a] % out[a] == 0 and out[a] > 1 for inp, out in axes) for a in (0, 1)]
        if not all(up or down for up, down in zip(ups, downs, strict=True)):
            continue
        ratios = [{Fraction(out[a], inp[a]) for inp, out in axes} for a in (0, 1)]
        if all(len(r) == 1 for r in ratios):
            continue
        actions.append(ExactAction(d, stretch=tuple(r != {Fraction(1)} for r in ratios)))
    return actions


def output_symmetries(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], max_shift: int = 4, most: int = 6, shift_bits: int = 5
) -> list[ExactAction]:
    """Rotations and reflections about axes up to `max_shift` cells off the centre (a
    dihedral element after a shift with fill) under which every train output is its own
    image: the reading equals the output wherever it reads a cell, on at least half of them.
    These are the views a picture with hidden cells is completed from. At most `most`,
    the least shifted first; none unless every output has its input's shape."""
    if any(x.shape != y.shape for x, y in pairs):
        return []
    steps = range(-max_shift, max_shift + 1)
    shifts = sorted(itertools.product(steps, steps), key=lambda s: (abs(s[0]) + abs(s[1]), s))
    found = []
    for delta in shifts:
        for d in range(1, 8):
            action = ExactAction(d, delta, fill=delta != (0, 0))
            ok = True
            for _, y in pairs:
                shape = tuple(y.shape)
                turned = source_cells(ExactAction(d), shape, shape, shift_bits)
                moved = source_cells(ExactAction(0, delta, fill=True), shape, shape, shift_bits)
                if turned is None or moved is None:
                    ok = False
                    break
                # read back: shift on the output lattice, then the dihedral element (a
                # quick screen; the kernels' own reading decides below)
                cells = follow(turned, moved)
                seen = cells >= 0
                if seen.mean() < 0.5 or not (y.reshape(-1)[cells[seen]] == y.reshape(-1)[seen]).all():
                    ok = False
                    break
            if ok and all(_is_image(action, y, shift_bits) for _, y in pairs):
                found.append(action)
                if len(found) == most:
                    return found
    return found


def output_periods(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], max_period: int = 12, most: int = 4, shift_bits: int = 5
) -> list[ExactAction]:
    """Translations (shifts with fill, up to `max_period` cells per axis) under which every
    train output is its own image on at least half its cells: the periods of a repeating
    pattern, the views its hidden cells are repaired from (a multiple of a period reaches
    past a hidden run longer than it). At most `most`, the shortest first; none unless every
    output has its input's shape."""
    if any(x.shape != y.shape for x, y in pairs):
        return []
    steps = range(-max_period, max_period + 1)
    shifts = sorted(
        (s for s in itertools.product(steps, steps) if s != (0, 0)), key=lambda s: (abs(s[0]) + abs(s[1]), s)
    )
    found: list[ExactAction] = []
    for dr, dc in shifts:
        ok = True
        for _, y in pairs:
            h, w = y.shape
            if (h - abs(dr)) * (w - abs(dc)) < 0.5 * h * w:
                ok = False
                break
            # output cell (i, j) reads (i − dr, j − dc): a quick screen in numpy, the
            # kernels' own reading decides below
            here = y[max(dr, 0) : h + min(dr, 0), max(dc, 0) : w + min(dc, 0)]
            there = y[max(-dr, 0) : h + min(-dr, 0), max(-dc, 0) : w + min(-dc, 0)]
            if not np.array_equal(here, there):
                ok = False
                break
        action = ExactAction(0, (dr, dc), fill=True)
        if ok and all(_is_image(action, y, shift_bits) for _, y in pairs):
            found.append(action)
            if len(found) == most:
                break
    return found


def _is_image(action: ExactAction, y: np.ndarray, shift_bits: int) -> bool:
    """Is y its own image under `action` (the model's reading), on at least half its cells?"""
    read = reading(action, y, y.shape, shift_bits)
    seen = read != NOTHING
    return bool(seen.mean() >= 0.5 and (read[seen] == y[seen]).all())
