"""Run a solver over many tasks, score it the ARC Prize way, and keep every result on disk.

Scoring (the one scorer, also used by `arcsolve.evaluation.export.score_submission`):
  * a test output is *correct* when one of its first two attempts equals it exactly;
  * a task is *solved* when every one of its test outputs is correct;
  * the *pixel accuracy* of a test output is, over its two attempts, the best fraction of
    cells equal to the truth, counting an attempt of the wrong shape as 0.

Results stream to `<report_dir>/results-<model>.jsonl` as tasks finish: a header line that
names the configuration (model, solver config, dataset, subset) and its fingerprint, then one
line per task. A rerun with the same configuration skips the tasks already there, so Ctrl-C or
a crash loses at most the tasks in flight; a rerun with another configuration raises
ConfigMismatchError unless `fresh=True`, which starts the file again.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from arcsolve.errors import ArcsolveError, ConfigMismatchError
from arcsolve.solution import N_ATTEMPTS, Candidate, Solution, SolveConfig, Solver, get_solver, input_copy
from arcsolve.tasks import Grid, Task

if TYPE_CHECKING:
    from arcsolve.priors.annotations import Annotations

# Without --dataset, a subset is looked for in both ARC-AGI-1 splits (the paper's Table 2 does).
SUBSET_DATASETS: tuple[str, ...] = ("arc1/training", "arc1/evaluation")


# ---------------------------------------------------------------------------- scoring


def pixel_accuracy(attempt: Grid, truth: Grid) -> float:
    """Fraction of cells equal to the truth; 0 when the shapes differ."""
    if attempt.shape != truth.shape:
        return 0.0
    return float(np.mean(attempt.to_numpy() == truth.to_numpy()))


@dataclass(frozen=True)
class Score:
    """How one task's attempts fare against its test outputs (one entry per test output)."""

    correct: tuple[bool, ...]
    pixel_accuracy: tuple[float, ...]

    @property
    def solved(self) -> bool:
        return all(self.correct)


def score_attempts(attempts: Sequence[Sequence[Grid]], truths: Sequence[Grid]) -> Score:
    """Score attempts (a list of grids per test input; only the first two count) against truths."""
    if len(attempts) != len(truths):
        raise ArcsolveError(f"{len(attempts)} attempt lists for {len(truths)} test outputs")
    counted = [list(a)[:N_ATTEMPTS] for a in attempts]
    return Score(
        correct=tuple(any(a == t for a in tries) for tries, t in zip(counted, truths, strict=True)),
        pixel_accuracy=tuple(
            max((pixel_accuracy(a, t) for a in tries), default=0.0)
            for tries, t in zip(counted, truths, strict=True)
        ),
    )


def truths(task: Task) -> list[Grid]:
    """A task's test outputs; ArcsolveError when one is unknown."""
    if not task.has_solutions:
        raise ArcsolveError(
            f"task {task.id} has no known test outputs to score against (give the solutions file)"
        )
    return [pair.output for pair in task.test]


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True)
class TaskResult:
    """One task's attempts (exactly two per test input), time, error and score, and the
    ranked candidates behind the attempts (None when unknown: a record from an older version)."""

    id: str
    attempts: tuple[tuple[Grid, ...], ...]
    seconds: float
    error: str | None = None
    score: Score | None = None  # None when the task's test outputs are unknown
    candidates: tuple[Candidate, ...] | None = None
    from_parts: bool = False  # a hybrid built from its parts' recorded candidates

    def solution(self) -> Solution | None:
        """The solver's output again (candidates and seconds), if it ran without error and
        its candidates were recorded."""
        if self.error is not None or self.candidates is None:
            return None
        return Solution(self.id, list(self.candidates), self.seconds)

    @property
    def solved(self) -> bool:
        return self.score is not None and self.score.solved

    def to_record(self) -> dict[str, Any]:
        """The JSON line written for this task."""
        return {
            "id": self.id,
            "solved": self.solved,
            "correct": list(self.score.correct) if self.score else None,
            "pixel_accuracy": list(self.score.pixel_accuracy) if self.score else None,
            "attempts": [[g.to_list() for g in tries] for tries in self.attempts],
            "seconds": round(self.seconds, 4),
            "error": self.error,
            "from_parts": self.from_parts,
            "candidates": None if self.candidates is None else [_candidate_record(c) for c in self.candidates],
        }

    @classmethod
    def from_record(cls, record: dict[str, Any], task: Task | None = None) -> TaskResult:
        """Read a JSON line back; with its task (outputs known), rescore the attempts."""
        attempts = tuple(tuple(Grid.from_numpy(g) for g in tries) for tries in record["attempts"])
        score = score_attempts(attempts, truths(task)) if task and task.has_solutions else None
        candidates = record.get("candidates")
        return cls(
            record["id"], attempts, float(record["seconds"]), record.get("error"), score,
            None if candidates is None else tuple(_candidate_from_record(c) for c in candidates),
            bool(record.get("from_parts", False)),
        )


def _candidate_record(candidate: Candidate) -> dict[str, Any]:
    return {
        "source": candidate.source,
        "verified": candidate.verified,
        "score": float(candidate.score),
        "detail": candidate.detail,
        "grids": [g.to_list() for g in candidate.grids],
    }


def _candidate_from_record(record: dict[str, Any]) -> Candidate:
    grids = tuple(Grid.from_numpy(g) for g in record["grids"])
    return Candidate(grids, record["source"], bool(record["verified"]), float(record["score"]), record["detail"])


def solve_task(solver: Solver, task: Task, config: SolveConfig) -> TaskResult:
    """Run one solver on one task. A solver that raises gets the fallback attempts (the test
    inputs) and its error recorded, so one bad task never stops a run."""
    start = time.perf_counter()
    error = None
    try:
        solution = solver(task, config)
    except Exception as exc:  # noqa: BLE001 - any solver failure is recorded, not fatal
        solution, error = None, f"{type(exc).__name__}: {exc}"
    return task_result(task, solution, time.perf_counter() - start, error)


def task_result(
    task: Task, solution: Solution | None, seconds: float, error: str | None = None, from_parts: bool = False
) -> TaskResult:
    """A solution's two attempts per test input (fallbacks where it has none), scored."""
    attempts = (solution or Solution(task.id)).attempts(len(task.test), input_copy(task))
    score = score_attempts(attempts, truths(task)) if task.has_solutions else None
    candidates = tuple(solution.candidates) if solution is not None else None
    return TaskResult(task.id, tuple(tuple(a) for a in attempts), seconds, error, score, candidates, from_parts)


# ---------------------------------------------------------------------------- results file


def fingerprint(identity: dict[str, Any]) -> str:
    """A short stable hash of a run's configuration."""
    return hashlib.sha256(orjson.dumps(identity, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


def _differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key} {a!r} -> {b!r}")
    return out


class ResultLog:
    """An append-only JSONL file: a header naming the run's configuration, then one record
    per finished task. Opening an existing file with the same configuration loads its records;
    a half-written last line (a killed run) is dropped."""

    def __init__(self, path: Path, identity: dict[str, Any], fresh: bool = False):
        self.path = path
        self.records: dict[str, dict[str, Any]] = {}
        from arcsolve import __version__

        header = {"fingerprint": fingerprint(identity), **identity, "arcsolve_version": __version__}
        if fresh or not path.exists() or path.stat().st_size == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(orjson.dumps({"header": header}) + b"\n")
            return
        lines = self._read_lines()
        old = self._parse(lines[0], 1).get("header") if lines else None
        if not isinstance(old, dict) or "fingerprint" not in old:
            raise ConfigMismatchError(f"{path}: first line is not an arcsolve results header")
        if old["fingerprint"] != header["fingerprint"]:
            changed = "; ".join(_differences(_identity(old), identity)) or "fingerprint"
            raise ConfigMismatchError(
                f"{path} holds results of another configuration ({changed}); "
                "rerun with --fresh to overwrite it, or use another report directory"
            )
        for number, line in enumerate(lines[1:], start=2):
            record = self._parse(line, number)
            self.records[record["id"]] = record

    def _read_lines(self) -> list[bytes]:
        raw = self.path.read_bytes()
        if not raw.endswith(b"\n"):  # killed mid-write: drop the partial line
            raw = raw[: raw.rfind(b"\n") + 1]
            self.path.write_bytes(raw)
        return [line for line in raw.split(b"\n") if line.strip()]

    def _parse(self, line: bytes, number: int) -> dict[str, Any]:
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise ArcsolveError(f"{self.path}: line {number} is not valid JSON ({exc})") from None
        if not isinstance(data, dict) or ("header" not in data and "id" not in data):
            raise ArcsolveError(f"{self.path}: line {number} is not a results record")
        return data

    def append(self, record: dict[str, Any]) -> None:
        with self.path.open("ab") as f:
            f.write(orjson.dumps(record) + b"\n")
        self.records[record["id"]] = record


def _identity(header: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in header.items() if k not in ("fingerprint", "arcsolve_version")}


# ---------------------------------------------------------------------------- report


@dataclass
class EvalReport:
    """One model's results over a list of tasks, in task order."""

    model: str
    dataset: str
    subset: str | None
    config: SolveConfig
    results: list[TaskResult]

    @property
    def tasks(self) -> int:
        return len(self.results)

    @property
    def solved(self) -> int:
        return sum(r.solved for r in self.results)

    @property
    def solved_rate(self) -> float:
        return self.solved / self.tasks if self.tasks else 0.0

    @property
    def test_outputs(self) -> int:
        return sum(len(r.score.correct) for r in self.results if r.score)

    @property
    def test_outputs_correct(self) -> int:
        return sum(sum(r.score.correct) for r in self.results if r.score)

    @property
    def pixel_accuracy(self) -> float:
        values = [p for r in self.results if r.score for p in r.score.pixel_accuracy]
        return float(np.mean(values)) if values else 0.0

    @property
    def errors(self) -> int:
        return sum(r.error is not None for r in self.results)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.results)

    def subset_counts(
        self, annotations: Annotations, names: Sequence[str]
    ) -> dict[str, tuple[int, int]]:
        """For each subset name: (solved, size) among this report's tasks."""
        out = {}
        for name in names:
            ids = annotations.subset(name)
            members = [r for r in self.results if r.id in ids]
            out[name] = (sum(r.solved for r in members), len(members))
        return out


# ---------------------------------------------------------------------------- running

ResultCallback = Callable[[str, TaskResult], None]
FromParts = Callable[[Task], Solution | None]  # a task's solution built from other results, if possible


def task_config(config: SolveConfig, task: Task, annotations: Annotations | None) -> SolveConfig:
    """The config for one task: its annotated lattice priors decide the experts, unless the
    user named priors. A task annotated with no lattice prior keeps every expert."""
    if annotations is None or config.priors is not None:
        return config
    priors = annotations.priors_for(task.id)
    return config if not priors else config.model_copy(update={"priors": priors})


def results_path(report_dir: Path, model: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in model)
    return report_dir / f"results-{safe}.jsonl"


def run_model(
    tasks: Sequence[Task],
    model: str,
    config: SolveConfig,
    report_dir: Path | None = None,
    jobs: int = 1,
    on_result: ResultCallback | None = None,
    *,
    dataset: str = "",
    subset: str | None = None,
    annotated_priors: Annotations | None = None,
    fresh: bool = False,
    batch: int = 1,
    ray_address: str | None = None,
    from_parts: FromParts | None = None,
) -> EvalReport:
    """Evaluate one model, streaming results to `results-<model>.jsonl` (no report files).

    `annotated_priors`: give each annotated task its annotation's lattice priors as
    `config.priors` (only when `config.priors` is None); the choice is part of the fingerprint.
    `on_result(model, result)` is called once per task, for resumed ones first.
    `jobs`, `batch`, `ray_address`: where and how tasks are solved (`arcsolve.evaluation.runner.run_all`).
    `from_parts(task)`: the task's solution built from results already at hand (the hybrid
    from its parts'); a task for which it gives None is solved.
    """
    from arcsolve.evaluation.runner import run_all

    solver = get_solver(model)
    for task in tasks:
        truths(task)  # refuse unscorable tasks before solving anything
    log = None
    if report_dir is not None:
        identity = {
            "model": model,
            "config": config.model_dump(mode="json"),
            "dataset": dataset,
            "subset": subset,
            "annotated_priors": annotated_priors is not None and config.priors is None,
        }
        log = ResultLog(results_path(report_dir, model), identity, fresh)
    results: dict[str, TaskResult] = {}
    for task in tasks:
        if log is not None and task.id in log.records:
            results[task.id] = TaskResult.from_record(log.records[task.id], task)
            if on_result:
                on_result(model, results[task.id])
    def record(result: TaskResult) -> None:
        if log is not None:
            log.append(result.to_record())
        results[result.id] = result
        if on_result:
            on_result(model, result)

    def configured(task: Task, waiting: int) -> SolveConfig:
        return task_config(config, task, annotated_priors)

    todo = [t for t in tasks if t.id not in results]
    if from_parts is not None:
        for task in todo:
            solution = from_parts(task)
            if solution is not None:
                record(task_result(task, solution, solution.seconds, from_parts=True))
        todo = [t for t in todo if t.id not in results]
    run_all(model, solver, todo, configured, record, jobs, batch, ray_address)
    return EvalReport(model, dataset, subset, config, [results[t.id] for t in tasks])


def evaluate_models(
    tasks: Sequence[Task],
    models: Sequence[str],
    config: SolveConfig,
    report_dir: Path | None = None,
    jobs: int = 1,
    on_result: ResultCallback | None = None,
    annotations: Annotations | None = None,
    *,
    dataset: str = "",
    subset: str | None = None,
    use_annotated_priors: bool = False,
    fresh: bool = False,
    pictures: bool = True,
    batch: int = 1,
    ray_address: str | None = None,
) -> list[EvalReport]:
    """Evaluate each model in turn; with a report_dir, write results and the report files
    (report.json, report.md, examples-<model>.png; see arcsolve.evaluation.report).

    `annotations` adds the per-subset breakdown and the comparison with the paper;
    `use_annotated_priors` also hands each annotated task its priors (see run_model);
    `pictures=False` skips the PNG (matplotlib costs a second or two)."""
    if not models:
        raise ArcsolveError("no model to evaluate")
    if use_annotated_priors and annotations is None:
        raise ArcsolveError("annotated priors need annotations")
    by_model: dict[str, EvalReport] = {}
    for model in _parts_first(models):
        by_model[model] = run_model(
            tasks, model, config, report_dir, jobs, on_result,
            dataset=dataset, subset=subset, fresh=fresh,
            annotated_priors=annotations if use_annotated_priors else None,
            batch=batch, ray_address=ray_address, from_parts=_hybrid_from_parts(model, by_model),
        )
    reports = [by_model[model] for model in models]
    if report_dir is not None:
        from arcsolve.evaluation.report import write_reports

        write_reports(report_dir, reports, tasks, annotations, pictures)
    return reports


def _parts_first(models: Sequence[str]) -> list[str]:
    """The models in the order to run them: the hybrid after its parts, if those are asked for."""
    from arcsolve.hybrid import PARTS

    unique = list(dict.fromkeys(models))
    if "hybrid" in unique and all(part in unique for part in PARTS):
        return [m for m in unique if m != "hybrid"] + ["hybrid"]
    return unique


def _hybrid_from_parts(model: str, reports: dict[str, EvalReport]) -> FromParts | None:
    """For the hybrid, when its parts were evaluated in this run (same tasks, same config):
    the hybrid's ranking of their recorded candidates, so that no task is solved twice."""
    from arcsolve.hybrid import PARTS, combine, needs_neural

    if model != "hybrid" or not all(part in reports for part in PARTS):
        return None
    dsl_results, neural_results = ({r.id: r for r in reports[part].results} for part in PARTS)

    def build(task: Task) -> Solution | None:
        dsl = dsl_results[task.id].solution()
        if dsl is None:
            return None
        if not needs_neural(dsl):
            return combine(dsl, None)
        neural = neural_results[task.id].solution()
        return None if neural is None else combine(dsl, neural)

    return build


def evaluate(
    tasks: Sequence[Task],
    model: str,
    config: SolveConfig,
    report_dir: Path | None = None,
    jobs: int = 1,
    on_result: ResultCallback | None = None,
    annotations: Annotations | None = None,
    *,
    dataset: str = "",
    subset: str | None = None,
    use_annotated_priors: bool = False,
    fresh: bool = False,
    pictures: bool = True,
    batch: int = 1,
    ray_address: str | None = None,
) -> EvalReport:
    """One model: `evaluate_models` with a single model (same options)."""
    return evaluate_models(
        tasks, [model], config, report_dir, jobs, on_result, annotations,
        dataset=dataset, subset=subset, use_annotated_priors=use_annotated_priors, fresh=fresh,
        pictures=pictures, batch=batch, ray_address=ray_address,
    )[0]


def subset_datasets(specs: Sequence[str], subset: str | None) -> list[str]:
    """The task specs to load: those given, or both ARC-AGI-1 splits for a subset without any."""
    if specs:
        return list(specs)
    if subset is None:
        raise ArcsolveError("give a dataset or a --subset")
    return list(SUBSET_DATASETS)


def select_tasks(
    tasks: Sequence[Task],
    annotations: Annotations | None,
    subset: str | None,
    limit: int | None = None,
) -> list[Task]:
    """The tasks of a subset (None: all), sorted by id, the first `limit` of them."""
    chosen = sorted(tasks, key=lambda t: t.id)
    if subset is not None:
        if annotations is None:
            raise ArcsolveError(f"subset '{subset}' needs annotations")
        ids = annotations.subset(subset)
        chosen = [t for t in chosen if t.id in ids]
        if not chosen:
            raise ArcsolveError(f"none of the {len(tasks)} tasks is in subset '{subset}'")
    if limit is not None:
        if limit < 1:
            raise ArcsolveError(f"--limit must be at least 1, got {limit}")
        chosen = chosen[:limit]
    return chosen
