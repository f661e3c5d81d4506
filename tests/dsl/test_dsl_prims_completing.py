"""Tests of the completing primitives: objects made symmetric about their own axes, bands
of content continued along the grid, runs of several colours repeated along their lines,
stripes repeated from evenly spaced cells or painted in a key line's colours, diagonal
patterns filled, objects reflected across a wall, dashed lines closed, shapes under noise
painted."""

import numpy as np

from arcsolve.dsl.families import completing as C
from arcsolve.dsl.params import PARAMS, task_facts
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import search, solve
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig
from tests.grids import eq, g


def test_mirror_objects():
    x = g([[0, 0, 0, 0, 0, 0],
           [0, 0, 1, 0, 0, 0],
           [0, 0, 2, 2, 0, 0],
           [0, 0, 2, 2, 0, 0],
           [0, 0, 0, 0, 0, 0]])
    eq(C.mirror_objects(x, "rot", 0), [[0, 0, 0, 0, 0, 0],
                                       [0, 0, 1, 0, 0, 0],
                                       [0, 0, 2, 2, 1, 0],
                                       [0, 1, 2, 2, 0, 0],
                                       [0, 0, 0, 1, 0, 0]])  # turned about the block's centre, not the grid's
    eq(C.mirror_objects(x, "rot", 5), [[0, 0, 0, 0, 0, 0],
                                       [0, 0, 1, 0, 0, 0],
                                       [0, 0, 2, 2, 5, 0],
                                       [0, 5, 2, 2, 0, 0],
                                       [0, 0, 0, 5, 0, 0]])  # the cells added in a colour of their own
    eq(C.mirror_objects(x, "hv", 0), [[0, 0, 0, 0, 0, 0],
                                      [0, 0, 1, 1, 0, 0],
                                      [0, 0, 2, 2, 0, 0],
                                      [0, 0, 2, 2, 0, 0],
                                      [0, 0, 1, 1, 0, 0]])
    assert C.mirror_objects(x[1:4], "rot", 0) is None  # the turned 1 would leave the grid
    assert C.mirror_objects(g([[0, 0, 0], [0, 3, 0], [0, 3, 0]]), "v", 0) is None  # already symmetric
    assert C.mirror_objects(x.copy(), "rot", 0).dtype == np.int8


def test_mirror_objects_erases_occluders():
    x = g([[0, 0, 0, 0, 0, 0],
           [0, 3, 3, 4, 4, 0],
           [0, 3, 0, 4, 4, 0],
           [0, 3, 3, 3, 3, 0],
           [0, 0, 0, 0, 0, 0]])
    eq(C.mirror_objects(x, "h", -1), [[0, 0, 0, 0, 0, 0],
                                      [0, 3, 3, 3, 3, 0],
                                      [0, 3, 0, 0, 3, 0],
                                      [0, 3, 3, 3, 3, 0],
                                      [0, 0, 0, 0, 0, 0]])  # the 4s hid the right half
    assert C.mirror_objects(x, "h", 0) is None  # with the 4s kept no axis fits


def test_object_symmetry_params():
    x = g([[0, 1, 0], [0, 1, 1], [0, 0, 0]])
    y = g([[0, 1, 0], [2, 1, 1], [0, 0, 0]])
    params = PARAMS["object_symmetry"]([x], [y], task_facts([x], [y]))
    assert params == [(group, c) for group in C.GROUPS for c in (0, 2)]  # 2 is new, nothing lost
    assert PARAMS["object_symmetry"]([x], [y[:2]], task_facts([x], [y[:2]])) == []


def test_mirror_about_core():
    x = g([[0, 0, 0, 0, 0, 0, 0],
           [0, 1, 1, 0, 0, 0, 0],
           [0, 0, 1, 0, 0, 0, 0],
           [0, 0, 0, 2, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 3]])
    eq(C.mirror_about_core(x), [[0, 0, 0, 0, 0, 0, 0],
                                [0, 1, 1, 0, 1, 1, 0],
                                [0, 0, 1, 0, 1, 0, 0],
                                [0, 0, 0, 2, 0, 0, 0],
                                [0, 0, 1, 0, 1, 0, 0],
                                [0, 1, 1, 0, 1, 1, 0],
                                [0, 0, 0, 0, 0, 0, 3]])  # the 2 is the core; the lone 3 stays
    assert C.mirror_about_core(g([[1, 1, 0], [0, 1, 0], [0, 0, 2]])) is None  # mirrored 1s leave the grid
    assert C.mirror_about_core(g([[0, 0], [0, 5]])) is None  # no object of several colours
    assert C.mirror_about_core(g([[1, 2], [0, 0]])) is None  # two symmetric colours, one cell each


def test_continue_band():
    x = g([[0, 0, 0, 0, 0, 0, 0],
           [1, 2, 1, 2, 1, 0, 0],
           [3, 0, 3, 0, 3, 0, 0],
           [0, 0, 0, 0, 0, 0, 0]])
    eq(C.continue_band(x, "h", False), [[0, 0, 0, 0, 0, 0, 0],
                                        [1, 2, 1, 2, 1, 2, 1],
                                        [3, 0, 3, 0, 3, 0, 3],
                                        [0, 0, 0, 0, 0, 0, 0]])  # period 2, found in the band
    eq(C.continue_band(x, "h", True), [[0, 0, 0, 0, 0, 0, 0],
                                       [1, 2, 1, 2, 1, 1, 2],
                                       [3, 0, 3, 0, 3, 3, 0],
                                       [0, 0, 0, 0, 0, 0, 0]])  # the whole band repeated
    y = g([[0, 0, 0],
           [0, 0, 0],
           [1, 0, 1],
           [2, 2, 2],
           [1, 0, 1],
           [0, 0, 0],
           [0, 0, 0]])
    eq(C.continue_band(y, "v", True), [[2, 2, 2],
                                       [1, 0, 1],
                                       [1, 0, 1],
                                       [2, 2, 2],
                                       [1, 0, 1],
                                       [1, 0, 1],
                                       [2, 2, 2]])  # up and down, in phase with the band
    eq(C.continue_band(y, "v", False), [[1, 0, 1], [2, 2, 2]] * 3 + [[1, 0, 1]])
    assert C.continue_band(np.zeros((3, 3), dtype=np.int8), "h", False) is None  # no content
    assert C.continue_band(g([[1, 2, 1], [0, 0, 0]]), "h", False) is None  # the band fills its rows
    facts = task_facts([x], [x])
    assert PARAMS["band"]([x], [x], facts) == [("h", False), ("h", True), ("v", False), ("v", True)]
    assert PARAMS["band"]([x], [x[:2]], facts) == []  # another size


def test_diagonal_fill():
    x = g([[1, 2, 3, 0],
           [2, 3, 0, 0],
           [0, 0, 0, 0]])
    eq(C.diagonal_fill(x), [[1, 2, 3, 1],
                            [2, 3, 1, 2],
                            [3, 1, 2, 3]])  # colours repeat along the anti-diagonals
    y = g([[1, 2, 0, 0],
           [3, 1, 2, 0],
           [0, 3, 0, 0]])
    eq(C.diagonal_fill(y), [[1, 2, 3, 1],
                            [3, 1, 2, 3],
                            [2, 3, 1, 2]])  # and along the diagonals
    assert C.diagonal_fill(g([[1, 0], [0, 0]])) is None  # a class never seen
    assert C.diagonal_fill(g([[1, 2], [2, 1]])) is None  # nothing to fill
    assert C.diagonal_fill(g([[1, 2, 0], [3, 4, 0]])) is None  # 2, 3 share an anti-diagonal; 1, 4 a diagonal


def test_corner_rays():
    x = g([[0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0],
           [0, 4, 4, 0, 0, 0],
           [0, 4, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0]])
    eq(C.corner_rays(x), [[0, 0, 0, 0, 0, 0],
                          [0, 0, 0, 0, 0, 0],
                          [0, 0, 0, 0, 0, 0],
                          [0, 4, 4, 0, 0, 0],
                          [0, 4, 0, 0, 0, 0],
                          [0, 0, 0, 4, 0, 0]])  # out of the open corner (4, 2), down-right
    y = x.copy()
    y[5, 3] = 2
    assert C.corner_rays(y) is None  # the ray's first cell is taken
    assert C.corner_rays(g([[4, 4, 0], [4, 4, 0], [0, 0, 0]])) is None  # a full box has no open corner
    assert C.corner_rays(g([[4, 5, 0], [4, 0, 0], [0, 0, 0]])) is None  # an L of two colours


def test_mirror_across_marker():
    x = g([[0, 0, 0, 0, 0],
           [0, 1, 1, 2, 0],
           [0, 0, 1, 2, 0],
           [0, 0, 0, 0, 0]])
    eq(C.mirror_across_marker(x), [[0, 0, 0, 0, 0],
                                   [0, 1, 1, 1, 1],
                                   [0, 0, 1, 1, 0],
                                   [0, 0, 0, 0, 0]])  # the 2s mark the side: the 1s reflected over them
    eq(C.mirror_across_marker(np.rot90(x).copy()), np.rot90(C.mirror_across_marker(x)))  # above, too
    assert C.mirror_across_marker(x[:, :4]) is None  # the image would leave the grid
    assert C.mirror_across_marker(g([[1, 2, 1], [0, 0, 0]])) is None  # the marker between the 1s
    assert C.mirror_across_marker(g([[1, 2], [0, 0]])) is None  # no colour is the main one
    assert C.mirror_across_marker(g([[1, 1], [0, 0]])) is None  # no object of two colours


def test_colour_ray():
    x = g([[0, 0, 0, 0, 0],
           [0, 1, 1, 0, 0],
           [0, 1, 1, 0, 0],
           [0, 0, 0, 0, 3],
           [0, 0, 0, 0, 0]])
    eq(C.colour_ray(x, 1, "dr"), [[0, 0, 0, 0, 0],
                                  [0, 1, 1, 0, 0],
                                  [0, 1, 1, 0, 0],
                                  [0, 0, 0, 1, 3],
                                  [0, 0, 0, 0, 1]])  # from the block's lower right corner only
    eq(C.colour_ray(x, 1, "ul"), [[1, 0, 0, 0, 0],
                                  [0, 1, 1, 0, 0],
                                  [0, 1, 1, 0, 0],
                                  [0, 0, 0, 0, 3],
                                  [0, 0, 0, 0, 0]])
    assert C.colour_ray(x, 3, "dr") is None  # the 3 is at the edge: no room
    assert C.colour_ray(x, 5, "ul") is None  # no such colour
    facts = task_facts([x], [C.colour_ray(x, 1, "ul")])
    assert PARAMS["colour_heading"]([x], [x], facts) == [(1, h) for h in ("ul", "ur", "dl", "dr")]


def test_reflect_across_wall():
    x = g([[0, 0, 5, 0, 0, 0, 0],
           [0, 0, 5, 5, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 2, 2, 2, 2, 2, 0],
           [0, 2, 0, 0, 0, 2, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 2, 0, 0, 0, 2, 0],
           [0, 2, 2, 2, 2, 2, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 7, 0, 0]])
    inside = C.reflect_across_wall(x, 2)
    eq(inside, [[0, 0, 0, 0, 0, 0, 0],
                [0, 0, 0, 0, 0, 0, 0],
                [0, 0, 0, 0, 0, 0, 0],
                [0, 2, 2, 2, 2, 2, 0],
                [0, 2, 0, 0, 0, 2, 0],
                [0, 0, 5, 5, 0, 0, 0],
                [0, 0, 5, 0, 0, 0, 0],
                [0, 0, 0, 0, 7, 0, 0],
                [0, 2, 0, 0, 0, 2, 0],
                [0, 2, 2, 2, 2, 2, 0],
                [0, 0, 0, 0, 0, 0, 0],
                [0, 0, 0, 0, 0, 0, 0]])  # each piece across the nearest bar that spans it, turned over
    eq(C.reflect_across_wall(inside, 2), x)  # and back out: a reflection undoes itself
    eq(C.reflect_across_wall(x.T.copy(), 2), inside.T)  # bars in columns alike


def test_reflect_across_wall_needs_one_nearest_bar_and_room():
    twice = g([[2, 2, 2],
               [0, 0, 0],
               [0, 1, 0],
               [0, 0, 0],
               [2, 2, 2]])
    assert C.reflect_across_wall(twice, 2) is None  # two bars as near: nothing moves
    wide = g([[0, 1, 1, 1],
              [0, 0, 0, 0],
              [0, 2, 2, 0]])
    assert C.reflect_across_wall(wide, 2) is None  # the bar does not span the piece
    edge = g([[0, 0, 0],
              [2, 2, 2],
              [0, 0, 0],
              [0, 1, 0]])
    assert C.reflect_across_wall(edge, 2) is None  # the image would leave the grid
    assert C.reflect_across_wall(edge, 3) is None  # no such wall
    kept = g([[0, 1, 0], [2, 2, 2], [0, 0, 0]])
    facts = task_facts([kept], [C.reflect_across_wall(kept, 2)])
    assert PARAMS["mirror_wall"]([kept], [C.reflect_across_wall(kept, 2)], facts) == [(2,)]  # 1 moves, 2 stays


def test_repeat_runs():
    x = g([[0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 1, 0, 0, 0],
           [0, 0, 0, 2, 0, 0, 0],
           [0, 0, 3, 1, 2, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 5]])
    eq(C.repeat_runs(x, "h"), [[0, 0, 0, 0, 0, 0, 0],
                               [0, 0, 0, 1, 0, 0, 0],
                               [0, 0, 0, 2, 0, 0, 0],
                               [1, 2, 3, 1, 2, 3, 1],
                               [0, 0, 0, 0, 0, 0, 0],
                               [0, 0, 0, 0, 0, 0, 5]])  # period 3, in phase with the run
    eq(C.repeat_runs(x, "v"), [[0, 0, 0, 1, 0, 0, 0],
                               [0, 0, 0, 1, 0, 0, 0],
                               [0, 0, 0, 2, 0, 0, 0],
                               [0, 0, 3, 1, 2, 0, 0],
                               [0, 0, 0, 1, 0, 0, 0],
                               [0, 0, 0, 2, 0, 0, 5]])  # the column's run 1, 2, 1 has period 3
    eq(C.repeat_runs(x, "hv"), np.where(C.repeat_runs(x, "v") != x, C.repeat_runs(x, "v"), C.repeat_runs(x, "h")))
    assert C.repeat_runs(g([[1, 1, 0, 0]]), "h") is None  # a run of one colour is not a pattern
    assert C.repeat_runs(g([[1, 2, 0, 3, 4, 0]]), "h") is None  # two runs in a row
    assert C.repeat_runs(g([[1, 2], [0, 0]]), "v") is None  # no column with a run: nothing changes
    clash = g([[0, 0, 0],
               [0, 1, 2],
               [3, 0, 0],
               [4, 0, 0]])
    assert C.repeat_runs(clash, "h")[1, 0] == 2 and C.repeat_runs(clash, "v")[1, 0] == 4
    assert C.repeat_runs(clash, "hv") is None  # row 1 and column 0 disagree on cell (1, 0)
    facts = task_facts([x], [x])
    assert PARAMS["run_axes"]([x], [x], facts) == [("h",), ("v",), ("hv",)]
    assert PARAMS["run_axes"]([x], [x[:2]], facts) == []  # another size


def test_seed_stripes():
    x = g([[0, 1, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 2, 0, 0, 0, 0]])
    eq(C.seed_stripes(x), [[0, 1, 0, 2, 0, 1, 0, 2],
                           [0, 1, 0, 2, 0, 1, 0, 2],
                           [0, 1, 0, 2, 0, 1, 0, 2]])  # columns on a wide grid, every 2, colours in turn
    eq(C.seed_stripes(x.T.copy()), C.seed_stripes(x).T)  # rows on a tall one
    assert C.seed_stripes(g([[1, 0, 0], [0, 0, 2], [0, 0, 0]])) is None  # square: no longer side
    assert C.seed_stripes(g([[1, 0, 2, 0, 0, 3, 0, 0]])) is None  # unequal gaps
    assert C.seed_stripes(g([[1, 0, 0, 0], [1, 0, 0, 0]])) is None  # two cells on one line


def test_key_stripes():
    x = g([[2, 1, 4],
           [5, 5, 5],
           [0, 0, 0],
           [0, 0, 0],
           [0, 0, 0],
           [0, 0, 0]])
    eq(C.key_stripes(x, "top"), [[2, 1, 4],
                                 [5, 5, 5],
                                 [2, 2, 2],
                                 [1, 1, 1],
                                 [4, 4, 4],
                                 [2, 2, 2]])  # the key's colours in turn, from the first empty row
    eq(C.key_stripes(np.rot90(x, -1).copy(), "right"), np.rot90(C.key_stripes(x, "top"), -1))
    eq(C.key_stripes(x[::-1].copy(), "bottom"), C.key_stripes(x, "top")[::-1])
    assert C.key_stripes(x, "bottom") is None  # the bottom line is empty: no key
    gap = x.copy()
    gap[0, 1] = 0
    assert C.key_stripes(gap, "top") is None  # a key with a gap
    assert C.key_stripes(x[:2].copy(), "top") is None  # no empty line
    assert PARAMS["key_sides"]([x], [x], task_facts([x], [x])) == [("top",), ("bottom",), ("left",), ("right",)]
    assert PARAMS["key_sides"]([x], [x[:2]], task_facts([x], [x[:2]])) == []  # the size changes


def test_search_paints_stripes_in_the_key_colours():
    """bd4472b8, clock-free: rows below a separator take the top row's colours in turn."""
    [task] = load_tasks("bd4472b8")
    [best, *_] = solve(task, SolveConfig(time_budget=float("inf")), max_depth=2, max_states=2000).candidates
    assert best.verified and best.detail == "key_stripes{top}"
    assert [grid.to_numpy().tolist() for grid in best.grids] == [p.output.to_numpy().tolist() for p in task.test]


def test_search_repeats_the_runs_of_a_cross():
    [task] = load_tasks("e21d9049")
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == "repeat_runs{hv}"
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_search_continues_stripes_from_two_seeds():
    [task] = load_tasks("0a938d79")
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == "seed_stripes"
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_close_dashes():
    x = g([[1, 0, 1, 1, 0, 0],
           [1, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 1, 0],
           [1, 0, 0, 0, 1, 0],
           [1, 1, 0, 1, 0, 0],
           [0, 0, 0, 0, 0, 2]])
    # the run of row 0 (3 of 4), column 0 (4 of 5) and row 4 (3 of 4) are dashed lines;
    # column 4 (2 cells) and row 3 (2 of 5) are not
    eq(C.close_dashes(x, 3, False), [[1, 3, 1, 1, 0, 0],
                                     [1, 0, 0, 0, 0, 0],
                                     [3, 0, 0, 0, 1, 0],
                                     [1, 0, 0, 0, 1, 0],
                                     [1, 1, 3, 1, 0, 0],
                                     [0, 0, 0, 0, 0, 2]])
    # over the colour's whole box (columns 0 to 4), row 4 is still dashed (3 of 5), row 0 too
    eq(C.close_dashes(x, -1, True), [[1, 1, 1, 1, 1, 0],
                                     [1, 0, 0, 0, 0, 0],
                                     [1, 0, 0, 0, 1, 0],
                                     [1, 0, 0, 0, 1, 0],
                                     [1, 1, 1, 1, 1, 0],
                                     [0, 0, 0, 0, 0, 2]])
    assert C.close_dashes(g([[1, 0, 0, 1, 0, 1]]), 3, False) is None  # 3 of 6: not more than half
    assert C.close_dashes(g([[1, 0, 1, 0, 0]]), 3, False) is None  # two cells are no line
    assert C.close_dashes(g([[1, 1, 1, 2]]), 3, False) is None  # no gap: nothing changes
    facts = task_facts([x], [C.close_dashes(x, 3, False)])
    assert PARAMS["dash_colour"]([x], [x], facts) == [(3, False), (3, True), (-1, False), (-1, True)]
    assert PARAMS["dash_colour"]([x], [x[:2]], facts) == []  # another size


def test_search_closes_a_dashed_frame():
    [task] = load_tasks("4612dd53")
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == "close_dashes{2,True}"
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_paint_cluster_boxes():
    x = g([[2, 1, 2, 0, 0, 0, 0],
           [1, 1, 1, 0, 0, 1, 0],
           [2, 0, 2, 0, 0, 0, 2],
           [0, 0, 0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0, 0],
           [1, 0, 0, 0, 2, 1, 0]])
    # the four 2s at the top left lie one cell apart: one cluster, its box painted; the 2 at
    # (2, 6) lies three cells from the nearest other: a cluster of its own, as does the last
    eq(C.paint_cluster_boxes(x, 2, 4), [[2, 4, 2, 0, 0, 0, 0],
                                        [4, 4, 4, 0, 0, 1, 0],
                                        [2, 4, 2, 0, 0, 0, 2],
                                        [0, 0, 0, 0, 0, 0, 0],
                                        [0, 0, 0, 0, 0, 0, 0],
                                        [1, 0, 0, 0, 2, 1, 0]])
    y = x.copy()
    y[2, 6], y[4, 5] = 0, 2  # now (4, 5) is next to (5, 4): their box holds the 1 and a 0
    eq(C.paint_cluster_boxes(y, 2, 4)[3:], [[0, 0, 0, 0, 0, 0, 0],
                                            [0, 0, 0, 0, 4, 2, 0],
                                            [1, 0, 0, 0, 2, 4, 0]])
    assert C.paint_cluster_boxes(g([[2, 0, 0, 2]]), 2, 4) is None  # lone cells: nothing to paint
    assert C.paint_cluster_boxes(g([[1, 1]]), 2, 4) is None  # no cell of colour k
    big = np.full((9, 9), 2, dtype=np.int8)
    big[4, 4] = 1
    assert C.paint_cluster_boxes(big, 2, 4)[4, 4] == 4  # 80 cells of colour k: painted
    bigger = np.pad(big, ((0, 1), (0, 0)), constant_values=2)
    assert C.paint_cluster_boxes(bigger, 2, 4) is None  # 89: too many cells
    target = C.paint_cluster_boxes(x, 2, 4)
    assert PARAMS["cluster_colours"]([x], [target], task_facts([x], [target])) == [(2, 4)]
    assert PARAMS["cluster_colours"]([x], [target[:2]], task_facts([x], [target[:2]])) == []  # another size


def test_clusters_match_connected_components():
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(0)
    for _ in range(100):
        n = int(rng.integers(1, 120))
        ys, xs = rng.integers(0, 30, n), rng.integers(0, 30, n)
        near = (np.abs(ys[:, None] - ys) <= 2) & (np.abs(xs[:, None] - xs) <= 2)
        count, reference = connected_components(near, directed=False)
        group = C._clusters(ys, xs)
        assert len(set(group.tolist())) == count == len(set(zip(group.tolist(), reference.tolist(), strict=True)))


def test_search_paints_the_boxes_of_shapes_under_noise():
    [task] = load_tasks("36fdfd69")
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == "paint_cluster_boxes{2,4}"
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]
