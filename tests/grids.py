"""Small helpers shared by the tests: a grid from rows (as the search holds it, or as a task
holds it), a task from rows, an exact comparison, a plain flood fill
to check the labelling of connected components against, a plain shift with fill, and tasks
whose outputs a function makes from random inputs (two halves combined cell by cell among them)."""

import numpy as np

from arcsolve.tasks import Grid, Pair, Task, TrainPair


def g(rows) -> np.ndarray:
    """A grid of int8 colours, as the search holds them."""
    return np.array(rows, dtype=np.int8)


def grid(rows) -> Grid:
    """A task's grid from rows."""
    return Grid.from_numpy(np.array(rows))


def rows_task(train, tests, task_id: str = "rows") -> Task:
    """A task from (input rows, output rows) train pairs and test input rows, the test
    outputs unknown."""
    return Task(
        id=task_id,
        train=[TrainPair(input=grid(x), output=grid(y)) for x, y in train],
        test=[Pair(input=grid(x)) for x in tests],
    )


def eq(actual, expected) -> None:
    """The primitive gave a grid, equal to the expected rows."""
    assert actual is not None
    assert np.array_equal(actual, np.array(expected)), f"\n{actual}\n!=\n{np.array(expected)}"


def flood_labels(g: np.ndarray, foreground: np.ndarray, diagonal: bool, by_colour: bool) -> tuple[np.ndarray, int]:
    """Plain depth-first flood fill, numbering components by their first cell in row-major order."""
    h, w = g.shape
    lab, n = np.zeros((h, w), dtype=int), 0
    steps = [(0, 1), (1, 0), (0, -1), (-1, 0)] + ([(1, 1), (1, -1), (-1, 1), (-1, -1)] if diagonal else [])
    for y in range(h):
        for x in range(w):
            if foreground[y, x] and not lab[y, x]:
                n += 1
                lab[y, x], todo = n, [(y, x)]
                while todo:
                    cy, cx = todo.pop()
                    for dy, dx in steps:
                        ny, nx = cy + dy, cx + dx
                        if (0 <= ny < h and 0 <= nx < w and foreground[ny, nx] and not lab[ny, nx]
                                and (not by_colour or g[ny, nx] == g[cy, cx])):
                            lab[ny, nx] = n
                            todo.append((ny, nx))
    return lab, n


def shifted_with_fill(x: np.ndarray, dr: int, dc: int, fill: int = 0) -> np.ndarray:
    """x moved down dr and right dc, cell by cell in plain Python; vacated cells take `fill`."""
    out = np.full(x.shape, fill, dtype=np.asarray(x).dtype)
    h, w = x.shape
    for i in range(h):
        for j in range(w):
            if 0 <= i - dr < h and 0 <= j - dc < w:
                out[i, j] = x[i - dr, j - dc]
    return out


def task_from(make, shapes, test_shape, rng, colours: int = 10, task_id: str = "made") -> Task:
    """A task whose outputs are make(input), its inputs random grids of `colours` colours
    drawn from `rng` in order: the train pairs' `shapes`, then the test's."""
    grids = [rng.integers(0, colours, size=s) for s in shapes]
    test = rng.integers(0, colours, size=test_shape)
    return Task(
        id=task_id,
        train=[TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(make(x))) for x in grids],
        test=[Pair(input=Grid.from_numpy(test), output=Grid.from_numpy(make(test)))],
    )


def train_arrays(task: Task) -> list[tuple[np.ndarray, np.ndarray]]:
    """A task's train pairs as (input, output) arrays."""
    return [(p.input.to_numpy(), p.output.to_numpy()) for p in task.train]


def solved_in_a_batch(task: Task, config, side_by_side: bool = False, graphs: bool = False):
    """`solve_many` on one task alone (one seat, three exact restarts): its Solution."""
    from arcsolve.latformer.batched import solve_many

    got: list = []
    solve_many([(task, config)], got.append, batch=1, side_by_side=side_by_side, graphs=graphs, exact_restarts=3)
    return got[0]


def halves_task(rule, n: int = 4, seed: int = 0) -> Task:
    """Inputs of two 3×3 halves beside a separator column; the output combines them cell by cell."""
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n + 1):
        left, right = rng.integers(0, 2, (3, 3)), rng.integers(0, 2, (3, 3))
        x = np.concatenate([left * 1, np.full((3, 1), 5), right * 1], axis=1)
        pairs.append((Grid.from_numpy(x), Grid.from_numpy(rule(left, right) * 2)))
    train = [TrainPair(input=x, output=y) for x, y in pairs[:n]]
    return Task(id="halves", train=train, test=[Pair(input=x, output=y) for x, y in pairs[n:]])
