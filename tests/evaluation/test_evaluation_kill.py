"""kill -9 of a running `eval --report` or `export` at three moments, then a rerun: nothing
finished is lost, no task is recorded twice, the files stay valid, and worker processes die
with their parent. The command runs in a subprocess with the fake solvers
(`python -m tests.fake_solvers`), each task taking a fraction of a second."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from arcsolve.evaluation.results import results_path
from tests.conftest import ROOT
from tests.fake_solvers import make_task

IDS = [f"0000{n:02d}0{c}" for n, c in enumerate("abcd")]
WAIT = 60.0  # seconds at most for a subprocess to reach a moment (it takes well under one)


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "tasks"
    path.mkdir()
    for task_id in IDS:
        task = make_task(task_id, rotated=False)
        data = {
            "train": [{"input": p.input.to_list(), "output": p.output.to_list()} for p in task.train],
            "test": [{"input": p.input.to_list(), "output": p.output.to_list()} for p in task.test],
        }
        (path / f"{task_id}.json").write_bytes(orjson.dumps(data))
    return path


def start(args: list[str], calls: Path, sleep: float = 0.1) -> subprocess.Popen:
    env = {**os.environ, "ARCSOLVE_TEST_CALLS": str(calls), "ARCSOLVE_TEST_SLEEP": str(sleep), "COLUMNS": "120"}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.fake_solvers", *args, "--device", "cpu"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def kill_when(process: subprocess.Popen, condition, what: str) -> None:
    try:
        wait_for(lambda: condition() or process.poll() is not None, what)
    finally:
        process.kill()
        process.wait()


def finish(process: subprocess.Popen) -> str:
    out, _ = process.communicate(timeout=WAIT)
    assert process.returncode == 0, out.decode()
    return out.decode()


# Three moments: while the first task is being solved, after one has finished, after the last
# one has finished (while the run records it and writes its files).
MOMENTS = (("started", 1), ("finished", 1), ("finished", len(IDS)))


def test_kill_9_of_eval_at_three_moments_then_a_rerun_loses_nothing(tmp_path, folder):
    calls = tmp_path / "calls.txt"
    report = tmp_path / "r"
    args = ["eval", str(folder), "-m", "test-slow", "--report", str(report)]
    for kind, count in MOMENTS:
        calls.write_text("")
        Path(f"{calls}.started").write_text("")
        watched = Path(f"{calls}.started") if kind == "started" else calls
        kill_when(start(args, calls), lambda w=watched, c=count: len(lines(w)) >= c, f"{kind} {count}")
        path = results_path(report, "test-slow")
        records = [orjson.loads(line) for line in path.read_bytes().splitlines()[1:] if line.endswith(b"}")]
        assert len({r["id"] for r in records}) == len(records)  # never a task twice
    calls.write_text("")
    out = finish(start(args, calls))
    records = [orjson.loads(line) for line in results_path(report, "test-slow").read_bytes().splitlines()[1:]]
    assert sorted(r["id"] for r in records) == IDS  # each task once, none lost
    assert all(r["solved"] for r in records)
    data = orjson.loads((report / "report.json").read_bytes())
    assert (data["tasks"], data["solved"]) == (len(IDS), len(IDS))
    assert "reused" in out or len(lines(calls)) == len(IDS)
    assert not [p.name for p in report.iterdir() if p.name.endswith((".tmp", ".probe"))]


def test_kill_9_of_export_at_three_moments_leaves_a_valid_file_then_a_rerun_completes(tmp_path, folder):
    calls = tmp_path / "calls.txt"
    out = tmp_path / "submission.json"
    args = ["export", "--dataset", str(folder), "-m", "test-slow", "-o", str(out)]
    solved: set[str] = set()
    for kind, count in MOMENTS:
        calls.write_text("")
        Path(f"{calls}.started").write_text("")
        watched = Path(f"{calls}.started") if kind == "started" else calls
        kill_when(start(args, calls), lambda w=watched, c=count: len(lines(w)) >= c, f"{kind} {count}")
        data = orjson.loads(out.read_bytes())  # complete and valid whenever it is read
        assert list(data) == IDS
        assert all(set(entry) == {"attempt_1", "attempt_2"} for v in data.values() for entry in v)
        partial = out.with_name(out.name + ".partial.jsonl")
        kept = [orjson.loads(line)["id"] for line in partial.read_bytes().splitlines()[1:] if line.endswith(b"}")]
        assert len(set(kept)) == len(kept) and solved <= set(kept)  # what was kept stays kept
        solved = set(kept)
    calls.write_text("")
    finish(start(args, calls))
    rerun = sorted(line.split()[0] for line in lines(calls))
    assert rerun == sorted(set(IDS) - solved)  # only the tasks not kept are solved again
    data = orjson.loads(out.read_bytes())
    assert list(data) == IDS
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith((".tmp", ".probe"))]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_their_parent_after_kill_9(tmp_path, folder):
    calls = tmp_path / "calls.txt"
    started = Path(f"{calls}.started")
    process = start(["eval", str(folder), "-m", "test-slow", "--jobs", "2"], calls, sleep=60)
    kill_when(process, lambda: len(lines(started)) >= 2, "two workers")
    workers = {int(line.split()[1]) for line in lines(started)}
    assert len(workers) == 2 and process.pid not in workers
    try:
        wait_for(lambda: not any(_alive(pid) for pid in workers), "the workers to end")
    finally:
        for pid in workers:  # when the test fails, leave nothing behind
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
