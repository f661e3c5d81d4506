"""LatFormer+NL (paper §5.3, Table 3): LatFormer conditioned on a task's LARC descriptions.

The text embedding goes "both to the Lattice Mask Expert and the FFN layers": projected to
`text_proj_dim`, it is the `cond` of every layer's mask experts (gates σ(bias + FFN(c)),
`arcsolve.latformer.experts`), and it FiLM-modulates each layer's FFN input, LN(x)·(1 + γ(c)) + β(c).
The paper embedded the text with T5; we use MiniLM (`arcsolve.latformer.text_encoder`), 384-d.

The text path starts switched off: the gate FFNs and the FiLM maps are zero-initialised, so
at step 0 LatFormer+NL computes exactly what plain LatFormer does, and a zero embedding
(a task without descriptions) is plain LatFormer throughout. Within one task the embedding
is a constant, so it cannot add anything a per-task fit could not learn anyway: it only
re-parametrises the gate logits and FFN biases along text-dependent directions, which
changes the optimisation path, not the model class.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import replace

import torch
from torch import nn

from arcsolve.latformer.fit import describe_actions
from arcsolve.latformer.fit import solve as fit_solve
from arcsolve.latformer.model import LatFormer, LatFormerConfig
from arcsolve.latformer.restarts import EXACT_RESTARTS
from arcsolve.latformer.sizing import Shape
from arcsolve.latformer.text_encoder import EMBEDDING_DIM, task_embedding
from arcsolve.solution import Solution, SolveConfig
from arcsolve.tasks import Task

TEXT_PROJ_DIM = 32


class LatFormerNL(LatFormer):
    """LatFormer whose gates and FFNs are conditioned on a text embedding.

    `forward(..., cond=e)` takes the raw text embedding e (text_dim,); the layers see the
    projection c = P e (text_proj_dim,). cond=None or all zeros: plain LatFormer."""

    def __init__(self, config: LatFormerConfig, text_dim: int = EMBEDDING_DIM):
        proj_dim = config.cond_dim or TEXT_PROJ_DIM
        super().__init__(replace(config, cond_dim=proj_dim))
        d = config.d_model
        # bias-free, so that a zero embedding maps to c = 0 and FiLM(0) = identity
        self.text_proj = nn.Linear(text_dim, proj_dim, bias=False)
        self.film = nn.ModuleList(nn.Linear(proj_dim, 2 * d, bias=False) for _ in self.layers)
        for film in self.film:
            nn.init.zeros_(film.weight)

    @classmethod
    def from_latformer(cls, plain: LatFormer, text_dim: int = EMBEDDING_DIM) -> LatFormerNL:
        """The NL model with `plain`'s weights (the text path zero), leaving torch's global RNG
        as `plain`'s construction left it, so a fit of either sees the same random numbers."""
        with torch.random.fork_rng():
            model = cls(plain.config, text_dim)
        missing, unexpected = model.load_state_dict(plain.state_dict(), strict=False)
        text_path = ("text_proj", "film")
        assert not unexpected and all("gate_ffn" in k or k.startswith(text_path) for k in missing)
        return model.to(next(plain.parameters()).device)

    def forward(
        self,
        grids: torch.Tensor,
        out_shape: tuple[int, int],
        targets: torch.Tensor | None = None,
        cond: torch.Tensor | None = None,
        discrete: bool = False,
        smooth: bool = False,
        embedded: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        if cond is None or not torch.any(cond):
            return super().forward(grids, out_shape, targets, None, discrete, smooth, embedded)
        c = self.text_proj(cond)  # (text_proj_dim,)
        handles = []
        for layer, film in zip(self.layers, self.film, strict=True):
            gamma, beta = film(c).chunk(2, dim=-1)  # (d,), (d,)

            def modulate(_module, _inputs, normed, gamma=gamma, beta=beta):
                return normed * (1 + gamma) + beta  # normed: (B, n, d), the FFN's LayerNorm output

            handles.append(layer.ffn[0].register_forward_hook(modulate))
        try:
            return super().forward(grids, out_shape, targets, c, discrete, smooth, embedded)
        finally:
            for handle in handles:
                handle.remove()


def solve(
    task: Task,
    config: SolveConfig,
    model_config: LatFormerConfig | None = None,
    on_step: Callable[[int, float], None] | None = None,
    text: torch.Tensor | None = None,
    exact_restarts: int = EXACT_RESTARTS,
) -> Solution:
    """Fit LatFormer+NL on the task's train pairs, conditioned on its descriptions' embedding
    (`arcsolve.latformer.text_encoder.task_embedding`, or `text` if given); predict its test outputs.
    `exact_restarts` 0 fits plain restarts only, where the text can change what is found.

    The same `arcsolve.latformer.fit.solve` as plain LatFormer, with this model, so with no
    descriptions the answer is plain LatFormer's."""
    embedding = task_embedding(task) if text is None else text
    base = model_config or LatFormerConfig()

    def describe(model: LatFormerNL, shapes: Sequence[tuple[Shape, Shape]], combined_by: str = "the FFN") -> str:
        with_text = "text" if torch.any(embedding) else "no text"
        folded = _fold_text_into_gates(model, embedding.to(model.embed.weight.device))
        return f"{with_text}; {describe_actions(folded, shapes, combined_by)}"

    return fit_solve(
        task,
        config,
        LatFormerConfig(**{**base.__dict__, "cond_dim": 0}),
        embedding,
        on_step,
        make_model=lambda cfg: LatFormerNL.from_latformer(LatFormer(cfg)),
        source="latformer-nl",
        describe=describe,
        exact_restarts=exact_restarts,
    )


def _fold_text_into_gates(model: LatFormerNL, embedding: torch.Tensor) -> LatFormerNL:
    """A copy whose gate biases hold bias + FFN(P e), the logits at this text, so that
    `describe_actions` (which reads the unconditioned logits) reports the gates actually used."""
    folded = copy.deepcopy(model)
    if torch.any(embedding):
        with torch.no_grad():
            c = folded.text_proj(embedding)
            for layer in folded.layers:
                for gates in layer.gate_sets:
                    gates.gate_bias.copy_(gates.gate_logits(c))
    return folded
