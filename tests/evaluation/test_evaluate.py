"""Evaluation: the scorer, the resumable runner, the report files, subsets and the display."""

from __future__ import annotations

import io

import numpy as np
import orjson
import pytest
from rich.console import Console

from arcsolve import solution
from arcsolve.errors import ArcsolveError, ConfigMismatchError
from arcsolve.evaluation.evaluate import EvalOptions, evaluate, evaluate_models
from arcsolve.evaluation.progress import EvalProgress, comparison_table
from arcsolve.evaluation.records import TaskResult, task_result
from arcsolve.evaluation.report import PAPER_TABLE2
from arcsolve.evaluation.results import results_path
from arcsolve.evaluation.scoring import pixel_accuracy, score_attempts
from arcsolve.evaluation.selection import select_tasks, subset_datasets
from arcsolve.priors.annotations import load_annotations
from arcsolve.solution import Solution, SolveConfig
from arcsolve.tasks import Grid, Task
from tests.fake_solvers import called, four_tasks, make_task, rot90, use_fakes


def grid(rows) -> Grid:
    return Grid.from_numpy(rows)


@pytest.fixture(autouse=True)
def fake_solvers(monkeypatch, tmp_path):
    return use_fakes(monkeypatch, tmp_path)


@pytest.fixture
def calls(fake_solvers):
    return lambda: called(fake_solvers)


@pytest.fixture
def tasks() -> list[Task]:
    return four_tasks()


@pytest.fixture
def annotations(tmp_path):
    path = tmp_path / "ann.json"
    path.write_bytes(orjson.dumps({
        "000000a1": {"priors": ["rotate"], "source": "manual", "note": ""},
        "000000a2": {"priors": ["rotate", "translate"], "source": "manual", "note": ""},
        "000000b1": {"priors": ["objects"], "source": "manual", "note": ""},
        "000000b2": {"priors": ["translate"], "source": "manual", "note": ""},
    }))
    return load_annotations(path)


def run(tasks, model, config, report_dir=None, **options):
    """evaluate() without the PNG, which would cost a second per call."""
    return evaluate(tasks, model, config, EvalOptions(report_dir=report_dir, pictures=False, **options))


def run_models(tasks, models, config, report_dir=None, **options):
    """evaluate_models() without the PNG."""
    return evaluate_models(tasks, models, config, EvalOptions(report_dir=report_dir, pictures=False, **options))


def read_jsonl(path):
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


# ---------------------------------------------------------------- scoring


def test_two_attempts_several_test_outputs():
    truth = [grid([[1, 2], [3, 4]]), grid([[5, 5, 5]])]
    attempts = [
        [grid([[0, 0], [0, 0]]), grid([[1, 2], [3, 4]])],  # second attempt right
        [grid([[5, 5, 0]]), grid([[5], [5], [5]])],  # 2/3 cells, then wrong shape
    ]
    score = score_attempts(attempts, truth)
    assert score.correct == (True, False)
    assert not score.solved
    assert score.pixel_accuracy == (1.0, pytest.approx(2 / 3))
    attempts[1].append(grid([[5, 5, 5]]))  # a third attempt does not count
    assert score_attempts(attempts, truth).correct == (True, False)
    attempts[1][1] = grid([[5, 5, 5]])
    assert score_attempts(attempts, truth).solved


def test_pixel_accuracy_is_zero_for_a_wrong_shape():
    assert pixel_accuracy(grid([[1, 2]]), grid([[1], [2]])) == 0.0
    assert pixel_accuracy(grid([[1, 2], [3, 4]]), grid([[1, 0], [3, 0]])) == 0.5


def test_attempt_count_must_match_test_outputs():
    with pytest.raises(ArcsolveError, match="1 attempt lists for 2 test outputs"):
        score_attempts([[grid([[1]])]], [grid([[1]]), grid([[2]])])


# ---------------------------------------------------------------- runner


def test_evaluate_scores_and_streams_results(tmp_path, tasks):
    seen = []
    report = run(
        tasks, "test-rot90", SolveConfig(), tmp_path, on_result=lambda m, r: seen.append((m, r.id))
    )
    assert [r.solved for r in report.results] == [True, True, False, False]
    assert (report.tasks, report.solved, report.solved_rate) == (4, 2, 0.5)
    assert (report.test_outputs, report.test_outputs_correct) == (5, 3)
    assert seen == [("test-rot90", t.id) for t in tasks]
    lines = read_jsonl(results_path(tmp_path, "test-rot90"))
    assert lines[0]["header"]["model"] == "test-rot90"
    assert [line["id"] for line in lines[1:]] == [t.id for t in tasks]
    a2 = lines[2]
    assert a2["solved"] is True and a2["correct"] == [True, True]
    assert len(a2["attempts"]) == 2 and all(len(a) == 2 for a in a2["attempts"])
    assert a2["attempts"][0][0] == np.rot90(tasks[1].test[0].input.to_numpy()).tolist()
    b1 = lines[3]
    assert b1["solved"] is False and b1["correct"] == [False]
    assert b1["attempts"][0][1] == np.rot90(tasks[2].test[0].input.to_numpy(), -1).tolist()
    assert b1["error"] is None


def test_a_raising_solver_is_recorded_and_the_run_goes_on(tmp_path, tasks):
    report = run(tasks, "test-raises", SolveConfig(), tmp_path)
    errors = {r.id: r.error for r in report.results}
    assert errors == {
        "000000a1": None, "000000a2": None,
        "000000b1": "ValueError: cannot solve 000000b1",
        "000000b2": "ValueError: cannot solve 000000b2",
    }
    # the fallback (the test input) answers the b-tasks, whose answer is the input
    b1 = report.results[2]
    assert b1.attempts[0] == (tasks[2].test[0].input, tasks[2].test[0].input)
    assert report.errors == 2


def test_rerun_after_an_interruption_skips_finished_tasks(tmp_path, tasks, calls):
    extra = [make_task("000000c1", rotated=False), make_task("000000c2", rotated=False)]
    six = tasks + extra
    with pytest.raises(KeyboardInterrupt):
        run(six, "test-interrupted", SolveConfig(), tmp_path)
    path = results_path(tmp_path, "test-interrupted")
    assert [line["id"] for line in read_jsonl(path)[1:]] == ["000000a1", "000000a2"]
    assert not (tmp_path / "report.json").exists()
    report = run(six, "test-interrupted", SolveConfig(), tmp_path)
    # calls: a1, a2, b1 (interrupted), then the rerun solves b1 onwards only
    assert calls() == ["000000a1", "000000a2", "000000b1", "000000b1", "000000b2",
                       "000000c1", "000000c2"]
    assert [r.id for r in report.results] == [t.id for t in six]
    assert report.solved == 4  # identity solves b1, b2, c1, c2
    assert len(read_jsonl(path)) == 1 + 6
    run(six, "test-interrupted", SolveConfig(), tmp_path)
    assert len(calls()) == 7  # everything finished: nothing runs again


def test_a_half_written_last_line_is_dropped(tmp_path, tasks, calls):
    run(tasks[:2], "test-identity", SolveConfig(), tmp_path)
    path = results_path(tmp_path, "test-identity")
    with path.open("ab") as f:
        f.write(b'{"id": "000000b1", "solv')
    report = run(tasks, "test-identity", SolveConfig(), tmp_path)
    assert calls() == ["000000a1", "000000a2", "000000b1", "000000b2"]
    assert report.solved == 2
    assert [line["id"] for line in read_jsonl(path)[1:]] == [t.id for t in tasks]


def test_another_configuration_is_refused_unless_fresh(tmp_path, tasks, calls):
    run(tasks, "test-identity", SolveConfig(steps=300), tmp_path, dataset="mine")
    with pytest.raises(ConfigMismatchError) as error:
        run(tasks, "test-identity", SolveConfig(steps=10), tmp_path, dataset="mine")
    message = str(error.value)
    assert "results-test-identity.jsonl holds results of another configuration" in message
    assert "config.steps 300 -> 10" in message and "--fresh" in message
    with pytest.raises(ConfigMismatchError, match="subset None -> 'rotate'"):
        run(tasks, "test-identity", SolveConfig(steps=300), tmp_path, dataset="mine",
                 subset="rotate")
    run(tasks, "test-identity", SolveConfig(steps=10), tmp_path, dataset="mine", fresh=True)
    assert len(calls()) == 8
    header = read_jsonl(results_path(tmp_path, "test-identity"))[0]["header"]
    assert header["config"]["steps"] == 10 and len(header["fingerprint"]) == 16


def test_unscorable_tasks_are_refused_before_solving(tmp_path, calls):
    unknown = [make_task("000000a1", rotated=True, solutions=False)]
    with pytest.raises(ArcsolveError, match="task 000000a1 has no known test outputs"):
        run(unknown, "test-identity", SolveConfig(), tmp_path)
    assert calls() == []


def test_unknown_model_is_refused(tasks):
    with pytest.raises(ArcsolveError, match="unknown model 'nope'"):
        run(tasks, "nope", SolveConfig())


def test_annotated_priors_reach_the_solver_and_the_fingerprint(tmp_path, tasks, annotations,
                                                                monkeypatch):
    seen = {}

    def spy(task, config):
        seen[task.id] = config.priors
        return solution.Solution(task.id)

    monkeypatch.setattr(solution, "get_solver", lambda name: spy)
    monkeypatch.setattr("arcsolve.evaluation.evaluate.get_solver", lambda name: spy)
    run(tasks, "test-identity", SolveConfig(), tmp_path, annotations=annotations,
             use_annotated_priors=True)
    assert seen == {"000000a1": ("rotate",), "000000a2": ("translate", "rotate"),
                    "000000b1": None, "000000b2": ("translate",)}  # no lattice prior: all experts
    with pytest.raises(ConfigMismatchError, match="annotated_priors True -> False"):
        run(tasks, "test-identity", SolveConfig(), tmp_path, annotations=annotations)


def test_two_jobs_in_spawned_workers_record_everything_they_finish(tmp_path, tasks, calls,
                                                                   fake_solvers):
    five = tasks + [make_task("000000c1", rotated=False)]
    with pytest.raises(KeyboardInterrupt):
        run(five, "test-interrupted_once_on_c", SolveConfig(), tmp_path, jobs=2)
    assert sorted(calls()) == [t.id for t in five]
    assert {line.split()[2] for line in fake_solvers.read_text().splitlines()} == {"1"}  # threads
    lines = read_jsonl(results_path(tmp_path, "test-interrupted_once_on_c"))
    # c1 is handed out last, so the four before it had all started: each one is kept
    assert sorted(line["id"] for line in lines[1:]) == [t.id for t in tasks]
    report = run(five, "test-interrupted_once_on_c", SolveConfig(), tmp_path)
    assert calls()[5:] == ["000000c1"]
    assert [r.solved for r in report.results] == [False, False, True, True, True]


# ---------------------------------------------------------------- report files


def test_report_json_schema_markdown_and_png(tmp_path, tasks, annotations):
    evaluate(tasks, "test-rot90", SolveConfig(seed=3), EvalOptions(tmp_path, annotations=annotations,
             dataset="fake", subset=None))
    data = orjson.loads((tmp_path / "report.json").read_bytes())
    assert {"model", "dataset", "subset", "tasks", "solved", "solved_rate", "per_task", "config",
            "arcsolve_version"} <= set(data)
    assert (data["model"], data["dataset"], data["subset"]) == ("test-rot90", "fake", None)
    assert (data["tasks"], data["solved"], data["solved_rate"]) == (4, 2, 0.5)
    assert data["config"]["seed"] == 3
    assert set(data["per_task"]) == {t.id for t in tasks}
    entry = data["per_task"]["000000a1"]
    assert {"solved", "attempts", "seconds"} <= set(entry) and entry["solved"] is True
    assert entry["attempts"][0][0] == np.rot90(tasks[0].test[0].input.to_numpy()).tolist()
    assert data["subsets"]["rotate"] == {"solved": 2, "tasks": 2}
    assert data["subsets"]["translate"] == {"solved": 1, "tasks": 2}
    assert data["subsets"]["geometric"] == {"solved": 2, "tasks": 3}
    markdown = (tmp_path / "report.md").read_text()
    assert "| test-rot90 | 2 | 0.500 | 3/5 |" in markdown
    assert "| test-rot90 | 1/2 (0.500) | 2/2 (1.000) | 2/3 (0.667) | 2/4 (0.500) |" in markdown
    assert "| LatFormer (paper) | 0.365 | 0.800 | – | – |" in markdown
    assert "| 000000b1 | no | 0/1 |" in markdown
    assert "![examples of test-rot90](examples-test-rot90.png)" in markdown
    assert (tmp_path / "examples-test-rot90.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_several_models_share_one_comparison(tmp_path, tasks, annotations):
    reports = run_models(tasks, ["test-rot90", "test-identity"], SolveConfig(), tmp_path,
                         annotations=annotations)
    assert [r.solved for r in reports] == [2, 2]
    data = orjson.loads((tmp_path / "report.json").read_bytes())
    assert [d["model"] for d in data] == ["test-rot90", "test-identity"]
    assert results_path(tmp_path, "test-identity").exists()
    assert not list(tmp_path.glob("*.png"))  # pictures=False
    out = io.StringIO()
    Console(file=out, width=200).print(comparison_table(reports, annotations))
    text = out.getvalue()
    assert "translate" in text and "geometric" in text and "reflect" not in text
    assert "DSL search (paper)" in text and "0.673" in text
    assert "test-identity" in text and "1/2 (0.500)" in text
    assert set(PAPER_TABLE2["LatFormer (paper)"]) == {"translate", "rotate", "reflect", "scale"}


def test_progress_display_counts_solved_and_time(tasks):
    out = io.StringIO()
    console = Console(file=out, width=160, force_terminal=False)
    with EvalProgress(total=len(tasks), console=console) as progress:
        run(tasks, "test-rot90", SolveConfig(), on_result=progress)
    text = out.getvalue()
    assert "test-rot90" in text and "4/4" in text and "solved 2" in text and "s/task" in text


# ---------------------------------------------------------------- task selection


def test_select_tasks_by_subset_sorted_and_limited(tasks, annotations):
    shuffled = tasks[::-1]
    assert [t.id for t in select_tasks(shuffled, annotations, None)] == [t.id for t in tasks]
    assert [t.id for t in select_tasks(shuffled, annotations, "translate")] == [
        "000000a2", "000000b2"]
    assert [t.id for t in select_tasks(shuffled, annotations, "geometric", limit=2)] == [
        "000000a1", "000000a2"]
    assert [t.id for t in select_tasks(shuffled, None, None, limit=1)] == ["000000a1"]
    with pytest.raises(ArcsolveError, match="none of the 4 tasks is in subset 'scale'"):
        select_tasks(tasks, annotations, "scale")
    with pytest.raises(ArcsolveError, match="unknown subset 'spin'"):
        select_tasks(tasks, annotations, "spin")
    with pytest.raises(ArcsolveError, match="subset 'rotate' needs annotations"):
        select_tasks(tasks, None, "rotate")


def test_a_subset_without_a_dataset_means_both_arc1_splits():
    assert subset_datasets([], "rotate") == ["arc1/training", "arc1/evaluation"]
    assert subset_datasets(["x.json"], "rotate") == ["x.json"]
    with pytest.raises(ArcsolveError, match="give a dataset or a --subset"):
        subset_datasets([], None)


def test_a_task_result_keeps_its_ranked_candidates_through_the_results_file():
    task = make_task("000000a2", rotated=True, n_tests=2)
    answer = rot90(task, SolveConfig())
    result = task_result(task, answer, 1.5)
    back = TaskResult.from_record(orjson.loads(orjson.dumps(result.to_record())), task)
    assert back.candidates == tuple(answer.candidates)
    assert back.solution() == Solution(task.id, answer.candidates, 1.5)
    assert task_result(task, None, 0.0, "boom").solution() is None


def _hybrid_of_fakes(monkeypatch):
    monkeypatch.setitem(solution.SOLVERS, "dsl", solution.Model("tests.fake_solvers:dsl_like"))
    monkeypatch.setitem(solution.SOLVERS, "latformer", solution.Model("tests.fake_solvers:neural_like"))


def test_the_hybrid_ranks_verified_answers_first_then_the_dsl_s_guesses_then_latformer_s():
    from arcsolve.hybrid import combine
    from arcsolve.solution import Candidate

    def answer(source: str, verified: bool, colour: int) -> Candidate:
        return Candidate((Grid.from_numpy(np.full((2, 2), colour)),), source, verified, score=0.5)

    dsl = Solution("t", [answer("dsl", True, 1), answer("dsl", False, 2)])
    neural = Solution("t", [answer("latformer", True, 3), answer("latformer", False, 4)])
    ranked = combine(dsl, neural).candidates
    assert [(c.source, c.verified) for c in ranked] == [
        ("dsl", True), ("latformer", True), ("dsl", False), ("latformer", False)
    ]


def test_eval_builds_the_hybrid_from_its_parts_instead_of_solving_again(monkeypatch, tmp_path, calls):
    _hybrid_of_fakes(monkeypatch)
    tasks = four_tasks()
    reports = run_models(tasks, ["hybrid", "dsl", "latformer"], SolveConfig(), tmp_path / "r")
    assert [r.model for r in reports] == ["hybrid", "dsl", "latformer"]  # asked-for order kept
    assert [r.solved for r in reports] == [4, 2, 2]
    assert len(calls()) == 8  # each part once per task, the hybrid on none
    assert all(r.from_parts for r in reports[0].results)
    assert not any(r.from_parts for r in reports[1].results)

    alone = run_models(tasks, ["hybrid"], SolveConfig(), tmp_path / "alone")[0]
    assert len(calls()) == 16  # solved for real: both parts on every task
    assert not any(r.from_parts for r in alone.results)
    assert [r.attempts for r in alone.results] == [r.attempts for r in reports[0].results]


def test_a_hybrid_is_solved_where_a_part_s_record_has_no_candidates(monkeypatch, tmp_path, calls):
    _hybrid_of_fakes(monkeypatch)
    tasks = four_tasks()
    report_dir = tmp_path / "r"
    run_models(tasks, ["dsl", "latformer"], SolveConfig(), report_dir)
    path = results_path(report_dir, "dsl")
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    for record in lines[1:]:
        if record["id"] == "000000b1":  # as an older arcsolve wrote it
            del record["candidates"]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    assert len(calls()) == 8

    hybrid = run_models(tasks, ["dsl", "latformer", "hybrid"], SolveConfig(), report_dir)[2]
    assert len(calls()) == 10  # the parts resumed; the hybrid solved 000000b1 (dsl, then latformer)
    assert [r.from_parts for r in hybrid.results] == [True, True, False, True]
    assert hybrid.solved == 4


def test_a_report_folder_is_read_back_as_each_models_records_by_task(tmp_path):
    from arcsolve.evaluation.results import ResultLog, records_by_model

    for model, solved in (("dsl", False), ("latformer", True)):
        log = ResultLog(results_path(tmp_path, model), {"model": model, "dataset": "d"})
        log.append({"id": "t1", "solved": solved})
        log.append({"id": "t2", "solved": False})
        log.append({"id": "t1", "solved": not solved})  # a task run again: its last record counts
    models = records_by_model(tmp_path)
    assert sorted(models) == ["dsl", "latformer"]
    assert models["dsl"]["t1"]["solved"] is True and models["latformer"]["t1"]["solved"] is False
    assert sorted(models["latformer"]) == ["t1", "t2"]
