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

import ctypes
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import suppress
from typing import Any, Protocol

from arcsolve.devices import visible_gpus
from arcsolve.errors import ArcsolveError
from arcsolve.evaluation.records import TaskResult, solve_task, task_result
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
    backend = _Ray(model, solver, batch, ray_address, jobs) if ray_address is not None else _Pool(
        model, solver, batch, jobs
    )
    _run_parallel(backend, handed_out(_chunks(tasks, batch, config_for)), record)
    return [task.id for task in tasks if task.id not in started]


# ---------------------------------------------------------------------------- in parallel


class _Backend(Protocol):
    """Where chunks run side by side: local worker processes or a Ray cluster."""

    limit: int  # chunks in flight at most

    def check(self, chunk: list[Work]) -> None: ...
    def submit(self, chunk: list[Work]) -> Any: ...
    def wait_one(self, running: list[Any]) -> list[Any]: ...  # at least one finished handle
    def results(self, handle: Any) -> list[TaskResult]: ...  # a worker's error is raised
    def finish(self, running: list[Any]) -> list[list[TaskResult]]: ...  # let in-flight chunks end
    def close(self) -> None: ...


def _run_parallel(backend: _Backend, chunks: Iterator[list[Work]], record: Callable[[TaskResult], None]) -> None:
    """Hand chunks out as slots free up and record each finished chunk's results. On an error
    or Ctrl-C, the chunks in flight still finish, those that succeeded are recorded, and the
    error goes on."""
    running: list[Any] = []

    def collect(done: list[Any]) -> None:
        for handle in done:
            running.remove(handle)
            for result in backend.results(handle):
                record(result)

    try:
        for chunk in chunks:
            backend.check(chunk)
            if len(running) >= backend.limit:
                collect(backend.wait_one(running))
            running.append(backend.submit(chunk))
        while running:
            collect(backend.wait_one(running))
    except BaseException:
        for results in backend.finish(running):
            for result in results:
                record(result)
        raise
    finally:
        backend.close()


# ---------------------------------------------------------------------------- local processes

PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal sent to this process when its parent dies
PARENT_POLL_SECONDS = 1.0


def _die_with_parent(parent: int) -> None:
    """End this worker when the process that started it ends, even by kill -9: Linux sends it
    SIGKILL then (prctl PR_SET_PDEATHSIG); elsewhere, and as a second guard, a thread notices
    the new parent process id."""
    if sys.platform.startswith("linux"):
        with suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it ended before the guard was set
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _worker_init(counter, gpus: int, parent: int | None = None) -> None:
    """One torch thread per worker process, so `jobs` workers share the cores, not multiply;
    with GPUs, worker i sees only GPU i mod gpus; and the worker dies with its parent.

    The environment variables rule torch when a solver imports it later in the worker (a
    fresh spawned process has not yet), which spares each worker importing torch up front."""
    if parent is not None:
        _die_with_parent(parent)
    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    if gpus:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(index % gpus)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


class _Pool:
    """`workers` spawned local processes."""

    def __init__(self, model: str, solver: Solver, batch: int, workers: int):
        context = multiprocessing.get_context("spawn")
        self.call = (model, solver, batch)
        self.limit = workers
        self.pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_worker_init,
            initargs=(context.Value("i", 0), visible_gpus(), os.getpid()),
        )

    def check(self, chunk: list[Work]) -> None:
        pass

    def submit(self, chunk: list[Work]) -> Future:
        model, solver, batch = self.call
        return self.pool.submit(solve_chunk, model, solver, chunk, batch)

    def wait_one(self, running: list[Future]) -> list[Future]:
        return list(wait(running, return_when=FIRST_COMPLETED).done)

    def results(self, handle: Future) -> list[TaskResult]:
        return handle.result()

    def finish(self, running: list[Future]) -> list[list[TaskResult]]:
        self.pool.shutdown(wait=True, cancel_futures=True)  # what is in flight still finishes
        return [f.result() for f in running if not f.cancelled() and f.exception() is None]

    def close(self) -> None:
        self.pool.shutdown(wait=True)


# ---------------------------------------------------------------------------- Ray


class _Ray:
    """Each chunk is a Ray task (1 CPU, and 1 GPU when the cluster has GPUs and the device
    allows CUDA); at most max(jobs, cluster CPUs) chunks are in flight."""

    def __init__(self, model: str, solver: Solver, batch: int, address: str, jobs: int):
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
        self.ray = ray
        resources = ray.cluster_resources()
        self.has_gpus = resources.get("GPU", 0) > 0
        self.remote = ray.remote(num_cpus=1)(_ray_chunk)
        self.limit = max(jobs, int(resources.get("CPU", 1)))
        self.call = (model, solver, batch)

    def check(self, chunk: list[Work]) -> None:
        if chunk[0][1].device == "cuda" and not self.has_gpus:
            raise ArcsolveError("--device cuda was asked for, but the Ray cluster has no GPU")

    def submit(self, chunk: list[Work]) -> Any:
        gpus = 1 if self.has_gpus and chunk[0][1].device != "cpu" else 0
        return self.remote.options(num_gpus=gpus).remote(*self.call[:2], chunk, self.call[2])

    def wait_one(self, running: list[Any]) -> list[Any]:
        return self.ray.wait(running, num_returns=1)[0]

    def results(self, handle: Any) -> list[TaskResult]:
        return self.ray.get(handle)

    def finish(self, running: list[Any]) -> list[list[TaskResult]]:
        if not running:
            return []
        ready, _ = self.ray.wait(running, num_returns=len(running))  # what is in flight still finishes
        out = []
        for handle in ready:
            with suppress(Exception):
                out.append(self.ray.get(handle))
        return out

    def close(self) -> None:
        pass


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
