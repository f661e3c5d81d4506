"""Content crops: a task seen with every input cut down to the bounding box of its content,
the cells other than the background (the colour of most cells of the train inputs), so that
content drawn at different places on grids of different sizes lies on one lattice: its own.

Two ways: `content_cropped` cuts the inputs alone and keeps the outputs as they are, so an
answer found on the cropped inputs is an answer to the task (`CroppedTask.original` returns
it unchanged, or through the colour view the cropped task was seen in); `content_in_place`,
where every output is its input changed only inside the input's content box, cuts the
outputs to that box too, and pastes an answer back into the test input
(`InPlaceTask.original`).
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
    found = _content_boxes(task)
    if found is None:
        return None
    background, grids, boxes = found
    pairs = [*task.train, *task.test]
    seen = [
        type(p)(input=Grid.from_numpy(x[box]), output=p.output) for p, x, box in zip(pairs, grids, boxes, strict=True)
    ]
    n = len(task.train)
    return CroppedTask(task.model_copy(update={"train": seen[:n], "test": seen[n:]}), background)


def _content_boxes(task: Task) -> tuple[int, list[Array], list[tuple[slice, slice]]] | None:
    """The background (`input_background`), every input, train then test, and its content's
    box; None where some input holds nothing but the background, or where no input has a
    margin of it (nothing to cut)."""
    background = input_background(task)
    grids = [p.input.to_numpy() for p in (*task.train, *task.test)]
    boxes = [content_box(x, background) for x in grids]
    if any(box is None for box in boxes) or all(x[box].shape == x.shape for x, box in zip(grids, boxes, strict=True)):
        return None
    return background, grids, boxes


@dataclass(frozen=True)
class InPlaceTask:
    """A task whose inputs and outputs are both cut down to the input's content box, where
    every output is its input outside that box; `boxes` are the test inputs'."""

    task: Task
    background: int
    boxes: tuple[tuple[slice, slice], ...]
    given: tuple[Grid, ...]  # the test inputs as given, which the answers are pasted into
    inner: ViewedTask | None = None  # the colour view the cut task is seen in, if any
    name: str = "content in place"

    @property
    def label(self) -> str:
        own = "the inputs' content changed in place"
        return own if self.inner is None else f"{own}, {self.inner.label}"

    def original(self, answers: Sequence[Grid]) -> tuple[Grid, ...]:
        """Answers to the cut task (through the colour view if any) pasted into the test
        inputs at their content's boxes: the task's own answers."""
        whole = answers if self.inner is None else self.inner.original(answers)
        pasted = []
        for answer, box, given in zip(whole, self.boxes, self.given, strict=True):
            grid = given.to_numpy()
            if answer.shape != grid[box].shape:
                pasted.append(answer)  # another size: nothing to paste it into
                continue
            grid[box] = answer.to_numpy()
            pasted.append(Grid.from_numpy(grid))
        return tuple(pasted)


def content_in_place(task: Task) -> InPlaceTask | None:
    """`task` with every input and output cut down to the input's content box, where each
    train output has its input's shape and equals it outside that box, some output differs
    from its input, and some input (train or test) has a margin to cut; None otherwise."""
    found = _content_boxes(task)
    if found is None:
        return None
    background, grids, boxes = found
    n = len(task.train)
    changed = False
    for p, x, box in zip(task.train, grids[:n], boxes[:n], strict=True):
        y = p.output.to_numpy()
        if y.shape != x.shape:
            return None
        outside = np.ones(x.shape, dtype=bool)
        outside[box] = False
        if not np.array_equal(x[outside], y[outside]):
            return None
        changed = changed or not np.array_equal(x, y)
    if not changed:
        return None
    train = [
        p.model_copy(update={"input": Grid.from_numpy(x[box]), "output": Grid.from_numpy(p.output.to_numpy()[box])})
        for p, x, box in zip(task.train, grids[:n], boxes[:n], strict=True)
    ]
    test = [
        p.model_copy(update={"input": Grid.from_numpy(x[box]), "output": None})
        for p, x, box in zip(task.test, grids[n:], boxes[n:], strict=True)
    ]
    given = tuple(p.input for p in task.test)
    return InPlaceTask(task.model_copy(update={"train": train, "test": test}), background, tuple(boxes[n:]), given)
