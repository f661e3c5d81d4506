"""Colour attention (thesis eq. 3.1-3.3): P = β·V + (1-β)·softmax(V C_kᵀ) C_v."""

import torch

from arcsolve.latformer.batched import solve_many_colour
from arcsolve.latformer.fit import solve_colour
from arcsolve.latformer.model import ColourAttention, LatFormer, LatFormerConfig
from arcsolve.solution import SolveConfig
from tests.grids import halves_task


def test_beta_one_reduces_exactly_to_plain_latformer():
    x = torch.randint(0, 10, (3, 4, 5))
    y = torch.randint(0, 10, (3, 4, 5))
    outputs = []
    for beta in (None, 1.0):
        torch.manual_seed(0)
        model = LatFormer(LatFormerConfig(beta=beta))
        outputs.append(model(x, (4, 5), y, smooth=True))
    assert torch.equal(outputs[0][0], outputs[1][0])
    assert torch.equal(outputs[0][1], outputs[1][1])


def test_colour_attention_shapes_and_mixing():
    v = torch.randn(2, 7, 8)
    keys, values = torch.randn(10, 8), torch.randn(10, 8)
    mixed = ColourAttention(0.9)(v, keys, values)
    assert mixed.shape == v.shape
    attended = torch.softmax(v @ keys.T / 8**0.5, -1) @ values
    assert torch.allclose(mixed, 0.9 * v + 0.1 * attended, atol=1e-6)
    assert torch.allclose(ColourAttention(0.0)(v, keys, values), attended, atol=1e-6)


def test_gradients_flow_through_colour_attention_into_the_embedding():
    torch.manual_seed(0)
    model = LatFormer(LatFormerConfig(beta=0.5))
    x = torch.randint(0, 10, (2, 3, 3))
    _, loss = model(x, (3, 3), torch.randint(0, 10, (2, 3, 3)))
    loss.backward()
    assert model.embed.weight.grad.abs().sum() > 0
    assert all(p.grad is not None for n, p in model.named_parameters() if n.startswith("layers.0.v"))
    torch.manual_seed(0)
    plain = LatFormer(LatFormerConfig(beta=None))
    logits_plain, _ = plain(x, (3, 3))
    logits_colour, _ = model(x, (3, 3))
    assert not torch.allclose(logits_plain, logits_colour)


def test_colour_attention_starts_from_exact_actions_batched_or_not():
    # an overlay of two halves: 30 steps of plain restarts find no action that explains it
    task = halves_task(lambda a, b: a | b)
    config = SolveConfig(steps=30, device="cpu", seed=1, beta=0.9)
    alone = solve_colour(task, config)
    got: list = []
    solve_many_colour([(task, config)], got.append, batch=1)
    for solution in (alone, got[0]):
        assert solution.candidates[0].verified
        assert solution.candidates[0].detail.startswith("latformer-color (layer 0: 2 heads")
    assert got[0].candidates[0].grids == alone.candidates[0].grids
