"""The results file: `<report_dir>/results-<model>.jsonl` (and an export's `.partial.jsonl`).

A header line names the run's configuration (model, the solver settings that change the
model's answers, dataset, subset) and its fingerprint, then one line per finished task. A
rerun with the same configuration skips the tasks already there, so Ctrl-C, a crash or kill -9
loses at most the tasks in flight; a rerun with another configuration raises
ConfigMismatchError unless `fresh=True`, which starts the file again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from arcsolve import __version__
from arcsolve.errors import ArcsolveError, ConfigMismatchError
from arcsolve.files import append_bytes, ensure_folder, truncate, write_in_place

RESULTS_GLOB = "results-*.jsonl"
LOCK_NAME = ".arcsolve.lock"  # held by the run writing into a report folder


def fingerprint(identity: dict[str, Any]) -> str:
    """A short stable hash of a run's configuration."""
    return hashlib.sha256(orjson.dumps(identity, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


def results_path(report_dir: Path, model: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in model)
    return report_dir / f"results-{safe}.jsonl"


def lock_path(report_dir: Path) -> Path:
    return report_dir / LOCK_NAME


def _differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key} {a!r} -> {b!r}")
    return out


def _as_in(old: Any, new: Any) -> Any:
    """`old` cut down to the keys of `new` (recursively): a header written with settings that
    no longer count (older files kept every setting) is compared on those that do."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {key: _as_in(old.get(key), value) for key, value in new.items()}
    return old


def _identity(header: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in header.items() if k not in ("fingerprint", "arcsolve_version")}


class ResultLog:
    """An append-only JSONL file: a header naming the run's configuration, then one record
    per finished task. Opening an existing file with the same configuration loads its records;
    a half-written last line (a killed run) is dropped. The file is only ever written in place
    (never replaced), so that a lock held on it holds for the whole run."""

    def __init__(self, path: Path, identity: dict[str, Any], fresh: bool = False):
        self.path = path
        self.records: dict[str, dict[str, Any]] = {}
        header = {"fingerprint": fingerprint(identity), **identity, "arcsolve_version": __version__}
        if fresh or not path.exists() or path.stat().st_size == 0:
            ensure_folder(path.parent)
            write_in_place(path, orjson.dumps({"header": header}) + b"\n")
            return
        lines = self._read_lines()
        old = _header(self.path, lines[0] if lines else b"")
        if _as_in(_identity(old), identity) != identity:
            changed = "; ".join(_differences(_as_in(_identity(old), identity), identity)) or "fingerprint"
            raise ConfigMismatchError(
                f"{path} holds results of another configuration ({changed}); "
                "rerun with --fresh to overwrite it, or write elsewhere"
            )
        for number, line in enumerate(lines[1:], start=2):
            record = _parse(self.path, line, number)
            self.records[record["id"]] = record

    def _read_lines(self) -> list[bytes]:
        raw = self.path.read_bytes()
        if not raw.endswith(b"\n"):  # killed mid-write: drop the partial line
            raw = raw[: raw.rfind(b"\n") + 1]
            truncate(self.path, len(raw))
        return [line for line in raw.split(b"\n") if line.strip()]

    def append(self, record: dict[str, Any]) -> None:
        append_bytes(self.path, orjson.dumps(record) + b"\n")
        self.records[record["id"]] = record


def _header(path: Path, line: bytes) -> dict[str, Any]:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        data = None
    header = data.get("header") if isinstance(data, dict) else None
    if not isinstance(header, dict) or "fingerprint" not in header:
        raise ConfigMismatchError(
            f"{path}: the first line is not an arcsolve results header (cut off or another file); "
            "rerun with --fresh to start it again"
        )
    return header


def _parse(path: Path, line: bytes, number: int) -> dict[str, Any]:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ArcsolveError(
            f"{path}: line {number} is not valid JSON ({exc}); rerun with --fresh to start again"
        ) from None
    if not isinstance(data, dict) or "id" not in data:
        raise ArcsolveError(f"{path}: line {number} is not a results record; rerun with --fresh to start again")
    return data


def read_results(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A results file's header and records, read without changing it (the last record kept
    per task; a half-written last line skipped)."""
    raw = path.read_bytes()
    lines = [line for line in raw[: raw.rfind(b"\n") + 1].split(b"\n") if line.strip()]
    header = _header(path, lines[0] if lines else b"")
    records: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(lines[1:], start=2):
        record = _parse(path, line, number)
        records[record["id"]] = record
    return header, list(records.values())


def results_files(report_dir: Path) -> Iterator[Path]:
    """The results files in a report folder, by name."""
    yield from sorted(report_dir.glob(RESULTS_GLOB))


def records_by_model(report_dir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Each model's records in a report folder's results files (export files left out), by
    task id."""
    found = {}
    for path in results_files(report_dir):
        header, records = read_results(path)
        if header.get("kind") != "export" and isinstance(header.get("model"), str):
            found[header["model"]] = {r["id"]: r for r in records}
    return found
