"""Per-panel actions: where lines cut every grid into equal panels, each panel of a head takes
its own exact action (a rotated or reflected copy of some panel) and the lines read
themselves."""

import numpy as np
import pytest

from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.panels import panel_layout, panel_sets
from arcsolve.latformer.exact_starts.readings import reading
from arcsolve.latformer.fit import solve
from arcsolve.latformer.model import tile_cells
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Pair, Task, TrainPair
from tests.grids import solved_in_a_batch, train_arrays

LINE = 5


def panelled(panels: list[list[np.ndarray]], lines: int = 1) -> np.ndarray:
    """Panels (rows of them) joined by lines of colour LINE, `lines` cells wide."""
    h, w = panels[0][0].shape
    rows = []
    for k, row in enumerate(panels):
        if k:
            rows.append(np.full((lines, len(row) * (w + lines) - lines), LINE))
        parts = []
        for j, panel in enumerate(row):
            if j:
                parts.append(np.full((h, lines), LINE))
            parts.append(panel)
        rows.append(np.concatenate(parts, axis=1))
    return np.concatenate(rows, axis=0)


def turned_panels_task(rng: np.random.Generator, n_train: int = 3, side: int = 3) -> Task:
    """A row of three panels, the first drawn and the others empty; the output keeps the first
    and fills the others with it turned a quarter clockwise and a half."""
    def pair() -> tuple[np.ndarray, np.ndarray]:
        first = rng.choice([0, 1, 2, 3, 4, 6, 7, 8], size=(side, side))
        empty = np.zeros_like(first)
        x = panelled([[first, empty, empty]])
        y = panelled([[first, np.rot90(first, -1), np.rot90(first, 2)]])
        return x, y

    made = [pair() for _ in range(n_train + 1)]
    train = [TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(y)) for x, y in made[:-1]]
    x, y = made[-1]
    return Task(id="panels", train=train, test=[Pair(input=Grid.from_numpy(x), output=Grid.from_numpy(y))])


def test_tile_cells_with_lines_give_each_panel_a_tile_and_the_lines_one_more():
    on = tile_cells((3, 11), (1, 3), lines=1)
    assert on.shape == (4, 33) and on.sum(0).eq(1).all()
    assert on.argmax(0).view(3, 11)[0].tolist() == [0, 0, 0, 3, 1, 1, 1, 3, 2, 2, 2]
    grid = tile_cells((7, 7), (2, 2), lines=1).argmax(0).view(7, 7)
    assert grid[3].tolist() == [4] * 7 and grid[:, 3].tolist() == [4] * 7
    assert grid[0].tolist() == [0, 0, 0, 4, 1, 1, 1] and grid[6].tolist() == [2, 2, 2, 4, 3, 3, 3]
    canvas = tile_cells((3, 11), (1, 3), side=12, lines=1)
    assert canvas.shape == (4, 144) and canvas.sum() == 33  # the canvas's padding in no tile


def test_panel_layout_needs_equal_panels_and_no_line_on_the_border():
    a = np.arange(9).reshape(3, 3)
    assert panel_layout([panelled([[a, a], [a, a]])]) == ((2, 2), 1)
    assert panel_layout([panelled([[a, a, a]], lines=2)]) == ((1, 3), 2)
    uneven = np.concatenate([a, np.full((3, 1), LINE), a[:, :2]], axis=1)
    assert panel_layout([uneven]) is None
    bordered = np.concatenate([np.full((3, 1), LINE), a, np.full((3, 1), LINE), a], axis=1)
    assert panel_layout([bordered]) is None
    # a line of the inputs that an output crosses is no line
    crossed = panelled([[a, a]])
    crossed[1, 3] = 0
    assert panel_layout([panelled([[a, a]])], [crossed]) is None


def test_panel_sets_find_each_panels_turn_and_read_the_test_output():
    task = turned_panels_task(np.random.default_rng(0))
    pairs = train_arrays(task)
    test = task.test[0]
    x, y = test.input.to_numpy(), test.output.to_numpy()
    (found,) = panel_sets(pairs, [(x, x.shape)])
    assert found.tiles == (1, 3) and found.lines == 1 and len(found.actions) == 4
    assert found.actions[0] == found.actions[3]  # the first panel and the lines read themselves
    tile = tile_cells(y.shape, (1, 3), lines=1).argmax(0).numpy()
    read = np.stack([reading(a, x, y.shape).reshape(-1) for a in found.actions])[tile, np.arange(y.size)]
    assert (read == y.reshape(-1)).all()
    assert found in consistent_sets(pairs, [(x, x.shape)])  # offered among the exact starts


def test_panels_that_all_keep_their_content_need_no_panel_actions():
    a = np.arange(9).reshape(3, 3)
    x = panelled([[a, a + 1]])
    assert panel_sets([(x, x), (x + 0, x + 0)]) == []


def test_grids_of_other_shapes_get_no_panel_sets():
    task = turned_panels_task(np.random.default_rng(1))
    pairs = train_arrays(task)
    wider = np.zeros((3, 15), dtype=int)
    assert panel_sets(pairs, [(wider, wider.shape)]) == []


@pytest.mark.parametrize("seed", [0, 1])
def test_a_row_of_turned_panels_is_solved_and_explained(seed):
    task = turned_panels_task(np.random.default_rng(seed))
    solution = solve(task, SolveConfig(device="cpu", steps=300, seed=0))
    best = solution.candidates[0]
    assert best.grids[0] == task.test[0].output and best.verified
    assert "per panel of 1x3 between lines 1 wide" in best.detail
    assert "rotate 180; the lines: identity" in best.detail


@pytest.mark.parametrize(("side_by_side", "graphs"), [(False, False), (True, True)])
def test_solve_many_fits_panel_restarts_as_solve_does(side_by_side, graphs):
    task = turned_panels_task(np.random.default_rng(2))
    config = SolveConfig(device="cpu", steps=300, seed=0)
    batched = solved_in_a_batch(task, config, side_by_side, graphs)
    assert batched.candidates[0].grids == solve(task, config).candidates[0].grids == (task.test[0].output,)
