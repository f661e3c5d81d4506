"""Tests of the relating primitives: placeholders painted like a template, cells piled on a
wall, a line behind what lies beside a wall, markers projected onto objects, objects
stretched to markers, rows completed by analogy, bouncing rays, rays towards or away from
full lines, a shape repeated towards the pieces beside it, pieces moved into holes, gaps
between facing objects bridged, rays from outer corners, objects smeared towards their
markers, lone cells snapped onto an anchor, a box within markers."""

import numpy as np
import pytest

from arcsolve.dsl.families import relating as R
from arcsolve.dsl.params import PARAMS, task_facts
from arcsolve.dsl.search import solve
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig
from tests.grids import eq, g


def test_paint_placeholders():
    x = g([[1, 2, 0, 0, 0],
           [3, 0, 0, 5, 5],
           [0, 0, 0, 5, 0],
           [5, 5, 0, 0, 0],
           [5, 0, 0, 0, 0]])
    eq(R.paint_placeholders(x, 5, 1), [[1, 2, 0, 0, 0],
                                       [3, 0, 0, 1, 2],
                                       [0, 0, 0, 3, 0],
                                       [1, 2, 0, 0, 0],
                                       [3, 0, 0, 0, 0]])
    eq(R.paint_placeholders(x, 5, 0), [[0, 0, 0, 0, 0],
                                       [0, 0, 0, 1, 2],
                                       [0, 0, 0, 3, 0],
                                       [1, 2, 0, 0, 0],
                                       [3, 0, 0, 0, 0]])  # the template erased
    other_shape = np.where(x == 0, 0, x)
    other_shape[2, 4] = 5
    assert R.paint_placeholders(other_shape, 5, 1) is None  # a placeholder unlike the template
    assert R.paint_placeholders(g([[5, 0], [0, 5]]), 5, 1) is None  # no template


def test_placeholder_params():
    x = g([[1, 0, 5], [0, 0, 0]])
    y = g([[1, 0, 1], [0, 0, 0]])
    facts = task_facts([x], [y])
    assert PARAMS["placeholder"]([x], [y], facts) == [(5, 0), (5, 1)]
    assert PARAMS["placeholder"]([x], [y[:1]], facts) == []  # sizes differ
    assert PARAMS["placeholder"]([x], [x], task_facts([x], [x])) == []  # no colour lost


def test_pile():
    x = g([[3, 0, 5, 0, 3],
           [0, 4, 5, 0, 0],
           [4, 3, 5, 6, 6]])
    eq(R.pile(x, 5, 0), [[0, 3, 5, 3, 0],
                         [0, 4, 5, 0, 0],
                         [4, 3, 5, 6, 6]])
    eq(R.pile(x, 5, 1), [[0, 5, 5, 5, 0],
                         [0, 5, 5, 0, 0],
                         [5, 5, 5, 5, 5]])
    eq(R.pile(x.T, 5, 0), R.pile(x, 5, 0).T)  # a wall of rows
    assert R.pile(x, 4, 0) is None  # 4 is no wall
    assert R.pile(g([[5, 5], [0, 5]]), 5, 0) is None  # not full columns or rows


def test_line_behind():
    x = g([[0, 0, 0, 0, 0, 2],
           [0, 0, 3, 3, 3, 2],
           [0, 0, 0, 3, 0, 2]])
    eq(R.line_behind(x, 8), [[0, 8, 0, 0, 0, 2],
                             [0, 8, 3, 3, 3, 2],
                             [0, 8, 0, 3, 0, 2]])  # past the far side of the shape, away from the wall
    eq(R.line_behind(x.T.copy(), 8), R.line_behind(x, 8).T)  # a wall of a row
    full = g([[0, 3, 0, 0, 2],
              [0, 3, 3, 0, 2],
              [0, 3, 0, 0, 2]])
    eq(R.line_behind(full, 8), [[8, 3, 0, 0, 2],
                                [8, 3, 3, 0, 2],
                                [8, 3, 0, 0, 2]])  # a full column of the shape is no wall: its colour is elsewhere
    assert R.line_behind(g([[3, 0, 2, 0, 3]]).repeat(2, 0), 8) is None  # content on both sides
    assert R.line_behind(g([[3, 3, 2], [0, 3, 2]]), 8) is None  # no room past the shape
    assert R.line_behind(g([[3, 0, 2, 2], [0, 0, 2, 0]]), 8) is None  # no wall


def test_wall_params():
    x = g([[0, 2, 0], [5, 5, 5], [2, 0, 0]])
    y = g([[0, 5, 0], [5, 5, 5], [5, 0, 0]])
    assert PARAMS["wall"]([x], [y], task_facts([x], [y])) == [(5, 0), (5, 1)]
    assert PARAMS["wall"]([y], [x], task_facts([y], [x])) == []  # its 5s are no band


def test_stretch_to_markers():
    frame = g([[0, 0, 0, 0, 0, 0],
               [0, 2, 2, 2, 0, 0],
               [0, 2, 1, 2, 0, 0],
               [0, 2, 2, 2, 0, 0],
               [0, 0, 0, 0, 0, 0],
               [0, 0, 8, 0, 0, 0]])
    eq(R.stretch_to_markers(frame), [[0, 0, 0, 0, 0, 0],
                                     [0, 2, 2, 2, 0, 0],
                                     [0, 2, 1, 2, 0, 0],
                                     [0, 2, 1, 2, 0, 0],
                                     [0, 2, 1, 2, 0, 0],
                                     [0, 2, 2, 2, 0, 0]])
    # towards the left and upwards, the far edge stays the far edge
    eq(R.stretch_to_markers(g([[5, 0, 3, 3, 4]])), [[3, 3, 3, 3, 4]])
    eq(R.stretch_to_markers(g([[0, 5], [0, 0], [0, 6], [0, 7]])), [[0, 6], [0, 7], [0, 7], [0, 7]])
    assert R.stretch_to_markers(g([[5, 0, 0], [0, 0, 0], [0, 3, 3]])) is None  # the lone cell faces nothing
    assert R.stretch_to_markers(g([[3, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])) is None  # no lone cell


def test_project_markers():
    x = g([[0, 0, 0, 4, 0],
           [0, 0, 0, 0, 0],
           [3, 0, 8, 8, 0],
           [0, 0, 8, 8, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 6, 0]])
    eq(R.project_markers(x), [[0, 0, 0, 4, 0],
                              [0, 0, 0, 0, 0],
                              [3, 0, 3, 4, 0],
                              [0, 0, 8, 6, 0],
                              [0, 0, 0, 0, 0],
                              [0, 0, 0, 6, 0]])
    assert R.project_markers(g([[3, 0, 8], [0, 0, 0]])) is None  # no object of several cells
    assert R.project_markers(g([[3, 0, 0], [0, 8, 8]])) is None  # the marker faces nothing
    stray = x.copy()
    stray[4, 0] = 7
    assert R.project_markers(stray) is None  # one marker faces nothing


def test_snap_to_anchor():
    """Each lone cell takes the place of the anchor cell nearest to it; the anchor's other cells stay."""
    x = g([[0, 0, 0, 0, 7],
           [0, 0, 0, 0, 0],
           [0, 8, 8, 0, 0],
           [0, 8, 8, 0, 0],
           [0, 0, 0, 0, 0],
           [4, 0, 0, 0, 0]])
    eq(R.snap_to_anchor(x, 8), [[0, 0, 0, 0, 0],
                                [0, 0, 0, 0, 0],
                                [0, 8, 7, 0, 0],
                                [0, 4, 8, 0, 0],
                                [0, 0, 0, 0, 0],
                                [0, 0, 0, 0, 0]])
    even = g([[0, 0, 0, 0, 0], [0, 8, 0, 8, 0], [0, 0, 3, 0, 0]])
    assert R.snap_to_anchor(even, 8) is None  # both anchor cells are as near
    both = g([[7, 0, 0], [0, 0, 8], [4, 0, 0]])
    assert R.snap_to_anchor(both, 8) is None  # two lone cells, one anchor cell
    assert R.snap_to_anchor(x, 5) is None  # no anchor
    assert PARAMS["anchor_cells"]([x], [R.snap_to_anchor(x, 8)], task_facts([x], [x])) == [(8,)]  # 8 loses cells


def test_box_within_markers():
    """The outline of the markers' box, one cell inside them or through them, drawn on zeros only."""
    x = g([[0, 0, 5, 0, 0, 0],
           [0, 0, 0, 0, 0, 0],
           [5, 0, 0, 3, 0, 0],
           [0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 5],
           [0, 5, 0, 0, 0, 0]])
    eq(R.box_within_markers(x, 5, 1, -1), [[0, 0, 5, 0, 0, 0],
                                           [0, 3, 3, 3, 3, 0],
                                           [5, 3, 0, 3, 3, 0],
                                           [0, 3, 0, 0, 3, 0],
                                           [0, 3, 3, 3, 3, 5],
                                           [0, 5, 0, 0, 0, 0]])
    ring = R.box_within_markers(x, 5, 0, 8)
    assert (ring[0] == [8, 8, 5, 8, 8, 8]).all() and (ring[:, 0] == [8, 8, 5, 8, 8, 8]).all()
    boxed = R.box_within_markers(x, 5, 1, -1)
    found = PARAMS["marker_box"]([x], [boxed], task_facts([x], [boxed]))
    assert found == [(5, 0, -1), (5, 0, 3), (5, 1, -1), (5, 1, 3)]  # 5 stays; 3 is drawn
    assert PARAMS["marker_box"]([x], [x], task_facts([x], [x])) == []  # nothing drawn
    x[2, 4] = 7
    assert R.box_within_markers(x, 5, 1, -1) is None  # two other colours: which one draws?
    assert R.box_within_markers(g([[5, 0, 0], [0, 0, 5]]), 5, 1, 3) is None  # no room inside


def test_complete_rows():
    x = g([[1, 2, 1, 1, 2],
           [0, 0, 0, 0, 0],
           [4, 3, 0, 0, 0],
           [0, 0, 7, 0, 6]])
    eq(R.complete_rows(x, "h"), [[1, 2, 1, 1, 2],
                                 [0, 0, 0, 0, 0],
                                 [4, 3, 4, 4, 3],
                                 [7, 6, 7, 7, 6]])
    eq(R.complete_rows(x.T, "v"), R.complete_rows(x, "h").T)
    clash = x.copy()
    clash[2, 2] = 5  # the template's 1 would be both 4 and 5
    assert R.complete_rows(clash, "h") is None
    assert R.complete_rows(x[:3] * (np.arange(5) < 1), "h") is None  # no row is full
    unnamed = x.copy()
    unnamed[3] = [0, 6, 0, 0, 0]  # names the template's 2, never its 1
    assert R.complete_rows(unnamed, "h") is None


def test_template_line_params():
    x = g([[1, 2], [3, 0]])
    facts = task_facts([x], [x])
    assert PARAMS["template_line"]([x], [x], facts) == [("h",), ("v",)]
    assert PARAMS["template_line"]([x[1:]], [x[1:]], facts) == []


def test_bounce_rays():
    x = g([[0, 0, 0],
           [0, 0, 0],
           [0, 0, 0],
           [0, 0, 0],
           [0, 0, 0],
           [2, 0, 0]])
    eq(R.bounce_rays(x, "ur"), [[0, 2, 0],
                                [2, 0, 0],
                                [0, 2, 0],
                                [0, 0, 2],
                                [0, 2, 0],
                                [2, 0, 0]])
    eq(R.bounce_rays(x[::-1], "dr"), R.bounce_rays(x, "ur")[::-1])
    assert R.bounce_rays(x, "dl") is None  # already at the bottom
    assert R.bounce_rays(g([[0, 0]]), "ur") is None
    assert R.bounce_rays(g([[0, 0], [0, 0], [2, 2]]), "ur") is None  # not lone cells


def test_bounce_params():
    x, y = g([[0, 0], [1, 0]]), g([[0, 1], [1, 0]])
    assert PARAMS["bounce"]([x], [y], task_facts([x], [y])) == [("ul",), ("ur",), ("dl",), ("dr",)]
    assert PARAMS["bounce"]([x], [x], task_facts([x], [x])) == []  # nothing drawn


def test_edge_crossings():
    x = g([[0, 5, 0, 5, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 5],
           [0, 0, 0, 0, 0],
           [5, 0, 0, 0, 5]])
    eq(R.edge_crossings(x, "tr", 2), [[0, 5, 0, 5, 0],
                                      [0, 0, 0, 0, 0],
                                      [0, 2, 0, 2, 5],
                                      [0, 0, 0, 0, 0],
                                      [5, 2, 0, 2, 5]])  # the bottom-left 5 marks nothing for 'tr'
    assert R.edge_crossings(x, "bl", 2) is None  # the bottom row and left column cross only on 5s
    assert R.edge_crossings(g([[0, 0], [0, 0]]), "tl", 2) is None


def test_marked_corner_params():
    x = g([[0, 5, 0], [0, 0, 5], [0, 0, 0]])
    y = g([[0, 5, 0], [0, 2, 5], [0, 0, 0]])
    assert PARAMS["marked_corner"]([x], [y], task_facts([x], [y])) == [("tr", 2)]
    assert PARAMS["marked_corner"]([x], [x], task_facts([x], [x])) == []  # nothing drawn


# A template (1 with a 2 on its right and a 3 under it) and two partial copies: a lone 2 and a
# lone 3, and a 3 with the 2 it belongs with (a copy turned a quarter clockwise: 2 below 1).
COPIES = g([[1, 2, 0, 0, 0, 0],
            [3, 0, 0, 0, 2, 0],
            [0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0],
            [0, 3, 0, 0, 0, 0]])


def test_complete_copies():
    # the lone 2 matches one place of the template; the lone 3 at (5, 1) too
    eq(R.complete_copies(COPIES, "shift", 1), [[1, 2, 0, 0, 0, 0],
                                               [3, 0, 0, 1, 2, 0],
                                               [0, 0, 0, 3, 0, 0],
                                               [0, 0, 0, 0, 0, 0],
                                               [0, 1, 2, 0, 0, 0],
                                               [0, 3, 0, 0, 0, 0]])
    eq(R.complete_copies(COPIES, "shift", 0)[0], [0, 0, 0, 0, 0, 0])  # the template erased
    assert R.complete_copies(g([[1, 2], [0, 0]]), "shift", 1) is None  # nothing to complete


def test_complete_copies_turned_needs_cells_that_fix_the_turn():
    # turned, a lone cell fits several looks equally: no answer
    assert R.complete_copies(COPIES, "dihedral", 1) is None
    # a 3 and a 4 fix one look of the template 123/4.. : turned a quarter anticlockwise
    part = g([[1, 2, 3, 0, 0, 0, 0],
              [4, 0, 0, 0, 0, 0, 0],
              [0, 0, 0, 0, 0, 0, 0],
              [0, 0, 0, 0, 3, 0, 0],
              [0, 0, 0, 0, 0, 0, 0],
              [0, 0, 0, 0, 0, 4, 0]])
    eq(R.complete_copies(part, "dihedral", 1), [[1, 2, 3, 0, 0, 0, 0],
                                                [4, 0, 0, 0, 0, 0, 0],
                                                [0, 0, 0, 0, 0, 0, 0],
                                                [0, 0, 0, 0, 3, 0, 0],
                                                [0, 0, 0, 0, 2, 0, 0],
                                                [0, 0, 0, 0, 1, 4, 0]])
    assert R.complete_copies(part, "shift", 1) is None  # as it is, no place fits both


KEYED = g([[1, 1, 1, 1, 0, 0, 0, 0],
           [1, 4, 4, 1, 0, 0, 0, 0],
           [1, 1, 1, 1, 4, 0, 0, 0],  # a loose 4 touching the template is not part of it
           [0, 0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 4, 0],
           [0, 4, 4, 0, 0, 0, 4, 0],
           [0, 0, 0, 0, 0, 0, 0, 0],
           [4, 0, 0, 0, 0, 0, 0, 0]])


def test_copy_onto_keys():
    # the two 4s side by side match the template's key; the lone 4s match nothing
    eq(R.copy_onto_keys(KEYED, "shift")[3:], [[0, 0, 0, 0, 0, 0, 0, 0],
                                              [1, 1, 1, 1, 0, 0, 4, 0],
                                              [1, 4, 4, 1, 0, 0, 4, 0],
                                              [1, 1, 1, 1, 0, 0, 0, 0],
                                              [4, 0, 0, 0, 0, 0, 0, 0]])
    # turned, the template's key also matches the two 4s one above the other
    eq(R.copy_onto_keys(KEYED, "dihedral")[3:], [[0, 0, 0, 0, 0, 1, 1, 1],
                                                 [1, 1, 1, 1, 0, 1, 4, 1],
                                                 [1, 4, 4, 1, 0, 1, 4, 1],
                                                 [1, 1, 1, 1, 0, 1, 1, 1],
                                                 [4, 0, 0, 0, 0, 0, 0, 0]])
    blocked = KEYED.copy()
    blocked[6, 1] = 2  # a copy's cells go on empty cells only
    assert R.copy_onto_keys(blocked, "shift") is None
    assert R.copy_onto_keys(KEYED[:4], "shift") is None  # no key cells that match


def test_copy_onto_keys_drops_cells_off_the_grid():
    x = g([[0, 4, 4, 0, 0, 0],
           [0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 1, 1],
           [0, 0, 0, 0, 4, 4]])  # the template: 11 over 44
    assert R.copy_onto_keys(x, "shift") is None  # its 1s would be above the grid: nothing drawn
    x[0] = [0, 0, 0, 0, 0, 0]
    x[1, 1:3] = 4
    eq(R.copy_onto_keys(x, "shift")[:2], [[0, 1, 1, 0, 0, 0], [0, 4, 4, 0, 0, 0]])
    facts = task_facts([x], [x])
    assert PARAMS["key_copy"]([x], [x], facts) == [("shift",), ("dihedral",)]


def test_a_partial_copy_whose_cells_touch_is_not_a_template():
    part = g([[1, 2, 3, 0, 0],
              [4, 0, 0, 0, 0],
              [0, 0, 2, 3, 0],
              [0, 0, 0, 0, 0]])  # 2 and 3 touch: one object of two colours, but part of the template
    eq(R.complete_copies(part, "shift", 1), [[1, 2, 3, 0, 0],
                                             [4, 0, 0, 0, 0],
                                             [0, 1, 2, 3, 0],
                                             [0, 4, 0, 0, 0]])
    assert R.complete_copies(part[:3], "shift", 1) is None  # its 4 would fall off the grid


# A template (2 1 2 over a 1); below it, its two 2s scaled up twice, and at the right its two
# 2s as they are: the copies are drawn at the scale their 2s show.
SCALED = g([[2, 1, 2, 0, 0, 0, 0, 0, 0],
            [0, 1, 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 0, 0],
            [2, 2, 0, 0, 2, 2, 0, 0, 0],
            [2, 2, 0, 0, 2, 2, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 2, 0, 2],
            [0, 0, 0, 0, 0, 0, 0, 0, 0]])


def test_complete_scaled_copies():
    expected = SCALED.copy()
    expected[3:7, 2:4] = 1  # the copy twice as large: its 1s as 2 x 2 blocks
    expected[7:9, 7] = 1  # the copy as it is
    eq(R.complete_scaled_copies(SCALED, "shift", 1), expected)
    assert R.complete_copies(SCALED, "shift", 1) is None  # as they are, the 2 x 2 blocks fit no copy


def test_a_scaled_copy_shows_its_blocks_whole_and_may_leave_the_grid():
    # the 2 x 2 block of 2s at the bottom edge: the copy's 1s would lie below the grid
    edge = SCALED[:5, :6].copy()
    eq(R.complete_scaled_copies(edge, "shift", 1)[3:], [[2, 2, 1, 1, 2, 2],
                                                        [2, 2, 1, 1, 2, 2]])
    assert R.complete_copies(edge, "shift", 1) is None
    broken = SCALED[:5, :6].copy()
    broken[4, 5] = 0  # a block with a cell missing is no block of a scaled copy
    assert R.complete_scaled_copies(broken, "shift", 1) is None
    # as it is, too: the copy of the 2s on the last row loses its lower 1 off the grid
    clipped = g([[2, 1, 2, 0, 0],
                 [0, 1, 0, 0, 0],
                 [0, 0, 0, 0, 0],
                 [0, 0, 0, 0, 0],
                 [2, 0, 2, 0, 0]])
    eq(R.complete_scaled_copies(clipped, "shift", 1)[4], [2, 1, 2, 0, 0])
    assert R.complete_copies(clipped, "shift", 1) is None


# Lines of 5 set a corner apart; in it, a reference: an L of 1s. Outside, an L of 3s and a bar of 3s.
REFERENCE = g([[1, 0, 5, 0, 0, 0, 0],
               [1, 1, 5, 0, 3, 0, 0],
               [5, 5, 5, 0, 3, 3, 0],
               [0, 0, 0, 0, 0, 0, 0],
               [0, 3, 3, 3, 0, 0, 0]])


def test_recolour_like():
    out = R.recolour_like(REFERENCE, 5, "apart", "own")
    eq(out[1:3, 3:6], [[0, 1, 0],
                       [0, 1, 1]])  # the L takes the reference's colour
    eq(out[4], [0, 3, 3, 3, 0, 0, 0])  # the bar is shaped otherwise
    eq(R.recolour_like(REFERENCE, 5, "apart", "frame")[1:3, 4:6], [[5, 0], [5, 5]])
    # the corner reaches the grid's edge: it is apart, not enclosed
    assert R.recolour_like(REFERENCE, 5, "enclosed", "own") is None
    boxed = np.pad(REFERENCE, 1)
    boxed[0, :4] = boxed[:4, 0] = 5  # now lines of 5 close the corner in
    eq(R.recolour_like(boxed, 5, "enclosed", "own")[2:4, 4:7], [[0, 1, 0], [0, 1, 1]])


def test_references_are_offered_for_colours_that_cut_every_grid():
    out = R.recolour_like(REFERENCE, 5, "apart", "own")
    assert PARAMS["reference"]([REFERENCE], [out], task_facts([REFERENCE], [out])) == [
        (5, "apart", "own"), (5, "enclosed", "own")]
    framed = R.recolour_like(REFERENCE, 5, "apart", "frame")
    assert (5, "apart", "frame") in PARAMS["reference"]([REFERENCE], [framed], task_facts([REFERENCE], [framed]))
    assert PARAMS["reference"]([REFERENCE], [REFERENCE[:3]], task_facts([REFERENCE], [REFERENCE[:3]])) == []


def test_copy_modes_keep_or_erase_as_the_targets_show():
    out = R.complete_copies(COPIES, "shift", 1)
    assert PARAMS["copy_mode"]([COPIES], [out], task_facts([COPIES], [out])) == [("shift", 1), ("dihedral", 1)]
    erased = R.complete_copies(COPIES, "shift", 0)
    assert PARAMS["copy_mode"]([COPIES], [erased], task_facts([COPIES], [erased])) == [("shift", 0), ("dihedral", 0)]
    assert PARAMS["copy_mode"]([COPIES], [out[:3]], task_facts([COPIES], [out[:3]])) == []


@pytest.fixture(scope="module")
def training():
    return {t.id: t for t in load_tasks("arc1/training")}


@pytest.mark.parametrize("task_id", ["321b1fc6", "4093f84a", "1f642eb9", "82819916", "a3df8b1e", "2281f1f4",
                                     "72322fa7", "0e206a2e", "36d67576", "8d510a79"])
def test_training_tasks_are_solved_through_relating(training, task_id):
    task = training[task_id]
    solution = solve(task, SolveConfig(time_budget=3.0))
    assert solution.candidates
    assert solution.candidates[0].grids == tuple(p.output for p in task.test)
    names = {fn.__name__ for fn, _, _ in R.REGISTRY}
    assert any(name in solution.candidates[0].detail for name in names)


def test_wall_rays():
    x = g([[0, 1, 0, 0, 0],
           [0, 0, 0, 2, 0],
           [5, 5, 5, 5, 5],
           [0, 0, 0, 0, 0],
           [0, 2, 0, 1, 0],
           [0, 0, 0, 0, 0]])
    eq(R.wall_rays(x, 2, True), [[0, 1, 0, 0, 0],
                                 [0, 0, 0, 2, 0],
                                 [5, 5, 5, 5, 5],
                                 [0, 2, 0, 0, 0],
                                 [0, 2, 0, 1, 0],
                                 [0, 0, 0, 0, 0]])  # each 2 towards the wall: the upper one touches it
    eq(R.wall_rays(x, 1, False), [[0, 1, 0, 0, 0],
                                  [0, 0, 0, 2, 0],
                                  [5, 5, 5, 5, 5],
                                  [0, 0, 0, 0, 0],
                                  [0, 2, 0, 1, 0],
                                  [0, 0, 0, 1, 0]])  # each 1 away from it, to the edge
    eq(R.wall_rays(x.T.copy(), 1, False), R.wall_rays(x, 1, False).T)  # a wall of full columns
    blocked = x.copy()
    blocked[0, 3] = 4
    eq(R.wall_rays(blocked, 2, False)[:2], [[0, 1, 0, 4, 0], [0, 0, 0, 2, 0]])  # stopped by the 4
    assert R.wall_rays(g([[0, 2, 0], [0, 0, 0]]), 2, True) is None  # no full line
    halfway = g([[5, 5], [0, 0], [0, 2], [0, 0], [5, 5]])
    eq(R.wall_rays(halfway, 2, True), halfway)  # no nearest line: unchanged, so a program goes on
    two = g([[0, 0], [5, 5], [0, 3], [0, 0], [0, 0], [5, 5]])
    eq(R.wall_rays(two, 3, False), [[0, 0], [5, 5], [0, 3], [0, 3], [0, 3], [5, 5]])  # away, up to the far wall
    facts = task_facts([x], [R.wall_rays(R.wall_rays(x, 2, True), 1, False)])
    assert PARAMS["wall_ray"]([x], [x], facts) == [(1, True), (1, False), (2, True), (2, False)]
    assert PARAMS["wall_ray"]([x[:2]], [x[:2]], task_facts([x[:2]], [x[:2]])) == []  # no full line


# An L of three 1s, a 2 beside its foot and a 3 on its diagonal.
L_SHAPE = g([[0, 0, 0, 0, 0, 0, 0, 0, 0],
             [0, 0, 0, 0, 0, 0, 0, 0, 0],
             [0, 1, 0, 0, 0, 0, 0, 0, 0],
             [0, 1, 1, 0, 0, 2, 0, 0, 0],
             [0, 0, 0, 0, 0, 0, 0, 0, 0],
             [0, 0, 0, 3, 0, 0, 0, 0, 0],
             [0, 0, 0, 0, 0, 0, 0, 0, 0]])


def test_repeat_toward():
    """Copies of the shape through each piece beside it, to the grid's edge."""
    # the 2 is the foot of the nearest copy to the right that shares no cell with the L (3
    # along); the 3, one cell, is the corner of the nearest one down and right (2 along),
    # clipped by the grid's edge at the next step
    eq(R.repeat_toward(L_SHAPE, "disjoint"), [[0, 0, 0, 0, 0, 0, 0, 0, 0],
                                              [0, 0, 0, 0, 0, 0, 0, 0, 0],
                                              [0, 1, 0, 0, 2, 0, 0, 2, 0],
                                              [0, 1, 1, 0, 2, 2, 0, 2, 2],
                                              [0, 0, 0, 3, 0, 0, 0, 0, 0],
                                              [0, 0, 0, 3, 3, 0, 0, 0, 0],
                                              [0, 0, 0, 0, 0, 3, 0, 0, 0]])
    # with boxes a line apart, no copy down and right covers the 3
    assert R.repeat_toward(L_SHAPE, "apart") is None
    two = np.where(L_SHAPE == 3, 0, L_SHAPE)
    two[3, 5], two[3, 6] = 0, 2  # the 2 one further: the nearest copy 3 along no longer covers it
    eq(R.repeat_toward(two, "apart")[2:4], [[0, 1, 0, 0, 0, 2, 0, 0, 0],
                                            [0, 1, 1, 0, 0, 2, 2, 0, 0]])
    eq(R.repeat_toward(two, "disjoint")[2:4], R.repeat_toward(two, "apart")[2:4])  # 4 along either way


def test_repeat_toward_refuses_what_it_cannot_place():
    assert R.repeat_toward(g([[0, 1, 0], [0, 0, 0]]), "disjoint") is None  # no piece beside the shape
    twins = g([[1, 1, 0, 2, 2]])
    assert R.repeat_toward(twins, "disjoint") is None  # no one largest object
    wide = L_SHAPE.copy()
    wide[5, 3:6] = 3  # three in a row: no copy of the L covers them
    assert R.repeat_toward(wide, "disjoint") is None
    both = g([[0, 0, 0, 0, 0],
              [0, 0, 2, 0, 0],
              [0, 0, 1, 1, 0],
              [0, 0, 0, 0, 0]])  # a copy one up covers the 2, and so does one up and left
    assert R.repeat_toward(both, "disjoint") is None


def test_repeat_spacings_are_offered_where_the_targets_add_input_colours():
    y = R.repeat_toward(L_SHAPE, "disjoint")
    facts = task_facts([L_SHAPE], [y])
    assert PARAMS["repeat_spacing"]([L_SHAPE], [y], facts) == [("disjoint",), ("apart",)]
    erased = np.where(y == 1, 0, y)  # a target that loses cells
    assert PARAMS["repeat_spacing"]([L_SHAPE], [erased], task_facts([L_SHAPE], [erased])) == []
    new_colour = np.where(y == 2, 7, y)  # a colour no input has
    assert PARAMS["repeat_spacing"]([L_SHAPE], [new_colour], task_facts([L_SHAPE], [new_colour])) == []


@pytest.mark.parametrize("task_id", ["045e512c", "e8dc4411"])
def test_training_tasks_repeat_a_shape_toward_its_pieces(training, task_id):
    """045e512c: copies of a shape, boxes a line apart, through each coloured piece of it to
    the edge. e8dc4411: the same, on a background of another colour, with copies that only
    share no cell. Both reach their test outputs with no clock."""
    task = training[task_id]
    solution = solve(task, SolveConfig(time_budget=float("inf")), max_depth=2, max_states=2000)
    assert solution.candidates[0].grids == tuple(p.output for p in task.test)
    assert "repeat_toward" in solution.candidates[0].detail


HOLES = g([[5, 5, 5, 5, 0, 0, 0],
           [5, 0, 0, 5, 0, 3, 0],
           [5, 5, 0, 5, 0, 3, 3],
           [5, 5, 5, 5, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 7, 7, 0, 0, 0, 0]])


def test_fit_pieces():
    """The one piece whose shape is the hole's moves into it; turned, another fits too."""
    eq(R.fit_pieces(HOLES, "any"), [[5, 5, 5, 5, 0, 0, 0],
                                    [5, 3, 3, 5, 0, 0, 0],
                                    [5, 5, 3, 5, 0, 0, 0],
                                    [5, 5, 5, 5, 0, 0, 0],
                                    [0, 0, 0, 0, 0, 0, 0],
                                    [0, 7, 7, 0, 0, 0, 0]])  # the L of 3 turned a quarter
    assert R.fit_pieces(HOLES, "same") is None  # as it is, no piece has the hole's shape
    bar = np.where(HOLES == 3, 0, HOLES)
    bar[1, 5:7] = 3
    assert R.fit_pieces(bar, "any") is None  # a bar of 2 fills no L of 3, however turned


def test_fit_pieces_prefers_a_colours_only_object_and_refuses_a_tie():
    x = g([[0, 0, 0, 0, 0, 0],
           [0, 4, 4, 4, 4, 0],
           [0, 4, 0, 0, 4, 0],
           [0, 4, 4, 4, 4, 0],
           [0, 0, 0, 0, 0, 0],
           [6, 6, 0, 7, 7, 0],
           [0, 0, 0, 0, 0, 7]])
    eq(R.fit_pieces(x, "same")[1:3], [[0, 4, 4, 4, 4, 0],
                                      [0, 4, 6, 6, 4, 0]])  # 6 has one object, 7 has two
    assert (R.fit_pieces(x, "same")[5] == [0, 0, 0, 7, 7, 0]).all()
    tie = x.copy()
    tie[6, 5] = 0  # now 7 too is its colour's only object
    assert R.fit_pieces(tie, "same") is None
    assert R.fit_pieces(g([[0, 1, 0], [0, 0, 0]]), "any") is None  # no hole


def test_bridge_gaps():
    """The gap between two facing objects is filled over their shared span, less the inset."""
    x = g([[1, 1, 0, 0, 0],
           [1, 1, 0, 0, 2],
           [1, 1, 0, 0, 2],
           [1, 1, 0, 0, 2],
           [0, 0, 0, 0, 0],
           [3, 0, 0, 0, 0]])
    eq(R.bridge_gaps(x, 8, 0, "hv")[:4], [[1, 1, 0, 0, 0],
                                          [1, 1, 8, 8, 2],
                                          [1, 1, 8, 8, 2],
                                          [1, 1, 8, 8, 2]])
    eq(R.bridge_gaps(x, 8, 1, "hv")[:4], [[1, 1, 0, 0, 0],
                                          [1, 1, 0, 0, 2],
                                          [1, 1, 8, 8, 2],
                                          [1, 1, 0, 0, 2]])
    eq(R.bridge_gaps(x, 8, 0, "hv")[4:], [[8, 0, 0, 0, 0], [3, 0, 0, 0, 0]])  # the 3 faces the 1s down a column
    eq(R.bridge_gaps(x, 8, 0, "h")[4:], x[4:])  # along rows only
    eq(R.bridge_gaps(x, 8, 0, "v")[:4], x[:4])  # along columns only
    assert R.bridge_gaps(g([[1, 0, 5, 0, 2]]), 8, 0, "hv")[0].tolist() == [1, 8, 5, 8, 2]  # neighbours only
    assert R.bridge_gaps(g([[1, 0], [0, 2]]), 8, 0, "hv") is None  # nothing faces anything


def test_outer_corner_rays():
    """Rays leave the outer corners of the largest box, never its inner ones, and stop at a cell."""
    box = g([[0, 0, 0, 0, 0, 0, 0, 0],
             [0, 3, 3, 3, 3, 3, 0, 0],
             [0, 3, 0, 0, 0, 3, 0, 0],
             [0, 3, 0, 5, 0, 3, 0, 0],
             [0, 3, 0, 0, 0, 3, 0, 0],
             [0, 3, 3, 3, 3, 3, 0, 0],
             [0, 0, 0, 0, 0, 0, 0, 0],
             [0, 0, 0, 0, 0, 0, 0, 5]])
    rays = np.zeros((8, 8), dtype=bool)
    rays[0, 0] = rays[0, 6] = rays[6, 0] = rays[6, 6] = True  # the ray down and right stops at the 5
    eq(R.outer_corner_rays(box, "largest", -2), np.where(rays, 5, box))  # 5, the one colour the box lacks
    eq(R.outer_corner_rays(box, "largest", 0), np.where(rays, 5, box))  # 5 is also the rarest
    eq(R.outer_corner_rays(box, "largest", -1), np.where(rays, 3, box))  # the box's own colour
    eq(R.outer_corner_rays(box, "largest", 8), np.where(rays, 8, box))
    assert R.outer_corner_rays(box, "each", -1)[2, 2] == 5  # with each object, the lone 5 shoots too
    touching = box.copy()
    touching[3, 3], touching[2, 2] = 0, 5  # one object with the box, with a corner facing into its hole
    eq(R.outer_corner_rays(touching, "largest", 0), np.where(rays, 5, touching))  # no ray starts in the hole
    pillar = g([[0, 0, 0], [0, 0, 0], [0, 4, 0], [0, 4, 0]])
    eq(R.outer_corner_rays(pillar, "largest", -1)[:2], [[0, 0, 0], [4, 0, 4]])  # its top faces both ways
    assert R.outer_corner_rays(g([[1, 0, 1]]), "largest", -1) is None  # two largest boxes
    assert R.outer_corner_rays(g([[1, 2], [2, 1]]), "largest", -2) is None  # no other colour, and no room


def test_smear_to_marker():
    """Each marker cell off the box's centre sends copies of its object to the edge on its side."""
    x = g([[0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0],
           [0, 0, 4, 2, 0, 0],
           [0, 0, 4, 4, 0, 0],
           [0, 0, 0, 0, 0, 0]])
    eq(R.smear_to_marker(x, 2, "body"), [[0, 0, 0, 0, 4, 4],
                                         [0, 0, 0, 4, 4, 4],
                                         [0, 0, 4, 4, 4, 0],
                                         [0, 0, 4, 4, 0, 0],
                                         [0, 0, 0, 0, 0, 0]])
    eq(R.smear_to_marker(x, 2, "copy")[:3], [[0, 0, 0, 0, 4, 2],
                                             [0, 0, 0, 4, 2, 4],
                                             [0, 0, 4, 2, 4, 0]])  # copies keep the marker; the nearer wins
    two = g([[0, 0, 0, 0],
             [0, 5, 2, 0],
             [0, 2, 5, 0],
             [0, 0, 0, 0]])  # markers up-right and down-left: both ways
    eq(R.smear_to_marker(two, 2, "body"), [[0, 0, 5, 5],
                                           [0, 5, 5, 5],
                                           [5, 5, 5, 0],
                                           [5, 5, 0, 0]])
    tee = g([[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 2, 0, 0], [0, 3, 3, 3, 0]])  # marker mid-top: straight up
    eq(R.smear_to_marker(tee, 2, "body"), [[0, 3, 3, 3, 0]] * 4)
    assert R.smear_to_marker(g([[0, 0, 0], [3, 2, 3], [0, 0, 0]]), 2, "body") is None  # the marker is the centre
    assert R.smear_to_marker(x, 7, "body") is None  # no object holds the colour


def test_smear_to_marker_is_tried_with_the_colours_every_input_holds():
    x, y = g([[0, 0, 0], [0, 4, 2], [0, 1, 0]]), g([[0, 0, 4], [0, 4, 4], [0, 1, 0]])
    assert PARAMS["marker_smear"]([x], [y], task_facts([x], [y])) == [
        (1, "body"), (1, "copy"), (2, "body"), (2, "copy"), (4, "body"), (4, "copy")]
    assert PARAMS["marker_smear"]([x], [x[:2]], task_facts([x], [x[:2]])) == []  # the size changes


@pytest.mark.parametrize("task_id, program", [
    ("228f6490", "fit_pieces{same}"),  # pieces drop into the holes of grey shapes; the rest stay
    ("d6ad076f", "bridge_gaps{8,1,hv}"),  # a bridge one cell narrower than the blocks' shared side
    ("b8cdaf2b", "outer_corner_rays{largest,0}"),  # from the top of a pyramid, in its rarest colour
    ("ec883f72", "outer_corner_rays{largest,-2}"),  # from a container's corners, in what it holds
    ("1f0c79e5", "smear_to_marker{2,body}"),  # a 2 x 2 block smeared diagonally towards its red cells
    ("d89b689b", "snap_to_anchor{8}"),  # four cells take the corners of the 2 x 2 block nearest them
    ("928ad970", "box_within_markers{5,1,-1}"),  # a box in the shape's colour, just within four markers
    ("56dc2b01", "attract{2} | line_behind{8}"),  # a shape moved onto the wall, a line drawn behind it
])
def test_search_solves_arc_tasks_by_pieces_bridges_and_corner_rays(task_id, program):
    """Verified and right, clock-free (the same on any machine)."""
    [task] = load_tasks(task_id)
    [best, *_] = solve(task, SolveConfig(time_budget=float("inf")), max_depth=2, max_states=2000).candidates
    assert best.verified and best.detail == program
    assert [grid.to_numpy().tolist() for grid in best.grids] == [p.output.to_numpy().tolist() for p in task.test]
