"""Tests of the regions family: zero regions filled by what they touch, by their size, by the
sides of the grid they reach; lanes across them; holes cut across coloured regions; open
outlines filled and poured out of."""

import numpy as np
import pytest

from arcsolve.dsl.families import regions as R
from arcsolve.dsl.params import PARAMS, task_facts
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import _run_views, _Search, distinct, search, solve
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig
from tests.grids import eq, g


def params(kind, grids, targets):
    return PARAMS[kind](grids, targets, task_facts(grids, targets))


# Walls of 5 cut the zeros into five regions, numbered by first cell.
WALLS = g([[0, 0, 5, 0, 0],
           [0, 5, 5, 2, 0],
           [5, 5, 0, 5, 0],
           [0, 0, 5, 0, 5]])


def test_regions_are_4_connected_zero_components():
    lab, n = R.regions(WALLS)
    assert n == 5
    assert lab.tolist() == [[1, 1, 0, 2, 2],
                            [1, 0, 0, 0, 2],
                            [0, 0, 3, 0, 2],
                            [4, 4, 0, 5, 0]]  # (2, 2) and (3, 3) touch the others only diagonally


def test_fill_touching():
    eq(R.fill_touching(WALLS, 2), [[0, 0, 5, 2, 2],
                                   [0, 5, 5, 2, 2],
                                   [5, 5, 0, 5, 2],
                                   [0, 0, 5, 0, 5]])  # only the region the 2 is beside
    eq(R.fill_touching(WALLS, 5), np.where(WALLS == 0, 5, WALLS))  # every region touches a 5
    assert R.fill_touching(WALLS, 3) is None  # no such colour
    assert R.fill_touching(g([[2, 2], [2, 2]]), 2) is None  # no zero region beside it


def test_touching_params_are_drawn_colours_the_inputs_have():
    out = R.fill_touching(WALLS, 2)
    assert params("touching", [WALLS], [out]) == [(2,)]
    new = np.where(out == 2, 7, out).astype(np.int8)
    assert params("touching", [WALLS], [new]) == []  # 7 is drawn, but no input has it
    assert params("touching", [WALLS], [out[:2]]) == []  # another size


MAZE = g([[8, 8, 8, 8, 8, 8],
          [8, 0, 0, 0, 0, 8],
          [8, 0, 3, 2, 0, 8],
          [8, 8, 8, 8, 0, 8],
          [8, 0, 8, 0, 0, 8],
          [8, 8, 8, 8, 8, 8]])


def test_checker_flood():
    eq(R.checker_flood(MAZE), [[8, 8, 8, 8, 8, 8],
                               [8, 3, 2, 3, 2, 8],
                               [8, 2, 3, 2, 3, 8],
                               [8, 8, 8, 8, 2, 8],
                               [8, 0, 8, 2, 3, 8],
                               [8, 8, 8, 8, 8, 8]])  # 3 where y + x is even, as at the seed; (4, 1) is walled off
    swapped = MAZE.copy()
    swapped[2, 2:4] = 2, 3
    eq(R.checker_flood(swapped)[1:3, 1:5], [[2, 3, 2, 3],
                                            [3, 2, 3, 2]])  # the seed sets the phase
    mixed = MAZE.copy()
    mixed[1, 2] = 3
    assert R.checker_flood(mixed) is None  # 3s on both phases
    assert R.checker_flood(np.where(MAZE == 2, 0, MAZE).astype(np.int8)) is None  # one seed colour
    assert params("checker", [MAZE], [R.checker_flood(MAZE)]) == [()]
    assert params("checker", [MAZE], [R.fill_touching(MAZE, 3)]) == []  # one colour drawn


def test_fill_regions():
    eq(R.fill_regions(WALLS, "largest", 1), [[0, 0, 5, 1, 1],
                                             [0, 5, 5, 2, 1],
                                             [5, 5, 0, 5, 1],
                                             [0, 0, 5, 0, 5]])
    eq(R.fill_regions(WALLS, "smallest", 1), [[0, 0, 5, 0, 0],
                                              [0, 5, 5, 2, 0],
                                              [5, 5, 1, 5, 0],
                                              [0, 0, 5, 1, 5]])  # both regions of one cell
    assert R.fill_regions(g([[0, 0], [0, 4]]), "largest", 1) is None  # one region: nothing to pick
    out = R.fill_regions(WALLS, "largest", 1)
    assert params("region_pick", [WALLS], [out]) == [("largest", 1), ("smallest", 1)]
    assert params("region_pick", [WALLS], [out[:, :3]]) == []


# A cross of 8s: the four corner regions reach two sides each, the middle ones one.
LATTICE = g([[0, 8, 0, 8, 0],
             [8, 8, 8, 8, 8],
             [0, 8, 0, 8, 0],
             [8, 8, 8, 8, 8],
             [0, 8, 0, 8, 0]])
PAINTED = g([[0, 8, 2, 8, 0],
             [8, 8, 8, 8, 8],
             [4, 8, 6, 8, 3],
             [8, 8, 8, 8, 8],
             [0, 8, 1, 8, 0]])


def test_paint_sides():
    table = ((0, 6), (1, 2), (2, 1), (4, 4), (5, 0), (6, 0), (8, 3), (9, 0), (10, 0))
    eq(R.paint_sides(LATTICE, table), PAINTED)
    assert R.paint_sides(LATTICE, table[1:]) is None  # the middle region (no side) is not in the table
    assert R.paint_sides(g([[1, 1], [1, 1]]), table) is None  # no region


def test_sides_params_are_fitted_on_the_inputs():
    [(table,)] = params("sides", [LATTICE], [PAINTED])
    assert table == ((0, 6), (1, 2), (2, 1), (4, 4), (5, 0), (6, 0), (8, 3), (9, 0), (10, 0))
    split = PAINTED.copy()
    split[0, 0] = 7
    assert params("sides", [LATTICE, LATTICE], [PAINTED, split]) == []  # one set of sides, two colours
    halved = LATTICE.copy()
    halved[1, 0] = 0
    assert params("sides", [halved], [np.where(halved == 0, 0, 8).astype(np.int8)]) == []  # paints nothing


def test_fill_lanes():
    x = g([[2, 2, 2, 2, 2],
           [8, 0, 0, 2, 2],
           [8, 0, 0, 0, 2],
           [8, 8, 8, 0, 8],
           [8, 8, 8, 8, 8]])
    eq(R.fill_lanes(x, 3), [[2, 2, 2, 2, 2],
                            [8, 0, 0, 2, 2],
                            [8, 3, 3, 3, 2],
                            [8, 8, 8, 0, 8],
                            [8, 8, 8, 8, 8]])  # row 2 runs clear from wall to wall; no column does
    eq(R.fill_lanes(x.T.copy(), 3), R.fill_lanes(x, 3).T)
    assert R.fill_lanes(g([[0, 0, 0], [8, 0, 8], [8, 8, 8]]), 3)[1].tolist() == [8, 3, 8]
    assert R.fill_lanes(g([[0, 0, 0], [0, 0, 8], [8, 8, 8]]), 3) is None  # row 1 starts with a zero
    assert params("lanes", [x], [R.fill_lanes(x, 3)]) == [(3,)]


def test_cut_across():
    x = g([[4, 4, 4, 4, 4, 4],
           [4, 4, 0, 4, 4, 4],
           [4, 4, 4, 4, 4, 4],
           [2, 2, 2, 2, 2, 2],
           [2, 0, 2, 2, 2, 2]])
    eq(R.cut_across(x), [[4, 4, 0, 4, 4, 4],
                         [4, 4, 0, 4, 4, 4],
                         [4, 4, 0, 4, 4, 4],
                         [2, 0, 2, 2, 2, 2],
                         [2, 0, 2, 2, 2, 2]])  # across each band, along its shorter side; the edge is no colour
    eq(R.cut_across(x.T.copy()), R.cut_across(x).T)
    assert R.cut_across(g([[4, 0, 0], [4, 4, 4]])) is None  # a zero cell beside a zero cell
    assert R.cut_across(g([[4, 0, 2], [4, 4, 4]])) is None  # two colours around a hole
    assert R.cut_across(g([[4, 0, 4]])) is None  # the line is the hole itself: nothing changes
    assert params("cuts", [x], [R.cut_across(x)]) == [()]
    assert params("cuts", [x], [x]) == []  # no colour turns to zero


@pytest.mark.parametrize("task_id, program", [
    ("9edfc990", "fill_touching{1}"),  # the regions beside a 1 flooded with 1
    ("b782dc8a", "checker_flood"),  # a maze flooded from a seed of two alternating colours
    ("6455b5f5", "fill_regions{smallest,8} | fill_largest_empty{1}"),  # fewer parameters than fill_regions twice
    ("83302e8f", "fill_regions{smallest,3} | recolor{0->4}"),  # sealed cells of a lattice, the open rest
    ("2bee17df", "fill_lanes{3}"),
    ("855e0971", "cut_across"),
    ("d4f3cd78", "spill{8}"),
])
def test_search_solves_arc_tasks_by_regions(task_id, program):
    [task] = load_tasks(task_id)
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == program
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_search_paints_regions_by_the_sides_they_reach():
    """272f95fa, searched as given: its grids are boards too, and one cell per block the
    answer is one fixed grid of blocks, which the task's own search then no longer needs."""
    [task] = load_tasks("272f95fa")
    found = distinct(_run_views(_Search(task, float("inf"), 2, 2000), [], float("inf")))  # as given alone
    assert format_program(found[0].program).startswith("paint_sides{")
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_spill():
    x = g([[0, 0, 0, 0, 0, 0],
           [0, 5, 5, 0, 5, 0],
           [0, 5, 0, 0, 5, 0],
           [0, 5, 5, 5, 5, 0],
           [0, 0, 0, 0, 0, 0]])
    eq(R.spill(x, 8), [[0, 0, 0, 8, 0, 0],
                       [0, 5, 5, 8, 5, 0],
                       [0, 5, 8, 8, 5, 0],
                       [0, 5, 5, 5, 5, 0],
                       [0, 0, 0, 0, 0, 0]])  # filled, and poured up out of the gap to the edge
    eq(R.spill(x.T.copy(), 8), R.spill(x, 8).T)
    blocked = x.copy()
    blocked[0, 3] = 2
    assert R.spill(blocked, 8)[0, 3] == 2 and R.spill(blocked, 8)[2, 2] == 8  # the pour stops at a cell
    closed = x.copy()
    closed[1, 3] = 5
    assert R.spill(closed, 8) is None  # no gap
    corner = x.copy()
    corner[1, 3], corner[1, 1] = 5, 0
    assert R.spill(corner, 8) is None  # a gap at a corner has no one way out


def test_overflow():
    x = g([[0, 0, 0, 0, 0, 0],
           [0, 5, 5, 0, 5, 0],
           [0, 5, 0, 0, 5, 0],
           [0, 5, 0, 3, 5, 0],
           [0, 5, 5, 5, 5, 0]])
    eq(R.overflow(x), [[0, 3, 3, 3, 3, 0],
                       [0, 5, 5, 3, 5, 0],
                       [0, 5, 3, 3, 5, 0],
                       [0, 5, 3, 3, 5, 0],
                       [0, 5, 5, 5, 5, 0]])  # filled with what it holds, and the row past its open side
    eq(R.overflow(np.rot90(x).copy()), np.rot90(R.overflow(x)))
    assert R.overflow(np.where(x == 3, 0, x)) is None  # nothing inside to pour
    two = x.copy()
    two[2, 2] = 4
    assert R.overflow(two) is None  # two colours inside
    edge = x[1:].copy()
    assert R.overflow(edge)[0].tolist() == [0, 5, 5, 3, 5, 0]  # no row past the top edge: the box alone
    assert PARAMS["pours"]([x], [R.overflow(x)], task_facts([x], [R.overflow(x)])) == [()]
    assert PARAMS["pours"]([x], [x], task_facts([x], [x])) == []  # nothing drawn


def test_search_solves_arc_task_by_overflow():
    """444801d8, clock-free: cups filled with their marker's colour, which brims over the top."""
    [task] = load_tasks("444801d8")
    [best, *_] = solve(task, SolveConfig(time_budget=float("inf")), max_depth=2, max_states=2000).candidates
    assert best.verified and best.detail == "overflow"
    assert [grid.to_numpy().tolist() for grid in best.grids] == [p.output.to_numpy().tolist() for p in task.test]
