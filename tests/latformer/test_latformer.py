"""Mask experts, smoothing, the LatFormer model, output-size rules and the fit loop."""

import numpy as np
import pytest
import torch

from arcsolve.latformer.experts import (
    SCALE_CHAIN,
    SCALE_FACTORS,
    MaskExperts,
    dihedral_distribution,
    heat_kernel,
    shift_distribution,
)
from arcsolve.latformer.fit import FitConfig, colour_permutations, describe_actions, fit, fixed_colours, solve
from arcsolve.latformer.mask_kernels import build_mask, mask_bases, mask_from_bases
from arcsolve.latformer.model import LatFormer, LatFormerConfig, lattices
from arcsolve.latformer.reference_masks import masked_attention
from arcsolve.latformer.sizing import alternative_sizes, infer_size_rule
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig
from arcsolve.symmetry import DIHEDRAL, ROT90, ROT180, apply_dihedral
from arcsolve.tasks import Grid, Pair, Task, TrainPair

ALL = ("translate", "rotate", "reflect", "scale")


def experts_with(settings: dict[str, list[int]]) -> MaskExperts:
    """Experts whose discretised gates are exactly `settings` (others off)."""
    experts = MaskExperts(ALL)
    with torch.no_grad():
        experts.gate_bias.fill_(-20.0)
        for name, bits in settings.items():
            where = experts.gate_slice(name)
            bits = bits + [0] * (where.stop - where.start - len(bits))  # unnamed gates (fills) off
            experts.gate_bias[where] = torch.tensor([20.0 if b else -20.0 for b in bits])
    return experts


def apply_mask(mask: torch.Tensor, grid: np.ndarray, out_shape) -> np.ndarray:
    x = torch.tensor(np.eye(10)[grid.reshape(-1)])
    mask = mask.double()
    query = mask / mask.sum(1, keepdim=True) @ x  # as the model's first layer does
    out = masked_attention(query, x, x, mask)
    return out.argmax(-1).numpy().reshape(out_shape)


SHAPES = [(1, 1), (2, 3), (3, 2), (4, 4), (3, 7), (6, 5)]
CASES = {
    "rotate 90 ccw": ({"rotate": [1, 0]}, np.rot90, True),
    "rotate 180": ({"rotate": [0, 1]}, lambda x: np.rot90(x, 2), False),
    "rotate 270": ({"rotate": [1, 1]}, lambda x: np.rot90(x, 3), True),
    "flip up-down": ({"reflect": [1, 0, 0, 0, 0]}, lambda x: x[::-1], False),
    "flip left-right": ({"reflect": [0, 1, 0, 0, 0]}, lambda x: x[:, ::-1], False),
    "transpose": ({"reflect": [0, 0, 1, 0, 0]}, lambda x: x.T, True),
    "roll +1,-2": (
        {"translate": [1, 0, 0, 0, 0, 0] + [0, 1, 0, 0, 0, 1]},
        lambda x: np.roll(x, (1, -2), (0, 1)),
        False,
    ),
    "roll +5,+3": ({"translate": [1, 0, 1, 0, 0, 0] + [1, 1, 0, 0, 0, 0]}, lambda x: np.roll(x, (5, 3), (0, 1)), False),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", list(CASES))
def test_discrete_gates_give_exact_lattice_actions(shape, case):
    settings, op, transposes = CASES[case]
    x = np.random.default_rng(sum(shape)).integers(0, 10, size=shape)
    out_shape = shape[::-1] if transposes else shape
    actions = experts_with(settings).actions(discrete=True)
    mask = build_mask(actions, shape, out_shape)
    assert set(mask.unique().tolist()) <= {0.0, 1.0} and (mask.sum(1) == 1).all()
    assert (apply_mask(mask, x, out_shape) == op(x)).all()


@pytest.mark.parametrize("factors", [(2, 2), (3, 2), (1, 4), (5, 3), (7, 1), (2, 9)])
def test_scaling_expert_up_and_down(factors):
    a, b = factors
    bits = {f: [int(g == f) for g in SCALE_CHAIN] for f in (1, *SCALE_CHAIN)}
    x = np.random.default_rng(a * b).integers(0, 10, size=(3, 2))
    up = experts_with({"scale": bits[a] + bits[b] + [0]}).actions(discrete=True)
    big = np.kron(x, np.ones((a, b), dtype=int))
    assert (apply_mask(build_mask(up, (3, 2), big.shape), x, big.shape) == big).all()
    down = experts_with({"scale": bits[a] + bits[b] + [1]}).actions(discrete=True)
    assert (apply_mask(build_mask(down, big.shape, (3, 2)), big, (3, 2)) == x).all()


def test_tiling_and_crop_come_from_wrapping():
    x = np.random.default_rng(3).integers(0, 10, size=(2, 3))
    identity = experts_with({}).actions(discrete=True)
    assert (apply_mask(build_mask(identity, (2, 3), (4, 9)), x, (4, 9)) == np.tile(x, (2, 3))).all()
    shift = experts_with({"translate": [1, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0]}).actions(discrete=True)
    big = np.random.default_rng(4).integers(0, 10, size=(5, 5))
    assert (apply_mask(build_mask(shift, (5, 5), (3, 5)), big, (3, 5)) == big[1:4]).all()


def test_mirror_wrap_tiles_with_alternating_reflections():
    x = np.random.default_rng(6).integers(0, 10, size=(2, 3))
    mirrored = experts_with({"reflect": [0, 0, 0, 1, 1]}).actions(discrete=True)
    expected = np.block([[x, x[:, ::-1], x], [x[::-1], x[::-1, ::-1], x[::-1]]])
    assert (apply_mask(build_mask(mirrored, (2, 3), (4, 9)), x, (4, 9)) == expected).all()
    rows_only = experts_with({"reflect": [0, 0, 0, 1, 0]}).actions(discrete=True)
    assert (
        apply_mask(build_mask(rows_only, (2, 3), (4, 6)), x, (4, 6)) == np.block([[x, x], [x[::-1], x[::-1]]])
    ).all()


def test_experts_multiply_masks_rotation_then_reflection():
    x = np.random.default_rng(5).integers(0, 10, size=(3, 5))
    actions = experts_with({"rotate": [1, 0], "reflect": [1, 0, 0, 0, 0]}).actions(discrete=True)
    assert (apply_mask(build_mask(actions, (3, 5), (5, 3)), x, (5, 3)) == np.rot90(x)[::-1]).all()


def test_gated_chain_expands_to_products_of_gates():
    gates = torch.tensor([0.3, 0.8])  # rot90, rot180
    dist = dihedral_distribution(gates, (ROT90, ROT180))
    assert torch.isclose(dist.sum(), torch.tensor(1.0))
    assert torch.isclose(dist[0], torch.tensor(0.7 * 0.2))  # identity
    assert torch.isclose(dist[ROT180], torch.tensor(0.7 * 0.8))
    shifts = shift_distribution(torch.tensor([0.5, 0.0, 0.0, 0.0, 0.0]), torch.tensor(0.25))
    span = 31
    assert torch.isclose(shifts[span], torch.tensor(0.5))  # δ = 0
    assert torch.isclose(shifts[span + 1], torch.tensor(0.5 * 0.75))
    assert torch.isclose(shifts[span - 1], torch.tensor(0.5 * 0.25))


def test_soft_masks_are_row_stochastic_mixtures_and_differentiable():
    experts = MaskExperts(ALL)
    mask = build_mask(experts.actions(), (3, 4), (6, 8))
    assert mask.shape == (48, 12) and (mask >= 0).all()
    mask.sum().backward()
    assert experts.gate_bias.grad.abs().sum() > 0


PADDED_CASES = [((3, 5), (5, 3)), ((2, 3), (4, 9)), ((4, 4), (2, 2)), ((3, 4), (2, 6))]


@pytest.mark.parametrize(("in_shape", "out_shape"), PADDED_CASES)
def test_a_padded_canvas_holds_the_real_mask_and_nothing_else(in_shape, out_shape):
    torch.manual_seed(sum(in_shape + out_shape))
    experts = MaskExperts(ALL)
    with torch.no_grad():
        experts.gate_bias.normal_()  # a soft mixture of every action, mirror-wrapping included
    actions = experts.actions()
    (h, w), (H, W), S, s = in_shape, out_shape, 10, 8
    padded = mask_from_bases(actions, mask_bases(in_shape, out_shape, 31, (S, s))).view(S, S, s, s)
    real = build_mask(actions, in_shape, out_shape).view(H, W, h, w)
    assert torch.allclose(padded[:H, :W, :h, :w], real, atol=1e-6)
    padded[:H, :W, :h, :w] = 0
    assert (padded == 0).all()


@pytest.mark.parametrize(("in_shape", "out_shape"), [((3, 5), (5, 3)), ((2, 3), (4, 6)), ((4, 3), (2, 6))])
def test_the_model_on_a_padded_canvas_gives_the_real_logits(in_shape, out_shape):
    torch.manual_seed(0)
    model = LatFormer(LatFormerConfig()).double()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.3)  # away from the identity initialisation
    x = torch.randint(0, 10, (2, *in_shape))
    (H, W), S, s = out_shape, 7, 6
    canvas = torch.zeros(2, s, s, dtype=torch.long)
    canvas[:, : in_shape[0], : in_shape[1]] = x
    pad = lattices(in_shape, out_shape, 31, (S, s), torch.device("cpu"), torch.float64)
    for smooth in (False, True):
        real, _ = model(x, out_shape, smooth=smooth)
        padded, _ = model(canvas, (S, S), smooth=smooth, lattice=pad)
        assert torch.allclose(padded[:, :H, :W], real, atol=1e-10)


def test_smoothing_is_heat_diffusion_over_the_group_graph():
    kernel = heat_kernel("dihedral", 8, 1.0)
    assert torch.allclose(kernel.sum(0), torch.ones(8), atol=1e-5)  # mass is kept
    actions = experts_with({"rotate": [1, 0]}).actions(discrete=True)
    smooth = actions.smoothed(1.0)
    assert torch.isclose(smooth.dihedral.sum(), torch.tensor(1.0))
    assert smooth.dihedral.max() < 1.0 and (smooth.dihedral > 0).sum() == 8
    assert int(smooth.dihedral.argmax()) == int(actions.dihedral.argmax())
    path = heat_kernel("path", len(SCALE_FACTORS), 0.5)
    assert path[0, 1] > path[0, 2] > 0


def test_scale_factors_ascend_from_one():
    # the action lists take SCALE_FACTORS for an axis's factor, "not scaled" included
    assert SCALE_FACTORS[0] == 1 and list(SCALE_FACTORS) == sorted(set(SCALE_FACTORS))


def test_dihedral_table_covers_the_group():
    x = np.arange(6).reshape(2, 3)
    images = {apply_dihedral(x, e).tobytes() + bytes(apply_dihedral(x, e).shape) for e in range(len(DIHEDRAL))}
    assert len(images) == 8


def test_model_starts_as_the_mask_action():
    """Identity initialisation: with discretised gates set to an action, the untrained model
    already outputs that action (Q, K, V, O = I, FFN = 0, head = embedding)."""
    torch.manual_seed(0)
    model = LatFormer(LatFormerConfig(d_model=64))
    layer0 = model.layers[0].experts
    with torch.no_grad():
        layer0.gate_bias.fill_(-20.0)
        layer0.gate_bias[layer0.gate_slice("rotate")] = torch.tensor([20.0, -20.0])
        for layer in model.layers[1:]:
            layer.experts.gate_bias.fill_(-20.0)
    x = torch.randint(0, 10, (4, 3, 5))
    logits, loss = model(x, (5, 3), targets=torch.rot90(x, 1, (1, 2)), discrete=True)
    assert logits.shape == (4, 5, 3, 10)
    assert torch.equal(logits.argmax(-1), torch.rot90(x, 1, (1, 2)))
    assert "rotate 90 counter-clockwise" in describe_actions(model)


def test_explanation_names_mirror_wrapping_only_where_it_changes_the_result():
    model = LatFormer(LatFormerConfig())
    experts = model.layers[0].experts
    with torch.no_grad():
        for layer in model.layers:
            layer.experts.gate_bias.fill_(-20.0)
        experts.gate_bias[experts.gate_slice("rotate")] = torch.tensor([20.0, -20.0])  # rotate 90
        reflect = experts.gate_slice("reflect")
        experts.gate_bias[reflect.start + 3] = 20.0  # mirror-wrap rows
    first = describe_actions(model).split(";")[0]
    assert first == "layer 0: rotate 90 counter-clockwise, then mirror-wrap rows"  # shapes unknown
    assert describe_actions(model, [((3, 5), (5, 3))]).split(";")[0] == "layer 0: rotate 90 counter-clockwise"
    # an output with more rows than the input has columns (which rotated rows read) wraps them
    assert "mirror-wrap rows" in describe_actions(model, [((3, 5), (5, 3)), ((2, 2), (4, 2))])
    assert "mirror-wrap" not in describe_actions(model, [((5, 3), (3, 5))])


def test_size_rules():
    assert infer_size_rule([((3, 4), (3, 4)), ((5, 2), (5, 2))])((7, 1)) == (7, 1)
    assert infer_size_rule([((3, 4), (4, 3)), ((5, 2), (2, 5))]).name == "transpose"
    assert infer_size_rule([((3, 4), (6, 12)), ((1, 2), (2, 6))])((2, 2)) == (4, 6)
    assert infer_size_rule([((6, 4), (3, 2)), ((2, 8), (1, 4))])((4, 4)) == (2, 2)
    assert infer_size_rule([((3, 4), (9, 9)), ((5, 2), (9, 9))])((1, 1)) == (9, 9)
    assert infer_size_rule([((3, 4), (6, 8)), ((3, 4), (6, 8))])((2, 2)) == (4, 4)  # ratio first
    assert infer_size_rule([((3, 4), (9, 9)), ((3, 4), (2, 2))]) is None
    assert infer_size_rule([((4, 4), (16, 16)), ((3, 2), (9, 4))])((5, 5)) == (25, 25)  # fractal
    assert infer_size_rule([((3, 3), (9, 9)), ((3, 3), (9, 9))])((4, 4)) == (12, 12)  # ratio first
    # a fraction per axis: every second cell then tripled (3/2), or rows tripled and columns halved
    assert infer_size_rule([((4, 6), (6, 9)), ((8, 4), (12, 6))])((6, 6)) == (9, 9)
    rule = infer_size_rule([((2, 4), (6, 2)), ((3, 6), (9, 3))])
    assert rule.name == "rows ×3/1, columns ×1/2" and rule((4, 8)) == (12, 4)
    rule = infer_size_rule([((3, 6), (27, 9)), ((2, 2), (18, 3)), ((3, 8), (27, 12))])  # tiled 9×; sampled, tiled 3×
    assert rule.name == "rows ×9/1, columns ×3/2" and rule((2, 6)) == (18, 9)
    # a fixed side, or the input's side (or a multiple of it) plus a constant: a padding
    rule = infer_size_rule([((4, 4), (6, 9)), ((5, 7), (7, 9))])
    assert rule.name == "rows n+2, columns fixed 9" and rule((3, 2)) == (5, 9)
    assert infer_size_rule([((2, 4), (9, 3)), ((3, 6), (13, 5))])((4, 5)) == (17, 4)  # tiled 4×, then padded
    assert infer_size_rule([((4, 4), (6, 6)), ((5, 5), (13, 7)), ((6, 6), (8, 8))]) is None  # no one rule
    # padded, then every second cell: (n + 1) / 2; mirror-tiled 3× twice, then padded: 9n + 1
    rule = infer_size_rule([((3, 4), (2, 37)), ((5, 6), (3, 55)), ((7, 2), (4, 19))])
    assert rule.name == "rows (n+1)/2, columns 9n+1" and rule((9, 3)) == (5, 28)


def test_per_axis_rules_take_the_fewest_bits_and_the_rest_are_alternatives():
    # every train input has 6 rows: 7 output rows are a padding n + 1, a fixed 7 or 7/6 of them
    pairs = [((6, 5), (7, 7)), ((6, 6), (7, 8))]
    assert infer_size_rule(pairs).name == "rows n+1, columns n+2"
    assert [r((4, 2)) for r in alternative_sizes(pairs, [(4, 2)], most=2)] == [(7, 4), (4, 4)]
    # three rows tripled 9× beats a fixed 27; 8 columns read as rows, 3/2 of them, beats a
    # rule of rows from rows that the two pairs fit by chance
    assert infer_size_rule([((3, 6), (27, 9)), ((3, 2), (27, 3))]).name == "rows ×9/1, columns ×3/2"
    assert infer_size_rule([((8, 6), (9, 12)), ((6, 4), (6, 9))]).name == "transposed, rows ×3/2, columns ×3/2"
    assert alternative_sizes(pairs, [(6, 9)]) == []  # a test input of 6 rows: every rule agrees
    assert alternative_sizes([((3, 4), (4, 6)), ((5, 2), (6, 4))], [(2, 2)]) == []  # sides that vary
    assert alternative_sizes([((3, 4), (9, 9)), ((3, 4), (2, 2))], [(2, 2)]) == []  # no rule at all


def test_an_axis_the_pairs_leave_open_takes_the_other_axis_rule_where_it_fits():
    # padded by one cell a side, then up-scaled 2×: rows 2n + 4 on inputs of 3 to 5 rows; every
    # input has 5 columns and every output 14, which 3n − 1 also fits in fewer bits, but the
    # columns' rule written as the rows' again costs one bit
    pairs = [((3, 5), (10, 14)), ((4, 5), (12, 14)), ((5, 5), (14, 14))]
    rule = infer_size_rule(pairs)
    assert rule.name == "rows 2n+4, columns 2n+4" and rule((5, 3)) == (14, 10)
    # where the columns vary, they keep a rule of their own
    pairs = [((3, 5), (10, 14)), ((4, 6), (12, 17)), ((5, 4), (14, 11))]
    assert infer_size_rule(pairs).name == "rows 2n+4, columns 3n-1"


def test_attempt_2_is_the_verified_answer_at_the_next_likeliest_size():
    # two rows of background below; every train input has 2 rows, so the first rule doubles
    # the rows (4 of 2) and the test's 3 rows get 6 output rows; a padding n + 2 comes next
    rng = np.random.default_rng(3)

    def padded(x: np.ndarray) -> np.ndarray:
        return np.pad(x, ((0, 2), (0, 0)))

    inputs = [rng.integers(1, 10, size=shape) for shape in ((2, 5), (2, 6), (3, 4))]
    pairs = [TrainPair(input=Grid.from_numpy(x), output=Grid.from_numpy(padded(x))) for x in inputs]
    task = Task(id="padded", train=pairs[:2], test=[Pair(input=pairs[2].input, output=pairs[2].output)])
    solution = solve(task, SolveConfig(device="cpu", steps=30, seed=0))
    first, second = solution.candidates[:2]
    assert first.verified and first.grids[0].shape == (6, 4) and "size multiplied by 2x1" in first.detail
    assert not second.verified and second.grids[0].to_numpy().tolist() == padded(inputs[2]).tolist()
    assert "size rows n+2, columns ×1/1" in second.detail and "leave the test size open" in second.detail


def test_colour_permutations_keep_fixed_colours_and_start_with_identity():
    perms = colour_permutations(10, [0, 3], torch.Generator().manual_seed(0))
    assert perms.shape == (11, 10)
    assert torch.equal(perms[0], torch.arange(10))
    assert (perms[:, 0] == 0).all() and (perms[:, 3] == 3).all()
    assert all(sorted(p.tolist()) == list(range(10)) for p in perms)
    examples = [(torch.tensor([[1, 2]]), torch.tensor([[2, 5]]))]
    assert fixed_colours(examples) == [0, 1, 5]  # the background always stays


def test_fit_is_deterministic_and_reproduces_a_rotation():
    x = torch.tensor([[1, 2, 0], [0, 3, 0]])
    examples = [(x, torch.rot90(x, -1)), (x.T.contiguous(), torch.rot90(x.T, -1).contiguous())]
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = LatFormer(LatFormerConfig(experts=("rotate",), n_layers=1))
        runs.append(fit(model, examples, FitConfig(steps=60, seed=3, augmentations=4)))
    assert runs[0].losses == runs[1].losses
    assert runs[0].solved_train


def test_solve_predicts_the_bundled_rotation_example(examples):
    [task] = load_tasks(examples / "rotate.json")
    solution = solve(task, SolveConfig(device="cpu", steps=150, priors=("rotate",)))
    best = solution.candidates[0]
    assert best.verified
    assert best.grids[0] == task.test[0].output
    assert "rotate 90 clockwise" in best.detail


def test_solve_gives_up_honestly_without_a_size_rule():
    from arcsolve.tasks import task_from_dict

    task = task_from_dict(
        {
            "train": [{"input": [[1]], "output": [[1, 1]]}, {"input": [[1, 2]], "output": [[1]]}],
            "test": [{"input": [[3]]}],
        },
        "odd",
        "x",
    )
    assert solve(task, SolveConfig(device="cpu", steps=5)).candidates == []


def test_augmentation_count_respects_the_request_and_the_cell_budget():
    """0 asked → 0 (identity only); big grids get fewer permutations than asked, never none."""
    x = torch.zeros((30, 30), dtype=torch.long)
    big = [(x, x)] * 4  # 7200 cells: the 12 000-cell budget leaves room for one permutation
    seen = []

    class Spy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(()))

        def forward(self, grids, out_shape, targets=None, cond=None, discrete=False, smooth=False):
            seen.append(grids.shape[0])
            logits = torch.zeros(grids.shape[0], *out_shape, 10) + self.w
            loss = logits.sum() if targets is not None else None
            return logits, loss

    fit(Spy(), big, FitConfig(steps=1, augmentations=10, smoothing_loss=False, check_every=100))
    assert seen[0] == 4 * 2  # identity + 1 permutation, for each of the 4 pairs
    seen.clear()
    fit(Spy(), big, FitConfig(steps=1, augmentations=0, smoothing_loss=False, check_every=100))
    assert seen[0] == 4


def test_a_size_rule_that_leaves_a_test_output_no_cells_plans_no_fit():
    from arcsolve.latformer.fit import plan_fit
    from arcsolve.solution import SolveConfig
    from arcsolve.tasks import Grid, Pair, Task, TrainPair

    rng = np.random.default_rng(3)

    def pair(h, w, cls=TrainPair):  # the input less a border of one cell
        x = rng.integers(0, 10, size=(h, w))
        return cls(input=Grid.from_numpy(x), output=Grid.from_numpy(x[1:-1, 1:-1]))

    train = [pair(5, 5), pair(6, 4), pair(4, 7)]
    config = SolveConfig(device="cpu", steps=10)
    assert plan_fit(Task(id="border", train=train, test=[pair(5, 6, Pair)]), config) is not None
    small = Pair(input=Grid.from_numpy(rng.integers(0, 10, size=(2, 2))), output=None)
    assert plan_fit(Task(id="border", train=train, test=[small]), config) is None  # 0×0: no grid
    solution = solve(Task(id="border", train=train, test=[small]), config)
    assert not solution.candidates
