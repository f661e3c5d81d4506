"""arcsolve: solve ARC tasks with lattice-symmetry attention (LatFormer), DSL search and a hybrid."""

from importlib.metadata import PackageNotFoundError, version

from arcsolve.errors import ArcsolveError, DatasetNotFoundError, TaskFormatError
from arcsolve.loaders import load_tasks
from arcsolve.tasks import Grid, Pair, Task

try:
    __version__ = version("arcsolve")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+src"



def solve(task: Task, model: str = "latformer", **options) -> list[list[Grid]]:
    """Fit `model` on the task's train pairs; two attempts per test input.

    `options` are SolveConfig fields (device, seed, steps, time_budget, priors, beta)."""
    from arcsolve.solution import SolveConfig, get_solver, input_copy

    solution = get_solver(model)(task, SolveConfig(**options))
    return solution.attempts(len(task.test), input_copy(task))


__all__ = [
    "ArcsolveError", "DatasetNotFoundError", "Grid", "Pair", "Task", "TaskFormatError",
    "__version__", "load_tasks", "solve",
]
