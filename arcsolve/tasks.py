"""The task data model: grids, pairs and tasks, validated by pydantic, converted to numpy.

Locations in error messages are JSON paths with 0-based indices, so
`train[1].output: row 3 has 5 cells, expected 6` means the fourth row of the
second training output.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from arcsolve.errors import TaskFormatError

MAX_SIDE = 30
N_COLOURS = 10


def _grid_problem(message: str) -> PydanticCustomError:
    return PydanticCustomError("grid", message)


def _check_grid(value: Any) -> tuple[tuple[int, ...], ...]:
    """Validate a grid given as nested lists (or a numpy array); return it as nested tuples."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, Grid):
        return value.cells
    if not isinstance(value, list | tuple):
        raise _grid_problem(f"expected a list of rows, got {type(value).__name__}")
    if len(value) == 0:
        raise _grid_problem("empty grid")
    if len(value) > MAX_SIDE:
        raise _grid_problem(f"{len(value)} rows, at most {MAX_SIDE} allowed")
    width = None
    rows = []
    for r, row in enumerate(value):
        if not isinstance(row, list | tuple):
            raise _grid_problem(f"row {r} is {type(row).__name__}, expected a list of cells")
        if len(row) == 0:
            raise _grid_problem(f"row {r} is empty")
        if width is None:
            width = len(row)
            if width > MAX_SIDE:
                raise _grid_problem(f"row {r} has {width} cells, at most {MAX_SIDE} allowed")
        elif len(row) != width:
            raise _grid_problem(f"row {r} has {len(row)} cells, expected {width}")
        for c, cell in enumerate(row):
            if isinstance(cell, bool) or not isinstance(cell, int):
                raise _grid_problem(f"row {r}, column {c}: {cell!r} is not an integer colour")
            if not 0 <= cell < N_COLOURS:
                raise _grid_problem(f"row {r}, column {c}: colour {cell} is outside 0..9")
        rows.append(tuple(row))
    return tuple(rows)


class Grid(BaseModel):
    """A rectangular grid of colours 0..9, 1..30 cells on each side. Immutable and hashable."""

    model_config = ConfigDict(frozen=True)
    cells: tuple[tuple[int, ...], ...]

    @classmethod
    def _coerce(cls, value: Any) -> Any:
        if isinstance(value, Grid):
            return value
        return {"cells": _check_grid(value)}

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.cells), len(self.cells[0])

    def to_numpy(self) -> np.ndarray:
        return np.array(self.cells, dtype=np.int64)

    @classmethod
    def from_numpy(cls, array: np.ndarray | Iterable) -> Grid:
        return cls(cells=_check_grid(np.asarray(array).tolist()))

    def to_list(self) -> list[list[int]]:
        return [list(row) for row in self.cells]

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """`np.asarray(grid)` is the (rows, columns) array of colours."""
        return np.array(self.cells, dtype=dtype or np.int64)

    def __repr__(self) -> str:
        h, w = self.shape
        return f"<Grid {h}x{w}>"


GridField = Annotated[Grid, BeforeValidator(Grid._coerce)]


class Pair(BaseModel):
    """One example: an input grid and, when known, its output grid."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    input: GridField
    output: GridField | None = None


class TrainPair(Pair):
    output: GridField


class Description(BaseModel):
    """One LARC natural-language description of a task."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    see: str = ""
    do: str = ""
    grid: str = ""
    confidence: float | None = None
    verified: bool = False

    @property
    def text(self) -> str:
        return " ".join(part for part in (self.see, self.do, self.grid) if part)


class Task(BaseModel):
    """An ARC task: train pairs (with outputs) and test pairs (outputs known or not)."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    id: str
    train: list[TrainPair] = Field(min_length=1)
    test: list[Pair] = Field(min_length=1)
    descriptions: list[Description] = Field(default_factory=list)

    def __repr__(self) -> str:
        return f"<Task {self.id} | {len(self.train)} train | {len(self.test)} test>"

    __str__ = __repr__

    @property
    def has_solutions(self) -> bool:
        return all(pair.output is not None for pair in self.test)

    def to_json_dict(self) -> dict:
        """The task in ARC's JSON format (test outputs included where known)."""

        def pair_dict(pair: Pair) -> dict:
            d = {"input": pair.input.to_list()}
            if pair.output is not None:
                d["output"] = pair.output.to_list()
            return d

        return {"train": [pair_dict(p) for p in self.train], "test": [pair_dict(p) for p in self.test]}


def _location(loc: tuple) -> str:
    """('train', 1, 'output', 'cells') -> 'train[1].output'."""
    out = ""
    for part in loc:
        if part in ("cells",) or (isinstance(part, str) and part.startswith("function-")):
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _problem(error: dict) -> str:
    kind = error["type"]
    if kind == "missing":
        return f"missing key '{error['loc'][-1]}'"
    if kind == "too_short" and error["loc"]:
        return f"no {error['loc'][-1]} pairs"
    if kind in ("list_type", "model_type", "dict_type"):
        return f"expected {'a list' if kind == 'list_type' else 'an object'}, got {type(error['input']).__name__}"
    return error["msg"]


def _format_error(error: dict, source: str, location: str) -> TaskFormatError:
    loc = error["loc"]
    if error["type"] == "missing":
        where, problem = _location(loc[:-1]), f"missing key '{loc[-1]}'"
    else:
        where, problem = _location(loc), _problem(error)
    if location:
        where = f"{location}.{where}" if where else location
    return TaskFormatError(source, where, problem)


def task_problems(
    data: Any, task_id: str, source: str, location: str = ""
) -> tuple[Task | None, list[TaskFormatError]]:
    """Validate one task given as a JSON-like dict: the task, or None and every problem found.

    Each bad grid, missing key or wrong type is one problem (a grid reports its first bad cell)."""
    if not isinstance(data, dict):
        return None, [TaskFormatError(source, location, f"expected a task object, got {type(data).__name__}")]
    try:
        return Task.model_validate({**data, "id": task_id}), []
    except ValidationError as exc:
        return None, [_format_error(error, source, location) for error in exc.errors(include_url=False)]


def task_from_dict(data: Any, task_id: str, source: str, location: str = "") -> Task:
    """Validate one task given as a JSON-like dict; raise TaskFormatError with the exact place."""
    task, problems = task_problems(data, task_id, source, location)
    if task is None:
        raise problems[0]
    return task


def grid_from_value(value: Any, source: str, location: str) -> Grid:
    """Validate one grid given as nested lists; raise TaskFormatError naming `source` and `location`."""
    try:
        return Grid(cells=_check_grid(value))
    except PydanticCustomError as exc:
        raise TaskFormatError(source, location, exc.message()) from None
