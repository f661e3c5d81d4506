"""Tests of the assembling primitives: tilings of transformed copies, blocks redrawn as
copies of one another, reflections sharing their edge line, patterns continued to a fixed
size, grown edges, objects set side by side, corner pieces fitted together, cells gathered into a
small grid, a pattern painted by a key."""

import numpy as np
import pytest

from arcsolve.dsl.families import assembling as A
from arcsolve.dsl.params import PARAMS, task_facts
from arcsolve.dsl.search import solve
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig


def g(rows) -> np.ndarray:
    return np.array(rows, dtype=np.int8)


def eq(actual, expected) -> None:
    assert actual is not None
    assert actual.dtype == np.int8
    assert np.array_equal(actual, np.array(expected)), f"\n{actual}\n!=\n{np.array(expected)}"


def infer(kind, grids, targets):
    return PARAMS[kind](grids, targets, task_facts(grids, targets))


def test_dihedral_tile():
    x = g([[1, 2], [3, 4]])
    eq(A.dihedral_tile(x, "id rot180"), [[1, 2, 4, 3], [3, 4, 2, 1]])
    eq(A.dihedral_tile(x, "transpose / rot90"), [[1, 3], [2, 4], [2, 4], [1, 3]])
    eq(A.dihedral_tile(g([[1, 2]]), "flip_h id / id flip_h"), [[2, 1, 1, 2], [1, 2, 2, 1]])
    assert A.dihedral_tile(g([[1, 2]]), "id rot90") is None  # a turned copy of a non-square grid


def test_dihedral_layout_is_learned_from_the_targets():
    x, y = g([[1, 2], [3, 3]]), g([[5, 0, 0], [5, 6, 0], [0, 0, 0]])
    layout = "id rot90 / rot180 flip_v"
    targets = [A.dihedral_tile(x, layout), A.dihedral_tile(y, layout)]
    assert infer("dihedral_layout", [x, y], targets) == [(layout,)]
    assert infer("dihedral_layout", [x, y], [targets[0], np.tile(y, (2, 2))]) == []  # no common layout
    assert infer("dihedral_layout", [x], [np.tile(x, (2, 3))]) == [("id id id / id id id",)]
    assert infer("dihedral_layout", [x], [x]) == []
    assert infer("dihedral_layout", [x], [np.tile(x, (5, 4))]) == []  # more than 16 copies
    assert infer("dihedral_layout", [g([[3]])], [g([[3, 3]])]) == []  # one cell: tile says it
    symmetric = g([[7, 7]])  # several transforms fit: the identity is named
    assert infer("dihedral_layout", [symmetric], [np.tile(symmetric, (2, 1))]) == [("id / id",)]


# Three 2 x 2 blocks between columns of 5: a pattern, then two empty blocks.
BLOCKS = g([[1, 2, 5, 0, 0, 5, 0, 0],
            [3, 4, 5, 0, 0, 5, 0, 0]])


def test_arrange_blocks():
    # rot90 turns a quarter anticlockwise, as numpy's does
    eq(A.arrange_blocks(BLOCKS, ((0, "id"), (0, "rot90"), (0, "rot180"))), [[1, 2, 5, 2, 4, 5, 4, 3],
                                                                          [3, 4, 5, 1, 3, 5, 2, 1]])
    assert A.arrange_blocks(BLOCKS, ((0, "id"), (0, "id"))) is None  # the grid has three blocks
    assert A.arrange_blocks(g([[1, 2], [3, 4]]), ((0, "id"),)) is None  # no separator lines


def test_block_layout_is_learned_from_the_targets():
    layout = ((0, "id"), (0, "flip_h"), (0, "rot180"))
    other = g([[6, 0, 5, 0, 0, 5, 0, 0],
               [7, 7, 5, 0, 0, 5, 0, 0]])
    targets = [A.arrange_blocks(x, layout) for x in (BLOCKS, other)]
    assert infer("block_layout", [BLOCKS, other], targets) == [(layout,)]
    # the block left as it is: nothing to learn
    assert infer("block_layout", [BLOCKS], [BLOCKS]) == []
    # no block of the input, however turned, gives the third block
    wrong = targets[0].copy()
    wrong[0, 6] = 9
    assert infer("block_layout", [BLOCKS], [wrong]) == []


def test_reflect_tile():
    x = g([[1, 2, 3], [4, 5, 6]])
    eq(A.reflect_tile(x, 1, 3), [[1, 2, 3, 2, 1, 2, 3], [4, 5, 6, 5, 4, 5, 6]])
    eq(A.reflect_tile(x, 3, 1), [[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6]])
    eq(A.reflect_tile(g([[1], [2], [3]]), 2, 1), [[1], [2], [3], [2], [1]])
    assert A.reflect_tile(g([[1, 2]]), 2, 1) is None  # one row cannot be reflected down


def test_reflect_grow_params():
    x = np.zeros((3, 5), dtype=np.int8)
    assert infer("reflect_grow", [x], [np.zeros((9, 5), dtype=np.int8)]) == [(4, 1)]
    assert infer("reflect_grow", [x], [np.zeros((5, 13), dtype=np.int8)]) == [(2, 3)]
    assert infer("reflect_grow", [x], [np.zeros((4, 5), dtype=np.int8)]) == []
    assert infer("reflect_grow", [x], [x]) == []


def test_continue_pattern():
    stripes = g([[1, 0], [2, 2], [1, 0], [2, 2], [1, 0]])
    eq(A.continue_pattern(stripes, 7, 2), [[1, 0], [2, 2], [1, 0], [2, 2], [1, 0], [2, 2], [1, 0]])
    stairs = g([[1, 1, 0, 0, 0], [0, 1, 0, 0, 0], [0, 1, 1, 0, 0]])  # each two rows further: one right
    eq(A.continue_pattern(stairs, 6, 5), [[1, 1, 0, 0, 0], [0, 1, 0, 0, 0], [0, 1, 1, 0, 0],
                                          [0, 0, 1, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 1, 0]])
    eq(A.continue_pattern(g([[3, 0, 0, 3], [0, 3, 0, 0]]), 2, 7), [[3, 0, 0, 3, 0, 0, 3], [0, 3, 0, 0, 3, 0, 0]])
    assert A.continue_pattern(g([[3, 0, 3]]), 2, 3) is None  # one row shows no period down
    assert A.continue_pattern(stripes, 4, 2) is None  # smaller than the grid
    assert A.continue_pattern(np.zeros((2, 2), dtype=np.int8), 3, 2) is None


def test_fixed_size_params():
    x, y = np.zeros((2, 3), dtype=np.int8), np.zeros((5, 3), dtype=np.int8)
    t = np.zeros((5, 4), dtype=np.int8)
    assert infer("fixed_size", [x, y], [t, t]) == [(5, 4)]
    assert infer("fixed_size", [x, y], [t, np.zeros((5, 3), dtype=np.int8)]) == []
    assert infer("fixed_size", [x, y], [x, x]) == []


def test_grow_edges():
    eq(A.grow_edges(g([[1, 2], [3, 8]])),
       [[0, 1, 2, 0], [1, 1, 2, 2], [3, 3, 8, 8], [0, 3, 8, 0]])
    eq(A.grow_edges(g([[5]])), [[0, 5, 0], [5, 5, 5], [0, 5, 0]])


def test_grow_edges_is_tried_only_where_the_targets_have_room_around_the_grid():
    x = np.zeros((2, 3), dtype=np.int8)
    assert infer("room_around", [x], [np.zeros((4, 5), dtype=np.int8)]) == [()]
    assert infer("room_around", [x], [np.zeros((4, 4), dtype=np.int8)]) == []


def test_join_objects():
    x = g([[0, 0, 0, 0, 3, 3, 0],
           [1, 0, 0, 0, 3, 0, 0],
           [1, 1, 0, 0, 0, 0, 0],
           [0, 0, 0, 2, 2, 0, 0],
           [0, 0, 0, 0, 2, 0, 0]])
    eq(A.join_objects(x, "h", "multi8", "place"), [[1, 0, 2, 2, 3, 3], [1, 1, 0, 2, 3, 0]])
    eq(A.join_objects(x, "h", "multi8", "large_first"), [[1, 0, 2, 2, 3, 3], [1, 1, 0, 2, 3, 0]])
    eq(A.join_objects(x, "h", "multi8", "small_first"), [[1, 0, 2, 2, 3, 3], [1, 1, 0, 2, 3, 0]])
    eq(A.join_objects(x.T, "v", "multi8", "place"), [[1, 1], [0, 1], [2, 0], [2, 2], [3, 3], [3, 0]])
    y = x.copy()
    y[0, 6] = 3  # the top object is now the largest
    eq(A.join_objects(y, "h", "multi8", "large_first"), [[3, 3, 3, 1, 0, 2, 2], [3, 0, 0, 1, 1, 0, 2]])
    eq(A.join_objects(y, "h", "multi8", "small_first"), [[1, 0, 2, 2, 3, 3, 3], [1, 1, 0, 2, 3, 0, 0]])


def test_join_objects_leaves_out_other_objects_cells_and_needs_one_height():
    x = g([[1, 1, 0, 0],
           [1, 2, 2, 0],
           [0, 0, 2, 2]])
    eq(A.join_objects(x, "h", "colour4", "place"), [[1, 1, 2, 2, 0], [1, 0, 0, 2, 2]])
    assert A.join_objects(g([[1, 0, 2], [1, 0, 0]]), "h", "multi8", "place") is None  # heights 2 and 1
    assert A.join_objects(g([[1, 0, 0], [0, 0, 0]]), "h", "multi8", "place") is None  # one object


def test_join_objects_is_tried_where_the_joined_objects_have_the_targets_sizes():
    x = g([[1, 0, 2], [1, 0, 2]])
    assert infer("join", [x], [np.zeros((2, 2), dtype=np.int8)]) == [
        ("h", "multi8", "place"), ("h", "multi8", "small_first"), ("h", "multi8", "large_first"),
        ("h", "colour4", "place"), ("h", "colour4", "small_first"), ("h", "colour4", "large_first")]
    assert [p[0] for p in infer("join", [x], [np.zeros((4, 1), dtype=np.int8)])] == ["v"] * 6
    assert infer("join", [x], [np.zeros((3, 1), dtype=np.int8)]) == []
    assert infer("join", [x], [np.zeros((2, 3), dtype=np.int8)]) == []  # not smaller than the grid


def test_fit_corners():
    """Each piece goes to the corner of the frame that its box's one outer corner names."""
    x = g([[0, 0, 0, 0, 0, 0, 0],
           [0, 2, 0, 0, 0, 1, 1],
           [0, 2, 2, 0, 0, 0, 1],
           [0, 0, 0, 0, 0, 0, 0],
           [3, 3, 0, 0, 0, 4, 0],
           [3, 0, 0, 0, 4, 4, 0]])
    eq(A.fit_corners(x), [[3, 3, 1, 1],
                          [3, 0, 0, 1],
                          [2, 0, 0, 4],
                          [2, 2, 4, 4]])
    two_top_lefts = x.copy()
    two_top_lefts[1:3, 5:7] = [[1, 1], [1, 0]]
    assert A.fit_corners(two_top_lefts) is None
    assert A.fit_corners(x[:3]) is None  # two pieces, not four
    bar = x.copy()
    bar[4:6, 0:2] = [[3, 3], [0, 0]]  # a bar's corners: no single outer one
    assert A.fit_corners(bar) is None


def test_fit_corners_is_tried_where_the_fitted_pieces_have_the_targets_sizes():
    x = g([[2, 0, 0, 1, 1], [2, 2, 0, 0, 1], [0, 0, 0, 0, 0], [3, 3, 0, 0, 4], [3, 0, 0, 4, 4]])
    fitted = A.fit_corners(x)
    assert infer("corners_fit", [x], [fitted]) == [()]
    assert infer("corners_fit", [x], [np.zeros((3, 4), dtype=np.int8)]) == []


def test_gather_cells():
    x = g([[0, 0, 3, 0],
           [5, 0, 0, 0],
           [0, 0, 0, 7],
           [0, 2, 0, 0]])
    eq(A.gather_cells(x, "rows", False, 2, 3), [[3, 5, 7], [2, 0, 0]])
    eq(A.gather_cells(x, "columns", False, 2, 2), [[5, 2], [3, 7]])
    eq(A.gather_cells(x, "columns", True, 2, 2), [[5, 2], [7, 3]])  # the second row runs back
    assert A.gather_cells(x, "rows", False, 1, 3) is None  # four cells, three places
    assert A.gather_cells(np.zeros((3, 3), dtype=np.int8), "rows", False, 2, 2) is None


def test_gather_cells_is_tried_into_the_targets_one_smaller_size():
    x = g([[0, 0, 3, 0], [5, 0, 0, 0], [0, 0, 0, 7], [0, 2, 0, 0]])
    assert infer("gather", [x], [np.zeros((2, 2), dtype=np.int8)]) == [
        ("rows", False, 2, 2), ("rows", True, 2, 2), ("columns", False, 2, 2), ("columns", True, 2, 2)]
    assert infer("gather", [x], [np.zeros((1, 3), dtype=np.int8)]) == []  # too few places
    assert infer("gather", [x, x], [np.zeros((2, 2), dtype=np.int8), np.zeros((3, 3), dtype=np.int8)]) == []


def test_paint_by_key():
    x = g([[2, 4, 8, 0, 0, 0, 0],
           [1, 6, 8, 0, 0, 0, 0],
           [8, 8, 8, 8, 8, 8, 8],
           [0, 0, 8, 3, 0, 0, 3],
           [0, 0, 8, 3, 3, 3, 0],
           [0, 0, 8, 0, 3, 0, 0],
           [0, 0, 8, 3, 0, 3, 3]])
    # the 2 x 2 key scaled up to the 4 x 4 pattern, each quarter in its key cell's colour
    eq(A.paint_by_key(x, "blocks", "pattern"), [[2, 0, 0, 4], [2, 2, 4, 0], [0, 1, 0, 0], [1, 0, 6, 6]])
    assert A.paint_by_key(x, "blocks", "key") is None  # the quarters are partly set
    assert A.paint_by_key(x, "objects", "pattern") is None  # the lines join everything: one object


def test_paint_by_key_from_corner_cells_and_objects():
    framed = g([[2, 1, 0, 0, 1, 3],
                [1, 1, 1, 1, 1, 1],
                [0, 1, 5, 0, 1, 0],
                [0, 1, 5, 5, 1, 0],
                [1, 1, 1, 1, 1, 1],
                [4, 1, 0, 0, 1, 6]])
    # four one-cell blocks at the corners make a 2 x 2 key for the pattern in the middle
    eq(A.paint_by_key(framed, "blocks", "pattern"), [[2, 0], [4, 6]])
    scaled = g([[5, 5, 0, 0, 0, 0, 0],
                [5, 5, 0, 0, 0, 0, 0],
                [0, 0, 5, 5, 0, 0, 0],
                [0, 0, 5, 5, 0, 0, 0],
                [0, 0, 0, 0, 0, 0, 0],
                [0, 0, 0, 0, 0, 7, 8],
                [0, 0, 0, 0, 0, 9, 1]])
    # the pattern shrunk to the key's size shows the key where it is set
    eq(A.paint_by_key(scaled, "objects", "key"), [[7, 0], [0, 1]])
    eq(A.paint_by_key(scaled, "objects", "pattern"), [[7, 7, 0, 0], [7, 7, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    assert A.paint_by_key(scaled[:, :6], "objects", "key") is None  # a key of one column: shares half set
    blurred = scaled.copy()
    blurred[0, 1] = 0  # a share partly set
    assert A.paint_by_key(blurred, "objects", "key") is None


def test_paint_by_key_is_tried_where_its_answer_has_the_targets_sizes():
    x = g([[5, 5, 0, 0],
           [5, 5, 0, 0],
           [0, 0, 0, 7],
           [0, 0, 0, 0]])
    assert infer("key_parts", [x], [np.zeros((1, 1), dtype=np.int8)]) == [("objects", "key")]
    assert infer("key_parts", [x], [np.zeros((2, 2), dtype=np.int8)]) == [("objects", "pattern")]
    assert infer("key_parts", [x], [np.zeros((3, 3), dtype=np.int8)]) == []


@pytest.mark.parametrize("task_id, program", [
    ("a61ba2ce", "fit_corners"),  # four L-shaped pieces make a hollow square
    ("cdecee7f", "gather_cells{columns,True,3,3}"),  # scattered cells, left to right, snake into 3 x 3
])
def test_search_solves_arc_tasks_by_corners_and_gathered_cells(task_id, program):
    """Verified and right, clock-free (the same on any machine)."""
    [task] = load_tasks(task_id)
    [best, *_] = solve(task, SolveConfig(time_budget=float("inf")), max_depth=2, max_states=2000).candidates
    assert best.verified and best.detail == program
    assert [grid.to_numpy().tolist() for grid in best.grids] == [p.output.to_numpy().tolist() for p in task.test]
