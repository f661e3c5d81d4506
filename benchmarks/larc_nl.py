"""LatFormer vs LatFormer+NL on LARC's test split, geometric tasks (the setting of Table 3).

    python benchmarks/larc_nl.py --larc-dir /work/shared/data/larc --steps 300 --jobs 2 \
        --out benchmarks/results/larc_nl.json

Tasks: LARC's test split (train_test_split.json) ∩ the annotated geometric subset
(`arcsolve.priors.annotations`); each task's annotated lattice priors pick the experts, as in
`arcsolve eval`. Models: plain LatFormer (`arcsolve.latformer.fit.solve`), LatFormer+NL with the
task's own descriptions, and, with --shuffled, LatFormer+NL given another task's
descriptions (a control: what the text *content* adds over the extra parameters).
A task is solved when every test output is one of the first two distinct answers
(`arcsolve.evaluation.records.solve_task`, the scorer `arcsolve eval` uses).

Data: LARC: Language-complete ARC, Acquaviva et al. 2021 (CC-BY-4.0).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import orjson

SUBSETS = ("translate", "rotate", "reflect", "scale", "geometric")


def run_one(model: str, task_id: str, larc_dir: str, steps: int, text_from: str | None, plain: bool) -> dict:
    """Solve one task with one model in a worker (one torch thread); with `plain`, from plain
    restarts only."""
    import torch

    torch.set_num_threads(1)
    from arcsolve.evaluation.records import solve_task
    from arcsolve.evaluation.selection import task_config
    from arcsolve.latformer import fit
    from arcsolve.latformer import nl as latformer_nl
    from arcsolve.latformer.restarts import EXACT_RESTARTS
    from arcsolve.latformer.text_encoder import task_embedding
    from arcsolve.loaders import load_tasks
    from arcsolve.priors.annotations import load_annotations
    from arcsolve.solution import SolveConfig

    tasks = {t.id: t for t in load_tasks(larc_dir)}
    task = tasks[task_id]
    config = task_config(SolveConfig(steps=steps, device="cpu"), task, load_annotations())
    exact = {"exact_restarts": 0 if plain else EXACT_RESTARTS}
    if model == "latformer":
        solver = partial(fit.solve, **exact)
    elif model == "latformer-nl":
        solver = partial(latformer_nl.solve, **exact)
    else:  # another task's descriptions
        solver = partial(latformer_nl.solve, text=task_embedding(tasks[text_from]), **exact)
    result = solve_task(solver, task, config)
    return {
        "model": model,
        "id": task_id,
        "solved": result.solved,
        "seconds": round(result.seconds, 1),
        "error": result.error,
        "text_from": text_from,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--larc-dir", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--shuffled", action="store_true", help="add the shuffled-text control")
    parser.add_argument(
        "--plain-restarts", action="store_true", help="fit plain restarts only (no exact starts), the paper's recipe"
    )
    parser.add_argument("--out", type=Path, help="results file, rewritten after every fit; a run resumes from it")
    parser.add_argument("--fresh", action="store_true", help="ignore the fits already in --out")
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = "1"

    from arcsolve.latformer.text_encoder import larc_split
    from arcsolve.priors.annotations import load_annotations

    annotations = load_annotations()
    ids = sorted(larc_split(args.larc_dir, "test") & annotations.subset("geometric"))
    models = ["latformer", "latformer-nl"] + (["latformer-nl-shuffled"] * args.shuffled)
    work = [
        (m, task_id, ids[(i + 1) % len(ids)] if m.endswith("shuffled") else None)
        for m in models
        for i, task_id in enumerate(ids)
    ]
    start = time.perf_counter()
    results = [] if args.fresh else finished(args.out, args.steps, args.plain_restarts, work)
    if results:
        print(f"reused {len(results)} fits from {args.out}", flush=True)
    done = {(r["model"], r["id"]) for r in results}
    work = [(m, t, other) for m, t, other in work if (m, t) not in done]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [
            pool.submit(run_one, m, t, str(args.larc_dir), args.steps, other, args.plain_restarts)
            for m, t, other in work
        ]
        for future in futures:
            r = future.result()
            results.append(r)
            print(f"{r['model']:22s} {r['id']} solved={r['solved']} {r['seconds']:.0f}s", flush=True)
            if args.out:  # rewritten after every task, so a cut-short run keeps what it did
                write(args.out, summarise(results, ids, models, annotations, args, time.perf_counter() - start))
    summary = summarise(results, ids, models, annotations, args, time.perf_counter() - start)
    print(f"LARC test ∩ geometric, {len(ids)} tasks, {args.steps} steps, wall {summary['wall_seconds']} s")
    print(f"{'subset':10s} {'tasks':>5s} " + " ".join(f"{m:>22s}" for m in models))
    for subset, row in summary["subsets"].items():
        print(f"{subset:10s} {row['tasks']:5d} " + " ".join(f"{row[m]:22d}" for m in models))
    if args.out:
        write(args.out, summary)


def finished(path: Path | None, steps: int, plain: bool, work: list[tuple[str, str, str | None]]) -> list[dict]:
    """The fits of `work` that an earlier run with the same steps and restarts wrote to
    `path` (none where there is no such file)."""
    if path is None or not path.is_file():
        return []
    try:
        earlier = orjson.loads(path.read_bytes())
        if earlier.get("steps") != steps or earlier.get("plain_restarts", False) != plain:
            return []
        wanted = set(work)
        return [r for r in earlier["results"] if (r["model"], r["id"], r["text_from"]) in wanted]
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
        print(f"{path}: not a results file of this benchmark; pass --fresh to start over", file=sys.stderr)
        sys.exit(2)


def summarise(
    results: list[dict], ids: list[str], models: list[str], annotations, args: argparse.Namespace, wall: float
) -> dict:
    """Solved counts per annotated subset and model, over the tasks run so far."""
    table = {}
    for subset in SUBSETS:
        members = annotations.subset(subset) & set(ids)
        table[subset] = {"tasks": len(members)} | {
            m: sum(r["solved"] for r in results if r["model"] == m and r["id"] in members) for m in models
        }
    return {
        "data": "LARC: Language-complete ARC, Acquaviva et al. 2021 (CC-BY-4.0)",
        "split": "test",
        "steps": args.steps,
        "plain_restarts": args.plain_restarts,
        "tasks": len(ids),
        "models": models,
        "runs_done": len(results),
        "runs": len(ids) * len(models),
        "subsets": table,
        "wall_seconds": round(wall),
        "jobs": args.jobs,
        "machine": platform.machine(),
        "code": code_version(),
        "results": results,
    }


def code_version() -> str:
    """The commit the run used, marked dirty when arcsolve/ has uncommitted edits."""

    def git(*cmd: str) -> str:
        return subprocess.run(["git", *cmd], capture_output=True, text=True).stdout.strip()

    return git("rev-parse", "--short", "HEAD") + (" (dirty)" if git("status", "--porcelain", "arcsolve") else "")


def write(path: Path, summary: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
