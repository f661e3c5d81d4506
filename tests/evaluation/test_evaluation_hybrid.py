"""Attempts and the hybrid: the first two distinct candidates for every model, the hybrid's
ranking (answers both parts verified first, then the parts alternating, blank guesses last)
and its share
of an export's total budget."""

from __future__ import annotations

import math

import numpy as np
import orjson
import pytest

from arcsolve import hybrid, solution
from arcsolve.evaluation.export import ExportOptions, export_submission, partial_path
from arcsolve.evaluation.records import task_result
from arcsolve.solution import Candidate, Solution, SolveConfig
from arcsolve.tasks import Grid
from tests.fake_solvers import make_task


def full(colour: int, shape=(2, 3)) -> Grid:
    return Grid.from_numpy(np.full(shape, colour))


def cand(colour: int, source: str = "x", verified: bool = False, score: float = 0.5) -> Candidate:
    return Candidate((full(colour),), source, verified, score)


# ---------------------------------------------------------------- distinct attempts


def test_attempts_are_the_first_two_distinct_candidates():
    task = make_task("000000a1", rotated=False)
    fallback = task.test[0].input
    twice = Solution(task.id, [cand(1), cand(1, "again"), cand(2)])
    assert twice.attempts(1, lambda i: fallback) == [[full(1), full(2)]]
    assert twice.sources(1) == [["x", "x"]]
    once = Solution(task.id, [cand(1), cand(1, "again")])
    assert once.attempts(1, lambda i: fallback) == [[full(1), fallback]]  # the input, not a copy
    same_as_input = Solution(task.id, [Candidate((fallback,), "identity", False)])
    assert same_as_input.attempts(1, lambda i: fallback) == [[fallback, fallback]]
    assert Solution(task.id).attempts(1, lambda i: fallback) == [[fallback, fallback]]


def test_a_model_s_repeated_grid_is_not_its_second_attempt():
    """LatFormer's restarts often agree; the result keeps the next distinct grid."""
    task = make_task("000000a1", rotated=False)
    result = task_result(task, Solution(task.id, [cand(3, "latformer", True), cand(3, "latformer"), cand(4)]), 1.0)
    assert result.attempts == ((full(3), full(4)),)


# ---------------------------------------------------------------- the hybrid


@pytest.fixture
def parts(monkeypatch):
    """The hybrid's parts replaced by the answers in `parts.dsl` and `parts.neural`; the
    configs they were called with are kept in `parts.seen`."""

    class Parts:
        dsl: list[Candidate] = []
        neural: list[Candidate] = []
        seen: list[tuple[str, SolveConfig]] = []

    def part(name):
        def solve(task, config):
            Parts.seen.append((name, config))
            return Solution(task.id, list(getattr(Parts, name)), 0.1)

        return solve

    monkeypatch.setattr(hybrid, "get_solver", lambda name: part("dsl" if name == "dsl" else "neural"))
    return Parts


def test_latformer_s_verified_answer_takes_attempt_2_from_the_dsl_s_second_one(parts):
    """Two verified DSL answers disagree; LatFormer is fitted all the same and its verified
    answer comes second, before the DSL's other one."""
    task = make_task("000000a1", rotated=False)
    parts.dsl = [cand(1, "dsl", True), cand(2, "dsl", True), cand(3, "dsl")]
    parts.neural = [cand(7, "latformer", True)]
    answer = hybrid.solve(task, SolveConfig())
    assert [name for name, _ in parts.seen] == ["dsl", "neural"]
    assert answer.attempts(1, lambda i: task.test[0].input) == [[full(1), full(7)]]
    parts.neural = [cand(7, "latformer")]  # a guess does not displace a verified answer
    answer = hybrid.solve(task, SolveConfig())
    assert answer.attempts(1, lambda i: task.test[0].input) == [[full(1), full(2)]]


def test_an_answer_both_parts_verified_comes_first(parts):
    task = make_task("000000a1", rotated=False)
    parts.dsl = [cand(1, "dsl", True, score=0.9), cand(2, "dsl", True, score=0.5)]
    parts.neural = [cand(7, "latformer", True, score=0.9), cand(2, "latformer", True, score=0.4)]
    answer = hybrid.solve(task, SolveConfig())
    assert answer.attempts(1, lambda i: task.test[0].input) == [[full(2), full(1)]]
    assert answer.sources(1) == [["dsl", "dsl"]]


def test_latformer_is_fitted_where_the_dsl_s_verified_answers_are_one_grid(parts):
    task = make_task("000000a1", rotated=False)
    parts.dsl = [cand(1, "dsl", True), cand(1, "dsl other program", True)]
    parts.neural = [cand(7, "latformer", True)]
    answer = hybrid.solve(task, SolveConfig())
    assert [name for name, _ in parts.seen] == ["dsl", "neural"]
    assert answer.attempts(1, lambda i: task.test[0].input) == [[full(1), full(7)]]


def test_a_blank_guess_never_takes_attempt_2_from_a_real_one(parts):
    task = make_task("000000a1", rotated=False)
    parts.dsl = [cand(1, "dsl", True)]
    parts.neural = [cand(0, "latformer", score=0.9), cand(5, "latformer", score=0.2)]
    answer = hybrid.solve(task, SolveConfig())
    assert answer.attempts(1, lambda i: task.test[0].input) == [[full(1), full(5)]]
    parts.neural = [cand(0, "latformer")]  # a blank guess alone still beats a copy of attempt 1
    answer = hybrid.solve(task, SolveConfig())
    assert answer.attempts(1, lambda i: task.test[0].input) == [[full(1), full(0)]]


def test_a_wall_share_is_split_between_the_search_and_the_fit():
    config = SolveConfig(time_budget=5.0)
    assert hybrid.budgeted("hybrid", config, 60.0).time_budget == 30.0
    assert hybrid.budgeted("hybrid", config, 60.0).fit_seconds == 30.0
    assert hybrid.budgeted("hybrid", SolveConfig(fit_seconds=4.0), 60.0).fit_seconds == 4.0
    assert hybrid.budgeted("latformer", config, 60.0).fit_seconds == 60.0
    assert hybrid.budgeted("dsl", config, 60.0).time_budget == 60.0


def test_an_export_s_total_budget_bounds_both_parts_and_time_left_goes_to_later_tasks(parts, monkeypatch, tmp_path):
    clock = {"now": 0.0}

    def spend(name):
        def solve(task, config):
            parts.seen.append((name, config))
            if name == "dsl":
                clock["now"] += config.time_budget
            else:  # the fit on a1 stops early, after 5 s of its share
                clock["now"] += 5.0 if task.id == "000000a1" else config.fit_seconds
            return Solution(task.id, list(getattr(parts, name)(task)), 0.0)

        return solve

    parts.dsl = lambda task: [cand(1, "dsl", True), cand(2, "dsl", True)] if task.id == "000000a1" else []
    parts.neural = lambda task: [cand(7, "latformer", True)]
    monkeypatch.setattr(hybrid, "get_solver", lambda name: spend("dsl" if name == "dsl" else "neural"))
    monkeypatch.setattr("arcsolve.evaluation.export.monotonic", lambda: clock["now"])
    tasks = [make_task(f"000000a{i}", rotated=False) for i in (1, 2, 3)]
    out = tmp_path / "sub.json"
    summary = export_submission(tasks, "hybrid", SolveConfig(), out, ExportOptions(total_seconds=100))
    # 90 s to share (a tenth kept back): a1 gets 30, 15 for the search and 15 for the fit, which
    # takes 5; a2 then gets (90 - 20) / 2 = 35 and a3 the 35 left
    assert [(name, c.time_budget if name == "dsl" else c.fit_seconds) for name, c in parts.seen] == [
        ("dsl", 15.0),
        ("neural", 15.0),
        ("dsl", 17.5),
        ("neural", 17.5),
        ("dsl", 17.5),
        ("neural", 17.5),
    ]
    assert clock["now"] == pytest.approx(90.0) and summary.unreached == []
    records = [orjson.loads(line) for line in partial_path(out).read_bytes().splitlines()[1:]]
    assert [r["time_budget"] for r in records] == pytest.approx([30.0, 35.0, 35.0])
    header = orjson.loads(partial_path(out).read_bytes().splitlines()[0])["header"]
    assert header["config"]["time_budget"] == header["config"]["fit_seconds"] == "shared"
    assert not math.isinf(min(c.fit_seconds for name, c in parts.seen if name == "neural"))


def test_the_hybrid_s_settings_are_the_union_of_its_parts():
    hybrid_reads = set(solution.SOLVERS["hybrid"].reads)
    assert hybrid_reads == set(solution.SOLVERS["dsl"].reads) | set(solution.SOLVERS["latformer"].reads)
    assert solution.answer_settings("dsl", SolveConfig(device="cpu", fit_seconds=3.0)) == {"time_budget": 5.0}
