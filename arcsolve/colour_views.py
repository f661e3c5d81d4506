"""Colour views: a task seen with each pair's colours renumbered by a permutation taken from
its input, so that pairs drawn in different colours, but in the same roles, read alike.

A view (`View`) maps a grid to a permutation `perm[old] = new` of the colours 0-9; a pair's
output is renumbered by its input's permutation, and a test answer found in the view is
mapped back by the inverse of its test input's (`ViewedTask.restore`). Two views:

- `ranked`: the input's non-zero colours numbered 1, 2, ... from the most frequent (ties in
  reading order), 0 kept (`ranked_colours`): "copy the grid where its commonest colour
  lies" holds for every pair;
- `background`: the input's most frequent colour swapped with 0 (`background_colours`):
  objects are what is not 0, whatever each grid's background.

`views_for` picks the views that renumber a task in a way of their own; the DSL search and
LatFormer both try them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from arcsolve.tasks import Grid, Pair, Task

Array = np.ndarray


def ranked_colours(grid: Array) -> Array:
    """A permutation `perm[old] = new` of the colours 0-9 that renumbers the grid's non-zero
    colours 1, 2, ... from the most frequent; of colours equally frequent, the one met first
    in reading order (row by row) comes first, so that the ranks do not depend on the colours'
    numbers: a grid and the same grid with its non-zero colours renamed rank alike. 0 stays
    0, and so does every colour the grid lacks whose number is not taken, so that a colour
    new in the outputs keeps its number; the other missing colours take the numbers left."""
    flat = grid.ravel()
    counts = np.bincount(flat, minlength=10)
    met = _first_met(flat)
    present = sorted((c for c in range(1, 10) if counts[c]), key=lambda c: (-counts[c], met[c]))
    perm = np.full(10, -1, dtype=np.int8)
    perm[[0, *present]] = np.arange(len(present) + 1)
    keep = [c for c in range(len(present) + 1, 10) if not counts[c]]
    perm[keep] = keep
    free = sorted(set(range(10)) - set(perm.tolist()))
    perm[perm < 0] = free
    return perm


def most_frequent_colour(grid: Array) -> int:
    """The colour a grid (or any array of colours) holds most often. Of colours equally
    frequent, 0 if it is one of them (ARC's usual background), else the one met first in
    reading order, so that the choice does not depend on the colours' numbers: a grid and the
    same grid with its non-zero colours renamed choose alike."""
    flat = grid.ravel()
    counts = np.bincount(flat, minlength=10)
    tied = np.flatnonzero(counts == counts.max())
    if len(tied) == 1 or tied[0] == 0:
        return int(tied[0])
    return min(tied.tolist(), key=_first_met(flat).__getitem__)


def _first_met(flat: Array) -> dict[int, int]:
    """Each colour of a flattened grid, with the index of its first cell in reading order."""
    colours, first = np.unique(flat, return_index=True)
    return dict(zip(colours.tolist(), first.tolist(), strict=True))


def background_colours(grid: Array) -> Array:
    """A permutation `perm[old] = new` of the colours 0-9 that swaps the grid's most frequent
    colour (`most_frequent_colour`) with 0."""
    perm = np.arange(10, dtype=np.int8)
    common = most_frequent_colour(grid)
    perm[[0, common]] = perm[[common, 0]]
    return perm


@dataclass(frozen=True)
class View:
    """A way of renumbering each pair's colours, from its input, under which one program (or
    one model) may serve pairs that the task as given draws in different colours."""

    name: str
    perm: Callable[[Array], Array]  # grid -> `perm[old] = new`, a permutation of 0-9
    label: str  # how an explained answer says where it was found


VIEWS: MappingProxyType[str, View] = MappingProxyType({
    "ranked": View("ranked", ranked_colours, "colours ranked by frequency"),
    "background": View("background", background_colours, "background colour swapped with 0"),
})


def views_for(grids: Sequence[Array]) -> list[str]:
    """The views that renumber these grids (a task's inputs) in a way of their own. A view is
    left out if it renumbers every grid alike and keeps 0 (then whatever holds in it holds as
    given, with other colours named; 0 is not like the others, since it is taken for the
    background), or exactly as a view before it does."""
    chosen: list[str] = []
    seen: set[bytes] = set()
    for name, view in VIEWS.items():
        perms = [view.perm(g) for g in grids]
        key = b"".join(p.tobytes() for p in perms)
        moves_zero = any(p[0] != 0 for p in perms)
        if (moves_zero or len({p.tobytes() for p in perms}) > 1) and key not in seen:
            chosen.append(name)
            seen.add(key)
    return chosen


@dataclass(frozen=True)
class ViewedTask:
    """A task seen in a view: every pair renumbered by its input's permutation, and for each
    test input the inverse permutation that maps an answer found in the view back."""

    view: View
    task: Task
    restore: tuple[Array, ...]  # per test input: `restore[new] = old`

    @property
    def name(self) -> str:
        return self.view.name

    @property
    def label(self) -> str:
        return self.view.label

    def original(self, answers: Sequence[Grid]) -> tuple[Grid, ...]:
        """Answers to the viewed test inputs, in the task's own colours."""
        return tuple(
            Grid.from_numpy(back[a.to_numpy()]) for back, a in zip(self.restore, answers, strict=True)
        )


def viewed(task: Task, name: str) -> ViewedTask:
    """`task` seen in the view `name` (a key of `VIEWS`)."""
    view = VIEWS[name]

    def renumbered(pair: Pair) -> tuple[Pair, Array]:
        perm = view.perm(pair.input.to_numpy())
        output = None if pair.output is None else Grid.from_numpy(perm[pair.output.to_numpy()])
        return type(pair)(input=Grid.from_numpy(perm[pair.input.to_numpy()]), output=output), perm

    train = [renumbered(p)[0] for p in task.train]
    tests = [renumbered(p) for p in task.test]
    restore = tuple(np.argsort(perm).astype(np.int64) for _, perm in tests)
    return ViewedTask(view, task.model_copy(update={"train": train, "test": [p for p, _ in tests]}), restore)
