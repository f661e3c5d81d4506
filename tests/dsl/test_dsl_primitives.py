"""One test per DSL primitive (checked by walking the registry), on small exact grids."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from arcsolve.dsl import registry as P
from arcsolve.dsl.compose import MAX_PIECES, Cover, base_grid, bases, overlay, stack
from arcsolve.dsl.families import FAMILIES
from arcsolve.dsl.learned.rules import fit_rule
from arcsolve.dsl.memo import clear_memos, grid_memo
from arcsolve.dsl.occam import description_length
from arcsolve.dsl.params import CORE_PARAMS, DIAGONALS, DIRECTIONS, PARAMS, task_facts
from arcsolve.dsl.primitives.drawing import fit_ray_axes
from arcsolve.dsl.primitives.objects import label, objects, select, split
from arcsolve.dsl.program import OVERLAY, Step, format_program, run_program
from arcsolve.dsl.search import search
from arcsolve.loaders import load_tasks
from tests.grids import eq, flood_labels, g

A = np.array([[1, 2, 0], [0, 3, 0]])  # 2x3, not square, not symmetric
SHAPES = [(1, 1), (2, 3), (3, 2), (4, 4), (5, 7)]


def test_every_primitive_has_its_own_test_and_docstring():
    later = sorted(Path(__file__).parent.glob("test_dsl_prims_*.py"))  # later primitives are tested there
    modules = [sys.modules[__name__], *(importlib.import_module(f"tests.dsl.{f.stem}") for f in later)]
    for name, prim in P.PRIMITIVES.items():
        assert any(callable(getattr(m, f"test_{name}", None)) for m in modules), f"no test_{name}"
        assert prim.doc and "\n" not in prim.doc, f"{name}: needs a one-line docstring"
        assert prim.params in PARAMS, f"{name}: unknown parameter kind {prim.params}"


def test_no_two_primitives_share_a_name():
    """The registry is keyed by name, where a later primitive would replace an earlier one."""
    names = [p.name for p in P.REGISTERED]
    assert len(names) == len(P.PRIMITIVES), sorted(n for n in set(names) if names.count(n) > 1)


def test_no_two_families_name_the_same_parameter_kind():
    """The kinds are merged into one table, where a later family's kind would replace another's
    or a core primitive's."""
    kinds = [*CORE_PARAMS, *(kind for family in FAMILIES for kind in family.PARAM_KINDS)]
    assert len(kinds) == len(set(kinds)) == len(PARAMS), sorted(k for k in set(kinds) if kinds.count(k) > 1)


@pytest.mark.parametrize("shape", SHAPES)
def test_lattice_group_matches_numpy(shape):
    x = np.arange(np.prod(shape)).reshape(shape) % 10
    assert np.array_equal(P.rot90(x), np.rot90(x))
    assert np.array_equal(P.rot270(P.rot90(x)), x)
    assert np.array_equal(P.antitranspose(x), np.flip(x).T)
    assert np.array_equal(P.roll(x, 1, 2), np.roll(x, (1, 2), axis=(0, 1)))
    assert np.array_equal(P.upscale(x, 2, 3), np.kron(x, np.ones((2, 3), dtype=int)))


def test_rot90():
    eq(P.rot90(A), [[0, 0], [2, 3], [1, 0]])


def test_rot180():
    eq(P.rot180(A), [[0, 3, 0], [0, 2, 1]])


def test_rot270():
    eq(P.rot270(A), [[0, 1], [3, 2], [0, 0]])


def test_flip_h():
    eq(P.flip_h(A), [[0, 2, 1], [0, 3, 0]])


def test_flip_v():
    eq(P.flip_v(A), [[0, 3, 0], [1, 2, 0]])


def test_transpose():
    eq(P.transpose(A), [[1, 0], [2, 3], [0, 0]])


def test_antitranspose():
    eq(P.antitranspose(A), [[0, 0], [3, 2], [0, 1]])


def test_shift():
    eq(P.shift(A, 1, 0), [[0, 0, 0], [1, 2, 0]])
    eq(P.shift(A, 0, -1), [[2, 0, 0], [3, 0, 0]])


def test_roll():
    eq(P.roll(A, 0, 1), [[0, 1, 2], [0, 0, 3]])


def test_upscale():
    eq(P.upscale(g([[1, 2]]), 2, 1), [[1, 2], [1, 2]])


def test_downscale():
    eq(P.downscale(g([[1, 1, 2, 2], [1, 1, 2, 2]]), 2, 2), [[1, 2]])
    assert P.downscale(g([[1, 2], [1, 1]]), 2, 2) is None


def test_tile():
    eq(P.tile(g([[1, 2]]), 2, 2), [[1, 2, 1, 2], [1, 2, 1, 2]])


def test_pad():
    eq(P.pad(g([[1, 2]]), 2, 1, "tl"), [[1, 2], [0, 0]])
    eq(P.pad(g([[1, 2]]), 2, 2, "br"), [[0, 0, 0, 0], [0, 0, 1, 2]])
    eq(P.pad(g([[1], [2]]), 1, 3, "tr"), [[0, 0, 1], [0, 0, 2]])


def test_place_on_canvas():
    eq(P.place_on_canvas(g([[1, 2]]), "tl", 2, 3), [[1, 2, 0], [0, 0, 0]])
    eq(P.place_on_canvas(g([[1, 2]]), "br", 2, 3), [[0, 0, 0], [0, 1, 2]])
    eq(P.place_on_canvas(g([[1], [2]]), "bl", 3, 1), [[0], [1], [2]])
    eq(P.place_on_canvas(g([[1, 2]]), "tr", 1, 2), [[1, 2]])  # already the canvas's size
    assert P.place_on_canvas(g([[1, 2, 3]]), "tl", 2, 2) is None  # wider than the canvas


def test_canvas_is_offered_where_every_target_has_one_size_that_every_grid_fits_in():
    small, full, out = g([[1]]), g([[1, 2], [3, 4]]), g([[1, 0], [0, 0]])
    corners = [("tl", 2, 2), ("tr", 2, 2), ("bl", 2, 2), ("br", 2, 2)]
    assert PARAMS["canvas"]([small, full], [out, out], task_facts([small, full], [out, out])) == corners
    assert PARAMS["canvas"]([full, full], [out, out], task_facts([full, full], [out, out])) == []  # nothing to place
    tall = g([[1], [2], [3]])
    assert PARAMS["canvas"]([small, tall], [out, out], task_facts([small, tall], [out, out])) == []  # too tall
    assert PARAMS["canvas"]([small, small], [out, g([[1]])], task_facts([small, small], [out, g([[1]])])) == []


def test_diagonal():
    eq(P.diagonal(g([[1, 2, 3]])), [[1, 0, 0], [0, 2, 0], [0, 0, 3]])
    eq(P.diagonal(g([[4], [5]])), [[4, 0], [0, 5]])
    assert P.diagonal(g([[1, 2], [3, 4]])) is None and P.diagonal(g([[1]])) is None


def test_mirror_tile():
    eq(P.mirror_tile(g([[1, 2]]), 2, 2, 0), [[1, 2, 2, 1], [1, 2, 2, 1]])
    eq(P.mirror_tile(g([[1, 2], [3, 4]]), 2, 1, 1), [[3, 4], [1, 2], [1, 2], [3, 4]])


def test_rot_tile():
    eq(P.rot_tile(g([[1, 2], [3, 4]])), [[1, 2, 3, 1], [3, 4, 4, 2], [2, 4, 4, 3], [1, 3, 2, 1]])
    assert P.rot_tile(A) is None


def test_self_tile():
    eq(P.self_tile(g([[5, 0], [0, 0]])), [[5, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])


def test_self_tile_inverse():
    eq(P.self_tile_inverse(g([[5, 0]])), [[0, 0, 5, 0]])


def test_crop_bbox():
    eq(P.crop_bbox(g([[0, 0, 0], [0, 4, 0], [0, 0, 4]])), [[4, 0], [0, 4]])
    assert P.crop_bbox(np.zeros((2, 2), dtype=int)) is None


OBJS = g([
    [1, 1, 0, 0, 2],
    [1, 1, 0, 0, 0],
    [0, 0, 0, 3, 3],
    [2, 0, 0, 3, 0],
])


def test_crop_object():
    eq(P.crop_object(OBJS, "largest", "multi8"), [[1, 1], [1, 1]])
    eq(P.crop_object(g([[1, 0, 2], [0, 0, 0], [3, 3, 0]]), "unique_shape", "colour4"), [[3, 3]])
    assert P.crop_object(OBJS, "smallest", "multi8") is None  # two single cells tie


def test_keep_object():
    eq(P.keep_object(OBJS, "largest", "colour4"),
       [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]])


def test_erase_object():
    eq(P.erase_object(OBJS, "largest", "colour4"),
       [[0, 0, 0, 0, 2], [0, 0, 0, 0, 0], [0, 0, 0, 3, 3], [2, 0, 0, 3, 0]])


def test_denoise():
    eq(P.denoise(OBJS), [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0, 3, 3], [0, 0, 0, 3, 0]])


def test_keep_blocks():
    x = g([[3, 3, 0, 1], [3, 3, 3, 0], [0, 2, 2, 0], [0, 2, 1, 0]])
    eq(P.keep_blocks(x), [[3, 3, 0, 0], [3, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    assert P.keep_blocks(g([[1, 1, 1]])) is None


def test_drop_empty():
    eq(P.drop_empty(g([[0, 0, 0], [1, 0, 2]])), [[1, 2]])


def test_dedup_lines():
    eq(P.dedup_lines(g([[1, 1, 2], [1, 1, 2], [3, 3, 3]])), [[1, 2], [3, 3]])


def test_keep_colour():
    eq(P.keep_colour(A, 2), [[0, 2, 0], [0, 0, 0]])


def test_erase_colour():
    eq(P.erase_colour(A, 2), [[1, 0, 0], [0, 3, 0]])


def test_recolor():
    eq(P.recolor(A, ((1, 2), (2, 1))), [[2, 1, 0], [0, 3, 0]])


def test_gravity():
    x = g([[1, 0], [0, 0], [2, 3]])
    eq(P.gravity(x, "down"), [[0, 0], [1, 0], [2, 3]])
    eq(P.gravity(x, "up"), [[1, 3], [2, 0], [0, 0]])
    eq(P.gravity(x, "left"), [[1, 0], [0, 0], [2, 3]])
    eq(P.gravity(x, "right"), [[0, 1], [0, 0], [2, 3]])


def test_settle():
    x = g([[2, 0, 2], [0, 2, 0], [5, 0, 0], [0, 0, 2], [0, 0, 0]])
    # the 5 stays and holds up the 2 above it; the rest falls to the bottom, in order
    eq(P.settle(x, "down", 5), [[0, 0, 0], [2, 0, 0], [5, 0, 0], [0, 0, 2], [0, 2, 2]])
    eq(P.settle(x, "up", 5), [[2, 2, 2], [0, 0, 2], [5, 0, 0], [0, 0, 0], [0, 0, 0]])
    eq(P.settle(g([[3, 0, 5, 1, 0, 4]]), "right", 5), [[0, 3, 5, 0, 1, 4]])
    assert P.settle(x, "down", 7) is None  # no cell of the still colour
    assert P.settle(g([[5, 0], [0, 5]]), "down", 5) is None  # nothing to fall


def test_settle_parameters_are_the_colours_that_stay():
    x, y = g([[2, 0], [0, 0], [5, 5]]), g([[0, 0], [2, 0], [5, 5]])
    assert PARAMS["settle"]([x], [y], task_facts([x], [y])) == [(d, 5) for d in ("down", "up", "left", "right")]
    moved = g([[0, 0], [5, 5], [2, 0]])  # every colour moves
    assert PARAMS["settle"]([x], [moved], task_facts([x], [moved])) == []


def test_extend_lines():
    x = g([[0, 5, 0], [0, 0, 0], [0, 7, 0], [0, 0, 0]])
    eq(P.extend_lines(x, "down"), [[0, 5, 0], [0, 5, 0], [0, 7, 0], [0, 7, 0]])
    eq(P.extend_lines(x, "right"), [[0, 5, 5], [0, 0, 0], [0, 7, 7], [0, 0, 0]])


def test_extend_dashed():
    x = g([[0, 2, 0, 0, 0], [0, 0, 0, 0, 0], [3, 0, 0, 0, 0]])
    eq(P.extend_dashed(x, "right", 5), [[0, 2, 5, 2, 5], [0, 0, 0, 0, 0], [3, 5, 3, 5, 3]])
    eq(P.extend_dashed(x, "left", 5), [[5, 2, 0, 0, 0], [0, 0, 0, 0, 0], [3, 0, 0, 0, 0]])
    eq(P.extend_dashed(x, "down", 0), [[0, 2, 0, 0, 0], [0, 0, 0, 0, 0], [3, 2, 0, 0, 0]])  # 0: dotted
    # a ray starts again from each cell it meets, which keeps its own colour
    eq(P.extend_dashed(g([[1, 0, 0, 4, 0, 0]]), "right", 5), [[1, 5, 1, 4, 5, 4]])
    assert P.extend_dashed(g([[0, 0], [0, 0]]), "down", 5) is None
    x, y = g([[2, 0, 0]]), g([[2, 5, 2]])
    assert ("right", 5) in PARAMS["dashes"]([x], [y], task_facts([x], [y]))
    assert PARAMS["dashes"]([x], [x], task_facts([x], [x])) == []  # nothing drawn, no dashes
    solid = g([[2, 2, 2]])
    assert PARAMS["dashes"]([x], [solid], task_facts([x], [solid])) == []  # a solid ray shows no gaps
    dotted = g([[2, 0, 2]])
    assert PARAMS["dashes"]([x], [dotted], task_facts([x], [dotted])) == [(d, 0) for d in DIRECTIONS]


def test_extend_diagonals():
    x = g([[1, 0, 0], [0, 0, 0], [0, 2, 0], [0, 0, 0]])
    eq(P.extend_diagonals(x, "down_right"), [[1, 0, 0], [0, 1, 0], [0, 2, 1], [0, 0, 2]])
    eq(P.extend_diagonals(x, "up_right"), [[1, 0, 0], [0, 0, 2], [0, 2, 0], [0, 0, 0]])
    eq(P.extend_diagonals(x, "down_left"), [[1, 0, 0], [0, 0, 0], [0, 2, 0], [2, 0, 0]])
    assert all(P.extend_diagonals(x, d).shape == x.shape for d in DIAGONALS)  # every direction offered
    # a ray stops where it meets another colour, which goes on in its stead
    eq(P.extend_diagonals(g([[3, 0, 0], [0, 4, 0], [0, 0, 0]]), "down_right"), [[3, 0, 0], [0, 4, 0], [0, 0, 4]])
    eq(P.extend_diagonals(g([[3, 0, 0], [0, 4, 0], [0, 0, 0]]), "up_left"), [[3, 0, 0], [0, 4, 0], [0, 0, 0]])


def test_sort_lines():
    x = g([[1, 1, 1], [0, 0, 2], [0, 0, 0], [3, 3, 0]])
    eq(P.sort_lines(x, "h"), [[0, 0, 0], [0, 0, 2], [3, 3, 0], [1, 1, 1]])
    eq(P.sort_lines(g([[1, 1, 0], [0, 1, 0]]), "v"), [[0, 1, 1], [0, 0, 1]])
    assert P.sort_lines(x, "v") is None  # every column holds two cells
    assert P.sort_lines(g([[0, 0], [1, 0], [1, 1]]), "h") is None  # already in order


def test_fill_enclosed():
    x = g([[0, 2, 2, 2], [0, 2, 0, 2], [0, 2, 2, 2]])
    eq(P.fill_enclosed(x, 4), [[0, 2, 2, 2], [0, 2, 4, 2], [0, 2, 2, 2]])


SPLIT = g([[1, 0, 5, 1, 1], [0, 1, 5, 0, 1]])  # two 2x2 parts around a column of 5s


def test_split_overlay():
    eq(P.split_overlay(SPLIT, "lines", "and"), [[1, 0], [0, 1]])
    eq(P.split_overlay(SPLIT, "lines", "xor"), [[0, 1], [0, 0]])
    eq(P.split_overlay(SPLIT, "lines", "nor"), [[0, 0], [1, 0]])
    assert P.split_overlay(SPLIT, "h2", "or") is None  # odd width has no halves


def test_split_stack():
    x = g([[1, 0, 2, 2]])
    eq(P.split_stack(x, "h2", 1), [[1, 2]])
    eq(P.split_stack(x, "h2", 0), [[2, 2]])
    quarters = g([[1, 1, 2, 0],
                  [1, 0, 2, 2],
                  [0, 3, 4, 4],
                  [3, 3, 0, 0]])
    eq(P.split_stack(quarters, "quarters", (0, 3, 2, 1)), [[2, 3], [2, 2]])  # bottom first: 1, 4, 3, then 2
    eq(P.split_stack(quarters, "quarters", 1), [[1, 1], [1, 2]])
    assert P.split_stack(quarters, "h2", (0, 1, 2)) is None  # two parts, an order of three


def test_split_orders_are_learned_from_the_targets():
    quarters = g([[1, 1, 2, 0],
                  [1, 0, 2, 2],
                  [0, 3, 4, 4],
                  [3, 3, 0, 0]])
    target = g([[2, 3], [2, 2]])
    offered = PARAMS["split_order"]([quarters], [target], task_facts([quarters], [target]))
    assert ("quarters", 0) in offered and ("quarters", 1) in offered
    learned = [order for mode, order in offered if mode == "quarters" and isinstance(order, tuple)]
    assert learned and all(np.array_equal(P.split_stack(quarters, "quarters", o), target) for o in learned)
    assert (0, 3, 2, 1) in learned
    halves = PARAMS["split_order"]([quarters], [g([[1, 1, 1, 1]])], task_facts([quarters], [g([[1, 1, 1, 1]])]))
    assert all(not isinstance(order, tuple) for _, order in halves)  # parts not of the target's size


def test_split_pick():
    x = g([[1, 1, 5, 1, 1, 5, 2, 0], [1, 1, 5, 1, 1, 5, 0, 0]])
    eq(P.split_pick(x, "lines", "unique"), [[2, 0], [0, 0]])
    eq(P.split_pick(x, "lines", "emptiest"), [[2, 0], [0, 0]])
    eq(P.split_pick(x, "lines", "first"), [[1, 1], [1, 1]])
    assert P.split_pick(x, "lines", "fullest") is None
    y = g([[1, 0, 2, 0, 3, 0], [0, 1, 0, 2, 3, 3]])  # three 2x2 squares
    eq(P.split_pick(y, "squares", "unique_mask"), [[3, 0], [3, 3]])
    eq(P.split_pick(y, "squares", "asymmetric"), [[3, 0], [3, 3]])
    assert P.split_pick(y, "squares", "unique") is None  # every part differs


def test_symmetrize():
    x = g([[1, 2, 0], [3, 0, 0]])
    eq(P.symmetrize(x, "h", 0), [[1, 2, 1], [3, 0, 3]])
    y = g([[1, 9], [9, 9]])
    eq(P.symmetrize(y, "rot", 9), [[1, 1], [1, 1]])
    assert P.symmetrize(x, "rot", 0) is None


def test_symmetry_patch():
    x = g([[1, 2, 2, 1], [3, 4, 9, 9]])
    eq(P.symmetry_patch(x, "h", 9), [[4, 3]])


def test_symmetry_fill():
    x = g([[5, 1, 2, 2, 1], [5, 3, 4, 9, 9]])  # mirror axis between columns 2 and 3
    eq(P.symmetry_fill(x, 9), [[5, 1, 2, 2, 1], [5, 3, 4, 4, 3]])
    y = g([[1, 2, 3], [2, 9, 4], [3, 4, 5]])  # only the diagonal mirror fits
    eq(P.symmetry_fill(y, 9), [[1, 2, 3], [2, 9, 4], [3, 4, 5]])
    assert P.symmetry_fill(g([[1, 2], [3, 4]]), 9) is None  # nothing to fill


def test_symmetry_fill_patch():
    x = g([[5, 1, 2, 2, 1], [5, 3, 4, 9, 9]])
    eq(P.symmetry_fill_patch(x, 9), [[4, 3]])


def test_periodic_fill():
    x = g([[1, 2, 1, 2, 1], [3, 4, 3, 0, 3], [1, 0, 0, 2, 1]])
    eq(P.periodic_fill(x, 0), [[1, 2, 1, 2, 1], [3, 4, 3, 4, 3], [1, 2, 1, 2, 1]])
    assert P.periodic_fill(g([[1, 2], [3, 4]]), 0) is None  # nothing to fill


def test_periodic_patch():
    x = g([[1, 2, 1, 2, 1, 2], [1, 2, 0, 0, 1, 2]])
    eq(P.periodic_patch(x, 0), [[1, 2]])


def test_connect():
    x = g([[3, 0, 0, 3], [0, 0, 0, 0], [3, 0, 0, 5]])
    eq(P.connect(x, "h"), [[3, 3, 3, 3], [0, 0, 0, 0], [3, 0, 0, 5]])
    eq(P.connect(x, "v"), [[3, 0, 0, 3], [3, 0, 0, 0], [3, 0, 0, 5]])
    eq(P.connect(x, "hv"), [[3, 3, 3, 3], [3, 0, 0, 0], [3, 0, 0, 5]])
    y = g([[0, 4, 0], [2, 0, 2], [0, 4, 0]])
    eq(P.connect(y, "hv"), [[0, 4, 0], [2, 2, 2], [0, 4, 0]])
    eq(P.connect(y, "vh"), [[0, 4, 0], [2, 4, 2], [0, 4, 0]])


def test_bridge():
    x = g([[3, 0, 0, 3], [0, 0, 0, 0], [3, 0, 0, 5]])
    eq(P.bridge(x, "h", 8), [[3, 8, 8, 3], [0, 0, 0, 0], [3, 0, 0, 5]])
    eq(P.bridge(x, "vh", 8), [[3, 8, 8, 3], [8, 0, 0, 0], [3, 0, 0, 5]])


def test_fill_colour_boxes():
    x = g([[1, 0, 0, 0], [0, 0, 2, 0], [0, 2, 0, 1]])
    eq(P.fill_colour_boxes(x), [[1, 1, 1, 1], [1, 2, 2, 1], [1, 2, 2, 1]])
    eq(P.fill_colour_boxes(g([[5, 0, 0]])), [[5, 0, 0]])


def test_colour_by_size():
    eq(P.colour_by_size(OBJS, "colour4"),
       [[4, 4, 0, 0, 1], [4, 4, 0, 0, 0], [0, 0, 0, 3, 3], [1, 0, 0, 3, 0]])


def test_majority_lines():
    x = g([[1, 1, 2], [3, 4, 5], [6, 7, 7]])
    eq(P.majority_lines(x, "h"), [[1, 1, 1], [3, 4, 5], [7, 7, 7]])
    eq(P.majority_lines(g([[2, 0], [2, 1], [5, 1]]), "v"), [[2, 1], [2, 1], [2, 1]])
    stripes = g([[4, 4, 4, 4], [4, 1, 4, 4], [2, 2, 2, 2]])  # rows: one noise cell; columns: more
    eq(P.majority_lines(stripes, "auto"), [[4, 4, 4, 4], [4, 4, 4, 4], [2, 2, 2, 2]])
    assert P.majority_lines(g([[1, 2], [2, 1]]), "auto") is None


def test_majority_objects():
    x = g([[1, 1, 0, 0], [1, 2, 0, 3], [0, 0, 0, 3]])
    eq(P.majority_objects(x), [[1, 1, 0, 0], [1, 1, 0, 3], [0, 0, 0, 3]])


def test_paint_by_line():
    x = g([[2, 5, 5], [3, 0, 5], [1, 4, 5]])
    eq(P.paint_by_line(x, 5, "h"), [[2, 2, 2], [3, 0, 3], [1, 4, 5]])  # two other colours: unchanged
    eq(P.paint_by_line(g([[7, 0], [5, 5]]), 5, "v"), [[7, 0], [7, 5]])
    assert P.paint_by_line(x, 6, "h") is None


def test_paint_objects_by_line():
    x = g([[0, 2, 0, 6], [0, 0, 0, 0], [5, 5, 0, 5], [5, 5, 0, 5]])
    eq(P.paint_objects_by_line(x, 5, "v"), [[0, 2, 0, 6], [0, 0, 0, 0], [2, 2, 0, 6], [2, 2, 0, 6]])
    eq(P.paint_objects_by_line(x, 5, "h"), x)  # no other colour in the rows of the 5s
    assert P.paint_objects_by_line(x, 7, "v") is None


def test_paint_nearest():
    x = g([[1, 0, 0, 0, 2], [1, 5, 0, 0, 2], [1, 0, 0, 5, 2], [1, 0, 5, 0, 2]])
    eq(P.paint_nearest(x[:3], 5), [[1, 0, 0, 0, 2], [1, 1, 0, 0, 2], [1, 0, 0, 2, 2]])
    assert P.paint_nearest(x, 5) is None  # the 5 in the middle column is as near to the 1s as to the 2s
    # an object takes the colour nearest to any of its cells: the 3 is 2 steps away, the 4 three
    y = g([[5, 5, 5, 0, 3], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [4, 0, 0, 0, 0]])
    eq(P.paint_nearest(y, 5), [[3, 3, 3, 0, 3], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [4, 0, 0, 0, 0]])
    assert P.paint_nearest(g([[5, 0]]), 5) is None and P.paint_nearest(g([[1, 0]]), 5) is None
    assert P.paint_nearest(g([[5, 0, 1]]), 5) is None  # one other colour: a colour map does that


def test_swap_background():
    eq(P.swap_background(g([[5, 5], [5, 0]])), [[0, 0], [0, 5]])
    assert P.swap_background(g([[0, 0], [0, 5]])) is None


def test_crop_colour():
    eq(P.crop_colour(OBJS, 3), [[3, 3], [3, 0]])


def test_outline_bbox():
    x = g([[1, 1, 0, 1], [1, 0, 0, 1], [1, 1, 1, 1]])
    # the broken box's border is closed, and its inside stays empty
    eq(P.outline_bbox(x, 1, "multi8"), [[1, 1, 1, 1], [1, 0, 0, 1], [1, 1, 1, 1]])
    eq(P.outline_bbox(x, 4, "colour4"), [[1, 1, 4, 1], [1, 0, 0, 1], [1, 1, 1, 1]])
    ring = g([[2, 2, 2, 0], [2, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 3]])
    eq(P.outline_bbox(ring, 5, "colour4"), [[2, 2, 2, 0], [2, 0, 5, 0], [2, 5, 5, 0], [0, 0, 0, 3]])
    assert P.outline_bbox(np.zeros((2, 2), dtype=int), 1, "multi8") is None


def test_mark_centres():
    x = g([[1, 1, 1, 0, 0], [1, 0, 1, 0, 2], [1, 1, 1, 0, 0]])
    eq(P.mark_centres(x, 7, "colour4"), [[1, 1, 1, 0, 0], [1, 7, 1, 0, 7], [1, 1, 1, 0, 0]])
    eq(P.mark_centres(x, 7, "multi8"), [[1, 1, 1, 0, 0], [1, 7, 1, 0, 7], [1, 1, 1, 0, 0]])
    assert P.mark_centres(g([[3, 3, 0], [3, 3, 0]]), 7, "colour4") is None  # a 2 x 2 box: no centre cell
    assert P.mark_centres(np.zeros((3, 3), dtype=int), 7, "multi8") is None


def test_trim_border():
    eq(P.trim_border(g([[1, 1, 1], [1, 2, 1], [1, 1, 1]])), [[2]])
    assert P.trim_border(A) is None


def test_colour_by():
    x = g([[1, 1, 0, 1], [1, 0, 0, 0], [0, 0, 2, 2]])
    eq(P.colour_by(x, "size_rank", "colour4"), [[1, 1, 0, 3], [1, 0, 0, 0], [0, 0, 2, 2]])
    eq(P.colour_by(x, "size_rank_asc", "colour4"), [[3, 3, 0, 1], [3, 0, 0, 0], [0, 0, 2, 2]])
    eq(P.colour_by(x, "extremes", "colour4"), [[1, 1, 0, 2], [1, 0, 0, 0], [0, 0, 3, 3]])
    eq(P.colour_by(x, "touches_border", "colour4"), [[1, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 1]])
    ring = g([[0, 0, 0, 0, 0], [0, 3, 3, 3, 0], [0, 3, 0, 3, 0], [0, 3, 3, 3, 0], [0, 0, 0, 0, 4]])
    eq(P.colour_by(ring, "has_hole", "colour4")[2:], [[0, 1, 0, 1, 0], [0, 1, 1, 1, 0], [0, 0, 0, 0, 2]])
    eq(P.colour_by(g([[5, 0, 5, 0, 5, 5]]), "unique_shape", "colour4"), [[2, 0, 2, 0, 1, 1]])
    assert P.colour_by(g([[1, 0, 1]]), "extremes", "colour4") is None  # all one size
    bars = g([[0, 4, 4, 0], [4, 0, 0, 0], [4, 0, 0, 0], [0, 0, 4, 0]])
    eq(P.colour_by(bars, "top_bottom", "colour4"), [[0, 1, 1, 0], [3, 0, 0, 0], [3, 0, 0, 0], [0, 0, 2, 0]])
    # both the top bar and the bottom cell reach the rightmost column
    eq(P.colour_by(bars, "left_right", "colour4"), [[0, 2, 2, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 2, 0]])
    eq(P.colour_by(bars, "orientation", "colour4"), [[0, 1, 1, 0], [2, 0, 0, 0], [2, 0, 0, 0], [0, 0, 3, 0]])
    assert P.colour_by(g([[1, 0, 1]]), "top_bottom", "colour4") is None  # every object starts on one row
    assert P.colour_by(g([[1, 1]]), "size_rank", "colour4") is None  # a single object: nothing to rank it against
    eq(P.colour_by(g([[1, 1]]), "orientation", "colour4"), [[1, 1]])  # a property of its own
    eq(P.colour_by(g([[0, 1]]), "touches_border", "colour4"), [[0, 1]])
    assert P.colour_by(g([[0, 0]]), "orientation", "colour4") is None  # no object


def test_colour_by_parity():
    x = g([[5, 0, 5, 5, 0, 5, 5, 5],
           [0, 0, 0, 0, 0, 0, 0, 5]])
    eq(P.colour_by_parity(x, "colour4"), [[1, 0, 2, 2, 0, 2, 2, 2], [0, 0, 0, 0, 0, 0, 0, 2]])
    eq(P.colour_by_parity(g([[3, 0, 3]]), "multi8"), [[1, 0, 1]])  # a lone cell each: odd
    assert P.colour_by_parity(g([[0, 0]]), "multi8") is None  # no object


def test_halo():
    x = g([[0, 0, 0, 0], [0, 2, 0, 3], [0, 0, 0, 0]])
    eq(P.halo(x, 2, 1, "box"), [[1, 1, 1, 0], [1, 2, 1, 3], [1, 1, 1, 0]])
    eq(P.halo(x, 2, 4, "diag"), [[4, 0, 4, 0], [0, 2, 0, 3], [4, 0, 4, 0]])
    eq(P.halo(x, 3, 7, "plus"), [[0, 0, 0, 7], [0, 2, 7, 3], [0, 0, 0, 7]])
    assert P.halo(x, 5, 1, "box") is None
    eq(P.halo(x, 0, 6, "plus"), [[0, 6, 0, 6], [6, 2, 6, 3], [0, 6, 0, 6]])  # around every colour
    assert P.halo(g([[0, 0]]), 0, 1, "box") is None


def test_rays():
    x = g([[0, 0, 0, 0], [0, 2, 0, 3], [0, 0, 0, 0]])
    eq(P.rays(x, 2, "v"), [[0, 2, 0, 0], [0, 2, 0, 3], [0, 2, 0, 0]])
    eq(P.rays(x, 2, "h"), [[0, 0, 0, 0], [2, 2, 2, 3], [0, 0, 0, 0]])
    eq(P.rays(x, 2, "diag"), [[2, 0, 2, 0], [0, 2, 0, 3], [2, 0, 2, 0]])
    eq(P.rays(x, 0, "v"), [[0, 2, 0, 3], [0, 2, 0, 3], [0, 2, 0, 3]])  # every colour its own rays
    eq(P.rays(g([[5, 0, 0], [0, 0, 0]]), 5, "hv"), [[5, 5, 5], [5, 0, 0]])
    assert P.rays(x, 4, "h") is None


def test_line_rays():
    x = g([[0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 3, 0]])
    axes = ((2, "v"), (3, "h"))
    eq(P.line_rays(x, axes, "h"), [[0, 2, 0, 0], [0, 2, 0, 0], [0, 2, 0, 0], [3, 3, 3, 3]])
    eq(P.line_rays(x, axes, "v"), [[0, 2, 0, 0], [0, 2, 0, 0], [0, 2, 0, 0], [3, 2, 3, 3]])  # v drawn last wins
    eq(P.line_rays(x, ((2, "hv"), (3, "")), "h"), [[0, 2, 0, 0], [2, 2, 2, 2], [0, 2, 0, 0], [0, 2, 3, 0]])
    assert P.line_rays(x, ((2, "v"),), "h") is None  # a colour the table does not know
    assert P.line_rays(g([[2, 0], [3, 0]]), ((2, "v"), (3, "v")), "h") is None  # two colours on one line
    # the table is fitted from the targets: 2 draws columns and 3 rows, in every pair
    y = P.line_rays(x, axes, "h")
    assert fit_ray_axes([x], [y]) == axes
    assert PARAMS["ray_axes"]([x], [y], task_facts([x], [y])) == [(axes, "h"), (axes, "v")]
    assert fit_ray_axes([x], [P.rays(x, 0, "v")]) is None  # every colour alike: plain rays
    cut = y.copy()
    cut[3, 0] = cut[0, 1] = 0  # no output line left without a zero cell: whole-line rays are not tried
    assert PARAMS["ray_axes"]([x], [cut], task_facts([x], [cut])) == []


def test_mark_midpoints():
    x = g([[0, 0, 0, 0, 0], [1, 0, 0, 0, 1], [0, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 0, 0, 0], [0, 2, 0, 0, 5]])
    eq(P.mark_midpoints(x, 3, "plus"), [[0, 0, 3, 0, 0], [1, 3, 3, 3, 1], [0, 0, 3, 0, 0],
                                        [0, 2, 0, 0, 0], [3, 3, 3, 0, 0], [0, 2, 0, 0, 5]])
    eq(P.mark_midpoints(x, 3, "dot"), [[0, 0, 0, 0, 0], [1, 0, 3, 0, 1], [0, 0, 0, 0, 0],
                                       [0, 2, 0, 0, 0], [0, 3, 0, 0, 0], [0, 2, 0, 0, 5]])
    assert P.mark_midpoints(g([[1, 0, 0, 1]]), 3, "dot") is None  # no cell halfway
    assert P.mark_midpoints(g([[1, 1, 0, 1]]), 3, "dot") is None  # three cells of a colour


def test_centre_lines():
    x = g([[0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 1, 1, 1], [0, 0, 0, 1, 0], [0, 0, 0, 0, 0]])
    eq(P.centre_lines(x, 6), [[0, 0, 0, 6, 0], [0, 0, 0, 1, 0], [6, 6, 1, 1, 1], [0, 0, 0, 1, 0], [0, 0, 0, 6, 0]])
    # every object's lines, drawn over zeros only
    y = g([[2, 0, 0], [0, 0, 0], [0, 0, 3]])
    eq(P.centre_lines(y, 4), [[2, 4, 4], [4, 0, 4], [4, 4, 3]])
    assert P.centre_lines(g([[1, 1, 0]]), 4) is None  # two cells wide: no middle column
    assert P.centre_lines(g([[0, 0]]), 4) is None


def test_fill_bbox():
    x = g([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 2]])
    eq(P.fill_bbox(x, 7, "multi8"), [[1, 7, 0, 0], [7, 1, 0, 0], [1, 7, 0, 2]])
    eq(P.fill_bbox(x, 7, "colour4"), x)  # single cells: their boxes have no zero cells
    assert P.fill_bbox(np.zeros((2, 2), dtype=int), 7, "multi8") is None


def test_interior():
    x = g([[5, 5, 5, 0], [5, 5, 5, 0], [5, 5, 5, 0], [0, 0, 0, 0]])
    eq(P.interior(x, 2), [[5, 5, 5, 0], [5, 2, 5, 0], [5, 5, 5, 0], [0, 0, 0, 0]])
    # cells on the grid's edge are never inside
    eq(P.interior(g([[5, 5, 5], [5, 5, 5], [5, 5, 5]]), 0), [[5, 5, 5], [5, 0, 5], [5, 5, 5]])


def test_crop_centre():
    x = g([[1, 2, 3, 4, 5], [6, 7, 8, 9, 1], [2, 3, 4, 5, 6]])
    eq(P.crop_centre(x, 1, 3), [[7, 8, 9]])
    eq(P.crop_centre(x, 3, 1), [[3], [8], [4]])
    assert P.crop_centre(x, 2, 3) is None  # no centre row pair in three rows
    assert P.crop_centre(x, 3, 5) is None and P.crop_centre(x, 5, 1) is None  # the whole grid; too tall


def test_crop_centre_is_offered_where_a_target_is_the_centre():
    x, y = g([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), g([[0, 1, 0], [2, 2, 2], [0, 3, 0]])
    assert PARAMS["window"]([x, y], [g([[5]]), g([[4]])], task_facts([x, y], [g([[5]]), g([[4]])])) == [(1, 1)]
    assert PARAMS["window"]([x, y], [g([[1]]), g([[4]])], task_facts([x, y], [g([[1]]), g([[4]])])) == []


def test_crop_corner():
    x = g([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    eq(P.crop_corner(x, "tl", 2, 2), [[1, 2], [4, 5]])
    eq(P.crop_corner(x, "tr", 1, 2), [[2, 3]])
    eq(P.crop_corner(x, "bl", 2, 1), [[4], [7]])
    eq(P.crop_corner(x, "br", 1, 1), [[9]])
    assert P.crop_corner(x, "tl", 3, 3) is None and P.crop_corner(x, "tl", 4, 1) is None


def test_colour_cell():
    x = g([[1, 1, 2], [0, 0, 0], [1, 3, 3]])
    eq(P.colour_cell(x, "most"), [[1]])
    eq(P.colour_cell(g([[4, 4, 2]]), "least"), [[2]])
    eq(P.colour_cell(x, "least"), [[2]])
    assert P.colour_cell(g([[1, 2]]), "most") is None and P.colour_cell(g([[0]]), "most") is None


def test_keep_ranked_colour():
    x = g([[1, 1, 2], [0, 0, 0], [1, 3, 3]])
    eq(P.keep_ranked_colour(x, "most"), [[1, 1, 0], [0, 0, 0], [1, 0, 0]])
    eq(P.keep_ranked_colour(x, "least"), [[0, 0, 2], [0, 0, 0], [0, 0, 0]])
    assert P.keep_ranked_colour(g([[1, 2]]), "least") is None  # a tie
    assert P.keep_ranked_colour(g([[0, 0]]), "most") is None


def test_search_rings_the_rarest_colour_whatever_it_is():
    [task] = load_tasks("31aa019c")
    found = search(task, time_budget=3.0)
    assert format_program(found[0].program) == "keep_ranked_colour{least} | halo{0,2,box}"
    assert [o.tolist() for o in found[0].outputs] == [p.output.to_numpy().tolist() for p in task.test]


def test_colour_ranking():
    x = g([[3, 3, 3], [1, 2, 2], [0, 0, 1], [2, 2, 0]])
    eq(P.colour_ranking(x, 0), [[2], [3], [1]])
    eq(P.colour_ranking(x, 1), [[3], [1]])
    assert P.colour_ranking(g([[1, 2]]), 0) is None  # a tie
    assert P.colour_ranking(g([[1, 1, 0]]), 1) is None  # nothing left


def test_band_colours():
    side_by_side = g([[4, 4, 2, 2, 2, 8], [4, 2, 2, 2, 8, 8], [4, 4, 4, 2, 8, 8]])  # ragged borders
    eq(P.band_colours(side_by_side), [[4, 2, 8]])
    eq(P.band_colours(side_by_side.T), [[4], [2], [8]])
    assert P.band_colours(g([[1, 2, 1]])) is None  # a colour in two bands
    assert P.band_colours(g([[1, 1], [1, 1]])) is None  # one band
    assert P.band_colours(g([[1, 2], [2, 1]])) is None  # bands both ways


def test_count_row():
    eq(P.count_row(g([[0, 7], [7, 7]])), [[7, 7, 7]])
    assert P.count_row(g([[1, 2]])) is None and P.count_row(g([[0]])) is None


def test_count_objects():
    x = g([[1, 0, 2], [0, 0, 2], [3, 3, 0]])
    eq(P.count_objects(x, "colour4"), [[1, 2, 3]])
    eq(P.count_objects(x, "multi8"), [[1, 2]])  # the 2s and 3s touch at a corner: one object, 2 met first
    eq(P.count_objects(g([[3, 0], [0, 2]]), "multi8"), [[3]])  # as many 3s as 2s: the 3 is met first
    eq(P.count_objects(g([[1, 1], [0, 2]]), "multi8"), [[1]])  # one object, most of it 1
    assert P.count_objects(g([[0, 0]]), "colour4") is None


def test_feature_cell():
    x = g([[1, 0, 1], [0, 0, 0], [2, 2, 0]])
    eq(P.feature_cell(x, "objects8"), [[3]])
    eq(P.feature_cell(x, "objects4"), [[3]])
    eq(P.feature_cell(x, "colours"), [[2]])
    eq(P.feature_cell(x, "mirror_h"), [[2]])
    eq(P.feature_cell(g([[1, 0, 1]]), "mirror_h"), [[1]])
    eq(P.feature_cell(g([[1, 0, 1]]), "mirror_v"), [[1]])
    assert P.feature_cell(g([[0, 0]]), "objects8") is None


def test_periodic_extend():
    eq(P.periodic_extend(g([[1, 2, 1, 2], [0, 0, 0, 0]]), 1, 2), [[1, 2, 1, 2, 1, 2, 1, 2], [0] * 8])
    eq(P.periodic_extend(g([[1, 2, 3, 1, 2, 3, 1]]), 1, 2), [[1, 2, 3] * 4 + [1, 2]])
    assert P.periodic_extend(g([[1, 2], [3, 4]]), 2, 2) is None  # no period repeats


def test_upscale_by_colours():
    eq(P.upscale_by_colours(g([[1, 0], [0, 2]])),
       [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 2, 2], [0, 0, 2, 2]])
    assert P.upscale_by_colours(g([[1, 0], [0, 1]])) is None


def test_cell_rule():
    train_in = g([[0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    train_out = g([[1, 1, 1, 0], [1, 2, 1, 0], [1, 1, 1, 0], [0, 0, 0, 0]])
    table = fit_rule([train_in], [train_out])
    eq(P.cell_rule(train_in, table), train_out)
    # mirrored, every cell's neighbourhood is one the train pair showed: the rule holds
    eq(P.cell_rule(train_in[::-1, ::-1], table), train_out[::-1, ::-1])
    eq(P.cell_rule(g([[0, 0, 0], [0, 2, 0], [0, 0, 0]]), table), [[1, 1, 1], [1, 2, 1], [1, 1, 1]])
    assert P.cell_rule(g([[0, 0, 0], [0, 3, 0], [0, 0, 0]]), table) is None  # unseen neighbourhoods
    assert fit_rule([g([[0, 0]])], [g([[0, 5]])]) is None  # one neighbourhood, two colours


def test_cell_rule_is_only_fitted_on_the_train_inputs():
    inputs, targets = [g([[0, 2]])], [g([[1, 2]])]
    facts = task_facts(inputs, targets)
    assert len(PARAMS["cell_rule"](inputs, targets, facts)) == 1
    assert PARAMS["cell_rule"]([g([[0, 2]])], targets, facts) == []  # an equal grid, but derived


def test_label_counts_components_by_connectivity():
    x = g([[1, 0, 1], [0, 1, 0], [2, 0, 0]])
    assert label(x, x != 0, diagonal=False, by_colour=False)[1] == 4
    assert label(x, x != 0, diagonal=True, by_colour=False)[1] == 1
    assert label(x, x != 0, diagonal=True, by_colour=True)[1] == 2


def test_label_matches_a_flood_fill_on_random_grids():
    rng = np.random.default_rng(0)
    for _ in range(300):
        x = (rng.integers(0, 3, rng.integers(1, 10, 2)) * (rng.random() < 0.8)).astype(np.int8)
        for fg in (x != 0, x == 0):
            for diagonal in (False, True):
                for by_colour in (False, True):
                    lab, n = label(x, fg, diagonal, by_colour)
                    want, m = flood_labels(x, fg, diagonal, by_colour)
                    assert n == m and np.array_equal(lab, want)


def test_grid_memo_returns_read_only_equal_results():
    calls = []

    @grid_memo()
    def double(x, k):
        calls.append(k)
        return x * k

    a = g([[1, 2]]).astype(np.int8)
    first, second = double(a, 2), double(a.copy(), 2)
    assert first is second and calls == [2]
    eq(first, [[2, 4]])
    assert not first.flags.writeable
    eq(double(a, 3), [[3, 6]])
    assert calls == [2, 3]
    clear_memos()
    eq(double(a, 2), [[2, 4]])
    assert calls == [2, 3, 2]  # asked again once forgotten


def test_objects_and_select():
    assert [o.size for o in objects(OBJS, "colour4")] == [4, 1, 3, 1]
    assert select(OBJS, "most_colours", "multi8") is None
    assert select(OBJS, "symmetric", "colour4").colours == (3,)  # the one asymmetric object


def test_select_by_common_shape_secondary_cells_and_holes():
    x = g([
        [1, 1, 1, 0, 2, 0, 5],
        [1, 0, 1, 0, 0, 0, 0],
        [1, 1, 1, 0, 3, 3, 0],
        [0, 0, 0, 0, 3, 4, 0],
    ])
    assert select(x, "has_hole", "colour4").colours == (1,)
    assert select(x, "common_shape", "colour4").colours == (2,)  # three single cells
    assert select(x, "most_secondary", "multi8").colours == (3, 4)
    assert select(x, "most_secondary", "colour4") is None  # one colour each: all tie
    assert select(x, "least_secondary", "multi8") is None  # the 1s, 2 and 5 tie at none
    y = g([[1, 1, 0, 2, 2], [1, 3, 0, 2, 2], [1, 3, 0, 2, 4]])
    assert select(y, "least_secondary", "multi8").colours == (2, 4)


def test_split_into_squares_long_halves_and_quarters():
    x = g([[1, 2, 3, 4, 5, 6], [7, 8, 9, 1, 2, 3]])
    assert [p.tolist() for p in split(x, "squares")] == [[[1, 2], [7, 8]], [[3, 4], [9, 1]], [[5, 6], [2, 3]]]
    assert [p.tolist() for p in split(x, "long2")] == [[[1, 2, 3], [7, 8, 9]], [[4, 5, 6], [1, 2, 3]]]
    assert [p.tolist() for p in split(x.T, "long2")] == [[[1, 7], [2, 8], [3, 9]], [[4, 1], [5, 2], [6, 3]]]
    assert split(g([[1, 2], [3, 4]]), "squares") is None and split(g([[1, 2], [3, 4]]), "long2") is None
    assert split(g([[1, 2, 3]]), "long2") is None
    y = np.arange(24).reshape(4, 6) % 10
    assert [p.tolist() for p in split(y, "quarters")] == [y[:2, :3].tolist(), y[:2, 3:].tolist(),
                                                         y[2:, :3].tolist(), y[2:, 3:].tolist()]
    assert split(g([[1, 2], [3, 4]]), "quarters") is None  # quarters of one cell are no parts


def test_split_by_separator_grid():
    x = g([[1, 5, 2], [5, 5, 5], [3, 5, 4]])
    assert [p.tolist() for p in split(x, "lines")] == [[[1]], [[2]], [[3]], [[4]]]
    y = g([[1, 1, 0, 1, 2], [0, 0, 0, 0, 0], [1, 1, 0, 1, 1]])  # zero lines, no zeros inside
    assert [p.tolist() for p in split(y, "lines")] == [[[1, 1]], [[1, 2]], [[1, 1]], [[1, 1]]]
    assert split(g([[1, 0, 1], [0, 0, 0], [1, 0, 0]]), "lines") is None  # a zero inside a part


def test_params_infer_factors_colours_and_shifts():
    facts = task_facts([g([[1, 0, 0]])], [g([[0, 0, 1]])])
    assert (0, 2) in facts.shifts
    facts = task_facts([g([[1, 0, 3]])], [g([[2, 4, 3]])])
    assert facts.drawn == (4,) and facts.recoloured == (2,)
    other_size = task_facts([g([[1, 0]])], [g([[1, 8], [8, 1]])])
    assert other_size.drawn == (8,)  # cells do not correspond: the colour the output adds
    assert PARAMS["corner"]([g([[1, 2], [3, 4]])], [g([[1]])], facts) == [
        ("tl", 1, 1), ("tr", 1, 1), ("bl", 1, 1), ("br", 1, 1)]
    assert PARAMS["corner"]([g([[1]])], [g([[1]])], facts) == []
    small, big = [g([[1, 2]])], [np.zeros((3, 4), dtype=int)]
    assert PARAMS["grow"](small, big, facts) == [(3, 2)]
    assert PARAMS["shrink"](big, small, facts) == [(3, 2)]
    assert PARAMS["colour"](small, big, facts) == [(1,), (2,)]


def test_overlay_lays_pieces_on_the_base():
    base = g([[1, 0], [0, 0]])
    eq(overlay(base, [g([[1, 2], [0, 0]]), g([[3, 3], [0, 3]])], [(), (3,)]), [[3, 3], [0, 3]])
    eq(overlay(base, [g([[0, 2], [5, 0]])], [(2,)]), [[1, 2], [0, 0]])
    assert overlay(base, [g([[1]])], [()]) is None


def test_stack_lays_grids_on_an_empty_one_zero_transparent():
    eq(stack([g([[1, 1], [0, 1]]), g([[0, 2], [0, 0]]), g([[0, 0], [3, 0]])]), [[1, 2], [3, 1]])
    eq(stack([g([[0, 0]])]), [[0, 0]])


def test_cover_keeps_pieces_on_the_colours_they_get_right_and_covers_greedily():
    inputs, targets = [g([[1, 0, 0]])], [g([[1, 2, 3]])]
    cover = Cover("input", inputs, targets)
    cover.add("twos", g([1, 2, 0]))
    cover.add("threes", g([1, 4, 3]))  # wrong in colour 4, right in colour 3
    cover.add("wrong", g([0, 2, 0]))  # erases a right cell: never usable
    assert cover.keys == [("twos", ()), ("threes", (3,))]
    assert cover.greedy() == [("twos", ()), ("threes", (3,))]
    assert Cover("input", inputs, [g([[1, 2]])]).ok is False


def test_pieces_may_be_laid_on_the_outputs_background_colour():
    assert bases([g([[0, 0], [0, 8]])]) == ("input", "empty")
    assert bases([g([[8, 8], [0, 1]]), g([[8, 2]])]) == ("input", "empty", "colour8")
    eq(base_grid("colour8", g([[1, 2, 3]]), (2, 1)), [[8], [8]])
    inputs, targets = [g([[1, 0], [0, 0]])], [g([[1, 8], [8, 2]])]
    cover = Cover("colour8", inputs, targets)
    cover.add("ones", g([1, 0, 0, 0]))  # its 0 cells are wrong on this base, its 1 is right
    cover.add("twos", g([0, 0, 0, 2]))
    assert cover.greedy() == [("ones", (1,)), ("twos", (2,))]
    eq(overlay(np.full((2, 2), 8), [g([[1, 0], [0, 0]]), g([[0, 0], [0, 2]])], [(1,), (2,)]), targets[0])


def test_cover_takes_up_to_max_pieces():
    target = g([[1, 2], [3, 4]])
    cover = Cover("empty", [np.zeros((2, 2), dtype=int)], [target])
    for k in range(4):
        piece = np.zeros(4, dtype=int)
        piece[k] = k + 1
        cover.add(k, piece)
    assert MAX_PIECES >= 4 and cover.greedy() == [(k, ()) for k in range(4)]
    assert cover.greedy(max_pieces=3) is None


def test_overlay_program_is_printable_and_runnable():
    pieces = (((Step("flip_h"),), ()), ((Step("extend_lines", ("down",)),), (2,)))
    program = (Step(OVERLAY, ("input", pieces)),)
    assert format_program(program) == "overlay{input; flip_h; extend_lines{down} [2]}"
    eq(run_program(program, g([[2, 0, 3], [0, 0, 0]])), [[3, 0, 2], [2, 0, 0]])
    assert description_length(program) == pytest.approx(4.1)  # two pieces of one step, one with a parameter


def test_program_is_data_printable_and_runnable():
    program = (Step("rot90"), Step("crop_bbox"), Step("recolor", (((1, 2),),)))
    assert format_program(program) == "rot90 | crop_bbox | recolor{1->2}"
    assert hash(program) == hash(tuple(program))
    eq(run_program(program, g([[0, 1], [0, 0]])), [[2]])
    assert run_program((Step("crop_bbox"),), np.zeros((2, 2), dtype=int)) is None
    stamps = ((b"kind a", (3, 3), b"cells"), (b"kind b", (3, 3), b"cells"))
    assert str(Step("stamp_objects", ("relative", stamps))) == "stamp_objects{relative,2 kinds}"


LARGE_SHIFTS = [(9, 0), (0, -9), (2, 1)]


def test_every_primitive_survives_random_grids_with_inferred_params():
    rng = np.random.default_rng(1)
    for _ in range(40):
        grids = [(rng.integers(0, 4, rng.integers(1, 9, 2)) * (rng.random() < 0.8)).astype(np.int8)
                 for _ in range(2)]
        targets = [rng.integers(0, 4, rng.integers(1, 9, 2)).astype(np.int8) for _ in range(2)]
        facts = task_facts(grids, targets)
        for prim in P.PRIMITIVES.values():
            extra = LARGE_SHIFTS if prim.params == "shift" else []
            for params in PARAMS[prim.params](grids, targets, facts) + extra:
                for x in grids:
                    out = prim.fn(x, *params)
                    assert out is None or (out.ndim == 2 and out.dtype == np.int8), prim.name
