"""Where tasks are solved: in this process, in local worker processes, or on a Ray cluster,
one task at a time or in batches (`arcsolve.latformer.batched`). `eval`, `export` and `bench speed`
all go through `run_all`, so every way of running feeds the same resumable results file.

Work is handed out lazily: at most one chunk per worker is in flight, and each chunk's
configuration is asked for (`config_for`) only when it is handed out. So a shared time
budget is divided among the tasks still waiting, a run stopped early has solved a prefix,
and on Ctrl-C only the chunks already in flight finish (and are recorded) before the
interrupt goes on. In this process with batches, the tasks are one stream: a batch takes
the next task as soon as one of its seats is free.
"""

from __future__ import annotations

import multiprocessing
import os
import socket
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

from arcsolve.devices import visible_gpus
from arcsolve.errors import ArcsolveError
from arcsolve.evaluation.evaluate import TaskResult, solve_task, task_result
from arcsolve.solution import SolveConfig, Solver, get_batched_solver
from arcsolve.tasks import Task

Work = tuple[Task, SolveConfig]
ConfigFor = Callable[[Task, int], SolveConfig | None]  # (task, tasks still waiting) -> config, or None: stop


def solve_chunk(model: str, solver: Solver, chunk: list[Work], batch: int) -> list[TaskResult]:
    """Solve a chunk of tasks in this process: batched when the model allows it, else with
    `solver` (the model's solver, passed in so that worker processes need no registry)."""
    results: list[TaskResult] = []
    _solve_chunk(model, solver, chunk, batch, results.append)
    return results


def _solve_chunk(
    model: str, solver: Solver, chunk: Iterable[Work], batch: int, record: Callable[[TaskResult], None]
) -> None:
    """Solve the tasks of `chunk` (a list, or a lazy stream) and record each result."""
    solve_many = get_batched_solver(model) if batch > 1 else None
    if solve_many is None:
        for task, config in chunk:
            record(solve_task(solver, task, config))
        return
    taken: dict[str, Task] = {}  # tasks read from the chunk and not yet recorded

    def take(works: Iterable[Work]) -> Iterator[Work]:
        for task, config in works:
            taken[task.id] = task
            yield task, config

    def on_solution(solution) -> None:
        task = taken.pop(solution.task_id)
        record(task_result(task, solution, solution.seconds))

    works = iter(chunk)
    while True:
        try:
            solve_many(take(works), on_solution, batch)
            return
        except Exception as exc:  # noqa: BLE001 - a failing batch costs its unfinished tasks, not the run
            if not taken:  # it failed before taking any task: going on would fail the same way
                raise
            for task in list(taken.values()):
                record(task_result(task, None, 0.0, f"{type(exc).__name__}: {exc}"))
            taken.clear()  # and the rest of the chunk goes on in a fresh batch


def _chunks(tasks: Sequence[Task], size: int, config_for: ConfigFor) -> Iterator[list[Work]]:
    """Chunks of up to `size` tasks, each task's config asked for as its chunk is handed out."""
    for start in range(0, len(tasks), size):
        chunk = []
        for i, task in enumerate(tasks[start : start + size]):
            config = config_for(task, len(tasks) - start - i)
            if config is None:
                if chunk:
                    yield chunk
                return
            chunk.append((task, config))
        yield chunk


def expected_work(task: Task) -> int:
    """A task's work, roughly: the attention cells of LatFormer's two layers over its train
    pairs (output cells times input cells, plus output cells squared). Workers and batches
    take the largest tasks first, so that no worker is left alone with a long task at the end
    and a batch's members have similar sizes (and so similar canvases)."""
    total = 0
    for pair in task.train:
        (h, w), (H, W) = pair.input.shape, pair.output.shape
        total += H * W * (h * w + H * W)
    return total


def run_all(
    model: str,
    solver: Solver,
    tasks: Sequence[Task],
    config_for: ConfigFor,
    record: Callable[[TaskResult], None],
    jobs: int = 1,
    batch: int = 1,
    ray_address: str | None = None,
) -> list[str]:
    """Solve `tasks` with `model` (its `solver`, or its batched form when batch > 1), calling
    `record(result)` as each finishes; return the ids of the tasks
    never started (config_for said stop). `jobs` worker processes (each told to use one
    CPU thread, and on a machine with GPUs one GPU each, round-robin), or Ray tasks on the
    cluster at `ray_address` ("auto" for a running one, "local" to start one here). Run in
    parallel or in batches, the tasks go largest first (`expected_work`)."""
    if jobs < 1:
        raise ArcsolveError(f"jobs must be at least 1, got {jobs}")
    if batch < 1:
        raise ArcsolveError(f"batch must be at least 1, got {batch}")
    started: set[str] = set()
    if jobs > 1 or batch > 1 or ray_address is not None:
        tasks = sorted(tasks, key=expected_work, reverse=True)

    def handed_out(chunks: Iterator[list[Work]]) -> Iterator[list[Work]]:
        for chunk in chunks:
            started.update(task.id for task, _ in chunk)
            yield chunk

    if ray_address is None and jobs == 1:
        # one stream: a batch takes the next task as soon as a seat is free, and each task's
        # config is asked for as it is taken
        stream = handed_out(_chunks(tasks, 1, config_for))
        _solve_chunk(model, solver, (work for chunk in stream for work in chunk), batch, record)
        return [task.id for task in tasks if task.id not in started]
    chunks = handed_out(_chunks(tasks, batch, config_for))
    if ray_address is not None:
        _run_ray(model, solver, chunks, batch, record, ray_address, jobs)
    else:
        _run_pool(model, solver, chunks, batch, record, jobs)
    return [task.id for task in tasks if task.id not in started]


# ---------------------------------------------------------------------------- local processes


def _worker_init(counter, gpus: int) -> None:
    """One torch thread per worker process, so `jobs` workers share the cores, not multiply;
    with GPUs, worker i sees only GPU i mod gpus.

    The environment variables rule torch when a solver imports it later in the worker (a
    fresh spawned process has not yet), which spares each worker importing torch up front."""
    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    if gpus:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(index % gpus)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _run_pool(
    model: str,
    solver: Solver,
    chunks: Iterator[list[Work]],
    batch: int,
    record: Callable[[TaskResult], None],
    workers: int,
) -> None:
    context = multiprocessing.get_context("spawn")
    counter = context.Value("i", 0)
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_worker_init, initargs=(counter, visible_gpus())
    )
    running: set[Future] = set()

    def collect(finished: set[Future], interrupted: bool = False) -> None:
        """Record finished chunks; a worker's error is raised, unless the run is already
        being interrupted (then only the chunks that succeeded are recorded)."""
        for future in finished:
            running.discard(future)
            if interrupted and (future.cancelled() or future.exception() is not None):
                continue
            for result in future.result():
                record(result)

    try:
        for chunk in chunks:
            if len(running) >= workers:
                collect(wait(running, return_when=FIRST_COMPLETED).done)
            running.add(pool.submit(solve_chunk, model, solver, chunk, batch))
        while running:
            collect(wait(running, return_when=FIRST_COMPLETED).done)
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)  # what is in flight still finishes
        collect(set(running), interrupted=True)
        raise
    pool.shutdown(wait=True)


# ---------------------------------------------------------------------------- Ray


def _run_ray(
    model: str,
    solver: Solver,
    chunks: Iterator[list[Work]],
    batch: int,
    record: Callable[[TaskResult], None],
    address: str,
    jobs: int,
) -> None:
    """Each chunk is a Ray task (1 CPU, and 1 GPU when the cluster has GPUs and the device
    allows CUDA); at most max(jobs, cluster CPUs) chunks are in flight."""
    try:
        import ray
    except ImportError:
        raise ArcsolveError("--ray-address needs Ray: pip install 'arcsolve[ray]'") from None
    if not ray.is_initialized():
        _check_reachable(address)
        try:
            ray.init(
                address=None if address == "local" else address, include_dashboard=False, log_to_driver=False
            )
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ArcsolveError(f"--ray-address {address}: {exc}".splitlines()[0]) from None
    resources = ray.cluster_resources()
    has_gpus = resources.get("GPU", 0) > 0
    remote = ray.remote(num_cpus=1)(_ray_chunk)
    limit = max(jobs, int(resources.get("CPU", 1)))
    running: list = []

    def collect(ready: list) -> None:
        for result_list in ray.get(ready):
            for result in result_list:
                record(result)

    try:
        for chunk in chunks:
            device = chunk[0][1].device
            if device == "cuda" and not has_gpus:
                raise ArcsolveError("--device cuda was asked for, but the Ray cluster has no GPU")
            if len(running) >= limit:
                ready, running = ray.wait(running, num_returns=1)
                collect(ready)
            gpus = 1 if has_gpus and device != "cpu" else 0
            running.append(remote.options(num_gpus=gpus).remote(model, solver, chunk, batch))
        while running:
            ready, running = ray.wait(running, num_returns=1)
            collect(ready)
    except BaseException:
        if running:  # what is in flight still finishes and is recorded
            ready, _ = ray.wait(running, num_returns=len(running))
            collect(ready)
        raise


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail at once, not after Ray's long reconnection loop, when HOST:PORT does not answer."""
    if address in ("auto", "local") or "://" in address:
        return
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        raise ArcsolveError(f"--ray-address {address}: no Ray cluster answers there ({exc})") from None


def _ray_chunk(model: str, solver: Solver, chunk: list[Work], batch: int) -> list[TaskResult]:
    import torch

    torch.set_num_threads(1)
    return solve_chunk(model, solver, chunk, batch)
