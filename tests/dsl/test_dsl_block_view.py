"""The block view (`arcsolve.dsl.block_view`): boards seen one cell per block, and answers painted back."""

from __future__ import annotations

import numpy as np

from arcsolve.dsl.block_view import block_task, board
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import search
from arcsolve.loaders import load_tasks
from tests.dsl.test_dsl_search import make_task
from tests.grids import eq, g

BOARD = g([[3, 3, 5, 0, 5, 2],
           [3, 3, 5, 0, 5, 2],
           [5, 5, 5, 5, 5, 5],
           [0, 0, 5, 4, 5, 0]])


def test_a_board_reads_one_cell_per_block():
    b = board(BOARD)
    assert b is not None and b.line == 5
    assert b.rows == ((0, 2), (3, 4)) and b.columns == ((0, 2), (3, 4), (5, 6))  # blocks of unequal sizes
    eq(b.cells, [[3, 0, 2], [0, 4, 0]])
    eq(b.paint(b.cells), BOARD)  # painted back, the grid as it was
    eq(b.paint(g([[1, 1, 1], [0, 0, 7]])), [[1, 1, 5, 1, 5, 1],
                                            [1, 1, 5, 1, 5, 1],
                                            [5, 5, 5, 5, 5, 5],
                                            [0, 0, 5, 0, 5, 7]])
    assert b.paint(g([[1, 2], [3, 4]])) is None  # not its blocks' shape


def test_grids_that_are_not_boards():
    assert board(g([[3, 1, 5, 0], [3, 3, 5, 0], [5, 5, 5, 5], [0, 0, 5, 0]])) is None  # a block of two colours
    assert board(g([[1, 5, 2], [1, 5, 2]])) is None  # one row of blocks
    assert board(g([[1, 2], [3, 4]])) is None  # no lines


def test_a_task_reads_as_boards_only_if_every_grid_is_one_and_outputs_keep_the_layout():
    recoloured = BOARD.copy()
    recoloured[3, 0:2] = 6
    assert block_task([BOARD], [recoloured], [BOARD]) is not None
    assert block_task([BOARD], [BOARD], [BOARD]) is None  # no block changes
    moved = BOARD.copy()
    moved[:, [2, 3]] = moved[:, [3, 2]]  # a line moves: another layout
    assert block_task([BOARD], [moved], [BOARD]) is None
    assert block_task([BOARD], [recoloured], [g([[1, 2], [3, 4]])]) is None  # a test input that is no board


def test_search_plays_a_rule_on_the_blocks_and_paints_the_answer_back():
    # each board's blocks fall to its bottom row of blocks, whatever their sizes
    def pair(cells: list[list[int]], sizes: tuple[int, int]) -> tuple[list, list]:
        def draw(c):
            h, w = sizes
            rows = [np.repeat(np.repeat(np.array([r]), h, 0), w, 1) for r in c]
            out = np.full((len(c) * (h + 1) - 1, len(c[0]) * (w + 1) - 1), 8)
            for i, r in enumerate(rows):
                for j in range(len(c[0])):
                    out[i * (h + 1) : i * (h + 1) + h, j * (w + 1) : j * (w + 1) + w] = r[:, j * w : j * w + w]
            return out
        fallen = np.zeros_like(np.array(cells))
        for j, col in enumerate(np.array(cells).T):
            kept = col[col != 0]
            fallen[len(col) - len(kept) :, j] = kept
        return draw(cells).tolist(), draw(fallen.tolist()).tolist()

    train = [pair([[1, 0, 2], [0, 0, 0], [0, 3, 0]], (2, 2)), pair([[0, 4], [0, 0], [5, 0]], (1, 3)),
             pair([[6, 6], [0, 7], [0, 0]], (3, 1))]
    test_in, test_out = pair([[0, 2, 0], [9, 0, 0], [0, 0, 1]], (2, 3))
    task = make_task(train, [test_in], [test_out])
    found = search(task, float("inf"), max_depth=2, max_states=2000)  # no clock: the same on any machine
    assert found[0].view == "blocks" and found[0].verified
    eq(found[0].outputs[0], test_out)


def test_search_copies_a_pattern_of_blocks_onto_lone_blocks():
    """39e1d7f9: the pattern of blocks around one coloured block is copied around every lone
    block of that colour."""
    [task] = load_tasks("39e1d7f9")
    found = search(task, float("inf"), max_depth=2, max_states=2000)  # no clock: the same on any machine
    assert found[0].view == "blocks" and format_program(found[0].program) == "copy_to_markers"
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]
