"""Reading a sweep's store: every finished row, and means with 95 % confidence intervals over seeds."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairsched.errors import ConfigError
from fairsched.sweep.cell import BOOKKEEPING
from fairsched.sweep.store import Manifest, Store

if TYPE_CHECKING:
    import pandas as pd

# Two-sided 95 % quantiles t_{0.975, df} of Student's t for df = 1..30 (any statistics table).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
AGGREGATES: tuple[str, ...] = ("n", "mean", "std", "ci95")
REPLICATES: tuple[str, ...] = ("window",)  # like the seed: what a group's values are drawn over, never a metric


@dataclass(frozen=True)
class SweepResults:
    """Aggregated results of a store (``fairsched results``; ``--json`` prints these fields).

    Attributes
    ----------
    rows : one row per group and metric: the group columns, ``metric``, ``n`` (the values aggregated: the seeds
        when the groups are every varied option and the policy), ``mean``, ``std`` (sample)
        and ``ci95`` (half-width of the 95 % Student-t interval of the mean; NaN when n < 2). Groups keep the
        spec's order.
    group_by, metrics : the columns grouped by and the metrics aggregated.
    n_cells_done, n_cells_total : finished cells of the spec last run into the store, and all its cells.
    failed : one entry per failed cell: ``cell``, ``seed``, ``point``, ``error``.
    model : the store's model (``online``, ..., or a module path).
    references : the ``policy`` values of reference rows (``is_reference``: the online model's reference, which
        figures leave out unless asked).
    numeric : the group columns whose values are all numbers (a figure's candidate x axes), in group order.
    """

    rows: pd.DataFrame
    group_by: tuple[str, ...]
    metrics: tuple[str, ...]
    n_cells_done: int
    n_cells_total: int
    failed: list[dict[str, Any]] = field(default_factory=list)
    model: str = ""
    references: tuple[str, ...] = ()
    numeric: tuple[str, ...] = ()


def load_rows(out: str | Path) -> tuple[pd.DataFrame, Manifest]:
    """Every row of every finished cell of the store's spec, in the spec's cell order (read with DuckDB).

    Returns
    -------
    rows : pandas.DataFrame
        One row per row of each finished cell's part: ``cell``, ``seed``, ``status``, ``error``, then the model's
        ``Result.rows()`` columns; with only the bookkeeping columns when no cell is finished.
    manifest : Manifest
        The store's ``manifest.json`` (model, config columns, every cell of the spec in order).

    Raises
    ------
    ConfigError : `out` is not a sweep directory (the message names the stores below it, if any).
    """
    import duckdb
    import pandas as pd

    store = Store(out)
    manifest = store.manifest()
    order = {key: index for index, key in enumerate(manifest.keys)}
    done = sorted(store.done_keys() & order.keys(), key=order.__getitem__)
    if not done:
        return pd.DataFrame(columns=list(BOOKKEEPING)), manifest
    files = [str(store.part_path(key)) for key in done]
    frame = duckdb.connect().execute("SELECT * FROM read_parquet(?, union_by_name = true)", [files]).df()
    frame = frame.sort_values("cell", key=lambda cells: cells.map(order), kind="stable").reset_index(drop=True)
    return frame, manifest


def read_results(out: str | Path, *, group_by: tuple[str, ...] | None = None,
                 metrics: tuple[str, ...] | None = None) -> SweepResults:
    """Mean, std and 95 % CI of each metric over the seeds of each group (docs/sweeps.md, "Querying").

    Parameters
    ----------
    out : the store's directory.
    group_by : columns to group by; None = the options the spec varies, then ``policy`` when there is one.
    metrics : metric columns; None = every numeric column that is not a config option, the seed or a group column.

    Raises
    ------
    ConfigError : `out` is not a sweep directory, or a column named in `group_by`/`metrics` does not exist.
    """
    frame, manifest = load_rows(out)
    store = Store(out)
    failed_keys = store.failed_keys() - store.done_keys()
    failed = []
    for cell in manifest.cells:
        if cell["key"] in failed_keys:
            failed.append({"cell": cell["key"], "seed": cell["seed"], "point": cell["point"],
                           "error": _failed_error(store, cell["key"])})
    n_done = frame["cell"].nunique() if len(frame) else 0
    group_by = _group_by(frame, manifest, group_by)
    metrics = _metrics(frame, manifest, group_by, metrics)
    rows = aggregate(frame, group_by, metrics)
    references: tuple[str, ...] = ()
    if {"is_reference", "policy"} <= set(frame.columns):
        references = tuple(dict.fromkeys(frame.loc[frame["is_reference"].astype(bool), "policy"].astype(str)))
    numeric = tuple(c for c in group_by if len(frame) and frame[c].dtype.kind in "iuf")
    return SweepResults(rows=rows, group_by=group_by, metrics=metrics, n_cells_done=int(n_done),
                        n_cells_total=len(manifest.cells), failed=failed, model=manifest.model,
                        references=references, numeric=numeric)


def aggregate(frame: pd.DataFrame, group_by: tuple[str, ...], metrics: tuple[str, ...]) -> pd.DataFrame:
    """Per group (first-appearance order) and metric: n, mean, sample std, 95 % CI half-width t·std/√n.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"policy": ["a", "a", "b"], "x": [1.0, 3.0, 5.0]})
    >>> aggregate(frame, ("policy",), ("x",)).round(3).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'policy': 'a', 'metric': 'x', 'n': 2, 'mean': 2.0, 'std': 1.414, 'ci95': 12.706},
     {'policy': 'b', 'metric': 'x', 'n': 1, 'mean': 5.0, 'std': nan, 'ci95': nan}]
    """
    import pandas as pd

    columns = [*group_by, "metric", *AGGREGATES]
    if frame.empty or not metrics:
        return pd.DataFrame(columns=columns)
    records = []
    groups = frame.groupby(list(group_by), sort=False, dropna=False) if group_by else [((), frame)]
    for values, part in groups:
        key = dict(zip(group_by, values if isinstance(values, tuple) else (values,), strict=True))
        for metric in metrics:
            series = pd.to_numeric(part[metric], errors="coerce").dropna()
            n = int(series.size)
            std = float(series.std(ddof=1)) if n > 1 else math.nan
            records.append({**key, "metric": metric, "n": n, "mean": float(series.mean()) if n else math.nan,
                            "std": std, "ci95": t975(n - 1) * std / math.sqrt(n) if n > 1 else math.nan})
    return pd.DataFrame.from_records(records, columns=columns)


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with `df` degrees of freedom (table to 30, Cornish–Fisher beyond).

    >>> t975(4), round(t975(120), 3)
    (2.776, 1.98)
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def _group_by(frame: pd.DataFrame, manifest: Manifest, group_by: tuple[str, ...] | None) -> tuple[str, ...]:
    if group_by is None:
        varied = dict.fromkeys(key.replace("-", "_") for cell in manifest.cells for key in cell["point"])
        group_by = tuple(varied) + (("policy",) if "policy" in frame.columns else ())
    _check_columns(frame, group_by, "--group-by")
    return tuple(group_by)


def _metrics(frame: pd.DataFrame, manifest: Manifest, group_by: tuple[str, ...],
             metrics: tuple[str, ...] | None) -> tuple[str, ...]:
    if metrics is not None:
        _check_columns(frame, metrics, "--metric")
        return tuple(metrics)
    skip = {*BOOKKEEPING, *REPLICATES, *manifest.config_columns, *group_by}
    return tuple(c for c in frame.columns if c not in skip and frame[c].dtype.kind in "iuf")


def _check_columns(frame: pd.DataFrame, names: tuple[str, ...], flag: str) -> None:
    if frame.empty:
        return
    unknown = [name for name in names if name not in frame.columns]
    if unknown:
        raise ConfigError(f"{flag} {','.join(unknown)}: no such column; the store has "
                          f"{', '.join(c for c in frame.columns if c not in ('cell', 'status', 'error'))}")


def _failed_error(store: Store, key: str) -> str:
    import pyarrow.parquet as pq

    table = pq.read_table(store.part_path(key, failed=True), columns=["error"])
    return str(table.column("error")[0])
