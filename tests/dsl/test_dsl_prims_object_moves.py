"""Object moves (`arcsolve.dsl.learned.object_moves`): rules per group of objects learned from the
train pairs, which also hold for new places and new numbers of objects."""

from __future__ import annotations

import numpy as np

from arcsolve.dsl import registry as P
from arcsolve.dsl.learned.object_moves import DIRS8, _hits, _objects, _slide, apply_moves, fit_move_models
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import _run_views, _Search, distinct, search
from tests.dsl.test_dsl_search import make_task
from tests.grids import eq, g


def models_for(pairs):
    return fit_move_models([x for x, _ in pairs], [y for _, y in pairs])


def test_move_objects():
    # every 3 moves two cells right; the 5 stays
    pairs = [(g([[3, 0, 0, 0], [0, 0, 5, 0]]), g([[0, 0, 3, 0], [0, 0, 5, 0]])),
             (g([[0, 0, 0, 0], [0, 3, 0, 0], [5, 0, 0, 0]]), g([[0, 0, 0, 0], [0, 0, 0, 3], [5, 0, 0, 0]]))]
    models = models_for(pairs)
    assert models
    eq(P.move_objects(g([[0, 3, 0, 0, 5], [3, 0, 0, 0, 0]]), models[0]), [[0, 0, 0, 3, 5], [0, 0, 3, 0, 0]])
    assert P.move_objects(g([[0, 0, 3]]), models[0]) is None  # it would leave the grid
    assert P.move_objects(g([[3, 0, 7, 0]]), models[0]) is None  # a colour the train pairs never showed


def test_objects_fall_until_something_stops_them():
    pairs = [(g([[2, 0], [0, 0], [0, 0]]), g([[0, 0], [0, 0], [2, 0]])),
             (g([[0, 4], [0, 0], [0, 0], [0, 0]]), g([[0, 0], [0, 0], [0, 0], [0, 4]])),
             (g([[6, 0], [6, 0], [0, 0]]), g([[0, 0], [6, 0], [6, 0]]))]
    models = models_for(pairs)
    falls = [m for m in models if all(rule[0] == "grav" for _, rule in m[2])]
    assert falls, [str(m) for m in models]
    # the lower object lands first, the upper one on top of it
    eq(apply_moves(g([[2, 0], [0, 0], [4, 0], [0, 0]]), falls[0]), [[0, 0], [0, 0], [2, 0], [4, 0]])


def test_slides_and_first_hits_match_a_step_by_step_walk():
    rng = np.random.default_rng(5)

    def walk(o, mask, d):  # steps until the next one leaves the grid, and the first step onto the mask
        H, W = mask.shape
        k = 0
        while True:
            ny, nx = o[0] + (k + 1) * d[0], o[1] + (k + 1) * d[1]
            if ny.min() < 0 or nx.min() < 0 or ny.max() >= H or nx.max() >= W:
                return k, None
            if mask[ny, nx].any():
                return k, k + 1
            k += 1

    for _ in range(150):
        shape = (rng.integers(1, 9), rng.integers(1, 9))
        grid = np.where(rng.random(shape) < 0.3, rng.integers(1, 4, size=shape), 0).astype(np.int8)
        grid[rng.integers(grid.shape[0]), rng.integers(grid.shape[1])] = 5
        o = next(q for q in _objects(grid, ("colour", 8)) if q[3] == 5)
        mask = grid != 0
        mask[o[0], o[1]] = False
        hits = dict((d, k) for k, d in _hits(o, mask, DIRS8))
        for d in DIRS8:
            free, hit = walk(o, mask, d)
            assert _slide(o, d, mask) == free
            assert hits.get(d) == hit


def test_an_object_slides_towards_its_anchor_until_it_touches_it():
    pairs = [(g([[1, 0, 0, 0, 8]]), g([[0, 0, 0, 1, 8]])),
             (g([[0], [1], [0], [0], [8]]), g([[0], [0], [0], [1], [8]])),
             (g([[8, 0, 0, 1, 0]]), g([[8, 1, 0, 0, 0]]))]
    models = models_for(pairs)
    toward = [m for m in models if any(rule[0] == "toward" and rule[1] == 8 for _, rule in m[2])]
    assert toward
    eq(apply_moves(g([[0, 0], [0, 8], [0, 0], [0, 0], [0, 1]]), toward[0]), [[0, 0], [0, 8], [0, 1], [0, 0], [0, 0]])
    assert apply_moves(g([[1, 0, 0]]), toward[0]) is None  # no anchor


def test_nothing_is_fitted_when_colours_appear_or_sizes_differ():
    x = g([[3, 0, 0]])
    assert fit_move_models([x], [g([[0, 0, 4]])]) == []  # a new colour: not a move
    assert fit_move_models([x], [g([[3, 0]])]) == []
    assert fit_move_models([x, x], [x, x]) == []


def test_the_search_falls_back_on_object_moves():
    train = [([[3, 0, 0, 0], [0, 0, 5, 0]], [[0, 0, 3, 0], [0, 0, 5, 0]]),
             ([[0, 0, 0, 0], [0, 3, 0, 0], [5, 0, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 3], [5, 0, 0, 0]])]
    task = make_task(train, [[[0, 3, 0, 0, 5], [3, 0, 0, 0, 0]]])
    right = [[0, 0, 0, 3, 5], [0, 0, 3, 0, 0]]
    assert any(f.outputs[0].tolist() == right for f in search(task, time_budget=2.0, max_depth=1)[:2])
    found = distinct(_run_views(_Search(task, 1.0, 0, 100), [], 1.0))  # depth 0: only what is learned
    moved = [f for f in found if format_program(f.program).startswith("move_objects{")]
    assert moved and moved[0].outputs[0].tolist() == right
