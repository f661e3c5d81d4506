"""Staged starts: the heads act onto a middle lattice whose sides divide the output's, and one
more action, the stage, carries what they wrote onto the output lattice: up-scaled, tiled, or
tiled as mirror images (`ActionSet.stage`, `LatFormerConfig.middle`). Every train output is
read back through the stage onto the middle lattice (the copies of each middle cell must
agree), and the one-head and per-tile screens search those middle outputs. So a chain whose
last action tiles or up-scales what the others made is one head and a stage: every second
column tiled as mirror images and then up-scaled, or a sampling of the rows and an
up-scaling of the columns and then the whole tiled as mirror images."""

from __future__ import annotations

import itertools
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
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.candidates import anchored_axes, candidate_actions
from arcsolve.latformer.exact_starts.colours import set_readings
from arcsolve.latformer.exact_starts.paddings import padding_sets
from arcsolve.latformer.exact_starts.per_tile import per_tile_sets
from arcsolve.latformer.exact_starts.readings import reading, source_cells
from arcsolve.latformer.exact_starts.single_heads import one_head_actions, single_actions
from arcsolve.latformer.experts import SCALE_FACTORS
from arcsolve.latformer.model import middle_shape

MAX_STAGE_TILES = 4  # a stage tiles its middle lattice at most this many times a side
MAX_STAGES = 6  # stages whose middle outputs are searched, at most (the smallest middle first)


def stage_options(sides: Sequence[int]) -> list[tuple[int, int, bool]]:
    """For one axis's output sides: (g, t, mirror), an up-scaling by g, then a tiling of t
    copies (as mirror images or not), where every side is a multiple of g·t."""
    return [
        (g, t, mirror)
        for g in SCALE_FACTORS
        for t in range(1, MAX_STAGE_TILES + 1)
        if all(side % (g * t) == 0 for side in sides)
        for mirror in ((False, True) if t > 1 else (False,))
    ]


def middle_outputs(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], stage: ExactAction, middle: tuple[int, int], shift_bits: int = 5
) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Each pair with its output read back through `stage` onto the middle lattice (the
    output's sides divided by `middle`), or None where some middle cell's copies disagree."""
    inner = []
    for x, y in pairs:
        shape = middle_shape(y.shape, middle)
        cells = source_cells(stage, shape, y.shape, shift_bits)  # the middle cell each output cell reads
        if cells is None or (cells < 0).any():
            return None
        back = np.full(shape[0] * shape[1], -1)
        back[cells] = y.reshape(-1)
        if (back < 0).any() or not np.array_equal(back[cells], y.reshape(-1)):
            return None
        inner.append((x, back.reshape(shape)))
    return inner


def staged_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = (),
    shift_bits: int = 5,
) -> list[ActionSet]:
    """A head (`_one_head_actions`) or a per-tile head (`per_tile_sets`, plain or sampled) onto a
    middle lattice, then a stage onto the output (`stage_options` per axis, some axis up-scaled
    or tiled), for the first MAX_STAGES stages whose middle outputs the train outputs agree on,
    the smallest middle lattice first; every test output's sides must divide too."""
    sides = [[y.shape[axis] for _, y in pairs] + [shape[axis] for _, shape in tests] for axis in (0, 1)]
    stages = []
    for (g_r, t_r, m_r), (g_c, t_c, m_c) in itertools.product(*(stage_options(s) for s in sides)):
        middle = (g_r * t_r, g_c * t_c)
        if middle != (1, 1):
            stages.append((middle, ExactAction(0, scale=(g_r, g_c), mirror=(m_r, m_c))))
    stages.sort(key=lambda s: (-s[0][0] * s[0][1], s[0], s[1].scale))
    _, pair_of = train_cells(pairs)
    found: list[ActionSet] = []
    tried = 0
    for middle, stage in stages:
        inner = middle_outputs(pairs, stage, middle, shift_bits)
        if inner is None:
            continue
        tried += 1
        inner_tests = [(x, middle_shape(shape, middle)) for x, shape in tests]
        heads = [((action,), (1, 1)) for action in _one_head_actions(inner, inner_tests, shift_bits)]
        if not heads:  # or one head with an action per tile, of the middle lattice or sampled
            tiled = per_tile_sets(inner, inner_tests, shift_bits)
            tiled = tiled or per_tile_sets(inner, inner_tests, shift_bits, sampled=True)
            heads = [(s.actions, s.tiles) for s in tiled]
        for actions, tiles in heads:  # its unexplained cells counted on the output lattice, as other sets count them
            staged = ActionSet(actions, 0, 0, tiles, stage=stage, middle=middle)
            keys = set_readings(staged, pairs, shift_bits)[0] + 1
            test_keys = [set_readings(staged, [(x, _blank(shape))], shift_bits)[0] + 1 for x, shape in tests]
            unsupported, unseen = support(keys, pair_of, len(pairs), test_keys)
            found.append(replace(staged, unsupported=unsupported, unseen=unseen))
        if tried == MAX_STAGES:
            break
    return found


def _blank(shape: tuple[int, int]) -> np.ndarray:
    """An output of `shape` whose colours no reading asks for: a test's lattice."""
    return np.zeros(shape, dtype=np.int64)


def _one_head_actions(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    tests: Sequence[tuple[np.ndarray, tuple[int, int]]],
    shift_bits: int,
) -> list[ExactAction]:
    """The one-head actions (`single_actions`) that explain the pairs, less those whose every
    cell reads differently (a table of positions, not a rule) and those chosen among so many
    that the middle outputs cannot tell them from chance (`longer_than_the_data`, among every
    action the one-head screen lists); then the folded paddings (`padding_sets`) and the
    crops of the last part counted from the far edge (`anchored_axes`) that explain them."""
    outputs, _ = train_cells(pairs)
    also = [x.shape for x, _ in tests]
    found = []
    choices = None
    for action in single_actions(pairs, shift_bits=shift_bits, also=also):
        keys = np.concatenate([reading(action, x, y.shape, shift_bits).reshape(-1) for x, y in pairs])
        entries = len(np.unique(keys))
        if entries == len(keys):
            continue
        if choices is None:
            choices = sum(1 for _ in one_head_actions(pairs, shift_bits=shift_bits, also=also))
        if longer_than_the_data(choices, entries, outputs):
            continue  # one cell among hundreds that holds each tiny middle output's colour
        found.append(action)
    x0, y0 = pairs[0]
    anchors = anchored_axes(pairs)
    anchored = [a for a in candidate_actions(x0.shape, y0.shape, anchors) if any(a.anchor)] if any(anchors) else []
    for action in [s.actions[0] for s in padding_sets(pairs)] + anchored:
        keys = np.concatenate([reading(action, x, y.shape, shift_bits).reshape(-1) for x, y in pairs])
        if action not in found and is_function(keys + 1, outputs) and len(np.unique(keys)) < len(keys):
            found.append(action)
    return found
