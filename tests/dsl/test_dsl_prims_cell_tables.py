"""Cell tables (`arcsolve.dsl.learned.cell_tables`): fitted on train pairs, answering for new colours."""

from __future__ import annotations

import itertools

import numpy as np
from scipy import ndimage

from arcsolve.dsl import registry as P
from arcsolve.dsl.learned.cell_tables import (
    _NONE,
    FIRST_PAINT,
    LOOKS,
    MAX_FEATURES,
    MAX_TABLES,
    _answers,
    _first_seen,
    _first_seen_diagonal,
    _grid_colours,
    _inside,
    _line_side,
    _nearest,
    _neighbours,
    _object_colours,
    features,
    fit_table,
    fit_tables,
)
from arcsolve.dsl.program import format_program
from arcsolve.dsl.search import _run_views, _Search, distinct, search
from arcsolve.loaders import load_tasks
from tests.dsl.test_dsl_search import make_task
from tests.grids import eq, g

# Fill the gap between two cells of one colour on a row with that colour.
BRIDGE_IN = [g([[0, 2, 0, 0, 2, 0], [0, 0, 0, 0, 0, 0], [3, 0, 3, 0, 0, 0]]),
             g([[4, 0, 0, 4], [0, 0, 0, 0]])]
BRIDGE_OUT = [g([[0, 2, 2, 2, 2, 0], [0, 0, 0, 0, 0, 0], [3, 3, 3, 0, 0, 0]]),
              g([[4, 4, 4, 4], [0, 0, 0, 0]])]


def _brute_first_seen(x: np.ndarray, steps=((0, 1), (0, -1), (1, 0), (-1, 0))) -> np.ndarray:
    out = np.full((len(steps), *x.shape), 10)
    for y in range(x.shape[0]):
        for z in range(x.shape[1]):
            for k, (dy, dx) in enumerate(steps):  # by default right, left, down, up
                a, b = y + dy, z + dx
                while 0 <= a < x.shape[0] and 0 <= b < x.shape[1]:
                    if x[a, b]:
                        out[k, y, z] = x[a, b]
                        break
                    a, b = a + dy, b + dx
    return out


def test_first_seen_matches_a_walk_from_each_cell():
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = (rng.integers(0, 4, rng.integers(1, 7, 2)) * (rng.random() < 0.9)).astype(np.int8)
        assert np.array_equal(_first_seen(x), _brute_first_seen(x))
        diagonals = ((-1, -1), (-1, 1), (1, -1), (1, 1))
        walked = _brute_first_seen(x, diagonals)
        for k, (dy, dx) in enumerate(diagonals):
            assert np.array_equal(_first_seen_diagonal(x, dy, dx), walked[k])


def test_features_stay_below_the_key_base():
    x = np.arange(30 * 30).reshape(30, 30) % 10
    assert all(int(v.max()) < 16 and int(v.min()) >= 0 for v in features(x.astype(np.int8)).values())


def test_cell_table():
    tables = fit_tables(BRIDGE_IN, BRIDGE_OUT)
    assert tables and all(len(names) <= 2 for names, _, _ in tables)
    for table in tables:
        for x, y in zip(BRIDGE_IN, BRIDGE_OUT, strict=True):
            eq(P.cell_table(x, table), y)
    table = tables[0]
    # a colour no train pair had: the table takes the colour seen on both sides, not a fixed one
    eq(P.cell_table(g([[7, 0, 0, 7, 0]]), table), [[7, 7, 7, 7, 0]])
    assert "between_h" in LOOKS


def test_a_cell_table_gives_no_answer_for_an_unseen_key():
    tables = fit_tables([g([[0, 0], [0, 0]])], [g([[1, 1], [1, 1]])])  # only zero cells, painted 1
    assert tables[0] == ((), (0,), (FIRST_PAINT + 1,))  # no feature needed: one key, one answer
    zeros_only = (("zero",), (1,), (FIRST_PAINT + 1,))  # the zero cells are painted 1; no other cell was seen
    eq(P.cell_table(g([[0, 0]]), zeros_only), [[1, 1]])
    assert P.cell_table(g([[5, 0]]), zeros_only) is None
    takes_left = (("zero",), (0, 1), (0, 1 + LOOKS.index("left")))  # keep colours, zeros take the left one
    eq(P.cell_table(g([[3, 0, 0]]), takes_left), [[3, 3, 3]])
    assert P.cell_table(g([[0, 3]]), takes_left) is None  # nothing to its left: no colour to take


def test_no_table_when_one_key_needs_two_answers():
    # the same cell, twice, must become 1 once and 2 once
    assert fit_tables([g([[0]]), g([[0]])], [g([[1]]), g([[2]])]) == []
    assert fit_tables([g([[0, 0]])], [g([[0]])]) == []  # the sizes differ


def _fit_tables_one_by_one(grids, targets):
    """`fit_tables` written plainly: each combination of features in turn, on every cell."""
    answers = np.concatenate([_answers(x, y) for x, y in zip(grids, targets, strict=True)]).tolist()
    names = list(features(grids[0]))
    cells = [tuple(int(features(x)[n].flat[i]) for n in names) for x in grids for i in range(x.size)]
    tables = []
    for k in range(MAX_FEATURES + 1):
        for combo in itertools.combinations(range(len(names)), k):
            common = {}
            for cell, answer in zip(cells, answers, strict=True):
                key = sum(cell[f] * 16 ** (k - 1 - j) for j, f in enumerate(combo))
                common[key] = common.get(key, -1) & answer
            if all(common.values()):
                keys = sorted(common)
                lowest = [(common[key] & -common[key]).bit_length() - 1 for key in keys]
                tables.append((tuple(names[f] for f in combo), tuple(keys), tuple(lowest)))
                if len(tables) == MAX_TABLES:
                    return tables
        if tables:
            return tables
    return tables


def test_fit_tables_finds_what_trying_each_combination_on_every_cell_finds():
    # large grids, so that combinations are screened on samples of the cells first
    rng = np.random.default_rng(5)
    names = list(features(g([[0]])))
    found = 0
    for trial in range(12):
        grids = []
        for _ in range(3):
            x = rng.integers(1, 5, rng.integers(8, 21, 2)).astype(np.int8)
            x[rng.random(x.shape) < 0.6] = 0
            grids.append(x)
        if trial % 3 == 0:  # no table: random colours
            targets = [rng.integers(0, 5, x.shape).astype(np.int8) for x in grids]
        else:  # a random table over two random features: keep the colour or paint one
            f1, f2 = rng.choice(len(names), 2, replace=False)
            rule = rng.integers(-1, 10, 256)  # per key: -1 keeps the colour, else paints one
            targets = []
            for x in grids:
                paint = rule[features(x)[names[f1]] * 16 + features(x)[names[f2]]]
                targets.append(np.where(paint < 0, x, paint).astype(np.int8))
        expected = _fit_tables_one_by_one(grids, targets)
        assert fit_tables(grids, targets) == expected
        found += bool(expected)
    assert found >= 6


def test_a_table_fitted_again_on_fewer_pairs_is_the_one_fit_tables_gives():
    tables = fit_tables(BRIDGE_IN, BRIDGE_OUT)
    for names, _, _ in tables:
        assert fit_table(BRIDGE_IN, BRIDGE_OUT, names) in tables
        assert fit_table(BRIDGE_IN[:1], BRIDGE_OUT[:1], names) is not None
    painted = fit_tables([g([[0, 0], [0, 0]])], [g([[1, 1], [1, 1]])])[0]  # a table of no feature
    assert fit_table([g([[0, 0]])], [g([[1, 1]])], ()) == painted
    assert fit_table([g([[0]]), g([[0]])], [g([[1]]), g([[2]])], ()) is None


def test_the_search_falls_back_on_a_cell_table():
    task = make_task([(x.tolist(), y.tolist()) for x, y in zip(BRIDGE_IN, BRIDGE_OUT, strict=True)],
                     [[[0, 6, 0, 0, 6], [8, 0, 8, 0, 0]]])
    found = distinct(_run_views(_Search(task, 1.0, 0, 100), [], 1.0))  # depth 0: no primitive but the table
    assert format_program(found[0].program).startswith("cell_table{")
    assert found[0].outputs[0].tolist() == [[0, 6, 6, 6, 6], [8, 8, 8, 0, 0]]
    assert search(task, time_budget=1.0)[0].outputs[0].tolist() == [[0, 6, 6, 6, 6], [8, 8, 8, 0, 0]]


def test_object_colours_name_the_main_and_the_marker_colour_of_many_coloured_objects():
    x = g([[1, 1, 2, 0, 0], [1, 0, 0, 0, 3], [0, 0, 0, 0, 3]])
    main, marker = _object_colours(x)
    assert main[0, :3].tolist() == [1, 1, 1] and marker[0, :3].tolist() == [2, 2, 2]
    assert main[1, 4] == marker[1, 4] == _NONE  # one colour: neither
    assert main[2, 0] == _NONE  # the background


def test_object_features_flag_the_one_largest_and_smallest_object():
    x = g([[1, 1, 1, 0], [0, 0, 0, 0], [2, 0, 3, 3]])
    feats = features(x)
    assert feats["largest"][0].tolist() == [1, 1, 1, 0] and feats["largest"][2].sum() == 0
    assert feats["smallest"][2].tolist() == [1, 0, 0, 0]
    tie = features(g([[1, 0, 2]]))
    assert tie["largest"].sum() == tie["smallest"].sum() == 0  # two of one size: neither


def test_a_table_completes_a_grid_from_its_mirror_image():
    # the holes (0) of a left-right symmetric picture take the colour of their mirror cell
    train_in = [g([[1, 2, 0, 1], [3, 0, 0, 3]]), g([[4, 0, 5, 4], [0, 6, 6, 0], [4, 4, 4, 0]])]
    train_out = [g([[1, 2, 2, 1], [3, 0, 0, 3]]), g([[4, 5, 5, 4], [0, 6, 6, 0], [4, 4, 4, 4]])]
    tables = fit_tables(train_in, train_out)
    assert tables
    eq(P.cell_table(g([[7, 0, 8, 0], [0, 9, 0, 0]]), tables[0]), [[7, 8, 8, 7], [0, 9, 9, 0]])


def test_where_the_sizes_change_tables_are_fitted_on_states_of_the_target_size():
    # each row twice as long (a state of the search), then the gaps closed in the row's colour
    train = [([[3, 0, 3]], [[3, 3, 3, 3, 3, 3]]), ([[4, 0, 4], [0, 0, 0]], [[4, 4, 4, 4, 4, 4], [0] * 6])]
    task = make_task(train, [[[6, 0, 6], [7, 0, 7]]])
    found = _run_views(_Search(task, 2.0, 2, 1000), [], 2.0)  # every program, before `distinct`
    tables = [f for f in found if "cell_table{" in format_program(f.program)]
    assert tables and all(len(f.program) == 2 for f in tables)  # a step to the target size, then a table
    assert tables[0].outputs[0].tolist() == [[6] * 6, [7] * 6]


def test_a_verified_table_does_not_stop_the_overlays_a_verified_program_does(monkeypatch):
    composed = []
    monkeypatch.setattr(_Search, "compose", lambda self: composed.append(self))
    task = make_task([(x.tolist(), y.tolist()) for x, y in zip(BRIDGE_IN, BRIDGE_OUT, strict=True)],
                     [[[0, 6, 0, 0, 6], [8, 0, 8, 0, 0]]])
    found = _run_views(_Search(task, 1.0, 0, 100), [], 1.0)  # depth 0: only a table verifies
    assert any(f.program[0].name == "cell_table" for f in found) and len(composed) == 1
    identity = make_task([([[1, 2]], [[1, 2]])], [[[3, 4]]])
    _run_views(_Search(identity, 1.0, 0, 100), [], 1.0)  # the identity verifies: no overlays
    assert len(composed) == 1


def _turn_and_mark(x: list[list[int]]) -> list[list[int]]:
    """A quarter turn (rot90), then 5 on each 0 cell with exactly two non-zero edge neighbours."""
    t = np.rot90(np.array(x))
    n = _neighbours(t, "plus")
    return np.where((t == 0) & (n == 2), 5, t).tolist()


def test_where_the_sizes_stay_tables_are_also_fitted_on_the_states_nearest_the_targets():
    inputs = [[[1, 0, 1, 0], [0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 3]],
              [[0, 4, 0], [4, 0, 0], [0, 0, 4]],
              [[6, 0, 0], [0, 0, 6], [0, 6, 0]]]
    test_in = [[0, 7, 0, 0], [7, 0, 0, 0], [0, 0, 0, 7], [0, 0, 7, 0]]
    task = make_task([(x, _turn_and_mark(x)) for x in inputs], [test_in])
    assert fit_tables([g(x) for x in inputs], [g(_turn_and_mark(x)) for x in inputs]) == []  # not from the raw grids
    s = _Search(task, 10.0, 2, 1000)
    s.expand((), tuple(s.train_in + s.test_in), [])  # the states one step away, as the search's first level
    s.learn(("cell_table", "near_table"))
    tables = distinct([f for f in s.found if "cell_table{" in format_program(f.program)])
    assert tables and tables[0].program[0].name == "rot90"  # a quarter turn, then the table
    assert tables[0].outputs[0].tolist() == _turn_and_mark(test_in)


def test_the_states_kept_for_tables_are_the_few_nearest_the_targets_and_nearer_than_the_inputs():
    task = make_task([([[1, 0], [0, 0]], [[1, 1], [1, 1]])], [[[2, 0], [0, 0]]])
    s = _Search(task, 1.0, 1, 100)
    assert s.input_wrong == 3
    for wrong in (3, 2, 1, 2, 1, 0, 2):  # 3 is no nearer than the input; 0 would have verified
        s.keep_near((("rot90",),), (), wrong)
    near = sorted(-item[0] for item in s.near)
    assert near == [1, 1, 2, 2]  # MAX_NEAR_STATES of them


def _brute_nearest(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's distance in edge steps to the nearest non-zero cell, and that cell's colour
    where all the nearest ones share it (10 on a tie or with none)."""
    cells = [(y, z) for y in range(x.shape[0]) for z in range(x.shape[1]) if x[y, z]]
    dist, colour = np.full(x.shape, 99), np.full(x.shape, 10)
    for y in range(x.shape[0]):
        for z in range(x.shape[1]):
            if not cells:
                continue
            d = min(abs(y - a) + abs(z - b) for a, b in cells)
            near = {int(x[a, b]) for a, b in cells if abs(y - a) + abs(z - b) == d}
            dist[y, z], colour[y, z] = d, near.pop() if len(near) == 1 else 10
    return dist, colour


def test_the_nearest_colour_and_the_distance_match_a_brute_force_search():
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = (rng.random((6, 7)) < 0.15) * rng.integers(1, 4, (6, 7))
        dist, colour = _brute_nearest(x)
        eq(_nearest(x.astype(np.int8)), colour)
        assert features(x.astype(np.int8))["distance"].tolist() == np.minimum(dist, 3).tolist()
    assert (_nearest(np.zeros((2, 2), dtype=np.int8)) == _NONE).all()  # nothing to be near


def test_grid_colours_are_the_one_rarest_and_the_one_commonest_non_zero_colour():
    rarest, commonest = _grid_colours(g([[1, 1, 2], [0, 3, 3], [0, 1, 0]]))
    assert (commonest == 1).all() and (rarest == 2).all()
    rarest, commonest = _grid_colours(g([[1, 2, 0]]))  # a tie: neither
    assert (rarest == _NONE).all() and (commonest == _NONE).all()


def test_object_rank_lone_shape_and_line_features():
    x = g([[1, 1, 0, 2], [0, 0, 0, 2], [3, 0, 0, 0], [0, 0, 4, 0]])
    feats = features(x)
    assert feats["size_rank"][0, 0] == feats["size_rank"][0, 3] == 1  # the largest size, shared
    assert feats["size_rank"][2, 0] == 2 and feats["size_rank"][1, 1] == 0  # the next size; the background
    assert feats["lone_shape"][0, 0] and feats["lone_shape"][0, 3] and not feats["lone_shape"][2, 0]
    assert feats["line_colours"][0, 2] == 3 and feats["line_colours"][1, 2] == 2  # 1, 2 and 4 below; 2 and 4
    assert feats["other_neighbours"].sum() == 0  # no two colours touch
    assert features(g([[1, 2]]))["other_neighbours"].tolist() == [[1, 1]]
    assert feats["row3"][:, 0].tolist() == [0, 1, 2, 0]


def test_touching_is_the_one_other_colour_at_a_cells_four_sides():
    feats = features(g([[3, 2, 0], [0, 5, 0], [0, 0, 4]]))["touching"]
    assert feats[0].tolist() == [2, _NONE, 2]  # 2 touches 3 and 5: two colours; a 0 touches the 2
    assert feats[1].tolist() == [_NONE, 2, _NONE]  # 5 touches only the 2; the zeros beside it two colours
    assert feats[2, 2] == _NONE  # 4 touches nothing
    same = features(g([[1, 1], [1, 2]]))["touching"]
    assert same.tolist() == [[_NONE, 2], [2, 1]]  # its own colour does not count; two cells of 1 do once


def test_a_table_recolours_cells_by_the_colour_they_touch():
    # where a 3 touches a 2, the 3 turns 8 and the 2 goes; a 3 beside a 5 stays
    def grid(rows):
        x = g(rows)
        t = features(x)["touching"]
        y = np.where((x == 3) & (t == 2), 8, np.where((x == 2) & (t == 3), 0, x)).astype(np.int8)
        return x, y

    train = [grid([[3, 2, 0, 5], [0, 0, 0, 3], [2, 0, 0, 0]]),
             grid([[0, 5, 3, 0], [2, 0, 0, 0], [3, 0, 2, 3]]),
             grid([[0, 0, 0, 0], [0, 3, 0, 2], [0, 2, 0, 5]])]
    tables = fit_tables([x for x, _ in train], [y for _, y in train])
    assert tables and "touching" in tables[0][0]
    x, y = grid([[2, 0, 3, 5], [3, 0, 0, 3], [0, 2, 3, 0]])
    eq(P.cell_table(x, tables[0]), y)


def test_search_turns_a_3_that_touches_a_2_into_8():
    """d90796e8: where a 3 and a 2 touch, the 3 turns 8 and the 2 goes; other pairs stay. Each
    pair shows a contact the others lack, so the table is kept as a guess, and it is right."""
    [task] = load_tasks("d90796e8")
    found = search(task, float("inf"), max_depth=2, max_states=2000)  # no clock: the same on any machine
    assert "touching" in format_program(found[0].program) and not found[0].verified
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_path_shape_counts_an_objects_ends_and_turns():
    x = g([[1, 0, 2, 0, 2, 0, 3, 3, 3],
           [1, 0, 2, 0, 2, 0, 0, 3, 0],
           [1, 1, 2, 2, 2, 0, 5, 0, 4]])
    shape = features(x)["path_shape"]
    assert shape[0, 0] == shape[2, 1] == 4 * 2 + 1  # an L: two ends, one turn
    assert shape[0, 2] == shape[2, 3] == 4 * 2 + 2  # a U: two ends, two turns
    assert shape[0, 6] == 4 * 3 + 0  # a T: three ends
    assert shape[2, 6] == shape[2, 7] == 0  # a lone cell; a zero
    assert features(g([[6, 6, 6]]))["path_shape"].tolist() == [[4 * 2 + 0] * 3]  # a straight bar


def test_search_recolours_line_shapes_by_their_form():
    """e509e548: Ls turn 1, Us 6 and shapes with a branch 2, whatever their size."""
    [task] = load_tasks("e509e548")
    found = search(task, float("inf"), max_depth=2, max_states=2000)  # no clock: the same on any machine
    assert "path_shape" in format_program(found[0].program) and found[0].verified
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_grid_place_names_the_corners_the_edge_middles_and_the_centre():
    place = features(np.zeros((3, 5), dtype=np.uint8))["grid_place"]
    assert place.tolist() == [[0, 9, 1, 9, 2],
                              [3, 9, 4, 9, 5],
                              [6, 9, 7, 9, 8]]
    assert features(np.zeros((4, 4), dtype=np.uint8))["grid_place"][1:3, :].tolist() == [[9] * 4] * 2  # no middle row
    assert features(np.zeros((1, 1), dtype=np.uint8))["grid_place"].tolist() == [[0]]  # first before all else


def test_search_marks_the_first_the_middle_and_the_last_block_of_a_board():
    """941d9a10: on boards of blocks of many sizes, the top-left block turns 1, the centre one
    2 and the bottom-right one 3, read one cell per block."""
    [task] = load_tasks("941d9a10")
    found = search(task, float("inf"), max_depth=2, max_states=2000)  # no clock: the same on any machine
    assert "grid_place" in format_program(found[0].program) and found[0].verified
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_parities_counted_from_each_objects_own_corner():
    x = g([[0, 2, 2, 2, 0], [0, 0, 0, 0, 0], [3, 3, 3, 3, 0], [3, 3, 3, 3, 0]])
    feats = features(x)
    assert feats["object_column_parity"][0].tolist() == [0, 0, 1, 0, 0]  # from column 1
    assert feats["object_column_parity"][2].tolist() == [0, 1, 0, 1, 0]  # from column 0
    assert feats["object_row_parity"][:, 0].tolist() == [0, 0, 0, 1]  # from row 2


def test_halves_counted_in_each_objects_own_box():
    x = g([[2, 0, 0], [2, 0, 3], [2, 0, 3], [2, 0, 3], [2, 0, 3]])
    feats = features(x)
    assert feats["object_row_half"][:, 0].tolist() == [1, 1, 2, 3, 3]  # five rows: a middle one
    assert feats["object_row_half"][:, 2].tolist() == [0, 1, 1, 3, 3]  # four rows from row 1
    assert feats["object_column_half"][:, 0].tolist() == [2] * 5  # one column is its own middle
    assert features(g([[4, 4, 4, 4]]))["object_column_half"].tolist() == [[1, 1, 3, 3]]


def test_a_table_recolours_the_lower_half_of_every_bar():
    def bars(heights: list[int]) -> tuple[np.ndarray, np.ndarray]:
        x = np.zeros((8, 2 * len(heights)), dtype=np.int8)
        y = x.copy()
        for i, height in enumerate(heights):
            x[8 - height :, 2 * i] = 2
            y[8 - height :, 2 * i] = 2
            y[8 - height // 2 :, 2 * i] = 8
        return x, y

    train = [bars([6, 5, 4]), bars([7, 3, 2, 6])]
    tables = fit_tables([x for x, _ in train], [y for _, y in train])
    assert tables and "object_row_half" in tables[0][0]
    x, y = bars([5, 8, 2, 7, 4])
    eq(P.cell_table(x, tables[0]), y)


def test_marks_are_the_first_filled_column_of_each_row_and_row_of_each_column():
    x = g([[0, 0, 5], [0, 0, 0], [7, 0, 5]])
    feats = features(x)
    assert feats["row_mark"][:, 1].tolist() == [2, 15, 0]  # an empty row has none
    assert feats["column_mark"][0].tolist() == [2, 15, 0]
    wide = np.zeros((1, 20), dtype=np.int8)
    wide[0, 17] = 1
    assert features(wide)["row_mark"][0, 0] == 15  # past the last value a key holds


def test_search_paints_each_row_by_where_its_mark_lies():
    [task] = load_tasks("a85d4709")
    found = search(task, float("inf"), max_depth=2, max_states=2000)  # no clock: the same on any machine
    assert "row_mark" in format_program(found[0].program)
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_a_table_cuts_holes_at_every_other_cell_of_each_objects_middle_row():
    def bar(left: int, width: int, h: int = 5, w: int = 12) -> tuple[np.ndarray, np.ndarray]:
        x = np.zeros((h, w), dtype=np.int8)
        x[1:4, left : left + width] = 4
        y = x.copy()
        y[2, left + 1 : left + width - 1 : 2] = 0
        return x, y

    train = [bar(0, 7), bar(3, 9), bar(2, 5)]  # the holes fall on odd and on even grid columns
    tables = fit_tables([x for x, _ in train], [y for _, y in train])
    assert tables
    x, y = bar(1, 11)
    eq(P.cell_table(x, tables[0]), y)


def test_search_cuts_holes_counted_from_each_bars_own_end():
    [task] = load_tasks("3bdb4ada")
    found = search(task, float("inf"), max_depth=2, max_states=2000)  # no clock: the same on any machine
    assert "object_column_parity" in format_program(found[0].program)
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_a_table_paints_the_rarest_colour_whatever_it_is():
    train = [(g([[1, 1, 0, 2]]), g([[1, 1, 2, 2]])), (g([[3, 0, 4, 4, 4]]), g([[3, 3, 4, 4, 4]]))]
    tables = fit_tables([x for x, _ in train], [y for _, y in train])
    assert tables
    eq(P.cell_table(g([[0, 5, 6, 6]]), tables[0]), [[5, 5, 6, 6]])


def test_a_resized_task_keeps_the_states_nearest_its_targets_too():
    task = make_task([([[1, 0], [0, 0]], [[1, 1, 1, 1], [1, 1, 1, 1]])], [[[2, 0], [0, 0]]])
    s = _Search(task, 1.0, 1, 100)
    assert s.resized and s.input_wrong == 8  # any state with a right cell beats the input
    for wrong in (8, 5, 1):
        s.keep_near((("rot90",),), (), wrong)
    assert sorted(-item[0] for item in s.near) == [1, 5]


def test_the_rarest_colours_box_and_parities_counted_from_the_far_edges():
    x = g([[1, 1, 1, 1, 1],
           [1, 8, 1, 0, 1],
           [1, 1, 1, 8, 1]])
    feats = features(x)
    assert feats["in_rare_box"].astype(int).tolist() == [[0, 0, 0, 0, 0], [0, 1, 1, 1, 0], [0, 1, 1, 1, 0]]
    assert not features(g([[1, 2]]))["in_rare_box"].any()  # two colours tie as the rarest
    assert feats["column_parity_end"][0].tolist() == [0, 1, 0, 1, 0]
    assert features(g([[1, 2, 3, 4]]))["column_parity_end"][0].tolist() == [1, 0, 1, 0]  # 0 on the last column
    assert features(g([[1], [2]]))["row_parity_end"][:, 0].tolist() == [1, 0]


def test_a_table_recolours_what_lies_in_the_box_that_rare_markers_frame():
    train = [(g([[1, 1, 1, 1], [1, 8, 1, 1], [1, 1, 8, 1]]), g([[1, 1, 1, 1], [1, 8, 3, 1], [1, 3, 8, 1]])),
             (g([[1, 1, 1, 0], [0, 6, 1, 1], [1, 1, 1, 6]]), g([[1, 1, 1, 0], [0, 6, 3, 3], [1, 3, 3, 6]]))]
    tables = fit_tables([x for x, _ in train], [y for _, y in train])
    assert tables and all("in_rare_box" in names for names, _, _ in tables)
    eq(P.cell_table(g([[1, 1, 1, 1], [1, 1, 2, 1], [1, 1, 1, 2]]), tables[0]),  # markers of a new colour
       [[1, 1, 1, 1], [1, 1, 2, 3], [1, 1, 3, 2]])


def test_line_side_says_which_full_lines_a_cell_lies_beyond():
    x = g([[0, 3, 0, 0],
           [5, 5, 5, 5],
           [0, 0, 3, 0],
           [0, 0, 0, 0]])
    # below the grey row: bit 0; above it: bit 1; on it: neither
    eq(_line_side(x), [[2, 2, 2, 2], [0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]])
    x = g([[0, 4, 0], [3, 4, 0], [0, 4, 3]])  # a full column: left of it bit 3, right of it bit 2
    eq(_line_side(x), [[8, 0, 4], [8, 0, 4], [8, 0, 4]])
    assert not _line_side(g([[0, 0], [3, 0]])).any()  # no full line, or one of 0s: nothing
    assert not _line_side(g([[1, 2], [0, 0]])).any()  # a full row of two colours is no line


def test_inside_flags_what_a_closed_shape_of_another_colour_surrounds():
    x = g([[1, 1, 1, 1, 0],
           [1, 0, 3, 1, 3],
           [1, 1, 1, 1, 0],
           [0, 0, 0, 0, 0]])
    eq(_inside(x), [[0, 0, 0, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]])
    assert not _inside(g([[1, 1, 1], [1, 0, 0], [1, 1, 1]])).any()  # open on one side: nothing inside
    rng = np.random.default_rng(7)
    for _ in range(30):  # the same as filling the holes of each colour's cells in turn
        x = rng.choice(4, size=rng.integers(1, 9, 2), p=[0.4, 0.3, 0.2, 0.1]).astype(np.int8)
        holes = [ndimage.binary_fill_holes(x == c) & (x != c) for c in range(1, 4)]
        eq(_inside(x), np.any(holes, axis=0))


def _keep_above(rng):
    """Cells of colour 3 above a full grey row stay; those below it are erased."""
    x = np.zeros((9, 9), dtype=np.int8)
    line = int(rng.integers(2, 7))
    x[line] = 5
    for y, z in rng.integers(0, 9, (6, 2)):
        if x[y, z] == 0:
            x[y, z] = 3
    return x, np.where((np.arange(9)[:, None] > line) & (x == 3), 0, x).astype(np.int8)


def test_a_table_keeps_what_lies_above_a_line_and_marks_what_lies_inside_a_frame():
    rng = np.random.default_rng(5)
    train = [_keep_above(rng) for _ in range(3)]
    table = fit_tables(*zip(*train, strict=True))[0]
    assert table[0] == ("line_side",)
    x, y = _keep_above(np.random.default_rng(11))
    eq(P.cell_table(x, table), y)
    # green cells inside a blue frame turn red, those outside stay green
    frame = np.zeros((8, 8), dtype=np.int8)
    frame[1, 1:6] = frame[5, 1:6] = frame[1:6, 1] = frame[1:6, 5] = 1
    grids, targets = [], []
    for cells in (((2, 2), (0, 7), (6, 3)), ((3, 3), (4, 2), (7, 7)), ((2, 4), (6, 6), (0, 0))):
        x, y = frame.copy(), frame.copy()
        for r, c in cells:
            x[r, c], y[r, c] = 3, 2 if 1 < r < 5 and 1 < c < 5 else 3
        grids.append(x)
        targets.append(y)
    table = fit_tables(grids, targets)[0]
    assert "inside" in table[0]
    x = frame.copy()
    x[3, 2] = x[3, 4] = x[7, 1] = 3
    eq(P.cell_table(x, table), np.where(x == 3, np.where(_inside(x), 2, 3), x))
