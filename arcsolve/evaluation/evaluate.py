"""Evaluate models over many tasks, keep every result on disk, and write the report files.

Results stream to `<report_dir>/results-<model>.jsonl` as tasks finish (see
`arcsolve.evaluation.results`), so a rerun of the same command resumes; the report files
(`arcsolve.evaluation.report`) cover every model whose results are in the folder. One run at a
time writes into a report folder: a second one is refused while the first holds its lock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arcsolve.errors import ArcsolveError
from arcsolve.evaluation.records import EvalReport, TaskResult, task_result
from arcsolve.evaluation.report import write_reports
from arcsolve.evaluation.results import ResultLog, lock_path, read_results, results_files, results_path
from arcsolve.evaluation.runner import run_all
from arcsolve.evaluation.scoring import truths
from arcsolve.evaluation.selection import task_config
from arcsolve.files import check_output_folder, exclusive, remove_stale_temporaries
from arcsolve.hybrid import PARTS, combine
from arcsolve.solution import Solution, SolveConfig, answer_settings, get_solver
from arcsolve.tasks import Task

if TYPE_CHECKING:
    from arcsolve.priors.annotations import Annotations

ResultCallback = Callable[[str, TaskResult], None]
FromParts = Callable[[Task], Solution | None]  # a task's solution built from other results, if possible


@dataclass(frozen=True)
class EvalOptions:
    """How an evaluation runs, apart from the solver settings (SolveConfig).

    `report_dir`: where results stream and the report files go (None: nothing written).
    `jobs`, `batch`, `ray_address`: where and how tasks are solved (`arcsolve.evaluation.runner.run_all`).
    `on_result(model, result)`: called once per task, for resumed ones first.
    `on_reused(model, count)`: called once per model that resumed results from `report_dir`.
    `annotations`: the per-subset breakdown and the comparison with the paper;
    `use_annotated_priors` also hands each annotated task its annotation's lattice priors as
    `config.priors` (only when `config.priors` is None); the choice is part of the fingerprint.
    `dataset`, `subset`: what the tasks are, for the results header and the report.
    `fresh`: start results of another configuration again instead of refusing them.
    `pictures=False` skips the PNG (matplotlib costs a second or two).
    `truth_source`: the solutions file the test outputs come from, named when one is missing."""

    report_dir: Path | None = None
    jobs: int = 1
    batch: int = 1
    ray_address: str | None = None
    on_result: ResultCallback | None = None
    on_reused: Callable[[str, int], None] | None = None
    annotations: Annotations | None = None
    use_annotated_priors: bool = False
    dataset: str = ""
    subset: str | None = None
    fresh: bool = False
    pictures: bool = True
    truth_source: Path | None = None


def run_model(
    tasks: Sequence[Task],
    model: str,
    config: SolveConfig,
    options: EvalOptions = EvalOptions(),
    from_parts: FromParts | None = None,
) -> EvalReport:
    """Evaluate one model, streaming results to `results-<model>.jsonl` (no report files).

    `from_parts(task)`: the task's solution built from results already at hand (the hybrid
    from its parts'); a task for which it gives None is solved."""
    solver = get_solver(model)
    for task in tasks:
        truths(task, options.truth_source)  # refuse unscorable tasks before solving anything
    annotated = options.annotations if options.use_annotated_priors else None
    log = None
    if options.report_dir is not None:
        identity = {
            "model": model,
            "config": answer_settings(model, config),
            "dataset": options.dataset,
            "subset": options.subset,
            "annotated_priors": annotated is not None and config.priors is None,
        }
        log = ResultLog(results_path(options.report_dir, model), identity, options.fresh)
    results: dict[str, TaskResult] = {}
    for task in tasks:
        if log is not None and task.id in log.records:
            results[task.id] = TaskResult.from_record(log.records[task.id], task)
            if options.on_result:
                options.on_result(model, results[task.id])
    if results and options.on_reused:
        options.on_reused(model, len(results))

    def record(result: TaskResult) -> None:
        if log is not None:
            log.append(result.to_record())
        results[result.id] = result
        if options.on_result:
            options.on_result(model, result)

    def configured(task: Task, waiting: int) -> SolveConfig:
        return task_config(config, task, annotated)

    todo = [t for t in tasks if t.id not in results]
    if from_parts is not None:
        for task in todo:
            solution = from_parts(task)
            if solution is not None:
                record(task_result(task, solution, solution.seconds, from_parts=True))
        todo = [t for t in todo if t.id not in results]
    run_all(model, solver, todo, configured, record, options.jobs, options.batch, options.ray_address)
    return EvalReport(model, options.dataset, options.subset, config, [results[t.id] for t in tasks])


def evaluate_models(
    tasks: Sequence[Task], models: Sequence[str], config: SolveConfig, options: EvalOptions = EvalOptions()
) -> list[EvalReport]:
    """Evaluate each model in turn; with `options.report_dir`, write results and the report
    files (report.json, report.md, examples-<model>.png), which also cover the other models
    whose results are already in the folder. Returns this run's reports, in the order asked."""
    if not models:
        raise ArcsolveError("no model to evaluate")
    if options.use_annotated_priors and options.annotations is None:
        raise ArcsolveError("annotated priors need annotations")
    for model in models:
        get_solver(model)  # an unknown model is refused before anything is written
    report_dir = options.report_dir
    if report_dir is not None:
        check_output_folder(report_dir, "--report")
    lock = exclusive(lock_path(report_dir), f"--report {report_dir}") if report_dir is not None else nullcontext()
    with lock:
        if report_dir is not None:
            remove_stale_temporaries(report_dir)  # left by a run killed mid-write
        by_model: dict[str, EvalReport] = {}
        for model in _parts_first(models):
            by_model[model] = run_model(tasks, model, config, options, _hybrid_from_parts(model, by_model))
        reports = [by_model[model] for model in models]
        if report_dir is not None:
            others = earlier_reports(report_dir, models, tasks)
            write_reports(report_dir, reports, tasks, options.annotations, options.pictures, others)
    return reports


def evaluate(
    tasks: Sequence[Task], model: str, config: SolveConfig, options: EvalOptions = EvalOptions()
) -> EvalReport:
    """One model: `evaluate_models` with a single model."""
    return evaluate_models(tasks, [model], config, options)[0]


def earlier_reports(report_dir: Path, models: Sequence[str], tasks: Sequence[Task]) -> list[EvalReport]:
    """The reports of the other models whose results are in `report_dir` (written by earlier
    runs), their records rescored against `tasks` where those include them. A file that cannot
    be read as results is left out (its own run reports the problem when it resumes)."""
    by_id = {task.id: task for task in tasks}
    out = []
    for path in results_files(report_dir):
        try:
            header, records = read_results(path)
        except (ArcsolveError, OSError, KeyError, TypeError, ValueError):
            continue
        model = header.get("model")
        if header.get("kind") == "export" or not isinstance(model, str) or model in models:
            continue
        try:
            config = SolveConfig.model_validate(header.get("config") or {})
        except ValueError:
            config = SolveConfig()
        try:
            results = [TaskResult.from_record(r, by_id.get(r["id"])) for r in sorted(records, key=lambda r: r["id"])]
        except (ArcsolveError, KeyError, TypeError, ValueError):
            continue
        out.append(EvalReport(model, header.get("dataset", ""), header.get("subset"), config, results))
    return out


def _parts_first(models: Sequence[str]) -> list[str]:
    """The models in the order to run them: the hybrid after its parts, if those are asked for."""
    unique = list(dict.fromkeys(models))
    if "hybrid" in unique and all(part in unique for part in PARTS):
        return [m for m in unique if m != "hybrid"] + ["hybrid"]
    return unique


def _hybrid_from_parts(model: str, reports: dict[str, EvalReport]) -> FromParts | None:
    """For the hybrid, when its parts were evaluated in this run (same tasks, same config):
    the hybrid's ranking of their recorded candidates, so that no task is solved twice."""
    if model != "hybrid" or not all(part in reports for part in PARTS):
        return None
    dsl_results, neural_results = ({r.id: r for r in reports[part].results} for part in PARTS)

    def build(task: Task) -> Solution | None:
        dsl = dsl_results[task.id].solution()
        if dsl is None:
            return None
        neural = neural_results[task.id].solution()
        return None if neural is None else combine(dsl, neural)

    return build
