"""Tests of the picking family: parts, the criteria that pick one, crops and colours of the
picked part, and the parameter inference that keeps only the choices fitting the targets."""

import pytest

from arcsolve.dsl.families.picking import choices, parts, pick_colour, pick_crop
from arcsolve.dsl.params import PARAMS, task_facts
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import search
from arcsolve.loaders import load_tasks
from tests.grids import eq, g

# Parts by first cell: a 2x3 block of 1s, an L of 2s, a diagonal of 5s, a bar of 5s.
X = g([[1, 1, 1, 0, 0, 0],
       [1, 1, 1, 0, 2, 0],
       [0, 0, 0, 0, 2, 2],
       [5, 0, 0, 0, 0, 0],
       [0, 5, 0, 5, 5, 0]])

# Three bars of 3s and one L of 4s (4 is the rarer colour).
Y = g([[3, 3, 0, 4, 0],
       [0, 0, 0, 4, 4],
       [3, 3, 0, 0, 0],
       [0, 0, 0, 3, 3]])


def test_parts_measure_boxes_and_colours():
    p = parts(X, "multi8")
    assert p.top.tolist() == [0, 1, 3, 4] and p.left.tolist() == [0, 4, 0, 3]
    assert p.height.tolist() == [2, 2, 2, 1] and p.width.tolist() == [3, 2, 2, 2]
    assert p.size.tolist() == [6, 3, 2, 2]
    colours = parts(Y, "colours")  # every cell of a colour is one part, however scattered
    assert colours.size.tolist() == [6, 3]
    assert (colours.height.tolist(), colours.width.tolist()) == ([4, 2], [5, 2])
    assert colours.counts[:, [3, 4]].tolist() == [[6, 0], [0, 3]]


def test_choices_rank_by_measures():
    # sizes 6,3,2,2; box areas 6,4,4,2; densities 1,.75,.5,1; colour 2 is the rarest
    assert dict(choices(X, "multi8")) == {
        "largest": 0, "biggest_box": 0, "smallest_box": 3, "sparsest": 2, "most_minority": 1,
    }  # ties (smallest, densest, least_minority) and no odd one out pick nothing


def test_choices_find_the_odd_one_out():
    assert dict(choices(Y, "colour4")) == {
        "unique_size": 1, "rectangle": 1, "common_shape": 0,  # the L; one of the three bars
        "largest": 1, "biggest_box": 1, "sparsest": 1, "most_minority": 1,
    }
    assert dict(choices(g([[0, 7], [7, 7]]), "multi8")) == {}  # one part: nothing to choose from


def test_pick_crop():
    eq(pick_crop(X, "multi8", "sparsest"), [[5, 0], [0, 5]])
    eq(pick_crop(Y, "colours", "smallest"), [[4, 0], [4, 4]])
    eq(pick_crop(Y, "colours", "largest"), Y)  # the box keeps whatever else lies in it
    assert pick_crop(X, "multi8", "smallest") is None  # two parts of 2 cells tie


def test_pick_colour():
    eq(pick_colour(Y, "colour4", "unique_size", 1, 1), [[4]])
    eq(pick_colour(X, "multi8", "largest", 2, 3), [[1, 1, 1], [1, 1, 1]])
    assert pick_colour(g([[1, 2, 0, 3]]), "multi8", "largest", 1, 1) is None  # 1 and 2 tie in it


def test_crop_params_give_the_targets_shape_and_skip_crop_object():
    target = g([[4, 0], [4, 4]])
    found = PARAMS["pick_crop"]([Y], [target], task_facts([Y], [target]))
    assert found == [
        ("multi8", "unique_size"), ("colour4", "unique_size"),
        ("multi8", "rectangle"), ("colour4", "rectangle"),
        ("colours", "smallest"),  # (multi8 and colour4 'largest' are crop_object's)
        ("multi8", "biggest_box"), ("colour4", "biggest_box"),
        ("colours", "smallest_box"), ("colours", "densest"),
        ("multi8", "sparsest"), ("colour4", "sparsest"),
        ("multi8", "most_minority"), ("colour4", "most_minority"), ("colours", "most_minority"),
    ]
    assert all(pick_crop(Y, *params).shape == (2, 2) for params in found)
    assert PARAMS["pick_crop"]([Y], [Y], task_facts([Y], [Y])) == []  # same size: no crop


def test_colour_params_need_one_colour_per_target():
    targets = [g([[4, 4]]), g([[1, 1]])]
    found = PARAMS["pick_colour"]([Y, X], targets, task_facts([Y, X], targets))
    assert ("multi8", "largest", 1, 2) in found and ("colour4", "biggest_box", 1, 2) in found
    assert ("multi8", "smallest_box", 1, 2) not in found  # a 3 in Y
    assert all(pick_colour(Y, *params)[0, 0] == 4 for params in found)
    mixed = [g([[4, 3]]), g([[1, 1]])]
    assert PARAMS["pick_colour"]([Y, X], mixed, task_facts([Y, X], mixed)) == []


@pytest.mark.parametrize("task_id, program", [
    ("b9b7f026", "pick_colour{colour4,rectangle,1,1}"),  # the colour of the one shape with a hole
    ("445eab21", "pick_colour{colour4,biggest_box,2,2}"),  # the colour of the biggest frame
    ("358ba94e", "pick_crop{multi8,unique_size}"),  # the one square with a different number of holes
])
def test_search_solves_arc_tasks_by_picking(task_id, program):
    [task] = load_tasks(task_id)
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == program
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]
