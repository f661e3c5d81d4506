"""Hidden boxes: a task whose every output is what a solid box of one colour hides in its
input (a picture with a rectangle painted over, the answer being the rectangle's cells).

Seen with each train output pasted back into its input's box, the task becomes one of
repairing the whole picture: the hidden cells are filled from the picture's own mirror
images or periods, on the input's lattice, where the cut-out box alone has no lattice that
relates it to the rest. `PastedTask.original` cuts an answer to the pasted task down to the
test input's box.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arcsolve.colour_views import ViewedTask
from arcsolve.tasks import Grid, Task

Array = np.ndarray
Box = tuple[slice, slice]


def solid_box(grid: Array, colour: int) -> Box | None:
    """The rows and columns of the smallest box that holds every cell of `colour` in `grid`,
    where every cell of that box has the colour; None where it has none or is not solid."""
    held = grid == colour
    if not held.any():
        return None
    rows, cols = np.flatnonzero(held.any(1)), np.flatnonzero(held.any(0))
    box = slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1)
    return box if held[box].all() else None


def hiding_colour(task: Task) -> int | None:
    """The colour (the first from 0 up) that paints a solid box in every input, train and
    test, smaller than its input and, on every train pair, of its output's shape, of more
    than one cell on some pair (a single cell in every pair is a colour met once, not a
    box); None where no colour does."""
    for colour in range(10):
        fits, cells = True, 0
        for p in task.train:
            x = p.input.to_numpy()
            box = solid_box(x, colour)
            if box is None or x[box].shape != p.output.shape or x[box].shape == x.shape:
                fits = False
                break
            cells = max(cells, x[box].size)
        if fits and cells > 1 and all(solid_box(p.input.to_numpy(), colour) is not None for p in task.test):
            return colour
    return None


@dataclass(frozen=True)
class PastedTask:
    """A task whose train outputs are pasted into their inputs' boxes of `colour`: each
    pasted output is its input with the box's cells repaired. `boxes` are the test inputs'."""

    task: Task
    colour: int
    boxes: tuple[Box, ...]
    inner: ViewedTask | None = None  # the colour view the pasted task is seen in, if any
    name: str = "hidden box"

    @property
    def label(self) -> str:
        own = f"the box of colour {self.colour} repaired in place, then cut out"
        return own if self.inner is None else f"{own}, {self.inner.label}"

    def original(self, answers: Sequence[Grid]) -> tuple[Grid, ...]:
        """Answers to the pasted task (whole repaired pictures, through the colour view if
        any) cut down to each test input's box: the task's own answers."""
        whole = answers if self.inner is None else self.inner.original(answers)
        return tuple(
            Grid.from_numpy(g.to_numpy()[box]) if g.shape == p.input.shape else g  # another size: not a picture
            for g, box, p in zip(whole, self.boxes, self.task.test, strict=True)
        )

    def still_hidden(self, answers: Sequence[Grid]) -> int:
        """How many cells of `answers` (the task's own, cut out of repaired pictures) still
        hold the hiding colour where no train output shows it: cells the repair left hidden."""
        for p in self.task.train:
            if (p.output.to_numpy()[solid_box(p.input.to_numpy(), self.colour)] == self.colour).any():
                return 0
        return sum(int((g.to_numpy() == self.colour).sum()) for g in answers)


def pasted_into_boxes(task: Task) -> PastedTask | None:
    """`task` with every train output pasted into its input's box of the hiding colour
    (`hiding_colour`), and its test inputs as they are; None where no colour hides a box."""
    colour = hiding_colour(task)
    if colour is None:
        return None
    train = []
    for p in task.train:
        whole = p.input.to_numpy().copy()
        whole[solid_box(whole, colour)] = p.output.to_numpy()
        train.append(p.model_copy(update={"output": Grid.from_numpy(whole)}))
    test = [p.model_copy(update={"output": None}) for p in task.test]
    boxes = tuple(solid_box(p.input.to_numpy(), colour) for p in task.test)
    return PastedTask(task.model_copy(update={"train": train, "test": test}), colour, boxes)
