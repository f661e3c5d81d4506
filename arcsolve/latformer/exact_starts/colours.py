"""What a set's heads read on the train pairs (`set_readings`), and the colours its fit
keeps fixed: the background (`background_colour`) and the colours its cell rule tells
apart (`colours_to_fix`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from arcsolve.colour_views import most_frequent_colour
from arcsolve.latformer.exact_starts.action_sets import ActionSet, is_function
from arcsolve.latformer.exact_starts.chains import chain_reading
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
    top = {most_frequent_colour(x) for x, _ in pairs}
    return top.pop() if len(top) == 1 else 0


def set_readings(start: ActionSet, pairs: Sequence[tuple[np.ndarray, np.ndarray]], shift_bits: int = 5) -> np.ndarray:
    """(heads, cells) what each head of `start` reads in every train output cell, the pairs'
    cells one after another; with per-tile actions, one head whose cells read through their
    own tile's action; with a second layer's action or a stage, what the output cell reads
    through it."""
    if start.chain is not None:  # one head, through every step of its chain
        return np.concatenate([chain_reading(start, x, y.shape).reshape(1, -1) for x, y in pairs], axis=1)
    actions = [cell for a in start.actions for cell in (block_cells(a) if a.pool else [a])]  # a pooling: its cells

    def pair_readings(x: np.ndarray, shape: tuple[int, int]) -> np.ndarray:  # (heads, cells of shape)
        inner = shape if start.middle is None else middle_shape(shape, start.middle)
        read = np.stack([reading(a, x, inner, shift_bits).reshape(-1) for a in actions])
        if start.tiles != (1, 1):
            tile = tile_index(inner, start.tiles, start.lines)
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

    clashes = {c: {d for d in seen if d != c and _swap_contradicts(readings, outputs, c, d)} for c in seen}
    kept = {c for c in seen if ((readings == c) & (readings == outputs[None])).any()}
    free: list[int] = []
    # among colours that clash alike, one that some cell keeps goes free first: permuting it
    # teaches that a colour the pairs never show keeps itself, not that it takes another's
    for c in sorted(seen, key=lambda c: (len(clashes[c]), c not in kept, c)):
        if not clashes[c] & set(free):
            free.append(c)
    return tuple(sorted(fixed | (set(seen) - set(free))))


def _swap_contradicts(readings: np.ndarray, outputs: np.ndarray, c: int, d: int) -> bool:
    """Would swapping colours c and d in the readings (heads × cells) and the outputs contradict
    the pairs: some readings, or their swap, asking for two colours?"""
    lut = np.arange(-1, 10)
    lut[c + 1], lut[d + 1] = d, c
    keys = cell_keys(np.concatenate([readings, lut[readings + 1]], axis=1))
    return not is_function(keys, np.concatenate([outputs, lut[outputs + 1]]))


def swapped_unseen(
    start: ActionSet,
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    grid: np.ndarray,
    predicted: np.ndarray,
    shift_bits: int = 5,
) -> np.ndarray | None:
    """The other answer for the test cells whose readings no train cell reads, where one of
    their colours, c, is read by no train cell at all: the rule's answer with c and one other
    colour a swapped, σ(rule(σ(readings))), σ = (a c). a is the only colour for which σ takes
    the cell's readings to readings the train pairs answer and agrees with the rule wherever
    the pairs answer both a reading and its swap (the pairs showed one direction of a swap:
    a becomes c, and c's answer is a). `predicted` is the fit's answer on the test input
    `grid`; None where no cell changes, and for a start whose readings are no colours (a
    pooling's blocks, read as multisets)."""
    found = _readings_rule(start, pairs, shift_bits)
    if found is None:
        return None
    train, outputs, rule = found
    read_colours = {c for key in rule for c in key}
    test = set_readings(start, [(grid, predicted)], shift_bits)
    answer = predicted.reshape(-1).copy()
    partners: dict[int, int | None] = {}
    for cell, key in enumerate(map(tuple, test.T.tolist())):
        unseen = {c for c in key if c >= 0 and c not in read_colours}
        if key in rule or len(unseen) != 1:
            continue
        (c,) = unseen
        if c not in partners:
            # a swap of c with a colour no train cell reads moves no readings: it tells nothing
            fits = [a for a in read_colours - {c, -1} if not _swap_contradicts(train, outputs, a, c)]
            partners[c] = fits[0] if len(fits) == 1 else None
        a = partners[c]
        swapped = None if a is None else rule.get(tuple(_swap(v, a, c) for v in key))
        if swapped is not None:
            answer[cell] = _swap(swapped, a, c)
    answer = answer.reshape(predicted.shape)
    return None if np.array_equal(answer, predicted) else answer


def _readings_rule(
    start: ActionSet, pairs: Sequence[tuple[np.ndarray, np.ndarray]], shift_bits: int = 5
) -> tuple[np.ndarray, np.ndarray, dict[tuple[int, ...], int]] | None:
    """What `start`'s heads read in every train output cell (heads × cells), the cells'
    colours, and the output colour of each reading (`_table`); None for a start whose
    readings are no colours (a pooling's blocks, read as multisets) or where the outputs are
    no rule of the readings alone."""
    if any(a.pool for a in start.actions):
        return None
    train = set_readings(start, pairs, shift_bits)
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs])
    rule = _table(map(tuple, train.T.tolist()), outputs)
    return None if rule is None else (train, outputs, rule)


def _table(keys: Iterable[tuple[int, ...]], outputs: np.ndarray) -> dict[tuple[int, ...], int] | None:
    """The output colour of each key, the train cells' keys in order against `outputs`; None
    where two cells of one key ask for different colours."""
    table: dict[tuple[int, ...], int] = {}
    for key, o in zip(keys, outputs.tolist(), strict=True):
        if table.setdefault(key, o) != o:
            return None
    return table


def permuted_unseen(
    start: ActionSet,
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    grid: np.ndarray,
    predicted: np.ndarray,
    shift_bits: int = 5,
) -> np.ndarray | None:
    """The other answer for the test cells of a one-reading start (one head, per tile or
    chained alike) that read a colour c no train input holds, where the rule maps the colours
    its cells read one to one and turns some colour into c: c takes the one colour that makes
    the map a permutation (read by train cells, but given by none). So a swap seen one way (a
    becomes c: c becomes a) and a cycle of three seen two steps of it (a becomes b, b becomes
    c: c becomes a) are completed. What cells that read nothing take is left out of the map.
    `predicted` is the fit's answer on the test input `grid`; None where no cell changes, for
    a start of several readings or a pooling, and where the map is not one to one or leaves
    no single colour for c."""
    found = _readings_rule(start, pairs, shift_bits)
    if found is None or found[0].shape[0] != 1:
        return None
    rule = found[2]
    colours = {key[0]: colour for key, colour in rule.items() if key[0] >= 0}
    image = set(colours.values())
    if len(image) != len(colours):
        return None  # two colours become one: no permutation
    held = {int(c) for x, _ in pairs for c in np.unique(x)}
    test = set_readings(start, [(grid, predicted)], shift_bits)[0]
    unseen = {int(c) for c in np.unique(test) if c >= 0 and c not in held and c not in colours}
    answer = predicted.reshape(-1).copy()
    for c in unseen & image:
        rest = (set(colours) | {c}) - image
        if len(rest) == 1:
            answer[test == c] = rest.pop()
    answer = answer.reshape(predicted.shape)
    return None if np.array_equal(answer, predicted) else answer


def _swap(colour: int, a: int, c: int) -> int:
    return c if colour == a else a if colour == c else colour


def presence_answer(
    start: ActionSet,
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    grid: np.ndarray,
    predicted: np.ndarray,
    shift_bits: int = 5,
) -> np.ndarray | None:
    """The other answer for the test cells whose readings no train cell reads, where the
    train pairs' rule depends only on which heads read the background, which read another
    colour and which read nothing (its presence pattern), and the pairs show two colours or
    more besides the background in the readings (so the rule shows that it does not care
    which): each such cell takes the answer of its presence pattern, where the pairs show
    it. An overlay of halves by xor answers a test drawn in a colour no pair draws.
    `predicted` is the fit's answer on the test input `grid`; None where no cell changes, and
    for a start whose readings are no colours (a pooling's blocks) or whose rule is built."""
    if start.rule is not None or any(a.pool for a in start.actions):
        return None
    background = background_colour(pairs)
    train = set_readings(start, pairs, shift_bits)
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs])
    others = {int(c) for c in np.unique(train)} - {background, -1}
    if len(others) < 2:
        return None
    seen = {tuple(k) for k in train.T.tolist()}
    by_presence = _table((_presence(key, background) for key in train.T.tolist()), outputs)
    if by_presence is None:
        return None  # the colours read matter, not only which heads read one
    test = set_readings(start, [(grid, predicted)], shift_bits)
    answer = predicted.reshape(-1).copy()
    for cell, key in enumerate(test.T.tolist()):
        if tuple(key) not in seen:
            answer[cell] = by_presence.get(_presence(key, background), answer[cell])
    answer = answer.reshape(predicted.shape)
    return None if np.array_equal(answer, predicted) else answer


def _presence(key: Sequence[int], background: int) -> tuple[int, ...]:
    """Per head: 0 reads nothing, 1 the background, 2 another colour."""
    return tuple(0 if c < 0 else 1 if c == background else 2 for c in key)
