"""How often a verified answer is right, per model, from `arcsolve eval` report folders.

A candidate is verified when its solver checked it against the train pairs (for LatFormer:
its rounded gates reproduce them, and a table of readings its FFN learned holds out with
colours renamed). Per report and model this prints the tasks whose first candidate is
verified, how many of those are solved (the precision), and the tasks whose first
candidate reproduces the train pairs but whose table does not hold out, solved or not.
Usage:

    python benchmarks/verified.py REPORT_DIR... [--out FILE]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson

from arcsolve.latformer.exact_starts.holdout import NOT_HELD_OUT


def count(path: Path) -> dict:
    """The figures of one results file: verified first answers, right ones, and the first
    answers that the holdout check left unverified."""
    verified, right, held_back, held_back_right = [], [], [], []
    for line in path.read_bytes().splitlines():
        row = orjson.loads(line)
        if "id" not in row or not row.get("candidates"):
            continue
        first = row["candidates"][0]
        if first["verified"]:
            verified.append(row["id"])
            if row["solved"]:
                right.append(row["id"])
        elif NOT_HELD_OUT in first["detail"]:
            held_back.append(row["id"])
            if row["solved"]:
                held_back_right.append(row["id"])
    return {
        "verified": len(verified),
        "verified_right": len(right),
        "precision": round(len(right) / len(verified), 3) if verified else None,
        "verified_wrong_ids": sorted(set(verified) - set(right)),
        "not_held": sorted(held_back),
        "not_held_right": sorted(held_back_right),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    figures: dict[str, dict[str, dict]] = {}
    for report in args.reports:
        paths = sorted(report.glob("results-*.jsonl"))
        if not paths:
            parser.error(f"{report}: no results-*.jsonl files")
        for path in paths:
            model = path.stem.removeprefix("results-")
            found = figures.setdefault(str(report), {})[model] = count(path)
            precision = "–" if found["precision"] is None else f"{100 * found['precision']:.1f} %"
            print(f"{report} {model}: {found['verified_right']}/{found['verified']} verified first answers "
                  f"right ({precision}); table not held out: {len(found['not_held'])} "
                  f"({len(found['not_held_right'])} right)")
    if args.out:
        args.out.write_bytes(orjson.dumps(figures, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
