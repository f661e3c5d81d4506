"""Figure 5 in the paper's layout: one panel per category, side by side, mean test accuracy
against training examples on a log axis, the standard deviation shaded."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend is chosen before pyplot loads)
import numpy as np  # noqa: E402

PANEL_LETTERS = "abcdefgh"


def plot_figure5(result: dict, path: Path) -> None:
    """Write the figure of a `run_synthetic` result to `path` (PNG). Cells without fits yet are
    left out of their curve; the title says the setting, and that a run below the paper's
    scale is not the paper's protocol."""
    summary = result["summary"]
    ns = result["setting"]["examples"]
    fig, axes = plt.subplots(1, len(summary), figsize=(4 * len(summary), 3.6), squeeze=False)
    for i, (ax, (category, by_model)) in enumerate(zip(axes[0], summary.items(), strict=True)):
        for model, by_n in by_model.items():
            have = [n for n in ns if by_n[str(n)]["mean"] is not None]
            if not have:
                continue
            mean = np.array([by_n[str(n)]["mean"] for n in have])
            std = np.array([by_n[str(n)]["std"] for n in have])
            (line,) = ax.plot(have, mean, marker="o", markersize=3, label=model)
            ax.fill_between(
                have, np.clip(mean - std, 0, 1), np.clip(mean + std, 0, 1), color=line.get_color(), alpha=0.15
            )
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns, [str(n) for n in ns], fontsize=7, rotation=90 if len(ns) > 6 else 0)
        ax.minorticks_off()
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"({PANEL_LETTERS[i]}) {category}")
        ax.set_xlabel("training examples")
    axes[0][0].set_ylabel("mean test accuracy")
    axes[0][-1].legend(fontsize=7, loc="lower right")
    s = result["setting"]
    scale = "paper's protocol" if s["paper_scale"] else f"{s['name']} setting, NOT the paper's scale"
    progress = "" if result["complete"] else f"; partial: {result['fits_done']} of {result['fits_planned']} fits"
    fig.suptitle(
        f"{scale}: {s['canvas']}×{s['canvas']} canvas, {s['steps']} steps, "
        f"{s['tasks_per_category']} task(s)/category, {s['seeds']} seed(s), {result['device']}{progress}",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
