"""Synthetic geometric tasks, the baselines, the noise embedding and the benchmark's quick path."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from arcsolve.bench.baselines import AttentionBaseline, BaselineConfig, TransformerBaseline
from arcsolve.bench.sample_efficiency import run_synthetic
from arcsolve.bench.study_fits import NoisyInput, noisy_embedding, to_examples
from arcsolve.bench.study_plan import choose_setting
from arcsolve.bench.synthetic_tasks import (
    CATEGORIES,
    Transform,
    all_transforms,
    make_task,
    sample_transforms,
)
from arcsolve.errors import ArcsolveError
from arcsolve.latformer.fit import FitConfig, fit
from arcsolve.latformer.model import LatFormer, LatFormerConfig

ANTI_DIAGONAL = Transform("reflection", "anti_transpose")


def numpy_op(transform: Transform, x: np.ndarray) -> np.ndarray:
    """The plain-numpy meaning of each transform, written independently of `apply`."""
    S = x.shape[0]
    kind, p = transform.kind, transform.params
    if kind == "shift":
        return np.roll(np.roll(x, p[0], axis=0), p[1], axis=1)
    if kind == "rot90":
        return np.rot90(x, p[0])
    reflections = {
        "flip_rows": np.flipud,
        "flip_cols": np.fliplr,
        "transpose": np.transpose,
        "anti_transpose": lambda g: np.flipud(np.fliplr(g)).T,
    }
    if kind in reflections:
        return reflections[kind](x)
    if kind == "up":
        return np.kron(x, np.ones(p, dtype=x.dtype))[:S, :S]
    assert S % p[0] == 0 and S % p[1] == 0, "np.tile form holds when the factors divide S"
    return np.tile(x[:: p[0], :: p[1]], p)


@pytest.mark.parametrize("category", ["rotation", "reflection"])
def test_dihedral_tasks_match_numpy(category):
    for transform in all_transforms(category):
        task = make_task(transform, n_train=3, canvas=30, n_test=5)
        for x, y in task.train + task.test:
            assert x.shape == y.shape == (30, 30)
            np.testing.assert_array_equal(y, numpy_op(transform, x))


def test_translation_tasks_match_numpy_roll():
    shifts = sample_transforms("translation", 6, 30, np.random.default_rng(3))
    assert len({t.params for t in shifts}) == 6
    for transform in shifts:
        assert all(1 <= d <= 29 for d in transform.params)
        for x, y in make_task(transform, n_train=2, canvas=30, n_test=3).train:
            np.testing.assert_array_equal(y, numpy_op(transform, x))


def test_scaling_up_is_kron_of_top_left_block():
    for fr, fc in [(2, 2), (3, 5), (4, 2), (5, 4)]:
        transform = Transform("scaling", "up", (fr, fc))
        for x, y in make_task(transform, n_train=3, canvas=30, n_test=2).train:
            np.testing.assert_array_equal(y, numpy_op(transform, x))


def test_scaling_down_reads_one_cell_per_constant_block():
    for fr, fc in [(2, 3), (3, 2), (4, 4), (2, 4)]:
        transform = Transform("scaling", "down", (fr, fc))
        for x, y in make_task(transform, n_train=3, canvas=12, n_test=2).train:
            blocks = x.reshape(12 // fr, fr, 12 // fc, fc)
            assert (blocks == blocks[:, :1, :, :1]).all(), "input blocks are one colour"
            np.testing.assert_array_equal(y, numpy_op(transform, x))


def test_scaling_category_has_32_tasks():
    names = {t.name for t in all_transforms("scaling")}
    assert len(names) == 32 and "up_2_5" in names and "down_5_2" in names


def test_tasks_are_deterministic_nested_and_have_100_test_pairs():
    a = make_task(ANTI_DIAGONAL, n_train=4, canvas=10, seed=7)
    b = make_task(ANTI_DIAGONAL, n_train=4, canvas=10, seed=7)
    more = make_task(ANTI_DIAGONAL, n_train=8, canvas=10, seed=7)
    other = make_task(ANTI_DIAGONAL, n_train=4, canvas=10, seed=8)
    assert len(a.test) == 100 and len(a.train) == 4
    for (x1, y1), (x2, y2) in zip(a.train + a.test, b.train + b.test, strict=True):
        np.testing.assert_array_equal(x1, x2)
        np.testing.assert_array_equal(y1, y2)
    assert all(np.array_equal(p[0], q[0]) for p, q in zip(a.test, more.test, strict=True))
    assert all(np.array_equal(p[0], q[0]) for p, q in zip(a.train, more.train[:4], strict=True))
    assert not all(np.array_equal(p[0], q[0]) for p, q in zip(a.test, other.test, strict=True))
    inputs = {x.tobytes() for x, _ in a.train + a.test}
    assert len(inputs) == 104, "train and test grids are distinct"


def test_sampling_covers_every_category():
    rng = np.random.default_rng(0)
    for category in CATEGORIES:
        assert len(sample_transforms(category, 2, 10, rng)) == 2


BASELINES = [
    lambda: AttentionBaseline(BaselineConfig(positional="absolute")),
    lambda: AttentionBaseline(BaselineConfig(positional="relative", clip=3)),
    lambda: TransformerBaseline(BaselineConfig(positional="absolute", n_heads=4)),
    lambda: TransformerBaseline(BaselineConfig(positional="relative", n_heads=4, clip=3)),
]


@pytest.mark.parametrize("make", BASELINES)
def test_baseline_shapes_for_any_output_lattice(make):
    torch.manual_seed(0)
    model = make()
    grids = torch.randint(0, 10, (3, 4, 5))
    logits, loss = model(grids, (6, 2), torch.randint(0, 10, (3, 6, 2)), discrete=True, smooth=True)
    assert logits.shape == (3, 6, 2, 10) and loss.ndim == 0
    logits, loss = model(grids, (5, 4), embedded=torch.randn(3, 4, 5, 32))
    assert logits.shape == (3, 5, 4, 10) and loss is None


@pytest.mark.parametrize("make", BASELINES)
def test_baselines_train_with_fit(make):
    task = make_task(Transform("rotation", "rot90", (1,)), n_train=2, canvas=6, n_test=1)
    torch.manual_seed(0)
    result = fit(
        make(),
        to_examples(task.train),
        FitConfig(steps=25, lr=0.003, augmentations=0, smoothing_loss=False, check_every=100),
    )
    assert result.steps == 25 and not result.solved_train
    assert result.losses[-1] < 0.7 * result.losses[0]


def test_relative_attention_is_shaws_formula():
    """e_ij = q_i·(k_j + a^r_Δr + a^c_Δc)/√d, softmax over j, times v: written out by hand."""
    from arcsolve.bench.baselines import Attention, lattice_coords

    torch.manual_seed(0)
    config = BaselineConfig(d_model=8, n_heads=2, positional="relative", clip=2)
    attention = Attention(config)
    x, ctx = torch.randn(1, 6, 8), torch.randn(1, 4, 8)
    xc, cc = lattice_coords(2, 3, torch.device("cpu")), lattice_coords(2, 2, torch.device("cpu"))
    out = attention(x, ctx, xc, ((2, 2),))
    q, k, v = attention.q(x)[0], attention.k(ctx)[0], attention.v(ctx)[0]
    heads = []
    for h in range(2):
        s = slice(4 * h, 4 * h + 4)
        scores = torch.empty(6, 4)
        for i in range(6):
            for j in range(4):
                dr, dc = (cc[j] - xc[i]).clamp(-2, 2) + 2
                key = k[j, s] + attention.rel_rows[dr] + attention.rel_cols[dc]
                scores[i, j] = q[i, s] @ key / 2.0
        heads.append(torch.softmax(scores, -1) @ v[:, s])
    torch.testing.assert_close(out[0], attention.o(torch.cat(heads, -1)))


def test_relative_baseline_has_no_absolute_position():
    """With relative encodings only, the baseline has no absolute position: every output
    query token is the same vector, so an all-one-colour input gives the same logits everywhere."""
    torch.manual_seed(0)
    model = AttentionBaseline(BaselineConfig(positional="relative", clip=8))
    logits, _ = model(torch.full((1, 3, 3), 4), (3, 3))
    assert torch.allclose(logits, logits[:, :1, :1].expand_as(logits), atol=1e-5)


def test_noisy_embedding_formula():
    torch.manual_seed(0)
    weight = torch.randn(10, 8)
    grids = torch.tensor([[[0, 3], [9, 3]]])
    for w in (0.0, 0.2, 0.6):
        noisy = noisy_embedding(weight, grids, w)
        assert noisy.shape == (1, 2, 2, 8)
        for r in range(2):
            for c in range(2):
                expected = (1 - w) * weight[grids[0, r, c]] + w * weight.sum(0)
                torch.testing.assert_close(noisy[0, r, c], expected)


def test_noisy_input_feeds_latformer_the_noisy_embedding():
    torch.manual_seed(0)
    model = LatFormer(LatFormerConfig())
    grids = torch.randint(0, 10, (2, 4, 4))
    clean, _ = model(grids, (4, 4))
    torch.testing.assert_close(NoisyInput(model, 0.0)(grids, (4, 4))[0], clean)
    noisy, _ = NoisyInput(model, 0.4)(grids, (4, 4), discrete=True)
    expected, _ = model(grids, (4, 4), discrete=True, embedded=noisy_embedding(model.embed.weight, grids, 0.4))
    torch.testing.assert_close(noisy, expected)
    assert any("gate" in name for name, _ in NoisyInput(model, 0.4).named_parameters())


def test_tiny_real_run_writes_json_and_png(tmp_path):
    lines = []
    setting = choose_setting("quick", canvas=6, steps=3, augmentations=1)
    result = run_synthetic(
        setting,
        categories=("rotation", "scaling"),
        models=("latformer", "attention-rel"),
        out_dir=tmp_path,
        progress=lines.append,
        command="test",
    )
    saved = json.loads((tmp_path / "synthetic.json").read_text())
    assert saved["command"] == "test" and saved["setting"]["canvas"] == 6
    assert saved["setting"]["name"] == "custom" and saved["setting"]["paper_scale"] is False
    assert saved["setting"]["examples"] == [1, 2] and saved["setting"]["steps"] == 3
    assert set(saved["summary"]) == {"rotation", "scaling"}
    assert set(saved["summary"]["rotation"]) == {"latformer", "attention-rel"}
    assert saved["fits_done"] == saved["fits_planned"] == 2 * 2 * 2 and saved["complete"]
    rows = [json.loads(line) for line in (tmp_path / "synthetic.jsonl").read_text().splitlines()[1:]]
    assert len(rows) == 8
    assert all(0.0 <= r["accuracy"] <= 1.0 and r["train_steps"] <= 3 for r in rows)
    assert saved["summary"] == result["summary"]
    assert (tmp_path / "synthetic.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert any(line.startswith("rotation") and "±" in line for line in lines)


def test_too_many_pairs_for_the_canvas_is_refused():
    with pytest.raises(ArcsolveError, match="ARC grids fit a 2×2 canvas"):
        make_task(ANTI_DIAGONAL, n_train=1, canvas=2)


def test_unknown_model_is_refused(tmp_path):
    with pytest.raises(ArcsolveError, match="unknown model or category: mlp"):
        run_synthetic(choose_setting("quick"), models=("mlp",), out_dir=tmp_path)
