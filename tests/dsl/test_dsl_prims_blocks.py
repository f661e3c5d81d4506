"""Tests of the primitives added after the first registry: blocks and cuts, Kronecker products,
moving, shooting and reflecting objects, colour swaps, empty-line painting."""

import numpy as np

from arcsolve.dsl import registry as P
from arcsolve.dsl.params import PARAMS, task_facts
from arcsolve.dsl.primitives.blocks import crossing_lines
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import search
from arcsolve.loaders import load_tasks
from tests.grids import eq, g


def test_block_colours():
    x = g([[3, 3, 1, 3],
           [3, 3, 1, 3],
           [1, 1, 1, 1],
           [3, 2, 1, 3]])
    eq(P.block_colours(x), [[3, 3], [2, 3]])  # blocks of unequal sizes, noise outvoted
    noisy = g([[0, 4, 5, 0], [4, 0, 5, 0]])
    eq(P.block_colours(noisy), [[4, 0]])  # an empty block gives 0
    assert P.block_colours(g([[1, 2], [2, 1]])) is None


def test_crossing_lines():
    x = g([[0, 0, 3, 0, 0],
           [1, 1, 3, 1, 1],  # crossed by the column of 3, which shows there
           [0, 2, 3, 0, 0],
           [6, 6, 6, 6, 6],  # crossing the column, and shown there
           [0, 0, 3, 0, 7]])
    rows, cols = crossing_lines(x)
    assert rows.tolist() == [0, 1, 0, 6, 0] and cols.tolist() == [0, 0, 3, 0, 0]
    x[1, 4] = 2  # a cell that no crossing line explains: row 1 is no line
    rows, cols = crossing_lines(x)
    assert rows.tolist() == [0, 0, 0, 6, 0] and cols.tolist() == [0, 0, 3, 0, 0]
    x[1, 2] = 1  # now column 2 has a cell of row 1's colour, and row 1 is no line
    rows, cols = crossing_lines(x)
    assert rows.tolist() == [0, 0, 0, 6, 0] and cols.tolist() == [0, 0, 0, 0, 0]


def test_downscale_majority():
    x = g([[1, 1, 0, 2], [5, 1, 2, 2]])
    eq(P.downscale_majority(x, 2, 2), [[1, 2]])
    eq(P.downscale_majority(g([[0, 0, 3, 3]]), 1, 2), [[0, 3]])
    assert P.downscale_majority(x, 3, 1) is None


def test_downscale_any():
    x = g([[0, 0, 0, 3],
           [0, 2, 0, 3],
           [0, 0, 0, 0],
           [4, 0, 0, 0]])
    eq(P.downscale_any(x, 2, 2), [[2, 3], [4, 0]])  # each block's one colour, however few its cells
    assert P.downscale_any(g([[1, 2, 0, 0]]), 1, 2) is None  # a block of two colours
    assert P.downscale_any(g([[1, 1, 0, 0]]), 1, 2) is None  # every block one colour: `downscale`
    assert P.downscale_any(x, 3, 3) is None  # 4 is not a multiple of 3


def test_pool_sizes_come_from_the_targets_or_the_lattice_of_the_cells():
    sparse = g([[0, 0, 0, 0, 0, 0], [0, 1, 0, 2, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 3, 0, 0]])
    big = g(np.zeros((8, 12), dtype=int))
    assert PARAMS["pool"]([sparse], [big], task_facts([sparse], [big])) == [(2, 2)]
    small = g([[1, 2, 0], [0, 3, 0]])
    assert PARAMS["pool"]([sparse], [small], task_facts([sparse], [small])) == [(2, 2)]  # the ratio
    crowded = g([[1, 2, 0, 0], [0, 0, 0, 0]])
    assert PARAMS["pool"]([crowded], [big], task_facts([crowded], [big])) == []


def test_self_tile_colour():
    x = g([[2, 1], [1, 1]])
    eq(P.self_tile_colour(x, 2), [[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    eq(P.self_tile_colour(x, -1), [[0, 0, 2, 1], [0, 0, 1, 1], [2, 1, 2, 1], [1, 1, 1, 1]])
    assert P.self_tile_colour(g([[1, 2]]), -1) is None  # no single most frequent colour
    assert P.self_tile_colour(x, 5) is None


def test_square_tile_params_need_squared_sizes():
    x, y = g([[2, 1], [1, 1]]), np.zeros((4, 4), dtype=np.int8)
    facts = task_facts([x], [y])
    assert PARAMS["square_tile"]([x], [y], facts) == [(-1,), (1,), (2,)]
    assert PARAMS["square_tile"]([x], [x], facts) == []


def test_split_kron():
    x = g([[2, 0, 8, 8],
           [0, 3, 0, 8]])
    eq(P.split_kron(x, "h2"), [[2, 2, 0, 0],
                               [0, 2, 0, 0],
                               [0, 0, 3, 3],
                               [0, 0, 0, 3]])
    assert P.split_kron(g([[1, 0, 8, 8]]), "h2") is None  # both halves one colour: ambiguous
    assert P.split_kron(x, "v2") is None


def test_attract():
    x = g([[0, 5, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 2, 2, 0, 5],
           [5, 0, 0, 0, 0]])
    eq(P.attract(x, 2), [[0, 0, 0, 0, 0],
                         [0, 0, 0, 0, 0],
                         [0, 5, 0, 0, 0],
                         [0, 2, 2, 5, 0],
                         [5, 0, 0, 0, 0]])  # straight, straight, already touching
    diagonal = g([[4, 0, 0], [0, 0, 0], [0, 0, 2]])
    eq(P.attract(diagonal, 2), [[0, 0, 0], [0, 4, 0], [0, 0, 2]])
    assert P.attract(x, 7) is None


def test_cut_pick():
    x = g([[1, 0, 0, 2, 3],
           [0, 0, 0, 0, 0],
           [4, 0, 0, 5, 0]])
    eq(P.cut_pick(x, "fullest"), [[2, 3]])
    eq(P.cut_pick(x, "most_colours"), [[2, 3]])
    assert P.cut_pick(x, "emptiest") is None  # three parts of one cell tie
    parts = g([[1, 5, 2, 5, 1],
               [0, 5, 2, 5, 0],
               [1, 5, 0, 5, 1]])
    eq(P.cut_pick(parts, "unique_colours"), [[2], [2], [0]])


def test_swap_colours():
    eq(P.swap_colours(g([[1, 0], [3, 3]])), [[3, 0], [1, 1]])
    assert P.swap_colours(g([[1, 2, 3]])) is None


def test_paint_empty_lines():
    eq(P.paint_empty_lines(g([[1, 0, 1], [0, 0, 0]]), 2), [[1, 2, 1], [2, 2, 2]])
    assert P.paint_empty_lines(g([[1, 1], [1, 0]]), 2) is None


def test_anchor_params_are_the_colours_that_stay_in_place():
    x, y = g([[5, 0, 2], [0, 0, 2]]), g([[0, 5, 2], [0, 0, 2]])
    facts = task_facts([x], [y])
    assert PARAMS["anchor"]([x], [y], facts) == [(2,)]
    assert PARAMS["anchor"]([x], [g([[2]])], task_facts([x], [g([[2]])])) == []


def test_shoot():
    x = g([[0, 0, 0, 0, 4],
           [3, 3, 0, 0, 0],
           [3, 3, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 5, 0, 0, 0]])
    eq(P.shoot(x, 3), [[0, 0, 0, 0, 4],   # not in line: stays
                       [3, 3, 0, 0, 0],
                       [3, 3, 0, 0, 0],
                       [0, 5, 0, 0, 0],
                       [0, 5, 0, 0, 0]])
    assert P.shoot(g([[3, 0], [0, 4]]), 3) is None  # nothing in line, nothing drawn


def test_reflect_through():
    row = g([[0, 3, 4, 0, 9, 0, 0, 0]])  # in a one-row grid a mirror cell reflects along the row
    eq(P.reflect_through(row, 9, 0), [[0, 0, 0, 0, 9, 0, 4, 3]])
    eq(P.reflect_through(row, 9, 1), [[0, 3, 4, 0, 9, 0, 4, 3]])
    assert P.reflect_through(g([[3, 0, 9, 0]]), 9, 0) is None  # the 3 would land off the grid
    line = g([[0, 2, 0],
              [5, 5, 5],
              [0, 0, 0]])  # a row of 5s reflects up and down
    eq(P.reflect_through(line, 5, 1), [[0, 2, 0], [5, 5, 5], [0, 2, 0]])
    column = g([[0, 5, 0, 0],
                [2, 5, 0, 0]])
    eq(P.reflect_through(column, 5, 0), [[0, 5, 0, 0], [0, 5, 2, 0]])
    point = g([[2, 0, 0],
               [0, 9, 0],
               [0, 0, 0]])  # a lone cell in a grid of rows and columns: through the point
    eq(P.reflect_through(point, 9, 0), [[0, 0, 0], [0, 9, 0], [0, 0, 2]])
    assert P.reflect_through(g([[5, 0, 5], [0, 2, 0]]), 5, 0) is None  # a gapped row is no mirror
    assert P.reflect_through(g([[5, 5], [5, 0]]), 5, 0) is None  # nor is a corner
    assert P.reflect_through(g([[2, 9, 2]]), 9, 0) is None  # already symmetric: no change
    facts = task_facts([row], [P.reflect_through(row, 9, 0)])
    assert PARAMS["anchor_keep"]([row], [P.reflect_through(row, 9, 0)], facts) == [(9, 0), (9, 1)]


def test_search_pools_sparse_cells_then_scales_them_up():
    """46f33fce: one cell in each 2 x 2 block becomes a 4 x 4 square."""
    [task] = load_tasks("46f33fce")
    found = search(task, float("inf"), max_depth=2, max_states=2000)  # no clock: the same on any machine
    assert format_program(found[0].program) == "downscale_any{2,2} | upscale{4,4}" and found[0].verified
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]
