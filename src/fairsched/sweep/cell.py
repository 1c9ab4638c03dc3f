"""Running one cell, in whichever process or Dask worker the executor chose.

`run_cell` returns the cell's Parquet part as bytes: the worker serializes, the main process only writes files.
The bytes depend only on the cell (its config, seed and the model), never on the executor, the worker or the time,
so the same spec gives the same store with any executor and any number of workers.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from fairsched.errors import FairschedError
from fairsched.sweep.models import load_model
from fairsched.sweep.spec import config_columns

BOOKKEEPING = ("cell", "seed", "status", "error")


@dataclass(frozen=True)
class CellTask:
    """What a worker needs to run one cell: the model's import path, the config, the seed and the cell's key."""

    module: str
    key: str
    config: Any
    seed: int


@dataclass(frozen=True)
class CellOutcome:
    """A finished cell: its Parquet part and, when its run raised, the one-line error (then ``data`` records it)."""

    key: str
    data: bytes
    error: str | None = None


def run_cell(task: CellTask) -> CellOutcome:
    """Run the model on one cell and serialize its rows (or its error) as one Parquet part."""
    import pandas as pd

    model = load_model(task.module)
    try:
        rows = model.run(task.config, task.seed).rows()
        error = None
    except Exception as exc:  # a failing cell is recorded in the store and the sweep goes on (docs/sweeps.md)
        rows = pd.DataFrame([config_columns(task.config)])
        error = one_line_error(exc)
    head = pd.DataFrame({"cell": [task.key] * len(rows), "seed": [task.seed] * len(rows),
                         "status": ["failed" if error else "ok"] * len(rows), "error": [error or ""] * len(rows)})
    frame = pd.concat([head, rows.reset_index(drop=True).drop(columns=list(BOOKKEEPING), errors="ignore")], axis=1)
    return CellOutcome(key=task.key, data=_parquet_bytes(frame), error=error)


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
