"""What a set's heads read on the train pairs (`set_readings`), and the colours its fit
keeps fixed: the background (`background_colour`) and the colours its cell rule tells
apart (`colours_to_fix`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet, is_function
from arcsolve.latformer.exact_starts.per_tile import tile_index
from arcsolve.latformer.exact_starts.readings import (
    block_cells,
    cell_keys,
    reading,
    source_cells,
    then_reading,
)
from arcsolve.latformer.model import middle_shape


def background_colour(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> int:
    """The colour that covers the most cells of every train input, or 0 when no one colour does."""
    top = {int(np.bincount(x.reshape(-1), minlength=10).argmax()) for x, _ in pairs}
    return top.pop() if len(top) == 1 else 0


def set_readings(start: ActionSet, pairs: Sequence[tuple[np.ndarray, np.ndarray]], shift_bits: int = 5) -> np.ndarray:
    """(heads, cells) what each head of `start` reads in every train output cell, the pairs'
    cells one after another; with per-tile actions, one head whose cells read through their
    own tile's action; with a second layer's action or a stage, what the output cell reads
    through it."""
    actions = [cell for a in start.actions for cell in (block_cells(a) if a.pool else [a])]  # a pooling: its cells

    def pair_readings(x: np.ndarray, shape: tuple[int, int]) -> np.ndarray:  # (heads, cells of shape)
        inner = shape if start.middle is None else middle_shape(shape, start.middle)
        read = np.stack([reading(a, x, inner, shift_bits).reshape(-1) for a in actions])
        if start.tiles != (1, 1):
            tile = tile_index(inner, start.tiles)
            read = read[tile, np.arange(len(tile))][None]
        if start.stage is not None:
            cells = source_cells(start.stage, inner, shape, shift_bits)  # onto every output cell
            read = read[:, cells]
        if start.then is not None:
            read = np.stack([then_reading(start.then, r.reshape(shape), shift_bits).reshape(-1) for r in read])
        return read

    return np.concatenate([pair_readings(x, y.shape) for x, y in pairs], axis=1)


def colours_to_fix(readings: np.ndarray, outputs: np.ndarray, background: int = 0) -> tuple[int, ...]:
    """The colours a fit's colour permutations must leave alone, given what its heads read
    (heads × cells) and the outputs (cells): the background, the colours an output cell
    takes that none of its heads reads there (the rule introduces them), and those whose
    swap with another colour would contradict the pairs (the rule tells them apart, as when
    it erases one colour and keeps the rest). The others are free: the rule treats them
    alike, so permuting them teaches it colours the train pairs never show. Where the
    background is not 0 (`background_colour`), 0 is one of the others."""
    introduced = outputs[(outputs != background) & ~(readings == outputs[None]).any(0)]
    fixed = {background, *introduced.tolist()}
    seen = sorted({c for c in np.unique(readings).tolist() + np.unique(outputs).tolist() if c >= 0} - fixed)

    def conflict(c: int, d: int) -> bool:
        lut = np.arange(-1, 10)
        lut[c + 1], lut[d + 1] = d, c
        keys = cell_keys(np.concatenate([readings, lut[readings + 1]], axis=1))
        return not is_function(keys, np.concatenate([outputs, lut[outputs + 1]]))

    clashes = {c: {d for d in seen if d != c and conflict(c, d)} for c in seen}
    kept = {c for c in seen if ((readings == c) & (readings == outputs[None])).any()}
    free: list[int] = []
    # among colours that clash alike, one that some cell keeps goes free first: permuting it
    # teaches that a colour the pairs never show keeps itself, not that it takes another's
    for c in sorted(seen, key=lambda c: (len(clashes[c]), c not in kept, c)):
        if not clashes[c] & set(free):
            free.append(c)
    return tuple(sorted(fixed | (set(seen) - set(free))))


def swapped_unseen(
    start: ActionSet,
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    grid: np.ndarray,
    predicted: np.ndarray,
    shift_bits: int = 5,
) -> np.ndarray | None:
    """The other answer for the test cells whose reading no train cell reads: where a
    one-head rule turns exactly one colour a into that colour c (a ≠ c), c is taken as a,
    the two swapped (the train pairs showed one direction only). `predicted` is the fit's
    answer on the test input `grid`; None where no cell changes (more heads, or no such c)."""
    train = set_readings(start, pairs, shift_bits)
    if len(train) != 1:
        return None
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs])
    turned = {}  # reading -> the output colour the train pairs give it
    for a, o in zip(train[0].tolist(), outputs.tolist(), strict=True):
        if turned.setdefault(a, o) != o:
            return None  # not a rule of the reading alone
    read = set_readings(start, [(grid, predicted)], shift_bits)[0].reshape(predicted.shape)
    answer = predicted.copy()
    for c in np.unique(read).tolist():
        sources = [a for a, o in turned.items() if o == c and a not in (c, -1)]
        if c >= 0 and c not in turned and len(sources) == 1:
            answer[read == c] = sources[0]
    return None if np.array_equal(answer, predicted) else answer
