"""`run_sweep`: compute the missing cells of a spec into a store, on a chosen executor."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairsched.errors import ConfigError, FairschedError
from fairsched.sweep.cell import CellTask, ScheduleExport
from fairsched.sweep.executors import EXECUTORS, outcomes
from fairsched.sweep.spec import Cell, Spec, expand, load_spec
from fairsched.sweep.store import Store

SweepProgress = Callable[[int, int, int], None]
"""Called as ``progress(cells_done, cells_total, cells_failed)`` at the start and after each finished cell."""


@dataclass(frozen=True)
class SweepSummary:
    """What one `run_sweep` did (``fairsched sweep --json`` prints these fields).

    Attributes
    ----------
    n_cells_total : cells in the spec.
    computed : cells run now that succeeded; ``reused`` : cells already in the store, not run again.
    failed : cells run now whose run raised; ``errors`` maps their keys to the one-line messages.
    out : the store's directory.
    elapsed_s : wall-clock seconds.
    """

    n_cells_total: int
    computed: int
    reused: int
    failed: int
    out: Path
    errors: dict[str, str] = field(default_factory=dict)
    elapsed_s: float = 0.0


def n_cells(n: int) -> str:
    """``1 cell``, ``2 cells``: a count of cells as every sweep message words it.

    >>> n_cells(1), n_cells(0), n_cells(1200)
    ('1 cell', '0 cells', '1,200 cells')
    """
    return f"{n:,} cell" if n == 1 else f"{n:,} cells"


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped the sweep; the finished cells are kept. The message says how to resume."""

    def __init__(self, done: int, total: int, resume: str) -> None:
        self.done, self.total = done, total
        super().__init__(f"interrupted: {done} of {n_cells(total)} done and kept; {resume}")


class SweepFailed(FairschedError):
    """A cell failed under ``--fail-fast``."""


def plan_sweep(spec: Spec | str | Path, out: str | Path) -> list[tuple[Cell, bool]]:
    """Every cell of `spec` and whether the store at `out` already holds it (``fairsched sweep --dry-run``)."""
    spec = spec if isinstance(spec, Spec) else load_spec(spec)
    done = Store(out).done_keys()
    return [(cell, cell.key in done) for cell in expand(spec)]


def run_sweep(spec: Spec | str | Path, out: str | Path, *, executor: str = "local", workers: int | None = None,
              scheduler: str | None = None, fail_fast: bool = False, overrides: Mapping[str, Any] | None = None,
              resume: str | None = None, progress: SweepProgress | None = None,
              keep_schedules: ScheduleExport | None = None) -> SweepSummary:
    """Run every cell of `spec` missing from the store at `out` (docs/sweeps.md).

    Parameters
    ----------
    spec : a spec file, or a `Spec` already loaded.
    out : the store's directory (created if needed).
    executor : ``local`` (processes) or ``dask``; ``workers`` defaults to the number of cores.
    scheduler : a Dask scheduler address (``tcp://HOST:PORT``); None = a LocalCluster of ``workers`` processes.
    fail_fast : stop at the first failed cell (raise `SweepFailed`) instead of recording it and going on.
    overrides : ``[base]`` options replaced when loading a spec file.
    resume : how to resume, for the interruption message (default: run the ``fairsched sweep`` command again).
    progress : see `SweepProgress`.
    keep_schedules : ``export(result) -> {policy: jobs.csv rows}`` (``fairsched.report.sweep.batsim_schedules``
        for the four models): keep every cell's schedules in ``schedules/<key>/``. A finished cell whose
        schedules are not kept runs again (its part comes out the same, byte for byte).

    Raises
    ------
    SweepInterrupted : on SIGINT or SIGTERM, after stopping every worker; finished cells stay in the store.
    SweepFailed : with ``fail_fast``, on the first failed cell.
    InputError, ConfigError : a bad spec or option, before any cell runs.
    """
    started = time.perf_counter()
    spec = spec if isinstance(spec, Spec) else load_spec(spec, overrides=overrides)
    workers = _workers(workers)
    if executor not in EXECUTORS:
        raise ConfigError(f"--executor {executor!r}: choose one of {', '.join(EXECUTORS)}")
    cells = expand(spec)
    store = Store(out)
    store.prepare(spec, cells, [f.name for f in dataclasses.fields(cells[0].config)] if cells else [])
    done_before = store.done_keys()
    if keep_schedules is not None:
        done_before &= store.schedules_kept()
    todo = [cell for cell in cells if cell.key not in done_before]
    reused = len(cells) - len(todo)
    computed, errors = 0, {}
    if progress is not None:
        progress(reused, len(cells), 0)
    tasks = [CellTask(module=spec.module, key=c.key, config=c.config, seed=c.seed, schedules=keep_schedules,
                      columns=() if c.window is None else (("window", c.window),)) for c in todo]
    resume = resume or f"run `fairsched sweep {spec.path} --out {out}` to resume"
    with _sigterm_as_interrupt(), contextlib.closing(outcomes(tasks, executor=executor, workers=workers,
                                                              scheduler=scheduler)) as stream:
        try:
            for outcome in stream:
                store.write_part(outcome.key, outcome.data, failed=outcome.error is not None, files=outcome.files)
                if outcome.error is None:
                    computed += 1
                else:
                    errors[outcome.key] = outcome.error
                if progress is not None:
                    progress(reused + computed + len(errors), len(cells), len(errors))
                if fail_fast and outcome.error is not None:
                    raise SweepFailed(f"cell {outcome.key} failed: {outcome.error} ({reused + computed} of "
                                      f"{n_cells(len(cells))} done; fix it, then {resume})")
        except KeyboardInterrupt:
            raise SweepInterrupted(reused + computed, len(cells), resume) from None
    return SweepSummary(n_cells_total=len(cells), computed=computed, reused=reused, failed=len(errors),
                        out=Path(out), errors=errors, elapsed_s=time.perf_counter() - started)


def _workers(workers: int | None) -> int:
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"--workers {workers!r}: expected an integer >= 1")
    return workers


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """While the sweep runs, SIGTERM stops it like Ctrl-C does (workers stopped, finished cells kept)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
