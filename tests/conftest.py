import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LARC_DIR = ROOT.parent / "shared" / "data" / "larc"


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, each worker's torch gets its share of the cores: a worker per core
    that each start a thread per core would make every small tensor operation wait on the others."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers:
        import torch

        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        torch.set_num_threads(max(1, cores // int(workers)))


@pytest.fixture
def examples() -> Path:
    return ROOT / "tasks"
