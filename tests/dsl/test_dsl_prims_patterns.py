"""Tests of the pattern primitives: stamps learned per object, diagonal connections, line
ends continued, diagonals turned back by walls, rays stepping past obstacles, copies onto
markers, square holes filled, crossing lines and rings around crossings, stairs grown from
a bar, enclosed regions filled by their shape, L-shaped joins, lone cells moved onto
lines."""

import numpy as np
import pytest

from arcsolve.dsl.families import patterns as P
from arcsolve.dsl.params import PARAMS, task_facts
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import search, solve
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig
from tests.grids import eq, g


def test_stamp_objects():
    x = g([[0, 0, 0, 0, 0, 0, 0],
           [0, 1, 0, 0, 1, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 3]])
    y = g([[0, 2, 0, 0, 2, 0, 0],
           [2, 1, 2, 2, 1, 2, 0],
           [0, 2, 0, 0, 2, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 3]])
    table = P.fit_stamps([x], [y])  # the 3 changes nothing: once is enough
    new = g([[1, 0, 0],
             [0, 0, 0],
             [0, 0, 3]])
    eq(P.stamp_objects(new, "exact", table), [[1, 2, 0],
                                              [2, 0, 0],
                                              [0, 0, 3]])  # the 3's ring was seen at the edge only
    assert P.stamp_objects(g([[0, 4], [0, 0]]), "exact", table) is None  # a kind of object never seen
    assert P.fit_stamps([x], [np.where(y == 3, 5, y)]) is None  # the 3 changes, seen only once
    assert P.fit_stamps([x, x], [y, np.where(y == 2, 6, y)]) is None  # one kind, two stamps


def test_stamp_objects_with_relative_colours():
    x = g([[0, 0, 0, 0, 0, 0, 0],
           [0, 1, 2, 0, 0, 3, 4],
           [0, 0, 0, 0, 0, 0, 0]])
    y = g([[0, 0, 0, 0, 0, 0, 0],
           [2, 1, 2, 0, 4, 3, 4],
           [0, 0, 0, 0, 0, 0, 0]])  # each pair of cells gets its second colour on its left
    assert P.fit_stamps([x], [y], "exact") is None  # two kinds, each changing, each seen once
    table = P.fit_stamps([x], [y], "relative")
    eq(P.stamp_objects(g([[0, 0, 0], [0, 7, 5]]), "relative", table), [[0, 0, 0], [5, 7, 5]])
    assert P.stamp_objects(g([[0, 0, 0], [0, 7, 7]]), "relative", table) is None  # one colour: another kind


def test_stamps_params_fit_only_the_inputs():
    x = g([[0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    y = g([[0, 2, 0, 0], [2, 1, 2, 0], [0, 2, 0, 0], [0, 0, 0, 0]])
    x2, y2 = np.rot90(x).copy(), np.rot90(y).copy()
    facts = task_facts([x, x2], [y, y2])
    [(exact_mode, exact), (relative_mode, relative)] = PARAMS["stamps"]([x, x2], [y, y2], facts)
    assert (exact_mode, relative_mode) == ("exact", "relative")
    eq(P.stamp_objects(x, "exact", exact), y)
    eq(P.stamp_objects(x, "relative", relative), y)
    assert PARAMS["stamps"]([x.copy(), x2], [y, y2], facts) == []  # a derived grid, not the input
    assert PARAMS["stamps"]([x], [x], task_facts([x], [x])) == []  # nothing to draw


def test_connect_diagonal():
    x = g([[2, 0, 0, 0, 4],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [4, 0, 0, 0, 2]])
    eq(P.connect_diagonal(x), [[2, 0, 0, 0, 4],
                               [0, 2, 0, 4, 0],
                               [0, 0, 2, 0, 0],
                               [0, 4, 0, 2, 0],
                               [4, 0, 0, 0, 2]])  # the second line stops at the first (no zero left)
    assert P.connect_diagonal(g([[3, 0, 0], [0, 0, 0], [0, 0, 5]])) is None  # two colours
    assert P.connect_diagonal(g([[3, 0], [0, 3]])) is None  # already touching


def test_extend_tips():
    x = g([[0, 0, 0, 0, 0],
           [0, 1, 1, 0, 0],
           [0, 1, 1, 0, 0],
           [0, 0, 0, 1, 0],
           [0, 0, 0, 0, 0]])
    eq(P.extend_tips(x), [[0, 0, 0, 0, 0],
                          [0, 1, 1, 0, 0],
                          [0, 1, 1, 0, 0],
                          [0, 0, 0, 1, 0],
                          [0, 0, 0, 0, 1]])
    line = g([[0, 0, 0, 0, 5],
              [0, 3, 3, 0, 0]])
    eq(P.extend_tips(line), [[0, 0, 0, 0, 5],
                             [3, 3, 3, 3, 3]])  # both ends of a bar; a lone cell has no direction
    assert P.extend_tips(g([[0, 4, 0], [4, 4, 4]])) is None  # no cell has a single neighbour


def test_extend_tips_of():
    bars = g([[0, 0, 0, 0, 0, 0],
              [0, 0, 5, 2, 0, 0],
              [0, 0, 0, 0, 0, 0],
              [0, 2, 0, 0, 0, 0],
              [0, 5, 0, 0, 0, 0],
              [0, 0, 0, 0, 0, 0]])
    eq(P.extend_tips_of(bars, 2), [[0, 2, 0, 0, 0, 0],
                                   [0, 2, 5, 2, 2, 2],
                                   [0, 2, 0, 0, 0, 0],
                                   [0, 2, 0, 0, 0, 0],
                                   [0, 5, 0, 0, 0, 0],
                                   [0, 0, 0, 0, 0, 0]])
    # where every end grows, the grey line takes the cell where it crosses the red one
    assert P.extend_tips(bars)[:, 1].tolist() == [2, 5, 2, 2, 5, 5]
    assert P.extend_tips_of(bars, 3) is None  # no end of that colour


def test_copy_to_markers():
    x = g([[0, 2, 0, 0, 0, 0],
           [2, 1, 2, 0, 0, 0],
           [0, 3, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 5, 0],
           [0, 0, 0, 0, 0, 0]])
    eq(P.copy_to_markers(x), [[0, 2, 0, 0, 0, 0],
                              [2, 1, 2, 0, 0, 0],
                              [0, 3, 0, 0, 0, 0],
                              [0, 0, 0, 0, 2, 0],
                              [0, 0, 0, 2, 1, 2],
                              [0, 0, 0, 0, 3, 0]])  # centred on a marker of a colour it lacks
    y = g([[4, 4, 0, 0],
           [0, 6, 0, 0],
           [0, 0, 0, 0],
           [0, 0, 0, 6]])
    eq(P.copy_to_markers(y), [[4, 4, 0, 0],
                              [0, 6, 0, 0],
                              [0, 0, 4, 4],
                              [0, 0, 0, 6]])  # aligned on its one cell of the marker's colour
    assert P.copy_to_markers(g([[4, 4, 0, 0], [0, 0, 0, 5]])) is None  # even size: no centre
    assert P.copy_to_markers(g([[4, 0, 0], [0, 0, 5]])) is None  # no object of several cells
    walled = g([[3, 1, 5, 0, 0, 0],
                [4, 3, 5, 0, 0, 0],
                [0, 0, 5, 0, 0, 1],
                [0, 0, 5, 0, 0, 0]])
    eq(P.copy_to_markers(walled), [[3, 1, 5, 0, 0, 0],
                                   [4, 3, 5, 0, 0, 0],
                                   [0, 0, 5, 0, 3, 1],
                                   [0, 0, 5, 0, 4, 3]])  # the template beside a wall, not the wall, is copied


def test_search_copies_a_template_beside_a_wall_onto_its_markers():
    """363442ee: the 3 x 3 template touches the wall that splits the grid; each marker beyond
    the wall gets a copy centred on it."""
    [task] = load_tasks("363442ee")
    found = search(task, float("inf"), max_depth=2, max_states=2000)  # no clock: the same on any machine
    assert format_program(found[0].program) == "copy_to_markers" and found[0].verified
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_copy_to_keys():
    x = g([[2, 1, 0, 0, 0, 0, 0],
           [1, 1, 0, 0, 3, 4, 4],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 3],
           [0, 2, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0]])
    eq(P.copy_to_keys(x, "none"), [[2, 1, 0, 0, 0, 0, 0],
                                   [1, 1, 0, 0, 3, 4, 4],
                                   [0, 0, 0, 0, 0, 0, 0],
                                   [0, 0, 0, 0, 0, 0, 3],
                                   [0, 2, 1, 0, 0, 0, 0],
                                   [0, 1, 1, 0, 0, 0, 0]])  # each key gets its own template, clipped
    eq(P.copy_to_keys(x, "2")[4:], [[1, 2, 0, 0, 0, 0, 0],
                                    [1, 1, 0, 0, 0, 0, 0]])  # the 2-template mirrored
    eq(P.copy_to_keys(x, "2+3")[3], [0, 0, 0, 0, 4, 4, 3])  # 3's template mirrored, to the key's left
    assert P.copy_to_keys(g([[2, 1, 0, 0], [0, 0, 0, 5]]), "none") is None  # no template has a 5
    assert P.copy_to_keys(g([[2, 1, 0, 2, 1], [0, 0, 0, 0, 0], [0, 0, 2, 0, 0]]), "none") is None  # two do


def test_key_mirrors_are_offered_for_each_key_colour():
    x = g([[2, 1, 0, 0, 0], [0, 0, 0, 3, 0], [0, 0, 0, 0, 0], [3, 5, 0, 2, 0]])
    y = P.copy_to_keys(x, "none")
    assert PARAMS["key_mirrors"]([x], [y], task_facts([x], [y])) == [("none",), ("2",), ("3",), ("2+3",)]
    assert PARAMS["key_mirrors"]([x], [x[:2]], task_facts([x], [x[:2]])) == []  # the size changes


def test_fill_squares():
    x = g([[0, 0, 0, 5],
           [0, 0, 0, 0],
           [5, 0, 0, 0]])
    eq(P.fill_squares(x, 2, 7), [[7, 7, 0, 5],
                                 [7, 7, 7, 7],
                                 [5, 0, 7, 7]])  # squares overlapping a taken one are skipped
    assert P.fill_squares(x, 3, 7) is None
    assert P.fill_squares(g([[0, 5], [5, 0]]), 2, 7) is None


def test_cross_lines():
    x = g([[0, 0, 0, 0],
           [0, 8, 0, 0],
           [0, 0, 0, 0],
           [0, 0, 0, 7]])
    eq(P.cross_lines(x, 2), [[0, 8, 0, 7],
                             [8, 8, 8, 2],
                             [0, 8, 0, 7],
                             [7, 2, 7, 7]])
    assert P.cross_lines(g([[0, 3], [0, 0]]), 2) is None  # one cell: nothing crosses
    assert P.cross_lines(g([[3, 4], [0, 0]]), 2) is None  # a row of two colours


def test_fill_holes():
    x = g([[5, 5, 5, 5, 0, 0, 0],
           [5, 0, 0, 5, 5, 5, 5],
           [5, 0, 0, 5, 0, 0, 5],
           [5, 5, 5, 5, 0, 5, 5],
           [5, 0, 5, 0, 0, 0, 0],
           [5, 5, 5, 0, 0, 0, 0]])
    eq(P.fill_holes(x, "square", 2), [[5, 5, 5, 5, 0, 0, 0],
                                      [5, 2, 2, 5, 5, 5, 5],
                                      [5, 2, 2, 5, 0, 0, 5],
                                      [5, 5, 5, 5, 0, 5, 5],
                                      [5, 2, 5, 0, 0, 0, 0],
                                      [5, 5, 5, 0, 0, 0, 0]])  # the open room stays
    eq(P.fill_holes(x, "odd", 7), np.where((np.arange(6)[:, None] == 4) & (np.arange(7) == 1), 7, x))
    eq(P.fill_holes(x, "even", 7), np.where((x == 0) & (np.arange(6)[:, None] < 3) & (np.arange(7) < 3), 7, x))
    assert P.fill_holes(g([[5, 0], [0, 5]]), "rect", 2) is None  # nothing enclosed


def test_elbow():
    x = g([[0, 2, 0, 0],
           [0, 0, 0, 0],
           [0, 0, 0, 3]])
    eq(P.elbow(x, 2, 3, 8, "h"), [[0, 2, 8, 8],
                                  [0, 0, 0, 8],
                                  [0, 0, 0, 3]])
    eq(P.elbow(x, 2, 3, 8, "v"), [[0, 2, 0, 0],
                                  [0, 8, 0, 0],
                                  [0, 8, 8, 3]])
    assert P.elbow(g([[2, 2, 3]]), 2, 3, 8, "h") is None  # two cells of colour 2
    facts = task_facts([x], [P.elbow(x, 2, 3, 8, "h")])
    assert PARAMS["elbow"]([x], [x], facts) == [(2, 3, 8, "h"), (2, 3, 8, "v")]


def test_reach_lines():
    """Each cell off the full lines draws its way to the nearest line of its colour."""
    x = g([[3, 1, 1, 1, 1, 8],
           [3, 0, 0, 0, 0, 8],
           [3, 0, 2, 0, 8, 8],
           [3, 0, 0, 0, 0, 8],
           [3, 0, 5, 0, 0, 8],
           [3, 2, 2, 2, 2, 8]])
    eq(P.reach_lines(x), [[3, 1, 1, 1, 1, 8],
                          [3, 0, 0, 0, 0, 8],
                          [3, 0, 2, 0, 8, 8],
                          [3, 0, 2, 0, 0, 8],
                          [3, 0, 5, 0, 0, 8],  # no line of 5; the 2's path paints only zeros
                          [3, 2, 2, 2, 2, 8]])
    y = g([[4, 0, 0, 0],
           [4, 0, 4, 0],
           [4, 0, 0, 0]])
    eq(P.reach_lines(y), [[4, 0, 0, 0], [4, 4, 4, 0], [4, 0, 0, 0]])
    assert P.reach_lines(g([[4, 0, 4, 0, 4], [4, 0, 4, 0, 4]])) is None  # every cell is on a line
    assert P.reach_lines(g([[4, 0, 4, 0, 4], [4, 0, 0, 0, 4]])) is None  # two lines as near
    assert P.reach_lines(g([[1, 0, 0], [1, 0, 2], [1, 0, 0]])) is None  # nothing to draw
    assert PARAMS["full_lines"]([x], [x], task_facts([x], [x])) == [()]
    assert PARAMS["full_lines"]([x, g([[0, 1], [1, 0]])], [x, x], task_facts([x], [x])) == []


def test_join_lines():
    x = g([[0, 3, 0, 0, 4],
           [0, 0, 0, 0, 0],
           [3, 3, 3, 3, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 3, 0, 0]])
    eq(P.join_lines(x), [[0, 0, 0, 0, 0],
                         [0, 3, 0, 0, 0],
                         [3, 3, 3, 3, 0],
                         [0, 0, 3, 0, 0],
                         [0, 0, 0, 0, 0]])  # the 4 has no line: it goes
    wall = g([[2, 0, 0, 0, 0],
              [2, 0, 0, 2, 0],
              [2, 0, 0, 0, 0]])
    eq(P.join_lines(wall), [[2, 0, 0, 0, 0],
                            [2, 2, 0, 0, 0],
                            [2, 0, 0, 0, 0]])
    assert P.join_lines(g([[5, 5, 5], [0, 0, 0]])) is None  # no lone cell
    assert P.join_lines(g([[1, 1, 1], [0, 0, 0], [0, 1, 0], [0, 0, 0], [1, 1, 1]])) is None  # two lines as near


def test_search_copies_each_template_onto_its_keys_the_red_ones_mirrored():
    [task] = load_tasks("3e980e27")
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == "copy_to_keys{2}"
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_bounce_diagonals():
    x = g([[0, 0, 0, 0, 5],
           [0, 0, 0, 0, 5],
           [0, 0, 0, 0, 5],
           [0, 8, 0, 0, 5],
           [8, 0, 0, 0, 5]])
    eq(P.bounce_diagonals(x, 3), [[0, 0, 3, 0, 5],
                                  [0, 0, 0, 3, 5],
                                  [0, 0, 3, 0, 5],
                                  [0, 8, 0, 0, 5],
                                  [8, 0, 0, 0, 5]])  # up to the wall, turned back, then to the top edge
    open_ = g([[0, 0, 0, 0],
               [0, 7, 0, 0],
               [0, 0, 7, 0],
               [0, 0, 0, 0]])
    eq(P.bounce_diagonals(open_, 3), [[3, 0, 0, 0],
                                      [0, 7, 0, 0],
                                      [0, 0, 7, 0],
                                      [0, 0, 0, 3]])  # both ends go on
    assert P.bounce_diagonals(g([[0, 0, 0], [0, 7, 7], [0, 0, 0]]), 3) is None  # a bar, not a diagonal
    assert P.bounce_diagonals(g([[0, 0, 0], [0, 7, 0], [0, 0, 0]]), 3) is None  # one cell has no heading
    cornered = g([[5, 5, 5, 5],
                  [5, 0, 0, 0],
                  [5, 0, 7, 0],
                  [5, 0, 0, 7]])
    eq(P.bounce_diagonals(cornered, 3), [[5, 5, 5, 5],
                                         [5, 3, 0, 0],
                                         [5, 0, 7, 0],
                                         [5, 0, 0, 7]])  # into a corner: no way to turn, it ends


def test_detour_rays():
    x = g([[0, 0, 0, 0],
           [0, 0, 0, 0],
           [0, 5, 0, 0],
           [0, 0, 0, 0],
           [0, 2, 0, 0]])
    eq(P.detour_rays(x, 2, "right"), [[0, 0, 2, 0],
                                      [0, 0, 2, 0],
                                      [0, 5, 2, 0],
                                      [0, 2, 2, 0],
                                      [0, 2, 0, 0]])  # up from the bottom edge, one step right past the 5
    eq(P.detour_rays(x, 2, "left"), [[2, 0, 0, 0],
                                     [2, 0, 0, 0],
                                     [2, 5, 0, 0],
                                     [2, 2, 0, 0],
                                     [0, 2, 0, 0]])
    eq(P.detour_rays(np.rot90(x).copy(), 2, "right"), np.rot90(P.detour_rays(x, 2, "right")))  # any edge
    assert P.detour_rays(g([[0, 0, 0], [0, 2, 0], [0, 0, 0]]), 2, "right") is None  # not on an edge
    assert P.detour_rays(g([[2, 0], [0, 0]]), 2, "right") is None  # a corner has no one way in
    walled = g([[0, 0, 0],
                [5, 5, 0],
                [0, 2, 0]])
    eq(P.detour_rays(walled, 2, "right"), [[0, 0, 2],
                                           [5, 5, 2],
                                           [0, 2, 2]])
    eq(P.detour_rays(walled, 2, "left"), [[0, 0, 0],
                                          [5, 5, 0],
                                          [2, 2, 0]])  # blocked again after the step aside: it ends
    two = np.pad(x, ((0, 0), (0, 1)))
    two[4, 3] = 7
    eq(P.detour_rays(two, 0, "right"), [[0, 0, 2, 7, 0],
                                        [0, 0, 2, 7, 0],
                                        [0, 5, 2, 7, 0],
                                        [0, 2, 2, 7, 0],
                                        [0, 2, 0, 7, 0]])  # colour 0: from every edge cell, in its own colour
    assert P.detour_rays(two, 7, "right")[:, 1].tolist() == [0, 0, 5, 0, 2]  # the 2 shoots no more
    y = P.detour_rays(x, 2, "right")
    assert PARAMS["detour"]([x], [y], task_facts([x], [y])) == [(2, "left"), (2, "right")]
    y2 = P.detour_rays(two, 0, "right")
    assert PARAMS["detour"]([two], [y2], task_facts([two], [y2])) == [
        (2, "left"), (2, "right"), (7, "left"), (7, "right"), (0, "left"), (0, "right")]  # any colour, if several


def test_ring_crossings():
    x = g([[0, 3, 0, 0],
           [2, 2, 2, 2],
           [0, 3, 0, 0],
           [0, 3, 0, 0]])
    eq(P.ring_crossings(x, 4), [[4, 4, 4, 0],
                                [4, 2, 4, 2],
                                [4, 4, 4, 0],
                                [0, 3, 0, 0]])  # the crossing stays, its eight neighbours turn 4
    assert P.ring_crossings(g([[2, 2, 2], [0, 0, 0]]), 4) is None  # a line that nothing crosses
    corner = g([[2, 2, 2],
                [3, 0, 0],
                [3, 0, 0]])
    assert P.ring_crossings(corner, 4) is None  # two lines that meet at a corner do not cross


@pytest.mark.parametrize("task_id, program", [
    ("508bd3b6", "bounce_diagonals{3}"),  # a diagonal goes on, turned back by a wall
    ("d9f24cd1", "detour_rays{2,right}"),  # rays from the bottom edge step right past grey cells
    ("67a423a3", "ring_crossings{4}"),  # a ring around where two lines cross
    ("a65b410d", "stairs{3,1,left}"),  # a bar with stairs growing above it, shrinking below
])
def test_search_solves_arc_tasks_by_bounces_detours_rings_and_stairs(task_id, program):
    """Verified and right, clock-free (the same on any machine)."""
    [task] = load_tasks(task_id)
    [best, *_] = solve(task, SolveConfig(time_budget=float("inf")), max_depth=2, max_states=2000).candidates
    assert best.verified and best.detail == program
    assert [grid.to_numpy().tolist() for grid in best.grids] == [p.output.to_numpy().tolist() for p in task.test]


def test_stairs():
    x = g([[0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [2, 2, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0]])
    eq(P.stairs(x, 3, 1, "left"), [[3, 3, 3, 3, 0],
                                   [3, 3, 3, 0, 0],
                                   [2, 2, 0, 0, 0],
                                   [1, 0, 0, 0, 0],
                                   [0, 0, 0, 0, 0]])  # up a cell longer each, down a cell shorter
    eq(P.stairs(x, 3, 1, "right"), P.stairs(x, 3, 1, "left")[::-1])  # the other way round
    turned = np.rot90(x).copy()  # a bar up from the bottom edge
    eq(P.stairs(turned, 3, 1, "left"), np.rot90(P.stairs(x, 3, 1, "left")))
    assert P.stairs(g([[0, 2, 2, 0]]), 3, 1, "left") is None  # not on an edge
    assert P.stairs(g([[2, 0], [2, 2]]), 3, 1, "left") is None  # not a bar
    assert P.stairs(g([[2, 5, 0]]), 3, 1, "left") is None  # two colours
    facts = task_facts([x], [P.stairs(x, 3, 1, "left")])
    assert (3, 1, "left") in PARAMS["stairs"]([x], [P.stairs(x, 3, 1, "left")], facts)
