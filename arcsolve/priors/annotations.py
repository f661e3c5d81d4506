"""Which core-knowledge priors each ARC task needs: the schema, the bundled file, the subsets.

An annotation file is a JSON object `{task_id: {"priors": [...], "source": ..., "note": ...}}`.
A task is *geometric* when its priors are non-empty and all lattice priors (GEOMETRIC): its
output is a cell-wise function of lattice transformations of its input (LatFormer §2).
The labels themselves are made by `arcsolve.priors.annotate` and documented in annotations/README.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from arcsolve.errors import ArcsolveError, TaskFormatError
from arcsolve.loaders import read_json

GEOMETRIC: tuple[str, ...] = ("translate", "rotate", "reflect", "scale")
# Chollet's other core-knowledge priors, grouped as annotations/README.md explains.
OTHER_PRIORS: tuple[str, ...] = (
    "objects",
    "counting",
    "colour",
    "topology",
    "pattern",
    "symmetry",
    "logic",
    "physics",
    "goal",
)
VOCABULARY: tuple[str, ...] = GEOMETRIC + OTHER_PRIORS
SUBSETS: tuple[str, ...] = GEOMETRIC + ("geometric", "all")
SOURCE = re.compile(r"^(manual|rule:[a-z0-9][a-z0-9_-]*)$")


class Annotation(BaseModel):
    """The priors one task needs, who set them (`manual` or `rule:<name>`) and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    priors: list[str]
    source: str
    note: str = ""

    @property
    def is_geometric(self) -> bool:
        return bool(self.priors) and all(p in GEOMETRIC for p in self.priors)


class Annotations(BaseModel):
    """Annotations of many tasks, keyed by task id, with the subsets the evaluation uses."""

    model_config = ConfigDict(frozen=True)
    entries: dict[str, Annotation]

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self.entries

    def is_geometric(self, task_id: str) -> bool:
        entry = self.entries.get(task_id)
        return entry is not None and entry.is_geometric

    def subset(self, name: str) -> set[str]:
        """Task ids of a subset: a geometric prior's, `geometric` (their union) or `all`."""
        if name not in SUBSETS:
            raise ArcsolveError(f"unknown subset '{name}'; known: {', '.join(SUBSETS)}")
        if name == "all":
            return set(self.entries)
        geometric = {task_id for task_id, entry in self.entries.items() if entry.is_geometric}
        if name == "geometric":
            return geometric
        return {task_id for task_id in geometric if name in self.entries[task_id].priors}

    def priors_for(self, task_id: str) -> tuple[str, ...] | None:
        """The lattice priors a task's annotation names, in GEOMETRIC order; None if unannotated.

        An annotated task that needs no lattice prior gets `()`.
        """
        entry = self.entries.get(task_id)
        if entry is None:
            return None
        return tuple(p for p in GEOMETRIC if p in entry.priors)

    def to_json_bytes(self) -> bytes:
        """Sorted keys, one task per line, so that diffs show one line per changed label."""
        lines = [
            orjson.dumps(task_id).decode() + ": " + orjson.dumps(entry.model_dump()).decode()
            for task_id, entry in sorted(self.entries.items())
        ]
        return ("{\n" + ",\n".join(lines) + "\n}\n").encode()


def default_annotations_path() -> Path:
    """The annotation file shipped with arcsolve (ARC-AGI-1 training + evaluation)."""
    return Path(__file__).resolve().parents[2] / "annotations" / "arc1.json"


def annotations_from_dict(data: Any, source: str) -> Annotations:
    """Validate a parsed annotation file; any problem is a TaskFormatError naming its place."""
    if not isinstance(data, dict):
        raise TaskFormatError(
            source, "", f"expected an object of {{task_id: annotation}}, got {type(data).__name__}"
        )
    entries = {}
    for task_id, raw in data.items():
        entries[task_id] = _annotation(task_id, raw, source)
    return Annotations(entries=entries)


def _annotation(task_id: str, raw: Any, source: str) -> Annotation:
    if not task_id or not task_id.isprintable():  # any id a loader gives a task: a file stem, a Kaggle key
        raise TaskFormatError(source, repr(task_id), "a task id is a non-empty printable string")
    if not isinstance(raw, dict):
        raise TaskFormatError(source, task_id, f"expected an object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - {"priors", "source", "note"})
    if unknown:
        raise TaskFormatError(source, task_id, f"unknown key '{unknown[0]}'")
    for key in ("priors", "source"):
        if key not in raw:
            raise TaskFormatError(source, task_id, f"missing key '{key}'")
    priors = raw["priors"]
    if not isinstance(priors, list):
        raise TaskFormatError(
            source, f"{task_id}.priors", f"expected a list, got {type(priors).__name__}"
        )
    for i, prior in enumerate(priors):
        if prior not in VOCABULARY:
            raise TaskFormatError(
                source, f"{task_id}.priors[{i}]", f"{prior!r} is not in the vocabulary"
            )
        if prior in priors[:i]:
            raise TaskFormatError(source, f"{task_id}.priors[{i}]", f"{prior!r} is listed twice")
    origin = raw["source"]
    if not isinstance(origin, str) or not SOURCE.match(origin):
        raise TaskFormatError(
            source, f"{task_id}.source", f"{origin!r} is neither 'manual' nor 'rule:<name>'"
        )
    note = raw.get("note", "")
    if not isinstance(note, str):
        raise TaskFormatError(
            source, f"{task_id}.note", f"expected a string, got {type(note).__name__}"
        )
    return Annotation(priors=priors, source=origin, note=note)


def load_annotations(path: Path | str | None = None) -> Annotations:
    """Read and validate an annotation file; None means the bundled annotations/arc1.json."""
    file = Path(path) if path is not None else default_annotations_path()
    name = str(file)
    data = read_json(file)
    return annotations_from_dict(data, name)


def save_annotations(annotations: Annotations, path: Path | str) -> None:
    """Write atomically (temporary file, then rename) so an interrupted save loses nothing."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    temporary = file.with_name(file.name + ".tmp")
    temporary.write_bytes(annotations.to_json_bytes())
    temporary.replace(file)
