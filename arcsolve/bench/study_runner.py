"""Run a study's fits in pieces: each finished fit is appended to a JSONL results file at once,
a rerun skips every fit already there, and a piece stops cleanly when its time is up.

    results = ResultsFile(Path("out/synthetic.jsonl"), setting_record)
    piece = run_piece(plan, results, train, max_minutes=9, say=print)
    piece.remaining        # fits still to do; run the same command again to go on

The results file's first line is the study's setting; a rerun with another setting is
refused rather than mixed into it. Each piece with fits to do appends one line to `<name>.pieces.jsonl`:
when it started, how long it took, how many fits it finished and how many remain.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path

import torch

from arcsolve.bench.study_plan import FitKey
from arcsolve.errors import ArcsolveError

Train = Callable[[FitKey], dict]


def row_key(row: dict) -> FitKey:
    return FitKey(row["seed"], row["examples"], row["category"], row["task"], row["model"], row.get("w"))


class ResultsFile:
    """A study's JSONL file: a header line {"setting": ...}, then one line per finished fit."""

    def __init__(self, path: Path, setting: dict):
        self.path = path
        self.rows: list[dict] = []
        setting = json.loads(json.dumps(setting))  # tuples as lists, as the file holds them
        if path.exists() and path.stat().st_size:
            lines = path.read_text().splitlines()
            stored = json.loads(lines[0]).get("setting", {})
            differ = [f"{k} {stored.get(k)} here {v}" for k, v in setting.items() if stored.get(k) != v]
            if differ:
                raise ArcsolveError(
                    f"{path}: made with another setting ({'; '.join(differ)}); "
                    "choose another --out folder or delete the file"
                )
            # a piece killed mid-write leaves at most a torn last line: ignore it
            for line in lines[1:]:
                try:
                    self.rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"setting": setting}) + "\n")
        self.done = {row_key(r) for r in self.rows}

    def append(self, row: dict) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")
            f.flush()
        self.rows.append(row)
        self.done.add(row_key(row))

    def pieces_path(self) -> Path:
        return self.path.with_suffix(".pieces.jsonl")

    def pieces(self) -> list[dict]:
        path = self.pieces_path()
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@dataclass
class Piece:
    finished: int  # fits finished in this piece
    remaining: int  # fits of the plan still missing from the results file
    seconds: float
    stopped_for_time: bool


def run_piece(
    plan: Sequence[FitKey],
    results: ResultsFile,
    train: Train,
    max_minutes: float | None = None,
    workers: int = 1,
    say: Callable[[str], None] = lambda line: None,
    clock: Callable[[], float] = time.monotonic,
    device: str = "cpu",
) -> Piece:
    """Run the plan's fits that `results` lacks, `workers` at a time, appending each as it ends.

    With `max_minutes`, no fit starts once the piece's time, plus the longest fit seen so far,
    would pass the bound (a fit is never cut short: its row would not be the fit planned)."""
    todo = [k for k in plan if k not in results.done]
    started = datetime.now(UTC).isoformat(timespec="seconds")
    start = clock()
    longest = 0.0
    finished = 0

    def may_start() -> bool:
        return max_minutes is None or clock() - start + longest <= 60 * max_minutes

    def record(row: dict) -> None:
        nonlocal longest, finished
        results.append(row)
        finished += 1
        longest = max(longest, row["seconds"])
        say(
            f"{row_key(row).label()} accuracy {row['accuracy']:.2f}"
            f"  ({row['train_steps']} steps, {row['seconds']:.1f} s)  [{len(todo) - finished} left]"
        )

    if workers <= 1:
        for key in todo:
            if not may_start():
                break
            record(train(key))
    else:
        # on a CPU each worker takes one core; on a GPU the workers queue their steps side by side
        threads = (1,) if device == "cpu" else (torch.get_num_threads(),)
        with ProcessPoolExecutor(workers, get_context("spawn"), torch.set_num_threads, threads) as pool:
            queue, running = list(todo), set[Future]()
            while queue or running:
                while queue and len(running) < workers and may_start():
                    running.add(pool.submit(train, queue.pop(0)))
                if not running:
                    break
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    record(future.result())
    remaining = sum(1 for k in plan if k not in results.done)
    piece = Piece(finished, remaining, round(clock() - start, 1), remaining > 0 and max_minutes is not None)
    if not todo:  # nothing was left to do: no piece to log
        return piece
    with results.pieces_path().open("a") as f:
        f.write(
            json.dumps(
                {
                    "started": started,
                    "seconds": piece.seconds,
                    "finished": piece.finished,
                    "remaining": piece.remaining,
                    "workers": workers,
                    "device": device_name(device),
                }
            )
            + "\n"
        )
    return piece


def device_name(device: str) -> str:
    """The GPU's name for a run on CUDA, else "cpu (N threads)"."""
    if device != "cpu" and torch.cuda.is_available():
        return torch.cuda.get_device_name(0)
    return f"cpu ({torch.get_num_threads()} threads)"
