"""Where cells run: local worker processes, or a Dask cluster.

`map_unordered` applies a picklable function to a list of tasks and yields ``(index, result)`` pairs in completion
order; `outcomes` is that for a sweep's `CellTask`s. Closing the generator (or an exception inside it, such as the
KeyboardInterrupt of a Ctrl-C) abandons the running tasks and stops every worker it started before returning: no
worker outlives the sweep.

* ``local``: ``workers`` processes started with ``spawn`` (no fork of a process holding threads); with one
  worker, cells run in this process. Workers ignore SIGINT, so a Ctrl-C reaches only the main process, which
  then terminates them.
* ``dask``: a ``distributed.Client`` on the scheduler at ``scheduler`` (``tcp://HOST:PORT``, a running cluster,
  e.g. dask-jobqueue's ``SLURMCluster``), or on a ``distributed.LocalCluster`` of ``workers`` single-threaded
  processes that is closed at the end. Its workers ignore SIGINT (`fairsched.sweep._dask_worker`): a Ctrl-C
  reaches the main process, which closes the cluster.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from typing import Any, TypeVar

from fairsched.errors import ConfigError
from fairsched.sweep.cell import CellOutcome, CellTask, run_cell

EXECUTORS: tuple[str, ...] = ("local", "dask")
T = TypeVar("T")
_POLL_S = 0.5  # how often the main process wakes while waiting, so that signals are handled at once
_DASK_PRELOAD = "fairsched.sweep._dask_worker"  # LocalCluster workers ignore SIGINT, as local ones do


def outcomes(tasks: list[CellTask], *, executor: str, workers: int, scheduler: str | None) -> Iterator[CellOutcome]:
    """Run a sweep's `tasks` on the chosen executor; yield each outcome as it finishes."""
    for _, outcome in map_unordered(run_cell, tasks, executor=executor, workers=workers, scheduler=scheduler):
        yield outcome


def map_unordered(function: Callable[[Any], T], tasks: Sequence[Any], *, executor: str = "local", workers: int = 1,
                  scheduler: str | None = None) -> Iterator[tuple[int, T]]:
    """``(index, function(tasks[index]))`` for every task, in completion order, on the chosen executor.

    `function` and the tasks must be picklable (a module-level function) unless ``workers == 1``.
    """
    if executor == "local":
        if scheduler is not None:
            raise ConfigError("--scheduler needs --executor dask")
        return local_map(function, tasks, workers)
    if executor == "dask":
        return dask_map(function, tasks, workers, scheduler)
    raise ConfigError(f"--executor {executor!r}: choose one of {', '.join(EXECUTORS)}")


def local_map(function: Callable[[Any], T], tasks: Sequence[Any], workers: int) -> Iterator[tuple[int, T]]:
    """Run the tasks in this process (``workers == 1``) or in a pool of spawned processes."""
    if workers == 1 or len(tasks) <= 1:
        for index, task in enumerate(tasks):
            yield index, function(task)
        return
    pool = ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=get_context("spawn"),
                               initializer=_init_worker, initargs=(os.getpid(),))  # no process started yet
    pending: dict[Future[T], int] = {}
    finished = False
    try:
        with _sigint_blocked():  # workers start at the first submits; a Ctrl-C meanwhile is raised at the end
            pending = {pool.submit(function, task): index for index, task in enumerate(tasks)}
        while pending:
            done, _ = wait(pending, timeout=_POLL_S, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()
        finished = True
    finally:
        if not finished:
            _stop_pool(pool)
        pool.shutdown(wait=True, cancel_futures=True)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Abandon every task: terminate the workers (their work is lost); the pool then fails the pending futures.

    No future is cancelled here: on Python 3.11 the pool's manager thread, seeing its workers gone, sets an
    exception on every pending future, and one cancelled beforehand makes it raise ``InvalidStateError: CANCELLED``
    (a traceback on stderr after every Ctrl-C; Python 3.12 ignores such futures).
    """
    # ProcessPoolExecutor has no public way to stop running calls; its worker table is the only handle.
    processes = list(getattr(pool, "_processes", {}).values())
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join()


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Hold back SIGINT in this thread while worker processes start; a Ctrl-C meanwhile is delivered on exit.

    A spawned worker inherits the blocked signal, so a Ctrl-C sent to the whole process group (as a terminal sends
    it) while it imports cannot kill it with a KeyboardInterrupt traceback; `_init_worker` then ignores SIGINT,
    which discards a pending one, and unblocks it.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _init_worker(parent: int) -> None:
    """Ignore SIGINT (the main process stops the workers), and exit as soon as the main process is gone.

    A main process killed with SIGKILL cannot stop its workers; without the watch they would finish their cell,
    then wait forever for the next one.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by `_sigint_blocked` in the parent
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True, name="fairsched-parent-watch").start()


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_POLL_S)
    os._exit(1)


def dask_map(function: Callable[[Any], T], tasks: Sequence[Any], workers: int,
             scheduler: str | None) -> Iterator[tuple[int, T]]:
    """Run the tasks on a Dask cluster: the one at `scheduler`, else a LocalCluster of `workers` processes."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - distributed is a dependency; said clearly if it is missing
        raise ConfigError("--executor dask needs the `distributed` package: pip install 'dask[distributed]'") from exc
    cluster = None
    if scheduler is None:
        # no dashboard; the scheduler's own HTTP routes on a free port, so that two local sweeps (or test
        # workers) do not fight over 8787
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
                               silence_logs=logging.ERROR, preload=[_DASK_PRELOAD])
    try:
        client = Client(scheduler if scheduler is not None else cluster, timeout="10s")
    except OSError as exc:
        if cluster is not None:
            cluster.close()
        raise ConfigError(f"--scheduler {scheduler}: cannot reach a Dask scheduler there ({exc})") from exc
    futures = []
    try:
        futures = client.map(function, list(tasks), pure=False)
        index = {future.key: i for i, future in enumerate(futures)}
        for future in as_completed(futures):
            yield index[future.key], future.result()
    finally:
        client.cancel(futures)
        client.close()
        if cluster is not None:
            cluster.close()
