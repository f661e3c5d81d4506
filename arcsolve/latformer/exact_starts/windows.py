"""Outputs that are one head's action inside a window of a larger canvas, the rest one
colour (`windowed_sets`): the windows tried, the tightest first, and the keys a windowed
set reads (`_window_keys`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import (
    ActionSet,
    is_function,
    longer_than_the_data,
    support,
    train_cells,
)
from arcsolve.latformer.exact_starts.actions import ExactAction, scale_bits
from arcsolve.latformer.exact_starts.readings import NOTHING, reading, then_reading
from arcsolve.latformer.exact_starts.single_heads import single_actions
from arcsolve.latformer.experts import MAX_FACTOR

MAX_WINDOWS = 8  # windows (sizes and offsets) whose contents are searched, at most (the tightest first)
MAX_SCREENED_WINDOWS = 400  # windows whose tightness is measured, at most (the least scaled and moved first)
MAX_LOOSE_WINDOW = 3  # windows of up to this many input sides (a side) may leave margins that vary by pair


def windowed_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
    most: int = 1,
) -> list[ActionSet]:
    """Outputs that are one head's action of the input inside a window of a larger canvas,
    the rest one colour: a grid tiled, mirrored, scaled or shifted, then padded or set on a
    canvas. The window is K_r·h × K_c·w input-sized (or turned) cells at one offset (top, left)
    on every pair (with margins that vary by pair only for K ≤ `MAX_LOOSE_WINDOW`), K whole or
    a fraction p/q (q of 2 or 3, with fixed margins: a grid scaled by 3/2, then padded), and
    its content is any one-head action (`single_actions`) of the outputs cut to it. As a
    model: the first layer's heads are the content's action on the whole output lattice and a
    window head (the input up-scaled by p with fill, strided by q: it reads something exactly
    inside a K_r·h × K_c·w window at the lattice's start), and the second layer shifts that by
    (top, left) with fill. At most `most` sets, the tightest window first."""
    outs = [y.shape for _, y in pairs]
    # a margin colour: one that every output holds; the window then holds each output's other cells
    colours = sorted(set.intersection(*(set(np.unique(y).tolist()) for _, y in pairs)))
    windows = []
    # fractional windows only where the outputs' sizes differ from the inputs' (on a task of
    # one size, a window of part of the input with fixed margins is a crop's business)
    fractions = (1,) if all(x.shape == y.shape for x, y in pairs) else (1, 2, 3)
    for turned in (False, True):
        sides = [x.shape[::-1] if turned else x.shape for x, _ in pairs]
        per_axis = []
        for axis in (0, 1):
            options = []  # ((p, q), the least room, any room) with out ≥ side·p/q on every pair
            for q, k in itertools.product(fractions, range(1, MAX_FACTOR + 1)):
                if math.gcd(k, q) > 1 or any(s[axis] * k % q for s in sides):
                    continue  # the window's side is no whole number of cells
                rooms = {o[axis] - s[axis] * k // q for s, o in zip(sides, outs, strict=True)}
                if min(rooms) < 0 or (k > 1 and scale_bits(k) is None):
                    continue  # past some output's edge, or no scaling of the experts
                if len(rooms) == 1 or (q == 1 and k <= MAX_LOOSE_WINDOW):
                    options.append(((k, q), min(rooms), max(rooms) > 0))
            per_axis.append(options)
        for margin in colours:
            boxes = [_box(y != margin) for _, y in pairs]
            for (k_r, c_r, room_r), (k_c, c_c, room_c) in itertools.product(*per_axis):
                if not (room_r or room_c):
                    continue  # no margin: the content's own action
                tops = _offsets(boxes, [_window_side(s[0], k_r) for s in sides], c_r, 0)
                lefts = _offsets(boxes, [_window_side(s[1], k_c) for s in sides], c_c, 1)
                windows += [(turned, (k_r, k_c), (top, left), margin) for top in tops for left in lefts]
    windows = list({w[:3]: w for w in reversed(windows)}.values())  # one margin colour a window: the first
    windows.sort(key=lambda w: (w[1][0][0] * w[1][1][0] / (w[1][0][1] * w[1][1][1]), w[2][0] + w[2][1], w[2]))
    outputs, pair_of = train_cells(pairs)
    test_lattices = [(x, np.zeros(shape, dtype=np.int64)) for x, shape in tests]
    found: list[ActionSet] = []
    ranked = []  # the windows, with how tight they are
    for turned, (k_r, k_c), (top, left), margin in windows[:MAX_SCREENED_WINDOWS]:
        sizes = [x.shape[::-1] if turned else x.shape for x, _ in pairs]
        cut = [
            y[top : top + _window_side(h, k_r), left : left + _window_side(w, k_c)]
            for (_, y), (h, w) in zip(pairs, sizes, strict=True)
        ]
        ranked.append((-_tight_edges(cut, margin), turned, (k_r, k_c), (top, left), cut))
    ranked.sort(key=lambda w: w[0])  # stable: the least moved first among equally tight windows
    choices = len(ranked) * 8  # windows, and contents (`single_actions`, at most 8) in each
    for _, turned, (k_r, k_c), (top, left), cut in ranked[:MAX_WINDOWS]:
        (p_r, q_r), (p_c, q_c) = k_r, k_c
        window = ExactAction(4 if turned else 0, scale=(p_r, p_c), fill=True, stride=(q_r, q_c))
        then = ExactAction(0, (top, left), fill=True)
        inner = [(x, c) for (x, _), c in zip(pairs, cut, strict=True)]
        for content in single_actions(inner, shift_bits=shift_bits, placed=False):  # not padded again
            start = ActionSet((content, window), 0, 0, then=then, window=True)
            try:
                keys = _window_keys(start, pairs, shift_bits)
                test_keys = [_window_keys(start, [lattice], shift_bits) for lattice in test_lattices]
            except ValueError:
                continue  # the content is no action of the experts on the whole output lattice
            if keys is None or not is_function(keys, outputs):
                continue
            entries = len(np.unique(keys))
            if entries == len(keys) or longer_than_the_data(choices, entries, outputs):
                continue  # a table of positions, or chosen among so many windows that it may be chance
            if any(k is None for k in test_keys):
                continue  # the window does not fit a test output
            unsupported, unseen = support(keys, pair_of, len(pairs), test_keys)
            found.append(replace(start, unsupported=unsupported, unseen=unseen))
            break
        if len(found) == most:
            break
    return found


def _tight_edges(cut: Sequence[np.ndarray], margin: int) -> int:
    """How many of a window's four edges (first and last row and column) hold a cell of
    another colour than the margins' on some pair: a window that fits its content closely
    is tried before one that takes some of the margin in."""
    edges = ((0, slice(None)), (-1, slice(None)), (slice(None), 0), (slice(None), -1))
    return sum(any((c[edge] != margin).any() for c in cut if c.size) for edge in edges)


def _box(cells: np.ndarray) -> tuple[int, int, int, int] | None:
    """The bounding box (top, bottom, left, right; bottom and right past the end) of the true
    cells, None when there are none."""
    rows, cols = np.nonzero(cells.any(1))[0], np.nonzero(cells.any(0))[0]
    if rows.size == 0:
        return None
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def _offsets(boxes: Sequence[tuple[int, int, int, int] | None], sides: Sequence[int], room: int, axis: int) -> range:
    """The offsets on one axis at which a window of each pair's side (`sides`) holds its
    box, within the least room that every output leaves."""
    held = [(b[2 * axis], b[2 * axis + 1], side) for b, side in zip(boxes, sides, strict=True) if b is not None]
    low = max([0] + [end - side for _, end, side in held])
    high = min([room] + [start for start, _, _ in held])
    return range(low, high + 1)


def _window_side(side: int, fraction: tuple[int, int]) -> int:
    """A window's side: `side` input cells scaled by the fraction (p, q), p/q."""
    return side * fraction[0] // fraction[1]


def _window_keys(
    start: ActionSet, pairs: Sequence[tuple[np.ndarray, np.ndarray]], shift_bits: int = 5
) -> np.ndarray | None:
    """Each output cell's key under a windowed set: the content's reading where the window
    head reads something, NOTHING elsewhere, as the second layer's shift reads them (+1, so
    that NOTHING is 0); None when the window does not fit an output lattice."""
    content, window = start.actions
    keys = []
    for x, y in pairs:
        inside = reading(window, x, y.shape, shift_bits) != NOTHING
        (h, w) = x.shape[::-1] if window.dihedral >= 4 else x.shape
        rows = _window_side(h, (window.scale[0], window.stride[0]))
        cols = _window_side(w, (window.scale[1], window.stride[1]))
        if start.then.shift[0] + rows > y.shape[0] or start.then.shift[1] + cols > y.shape[1]:
            return None
        first = np.where(inside, reading(content, x, y.shape, shift_bits), NOTHING)
        keys.append(then_reading(start.then, first, shift_bits).reshape(-1) + 1)
    return np.concatenate(keys)
