"""Per-tile actions: where every output is a tiling of the input's size or its transpose's
(`tiling`), one head whose tiles each take their own exact action (`per_tile_sets`):
dihedral elements, those of the input rolled cyclically, or samplings after them."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet, is_function, support, train_cells
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.readings import reading
from arcsolve.latformer.model import tile_cells

MAX_TILES = 81  # per-tile actions are tried on tilings of at most this many tiles (9×9)


def tiling(pairs: Sequence[tuple[np.ndarray, np.ndarray]], factor: tuple[int, int] = (1, 1)) -> tuple[int, int] | None:
    """(a, b) when every train output is an a×b tiling of input-sized tiles (2 to MAX_TILES
    tiles, the same for every pair), or else of tiles the size of the input's transpose
    (rotated or transposed copies), else None; with a `factor`, of tiles the size of the
    input sampled by it (every input side a multiple of it)."""
    for turned in (False, True) if factor == (1, 1) else (False,):
        found = set()
        for x, y in pairs:
            (h, w), (H, W) = x.shape[::-1] if turned else x.shape, y.shape
            if h % factor[0] or w % factor[1]:
                break
            h, w = h // factor[0], w // factor[1]
            if H % h or W % w:
                break
            found.add((H // h, W // w))
        else:
            if len(found) == 1 and 2 <= (tiles := found.pop())[0] * tiles[1] <= MAX_TILES:
                return tiles
    return None


def tile_index(out_shape: tuple[int, int], tiles: tuple[int, int], lines: int = 0) -> np.ndarray:
    """The tile of each output cell (row-major), as the model's per-tile heads see it (with
    `lines`, a per-panel head's: the lines' cells are tile a·b)."""
    return tile_cells(tuple(out_shape), tiles, None, lines).argmax(0).numpy()


MAX_TILE_SHIFT = 3  # per-tile actions may shift their tile's copy cyclically by at most this much a side
MAX_TILE_SAMPLING = 3  # per-tile actions may sample their tile's copy every 2nd or 3rd cell a side


def per_tile_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
    max_tries: int = 512,
    sampled: bool = False,
) -> list[ActionSet]:
    """Where every output is a tiling of the input's size (or its transpose's): one action per
    tile such that the output is one function of the head's reading, cell by cell, in every
    tile (each tile a rotated or reflected copy, recoloured alike: tilings of mirror tilings
    and mirror tilings of tilings among them); at most one such set, and none when one action serves every tile
    (a plain tiling, which `consistent_sets` has). The tiles' actions are dihedral elements
    or, where those explain no set, dihedral elements of the input shifted cyclically by at
    most `MAX_TILE_SHIFT` a side (a tiling of a rolled grid's mirror images). With
    `sampled`, instead: tilings of the input sampled every f-th cell a side (f up to
    `MAX_TILE_SAMPLING`), each tile a rotated or reflected copy of the sampled grid, read as
    a sampling after the element, at the cell of each block that the element brings first
    (the first factor that gives a set)."""
    if not sampled:
        return _per_tile_set(pairs, tests, shift_bits, max_tries)
    factors = itertools.product(range(1, MAX_TILE_SAMPLING + 1), repeat=2)
    for factor in sorted((f for f in factors if f != (1, 1)), key=lambda f: (f[0] * f[1], f)):
        found = _per_tile_set(pairs, tests, shift_bits, max_tries, factor)
        if found:
            return found
    return []


def _per_tile_set(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    shift_bits: int,
    max_tries: int,
    factor: tuple[int, int] = (1, 1),
) -> list[ActionSet]:
    """`per_tile_sets` on tiles of the input's size (`factor` (1, 1)) or of the input
    sampled by `factor`."""
    tiles = tiling(pairs, factor)
    if tiles is None:
        return []
    tile_of = np.concatenate([tile_index(y.shape, tiles) for _, y in pairs])
    outputs, pair_of = train_cells(pairs)
    n_tiles = tiles[0] * tiles[1]
    if factor != (1, 1):
        # a block's f cells, in any order the elements bring them: the least moved first
        offsets = sorted(itertools.product(range(factor[0]), range(factor[1])), key=lambda o: (sum(o), o))
        sampled = {}
        for offset, d in itertools.product(offsets, range(8)):
            action = ExactAction(d, (-offset[0], -offset[1]), factor, down=True)
            try:
                read = [reading(action, x, y.shape, shift_bits).reshape(-1) for x, y in pairs]
            except ValueError:
                continue
            sampled[action] = np.concatenate(read)
        found = tile_choice(sampled, tile_of, outputs, n_tiles, max_tries)
        if found is None:
            return []
        actions, keys = found
    else:
        dihedral = {}
        for d in range(8):
            try:
                read = [reading(ExactAction(d), x, y.shape, shift_bits).reshape(-1) for x, y in pairs]
            except ValueError:
                continue
            dihedral[d] = np.concatenate(read)
        reads = {(d, (0, 0)): r for d, r in dihedral.items()}
        found = tile_choice(reads, tile_of, outputs, n_tiles, max_tries)
        if found is None:
            reads.update(_rolled_readings(pairs, list(dihedral), shift_bits))
            found = tile_choice(reads, tile_of, outputs, n_tiles, max_tries)
        if found is None:
            return []
        choice, keys = found
        as_action = {option: _shifted_action(*option, pairs, reads[option], shift_bits) for option in set(choice)}
        if None in as_action.values():
            return []  # a roll that none of the experts' shifts reads
        actions = tuple(as_action[option] for option in choice)
    test_keys = []
    for x, shape in tests:
        read_test = np.stack([reading(act, x, shape, shift_bits).reshape(-1) for act in actions])
        tile = tile_index(shape, tiles)
        test_keys.append(read_test[tile, np.arange(len(tile))] + 1)
    return [ActionSet(tuple(actions), *support(keys, pair_of, len(pairs), test_keys), tiles)]


TileOption = tuple[int, tuple[int, int]]  # a dihedral element of the input rolled by (a, b)


def tile_choice(
    reads: dict[Hashable, np.ndarray], tile_of: np.ndarray, outputs: np.ndarray, n_tiles: int, max_tries: int
) -> tuple[tuple[Hashable, ...], np.ndarray] | None:
    """One option per tile, from `reads` (each option's reading of every train output cell,
    in the order given: the simplest first), under which each tile's outputs and then all of
    them together are one function of the reading; None when there is none, or when one
    option serves every tile."""
    fits = {option: _function_per_tile(r, tile_of, outputs, n_tiles) for option, r in reads.items()}
    options = [[option for option, ok in fits.items() if ok[t]] for t in range(n_tiles)]
    if not all(options):
        return None
    for choice in itertools.islice(itertools.product(*options), max_tries):
        if len(set(choice)) == 1:
            continue
        keys = np.stack([reads[option] for option in choice])[tile_of, np.arange(len(tile_of))] + 1
        if is_function(keys, outputs):
            return choice, keys
    return None


def _function_per_tile(read: np.ndarray, tile_of: np.ndarray, outputs: np.ndarray, n_tiles: int) -> np.ndarray:
    """Per tile: are its output cells a function of their reading (no two cells that read
    alike ask for different colours)?"""
    triples = np.unique((tile_of * 12 + read + 1) * 10 + outputs)  # (tile, reading, colour), readings −1…10
    keys = triples // 10
    clash = keys[1:] == keys[:-1]
    ok = np.ones(n_tiles, dtype=bool)
    ok[keys[1:][clash] // 12] = False
    return ok


def _rolled_readings(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], elements: Sequence[int], shift_bits: int = 5
) -> dict[TileOption, np.ndarray]:
    """Each dihedral element's reading of the input rolled cyclically by (a, b), |a|, |b| ≤
    `MAX_TILE_SHIFT` (the least rolled first)."""
    most = min(MAX_TILE_SHIFT, min(min(x.shape) for x, _ in pairs) // 2)
    rolls = sorted(
        ((a, b) for a in range(-most, most + 1) for b in range(-most, most + 1) if (a, b) != (0, 0)),
        key=lambda r: (abs(r[0]) + abs(r[1]), r),
    )
    return {
        (d, delta): np.concatenate(
            [reading(ExactAction(d), np.roll(x, delta, axis=(0, 1)), y.shape, shift_bits).reshape(-1) for x, y in pairs]
        )
        for delta in rolls
        for d in elements
    }


def shift_variants(delta: tuple[int, int]) -> list[tuple[int, int]]:
    """The shifts that may move a dihedral element's reading by `delta`: its signs and axes in
    every combination (a shift acts on the output's side of the element, so the element turns
    it), each once, `delta` itself first."""
    a, b = delta
    return list(dict.fromkeys(((a, b), (-a, -b), (a, -b), (-a, b), (b, a), (-b, -a), (b, -a), (-b, a))))


def _shifted_action(
    d: int, delta: tuple[int, int], pairs: Sequence[tuple[np.ndarray, np.ndarray]], rolled: np.ndarray, shift_bits: int
) -> ExactAction | None:
    """The action of element `d` with a cyclic shift that reads, on every pair, what `d` reads
    of the input rolled by `delta` (the shift is on the output's side of the element, so its
    axes and signs follow the element); None when none of the experts' shifts does."""
    for shift in shift_variants(delta):
        action = ExactAction(d, shift)
        try:
            read = np.concatenate([reading(action, x, y.shape, shift_bits).reshape(-1) for x, y in pairs])
        except ValueError:
            continue
        if np.array_equal(read, rolled):
            return action
    return None
