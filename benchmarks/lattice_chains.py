"""Solved chain tasks by chain length, per model, and the misses, from an eval report.

    python benchmarks/lattice_chains.py benchmarks/results/lattice_chains --seed 0

Reads the report folder's `results-<model>.jsonl` files (task ids are `chain<n>-<index>`,
from `arcsolve bench lattice-chains` with the same `--seed`, `--kinds`, `--pairs` and
`--inputs`), prints a table of solved counts per chain length and model, then each model's
misses with their actions, and writes both to `<report>/chains.json`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arcsolve.bench.lattice_chains import INPUTS, KINDS, chain_words, parse_kinds  # noqa: E402
from arcsolve.evaluation.results import records_by_model  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="an `arcsolve eval --report` folder")
    parser.add_argument("--seed", type=int, default=0, help="the seed the tasks were written with")
    parser.add_argument("--kinds", default=",".join(KINDS), help="the kinds of action they were written with")
    parser.add_argument("--pairs", type=int, default=3, help="the train pairs per task they were written with")
    parser.add_argument("--inputs", default="random", choices=INPUTS, help="the inputs they were written with")
    args = parser.parse_args()
    try:
        kinds = parse_kinds(args.kinds)
    except ValueError as exc:
        sys.exit(f"error: --kinds: {exc}")
    models = records_by_model(args.report)
    if not models:
        sys.exit(f"error: {args.report}: no results-<model>.jsonl files (run arcsolve eval --report there)")
    lengths = sorted({int(task_id.split("-")[0].removeprefix("chain")) for rows in models.values() for task_id in rows})
    table = []
    for n in lengths:
        row = {"actions": n}
        for model, rows in models.items():
            mine = [r for task_id, r in rows.items() if task_id.startswith(f"chain{n}-")]
            row[model] = {"solved": sum(r["solved"] for r in mine), "tasks": len(mine)}
        table.append(row)
    total = {m: {"solved": sum(r["solved"] for r in rows.values()), "tasks": len(rows)} for m, rows in models.items()}
    print("| actions | " + " | ".join(models) + " |")
    print("| --- | " + " | ".join("---" for _ in models) + " |")
    for row in table:
        print(f"| {row['actions']} | " + " | ".join(f"{row[m]['solved']}/{row[m]['tasks']}" for m in models) + " |")
    print("| all | " + " | ".join(f"**{t['solved']}/{t['tasks']}**" for t in total.values()) + " |")
    misses = {}
    for model, rows in models.items():
        misses[model] = {
            task_id: chain_words(int(task_id.split("-")[1]), args.seed, kinds, args.pairs, args.inputs)
            for task_id, r in sorted(rows.items())
            if not r["solved"]
        }
        print(f"\n{model} misses ({len(misses[model])}):")
        for task_id, words in misses[model].items():
            print(f"  {task_id}: {words}")
    out = args.report / "chains.json"
    out.write_text(json.dumps({"lengths": table, "total": total, "misses": misses}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
