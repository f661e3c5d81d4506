"""Solved tasks per family of `arcsolve bench lattice-tasks`, per model, from an eval report.

    python benchmarks/lattice_families.py benchmarks/results/lattice

Reads the report folder's `results-<model>.jsonl` files (task ids are `<family>-<k>`),
prints a table of solved counts and mean seconds per family and model, and writes it to
`<report>/families.json`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arcsolve.bench.lattice_tasks import FAMILIES  # noqa: E402
from arcsolve.evaluation.results import records_by_model  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="an `arcsolve eval --report` folder")
    args = parser.parse_args()
    models = records_by_model(args.report)
    if not models:
        sys.exit(f"error: {args.report}: no results-<model>.jsonl files (run arcsolve eval --report there)")
    table = []
    for family in FAMILIES:
        row = {"family": family.name, "actions": family.actions}
        for model, rows in models.items():
            mine = [r for task_id, r in rows.items() if task_id.rsplit("-", 1)[0] == family.name]
            row[model] = {
                "solved": sum(r["solved"] for r in mine),
                "tasks": len(mine),
                "mean_seconds": round(sum(r["seconds"] for r in mine) / max(1, len(mine)), 2),
            }
        table.append(row)
    total = {
        model: {"solved": sum(r["solved"] for r in rows.values()), "tasks": len(rows)} for model, rows in models.items()
    }
    print("| family | actions | " + " | ".join(models) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in models) + " |")
    for row in table:
        cells = [f"{row[m]['solved']}/{row[m]['tasks']} ({row[m]['mean_seconds']:.1f} s)" for m in models]
        print(f"| {row['family']} | {row['actions']} | " + " | ".join(cells) + " |")
    print("| all | | " + " | ".join(f"**{t['solved']}/{t['tasks']}**" for t in total.values()) + " |")
    (args.report / "families.json").write_text(json.dumps({"families": table, "total": total}, indent=1) + "\n")
    print(f"wrote {args.report / 'families.json'}")


if __name__ == "__main__":
    main()
