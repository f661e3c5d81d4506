"""Where tasks are solved (`arcsolve.evaluation.runner`): inline, worker processes, batches, Ray."""

import multiprocessing
import os

import numpy as np
import orjson
import pytest

from arcsolve.errors import ArcsolveError
from arcsolve.evaluation.evaluate import EvalOptions, evaluate
from arcsolve.evaluation.export import ExportOptions, export_submission
from arcsolve.evaluation.results import results_path
from arcsolve.evaluation.runner import _worker_init, expected_work, run_all
from arcsolve.loaders import load_tasks
from arcsolve.solution import SOLVERS, Candidate, Model, Solution, SolveConfig, get_solver
from arcsolve.tasks import task_from_dict
from tests.conftest import ROOT
from tests.fake_solvers import called, four_tasks, use_fakes


@pytest.fixture(autouse=True)
def fake_solvers(monkeypatch, tmp_path):
    return use_fakes(monkeypatch, tmp_path)


def test_handing_out_stops_when_the_config_says_so_and_names_the_tasks_left(fake_solvers):
    tasks = four_tasks()
    recorded = []

    def config_for(task, waiting):
        return SolveConfig(time_budget=waiting) if waiting > 2 else None

    unreached = run_all("test-identity", get_solver("test-identity"), tasks, config_for, recorded.append)
    assert [r.id for r in recorded] == ["000000a1", "000000a2"]
    assert unreached == ["000000b1", "000000b2"]
    assert [line.split()[1] for line in fake_solvers.read_text().splitlines()] == ["4.0", "3.0"]  # waiting


def test_batches_and_workers_take_the_largest_tasks_first(fake_solvers):
    def square(side: int, task_id: str):
        grid = np.ones((side, side), dtype=int).tolist()
        return task_from_dict({"train": [{"input": grid, "output": grid}], "test": [{"input": grid}]}, task_id, "-")

    tasks = [square(2, "small"), square(5, "large"), square(3, "middle"), square(3, "middle-too")]
    work = {t.id: expected_work(t) for t in tasks}
    assert work == {"small": 32, "large": 1250, "middle": 162, "middle-too": 162}
    in_order, batched = [], []
    run_all("test-identity", get_solver("test-identity"), tasks, lambda t, w: SolveConfig(), in_order.append)
    run_all("test-identity", get_solver("test-identity"), tasks, lambda t, w: SolveConfig(), batched.append, batch=2)
    assert [r.id for r in in_order] == [t.id for t in tasks]  # one at a time: the order given
    assert [r.id for r in batched] == ["large", "middle", "middle-too", "small"]  # stable among equals


def flaky_batches(tasks, on_solution, batch):
    """A batched solver that fails while it holds task a1, and answers the others with their inputs."""
    for task, _ in tasks:
        if task.id == "000000a1":
            raise RuntimeError("the batch broke")
        on_solution(Solution(task.id, [Candidate(tuple(p.input for p in task.test), "flaky", verified=False)]))


def test_a_failing_batch_costs_only_the_tasks_it_holds(monkeypatch):
    flaky = Model("tests.fake_solvers:identity", "tests.evaluation.test_runner:flaky_batches")
    monkeypatch.setitem(SOLVERS, "test-identity", flaky)
    recorded = []
    solver = get_solver("test-identity")
    run_all("test-identity", solver, four_tasks(), lambda t, w: SolveConfig(), recorded.append, batch=2)
    errors = {r.id: r.error for r in recorded}
    assert sorted(errors) == sorted(t.id for t in four_tasks())  # every task recorded once
    assert errors.pop("000000a1") == "RuntimeError: the batch broke"
    assert set(errors.values()) == {None}  # the stream went on after the failure


def test_bad_jobs_and_batch_are_refused():
    with pytest.raises(ArcsolveError, match="jobs must be at least 1"):
        run_all("test-identity", get_solver("test-identity"), four_tasks(), lambda t, w: SolveConfig(), print, jobs=0)
    with pytest.raises(ArcsolveError, match="batch must be at least 1"):
        run_all("test-identity", get_solver("test-identity"), four_tasks(), lambda t, w: SolveConfig(), print, batch=0)


def test_worker_processes_get_one_thread_and_one_gpu_each_round_robin(monkeypatch):
    counter = multiprocessing.get_context("spawn").Value("i", 0)
    seen = []
    for _ in range(3):
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "unset")
        _worker_init(counter, 2)
        seen.append((os.environ["CUDA_VISIBLE_DEVICES"], os.environ["OMP_NUM_THREADS"]))
    assert seen == [("0", "1"), ("1", "1"), ("0", "1")]


def test_export_with_two_worker_processes_answers_every_task(tmp_path, fake_solvers):
    out = tmp_path / "submission.json"
    summary = export_submission(four_tasks(), "test-rot90", SolveConfig(), out, ExportOptions(jobs=2))
    assert sorted(called(fake_solvers)) == sorted(t.id for t in four_tasks())
    assert summary.solved_now == 2 and summary.unreached == []
    assert out.exists()


def test_batched_latformer_evaluation_records_every_task(tmp_path):
    tasks = load_tasks(ROOT / "tasks")
    config = SolveConfig(steps=3, device="cpu")  # one step per restart: the path, not the skill
    report = evaluate(tasks, "latformer", config, EvalOptions(tmp_path, batch=2, pictures=False))
    assert [r.id for r in report.results] == sorted(t.id for t in tasks)
    assert all(r.error is None for r in report.results)
    assert all(len(tries) == 2 for r in report.results for tries in r.attempts)
    lines = results_path(tmp_path, "latformer").read_bytes().splitlines()
    assert len(lines) == 1 + len(tasks)  # the header, then one line per task


def test_a_ray_cluster_runs_the_tasks_into_the_same_resumable_log(tmp_path, fake_solvers):
    ray = pytest.importorskip("ray")  # the `ray` extra; installed by the `dev` extra, so CI runs this
    try:
        report = evaluate(four_tasks()[:3], "test-rot90", SolveConfig(),
                          EvalOptions(tmp_path, pictures=False, ray_address="local"))
        assert [r.solved for r in report.results] == [True, True, False]
        assert len(called(fake_solvers)) == 3
        # resumed: the fourth task alone is solved, in this process
        report = evaluate(four_tasks(), "test-rot90", SolveConfig(), EvalOptions(tmp_path, pictures=False))
        assert called(fake_solvers)[3:] == ["000000b2"]
        assert np.sum([r.solved for r in report.results]) == 2
    finally:
        ray.shutdown()


def test_an_unreachable_ray_address_is_one_line_and_exit_2():
    pytest.importorskip("ray")
    from typer.testing import CliRunner

    from arcsolve.cli import app

    result = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"}).invoke(
        app, ["eval", str(ROOT / "tasks"), "--model", "dsl", "--ray-address", "127.0.0.1:1"]
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith("error: --ray-address 127.0.0.1:1: no Ray cluster")


def test_speed_bench_runs_every_worker_count_with_every_batch_size(tmp_path):
    from arcsolve.bench.speed import run_speed_bench, speed_settings

    assert speed_settings((1, 2), (1,)) == {"jobs=1": (1, 1), "jobs=2": (2, 1)}
    assert list(speed_settings((1, 4), (16,))) == ["jobs=1", "jobs=4", "batch=16", "jobs=4,batch=16"]
    tasks = [load_tasks(ROOT / "tasks" / f"{name}.json")[0] for name in ("rotate", "reflect")]
    out = tmp_path / "speed.json"
    result = run_speed_bench(tasks, "latformer", SolveConfig(steps=3, device="cpu"), (1,), out, batches=(2,))
    assert set(result["runs"]) == {"jobs=1", "batch=2"} and result["speedup"]["jobs=1"] == 1.0
    assert all(run["solved"] is not None and run["tasks_per_minute"] > 0 for run in result["runs"].values())
    assert orjson.loads(out.read_bytes())["runs"]["batch=2"]["batch"] == 2
