"""Running one cell, in whichever process or Dask worker the executor chose.

`run_cell` returns the cell's Parquet part as bytes, with its detail files: the worker serializes, the main
process only writes files. The bytes depend only on the cell (its config, seed and the model), never on the
executor, the worker or the time, so the same spec gives the same store with any executor and any number of
workers.

Detail files (docs/sweeps.md, "The store"), beside the part:

* ``orgs/<key>.parquet``: when the model's ``Result`` has ``per_org()`` (one row per policy and organization),
  that table preceded by ``cell`` and ``seed`` (and ``window`` in a sweep over windows);
* ``schedules/<key>/<policy>.jobs.csv``: with ``--keep-schedules``, each policy's schedule as Batsim's
  ``jobs.csv``, from the `CellTask.schedules` function the caller passes (the report layer formats it; the sweep
  layer never imports it).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fairsched.errors import FairschedError
from fairsched.sweep.models import load_model
from fairsched.sweep.spec import config_columns
from fairsched.sweep.store import ORGS, SCHEDULES

BOOKKEEPING = ("cell", "seed", "status", "error")
ScheduleExport = Callable[[Any], Mapping[str, Any]]
"""``export(result) -> {policy: DataFrame}``: each policy's schedule as the rows of Batsim's ``jobs.csv``."""


@dataclass(frozen=True)
class CellTask:
    """What a worker needs to run one cell: the model's import path, the config, the seed, the cell's key, the
    columns the sweep adds to its rows (``window``) and, to keep the schedules, the function that exports them."""

    module: str
    key: str
    config: Any
    seed: int
    columns: tuple[tuple[str, Any], ...] = ()
    schedules: ScheduleExport | None = None


@dataclass(frozen=True)
class CellOutcome:
    """A finished cell: its Parquet part, its detail files (path relative to the store -> bytes) and, when its
    run raised, the one-line error (then ``data`` records it and there is no detail)."""

    key: str
    data: bytes
    error: str | None = None
    files: dict[str, bytes] = field(default_factory=dict)


def run_cell(task: CellTask) -> CellOutcome:
    """Run the model on one cell and serialize its rows (or its error) as one Parquet part, with its details."""
    import pandas as pd

    model = load_model(task.module)
    files: dict[str, bytes] = {}
    try:
        result = model.run(task.config, task.seed)
        rows = result.rows()
        files = _details(task, result)
        error = None
    except Exception as exc:  # a failing cell is recorded in the store and the sweep goes on (docs/sweeps.md)
        rows = pd.DataFrame([config_columns(task.config)])
        error = one_line_error(exc)
        files = {}
    frame = pd.concat([_head(task, len(rows), "failed" if error else "ok", error or ""),
                       rows.reset_index(drop=True).drop(columns=[*BOOKKEEPING, *dict(task.columns)],
                                                        errors="ignore")], axis=1)
    return CellOutcome(key=task.key, data=_parquet_bytes(frame), error=error, files=files)


def _head(task: CellTask, n: int, status: str, error: str) -> Any:
    import pandas as pd

    head = {"cell": [task.key] * n, "seed": [task.seed] * n}
    head.update({name: [value] * n for name, value in task.columns})
    head.update({"status": [status] * n, "error": [error] * n})
    return pd.DataFrame(head)


def _details(task: CellTask, result: Any) -> dict[str, bytes]:
    """The cell's detail files (module docstring)."""
    import pandas as pd

    files: dict[str, bytes] = {}
    per_org = getattr(result, "per_org", None)
    if callable(per_org):
        orgs = per_org().reset_index(drop=True)
        head = _head(task, len(orgs), "", "").drop(columns=["status", "error"])
        files[f"{ORGS}/{task.key}.parquet"] = _parquet_bytes(pd.concat([head, orgs], axis=1))
    if task.schedules is not None:
        for policy, jobs in task.schedules(result).items():
            files[f"{SCHEDULES}/{task.key}/{safe_name(policy)}.jobs.csv"] = jobs.to_csv(
                index=False, lineterminator="\n").encode()  # as fairsched._io.write_csv writes it
    return files


def safe_name(name: str) -> str:
    """A policy name as a file name: ``fcfs/easy`` -> ``fcfs-easy``.

    >>> safe_name("fcfs/easy"), safe_name("RAND (N=15)")
    ('fcfs-easy', 'RAND_N_15')
    """
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", str(name).replace("/", "-")).strip("_") or "policy"


def one_line_error(exc: BaseException) -> str:
    """A user error's own message; for any other exception (a bug), its type too. Always one line."""
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return text if isinstance(exc, FairschedError) else f"{type(exc).__name__}: {text}"


def _parquet_bytes(frame: Any) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()
