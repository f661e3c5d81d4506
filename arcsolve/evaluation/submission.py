"""Kaggle submission files: the two formats, written and read, and the official score.

Formats (`--format` takes the names users type: 2024, 2025 and json; 2020 and csv):
  * "2024" (ARC Prize 2024 and 2025): JSON `{task_id: [{"attempt_1": grid, "attempt_2": grid},
    ...]}`, one object per test input in order, every task present, both keys always set;
  * "2020": CSV with header `output_id,output`, one row per test input, output_id
    `<task_id>_<test_index>`, output the distinct attempts as `|row|row|` strings joined by
    spaces (`|123|456| |111|222|`).

Scoring reads either format and takes the truth from tasks with known outputs or from a plain
Kaggle solutions file (`{task_id: [grid, ...]}`); a test output counts as correct when one of
its first two attempts equals it (`arcsolve.evaluation.scoring`, the one scorer).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import TypeAdapter, ValidationError

from arcsolve.errors import ArcsolveError, SubmissionMismatchError, TaskFormatError
from arcsolve.evaluation.scoring import Score, score_attempts, truths
from arcsolve.files import write_atomically
from arcsolve.loaders import parse_json, read_bytes, read_json
from arcsolve.solution import first_distinct
from arcsolve.tasks import Grid, GridField, Task

Format = Literal["2024", "2020"]
FORMAT_NAMES: dict[str, Format] = {"2024": "2024", "2025": "2024", "json": "2024", "2020": "2020", "csv": "2020"}
EXTENSIONS: dict[str, Format] = {".json": "2024", ".csv": "2020"}
KEYS = ("attempt_1", "attempt_2")
Attempts = Sequence[Sequence[Grid]]  # per test input, the grids tried

_GRID = TypeAdapter(GridField)


def submission_format(name: str | None, path: Path) -> Format:
    """The format asked for by name (2024, 2025, json, 2020, csv; any case), or without a
    name the one that `path`'s extension says (.json, .csv); ArcsolveError otherwise."""
    if name is not None:
        key = name.strip().lower()
        if key not in FORMAT_NAMES:
            raise ArcsolveError(
                f"--format: '{name}' is not a submission format; choose 2024 (also 2025, json) or 2020 (csv)"
            )
        return FORMAT_NAMES[key]
    suffix = path.suffix.lower()
    if suffix not in EXTENSIONS:
        raise ArcsolveError(
            f"--out {path}: cannot tell the format from the extension; name it .json or .csv, or give --format"
        )
    return EXTENSIONS[suffix]


# ---------------------------------------------------------------------------- writing


def fallback_attempts(task: Task) -> list[list[Grid]]:
    """Both attempts of every test input: the input itself."""
    return [[pair.input, pair.input] for pair in task.test]


def submission_json(tasks: Sequence[Task], answers: dict[str, Attempts]) -> dict[str, Any]:
    """The 2024 format; tasks missing from `answers` get the fallback."""
    out = {}
    for task in tasks:
        attempts = answers.get(task.id) or fallback_attempts(task)
        out[task.id] = [
            {key: tries[min(k, len(tries) - 1)].to_list() for k, key in enumerate(KEYS)}
            for tries in attempts
        ]
    return out


def _flat(grid: Grid) -> str:
    return "|" + "|".join("".join(str(c) for c in row) for row in grid.cells) + "|"


def submission_csv(tasks: Sequence[Task], answers: dict[str, Attempts]) -> str:
    """The 2020 format; tasks missing from `answers` get the fallback."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["output_id", "output"])
    for task in tasks:
        for i, tries in enumerate(answers.get(task.id) or fallback_attempts(task)):
            distinct = first_distinct(((g, None) for g in tries), len(tries))
            writer.writerow([f"{task.id}_{i}", " ".join(_flat(g) for g, _ in distinct)])
    return buffer.getvalue()


def submission_bytes(tasks: Sequence[Task], answers: dict[str, Attempts], fmt: Format = "2024") -> bytes:
    if fmt == "2024":
        return orjson.dumps(submission_json(tasks, answers))
    return submission_csv(tasks, answers).encode()


def write_submission(path: Path, tasks: Sequence[Task], answers: dict[str, Attempts], fmt: Format = "2024") -> None:
    write_atomically(path, submission_bytes(tasks, answers, fmt))


# ---------------------------------------------------------------------------- reading


def _grid(value: Any, source: str, where: str) -> Grid:
    try:
        return _GRID.validate_python(value)
    except ValidationError as exc:
        raise TaskFormatError(source, where, exc.errors(include_url=False)[0]["msg"]) from None


def read_submission(path: Path) -> dict[str, list[list[Grid]]]:
    """A submission in either format (a CSV by its `output_id,output` header or .csv name):
    per task, per test input, the grids tried. The file is read once, as a regular file of
    bounded size (`arcsolve.loaders.read_bytes`)."""
    raw = read_bytes(path)
    if raw[:64].lstrip().lower().startswith(b"output_id") or path.suffix.lower() == ".csv":
        return _csv_attempts(raw, str(path))
    return _json_attempts(parse_json(raw, str(path)), str(path))


def _json_attempts(data: Any, source: str) -> dict[str, list[list[Grid]]]:
    if not isinstance(data, dict):
        raise TaskFormatError(source, "", f"expected an object of {{task_id: [attempts]}}, got {type(data).__name__}")
    out = {}
    for task_id, entry in data.items():
        if not isinstance(entry, list):
            raise TaskFormatError(source, task_id, f"expected a list of attempt objects, got {type(entry).__name__}")
        attempts = []
        for i, item in enumerate(entry):
            where = f"{task_id}[{i}]"
            if not isinstance(item, dict):
                raise TaskFormatError(source, where, f"expected an object with {' and '.join(KEYS)}, "
                                      f"got {type(item).__name__}")
            for key in KEYS:
                if key not in item:
                    raise TaskFormatError(source, where, f"missing key '{key}'")
            attempts.append([_grid(item[key], source, f"{where}.{key}") for key in KEYS])
        out[task_id] = attempts
    return out


def _unflat(text: str, source: str, where: str) -> Grid:
    if len(text) < 3 or not (text.startswith("|") and text.endswith("|")):
        raise TaskFormatError(source, where, f"expected a grid like |123|456|, got '{text[:40]}'")
    rows = text[1:-1].split("|")
    if not all(row.isdigit() and row.isascii() for row in rows):
        raise TaskFormatError(source, where, f"expected rows of digits like |123|456|, got '{text[:40]}'")
    return _grid([[int(c) for c in row] for row in rows], source, where)


def _csv_attempts(raw: bytes, source: str) -> dict[str, list[list[Grid]]]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TaskFormatError(source, "", f"not UTF-8 text (byte {exc.start})") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or [c.strip() for c in rows[0]] != ["output_id", "output"]:
        raise TaskFormatError(source, "line 1", "expected the header output_id,output")
    by_task: dict[str, dict[int, list[Grid]]] = {}
    for number, row in enumerate(rows[1:], start=2):
        where = f"line {number}"
        if not row:
            continue
        if len(row) != 2:
            raise TaskFormatError(source, where, f"expected 2 fields (output_id,output), got {len(row)}")
        output_id, output = row
        task_id, _, index = output_id.rpartition("_")
        if not task_id or not index.isdigit():
            raise TaskFormatError(source, where, f"output_id '{output_id}' is not <task_id>_<test index>")
        grids = [_unflat(part, source, where) for part in output.split()]
        if not grids:
            raise TaskFormatError(source, where, "no grid given")
        tests = by_task.setdefault(task_id, {})
        if int(index) in tests:
            raise TaskFormatError(source, where, f"output_id '{output_id}' is given twice")
        tests[int(index)] = grids
    out = {}
    for task_id, tests in by_task.items():
        if sorted(tests) != list(range(len(tests))):
            missing = min(set(range(len(tests) + 1)) - set(tests))
            raise TaskFormatError(source, f"{task_id}_{missing}", "this test input has no row")
        out[task_id] = [tests[i] for i in range(len(tests))]
    return out


def read_solutions(path: Path) -> dict[str, list[Grid]]:
    """A plain Kaggle solutions file: `{task_id: [grid per test input, ...]}`."""
    source = str(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise TaskFormatError(source, "", f"expected an object of {{task_id: [grid, ...]}}, got {type(data).__name__}")
    out = {}
    for task_id, grids in data.items():
        if not isinstance(grids, list) or not grids:
            raise TaskFormatError(source, task_id, "expected a list of grids, one per test input")
        out[task_id] = [_grid(g, source, f"{task_id}[{i}]") for i, g in enumerate(grids)]
    return out


def is_solutions_file(path: Path) -> bool:
    """Whether a JSON file is a plain solutions file (task ids to lists), not tasks."""
    data = read_json(path)
    return isinstance(data, dict) and bool(data) and all(isinstance(v, list) for v in data.values())


# ---------------------------------------------------------------------------- scoring


@dataclass
class ScoreReport:
    """Official score: the mean over all test outputs of 1 if either attempt matches."""

    path: Path
    per_task: dict[str, Score]

    @property
    def test_outputs(self) -> int:
        return sum(len(s.correct) for s in self.per_task.values())

    @property
    def correct(self) -> int:
        return sum(sum(s.correct) for s in self.per_task.values())

    @property
    def score(self) -> float:
        return self.correct / self.test_outputs if self.test_outputs else 0.0

    @property
    def tasks_solved(self) -> int:
        return sum(s.solved for s in self.per_task.values())

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "submission": str(self.path),
            "score": self.score,
            "test_outputs": self.test_outputs,
            "correct": self.correct,
            "tasks": len(self.per_task),
            "tasks_solved": self.tasks_solved,
            "per_task": {task_id: list(s.correct) for task_id, s in self.per_task.items()},
        }


def score_against(submission_path: Path, answers: dict[str, list[Grid]], truth_source: str = "") -> ScoreReport:
    """Score a submission (either format) against the true outputs of each task; the
    submission and the truth must cover the same tasks and test inputs."""
    source = str(submission_path)
    submitted = read_submission(Path(submission_path))
    for task_id in answers:
        if task_id not in submitted:
            raise SubmissionMismatchError(
                f"{source}: task {task_id} is missing (the submission has {len(submitted)} tasks, "
                f"{len(answers)} expected)"
            )
    for task_id, entry in submitted.items():
        if task_id not in answers:
            if truth_source:
                raise SubmissionMismatchError(f"{truth_source}: has no outputs for task {task_id} of {source}")
            raise SubmissionMismatchError(f"{source}: task {task_id} is not among the {len(answers)} tasks scored")
        if len(entry) != len(answers[task_id]):
            where = f"{truth_source} has {len(answers[task_id])} outputs for it" if truth_source else (
                f"expected {len(answers[task_id])}")
            raise SubmissionMismatchError(f"{source}: task {task_id} has {len(entry)} test entries, {where}")
    return ScoreReport(
        Path(submission_path),
        {task_id: score_attempts(submitted[task_id], outputs) for task_id, outputs in answers.items()},
    )


def score_submission(submission_path: Path, tasks_with_solutions: Sequence[Task]) -> ScoreReport:
    """Score a submission (either format) against tasks whose test outputs are known."""
    return score_against(submission_path, {task.id: truths(task) for task in tasks_with_solutions})


def score_with_solutions(submission_path: Path, solutions_path: Path) -> ScoreReport:
    """Score a submission against a plain Kaggle solutions file, which must cover every task
    and test input of the submission."""
    return score_against(submission_path, read_solutions(solutions_path), str(solutions_path))
