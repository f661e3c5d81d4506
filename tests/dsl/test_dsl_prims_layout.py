"""Tests of the layout family: cells between separator lines (and one moved to where its
marker points), the largest empty rectangle, codes by neighbour count, objects stacked on
their anchors, frames, the centre line, and the parameter inference that rules each out where
the train pairs show it cannot apply."""

import numpy as np
import pytest

from arcsolve.dsl.families import layout as L
from arcsolve.dsl.params import PARAMS, task_facts
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import search
from arcsolve.loaders import load_tasks
from tests.grids import eq, g


def params(kind, grids, targets):
    return PARAMS[kind](grids, targets, task_facts(grids, targets))


# Four 2x2 cells between lines of 5; the top-left one is the fullest.
CELLS = g([[1, 0, 5, 0, 0],
           [1, 2, 5, 0, 3],
           [5, 5, 5, 5, 5],
           [0, 0, 5, 0, 0],
           [0, 0, 5, 0, 0]])


def test_cell_layout():
    assert L.cell_layout(CELLS) == (5, ((0, 2), (3, 5)), ((0, 2), (3, 5)))
    assert L.cell_layout(g([[1, 1, 1], [0, 2, 0], [1, 1, 1], [0, 0, 3]])) == (1, ((1, 2), (3, 4)), ((0, 3),))
    assert L.cell_layout(g([[5, 5, 5, 5], [0, 0, 5, 0], [0, 0, 5, 0]])) is None  # cells of two widths
    assert L.cell_layout(g([[1, 0, 2], [1, 1, 0]])) is None  # no full line


def test_cell_template():
    eq(L.cell_template(CELLS, "own"), [[1, 0, 5, 1, 0],
                                       [1, 2, 5, 1, 3],
                                       [5, 5, 5, 5, 5],
                                       [1, 0, 5, 1, 0],
                                       [1, 2, 5, 1, 2]])  # a cell's own content stays
    eq(L.cell_template(CELLS, "line"), [[1, 0, 5, 5, 0],
                                        [1, 2, 5, 5, 3],
                                        [5, 5, 5, 5, 5],
                                        [5, 0, 5, 5, 0],
                                        [5, 5, 5, 5, 5]])
    tie = CELLS.copy()
    tie[3:, :2] = [[0, 4], [4, 4]]  # as full as the top-left cell, and different
    assert L.cell_template(tie, "own") is None
    assert L.cell_template(g([[1, 5, 1], [1, 5, 1]]), "own") is None  # nothing to copy onto


def test_connect_cells():
    assert L.connect_cells(g([[2, 0, 2], [0, 0, 0], [3, 0, 3]])) is None  # no separator lines
    x = g([[2, 2, 1, 0, 0, 1, 2, 2, 1, 4, 4],
           [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
           [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0],
           [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
           [2, 2, 1, 0, 0, 1, 0, 0, 1, 4, 4]])  # cells one row high, two columns wide
    eq(L.connect_cells(x), [[2, 2, 1, 2, 2, 1, 2, 2, 1, 4, 4],
                            [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
                            [2, 2, 1, 0, 0, 1, 0, 0, 1, 4, 4],
                            [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
                            [2, 2, 1, 0, 0, 1, 0, 0, 1, 4, 4]])  # 2 and 4 apart in a row: no line
    mixed = x.copy()
    mixed[0, 1] = 3
    assert L.connect_cells(mixed) is None  # a cell of two colours
    crossing = g([[0, 5, 4, 5, 0],
                  [5, 5, 5, 5, 5],
                  [2, 5, 0, 5, 2],
                  [5, 5, 5, 5, 5],
                  [0, 5, 4, 5, 0]])
    assert L.connect_cells(crossing) is None  # the row of 2s crosses the column of 4s
    assert L.connect_cells(L.connect_cells(x)) is None  # nothing left to join


def test_cell_paint_params():
    assert params("cell_paint", [CELLS], [CELLS]) == [("own",), ("line",)]
    assert params("cell_paint", [CELLS], [CELLS[:2]]) == []  # another size
    assert params("cell_paint", [CELLS, g([[1, 2], [0, 0]])], [CELLS, g([[1, 2], [0, 0]])]) == []
    assert params("cells", [CELLS], [CELLS]) == [()] and params("cells", [CELLS], [CELLS[:2]]) == []


def test_fill_largest_empty():
    x = g([[0, 0, 0, 0, 0, 1],
           [1, 0, 0, 0, 1, 0],
           [0, 0, 0, 0, 1, 0],
           [1, 1, 0, 0, 0, 0]])
    eq(L.fill_largest_empty(x, 6), [[0, 6, 6, 6, 0, 1],
                                    [1, 6, 6, 6, 1, 0],
                                    [0, 6, 6, 6, 1, 0],
                                    [1, 1, 0, 0, 0, 0]])  # 3x3; the row of five is too thin
    assert L.fill_largest_empty(g([[0, 0, 1, 0, 0], [0, 0, 1, 0, 0]]), 6) is None  # two 2x2 tie
    assert L.fill_largest_empty(g([[0, 1, 0], [1, 0, 1]]), 6) is None  # none 2x2


def test_rectangle_colour_params():
    x = g([[0, 0, 1], [0, 0, 1], [1, 0, 0]])
    assert params("rectangle_colour", [x], [g([[6, 6, 1], [6, 6, 1], [1, 0, 0]])]) == [(6,)]
    assert params("rectangle_colour", [x], [g([[6, 6, 1], [6, 0, 1], [1, 0, 0]])]) == []  # not filled


def test_neighbour_count():
    x = g([[3, 3, 3, 0],
           [3, 3, 3, 0],
           [3, 3, 3, 0],
           [0, 0, 0, 7]])
    eq(L.neighbour_count(x, "plus"), [[3, 4, 3, 0],
                                      [4, 5, 4, 0],
                                      [3, 4, 3, 0],
                                      [0, 0, 0, 1]])
    eq(L.neighbour_count(x, "box"), [[4, 6, 4, 0],
                                     [6, 9, 6, 0],
                                     [4, 6, 5, 0],
                                     [0, 0, 0, 2]])  # the 7 touches a corner diagonally


def test_recolouring_params():
    x = g([[3, 3], [0, 3]])
    assert params("recolouring", [x], [g([[1, 2], [0, 1]])]) == [("plus",), ("box",)]
    assert params("recolouring", [x], [g([[1, 2], [4, 1]])]) == []  # a zero cell changes
    assert params("recolouring", [x], [x]) == []  # nothing changes


def test_stack_on_anchor():
    x = g([[0, 6, 0, 0, 0, 0],
           [0, 5, 0, 0, 0, 0],
           [0, 0, 0, 0, 5, 7],
           [0, 0, 0, 4, 0, 0]])
    eq(L.stack_on_anchor(x, 5), [[0, 6, 0],
                                 [0, 5, 7],
                                 [4, 0, 0]])
    assert L.stack_on_anchor(x, 6) is None  # the second object has no 6
    clash = g([[2, 5, 0, 0, 0], [0, 0, 0, 3, 5]])
    assert L.stack_on_anchor(clash, 5) is None  # the 2 and the 3 land on one cell


def test_anchor_colour_params():
    x = g([[0, 6, 0, 0], [0, 5, 0, 5], [0, 0, 0, 7]])
    assert params("anchor_colour", [x], [g([[6, 0], [5, 7]])]) == [(5,), (6,), (7,)]
    assert params("anchor_colour", [x], [g([[6, 0], [5, 0]])]) == [(5,), (6,)]  # no 7 in the target
    assert params("anchor_colour", [x], [x]) == []  # no smaller target


def test_centre_in_frame():
    x = g([[3, 2, 0, 0, 3],
           [0, 2, 2, 2, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [3, 0, 0, 0, 3]])
    eq(L.centre_in_frame(x, 3), [[3, 0, 0, 0, 3],
                                 [0, 0, 0, 0, 0],
                                 [0, 2, 0, 0, 0],
                                 [0, 2, 2, 2, 0],
                                 [0, 0, 0, 0, 0],
                                 [3, 0, 0, 0, 3]])
    narrow = x.copy()
    narrow[1, 3] = 0
    assert L.centre_in_frame(narrow, 3) is None  # 2 columns in 5: half a cell off the centre
    assert L.centre_in_frame(L.centre_in_frame(x, 3), 3) is None  # centred already
    assert L.centre_in_frame(g([[0, 2, 0, 3], [0, 2, 0, 3], [2, 2, 2, 3]]), 3) is None  # wider than the frame


def test_frame_colour_params():
    x = g([[3, 2, 0], [0, 0, 0], [0, 0, 3]])
    assert params("frame_colour", [x], [g([[3, 0, 0], [0, 2, 0], [0, 0, 3]])]) == [(3,)]
    assert params("frame_colour", [x], [x]) == []


def test_scale_into_frame():
    x = g([[0, 0, 0, 0, 0, 0, 0, 0],
           [0, 2, 2, 2, 2, 2, 2, 0],
           [0, 2, 0, 0, 0, 0, 2, 0],
           [0, 2, 0, 0, 0, 0, 2, 0],
           [0, 2, 0, 0, 0, 0, 2, 0],
           [0, 2, 0, 0, 0, 0, 2, 0],
           [0, 2, 2, 2, 2, 2, 2, 0],
           [4, 0, 0, 0, 0, 0, 0, 0],
           [0, 4, 0, 0, 0, 0, 0, 0]])
    eq(L.scale_into_frame(x), [[2, 2, 2, 2, 2, 2],
                               [2, 4, 4, 0, 0, 2],
                               [2, 4, 4, 0, 0, 2],
                               [2, 0, 0, 4, 4, 2],
                               [2, 0, 0, 4, 4, 2],
                               [2, 2, 2, 2, 2, 2]])
    uneven = x.copy()
    uneven[7, 2] = 4  # 2x3: the inside is 4x4
    assert L.scale_into_frame(uneven) is None
    assert L.scale_into_frame(x[7:]) is None  # no frame


def test_smaller_target_params():
    x = g([[1, 0, 0], [0, 0, 0]])
    assert params("smaller_target", [x], [x[:1, :2]]) == [()]
    assert params("smaller_target", [x], [x]) == []


def test_keep_centre_line():
    x = g([[1, 2, 3], [4, 5, 6]])
    eq(L.keep_centre_line(x, "v"), [[0, 2, 0], [0, 5, 0]])
    assert L.keep_centre_line(x, "h") is None  # two rows: no middle one
    eq(L.keep_centre_line(x.T, "h"), [[0, 0], [2, 5], [0, 0]])


def test_centre_axis_params():
    x = g([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert params("centre_axis", [x], [L.keep_centre_line(x, "v")]) == [("v",)]
    assert params("centre_axis", [x], [g([[0, 0, 0], [4, 0, 0], [0, 0, 0]])]) == [("h",)]
    assert params("centre_axis", [x], [x]) == []


@pytest.mark.parametrize("task_id, program", [
    ("c444b776", "cell_template{own}"),  # the one drawn cell copied into every cell
    ("1e32b0e9", "cell_template{line}"),  # the first cell's shape completed in the lines' colour
    ("06df4c85", "connect_cells"),
    ("3eda0437", "fill_largest_empty{6}"),
    ("b6afb2da", "neighbour_count{plus} | recolor{3->1,5->2}"),  # corners, edges, insides
    ("137eaa0f", "stack_on_anchor{5}"),
    ("a1570a43", "centre_in_frame{3}"),
    ("6b9890af", "scale_into_frame"),
    ("d23f8c26", "keep_centre_line{v}"),
])
def test_search_solves_arc_tasks_by_layout(task_id, program):
    [task] = load_tasks(task_id)
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == program
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_cell_to_marker():
    """The cell holding the 4 goes to the board cell that the 4's place inside it names."""
    x = g([[1, 0, 5, 0, 0],
           [0, 2, 5, 4, 3],
           [5, 5, 5, 5, 5],
           [0, 6, 5, 0, 0],
           [0, 0, 5, 7, 0]])
    eq(L.cell_to_marker(x, 4), [[0, 0, 5, 0, 0],
                                [0, 0, 5, 0, 0],
                                [5, 5, 5, 5, 5],
                                [0, 0, 5, 0, 0],
                                [4, 3, 5, 0, 0]])
    assert L.cell_to_marker(x, 9) is None  # no cell holds a 9
    two = x.copy()
    two[3, 0] = 4
    assert L.cell_to_marker(two, 4) is None  # two cells hold one
    assert params("cell_marker", [x], [L.cell_to_marker(x, 4)]) == [(1,), (2,), (3,), (4,), (6,), (7,)]
    assert params("cell_marker", [x], [x[:3]]) == []  # the size changes


def test_fit_into_frame():
    """What lies outside the frame goes inside it, flipped so that its colours meet the posts of theirs."""
    x = g([[0, 0, 0, 0, 0, 0, 0],
           [3, 3, 0, 2, 0, 0, 0],
           [3, 0, 2, 2, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 4, 0, 0, 0, 0, 4],
           [0, 2, 0, 0, 0, 0, 3],
           [0, 2, 0, 0, 0, 0, 3],
           [0, 4, 0, 0, 0, 0, 4]])
    eq(L.fit_into_frame(x, 4), [[4, 0, 0, 0, 0, 4],
                                [2, 2, 0, 3, 3, 3],
                                [2, 2, 2, 0, 3, 3],
                                [4, 0, 0, 0, 0, 4]])  # flipped left to right
    same = x.copy()
    same[5:7, 1], same[5:7, 6] = 3, 2
    eq(L.fit_into_frame(same, 4)[1:3], [[3, 3, 3, 0, 2, 2], [3, 3, 0, 2, 2, 2]])  # as it is
    assert L.fit_into_frame(x[:, :6], 4) is None  # the frame is cut: its box is narrower than the part
    blank = x.copy()
    blank[5:7, 1], blank[5:7, 6] = 0, 0
    assert L.fit_into_frame(blank, 4) is None  # no post: no colour to meet


def test_frame_twin_hole():
    """The empty frame is drawn again around the one other empty box of its inside's size."""
    x = g([[2, 2, 2, 2, 1, 1, 1],
           [2, 0, 0, 2, 1, 0, 1],
           [2, 2, 2, 2, 0, 0, 1],
           [1, 1, 1, 1, 1, 1, 1],
           [1, 0, 1, 1, 0, 1, 1]])
    eq(L.frame_twin_hole(x), [[2, 2, 2, 2, 1, 1, 1],
                              [2, 0, 0, 2, 2, 2, 2],
                              [2, 2, 2, 2, 0, 0, 2],
                              [1, 1, 1, 2, 2, 2, 2],
                              [1, 0, 1, 1, 0, 1, 1]])  # a frame may stand out of the box's surroundings
    none = x.copy()
    none[2, 4] = 1
    assert L.frame_twin_hole(none) is None  # no other empty box of that size
    two = np.zeros((5, 11), dtype=x.dtype)
    two[:, :7] = x
    assert L.frame_twin_hole(two) is None  # the zeros at the right hold more boxes that fit


@pytest.mark.parametrize("task_id, program", [
    ("6d0160f0", "cell_to_marker{4}"),  # the panel holding a yellow cell goes where the cell points
    ("846bdb03", "fit_into_frame{4}"),  # a two-coloured shape between posts of its colours, flipped to meet them
    ("890034e9", "frame_twin_hole"),  # an empty frame drawn again around the other hole of its size, amid noise
])
def test_search_solves_arc_tasks_by_cells_and_frames(task_id, program):
    """Verified and right, clock-free (the same on any machine)."""
    [task] = load_tasks(task_id)
    found = search(task, float("inf"), max_depth=2, max_states=2000)
    assert format_program(found[0].program) == program and found[0].verified
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]
