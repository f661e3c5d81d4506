"""Tests of the measuring family: blocks between separator lines filled and tallied, colours
as bars, uniform blocks shrunk, periodic stripes and object interiors recoloured, and the
parameter inference that offers each only where the train pairs allow it."""

import numpy as np
import pytest

from arcsolve.dsl.families.measuring import (
    block_tally,
    colour_bars,
    colour_size,
    compress,
    fill_blocks,
    interior_by,
    recolour_stripes,
)
from arcsolve.dsl.params import PARAMS, task_facts
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import search
from arcsolve.loaders import load_tasks
from tests.grids import eq, g


def infer(kind, grids, targets) -> list[tuple]:
    return PARAMS[kind](grids, targets, task_facts(grids, targets))


# Four 2x2 blocks between lines of 5 holding 3, 1, 1 and 3 cells.
TIED = g([[1, 0, 5, 0, 0],
          [1, 1, 5, 2, 0],
          [5, 5, 5, 5, 5],
          [0, 3, 5, 4, 4],
          [0, 0, 5, 0, 4]])

# Four 2x2 blocks holding 2, 3, 3 and 4 cells: the first, the emptiest, is a 2x2 key.
KEYED = g([[6, 0, 5, 1, 1],
           [0, 7, 5, 1, 0],
           [5, 5, 5, 5, 5],
           [2, 2, 5, 3, 3],
           [2, 0, 5, 3, 3]])


def test_fill_blocks():
    eq(fill_blocks(TIED, "fullest"), [[1, 1, 5, 0, 0],  # both blocks of 3 cells are filled
                                      [1, 1, 5, 0, 0],
                                      [5, 5, 5, 5, 5],
                                      [0, 0, 5, 4, 4],
                                      [0, 0, 5, 4, 4]])
    eq(fill_blocks(KEYED, "key"), [[6, 6, 5, 0, 0],
                                   [6, 6, 5, 0, 0],
                                   [5, 5, 5, 5, 5],
                                   [0, 0, 5, 7, 7],
                                   [0, 0, 5, 7, 7]])
    assert fill_blocks(TIED, "key") is None  # two emptiest blocks
    assert fill_blocks(g([[1, 2], [3, 4]]), "fullest") is None  # no separator lines


def test_block_tally():
    eq(block_tally(KEYED), [[2, 3], [3, 4]])
    eq(block_tally(g([[3] * 10 + [1] + [3] * 10] * 2)), [[9, 9]])  # 20 cells each, capped at 9
    assert block_tally(g([[1, 2], [3, 4]])) is None


def test_colour_bars():
    counts = g([[1, 2, 2], [0, 3, 3], [3, 0, 0]])  # one 1, two 2s, three 3s
    eq(colour_bars(counts, "all"), [[3, 2, 1], [3, 2, 0], [3, 0, 0]])
    eq(colour_bars(counts, "most"), [[3], [3], [3]])
    tied = g([[0, 4, 0, 2], [0, 4, 0, 2]])
    eq(colour_bars(tied, "most"), [[4, 2], [4, 2]])  # in the order they stand, left to right
    assert colour_bars(tied, "all") is None  # equal counts: no order
    assert colour_bars(g([[0, 0]]), "all") is None


def test_colour_bars_are_offered_for_a_chart_standing_on_any_side_of_a_larger_canvas():
    counts = g([[1, 2, 2], [0, 3, 3], [3, 0, 0]])
    hanging = g([[3, 2, 1], [3, 2, 0], [3, 0, 0]])
    standing = g([[0, 0, 0, 0], [3, 0, 0, 0], [3, 2, 0, 0], [3, 2, 1, 0]])  # from the bottom, on a 4 x 4 canvas
    lying = g([[0, 3, 3, 3], [0, 0, 2, 2], [0, 0, 0, 1]])  # from the right, one bar a row
    for target in (hanging, standing, lying):
        assert infer("bars", [counts], [target]) == [("all",)], target
    assert infer("bars", [counts], [g([[3, 2, 1], [3, 0, 2]])]) == []  # not a chart
    assert infer("bars", [counts], [hanging[:2]]) == []  # shorter than the top count


def test_compress():
    framed = g([[0, 0, 0, 0, 0],
                [0, 2, 2, 3, 3],
                [0, 2, 2, 3, 3],
                [0, 0, 0, 0, 0]])
    eq(compress(framed, "content"), [[2, 3]])
    assert compress(framed, "grid") is None  # the frame is one cell wide
    eq(compress(g([[1, 1, 1, 0, 0, 0], [1, 1, 1, 0, 0, 0]]), "grid"), [[1, 0]])
    eq(compress(g([[4, 4, 5, 5], [4, 4, 5, 5], [4, 4, 5, 5]]), "grid"), [[4, 5]])  # 3 x 2 blocks
    assert compress(g([[0, 0], [0, 0]]), "content") is None


def test_recolour_stripes():
    bars = g([[4, 0, 4, 0, 4], [4, 4, 4, 4, 4]])
    eq(recolour_stripes(bars, "v", 2, 0, 6), [[6, 0, 6, 0, 6], [6, 4, 6, 4, 6]])
    eq(recolour_stripes(bars, "v", 3, 1, 6), [[4, 0, 4, 0, 6], [4, 6, 4, 4, 6]])
    eq(recolour_stripes(bars.T, "h", 2, 1, 6), [[4, 4], [0, 6], [4, 4], [0, 6], [4, 4]])
    assert recolour_stripes(bars, "h", 2, 0, 6) is None  # two rows: no period of 2 to see


def test_interior_by():
    boxes = g([[1, 1, 1, 0, 0, 0, 0],
               [1, 1, 1, 0, 2, 2, 2],
               [1, 1, 1, 0, 2, 2, 2],
               [0, 0, 0, 0, 2, 2, 2],
               [0, 0, 0, 0, 2, 2, 2]])
    eq(interior_by(boxes, "size_rank", "colour4"), [[1, 1, 1, 0, 0, 0, 0],  # 9 cells: rank 2
                                                    [1, 2, 1, 0, 2, 2, 2],  # 12 cells: rank 1
                                                    [1, 1, 1, 0, 2, 1, 2],
                                                    [0, 0, 0, 0, 2, 1, 2],
                                                    [0, 0, 0, 0, 2, 2, 2]])
    assert interior_by(boxes[:, :3], "size_rank", "colour4") is None  # one object: nothing to rank it against
    eq(interior_by(boxes[:3, :3], "orientation", "colour4"), [[1, 1, 1], [1, 3, 1], [1, 1, 1]])  # a square box
    assert interior_by(g([[1, 0, 2], [1, 0, 2]]), "size_rank", "colour4") is None  # no interior


def test_interior_by_codes_past_nine_share_colour_nine():
    # eleven 3-row boxes of widths 3..13, one row apart: size ranks 1..11 from the smallest
    many = np.zeros((44, 13), dtype=np.int8)
    for k in range(11):
        many[4 * k : 4 * k + 3, : k + 3] = 1
    out = interior_by(many, "size_rank_asc", "colour4")
    assert out is not None and out.max() == 9  # not 10 and 11, which are no colours
    assert out[1, 1] == 1 and out[4 * 8 + 1, 1] == 9 and out[4 * 10 + 1, 1] == 9


# Objects of 3, 3, 2 and 1 cells, the same under both connectivities.
SIZED = g([[5, 5, 5, 0, 0],
           [0, 0, 0, 0, 5],
           [5, 5, 0, 0, 5],
           [0, 0, 0, 0, 5],
           [0, 6, 0, 0, 0]])


def test_colour_size():
    eq(colour_size(SIZED, 3, "multi8"), [[1, 1, 1, 0, 0],
                                         [0, 0, 0, 0, 1],
                                         [2, 2, 0, 0, 1],
                                         [0, 0, 0, 0, 1],
                                         [0, 2, 0, 0, 0]])
    assert colour_size(SIZED, 4, "multi8") is None  # no object of 4 cells
    assert colour_size(SIZED[:2, :3], 3, "multi8") is None  # every object has 3 cells


def test_block_params_need_blocks_and_the_targets_size():
    filled = fill_blocks(TIED, "fullest")
    assert infer("block_fill", [TIED], [filled]) == [("fullest",), ("key",)]
    assert infer("block_fill", [TIED], [TIED]) == []  # blocks of several colours
    moved = filled.copy()
    moved[2, 0] = 0
    assert infer("block_fill", [TIED], [moved]) == []  # a separator line broken
    assert infer("block_fill", [g([[1, 2], [3, 4]])], [g([[1, 2], [3, 4]])]) == []  # no blocks
    assert infer("block_fill", [TIED], [filled[:2]]) == []  # another size
    assert infer("block_tally", [KEYED], [g([[0, 1], [1, 1]])]) == [()]
    assert infer("block_tally", [KEYED], [g([[0, 1, 1]])]) == []  # 2x2 blocks, not 1x3


def test_bar_and_compress_params_follow_the_counts():
    counts = g([[1, 2, 2], [0, 3, 3], [3, 0, 0]])
    assert infer("bars", [counts], [g([[3, 2, 1], [3, 2, 0], [3, 0, 0]])]) == [("all",)]
    assert infer("bars", [counts], [g([[3], [3], [3]])]) == [("most",)]
    assert infer("bars", [counts], [g([[3, 3]])]) == []
    framed = g([[0, 0, 0], [0, 7, 7], [0, 7, 7]])
    assert infer("compressible", [framed], [framed]) == [("content",)]
    whole = g([[7, 7, 1], [7, 7, 1]])
    assert infer("compressible", [whole], [whole]) == [("grid",)]  # its content is the whole grid
    assert infer("compressible", [g([[1, 2], [3, 4]])], [whole]) == []


def test_stripe_params_account_for_every_changed_cell():
    bars = g([[4, 0, 4, 0, 4, 0, 4], [4, 4, 4, 4, 4, 4, 4]])
    target = recolour_stripes(bars, "v", 3, 0, 6)
    assert infer("stripes", [bars], [target]) == [("v", 3, 0, 6)]
    extra = target.copy()
    extra[1, 1] = 6  # a changed cell off the stripes
    assert infer("stripes", [bars], [extra]) == []
    assert infer("stripes", [bars], [bars]) == []  # nothing changes


def test_interior_params_need_the_interiors_to_change():
    boxes = g([[1, 1, 1, 0], [1, 1, 1, 0], [1, 1, 1, 0], [0, 0, 0, 2]])
    painted = boxes.copy()
    painted[1, 1] = 3
    found = infer("interior_codes", [boxes], [painted])
    assert ("size_rank", "multi8") in found and ("extremes", "colour4") in found
    painted[3, 3] = 5  # a change outside the interiors
    assert infer("interior_codes", [boxes], [painted]) == []


def test_size_params_find_the_size_that_alone_turns_one_colour():
    target = np.where(colour_size(SIZED, 3, "multi8") == 1, 2, np.where(SIZED != 0, 1, 0)).astype(np.int8)
    assert infer("object_size", [SIZED], [target]) == [(3, "multi8"), (3, "colour4")]
    wrong = target.copy()
    wrong[4, 1] = 2  # the lone cell turns the colour of the 3-cell objects too
    assert infer("object_size", [SIZED], [wrong]) == [(2, "multi8"), (2, "colour4")]  # the 2 cells alone stay 1
    mixed = target.copy()
    mixed[0, 0] = 1  # one 3-cell object in two colours
    assert infer("object_size", [SIZED], [mixed]) == []
    drawn = target.copy()
    drawn[0, 4] = 2  # a zero cell drawn on: not only recolouring
    assert infer("object_size", [SIZED], [drawn]) == []


@pytest.mark.parametrize("task_id, program", [
    ("29623171", "fill_blocks{fullest}"),  # the fullest blocks of a lattice filled, the rest emptied
    ("09629e4f", "fill_blocks{key}"),  # the block with fewest cells says each block's colour
    ("6773b310", "block_tally | recolor{1->0,2->1}"),  # blocks with two cells marked
    ("9af7a82c", "colour_bars{all}"),  # a histogram of the colours
    ("80af3007", "compress{content} | self_tile"),  # a shape of 3x3 blocks as a fractal
    ("ba26e723", "recolour_stripes{v,3,0,6}"),  # every third column recoloured
    ("694f12f3", "interior_by{size_rank_asc,multi8}"),  # the smaller box's inside 1, the larger's 2
    ("d2abd087", "colour_size{6,multi8} | recolor{1->2,2->1}"),  # objects of six cells red, others blue
])
def test_search_solves_arc_tasks_by_measuring(task_id, program):
    [task] = load_tasks(task_id)
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == program
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]
