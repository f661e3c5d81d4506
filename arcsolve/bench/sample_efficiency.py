"""Sample-efficiency benchmark on synthetic geometric tasks (paper §5.1, Figure 5) and the
noise-robustness study (Appendix B.4, Table 4).

Every model, LatFormer and baselines alike, is trained from scratch on each task by the one
loop `arcsolve.latformer.fit.fit` with the same step budget and colour augmentations, then scored on
the task's 100 test pairs: accuracy = the fraction predicted exactly (whole grid), with
LatFormer's gates discretised (`discrete=True`).

    result = run_synthetic(quick=True, out_dir="out", progress=print)   # synthetic.json/.png
    noise = run_noise(quick=True, out_dir="out", progress=print)        # noise.json

Settings left as None come from QUICK (a few minutes on a 2-core CPU: a 10×10 canvas, one
task per category, 1 and 2 examples, 30 steps) or FULL (the paper's 30×30 canvas; far too
slow for a CPU, so CPU runs pass a reduced canvas, step count and example list).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from arcsolve.bench.baselines import AttentionBaseline, BaselineConfig, TransformerBaseline
from arcsolve.bench.synthetic_tasks import CATEGORIES, SyntheticTask, make_task, sample_transforms
from arcsolve.errors import ArcsolveError
from arcsolve.latformer.fit import Example, FitConfig, fit
from arcsolve.latformer.model import N_COLOURS, LatFormer, LatFormerConfig

MODELS = (
    "latformer",
    "latformer-nosmooth",
    "attention-abs",
    "attention-rel",
    "transformer-abs",
    "transformer-rel",
)
TARGET_ACCURACY = 0.9  # "examples needed" = the fewest examples whose mean accuracy reaches this


@dataclass(frozen=True)
class Setting:
    """Everything that decides a run's numbers (recorded in the JSON next to them)."""

    canvas: int
    examples: tuple[int, ...]
    tasks_per_category: int
    steps: int
    augmentations: int  # colour permutations per step, as in fit (the paper uses 10)
    baseline_lr: float = 0.003  # Adam on attention/Transformer weights; LatFormer keeps fit's defaults
    d_model: int = 32
    seed: int = 0


QUICK = Setting(canvas=10, examples=(1, 2), tasks_per_category=1, steps=30, augmentations=2)
FULL = Setting(canvas=30, examples=(1, 2, 4, 8, 16, 32, 64), tasks_per_category=3, steps=300, augmentations=10)


@dataclass(frozen=True)
class ModelSpec:
    make: Callable[[], nn.Module]
    fit_config: FitConfig


def model_specs(setting: Setting) -> dict[str, ModelSpec]:
    """The six models of Figure 5 with their fit settings (same steps and augmentations)."""
    base = FitConfig(steps=setting.steps, augmentations=setting.augmentations, seed=setting.seed)
    plain = replace(base, smoothing_loss=False, lr=setting.baseline_lr)
    d = setting.d_model
    side = max(30, setting.canvas)

    def baseline(cls: type[nn.Module], positional: str, heads: int) -> Callable[[], nn.Module]:
        return lambda: cls(BaselineConfig(d_model=d, n_heads=heads, positional=positional, max_side=side))

    return {
        "latformer": ModelSpec(lambda: LatFormer(LatFormerConfig(d_model=d)), base),
        "latformer-nosmooth": ModelSpec(
            lambda: LatFormer(LatFormerConfig(d_model=d, smoothing=0)),
            replace(base, smoothing_loss=False),
        ),
        "attention-abs": ModelSpec(baseline(AttentionBaseline, "absolute", 1), plain),
        "attention-rel": ModelSpec(baseline(AttentionBaseline, "relative", 1), plain),
        "transformer-abs": ModelSpec(baseline(TransformerBaseline, "absolute", 4), plain),
        "transformer-rel": ModelSpec(baseline(TransformerBaseline, "relative", 4), plain),
    }


def to_examples(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[Example]:
    return [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in pairs]


def accuracy(model: nn.Module, pairs: Sequence[tuple[np.ndarray, np.ndarray]], batch: int = 25) -> float:
    """Fraction of pairs whose whole output grid is predicted exactly (discretised gates)."""
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(pairs), batch):
            x = torch.from_numpy(np.stack([p[0] for p in pairs[i : i + batch]]))
            y = torch.from_numpy(np.stack([p[1] for p in pairs[i : i + batch]]))
            logits, _ = model(x, tuple(y.shape[1:]), discrete=True)
            correct += int((logits.argmax(-1) == y).flatten(1).all(1).sum())
    return correct / len(pairs)


def train_and_score(spec: ModelSpec, task: SyntheticTask, seed: int) -> dict:
    torch.manual_seed(seed)
    model = spec.make()
    fitted = fit(model, to_examples(task.train), spec.fit_config)
    return {
        "accuracy": accuracy(model, task.test),
        "train_steps": fitted.steps,
        "solved_train": fitted.solved_train,
        "seconds": round(fitted.seconds, 2),
    }


def resolve(quick: bool, **given) -> Setting:
    """QUICK or FULL with every argument that is not None put in its place."""
    chosen = QUICK if quick else FULL
    return replace(chosen, **{k: tuple(v) if k == "examples" else v for k, v in given.items() if v is not None})


def build_tasks(categories: Sequence[str], setting: Setting) -> dict[str, list]:
    rng = np.random.default_rng(setting.seed)
    return {c: sample_transforms(c, setting.tasks_per_category, setting.canvas, rng) for c in categories}


def run_synthetic(
    categories: Sequence[str] = CATEGORIES,
    examples: Sequence[int] | None = None,
    tasks_per_category: int | None = None,
    models: Sequence[str] = MODELS,
    steps: int | None = None,
    seed: int = 0,
    quick: bool = False,
    out_dir: Path | str = "benchmarks/results",
    progress: Callable[[str], None] | None = None,
    canvas: int | None = None,
    augmentations: int | None = None,
    command: str | None = None,
) -> dict:
    """Figure 5: accuracy vs number of training examples, per category and model.

    Writes `synthetic.json` and `synthetic.png` to out_dir and returns the JSON's content.
    `progress` receives one line per trained model and the summary lines at the end."""
    unknown = [m for m in models if m not in MODELS] + [c for c in categories if c not in CATEGORIES]
    if unknown:
        raise ArcsolveError(f"unknown model or category: {', '.join(unknown)}")
    setting = resolve(
        quick,
        examples=examples,
        tasks_per_category=tasks_per_category,
        steps=steps,
        canvas=canvas,
        augmentations=augmentations,
        seed=seed,
    )
    say = progress or (lambda line: None)
    specs = model_specs(setting)
    transforms = build_tasks(categories, setting)
    start = time.perf_counter()
    runs = []
    for category, chosen in transforms.items():
        for transform in chosen:
            for n in setting.examples:
                task = make_task(transform, n, setting.canvas, seed=setting.seed)
                for name in models:
                    run = {
                        "category": category,
                        "task": transform.name,
                        "model": name,
                        "examples": n,
                        **train_and_score(specs[name], task, setting.seed),
                    }
                    runs.append(run)
                    say(
                        f"{category:<11} {transform.name:<12} n={n:<3} {name:<18} "
                        f"accuracy {run['accuracy']:.2f}"
                        f"  ({run['train_steps']} steps, {run['seconds']:.1f} s)"
                    )
    result = {
        "command": command,
        "setting": {
            **asdict(setting),
            "models": list(models),
            "categories": list(categories),
            "test_pairs": 100,
            "padding": "ARC grids with sides <= canvas, padded with 0 at bottom/right",
            "torch_threads": torch.get_num_threads(),
        },
        "tasks": {c: [t.name for t in ts] for c, ts in transforms.items()},
        "summary": summarise(runs, categories, models, setting.examples),
        "runs": runs,
        "seconds": round(time.perf_counter() - start, 1),
    }
    result["examples_to_reach"] = examples_to_reach(result["summary"], TARGET_ACCURACY)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "synthetic.json").write_text(json.dumps(result, indent=1))
    plot(result, out / "synthetic.png")
    for line in summary_lines(result):
        say(line)
    return result


def summarise(runs: list[dict], categories: Sequence[str], models: Sequence[str], examples: Sequence[int]) -> dict:
    """{category: {model: {n: {mean, std}}}} of accuracy across the category's tasks."""
    summary: dict = {}
    for c in categories:
        summary[c] = {}
        for m in models:
            summary[c][m] = {}
            for n in examples:
                accs = [r["accuracy"] for r in runs if r["category"] == c and r["model"] == m and r["examples"] == n]
                summary[c][m][str(n)] = {
                    "mean": round(float(np.mean(accs)), 4),
                    "std": round(float(np.std(accs)), 4),
                }
    return summary


def examples_to_reach(summary: dict, target: float) -> dict:
    """{category: {model: fewest examples with mean accuracy ≥ target, or None}}."""
    return {
        c: {m: next((int(n) for n, s in by_n.items() if s["mean"] >= target), None) for m, by_n in by_model.items()}
        for c, by_model in summary.items()
    }


def summary_lines(result: dict) -> list[str]:
    """Mean ± std accuracy across tasks, one line per category and model."""
    ns = result["setting"]["examples"]
    lines = [f"{'category':<11} {'model':<18} " + " ".join(f"{'n=' + str(n):>11}" for n in ns)]
    for c, by_model in result["summary"].items():
        for m, by_n in by_model.items():
            cells = " ".join(f"{by_n[str(n)]['mean']:>5.2f}±{by_n[str(n)]['std']:<5.2f}" for n in ns)
            lines.append(f"{c:<11} {m:<18} {cells}")
    return lines


def plot(result: dict, path: Path) -> None:
    """One panel per category: mean accuracy vs examples (log scale), ±std shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = result["summary"]
    ns = result["setting"]["examples"]
    fig, axes = plt.subplots(1, len(summary), figsize=(4 * len(summary), 3.4), squeeze=False)
    for ax, (category, by_model) in zip(axes[0], summary.items(), strict=True):
        for model, by_n in by_model.items():
            mean = np.array([by_n[str(n)]["mean"] for n in ns])
            std = np.array([by_n[str(n)]["std"] for n in ns])
            (line,) = ax.plot(ns, mean, marker="o", label=model)
            ax.fill_between(
                ns,
                np.clip(mean - std, 0, 1),
                np.clip(mean + std, 0, 1),
                color=line.get_color(),
                alpha=0.15,
            )
        ax.set_xscale("log", base=2)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(category)
        ax.set_xlabel("training examples")
    axes[0][0].set_ylabel("mean test accuracy")
    axes[0][-1].legend(fontsize=7, loc="lower right")
    s = result["setting"]
    fig.suptitle(
        f"{s['canvas']}×{s['canvas']} canvas, {s['steps']} steps, {s['tasks_per_category']} task(s)/category",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- noise (Appendix B.4)


def noisy_embedding(weight: torch.Tensor, grids: torch.Tensor, w: float) -> torch.Tensor:
    """x_noise = (1 − w)·Wᵀ·onehot(x) + w·Wᵀ·1 for every cell: (B, h, w) → (B, h, w, d)."""
    onehot = F.one_hot(grids, N_COLOURS).to(weight)
    return (1 - w) * onehot @ weight + w * weight.sum(0)


class NoisyInput(nn.Module):
    """LatFormer fed the noisy embedding of its input grids (train and test alike)."""

    def __init__(self, model: LatFormer, w: float):
        super().__init__()
        self.model, self.w = model, w

    def forward(self, grids, out_shape, targets=None, cond=None, discrete=False, smooth=False, embedded=None):
        noisy = noisy_embedding(self.model.embed.weight, grids, self.w)
        return self.model(grids, out_shape, targets, cond=cond, discrete=discrete, smooth=smooth, embedded=noisy)


def run_noise(
    levels: Sequence[float] = (0.2, 0.4, 0.6),
    train_examples: int = 32,
    test_examples: int = 100,
    categories: Sequence[str] = CATEGORIES,
    tasks_per_category: int | None = None,
    steps: int | None = None,
    seed: int = 0,
    quick: bool = False,
    out_dir: Path | str = "benchmarks/results",
    progress: Callable[[str], None] | None = None,
    canvas: int | None = None,
    augmentations: int | None = None,
    command: str | None = None,
) -> dict:
    """Table 4: LatFormer's accuracy per category and noise level w; writes `noise.json`."""
    setting = resolve(
        quick,
        examples=(train_examples,),
        tasks_per_category=tasks_per_category,
        steps=steps,
        canvas=canvas,
        augmentations=augmentations,
        seed=seed,
    )
    say = progress or (lambda line: None)
    fit_config = FitConfig(steps=setting.steps, augmentations=setting.augmentations, seed=setting.seed)
    transforms = build_tasks(categories, setting)
    start = time.perf_counter()
    runs = []
    for category, chosen in transforms.items():
        for transform in chosen:
            task = make_task(transform, train_examples, setting.canvas, test_examples, setting.seed)
            for w in levels:
                spec = ModelSpec(
                    lambda w=w: NoisyInput(LatFormer(LatFormerConfig(d_model=setting.d_model)), w),
                    fit_config,
                )
                run = {
                    "category": category,
                    "task": transform.name,
                    "w": w,
                    **train_and_score(spec, task, setting.seed),
                }
                runs.append(run)
                say(
                    f"{category:<11} {transform.name:<12} w={w:<4} accuracy {run['accuracy']:.2f}"
                    f"  ({run['train_steps']} steps, {run['seconds']:.1f} s)"
                )
    table = {
        str(w): {
            c: round(
                float(np.mean([r["accuracy"] for r in runs if r["w"] == w and r["category"] == c])),
                4,
            )
            for c in categories
        }
        for w in levels
    }
    result = {
        "command": command,
        "setting": {
            **asdict(setting),
            "levels": list(levels),
            "train_examples": train_examples,
            "test_examples": test_examples,
            "categories": list(categories),
            "torch_threads": torch.get_num_threads(),
        },
        "tasks": {c: [t.name for t in ts] for c, ts in transforms.items()},
        "accuracy": table,
        "runs": runs,
        "seconds": round(time.perf_counter() - start, 1),
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "noise.json").write_text(json.dumps(result, indent=1))
    say(f"{'w':<5} " + " ".join(f"{c:>11}" for c in categories))
    for w, by_cat in table.items():
        say(f"{w:<5} " + " ".join(f"{by_cat[c]:>11.2f}" for c in categories))
    return result
