"""Stamps at any reach (`arcsolve.dsl.learned.stamping`): learned around cells and objects, with the
smallest reach that rebuilds the train outputs, answering for new places and new colours."""

from __future__ import annotations

import numpy as np

from arcsolve.dsl import registry as P
from arcsolve.dsl import search as search_module
from arcsolve.dsl.learned.cell_tables import fit_tables
from arcsolve.dsl.learned.stamping import apply_stamps, fit_stamp_models
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import LEARNERS, _run_views, _Search, distinct, search
from tests.dsl.test_dsl_search import make_task
from tests.grids import eq

CROSS = ((-2, 0, 4), (2, 0, 4), (0, -2, 4), (0, 2, 4))  # each 2 gets a 4 two cells away on each side


def stamped(cells: list[tuple[int, int, int]], shape=(9, 9), stamp=CROSS, own=False) -> tuple[np.ndarray, np.ndarray]:
    """A grid with the given (row, column, colour) cells, and the same grid with every cell's stamp."""
    x = np.zeros(shape, dtype=np.int8)
    for r, c, colour in cells:
        x[r, c] = colour
    y = x.copy()
    for r, c, colour in cells:
        for dy, dx, paint in stamp:
            if 0 <= r + dy < shape[0] and 0 <= c + dx < shape[1]:
                y[r + dy, c + dx] = colour if own else paint
    return x, y


def test_stamp_around():
    pairs = [stamped([(2, 2, 2), (6, 5, 2)]), stamped([(4, 4, 2)]), stamped([(1, 6, 2), (6, 1, 2)])]
    models = fit_stamp_models([x for x, _ in pairs], [y for _, y in pairs])
    assert models and models[0][:2] == ("cell_bg", 2)  # the smallest reach that rebuilds the outputs
    x, y = stamped([(3, 3, 2), (7, 7, 2)])
    eq(P.stamp_around(x, models[0]), y)
    assert P.stamp_around(stamped([(3, 3, 5)])[0], models[0]) is None  # a colour the train pairs never showed


def test_a_stamp_of_the_sources_own_colour_serves_a_new_colour():
    shadow = ((0, 2, 0),)  # every cell casts its own colour two cells to the right
    pairs = [stamped([(1, 1, 2), (5, 3, 3)], stamp=shadow, own=True), stamped([(4, 0, 3), (2, 5, 2)], stamp=shadow,
                                                                               own=True)]
    models = fit_stamp_models([x for x, _ in pairs], [y for _, y in pairs])
    x, y = stamped([(3, 2, 7)], stamp=shadow, own=True)
    answers = [apply_stamps(x, m) for m in models]
    assert any(a is not None and np.array_equal(a, y) for a in answers)
    assert all(a is None or np.array_equal(a, y) for a in answers)  # the others abstain


def test_stamps_that_disagree_on_a_cell_give_no_answer():
    pairs = [stamped([(2, 2, 2)]), stamped([(5, 5, 2)])]
    (model, *_) = fit_stamp_models([x for x, _ in pairs], [y for _, y in pairs])
    blocked = stamped([(2, 2, 2), (2, 6, 2)])[0]  # both stamp (2, 4), which is fine: both paint 4
    assert apply_stamps(blocked, model) is not None
    kind, reach, entries = model
    clash = (kind, reach, ((2, ((0, 2, 4, True, False), (0, -2, 5, True, False))),))
    assert apply_stamps(blocked, clash) is None  # one paints 4, the other 5, on (2, 4)


def test_no_stamp_is_fitted_without_a_change_or_across_sizes():
    x, _ = stamped([(2, 2, 2)])
    assert fit_stamp_models([x, x], [x, x]) == []
    assert fit_stamp_models([x], [x[:3]]) == []


def test_the_search_falls_back_on_stamps():
    pairs = [stamped([(2, 2, 2), (6, 5, 2)]), stamped([(4, 4, 2)])]
    x, y = stamped([(3, 3, 2), (7, 7, 2)])
    task = make_task([(a.tolist(), b.tolist()) for a, b in pairs], [x.tolist()])
    found = search(task, time_budget=2.0, max_depth=1)  # searched in a blink: the time left is for the stamps
    assert any(f.outputs[0].tolist() == y.tolist() for f in found[:2])
    every = _run_views(_Search(task, 2.0, 1, 100), [], 2.0)  # before `distinct`: a table may give the same answer
    assert any("stamp_around{" in format_program(f.program) and f.outputs[0].tolist() == y.tolist() for f in every)


def test_stamps_and_moves_are_fitted_before_the_deeper_search_once_even_if_the_first_passes_run_long(monkeypatch):
    pairs = [stamped([(2, 2, 2), (6, 5, 2)]), stamped([(4, 4, 2)])]
    x, y = stamped([(3, 3, 2), (7, 7, 2)])
    task = make_task([(a.tolist(), b.tolist()) for a, b in pairs], [x.tolist()])
    calls, fits, finished, tables = [], [], [], []
    learn, finish = _Search.learn, _Search.finish

    def spy(self, only=LEARNERS, deadline=None):
        calls.append((only, deadline is not None, len(finished)))
        learn(self, only, deadline)

    def counted(*args, **kwargs):
        fits.append(1)
        return fit_stamp_models(*args, **kwargs)

    def finishing(self, program, state):
        finished.append(program)
        return finish(self, program, state)

    monkeypatch.setattr(_Search, "learn", spy)
    monkeypatch.setattr(_Search, "finish", finishing)

    def tabled(grids, targets, deadline=None):
        tables.append(all(np.array_equal(g, a) for g, (a, _) in zip(grids, pairs, strict=True)))
        return fit_tables(grids, targets, deadline)

    monkeypatch.setattr(search_module, "fit_stamp_models", counted)
    monkeypatch.setattr(search_module, "fit_tables", tabled)
    found = distinct(_run_views(_Search(task, 20.0, 2, 100), [], 20.0))
    early = [(("cell_table",), True), (("stamp_around",), True), (("move_objects",), True)]
    assert [c[:2] for c in calls[:4]] == [*early, (("cell_table",), False)]
    assert calls[0][2] > 0  # after the first passes, which ended in a blink
    assert len(fits) == 1  # stamps fitted to the end before the deeper search are not fitted again at the end
    assert tables.count(True) == 1  # and likewise the tables on the inputs
    assert any(f.outputs[0].tolist() == y.tolist() for f in found[:2])
    calls.clear()
    finished.clear()
    monkeypatch.setattr(search_module, "EARLY_AT", 0.0)  # the first passes run long: the learners go mid-pass
    _run_views(_Search(task, 20.0, 2, 100), [], 20.0)
    assert [c[:3] for c in calls[:3]] == [(("cell_table",), True, 0), (("stamp_around",), True, 0),
                                          (("move_objects",), True, 0)]


def test_the_search_stops_once_no_program_left_can_be_shorter_than_a_learned_answer(monkeypatch):
    pairs = [stamped([(2, 2, 2), (6, 5, 2)]), stamped([(4, 4, 2)])]
    x, y = stamped([(3, 3, 2), (7, 7, 2)])
    task = make_task([(a.tolist(), b.tolist()) for a, b in pairs], [x.tolist()])
    finished, finish = [], _Search.finish

    def finishing(self, program, state):
        finished.append(len(program))
        return finish(self, program, state)

    monkeypatch.setattr(_Search, "finish", finishing)
    found = distinct(_run_views(_Search(task, float("inf"), 3, 100), [], float("inf")))
    assert "stamp_around{" in format_program(found[0].program) and found[0].length < 3  # one source: 1.5
    assert found[0].outputs[0].tolist() == y.tolist()
    assert 1 in finished and 2 not in finished  # programs of 2 steps are searched, of 3 (from 2) are not
    finished.clear()
    monkeypatch.setattr(search_module, "MIN_STEP_COST", 0.4)  # were a step this cheap, 3 steps could be shorter
    _run_views(_Search(task, float("inf"), 3, 100), [], float("inf"))
    assert 2 in finished
