"""The DSL search: verified programs only, colour maps, size rules, real ARC tasks."""

import gc
import math

import numpy as np
import pytest

import arcsolve.dsl.search as search_module
from arcsolve.dsl.occam import fit_colours
from arcsolve.dsl.program import Step, format_program
from arcsolve.dsl.search import Found as _Found
from arcsolve.dsl.search import (
    SearchCounts,
    _run_views,
    _Search,
    distinct,
    search,
    size_rule,
    solve,
)
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Grid, Task

FAST = SolveConfig(time_budget=2.0)


def make_task(train, test_inputs, test_outputs=None) -> Task:
    outputs = test_outputs or [None] * len(test_inputs)
    return Task.model_validate({
        "id": "synthetic",
        "train": [{"input": i, "output": o} for i, o in train],
        "test": [{"input": i, "output": o} for i, o in zip(test_inputs, outputs, strict=True)],
    })


@pytest.fixture(scope="module")
def training() -> dict[str, Task]:
    return {t.id: t for t in load_tasks("arc1/training")}


def test_geometric_transform_then_colour_map_is_found_and_printed():
    train = [
        ([[1, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 2], [0, 0, 0], [0, 0, 0]]),
        ([[1, 1, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 2], [0, 0, 2], [0, 0, 0]]),
    ]
    task = make_task(train, [[[0, 0, 0], [1, 0, 0], [0, 0, 0]]])
    solution = solve(task, FAST)
    best = solution.candidates[0]
    assert best.verified and best.source == "dsl"
    assert best.grids == (Grid.from_numpy([[0, 2, 0], [0, 0, 0], [0, 0, 0]]),)
    assert best.detail in ("rot270 | recolor{1->2}", "transpose | flip_h | recolor{1->2}")
    assert "recolor{1->2}" in best.detail


def test_scale_factor_is_inferred_from_sizes():
    train = [([[1, 2]], [[1, 1, 1, 2, 2, 2], [1, 1, 1, 2, 2, 2]]), ([[3]], [[3, 3, 3], [3, 3, 3]])]
    found = search(make_task(train, [[[4, 5]]]), time_budget=2.0)
    assert format_program(found[0].program) == "upscale{2,3}"
    assert found[0].outputs[0].tolist() == [[4, 4, 4, 5, 5, 5], [4, 4, 4, 5, 5, 5]]


def test_split_and_overlay_with_colour():
    train = [
        ([[1, 0, 5, 1, 1], [1, 1, 5, 0, 1]], [[3, 0], [0, 3]]),
        ([[0, 1, 5, 1, 1], [0, 0, 5, 0, 0]], [[0, 3], [0, 0]]),
        ([[1, 1, 5, 0, 0], [1, 1, 5, 1, 1]], [[0, 0], [3, 3]]),
    ]
    found = search(make_task(train, [[[1, 1, 5, 1, 1], [1, 0, 5, 1, 1]]]), time_budget=2.0)
    assert found[0].outputs[0].tolist() == [[3, 3], [3, 0]]
    assert format_program(found[0].program).startswith("split_overlay{lines,and}")


def test_colour_map_fitted_pair_by_pair_is_not_applied_to_unseen_colours():
    train = [([[2, 0], [0, 4]], [[4, 0], [0, 0]]), ([[3, 0], [0, 6]], [[6, 0], [0, 0]])]
    found = search(make_task(train, [[[1, 0], [0, 8]]]), time_budget=0.5)
    assert not any("recolor" in format_program(f.program) for f in found if not f.view)
    general = [([[2, 0], [0, 4]], [[2, 5], [5, 4]]), ([[3, 0], [0, 6]], [[3, 5], [5, 6]])]
    found = search(make_task(general, [[[1, 0], [0, 8]]]), time_budget=0.5)
    assert format_program(found[0].program) == "recolor{0->5}"
    assert found[0].outputs[0].tolist() == [[1, 5], [5, 8]]


def test_colours_that_play_one_role_in_every_pair_are_found_ranked(monkeypatch):
    # erase the rarer colour: a different colour in each pair, so no fixed-colour program
    # holds, but with colours ranked it is colour 2 everywhere
    train = [([[1, 2, 1, 1], [2, 1, 1, 1]], [[1, 0, 1, 1], [0, 1, 1, 1]]),
             ([[3, 3, 6], [3, 6, 3], [3, 3, 3]], [[3, 3, 0], [3, 0, 3], [3, 3, 3]])]
    task = make_task(train, [[[4, 4, 4, 9], [9, 4, 4, 4]]])
    plain = _Search(task, 1.0, 0, 100)  # depth 0: only the identity, which does not verify
    ranked = _Search(task, 1.0, 2, 100, view="ranked")
    found = distinct(_run_views(plain, [ranked], 1.0))
    assert found[0].view == "ranked" and format_program(found[0].program) == "recolor{2->0}"
    assert found[0].outputs[0].tolist() == [[4, 4, 4, 0], [0, 4, 4, 4]]  # back in the task's colours
    monkeypatch.setattr("arcsolve.dsl.search.search", lambda task, budget, *limits: found)
    detail = solve(task, SolveConfig(time_budget=1.0)).candidates[0].detail
    assert detail == "colours ranked by frequency: recolor{2->0}"


def test_a_task_whose_inputs_rank_colours_alike_gets_no_ranked_view(monkeypatch):
    views = []
    monkeypatch.setattr("arcsolve.dsl.search._run_views",
                        lambda plain, others, budget: views.append([o.view for o in others]) or [])
    train = [([[0, 0, 0, 1, 1, 2]], [[2, 1, 1, 0, 0, 0]]),  # 1 the commoner colour in every input
             ([[1, 2, 1, 0, 0, 0]], [[1, 2, 1, 0, 0, 0]])]
    search(make_task(train, [[[0, 0, 0, 1, 1, 2]]]), time_budget=0.1)
    search(make_task(train, [[[0, 0, 0, 3, 3, 1]]]), time_budget=0.1)  # the test input ranks 3 first
    assert views == [[], ["ranked"]]


def test_a_task_drawn_on_another_background_gets_the_background_view(monkeypatch):
    views = []
    monkeypatch.setattr("arcsolve.dsl.search._run_views",
                        lambda plain, others, budget: views.append([o.view for o in others]) or [])
    on_seven = [([[7, 7, 2], [7, 7, 7]], [[2, 2, 2], [7, 7, 7]])]  # one background in every grid: ranked
    search(make_task(on_seven, [[[7, 2, 7], [7, 7, 7]]]), time_budget=0.1)  # renumbers them alike
    assert views == [["background"]]


def test_objects_on_a_background_that_is_not_zero_are_found_in_the_background_view():
    # fill each box's inside: the inside is the background (8, then 4) until it is swapped with 0
    train = [([[8, 8, 8, 8, 8], [8, 1, 1, 1, 8], [8, 1, 8, 1, 8], [8, 1, 1, 1, 8], [8, 8, 8, 8, 8]],
              [[8, 8, 8, 8, 8], [8, 1, 1, 1, 8], [8, 1, 3, 1, 8], [8, 1, 1, 1, 8], [8, 8, 8, 8, 8]]),
             ([[4, 4, 4, 4], [2, 2, 2, 4], [2, 4, 2, 4], [2, 2, 2, 4], [4, 4, 4, 4]],
              [[4, 4, 4, 4], [2, 2, 2, 4], [2, 3, 2, 4], [2, 2, 2, 4], [4, 4, 4, 4]])]
    test = [[6, 6, 6, 6, 6], [6, 6, 5, 5, 5], [6, 6, 5, 6, 5], [6, 6, 5, 5, 5], [6, 6, 6, 6, 6]]
    task = make_task(train, [test])
    plain = _Search(task, 1.0, 0, 100)  # depth 0, as in the ranked view's test
    background = _Search(task, 1.0, 2, 100, view="background")
    found = distinct(_run_views(plain, [background], 1.0))
    assert found[0].view == "background" and format_program(found[0].program) == "fill_enclosed{3}"
    assert found[0].outputs[0].tolist()[2] == [6, 6, 5, 3, 5]  # back on the test's own background


def test_views_share_step_results_and_the_memos_are_cleared_after_a_search(monkeypatch):
    from arcsolve.dsl.memo import _MEMOS
    from arcsolve.dsl.primitives.objects import objects

    views = []
    monkeypatch.setattr("arcsolve.dsl.search._run_views",
                        lambda plain, others, budget: views.append((plain, *others)) or [])
    objects(np.array([[1, 0, 2]], dtype=np.int8), "colour4")  # a memo filled before the search
    train = [([[1, 1, 2]], [[2, 1, 1]]), ([[1, 2, 1]], [[1, 2, 1]])]  # not 0: a background view too
    search(make_task(train, [[[3, 3, 1]]]), time_budget=0.1)
    plain, *others = views[0]
    assert [o.view for o in others] == ["ranked", "background"]
    assert all(o.apply is plain.apply for o in others)
    assert sum(c.cache_info().currsize for c in _MEMOS) == 0


def test_no_verified_program_gives_no_candidates():
    rng = np.random.default_rng(0)
    train = [(rng.integers(0, 10, (3, 3)).tolist(), rng.integers(0, 10, (2, 4)).tolist())
             for _ in range(3)]
    solution = solve(make_task(train, [[[1, 2], [3, 4]]]), SolveConfig(time_budget=0.5))
    assert solution.candidates == []


def test_candidates_have_distinct_predictions_simplest_first():
    train = [([[1, 2], [3, 4]], [[1, 2], [3, 4]])]  # identity: many programs verify
    found = search(make_task(train, [[[5, 6], [7, 8]]]), time_budget=1.0)
    assert format_program(found[0].program) == "identity"
    predictions = [f.outputs[0].tobytes() for f in found]
    assert len(predictions) == len(set(predictions))
    assert [f.length for f in found] == sorted(f.length for f in found)


def test_size_rule_allows_only_the_sizes_train_pairs_imply():
    a, b = np.zeros((2, 3)), np.zeros((4, 6))
    fits = size_rule([a, np.zeros((1, 1))], [b, np.zeros((2, 2))])
    assert fits((3, 3), (6, 6)) and not fits((3, 3), (3, 3))
    fits = size_rule([a, np.zeros((5, 5))], [np.zeros((1, 1)), np.zeros((1, 1))])
    assert fits((7, 7), (1, 1)) and not fits((1, 1), (2, 2))


def test_a_program_whose_test_size_breaks_the_train_pattern_is_kept_as_a_last_guess(monkeypatch):
    def framed(block, side=6):  # one object on an empty grid
        grid = np.zeros((side, side), dtype=int)
        grid[1 : 1 + len(block), 2 : 2 + len(block[0])] = block
        return grid.tolist()

    train = [(framed([[1, 2], [2, 1]]), [[1, 2], [2, 1]]), (framed([[3, 3], [0, 3]]), [[3, 3], [0, 3]])]
    big = [[4, 4, 4], [4, 0, 4], [4, 4, 4]]  # every train output is 2x2; this crop is 3x3
    found = search(make_task(train, [framed(big)], [big]), time_budget=2.0)
    sizes = [f.outputs[0].shape for f in found]
    assert (3, 3) in sizes  # the crop: kept although the train pattern says 2x2
    assert [f.sized for f in found] == [s == (2, 2) for s in sizes]
    assert [f.verified for f in found] == sorted((f.verified for f in found), reverse=True)  # verified first
    crop = found[sizes.index((3, 3))]
    assert format_program(crop.program) == "crop_bbox" and np.array_equal(crop.outputs[0], big)
    many = _Found((Step("rot90"), Step("rot90"), Step("rot90")), (np.zeros((2, 2), dtype=int),), length=3.0)
    unsized = _Found((Step("crop_bbox"),), (np.ones((3, 3), dtype=int),), length=1.0, sized=False)
    assert distinct([unsized, many]) == [many, unsized]
    monkeypatch.setattr("arcsolve.dsl.search.search", lambda task, budget, *limits: [many, unsized])
    sure, guess = solve(make_task(train, [framed(big)], [big]), FAST).candidates
    assert sure.verified and sure.detail == "rot90 | rot90 | rot90"
    assert not guess.verified and guess.detail == "crop_bbox (test size unlike the train outputs')"


def test_two_step_programs_are_found_before_the_second_level_is_expanded(monkeypatch):
    train = [
        ([[4, 4], [0, 8], [4, 0]], [[4, 4], [4, 4]]),
        ([[6, 9], [9, 0], [0, 9]], [[9, 9], [9, 9]]),
        ([[1, 6], [6, 0], [0, 6]], [[6, 6], [6, 6]]),
    ]
    expanded = []
    original = _Search.expand

    def expand(self, program, state, frontier):
        expanded.append(len(program))
        return original(self, program, state, frontier)

    monkeypatch.setattr(_Search, "expand", expand)
    found = search(make_task(train, [[[3, 7], [3, 0], [0, 3]]]), time_budget=60.0)
    assert found[0].outputs[0].tolist() == [[3, 3], [3, 3]]
    assert min(len(f.program) for f in found) == 2
    assert expanded == [0]  # only the input's state was expanded; depth 2 came from the lookahead


def test_states_closer_to_the_targets_come_first():
    train = [([[1, 0], [0, 0]], [[1, 1], [0, 0]]), ([[2, 2]], [[2, 2]])]
    searcher = _Search(make_task(train, [[[3, 0]]]), 1.0, 3, 100)
    near = (np.array([[1, 1], [0, 0]]), np.array([[2, 0]]), np.array([[3, 0]]))
    far = (np.array([[1, 0], [1, 1]]), np.array([[2, 2, 2]]), np.array([[3, 0]]))
    assert searcher.distance(near) == 0.5  # right on the first pair, half wrong on the second
    assert searcher.distance(far) == 0.75 + 1.0  # three cells of four wrong; a wrong size
    frontier = [("far", far), ("near", near)]
    frontier.sort(key=lambda item: searcher.distance(item[1]))
    assert [name for name, _ in frontier] == ["near", "far"]


@pytest.mark.parametrize("task_id", ["3c9b0459", "6150a2bd", "007bbfb7", "d037b0a7", "08ed6ac7", "4258a5f9",
                                     "5bd6f4ac", "a87f7484", "54d9e175", "75b8110e"])
def test_real_arc_tasks_are_solved(training, task_id):
    task = training[task_id]
    solution = solve(task, FAST)
    assert solution.candidates, f"{task_id}: nothing verified"
    assert solution.candidates[0].grids == tuple(p.output for p in task.test)


@pytest.mark.parametrize(("task_id", "step"), [
    ("d0f5fe59", "count_objects"),  # as many cells on a diagonal as there are objects
    ("beb8660c", "sort_lines"),  # bars stacked by length
    ("2204b7a8", "paint_nearest"),  # cells take the colour of the nearer of two lines
    ("41e4d17e", "centre_lines"),  # lines through each square's middle
    ("d13f3404", "pad"),  # the input on a canvas twice its size, trailing down-right
    ("447fd412", "complete_scaled_copies"),  # a template completed around its parts scaled up
    ("6aa20dc0", "complete_scaled_copies"),  # the same, turned and mirrored
    ("63613498", "recolour_like"),  # the shape in the corner marks its look-alikes
    ("776ffc46", "recolour_like"),  # the shape in the box lends its colour to its look-alikes
    ("8e5a5113", "arrange_blocks"),  # two blocks become the first one turned
])
def test_general_steps_solve_real_tasks_clock_free(training, task_id, step):
    task = training[task_id]
    solution = solve(task, SolveConfig(time_budget=math.inf), 2, 2000)  # clock-free: 2000 states a view
    assert solution.candidates and solution.candidates[0].verified, f"{task_id}: nothing verified"
    assert step in solution.candidates[0].detail
    assert solution.candidates[0].grids == tuple(p.output for p in task.test)


def test_step_cache_answers_a_repeated_question_without_running_the_step(monkeypatch):
    from arcsolve.dsl import program

    calls = []
    original = program.apply_step

    def counted(step, grid):
        calls.append(step)
        return original(step, grid)

    monkeypatch.setattr(program, "apply_step", counted)
    cache = program.StepCache(maxsize=1)
    grid = np.array([[1, 2], [3, 4]], dtype=np.int8)
    first = cache(program.Step("rot180"), grid)
    again = cache(program.Step("rot180"), grid.copy())
    assert first is again and again.tolist() == [[4, 3], [2, 1]]
    assert cache(program.Step("flip_h"), grid).tolist() == [[2, 1], [4, 3]]
    cache(program.Step("flip_h"), grid)  # over maxsize: computed, not kept
    assert len(calls) == 3 and len(cache.results) == 1


def test_last_steps_are_tried_on_the_smallest_train_input_first(monkeypatch):
    train = [([[1, 0, 0], [0, 0, 0]], [[0, 0, 1], [0, 0, 0]]), ([[2]], [[2]])]
    searcher = _Search(make_task(train, [[[3, 0]]]), 1.0, 3, 100)
    asked = []
    original = searcher.apply

    def apply(step, grid, grid_key=None):
        asked.append(grid.shape)
        return original(step, grid, grid_key)

    monkeypatch.setattr(searcher, "apply", apply)
    searcher.finish((), tuple(searcher.train_in + searcher.test_in))
    assert searcher.order == [1, 0] and asked[0] == (1, 1)
    assert "flip_h" in [format_program(f.program) for f in searcher.found]


def test_colour_table_is_extended_only_consistently():
    table = np.full(10, -1, dtype=np.int8)
    assert fit_colours(table, np.array([[1, 2], [1, 0]]), np.array([[3, 2], [3, 0]]))
    assert table[:4].tolist() == [0, 3, 2, -1]
    assert not fit_colours(table.copy(), np.array([[1]]), np.array([[4]]))  # 1 is already 3
    assert not fit_colours(table.copy(), np.array([[5, 5]]), np.array([[6, 7]]))  # 5 -> 6 and 7
    assert fit_colours(table, np.array([[5, 1]]), np.array([[6, 3]])) and table[5] == 6


def test_the_garbage_collector_leaves_older_objects_alone_during_a_search(monkeypatch):
    seen = []
    run_views = search_module._run_views

    def recording(*args):
        seen.append(gc.get_freeze_count())
        return run_views(*args)

    monkeypatch.setattr(search_module, "_run_views", recording)
    task = make_task([([[1, 0]], [[0, 1]])], [[[2, 0]]])
    assert gc.get_freeze_count() == 0
    older = [object() for _ in range(10)]
    search(task, time_budget=0.5)
    assert seen[-1] >= len(older)  # frozen while the search ran
    assert gc.get_freeze_count() == 0  # and handed back
    gc.freeze()  # a caller's own freeze is kept as it is
    try:
        frozen = gc.get_freeze_count()
        search(task, time_budget=0.5)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_the_search_counts_the_states_it_reached_and_the_steps_it_tried():
    task = make_task([([[1, 2], [3, 4]], [[4, 3], [2, 1]]), ([[5, 0], [0, 6]], [[6, 0], [0, 5]])], [[[7, 8], [9, 1]]])
    counts = SearchCounts()
    found = search(task, time_budget=math.inf, max_depth=2, max_states=50, counts=counts)
    assert found and found[0].verified
    assert counts.states >= 2  # the inputs, and what a step made of them
    assert counts.steps >= counts.states - 1  # every new state took a step
    once = (counts.states, counts.steps)
    search(task, time_budget=math.inf, max_depth=2, max_states=50, counts=counts)
    assert (counts.states, counts.steps) == (2 * once[0], 2 * once[1])  # the same search, added again
    solve(task, SolveConfig(time_budget=math.inf), 2, 50, counts)
    assert (counts.states, counts.steps) == (3 * once[0], 3 * once[1])


def test_steps_infer_each_kind_of_parameter_when_its_turn_comes(monkeypatch):
    """A state's steps come one by one, and the parameters of a kind are inferred only when
    the first primitive of that kind is reached: a search that stops at its deadline after
    a few steps has not paid for the inference of all the others."""
    counted: list[str] = []
    monkeypatch.setattr(search_module, "PARAMS", {
        kind: (lambda *a, kind=kind, infer=infer: counted.append(kind) or infer(*a))
        for kind, infer in search_module.PARAMS.items()})
    task = make_task([([[1, 0], [0, 2]], [[0, 1], [2, 0]]), ([[3, 3], [0, 0]], [[3, 3], [0, 0]])], [[[5, 0], [0, 0]]])
    searched = _Search(task, math.inf, 2, 100)
    state = tuple(searched.train_in + searched.test_in)
    steps = searched.steps(state, last=False)
    first = next(steps)
    assert counted == [search_module.PRIMITIVES[first.name].params]  # one kind so far
    rest = list(steps)
    assert len(set(counted)) == len(counted) > 5  # each kind once, when its turn came
    assert [first, *rest] == list(searched.steps(state, last=False))  # the same steps, in the same order
