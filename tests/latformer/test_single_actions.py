"""One-head exact actions beyond the short candidates (long shifts, dihedral elements after
shifts, crops anywhere, zooms, poolings), the colours an exact fit keeps fixed, and when a
task's fit stops."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from arcsolve.latformer.exact_starts.actions import ExactAction, gate_bits, set_action
from arcsolve.latformer.exact_starts.consistent import consistent_sets
from arcsolve.latformer.exact_starts.readings import reading
from arcsolve.latformer.exact_starts.single_heads import single_actions, single_actions_of
from arcsolve.latformer.experts import EXPERTS
from arcsolve.latformer.restarts import Restart, fit_is_done
from arcsolve.symmetry import ELEMENT_NAMES, apply_dihedral
from tests.grids import shifted_with_fill

RNG = np.random.default_rng(11)
FLIP_LR = ELEMENT_NAMES.index("flip left-right")


def grids(shapes):
    return [RNG.integers(0, 6, size=s) for s in shapes]


def shifted(x, dr, dc, fill):
    return shifted_with_fill(x, dr, dc) if fill else np.roll(x, (dr, dc), (0, 1))


def test_a_crop_at_any_offset_is_found_and_reads_the_window():
    xs = grids([(8, 7), (9, 9), (7, 8)])
    pairs = [(x, x[1:4, 2:4]) for x in xs]
    found = single_actions(pairs)
    assert found[0] == ExactAction(0, (-1, -2))
    sets = consistent_sets(pairs)
    assert sets[0].actions == (ExactAction(0, (-1, -2)),)
    test = RNG.integers(0, 6, size=(6, 9))
    assert np.array_equal(reading(sets[0].actions[0], test, (3, 2)), test[1:4, 2:4])


def test_long_cyclic_shifts_and_shifts_after_a_reflection_are_found():
    xs = grids([(6, 7), (8, 5), (7, 7)])
    pairs = [(x, shifted(x, 3, -1, fill=False)) for x in xs]
    assert ExactAction(0, (3, -1)) in single_actions(pairs)
    pairs = [(x, shifted(apply_dihedral(x, FLIP_LR), 1, 2, fill=True)) for x in xs]
    (action,) = [a for a in single_actions(pairs) if a.dihedral == FLIP_LR]
    assert action.fill
    for x, y in pairs:
        read = reading(action, x, y.shape)
        assert np.array_equal(np.where(read < 0, 0, read), y)


def test_one_screen_of_several_sets_of_outputs_finds_what_a_screen_of_each_finds():
    rng = np.random.default_rng(5)
    xs = [rng.integers(0, 6, size=s) for s in [(6, 7), (8, 5), (7, 7)]]
    targets = [
        [shifted(x, 3, -1, fill=False) for x in xs],
        [shifted(apply_dihedral(x, FLIP_LR), 1, 2, fill=True) for x in xs],
        [x * 0 for x in xs],
        [np.where(x != 0, x, np.roll(x, 1, 0)) for x in xs],  # no one head reads this
    ]
    pairs = [(x, y) for x, y in zip(xs, targets[0], strict=True)]
    together = single_actions_of(pairs, targets, most=3)
    alone = [single_actions([(x, y) for x, y in zip(xs, ys, strict=True)], most=3) for ys in targets]
    assert together == alone
    assert ExactAction(0, (3, -1)) in together[0] and ExactAction(FLIP_LR, (1, 2), fill=True) in together[1]
    assert len(together[2]) == 3 and together[3] == []  # a blank output: every action, up to `most`


def test_no_single_action_where_the_outputs_are_not_a_function_of_one_reading():
    xs = grids([(5, 5), (6, 6), (4, 4)])
    pairs = [(x, np.where(x != 0, x, apply_dihedral(x, FLIP_LR))) for x in xs]  # x completed by its mirror image
    assert single_actions(pairs) == []
    assert len(consistent_sets(pairs)[0].actions) == 2


def test_a_fit_stops_once_its_exact_starts_are_spent():
    plain, exact, other = Restart(0), Restart(3, start=object()), Restart(4, start=object())
    assert not fit_is_done([], [plain])
    assert fit_is_done([plain], [other])  # a plain restart reproduced the pairs
    assert not fit_is_done([exact], [other, plain])  # another exact start may give attempt 2
    assert fit_is_done([exact], [plain])  # only plain restarts left
    assert fit_is_done([exact, other], [plain])


def test_colours_a_rule_treats_alike_are_free_and_the_rest_fixed():
    from arcsolve.latformer.exact_starts.colours import colours_to_fix

    a = np.array([1, 2, 4, 0, 1, 4, 2, 0])
    b = np.array([2, 0, 4, 1, 0, 1, 0, 0])
    both = np.where((a != 0) & (b != 0), 7, 0)  # an "and" of two readings, drawn in colour 7
    assert colours_to_fix(np.stack([a, b]), both) == (0, 7)  # 1, 2 and 4 are alike
    kept = np.array([1, 2, 3, 3, 4, 0])
    erased = np.where(kept == 3, 0, kept)  # colour 3 erased, the others kept
    assert colours_to_fix(kept[None], erased) == (0, 3)
    assert colours_to_fix(kept[None], kept) == (0,)  # a pure move: every colour free


def test_of_two_colours_that_clash_the_one_kept_goes_free():
    """4 becomes 3 and 5 stays 5: permuting 5 teaches that an unseen colour keeps itself;
    permuting 4 would teach that every unseen colour becomes 3."""
    from arcsolve.latformer.exact_starts.colours import colours_to_fix

    read = np.array([4, 5, 0, 4, 0, 5])
    assert colours_to_fix(read[None], np.where(read == 4, 3, read)) == (0, 3, 4)
    read = np.array([5, 4, 0, 5, 0, 4])  # the same rule, the colours met in the other order
    assert colours_to_fix(read[None], np.where(read == 4, 3, read)) == (0, 3, 4)


def test_an_exact_fit_learns_colours_the_train_pairs_never_show():
    rng = np.random.default_rng(1)  # its own draws, whichever tests run before
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    def pair(colours, shape, cls=TrainPair):
        x = rng.choice(np.array([0, *colours]), size=shape)
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(x[1:3, 2:4]))

    # a crop: colours outside the window differ from pair to pair, the test has new ones
    train = [pair((1, 2), (6, 7)), pair((2, 4), (7, 7)), pair((4, 1), (6, 6))]
    test = pair((6, 9), (7, 8), Pair)
    solution = solve(Task(id="crop", train=train, test=[test]), SolveConfig(device="cpu", steps=60))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == test.output


def test_sets_of_one_size_are_tried_up_to_a_bound(monkeypatch):
    import arcsolve.latformer.exact_starts.consistent as consistent

    xs = grids([(12, 12), (12, 12), (12, 12)])
    pairs = [(x, x[:3, :3] | x[9:, 9:]) for x in xs]  # an overlay of two corner crops
    every = consistent_sets(pairs)
    monkeypatch.setattr(consistent, "MAX_COMBINATIONS", 3)
    bounded = consistent_sets(pairs)
    for k in (1, 2, 3, 4):
        assert sum(len(s.actions) == k for s in bounded) <= 3
    assert {s.actions for s in bounded} <= {s.actions for s in every}


def test_a_set_that_one_cell_per_pair_explains_is_chance_not_a_start():
    xs = grids([(8, 8), (9, 8), (8, 9)])
    one_cell = [(x, x[2:3, 5:6]) for x in xs]  # 3 cells of output: any of many offsets may match
    assert consistent_sets(one_cell) == []
    window = [(x, x[2:5, 5:8]) for x in xs]  # 27 cells: the offset is told apart
    assert consistent_sets(window)[0].actions == (ExactAction(0, (-2, -5)),)


def test_a_shift_longer_than_the_short_range_is_found_when_the_grids_allow_it():
    xs = grids([(9, 12), (8, 9), (12, 9)])
    pairs = [(x, shifted(x, 6, -5, fill=False)) for x in xs]
    assert ExactAction(0, (6, -5)) in single_actions(pairs)
    # a dihedral element goes with the short shifts only
    turned = [(x, shifted(apply_dihedral(x, FLIP_LR), 6, -5, fill=False)) for x in xs]
    assert all(a.dihedral == 0 for a in single_actions(turned))


def test_a_rule_that_swaps_two_colours_keeps_them_out_of_the_permutations():
    rng = np.random.default_rng(2)  # its own draws, whichever tests run before
    from arcsolve.latformer.fit import solve
    from arcsolve.latformer.restarts import plan_restarts
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    def pair(shape, cls=TrainPair):
        x = rng.choice(np.array([0, 3, 8]), size=shape)
        y = apply_dihedral(x, FLIP_LR)
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(np.select([y == 3, y == 8], [8, 3], y)))

    train = [pair((5, 6)), pair((7, 4)), pair((6, 6))]
    test = pair((4, 7), Pair)
    task = Task(id="flip-swap", train=train, test=[test])
    examples = [(torch.tensor(p.input.to_numpy()), torch.tensor(p.output.to_numpy())) for p in train]
    start = next(r.start for r in plan_restarts(examples, [test.input.to_numpy()], [(4, 7)]) if r.exact)
    assert {0, 3, 8} <= set(start.fixed)  # swapped by the rule: a permutation would contradict it
    solution = solve(task, SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == test.output


def test_cells_that_read_nothing_take_a_background_that_is_not_0():
    rng = np.random.default_rng(3)  # its own draws, whichever tests run before
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    def pair(shape, cls=TrainPair):
        x = rng.choice(np.array([7, 7, 2, 5]), size=shape)
        y = shifted_with_fill(np.where(x == 7, 0, x), 1, 2)
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(np.where(y == 0, 7, y)))

    train = [pair((5, 6)), pair((7, 5)), pair((6, 6))]
    test = pair((6, 7), Pair)
    solution = solve(Task(id="shift-on-7", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == test.output


def test_a_block_read_by_all_its_cells_is_a_set_of_down_scalings():
    def blocks(h, w):  # half the 2×2 blocks hold one coloured cell, anywhere in the block
        x = np.zeros((2 * h, 2 * w), dtype=np.int64)
        for i, j in np.argwhere(RNG.random((h, w)) < 0.5):
            x[2 * i + RNG.integers(2), 2 * j + RNG.integers(2)] = RNG.integers(1, 5)
        return x

    xs = [blocks(*s) for s in [(4, 5), (5, 4), (4, 4)]]
    pairs = [(x, np.where((x.reshape(x.shape[0] // 2, 2, -1, 2) != 0).any(axis=(1, 3)), 6, 0)) for x in xs]
    sets = consistent_sets(pairs)
    assert sets[0].actions == (ExactAction(0, scale=(2, 2), down=True, pool=True),)  # one head, blocks whole
    sampled = [s for s in sets if all(a.down and not a.pool and a.scale == (2, 2) for a in s.actions)]
    assert sampled, "no set of samplings reads the blocks"
    assert {a.shift for a in sampled[0].actions} == {(0, 0), (0, -1), (-1, 0), (-1, -1)}


def test_a_window_up_scaled_is_read_with_its_offset_in_input_cells():
    xs = grids([(7, 7), (8, 6), (6, 8)])
    pairs = [(x, np.kron(x[1:3, 2:5], np.ones((2, 2), dtype=x.dtype))) for x in xs]  # a zoom on a 2×3 window
    (action,) = [a for a in single_actions(pairs) if a.scale != (1, 1)]
    assert action == ExactAction(0, (-1, -2), (2, 2))
    for x, y in pairs:
        assert np.array_equal(reading(action, x, y.shape), y)
    one_cell = [(x, np.kron(x[2:3, 2:3], np.ones((2, 2), dtype=x.dtype))) for x in xs]
    assert all(a.scale == (1, 1) for a in single_actions(one_cell))  # a cell up-scaled is a crop's job


def test_down_scaling_after_a_rotation_and_up_scaling_then_tiling_are_found():
    rot90 = ELEMENT_NAMES.index("rotate 90 clockwise")
    xs = grids([(2, 3), (3, 2), (3, 3)])
    blown = [np.kron(x, np.ones((2, 2), dtype=x.dtype)) for x in xs]
    turned = [(b, apply_dihedral(b, rot90)[::2, ::2]) for b in blown]
    assert any(a.dihedral == rot90 and a.down for a in single_actions(turned))
    assert consistent_sets(turned)[0].actions[0].down
    tiled = [(x, np.tile(b, (1, 2))) for x, b in zip(xs, blown, strict=True)]  # up-scaled 2×, then tiled 1×2
    assert consistent_sets(tiled)[0].actions == (ExactAction(0, scale=(2, 2)),)


def test_a_block_read_whole_is_one_pooling_head_that_fits_an_any_rule():
    rng = np.random.default_rng(4)  # its own draws, whichever tests run before
    from arcsolve.latformer.exact_starts.actions import gate_bits
    from arcsolve.latformer.exact_starts.readings import _reference_experts, block_cells, pooled_key
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    def pair(h, w, cls=TrainPair):  # 3×3 blocks with one or two coloured cells anywhere, or none
        x = np.zeros((3 * h, 3 * w), dtype=np.int64)
        for i, j in np.argwhere(rng.random((h, w)) < 0.5):
            for cell in rng.choice(9, size=rng.integers(1, 3), replace=False):
                x[3 * i + cell // 3, 3 * j + cell % 3] = rng.integers(1, 5)
        y = np.where((x.reshape(h, 3, w, 3) != 0).any(axis=(1, 3)), 7, 0)
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(y))

    pooling = ExactAction(0, scale=(3, 3), down=True, pool=True)
    assert len(block_cells(pooling)) == 9
    x = rng.integers(0, 5, size=(6, 6))
    keys = pooled_key(pooling, x, (2, 2))
    shuffled = x.reshape(2, 3, 2, 3).transpose(0, 2, 1, 3).reshape(2, 2, 9)
    shuffled = rng.permuted(shuffled, axis=2).reshape(2, 2, 3, 3).transpose(0, 2, 1, 3).reshape(6, 6)
    assert np.array_equal(pooled_key(pooling, shuffled, (2, 2)), keys)  # a multiset: places do not matter
    sampled, pooled = (gate_bits(_reference_experts(5), a) for a in (replace(pooling, pool=False), pooling))
    assert (sampled != pooled).sum() == 1  # the sampling gate alone tells them apart

    train = [pair(3, 4), pair(4, 3), pair(4, 4)]
    test = pair(3, 3, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    assert consistent_sets(pairs)[0].actions == (pooling,)
    solution = solve(Task(id="any-in-block", train=train, test=[test]), SolveConfig(device="cpu", steps=100))
    assert solution.candidates[0].verified
    assert "down-scale 3x3 by pooling" in solution.candidates[0].detail
    assert solution.candidates[0].grids[0] == test.output


def test_where_the_background_is_not_0_colour_0_is_free_to_permute():
    from arcsolve.latformer.exact_starts.colours import background_colour, colours_to_fix

    on_7 = [(np.array([[7, 7, 0], [7, 3, 7]]), None), (np.array([[7, 0, 7, 7]]), None)]
    assert background_colour(on_7) == 7
    assert background_colour([(np.array([[0, 0, 1]]), None), (np.array([[2, 2, 0]]), None)]) == 0  # no one colour
    moved = np.array([-1, -1, 0, 2, 7, 3])  # a shift with fill: two cells read nothing and take 7
    assert colours_to_fix(moved[None], np.where(moved < 0, 7, moved), background=7) == (7,)  # 0 moves like 2, 3
    assert colours_to_fix(moved[None], np.where(moved < 0, 7, moved)) == (0, 7)  # with 0 taken for the background


def test_scalings_after_shifts_are_found_and_read_as_the_kernels_read():
    from arcsolve.latformer.exact_starts.readings import scaled_cells, source_cells

    rng = np.random.default_rng(5)  # its own draws, whichever tests run before
    xs = [rng.integers(0, 6, size=s) for s in [(4, 6), (6, 4), (6, 6)]]
    # the input shifted by (1, -2) with fill, then up-scaled 2×3: the shift is in input cells
    up = [(x, np.kron(shifted_with_fill(x, 1, -2), np.ones((2, 3), dtype=x.dtype))) for x in xs]
    assert ExactAction(0, (1, -2), (2, 3), fill=True) in single_actions(up)
    # down-scaled 2×2, then shifted by one output cell cyclically: two input cells
    down = [(x, np.roll(x[::2, ::2], 1, axis=1)) for x in xs]
    assert ExactAction(0, (0, 2), (2, 2), down=True) in single_actions(down)
    # up-scaled 2× in rows (the rest of 2×2 tiled) after a cyclic shift and a rotation
    rot90 = ELEMENT_NAMES.index("rotate 90 clockwise")
    tiled = [(x, np.tile(np.kron(np.roll(apply_dihedral(x, rot90), (1, 1), (0, 1)), np.ones((2, 1), int)), (2, 2)))
             for x in xs]
    found = single_actions(tiled)
    assert any(a.dihedral == rot90 and a.scale == (2, 1) and not a.fill for a in found)
    for a in found:
        for x, y in tiled:
            assert np.array_equal(reading(a, x, y.shape), y)
    # the quick numpy reading is the kernels' own, shift, wrap, scale and element alike
    for _ in range(200):
        h, w = (int(v) for v in rng.integers(2, 6, 2))
        d, fill, down = int(rng.integers(8)), bool(rng.integers(2)), bool(rng.integers(2))
        factor = tuple(int(v) for v in rng.choice([1, 2, 3], 2))
        delta = tuple(int(v) for v in rng.integers(-4, 5, 2))
        before = (w, h) if d >= 4 else (h, w)
        if factor == (1, 1) or (down and (before[0] % factor[0] or before[1] % factor[1])):
            continue
        shape = tuple(b // f if down else b * f * 2 for b, f in zip(before, factor, strict=True))
        action = ExactAction(d, delta, factor, fill and delta != (0, 0), down)
        assert np.array_equal(scaled_cells(action, (h, w), shape, 5), source_cells(action, (h, w), shape))


def test_an_exact_restart_reads_only_what_its_heads_read():
    from arcsolve.latformer.exact_starts.action_sets import ActionSet
    from arcsolve.latformer.model import LatFormer, LatFormerConfig
    from arcsolve.latformer.restarts import exact_model

    start = ActionSet((ExactAction(FLIP_LR),), 0, 0)
    model = exact_model(LatFormer, LatFormerConfig(), start, seed=0)
    assert model.layers[0].skip is None  # no input cell's own colour beside the heads' readings
    assert LatFormer(LatFormerConfig()).layers[0].skip is not None  # a plain restart keeps it
    with torch.no_grad():  # whatever the weights besides the gates, an output cell sees only its mirror cell
        for name, p in model.named_parameters():
            if "gate" not in name:
                p.add_(torch.randn_like(p))
        x = torch.randint(0, 10, (1, 3, 4))
        y = x.clone()
        y[0, 1, 0] = (x[0, 1, 0] + 1) % 10  # changes only what output cell (1, 3) reads
        a, _ = model(x, (3, 4), discrete=True)  # the gates rounded, as an exact fit runs
        b, _ = model(y, (3, 4), discrete=True)
    changed = (a - b).abs().sum(-1)[0] > 1e-5
    assert changed[1, 3] and changed.sum() == 1


def test_a_tiling_shifted_on_the_output_lattice_is_two_layers_that_fit():
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(6)  # its own draws, whichever tests run before

    def pair(h, w, cls=TrainPair):  # tiled 1×2, then the whole result shifted right by 2 with fill
        x = rng.integers(0, 5, size=(h, w))
        y = shifted_with_fill(np.tile(x, (1, 2)), 0, 2)
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(y))

    train = [pair(3, 4), pair(4, 3), pair(4, 5)]
    test = pair(5, 4, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    assert not single_actions(pairs)  # no one action reads it
    first = consistent_sets(pairs)[0]
    assert first.actions == (ExactAction(0),) and first.then == ExactAction(0, (0, 2), fill=True)
    solution = solve(Task(id="tile-then-shift", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert "layer 1: shift +0,+2 with fill" in solution.candidates[0].detail.replace("\n", " ")
    assert solution.candidates[0].grids[0] == test.output


def test_sets_that_read_alike_everywhere_are_one_start():
    from arcsolve.latformer.exact_starts.colours import set_readings

    rng = np.random.default_rng(7)
    xs = [rng.integers(0, 6, size=s) for s in [(6, 9), (9, 6), (9, 9)]]
    pairs = [(x, x[1::3, ::3]) for x in xs]  # row 1 of each 3×3 block: inside the grid, fill or not alike
    tests = [(rng.integers(0, 6, size=(6, 6)), (2, 2))]
    sets = consistent_sets(pairs, tests)
    lattices = pairs + [(x, np.zeros(shape, dtype=np.int64)) for x, shape in tests]
    signatures = [set_readings(s, lattices).tobytes() for s in sets]
    assert len(signatures) == len(set(signatures))
    assert sets[0].actions[0].down and sets[0].actions[0].shift == (-1, 0)


def test_a_sampling_then_an_up_scaling_is_two_layers_that_fit():
    from arcsolve.latformer.exact_starts.composed import sampled_then_scaled
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(8)  # its own draws, whichever tests run before

    def pair(h, w, cls=TrainPair):  # every second cell from (1, 1) on, then each blown up 4×
        x = rng.integers(0, 5, size=(2 * h, 2 * w))
        y = np.kron(x[1::2, 1::2], np.ones((4, 4), dtype=x.dtype))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(y))

    train = [pair(2, 3), pair(3, 2), pair(3, 3)]
    test = pair(2, 4, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    (first, *_) = sampled_then_scaled(pairs)
    assert first.actions == (ExactAction(0, (-1, -1), (2, 2), down=True),)
    assert first.then == ExactAction(0, scale=(4, 4))
    solution = solve(Task(id="sample-then-up", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert "layer 1: up-scale 4x4" in solution.candidates[0].detail.replace("\n", " ")
    assert solution.candidates[0].grids[0] == test.output


def test_a_sampling_tiled_then_up_scaled_is_two_layers():
    """Every second row, the result tiled twice, then each row tripled: the second layer's
    up-scaling reads a sampled grid that wraps (a tiling) on the output lattice."""
    from arcsolve.latformer.exact_starts.composed import sampled_then_scaled

    rng = np.random.default_rng(10)
    xs = [rng.integers(0, 6, size=s) for s in [(4, 3), (6, 4), (4, 5)]]
    pairs = [(x, np.repeat(np.tile(x[::2, :], (2, 3)), 3, axis=0)) for x in xs]
    found = sampled_then_scaled(pairs)
    assert found, "no sampling then up-scaling reads the tiled rows"
    first = found[0]
    assert first.then == ExactAction(0, scale=(3, 1))
    assert first.actions[0].down and first.actions[0].scale == (2, 1)
    for x, y in pairs:
        head = reading(first.actions[0], x, y.shape)
        assert np.array_equal(head[np.arange(y.shape[0]) // 3], y)


def test_an_up_scaling_then_a_sampling_is_one_head_with_a_stride():
    """Columns tripled, then every second one (each pair of columns as three), rows as they
    are: output cell j reads input cell ⌊2j/3⌋, one head with a stride; fitted, it answers."""
    from arcsolve.latformer.experts import MaskExperts
    from arcsolve.latformer.explain import describe_head
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(11)

    def pair(h, w, cls=TrainPair):
        x = rng.integers(0, 6, size=(h, w))
        y = np.repeat(x, 3, axis=1)[:, ::2]
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(y))

    train = [pair(3, 4), pair(4, 6), pair(2, 2)]
    test = pair(5, 4, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    action = ExactAction(0, scale=(1, 3), stride=(1, 2))
    assert action in single_actions(pairs)
    for x, y in pairs:
        assert np.array_equal(reading(action, x, y.shape), y)
    plain, strided = MaskExperts(EXPERTS, 0, 5), MaskExperts(EXPERTS, 0, 5, strides=True)
    assert gate_bits(plain, action) is None  # a plain model's strides stay off
    assert set_action(strided, action)
    assert describe_head(strided, [((3, 4), (3, 6))]) == "up-scale 1x3, then down-scale 1x2 by sampling"
    solution = solve(Task(id="up-then-sample", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert "down-scale 1x2 by sampling" in solution.candidates[0].detail.replace("\n", " ")
    assert solution.candidates[0].grids[0] == test.output


def test_rows_sampled_then_scaled_and_columns_scaled_then_sampled_are_two_layers():
    """Every second row, each then tripled; columns tripled, then every second one: the head
    samples the rows and strides the up-scaled columns, the second layer triples the rows."""
    from arcsolve.latformer.exact_starts.composed import sampled_then_scaled
    from arcsolve.latformer.exact_starts.readings import then_reading

    rng = np.random.default_rng(12)
    xs = [rng.integers(0, 6, size=s) for s in [(4, 4), (6, 2), (4, 6)]]
    pairs = [(x, np.repeat(np.repeat(x[::2], 3, axis=0), 3, axis=1)[:, ::2]) for x in xs]
    found = sampled_then_scaled(pairs)
    assert found, "no head with a stride then an up-scaling reads the pairs"
    first = found[0]
    assert first.then == ExactAction(0, scale=(3, 1))
    assert first.actions[0].scale == (1, 3) and first.actions[0].stride == (2, 2)
    for x, y in pairs:
        assert np.array_equal(then_reading(first.then, reading(first.actions[0], x, y.shape)), y)


def test_a_sampling_in_one_direction_and_a_tiling_in_the_other_is_one_head():
    rng = np.random.default_rng(9)
    xs = [rng.integers(0, 6, size=s) for s in [(4, 3), (6, 4), (4, 5)]]
    pairs = [(x, np.tile(x[::2, :], (1, 3))) for x in xs]  # every second row, the columns tiled 3×
    action = ExactAction(0, scale=(2, 1), down=True)
    assert action in single_actions(pairs)
    for x, y in pairs:
        assert np.array_equal(reading(action, x, y.shape), y)


def test_scalings_by_7_and_9_are_single_actions_and_fit():
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    xs = grids([(2, 3), (3, 2), (3, 3)])
    up = [(x, np.kron(x, np.ones((7, 9), dtype=x.dtype))) for x in xs]
    assert ExactAction(0, scale=(7, 9)) in single_actions(up)
    down = [(y, x) for x, y in up]  # 7×9 blocks sampled back to one cell each
    assert ExactAction(0, scale=(7, 9), down=True) in single_actions(down)

    rng = np.random.default_rng(9)  # its own draws, whichever tests run before

    def pair(h, w, cls=TrainPair):
        x = rng.integers(0, 10, size=(h, w))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(np.kron(x, np.ones((9, 7), dtype=x.dtype))))

    train = [pair(2, 3), pair(3, 2), pair(2, 2)]
    test = pair(3, 3, Pair)
    solution = solve(Task(id="up-9x7", train=train, test=[test]), SolveConfig(device="cpu", steps=100))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == test.output


def test_a_grid_padded_after_a_flip_or_a_sampling_is_one_placement_read_as_the_kernels_read():
    from arcsolve.latformer.exact_starts.readings import scaled_cells, source_cells
    from arcsolve.latformer.exact_starts.single_heads import placements

    def pad(g, top, left, bottom=1, right=3):
        return np.pad(g, ((top, bottom), (left, right)))

    xs = grids([(3, 4), (5, 2), (4, 4)])
    flipped = [(x, pad(x[:, ::-1], 2, 1)) for x in xs]
    action = ExactAction(FLIP_LR, (2, 1), fill=True)
    assert action in single_actions(flipped)
    for x, y in flipped:  # the flipped input at (2, 1), and nothing around it
        assert np.array_equal(reading(action, x, y.shape), pad(x[:, ::-1] + 1, 2, 1) - 1)
    big = grids([(4, 6), (6, 4), (8, 8)])
    sampled = [(x, pad(x[1::2, ::2], 0, 0)) for x in big]  # every second cell from row 1, then padded
    (action,) = [a for a in single_actions(sampled) if a.down]
    assert action == ExactAction(0, (-1, 0), (2, 2), fill=True, down=True)
    for x, y in sampled:
        assert np.array_equal(reading(action, x, y.shape), pad(x[1::2, ::2] + 1, 0, 0) - 1)
    # the quick numpy reading is the kernels' own on every placement screened
    for x, y in [*flipped, *sampled]:
        for a in placements([(x, y)])[::2]:
            assert np.array_equal(scaled_cells(a, x.shape, y.shape, 5), source_cells(a, x.shape, y.shape))


def test_an_unscaled_read_at_an_offset_pads_one_axis_and_crops_the_other_or_tiles_from_inside():
    xs = grids([(3, 5), (4, 6), (5, 4)])
    # two rows of background above and one below, two columns cut on the left: rows grow, columns shrink
    mixed = [(x, np.pad(x, ((2, 1), (0, 0)))[:, 2:]) for x in xs]
    action = ExactAction(0, (2, -2), fill=True)
    assert action in single_actions(mixed)
    for x, y in mixed:
        assert np.array_equal(reading(action, x, y.shape), (np.pad(x + 1, ((2, 1), (0, 0))) - 1)[:, 2:])
    # tiled 3×2 from the input's third column on, 2w − 3 columns wide: a cyclic read at an offset
    tiled = [(x, np.tile(x, (3, 2))[:, 2 : 2 * x.shape[1] - 1]) for x in xs]
    action = ExactAction(0, (0, -2))
    assert action in single_actions(tiled)
    for x, y in tiled:
        assert np.array_equal(reading(action, x, y.shape), y)


def test_a_sampling_after_a_crop_or_before_one_is_a_sampling_at_an_offset():
    from arcsolve.latformer.exact_starts.single_heads import _cropped_down_factors

    xs = grids([(9, 8), (7, 10), (11, 6)])
    # cropped by 3 rows above and 1 column each side, then every second cell
    cropped_first = [(x, x[3:, 1:-1][::2, ::2]) for x in xs]
    assert (2, 2) in _cropped_down_factors(cropped_first)
    action = ExactAction(0, (-3, -1), (2, 2), fill=True, down=True)
    assert action in single_actions(cropped_first)
    for x, y in cropped_first:
        assert np.array_equal(reading(action, x, y.shape), y)
    # every second row, then the first and last row cut: a stride by 2 read from row 2
    evens = grids([(8, 5), (10, 4), (12, 6)])
    sampled_first = [(x, x[::2][1:-1]) for x in evens]
    assert (2, 1) in _cropped_down_factors(sampled_first)
    assert any(a.down and a.scale == (2, 1) and a.shift == (-2, 0) for a in single_actions(sampled_first))
    # inputs of one size do not pin a stride down (halves of a grid are no sampling)
    halves = [(x, x[:, :3]) for x in grids([(3, 7), (3, 7), (3, 7)])]
    assert _cropped_down_factors(halves) == []


def test_a_grid_set_on_a_canvas_then_flipped_is_two_layers_that_fit():
    from arcsolve.latformer.exact_starts.composed import placed_then_moved
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(12)  # its own draws, whichever tests run before

    def pair(h, w, cls=TrainPair):  # set at (0, 1) on a 7×8 canvas, then the canvas flipped upside down
        x = rng.integers(1, 6, size=(h, w))
        canvas = np.zeros((7, 8), dtype=x.dtype)
        canvas[:h, 1 : 1 + w] = x
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(canvas[::-1]))

    train = [pair(3, 4), pair(5, 2), pair(2, 6)]
    test = pair(4, 5, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    assert not single_actions(pairs)  # each input lands at its own height: no one placement
    (first, *_) = placed_then_moved(pairs)
    assert first.then is not None and first.actions[0].fill
    solution = solve(Task(id="canvas-then-flip", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == test.output


def test_a_grid_up_scaled_padded_then_rolled_is_two_layers_that_fit():
    """Up-scaled 2×3, padded by one row and one column, then the whole rolled one column
    right: the last third of the last up-scaled column wraps round to the left edge, which
    no placement by whole input cells writes."""
    from arcsolve.latformer.exact_starts.composed import placed_then_moved
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(19)

    def pair(h, w, cls=TrainPair):
        x = rng.integers(1, 6, size=(h, w))
        padded = np.pad(np.repeat(np.repeat(x, 2, axis=0), 3, axis=1), ((1, 0), (1, 0)))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(np.roll(padded, 1, axis=1)))

    train = [pair(3, 4), pair(4, 2), pair(2, 3)]
    test = pair(3, 3, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    found = placed_then_moved(pairs)
    assert any(s.actions[0].scale == (2, 3) and s.then == ExactAction(0, (1, 2)) for s in found)
    solution = solve(Task(id="scaled-padded-rolled", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == test.output


def test_an_up_scaling_tiled_as_mirror_images_is_one_head_read_as_the_kernels_read():
    from arcsolve.latformer.exact_starts.readings import scaled_cells, source_cells

    def mirror_tiled(g, a, b):  # tile (i, j) flipped upside down when i is odd, left-right when j is odd
        def tile(i, j):
            return g[:: -1 if i % 2 else 1, :: -1 if j % 2 else 1]

        return np.concatenate([np.concatenate([tile(i, j) for j in range(b)], 1) for i in range(a)], 0)

    xs = grids([(2, 3), (3, 2), (2, 2)])
    pairs = [(x, mirror_tiled(np.kron(x, np.ones((2, 1), dtype=x.dtype)), 3, 2)) for x in xs]
    action = ExactAction(0, scale=(2, 1), mirror=(True, True))
    assert action in single_actions(pairs)
    for x, y in pairs:
        assert np.array_equal(reading(action, x, y.shape), y)
    for d, mirror, shift in [(3, (True, False), (1, 0)), (5, (False, True), (0, 2)), (6, (True, True), (1, 1))]:
        a = ExactAction(d, shift, (2, 3), mirror=mirror)
        assert np.array_equal(scaled_cells(a, (3, 2), (13, 11), 5), source_cells(a, (3, 2), (13, 11)))


def test_any_one_head_action_then_a_flip_of_the_whole_output_is_one_start():
    from arcsolve.latformer.exact_starts.composed import turned_last
    from arcsolve.latformer.exact_starts.readings import then_reading

    def pair(x):  # blown up 2×, set 2 rows down on a 10×10 canvas, then the canvas flipped left-right
        canvas = np.zeros((10, 10), dtype=x.dtype)
        big = np.kron(x, np.ones((2, 2), dtype=x.dtype))
        canvas[2 : 2 + big.shape[0], : big.shape[1]] = big
        return x, canvas[:, ::-1]

    pairs = [pair(x) for x in grids([(2, 3), (3, 4), (4, 2)])]
    assert not [a for a in single_actions(pairs) if not a.pool]  # each input lands at its own column
    (first, *_) = turned_last(pairs)
    assert first.then == ExactAction(FLIP_LR)
    assert first.actions == (ExactAction(0, (1, 0), (2, 2), fill=True),)  # 1 input cell down, then blown up
    for x, y in pairs:
        assert np.array_equal(np.maximum(then_reading(first.then, reading(first.actions[0], x, y.shape)), 0), y)


def test_a_tiling_of_a_rolled_grid_then_padded_is_a_window_that_fits():
    from arcsolve.latformer.exact_starts.composed import composed_sets
    from arcsolve.latformer.exact_starts.windows import windowed_sets
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(13)  # its own draws, whichever tests run before

    def pair(h, w, cls=TrainPair):  # rolled by (1, 1), tiled 1×2, then 1 row on top and 2 columns left, 1 right
        x = rng.integers(1, 6, size=(h, w))
        canvas = np.zeros((h + 1, 2 * w + 3), dtype=x.dtype)
        canvas[1:, 2 : 2 + 2 * w] = np.tile(np.roll(x, (1, 1), (0, 1)), (1, 2))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(canvas))

    train = [pair(3, 4), pair(4, 3), pair(3, 3)]
    test = pair(4, 5, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    assert not single_actions(pairs)  # a tiling that stops short of the right edge: no one head
    (found,) = windowed_sets(pairs, [(test.input.to_numpy(), (5, 13))])
    assert found.then == ExactAction(0, (1, 2), fill=True)  # the window's offset, moved by the second layer
    assert found.actions[1] == ExactAction(0, scale=(1, 2), fill=True)  # the window: 1×2 input-sized cells
    assert found.unseen == 0
    assert found in composed_sets(pairs, [(test.input.to_numpy(), (5, 13))], [], {}, {})
    solution = solve(Task(id="tiled-then-padded", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == test.output


def test_a_rolled_grid_set_on_a_fixed_canvas_is_a_window_whose_margins_vary():
    from arcsolve.latformer.exact_starts.windows import _window_keys, windowed_sets

    def pair(x):  # rolled by (1, -1), turned 180 degrees, set at (2, 1) on a 9×10 canvas
        canvas = np.zeros((9, 10), dtype=x.dtype)
        canvas[2 : 2 + x.shape[0], 1 : 1 + x.shape[1]] = apply_dihedral(np.roll(x, (1, -1), (0, 1)), 3)
        return x, canvas

    pairs = [pair(x) for x in grids([(3, 4), (4, 3), (5, 5)])]
    test = RNG.integers(0, 6, size=(4, 6))
    (found,) = windowed_sets(pairs, [(test, (9, 10))])
    assert found.then == ExactAction(0, (2, 1), fill=True)
    outputs = np.concatenate([y.reshape(-1) for _, y in pairs])
    assert np.array_equal(np.maximum(_window_keys(found, pairs) - 1, 0), outputs)  # read exactly, 0 outside
    expected = pair(test)[1]
    assert np.array_equal(np.maximum(_window_keys(found, [(test, expected)]) - 1, 0), expected.reshape(-1))


def test_a_grid_scaled_by_three_halves_then_padded_is_a_fractional_window():
    """Columns tripled, then every second one (3/2 of the input's width), then two columns of
    0 on the left: the window is 1 × 3/2 input-sized cells, its head strided."""
    from arcsolve.latformer.exact_starts.windows import _window_keys, windowed_sets
    from arcsolve.latformer.sizing import infer_size_rule

    def pair(x):
        y = np.repeat(x, 3, axis=1)[:, ::2]
        return x, np.pad(y, ((0, 0), (2, 0)))

    pairs = [pair(x) for x in grids([(3, 4), (4, 2), (2, 6)])]
    rule = infer_size_rule([(x.shape, y.shape) for x, y in pairs])
    assert rule.name == "rows ×1/1, columns 3n/2+2" and rule((5, 8)) == (5, 14)
    test = RNG.integers(1, 6, size=(5, 8))
    (found,) = windowed_sets(pairs, [(test, (5, 14))])
    assert found.actions[1].stride == (1, 2) and found.actions[1].scale == (1, 3)  # the window head
    assert found.then == ExactAction(0, (0, 2), fill=True)
    expected = pair(test)[1]
    assert np.array_equal(np.maximum(_window_keys(found, [(test, expected)]) - 1, 0), expected.reshape(-1))


def test_windows_are_placed_by_the_outputs_boxes_so_that_tiny_inputs_on_big_canvases_stay_cheap():
    from arcsolve.latformer.exact_starts.windows import _box, _offsets

    y = np.zeros((9, 10), dtype=int)
    y[3:5, 2:6] = 7
    assert _box(y != 0) == (3, 5, 2, 6) and _box(y == 9) is None
    # a window 4 rows high holds rows 3–4 from offsets 1 to 3; one 2 high only from 3
    assert list(_offsets([_box(y != 0)], [4], room=5, axis=0)) == [1, 2, 3]
    assert list(_offsets([_box(y != 0)], [2], room=7, axis=0)) == [3]
    assert list(_offsets([_box(y != 0), None], [4, 4], room=2, axis=0)) == [1, 2]  # within the least room


def test_a_window_around_a_shift_with_fill_fits_under_colour_permutations():
    # the cell rule treats its heads differently (content where the window head reads something,
    # colour 0 elsewhere), so the heads must write apart: each further one through its own rotation
    from arcsolve.latformer.exact_starts.action_sets import ActionSet
    from arcsolve.latformer.fit import plan_fit
    from arcsolve.latformer.model import LatFormer, LatFormerConfig
    from arcsolve.latformer.restarts import exact_model, fit_with_restarts
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    fitted = 0
    for seed in range(8):  # eight draws of the task
        rng = np.random.default_rng(seed)

        def pair(h, w, cls=TrainPair, rng=rng):  # sparse colours shifted by (1, 1) with fill, padded (1, 2, 2, 3)
            x = np.where(rng.random((h, w)) < 0.4, rng.integers(1, 9, size=(h, w)), 0)
            x[rng.integers(h), -1] = x[-1, rng.integers(w)] = 9  # the shift cuts cells: no other start reads alike
            moved = np.zeros_like(x)
            moved[1:, 1:] = x[:-1, :-1]
            canvas = np.zeros((h + 3, w + 5), dtype=x.dtype)
            canvas[1 : 1 + h, 2 : 2 + w] = moved
            return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(canvas))

        task = Task(id="shifted-then-padded", train=[pair(5, 6), pair(4, 4), pair(6, 5)], test=[pair(5, 5, Pair)])
        plan = plan_fit(task, SolveConfig(device="cpu"))
        (window, *_) = [r for r in plan.restarts if r.exact and r.start.then is not None and len(r.start.actions) == 2]
        result = fit_with_restarts(plan.build, plan.model_config, plan.examples, [window], 100, 0, torch.device("cpu"))
        fitted += result[0].result.solved_train
    assert fitted >= 6
    assert window.start.window
    model = exact_model(LatFormer, LatFormerConfig(), window.start, seed=3)
    first, (w,) = model.layers[0].o.weight, [o.weight for o in model.layers[0].more_o]
    assert not torch.allclose(w, first)
    assert torch.allclose(w @ w.T, torch.eye(w.shape[0]), atol=1e-5)  # a rotation: apart, and its size kept
    overlay = ActionSet((ExactAction(), ExactAction(1), ExactAction(2)), 0, 0)  # heads alike in role
    model = exact_model(LatFormer, LatFormerConfig(), overlay, seed=3)
    assert all(torch.equal(o.weight, torch.eye(o.weight.shape[0])) for o in model.layers[0].more_o)


def test_a_sampled_grid_tiled_back_to_its_size_is_one_head_with_a_stride():
    """Every second row and column, tiled 2×2 back to the input's size (on an odd side, every
    second cell then the others): output cell i reads 2i mod n, a stride of 2 that wraps."""
    from arcsolve.latformer.experts import MaskExperts
    from arcsolve.latformer.explain import describe_head
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(13)

    def sampled_and_tiled(x):
        rows, cols = (2 * np.arange(n) % n for n in x.shape)
        return x[np.ix_(rows, cols)]

    def pair(h, w, cls=TrainPair):
        x = rng.integers(0, 6, size=(h, w))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(sampled_and_tiled(x)))

    train = [pair(4, 6), pair(6, 4), pair(4, 4)]
    test = pair(6, 5, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    action = ExactAction(0, stride=(2, 2))
    assert action in single_actions(pairs)
    x = test.input.to_numpy()
    assert np.array_equal(reading(action, x, x.shape), sampled_and_tiled(x))
    strided = MaskExperts(EXPERTS, 0, 5, strides=True)
    assert set_action(strided, action)
    assert describe_head(strided, [((4, 6), (4, 6))]).endswith("wrapped cyclically (tiled)")
    assert describe_head(strided, [((4, 8), (2, 4))]) == "down-scale 2x2 by sampling"  # no wrap: not named
    solution = solve(Task(id="sampled-then-tiled", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert solution.candidates[0].grids[0] == test.output


def test_cyclic_shifts_alike_on_the_train_lattices_but_not_the_test_are_two_starts():
    """Rolled by 3 columns on inputs 5 wide, which -2 columns reads alike, then up-scaled
    1×3: on a test input 3 wide the two rolls differ, so both are starts."""
    rng = np.random.default_rng(14)
    xs = [rng.integers(0, 6, size=(h, 5)) for h in (2, 4, 3)]
    pairs = [(x, np.repeat(np.roll(x, 3, axis=1), 3, axis=1)) for x in xs]
    test = rng.integers(0, 6, size=(3, 3))
    found = [s.actions[0].shift for s in consistent_sets(pairs, [(test, (3, 9))]) if len(s.actions) == 1]
    assert (0, 3) in found and (0, -2) in found
    assert len([s for s in consistent_sets(pairs) if s.actions[0].scale == (1, 3)]) == 1  # no test: one start


def test_a_shift_with_fill_then_a_tiling_is_one_head_with_a_tiled_fill():
    """Shifted down one row with fill, then tiled 1×3: each tile is the shifted input, so the
    head wraps as a tiling does and fills inside each tile; fitted, it answers the test."""
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(15)

    def pair(h, w, cls=TrainPair):
        x = rng.integers(0, 6, size=(h, w))
        y = np.tile(shifted_with_fill(x, 1, 0), (1, 3))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(y))

    train = [pair(3, 4), pair(4, 3), pair(3, 3)]
    test = pair(5, 2, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    action = ExactAction(0, (1, 0), fill=True, tiled_fill=True)
    assert action in single_actions(pairs)
    assert ExactAction(0, (1, 0), fill=True) not in single_actions(pairs)  # unwrapped: one tile, then nothing
    assert action.words() == "shift +1,+0 with fill inside each tile"
    solution = solve(Task(id="filled-then-tiled", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    assert "with fill inside each tile" in solution.candidates[0].detail.replace("\n", " ")
    assert solution.candidates[0].grids[0] == test.output


def test_a_shift_with_fill_then_mirror_images_is_one_head():
    """Shifted right one column with fill, then tiled 1×2 as mirror images."""
    rng = np.random.default_rng(16)
    xs = [rng.integers(0, 6, size=s) for s in [(3, 4), (4, 3), (2, 5)]]
    pairs = []
    for x in xs:
        moved = shifted_with_fill(x, 0, 1)
        pairs.append((x, np.concatenate([moved, moved[:, ::-1]], axis=1)))
    action = ExactAction(0, (0, 1), fill=True, mirror=(False, True), tiled_fill=True)
    assert action in single_actions(pairs)
    for x, y in pairs:
        assert np.array_equal(np.where(reading(action, x, y.shape) < 0, 0, reading(action, x, y.shape)), y)


def test_a_turned_grid_sampled_one_way_and_tiled_the_other_is_one_head():
    """Rotated a quarter turn, every second column, then tiled 2×3: the stride is per output
    axis (1 on the rows, 2 on the columns) whichever input axis each output axis reads."""
    from arcsolve.latformer.exact_starts.single_heads import _tiled_down_factors

    rng = np.random.default_rng(17)
    turn = ELEMENT_NAMES.index("rotate 90 counter-clockwise")
    xs = [rng.integers(0, 6, size=s) for s in [(8, 3), (4, 3), (2, 3)]]
    pairs = [(x, np.tile(apply_dihedral(x, turn)[:, ::2], (2, 3))) for x in xs]
    assert (1, 2) in _tiled_down_factors(pairs)
    assert ExactAction(turn, scale=(1, 2), down=True) in single_actions(pairs)


def test_an_up_scaling_then_a_sampling_that_wraps_as_mirror_images_is_one_head():
    """Rows tiled as mirror images (x over its flip), up-scaled 3×3, then every second row:
    output row i reads row ⌊2i/3⌋ of the mirror tiling, a stride that wraps as mirror images.
    Fitted, it answers, and --explain names the mirror, not a cyclic wrap."""
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(18)

    def chained(x):
        return np.repeat(np.repeat(np.concatenate([x, x[::-1]]), 3, axis=0), 3, axis=1)[::2]

    def pair(h, w, cls=TrainPair):
        x = rng.integers(0, 6, size=(h, w))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(chained(x)))

    train = [pair(2, 5), pair(4, 3), pair(3, 4)]
    test = pair(5, 3, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    action = ExactAction(0, scale=(3, 3), mirror=(True, False), stride=(2, 1))
    assert action in single_actions(pairs)
    assert replace(action, mirror=(False, False)) not in single_actions(pairs)  # cyclically: x, then x again
    x = test.input.to_numpy()
    assert np.array_equal(reading(action, x, (15, 9)), chained(x))
    solution = solve(Task(id="mirrored-scaled-sampled", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    assert solution.candidates[0].verified
    detail = solution.candidates[0].detail.replace("\n", " ")
    assert "mirror-wrap rows" in detail and "cyclically" not in detail
    assert solution.candidates[0].grids[0] == test.output


def test_a_colour_the_train_pairs_turn_into_but_never_read_is_swapped_back_in_attempt_2():
    """Every second row and column, then colours 5 and 6 swapped, where no train cell samples
    a 6: the pairs show 5 becoming 6 only. The test samples a 6, whose answer they do not
    tell; attempt 2 takes it as the swap's other half (5), and changes no other cell."""
    from arcsolve.latformer.exact_starts.action_sets import ActionSet
    from arcsolve.latformer.exact_starts.colours import swapped_unseen
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(20)
    swap = np.arange(10)
    swap[5], swap[6] = 6, 5

    def pair(h, w, sampled_six, cls=TrainPair):
        x = rng.choice([0, 1, 2, 5], size=(h, w))
        x[0, 0] = 5
        x[1::2, :] = rng.choice([0, 6], size=x[1::2, :].shape)  # 6 only where no sample falls
        if sampled_six:
            x[2, 2] = 6
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(swap[x[::2, ::2]]))

    train = [pair(4, 6, False), pair(6, 4, False), pair(4, 4, False)]
    test = pair(6, 6, True, Pair)
    pairs = [(p.input.to_numpy(), p.output.to_numpy()) for p in train]
    start = ActionSet((ExactAction(0, scale=(2, 2), down=True),), 0, 0)
    x, truth = test.input.to_numpy(), test.output.to_numpy()
    unchanged = x[::2, ::2].copy()  # an answer that keeps the unseen 6
    answer = swapped_unseen(start, pairs, x, unchanged)
    assert answer is not None and answer[1, 1] == 5
    assert np.array_equal(np.delete(answer.reshape(-1), 4), np.delete(unchanged.reshape(-1), 4))
    assert swapped_unseen(start, pairs, x, answer) is None  # already answered so: nothing to change
    assert swapped_unseen(start, pairs, pairs[0][0], pairs[0][1]) is None  # every colour read before
    solution = solve(Task(id="sampled-then-swapped", train=train, test=[test]), SolveConfig(device="cpu", steps=150))
    grids = [c.grids[0] for c in solution.candidates[:2]]
    assert Grid.from_numpy(truth) in grids
    swapped = [c for c in solution.candidates if "swapped" in c.detail]
    assert swapped and not swapped[0].verified and swapped[0].grids[0] == Grid.from_numpy(truth)


def test_a_colour_swap_seen_one_way_is_swapped_back_under_a_rule_of_two_readings():
    """Two heads, the input and its mirror image; where the mirror image is not 0 the cell's
    colour is kept, 5 becoming 6, else 0. No train input holds a 6, so the test's 6s (read by
    either head) are swapped back through the rule: a 6 becomes 5, and a 6 that the mirror
    head reads counts as the 5 it swaps with (not 0)."""
    from arcsolve.latformer.exact_starts.action_sets import ActionSet
    from arcsolve.latformer.exact_starts.colours import swapped_unseen

    rng = np.random.default_rng(21)
    swap = np.arange(10)
    swap[5], swap[6] = 6, 5

    def rule(x):
        return np.where(x[:, ::-1] != 0, swap[x], 0)

    xs = [rng.choice([0, 1, 2, 5], size=s) for s in [(4, 5), (5, 4), (3, 6)]]
    pairs = [(x, rule(x)) for x in xs]
    start = ActionSet((ExactAction(0), ExactAction(FLIP_LR)), 0, 0)
    test = rng.choice([0, 1, 2], size=(4, 6))
    test[0, 0], test[0, 5] = 6, 1  # a 6 whose mirror image is not 0 (and a 6 the mirror head reads)
    test[1, 1], test[1, 4] = 6, 0  # a 6 whose mirror image is 0
    test[2, 2], test[2, 3] = 5, 2  # a 5 as the pairs show it
    seen = np.isin(test, [0, 1, 2, 5]) & np.isin(test[:, ::-1], [0, 1, 2, 5])
    guess = np.where(seen, rule(test), 7)  # the rule where the pairs answer, elsewhere a guess
    answer = swapped_unseen(start, pairs, test, guess)
    assert answer is not None and np.array_equal(answer, rule(test))
    assert answer[0, 0] == 5 and answer[0, 5] == 1 and answer[1, 1] == 0 and answer[2, 2] == 6


def test_the_swapped_answer_comes_second_before_other_restarts_that_reproduce_the_pairs():
    """0 and 5 swapped, where no train input holds a 5: the test's 5s are left to chance by
    the identity's answer, and a restart of four heads also reproduces the pairs. The swap's
    other half (a 5 becomes 0) is attempt 2, ahead of that restart."""
    from arcsolve.latformer.fit import solve
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    inputs = [
        [[0, 4, 0, 4, 7, 0, 1], [1, 7, 7, 0, 4, 0, 1], [0, 0, 7, 7, 4, 4, 0], [4, 7, 0, 7, 0, 0, 0]],
        [[0, 0, 2, 9, 2, 9, 1, 0], [9, 0, 0, 0, 0, 2, 2, 2], [2, 0, 0, 1, 0, 2, 9, 1]],
        [[2, 0, 2, 8, 2, 8], [0, 0, 2, 8, 0, 0], [2, 0, 0, 7, 7, 7], [0, 8, 0, 7, 0, 8], [8, 8, 8, 2, 7, 8]],
        [[0, 0, 0], [0, 0, 5], [5, 0, 6], [0, 5, 6], [6, 2, 0], [0, 0, 5], [0, 0, 0], [0, 0, 0]],
    ]
    swap = np.arange(10)
    swap[0], swap[5] = 5, 0
    grids = [(np.array(x), swap[np.array(x)]) for x in inputs]
    train = [TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(y)) for x, y in grids[:3]]
    test = Pair(input=Grid.from_numpy(grids[3][0]), output=Grid.from_numpy(grids[3][1]))
    solution = solve(Task(id="swap-with-background", train=train, test=[test]), SolveConfig(device="cpu", steps=300))
    first, second = solution.candidates[:2]
    assert first.verified and first.grids[0] != test.output  # the 5s left to chance
    assert "swapped" in second.detail and second.grids[0] == test.output
