"""Hidden boxes: outputs that are what a solid box of one colour hides in the input."""

import numpy as np

from arcsolve.colour_views import viewed
from arcsolve.hidden_boxes import PastedTask, hiding_colour, pasted_into_boxes, solid_box
from tests.grids import grid, rows_task


def test_a_solid_box_is_the_box_of_its_colour_filled_with_it():
    grid = np.array([[1, 2, 2, 1], [1, 2, 2, 3], [1, 1, 1, 1]])
    rows, cols = solid_box(grid, 2)
    assert (rows, cols) == (slice(0, 2), slice(1, 3))
    assert solid_box(grid, 3) == (slice(1, 2), slice(3, 4))
    assert solid_box(grid, 4) is None  # no cell of it
    assert solid_box(grid, 1) is None  # its box holds other colours


def test_the_hiding_colour_boxes_every_output_and_every_test_input():
    pairs = [
        ([[1, 2, 3], [4, 8, 8], [7, 8, 8]], [[5, 6], [8, 9]]),
        ([[8, 2, 3], [4, 5, 6]], [[1]]),
    ]
    assert hiding_colour(rows_task(pairs, [[[1, 8], [8, 8]]])) is None  # the test's cells of 8 are no box
    assert hiding_colour(rows_task(pairs, [[[1, 2], [8, 8]]])) == 8
    assert hiding_colour(rows_task([([[8, 8], [8, 8]], [[1, 2], [3, 4]])], [[[8]]])) is None  # the whole input
    once = [([[1, 2], [3, 4]], [[5]]), ([[2, 1], [1, 1]], [[6]])]  # 2 once in each input: a cell, not a box
    assert hiding_colour(rows_task(once, [[[1, 2], [1, 1]]])) is None
    assert hiding_colour(rows_task([*once, ([[2, 2, 1], [1, 1, 1]], [[7, 7]])], [[[1, 2], [1, 1]]])) == 2


def test_outputs_are_pasted_into_their_boxes_and_answers_cut_out():
    t = rows_task([([[1, 2, 3], [4, 0, 0], [7, 0, 0]], [[5, 6], [8, 9]])], [[[0, 2], [3, 4]], [[1, 2], [3, 0]]])
    pasted = pasted_into_boxes(t)
    assert isinstance(pasted, PastedTask) and pasted.colour == 0
    assert pasted.task.train[0].output.to_numpy().tolist() == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert pasted.task.train[0].input == t.train[0].input and pasted.task.test[0].output is None
    answers = pasted.original([grid([[5, 2], [3, 4]]), grid([[1, 2], [3, 7]])])
    assert answers == (grid([[5]]), grid([[7]]))
    assert pasted.label == "the box of colour 0 repaired in place, then cut out"


def test_a_pasted_task_seen_in_a_colour_view_maps_answers_back_through_it():
    t = rows_task([([[3, 3, 3], [3, 0, 0]], [[3, 3]]), ([[4, 4], [0, 4]], [[4]])], [[[6, 6], [6, 0]]])
    pasted = pasted_into_boxes(t)
    seen = viewed(pasted.task, "ranked")
    both = PastedTask(seen.task, pasted.colour, pasted.boxes, seen)
    assert both.label.endswith(", colours ranked by frequency")
    assert both.original([grid([[1, 1], [1, 1]])]) == (grid([[6]]),)  # rank 1 of the test input is its colour 6


def test_cells_still_in_the_hiding_colour_count_only_where_no_train_output_shows_it():
    t = rows_task([([[1, 2, 3], [4, 0, 0]], [[5, 6]])], [[[0, 2], [3, 4]]])
    pasted = pasted_into_boxes(t)
    assert pasted.still_hidden([grid([[0]])]) == 1 and pasted.still_hidden([grid([[7]])]) == 0
    shown = pasted_into_boxes(rows_task([([[1, 2, 3], [4, 0, 0]], [[5, 0]])], [[[0, 2], [3, 4]]]))
    assert shown.still_hidden([grid([[0]])]) == 0  # a train output shows the colour: it may be an answer
