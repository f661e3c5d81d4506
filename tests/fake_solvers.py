"""Tiny deterministic solvers for the evaluation and export tests, registered by monkeypatching
`arcsolve.solution.SOLVERS` (e.g. `"test-identity": Model("tests.fake_solvers:identity")`).

`use_fakes(monkeypatch, tmp_path)` registers them all as `test-<name>`; `make_task` builds tiny
tasks they can solve.

Each call appends `task_id time_budget OMP_NUM_THREADS` to the file named by
$ARCSOLVE_TEST_CALLS, so calls can be counted across worker processes without module state.

`python -m tests.fake_solvers ARGS` runs the `arcsolve` command line with the fakes registered
(and, with $ARCSOLVE_TEST_PARTS, `dsl` and `latformer` replaced by `dsl_like` and
`neural_like`), for tests that run it in a subprocess and kill it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from arcsolve.solution import Candidate, Solution, SolveConfig
from arcsolve.tasks import Grid, Task

FAKES = ("identity", "rot90", "nothing", "raises", "interrupted", "interrupted_once_on_c", "slow", "one_twice", "blank")


def use_fakes(monkeypatch, tmp_path: Path) -> Path:
    """Register every fake as `test-<name>`; return the file their calls are appended to."""
    from arcsolve import solution

    for name in FAKES:
        monkeypatch.setitem(solution.SOLVERS, f"test-{name}", solution.Model(f"tests.fake_solvers:{name}"))
    calls = tmp_path / "calls.txt"
    calls.touch()
    monkeypatch.setenv("ARCSOLVE_TEST_CALLS", str(calls))
    return calls


def called(calls: Path) -> list[str]:
    """The task ids the fakes were called on, in order."""
    return [line.split()[0] for line in calls.read_text().splitlines()]


def make_task(task_id: str, rotated: bool, n_tests: int = 1, solutions: bool = True) -> Task:
    """A task whose answer is each test input rotated (np.rot90) or unchanged."""
    rng = np.random.default_rng(int(task_id, 16) % 1000)
    tests = []
    for _ in range(n_tests):
        x = rng.integers(0, 10, size=(2, 3))
        y = np.rot90(x) if rotated else x
        tests.append({"input": x.tolist(), **({"output": y.tolist()} if solutions else {})})
    return Task.model_validate(
        {"id": task_id, "train": [{"input": [[1]], "output": [[1]]}], "test": tests}
    )


def _answer(task: Task, grids: list[Grid], source: str) -> Solution:
    return Solution(task.id, [Candidate(tuple(grids), source, verified=False)])


def _count(task: Task, config: SolveConfig) -> None:
    calls = os.environ.get("ARCSOLVE_TEST_CALLS")
    if calls:
        with Path(calls).open("a") as f:
            threads = os.environ.get("OMP_NUM_THREADS", "-")
            f.write(f"{task.id} {config.time_budget!r} {threads}\n")


def identity(task: Task, config: SolveConfig) -> Solution:
    """Predict each test input unchanged."""
    _count(task, config)
    return _answer(task, [p.input for p in task.test], "identity")


def rot90(task: Task, config: SolveConfig) -> Solution:
    """Each test input turned a quarter anticlockwise, then (2nd attempt) clockwise."""
    _count(task, config)
    left = [Grid.from_numpy(np.rot90(p.input.to_numpy())) for p in task.test]
    right = [Grid.from_numpy(np.rot90(p.input.to_numpy(), -1)) for p in task.test]
    return Solution(
        task.id,
        [Candidate(tuple(left), "rot90", False), Candidate(tuple(right), "rot270", False)],
    )


def nothing(task: Task, config: SolveConfig) -> Solution:
    """No candidate at all: every attempt is the fallback."""
    _count(task, config)
    return Solution(task.id)


def raises(task: Task, config: SolveConfig) -> Solution:
    """Fail on tasks whose id has a 'b' in it; identity otherwise."""
    _count(task, config)
    if "b" in task.id:
        raise ValueError(f"cannot solve {task.id}")
    return identity(task, config)


def interrupted(task: Task, config: SolveConfig) -> Solution:
    """Identity, but a Ctrl-C on the third call (counted in $ARCSOLVE_TEST_CALLS)."""
    _count(task, config)
    if len(Path(os.environ["ARCSOLVE_TEST_CALLS"]).read_text().splitlines()) == 3:
        raise KeyboardInterrupt
    return _answer(task, [p.input for p in task.test], "identity")


def interrupted_once_on_c(task: Task, config: SolveConfig) -> Solution:
    """Identity, but a Ctrl-C the first time a task with a 'c' in its id is met (a marker file
    beside $ARCSOLVE_TEST_CALLS remembers it, across processes)."""
    _count(task, config)
    marker = Path(os.environ["ARCSOLVE_TEST_CALLS"] + ".interrupted")
    if "c" in task.id and not marker.exists():
        marker.touch()
        raise KeyboardInterrupt
    return _answer(task, [p.input for p in task.test], "identity")


def dsl_like(task: Task, config: SolveConfig) -> Solution:
    """A train-verified quarter turn on the a-tasks; on the others two unverified flips,
    which fill both attempts with wrong grids."""
    _count(task, config)
    if "a" not in task.id:
        flips = [tuple(Grid.from_numpy(flip(p.input.to_numpy())) for p in task.test) for flip in (np.flipud, np.fliplr)]
        return Solution(task.id, [Candidate(grids, "dsl-like", verified=False) for grids in flips])
    left = [Grid.from_numpy(np.rot90(p.input.to_numpy())) for p in task.test]
    return Solution(task.id, [Candidate(tuple(left), "dsl-like", verified=True, score=0.5)])


def neural_like(task: Task, config: SolveConfig) -> Solution:
    """A train-verified identity on the b-tasks, an unverified identity on the others."""
    _count(task, config)
    grids = tuple(p.input for p in task.test)
    return Solution(task.id, [Candidate(grids, "neural-like", verified="b" in task.id, score=1.0)])


def four_tasks() -> list[Task]:
    """rot90 solves the a-tasks, identity the b-tasks; a2 has two test inputs."""
    return [
        make_task("000000a1", rotated=True),
        make_task("000000a2", rotated=True, n_tests=2),
        make_task("000000b1", rotated=False),
        make_task("000000b2", rotated=False),
    ]


def slow(task: Task, config: SolveConfig) -> Solution:
    """Identity after $ARCSOLVE_TEST_SLEEP seconds (default 0.2), for tests that kill a run;
    writes `started task_id pid` to the calls file first."""
    calls = os.environ.get("ARCSOLVE_TEST_CALLS")
    if calls:
        with Path(calls + ".started").open("a") as f:
            f.write(f"{task.id} {os.getpid()}\n")
    time.sleep(float(os.environ.get("ARCSOLVE_TEST_SLEEP", "0.2")))
    _count(task, config)
    return _answer(task, [p.input for p in task.test], "identity")


def one_twice(task: Task, config: SolveConfig) -> Solution:
    """The same quarter turn ranked twice: one distinct candidate."""
    _count(task, config)
    left = tuple(Grid.from_numpy(np.rot90(p.input.to_numpy())) for p in task.test)
    return Solution(task.id, [Candidate(left, "rot90", False), Candidate(left, "rot90 again", False)])


def blank(task: Task, config: SolveConfig) -> Solution:
    """An unverified all-zero guess per test input, the size of the input."""
    _count(task, config)
    zeros = tuple(Grid.from_numpy(np.zeros(p.input.shape, dtype=int)) for p in task.test)
    return Solution(task.id, [Candidate(zeros, "blank", verified=False)])


def register_all() -> None:
    """Register the fakes in this process (for `python -m tests.fake_solvers`)."""
    from arcsolve import solution

    for name in FAKES:
        solution.SOLVERS[f"test-{name}"] = solution.Model(f"tests.fake_solvers:{name}")
    if os.environ.get("ARCSOLVE_TEST_PARTS"):
        solution.SOLVERS["dsl"] = solution.Model("tests.fake_solvers:dsl_like", None, ("time_budget",))
        solution.SOLVERS["latformer"] = solution.Model("tests.fake_solvers:neural_like", None, ("seed", "device"))


if __name__ == "__main__":
    from arcsolve.cli import app

    register_all()
    app(prog_name="arcsolve")
