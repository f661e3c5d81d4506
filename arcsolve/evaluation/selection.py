"""Which tasks a run takes (a subset of the annotated tasks, sorted by id, the first N) and the
per-task config that their annotations give."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arcsolve.errors import ArcsolveError
from arcsolve.loaders import load_many
from arcsolve.solution import SolveConfig
from arcsolve.tasks import Task

if TYPE_CHECKING:
    from arcsolve.priors.annotations import Annotations

# Without --dataset, a subset is looked for in both ARC-AGI-1 splits (the paper's Table 2 does).
SUBSET_DATASETS: tuple[str, ...] = ("arc1/training", "arc1/evaluation")


def subset_datasets(specs: Sequence[str], subset: str | None) -> list[str]:
    """The task specs to load: those given, or both ARC-AGI-1 splits for a subset without any."""
    if specs:
        return list(specs)
    if subset is None:
        raise ArcsolveError("give a dataset or a --subset")
    return list(SUBSET_DATASETS)


def tasks_to_evaluate(
    specs: Sequence[str],
    subset: str | None,
    limit: int | None,
    annotations: Annotations | None,
    solutions: Path | None = None,
    larc_dir: Path | None = None,
    larc_split: str | None = None,
) -> tuple[list[Task], list[str]]:
    """`eval`'s tasks and the specs they were loaded from: the tasks named (`larc` standing
    for `larc_dir`), or both ARC-AGI-1 splits for a subset; LARC's train or test split alone
    with `larc_split`; then the subset's tasks, sorted by id, the first `limit`."""
    specs = list(specs)
    if "larc" in specs:
        if larc_dir is None:
            raise ArcsolveError("--dataset larc needs --larc-dir pointing at LARC's dataset/ folder")
        specs = [str(larc_dir) if s == "larc" else s for s in specs]
    specs = subset_datasets(specs, subset)
    if larc_split is not None and larc_dir is None:
        raise ArcsolveError("--larc-split needs --larc-dir")
    loaded = load_many(specs, solutions)
    if larc_split is not None:
        from arcsolve.latformer.text_encoder import larc_split as split_ids  # loads torch: only when asked

        keep = split_ids(larc_dir, larc_split)
        loaded = [t for t in loaded if t.id in keep]
    return select_tasks(loaded, annotations, subset, limit), specs


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


def task_config(config: SolveConfig, task: Task, annotations: Annotations | None) -> SolveConfig:
    """The config for one task: its annotated lattice priors decide the experts, unless the
    user named priors. A task annotated with no lattice prior keeps every expert."""
    if annotations is None or config.priors is not None:
        return config
    priors = annotations.priors_for(task.id)
    return config if not priors else config.model_copy(update={"priors": priors})
