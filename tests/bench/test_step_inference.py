"""The step-inference benchmark: every task timed, each kind of parameter counted, the
search's inferences put back afterwards."""

import arcsolve.dsl.search as search_module
from arcsolve.tasks import Task
from tests.benchmark_scripts import load_script


def task(task_id: str, size: int) -> Task:
    grid = [[(r + c) % 3 for c in range(size)] for r in range(size)]
    flipped = [row[::-1] for row in grid]
    pairs = [{"input": grid, "output": flipped}, {"input": flipped, "output": grid}]
    return Task.model_validate({"id": task_id, "train": pairs, "test": [{"input": grid}]})


def test_every_task_and_kind_is_timed_and_the_inferences_are_put_back():
    inferences = dict(search_module.PARAMS)
    summary = load_script("step_inference").measure([task("small", 3), task("large", 12)])
    assert summary["tasks"] == 2
    assert set(summary["slowest_tasks_ms"]) == {"small", "large"}
    assert summary["first_step_largest_ms"] <= summary["largest_ms"]
    assert summary["slowest_kinds_s"] and set(summary["slowest_kinds_s"]) <= set(inferences)
    assert search_module.PARAMS == inferences
