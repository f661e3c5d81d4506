"""Content crops: inputs cut down to the box of their cells other than the background."""

import numpy as np

from arcsolve.colour_views import viewed
from arcsolve.content_crops import content_box, content_cropped, content_in_place, input_background
from tests.grids import grid, rows_task


def test_the_box_holds_every_cell_other_than_the_background():
    grid = np.array([[0, 0, 0, 0], [0, 3, 0, 0], [0, 0, 4, 0], [0, 0, 0, 0]])
    rows, cols = content_box(grid, 0)
    assert np.array_equal(grid[rows, cols], [[3, 0], [0, 4]])
    assert content_box(np.zeros((3, 3), dtype=int), 0) is None
    assert content_box(np.full((2, 2), 5), 0) == (slice(0, 2), slice(0, 2))


def test_inputs_are_cut_and_outputs_kept():
    t = rows_task([([[0, 0, 0], [0, 1, 2], [0, 0, 0]], [[2, 1]]), ([[3, 0], [0, 0]], [[3]])], [[[0, 5], [0, 0]]])
    cropped = content_cropped(t)
    assert cropped is not None and cropped.background == 0
    assert [p.input.to_numpy().tolist() for p in cropped.task.train] == [[[1, 2]], [[3]]]
    assert [p.output for p in cropped.task.train] == [p.output for p in t.train]
    assert cropped.task.test[0].input.to_numpy().tolist() == [[5]]
    assert cropped.original([grid([[7]])]) == (grid([[7]]),)  # the outputs are uncut: answers as they are


def test_the_background_is_the_train_inputs_commonest_colour():
    t = rows_task([([[8, 8, 8], [8, 1, 8]], [[1]]), ([[8, 2], [8, 8]], [[2]])], [[[8, 8], [3, 8]]])
    assert input_background(t) == 8
    cropped = content_cropped(t)
    assert cropped is not None and cropped.task.test[0].input.to_numpy().tolist() == [[3]]


def test_nothing_to_cut_or_an_empty_input_gives_no_crop():
    full = rows_task([([[1, 2], [3, 4]], [[1]])], [[[5, 6], [7, 8]]])
    assert content_cropped(full) is None  # no margins anywhere
    empty = rows_task([([[0, 0], [0, 1]], [[1]])], [[[0, 0], [0, 0]]])
    assert content_cropped(empty) is None  # the test input holds nothing to crop to


def test_a_crop_seen_in_a_colour_view_maps_answers_back_through_it():
    t = rows_task([([[0, 0], [0, 2]], [[2]]), ([[0, 0], [0, 3]], [[3]])], [[[0, 0], [4, 0]]])
    cropped = content_cropped(t)
    seen = viewed(cropped.task, "ranked")
    both = type(cropped)(seen.task, cropped.background, seen)
    assert both.label == "inputs cropped to their content, colours ranked by frequency"
    assert both.original([grid([[1]])]) == (grid([[4]]),)  # rank 1 of the test input is its colour 4


def test_in_place_both_grids_are_cut_to_the_input_content_and_answers_pasted_back():
    t = rows_task([([[0, 0, 0], [0, 1, 2], [0, 0, 0]], [[0, 0, 0], [0, 2, 1], [0, 0, 0]])], [[[3, 4], [0, 0]]])
    cut = content_in_place(t)
    assert cut is not None and cut.background == 0 and cut.boxes == ((slice(0, 1), slice(0, 2)),)
    assert [p.input.to_numpy().tolist() for p in cut.task.train] == [[[1, 2]]]
    assert [p.output.to_numpy().tolist() for p in cut.task.train] == [[[2, 1]]]
    assert cut.task.test[0].input.to_numpy().tolist() == [[3, 4]] and cut.task.test[0].output is None
    assert cut.original([grid([[4, 3]])]) == (grid([[4, 3], [0, 0]]),)
    assert cut.label == "the inputs' content changed in place"


def test_in_place_needs_outputs_that_change_only_inside_the_content():
    inside = ([[0, 0, 0], [0, 1, 0]], [[0, 0, 0], [0, 2, 0]])
    assert content_in_place(rows_task([inside], [[[0, 5], [0, 0]]])) is not None
    outside = ([[0, 0, 0], [0, 1, 0]], [[7, 0, 0], [0, 1, 0]])
    assert content_in_place(rows_task([inside, outside], [[[0, 5], [0, 0]]])) is None  # a change in the margin
    resized = ([[0, 0], [0, 1]], [[1]])
    assert content_in_place(rows_task([resized], [[[0, 5], [0, 0]]])) is None  # another shape
    same = ([[0, 0, 0], [0, 1, 0]], [[0, 0, 0], [0, 1, 0]])
    assert content_in_place(rows_task([same], [[[0, 5], [0, 0]]])) is None  # nothing changes
    full = ([[1, 2], [3, 4]], [[2, 1], [4, 3]])
    assert content_in_place(rows_task([full], [[[5, 6], [7, 8]]])) is None  # no margin anywhere
