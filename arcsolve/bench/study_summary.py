"""What the synthetic studies' results say: mean accuracy per category, model and training-set
size; the examples each model needs to reach 0.9; the ratio of baseline to LatFormer examples
against the paper's claim, with a verdict per category; and Table 4.

The claim (§5.1, abstract): LatFormer needs about two orders of magnitude fewer examples than
attention and Transformers. Training-set sizes are powers of two, so a ratio of examples is a
power of two too: a ratio of at least CONFIRM_RATIO = 64 (10^1.8) counts as two orders.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TARGET_ACCURACY = 0.9  # "examples needed" = the fewest examples whose mean accuracy reaches this
CLAIMED_RATIO = 100
CONFIRM_RATIO = 64
BASELINES = ("attention-abs", "attention-rel", "transformer-abs", "transformer-rel")
PAPER_TABLE4 = {  # Appendix B.4, Table 4
    "0.2": {"translation": 0.91, "rotation": 1.00, "reflection": 1.00, "scaling": 1.00},
    "0.4": {"translation": 0.89, "rotation": 0.96, "reflection": 0.96, "scaling": 0.92},
    "0.6": {"translation": 0.62, "rotation": 0.69, "reflection": 0.68, "scaling": 0.65},
}


def cell(accuracies: Sequence[float]) -> dict:
    """Mean and standard deviation of a cell's fits (None when it has none yet)."""
    if not accuracies:
        return {"mean": None, "std": None, "fits": 0}
    return {
        "mean": round(float(np.mean(accuracies)), 4),
        "std": round(float(np.std(accuracies)), 4),
        "fits": len(accuracies),
    }


def summarise(rows: list[dict], categories: Sequence[str], models: Sequence[str], examples: Sequence[int]) -> dict:
    """{category: {model: {n: {mean, std, fits}}}} of test accuracy over the category's fits,
    every task and seed pooled (the paper shades the standard deviation across tasks)."""
    return {
        c: {
            m: {
                str(n): cell([r["accuracy"] for r in rows if (r["category"], r["model"], r["examples"]) == (c, m, n)])
                for n in examples
            }
            for m in models
        }
        for c in categories
    }


def examples_to_reach(summary: dict, target: float = TARGET_ACCURACY) -> dict:
    """{category: {model: fewest examples with mean accuracy ≥ target, or None}}."""
    return {
        c: {
            m: next((int(n) for n, s in by_n.items() if s["mean"] is not None and s["mean"] >= target), None)
            for m, by_n in by_model.items()
        }
        for c, by_model in summary.items()
    }


def verdict(latformer: int | None, baselines: dict[str, int | None], largest: int) -> dict:
    """The claim's verdict in one category, from the examples each model needs (None: not
    reached with up to `largest` examples). The ratio compares the best baseline with
    LatFormer; `bound` says whether it is exact ("="), a lower (">") or an upper ("<") bound."""
    reached = [n for n in baselines.values() if n is not None]
    best = min(reached) if reached else None
    if latformer is None:
        if best is None:
            return {"verdict": "not decidable at this scale", "ratio": None, "bound": None, "best_baseline_n": None}
        # LatFormer needs more than `largest`, so the ratio is below best / largest ≤ 1
        return {"verdict": "refuted", "ratio": best / largest, "bound": "<", "best_baseline_n": best}
    if best is not None:
        ratio = best / latformer
        return {
            "verdict": "confirmed" if ratio >= CONFIRM_RATIO else "refuted",
            "ratio": ratio,
            "bound": "=",
            "best_baseline_n": best,
        }
    ratio = largest / latformer  # every baseline needs more than `largest`: the ratio exceeds this
    return {
        "verdict": "confirmed" if ratio >= CONFIRM_RATIO else "not decidable at this scale",
        "ratio": ratio,
        "bound": ">",
        "best_baseline_n": None,
    }


def verdicts(reach: dict, examples: Sequence[int], latformer: str = "latformer") -> dict:
    """{category: verdict(...) plus each baseline's ratio to LatFormer}, for the categories
    whose results hold LatFormer and at least one baseline."""
    out = {}
    for c, by_model in reach.items():
        baselines = {m: n for m, n in by_model.items() if m in BASELINES}
        if latformer not in by_model or not baselines:
            continue
        n_lat = by_model[latformer]
        out[c] = {
            **verdict(n_lat, baselines, max(examples)),
            "latformer_n": n_lat,
            "baseline_n": baselines,
            "claimed_ratio": CLAIMED_RATIO,
        }
    return out


def format_ratio(v: dict) -> str:
    if v["ratio"] is None:
        return "n/a"
    bound = "" if v["bound"] == "=" else v["bound"]
    return f"{bound}{v['ratio']:g}×"


def table4(rows: list[dict], categories: Sequence[str], levels: Sequence[float]) -> dict:
    """{w: {category: {mean, std, fits}}} of LatFormer's accuracy under input noise."""
    return {
        str(w): {c: cell([r["accuracy"] for r in rows if (r["w"], r["category"]) == (w, c)]) for c in categories}
        for w in levels
    }


def figure5_lines(result: dict) -> list[str]:
    """Mean ± std per category, model and size; examples to 0.9; the verdicts."""
    ns = result["setting"]["examples"]
    lines = [f"{'category':<11} {'model':<18} " + " ".join(f"{'n=' + str(n):>11}" for n in ns) + "  n(0.9)"]
    for c, by_model in result["summary"].items():
        for m, by_n in by_model.items():
            cells = " ".join(
                f"{'—':>11}"
                if by_n[str(n)]["mean"] is None
                else f"{by_n[str(n)]['mean']:>5.2f}±{by_n[str(n)]['std']:<5.2f}"
                for n in ns
            )
            reach = result["examples_to_reach"][c][m]
            lines.append(f"{c:<11} {m:<18} {cells}  {'>' + str(max(ns)) if reach is None else reach}")
    for c, v in result["verdicts"].items():
        lines.append(
            f"{c}: {v['verdict']} — baseline/LatFormer examples {format_ratio(v)} (claim: about {v['claimed_ratio']}×)"
        )
    for c, n in result["latformer_examples_to_095"].items():
        reached = f"reaches 0.95 from {n}" if n is not None else f"does not reach 0.95 with up to {max(ns)}"
        lines.append(f"{c}: LatFormer {reached} examples (paper's figure: by 16)")
    return lines


def table4_lines(result: dict) -> list[str]:
    categories = result["setting"]["categories"]
    lines = [f"{'w':<5} " + " ".join(f"{c:>18}" for c in categories)]
    for w, by_cat in result["accuracy"].items():
        cells = []
        for c in categories:
            s, paper = by_cat[c], PAPER_TABLE4.get(w, {}).get(c)
            ours = "—" if s["mean"] is None else f"{s['mean']:.2f}"
            cells.append(f"{ours + ' (paper ' + (f'{paper:.2f}' if paper is not None else '—') + ')':>18}")
        lines.append(f"{w:<5} " + " ".join(cells))
    return lines
