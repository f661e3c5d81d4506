"""arcsolve: solve ARC tasks with lattice-symmetry attention (LatFormer), DSL search and a hybrid."""

from importlib.metadata import PackageNotFoundError, version

from arcsolve.errors import ArcsolveError, DatasetNotFoundError, TaskFormatError
from arcsolve.loaders import load_tasks
from arcsolve.tasks import Grid, Pair, Task

try:
    __version__ = version("arcsolve")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+src"

__all__ = [
    "ArcsolveError", "DatasetNotFoundError", "Grid", "Pair", "Task", "TaskFormatError",
    "__version__", "load_tasks",
]
