"""Paddings that fold (`padding_sets`): where every train output is its input with margins
that repeat the input's edge cells or mirror it (numpy's `pad` modes edge, symmetric and
reflect), one head whose input is shifted, then folded back into itself past its edge
(`ExactAction.padded`), explains it. A plain placement leaves such margins a colour of
their own, and a mirror tiling mirrors the grid about its far edge, not about the near
one, so neither writes them."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from arcsolve.latformer.exact_starts.action_sets import ActionSet, is_function, support, train_cells
from arcsolve.latformer.exact_starts.actions import ExactAction
from arcsolve.latformer.exact_starts.readings import reading

# (mirror, shared) of each fold: repeating the edge cell, mirror images, mirror images that
# share their edge cells
FOLDS = ((False, False), (True, False), (True, True))
MOST_MARGIN = 8  # cells a padding adds before the input on one axis, at most


def padding_sets(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], tests: Sequence[tuple[np.ndarray, tuple[int, int]]] = ()
) -> list[ActionSet]:
    """One head each: for each fold, the least shifted padding of the input after a dihedral
    element (the identity first) under which every train output is a function of the
    reading, cell by cell, where every output is at least the turned input's size on both
    axes and larger on some axis of some pair. Its margins must read more than one input
    colour somewhere, or a plain placement with a colour of its own writes it; a mirroring
    one must shift some padded axis, or it is the mirror tiling that the wrap writes."""
    outputs, pair_of = train_cells(pairs)
    found: dict[tuple[bool, bool], ActionSet] = {}
    for d in range(8):
        sides = [x.shape[::-1] if d >= 4 else x.shape for x, _ in pairs]  # the turned inputs'
        if any(y.shape[0] < s[0] or y.shape[1] < s[1] for s, (_, y) in zip(sides, pairs, strict=True)):
            continue
        padded = tuple(any(y.shape[a] > s[a] for s, (_, y) in zip(sides, pairs, strict=True)) for a in (0, 1))
        if not any(padded):
            continue
        margins = [
            range(min(MOST_MARGIN, *(y.shape[a] - s[a] for s, (_, y) in zip(sides, pairs, strict=True))) + 1)
            if padded[a]
            else range(1)
            for a in (0, 1)
        ]
        shifts = sorted(itertools.product(*margins), key=lambda s: (s[0] + s[1], s))
        for mirror, shared in FOLDS:
            if (mirror, shared) in found:
                continue
            for shift in shifts:
                if mirror and not any(p and k for p, k in zip(padded, shift, strict=True)):
                    continue  # unshifted, a mirroring padding is a mirror tiling, which the wrap writes
                action = ExactAction(
                    d,
                    shift,
                    padded=padded,
                    mirror=(mirror and padded[0], mirror and padded[1]),
                    shared=(shared and padded[0], shared and padded[1]),
                )
                read = [reading(action, x, y.shape) for x, y in pairs]
                keys = np.concatenate([r.reshape(-1) for r in read]) + 1
                if not is_function(keys, outputs) or not _margins_vary(read, sides, shift):
                    continue
                test_keys = [reading(action, x, shape).reshape(-1) + 1 for x, shape in tests]
                found[mirror, shared] = ActionSet((action,), *support(keys, pair_of, len(pairs), test_keys))
                break
    return list(found.values())


def _margins_vary(read: Sequence[np.ndarray], sides: Sequence[tuple[int, int]], shift: tuple[int, int]) -> bool:
    """Do the margins (the output cells outside the turned input's place, of `sides`) of
    some pair read more than one colour?"""
    for r, side in zip(read, sides, strict=True):
        inside = np.zeros(r.shape, dtype=bool)
        inside[shift[0] : shift[0] + side[0], shift[1] : shift[1] + side[1]] = True
        if len(np.unique(r[~inside])) > 1:
            return True
    return False
