"""Colour views: each pair's colours renumbered by a permutation of its input's, and answers
mapped back to the task's own colours."""

import numpy as np

from arcsolve.colour_views import background_colours, most_frequent_colour, ranked_colours, viewed, views_for
from arcsolve.tasks import Grid
from tests.grids import rows_task


def test_ranked_colours_renumber_by_frequency():
    perm = ranked_colours(np.array([[7, 7, 7], [3, 3, 0], [9, 0, 0]]))
    assert perm[[0, 7, 3, 9]].tolist() == [0, 1, 2, 3]
    assert sorted(perm.tolist()) == list(range(10))  # a permutation, so it can be undone
    assert perm[[4, 5, 6, 8]].tolist() == [4, 5, 6, 8]  # missing colours keep free numbers
    assert perm[[1, 2]].tolist() == [7, 9]  # and take the numbers left when theirs are taken


def test_ranked_colours_break_ties_by_reading_order_not_by_colour_number():
    grid = np.array([[0, 8, 0], [2, 2, 8], [6, 0, 0]])  # 8 and 2 twice each; 8 met first
    assert ranked_colours(grid)[[0, 8, 2, 6]].tolist() == [0, 1, 2, 3]
    rng = np.random.default_rng(0)
    for _ in range(20):  # renaming the non-zero colours renames nothing in the view
        grid = rng.choice([0, 0, 1, 2, 3, 4], size=(4, 5))
        names = np.concatenate([[0], rng.permutation(np.arange(1, 10))])
        renamed = names[grid]
        assert np.array_equal(ranked_colours(grid)[grid], ranked_colours(renamed)[renamed])


def test_background_colours_swap_the_most_frequent_colour_with_zero():
    perm = background_colours(np.array([[5, 5, 5], [5, 2, 0]], dtype=np.int8))
    assert perm[[0, 5, 2]].tolist() == [5, 0, 2]
    assert sorted(perm.tolist()) == list(range(10))
    assert background_colours(np.array([[0, 0, 3]])).tolist() == list(range(10))


def test_most_frequent_colour_breaks_ties_by_zero_then_reading_order():
    assert most_frequent_colour(np.array([[7, 3], [3, 7]])) == 7  # 7 met first, though 3 is smaller
    assert most_frequent_colour(np.array([[7, 0], [0, 7]])) == 0  # 0, ARC's usual background, first
    assert most_frequent_colour(np.array([[5, 5, 2], [2, 0, 5]])) == 5  # no tie
    assert most_frequent_colour(np.array([[3, 1], [1, 3]], dtype=np.int8)) == 3
    rng = np.random.default_rng(0)
    for _ in range(20):  # renaming the non-zero colours renames the choice with them
        grid = rng.choice([0, 1, 2, 3, 4], size=(4, 5))
        names = np.concatenate([[0], rng.permutation(np.arange(1, 10))])
        assert most_frequent_colour(names[grid]) == names[most_frequent_colour(grid)]


def test_a_viewed_task_renumbers_each_pair_by_its_own_input():
    task = rows_task([([[7, 7, 3]], [[3, 0, 0]]), ([[2, 5, 5]], [[2, 0, 0]])], [[[4, 9, 9]]])
    seen = viewed(task, "ranked")
    assert [p.input.to_list() for p in seen.task.train] == [[[1, 1, 2]], [[2, 1, 1]]]
    assert [p.output.to_list() for p in seen.task.train] == [[[2, 0, 0]], [[2, 0, 0]]]  # the rarer colour in both
    assert seen.task.test[0].input.to_list() == [[2, 1, 1]] and seen.task.test[0].output is None
    assert seen.task.id == task.id and seen.view.label == "colours ranked by frequency"


def test_an_answer_in_a_view_is_mapped_back_by_its_test_inputs_permutation():
    task = rows_task([([[7, 7, 3]], [[3, 0, 0]])], [[[4, 9, 9]], [[6, 6, 1]]])
    seen = viewed(task, "ranked")
    answers = [Grid.from_numpy(np.array([[2, 0, 0]])), Grid.from_numpy(np.array([[2, 1, 0]]))]
    assert [g.to_list() for g in seen.original(answers)] == [[[4, 0, 0]], [[1, 6, 0]]]


def test_a_view_is_offered_only_where_it_renumbers_the_grids_its_own_way():
    alike = [np.array([[0, 0, 1, 1, 2]]), np.array([[1, 1, 2, 0, 0]])]  # ranked alike, 0 kept: nothing new
    assert views_for(alike) == []
    assert views_for([np.array([[0, 0, 1, 1, 2]]), np.array([[0, 3, 3, 1, 0]])]) == ["ranked"]
    on_five = [np.array([[5, 5, 5, 1]]), np.array([[5, 5, 5, 2]])]  # a background of 5: both views move it
    assert views_for(on_five) == ["ranked", "background"]
