"""Content crops: a task seen with every input cut down to the bounding box of its content,
the cells other than the background (the colour of most cells of the train inputs), so that
content drawn at different places on grids of different sizes lies on one lattice: its own.

The outputs are kept as they are, so an answer found on the cropped inputs is an answer to
the task (`CroppedTask.original` returns it unchanged, or through the colour view the
cropped task was seen in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arcsolve.colour_views import ViewedTask, most_frequent_colour
from arcsolve.tasks import Grid, Task

Array = np.ndarray


def input_background(task: Task) -> int:
    """The colour of most cells of the task's train inputs (`most_frequent_colour`)."""
    return most_frequent_colour(np.concatenate([p.input.to_numpy().ravel() for p in task.train]))


def content_box(grid: Array, background: int) -> tuple[slice, slice] | None:
    """The rows and columns of the smallest box that holds every cell of `grid` other than
    `background`, or None where it has none."""
    drawn = grid != background
    if not drawn.any():
        return None
    rows, cols = np.flatnonzero(drawn.any(1)), np.flatnonzero(drawn.any(0))
    return slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1)


@dataclass(frozen=True)
class CroppedTask:
    """A task whose inputs, train and test, are cut down to their content's box."""

    task: Task
    background: int
    inner: ViewedTask | None = None  # the colour view the cropped task is seen in, if any
    name: str = "content"

    @property
    def label(self) -> str:
        own = "inputs cropped to their content"
        return own if self.inner is None else f"{own}, {self.inner.label}"

    def original(self, answers: Sequence[Grid]) -> tuple[Grid, ...]:
        """Answers to the cropped task, which answer the task as given (its outputs are
        uncut), in the task's own colours."""
        return tuple(answers) if self.inner is None else self.inner.original(answers)


def content_cropped(task: Task) -> CroppedTask | None:
    """`task` with every input cut down to its content's box; None where some input holds
    nothing but the background, or where no input has a margin of it (nothing to cut)."""
    background = input_background(task)
    pairs = [*task.train, *task.test]
    grids = [p.input.to_numpy() for p in pairs]
    boxes = [content_box(x, background) for x in grids]
    if any(box is None for box in boxes):
        return None
    cut = [x[box] for x, box in zip(grids, boxes, strict=True)]
    if all(c.shape == x.shape for c, x in zip(cut, grids, strict=True)):
        return None
    seen = [type(p)(input=Grid.from_numpy(x), output=p.output) for p, x in zip(pairs, cut, strict=True)]
    n = len(task.train)
    return CroppedTask(task.model_copy(update={"train": seen[:n], "test": seen[n:]}), background)
