from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LARC_DIR = ROOT.parent / "shared" / "data" / "larc"


@pytest.fixture
def examples() -> Path:
    return ROOT / "tasks"
