"""Loading the scripts in `benchmarks/` (not a package) as modules, for their tests."""

import importlib.util
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


def load_script(name: str) -> ModuleType:
    """`benchmarks/<name>.py`, executed as a module of that name."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
