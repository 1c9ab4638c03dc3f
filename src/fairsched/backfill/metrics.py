"""Classic metrics of a backfilling schedule: wait, slowdown, bounded slowdown, utilization, makespan.

Pure functions of a schedule table (columns ``submit, start, end, procs``: a DataFrame, or the engine's numpy
columns `BackfillResult.columns`) and the machine size; they never touch the engine. Definitions (Feitelson,
Rudolph, Schwiegelshohn, Sevcik & Wong, "Theory and practice in parallel job scheduling", JSSPP 1997, §4 for the
bounded slowdown):

* wait_j = start_j - submit_j; run_j = end_j - start_j;
* slowdown_j = (wait_j + run_j) / max(run_j, 1 s) (the engine's run times are >= 1 s anyway);
* bounded slowdown_j = max(1, (wait_j + run_j) / max(run_j, tau)), tau = 10 s (JSSPP'05 and the pyss oracle
  README use this threshold);
* makespan = max_j end_j - min_j submit_j;
* utilization = sum_j procs_j * run_j / (P * makespan): the share of the processor-time between the first
  submission and the last end that ran jobs.

Per job width (`width_bin`: the bins of Sabin & Sadayappan, JSSPP 2005, Table 1): `waits_by_width` and `by_width`,
which `fairsched.backfill.fairness` uses for the unfairness by width.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from fairsched.errors import ConfigError

if TYPE_CHECKING:  # pandas is imported where a table is built (by width), not by `summary`
    import pandas as pd

BOUNDED_SLOWDOWN_TAU = 10  # seconds
DEFAULT_PERCENTILES: tuple[float, ...] = (50, 90, 95, 99)
# Job width bins of JSSPP'05 Table 1 (processors); `_WIDTH_UPPER[k]` is the largest width in bin k.
WIDTH_BINS: tuple[str, ...] = ("1", "2", "3-4", "5-8", "9-16", "17-32", "33-64", "65-128", ">128")
_WIDTH_UPPER = np.array([1, 2, 4, 8, 16, 32, 64, 128], dtype=np.int64)


def bounded_slowdown(wait: np.ndarray, run: np.ndarray, tau: float = BOUNDED_SLOWDOWN_TAU) -> np.ndarray:
    """max(1, (wait + run) / max(run, tau)) per job, float64.

    >>> bounded_slowdown(np.array([0, 90, 5]), np.array([100, 10, 1])).tolist()
    [1.0, 10.0, 1.0]
    """
    wait = np.asarray(wait, dtype=np.float64)
    run = np.asarray(run, dtype=np.float64)
    return np.maximum(1.0, (wait + run) / np.maximum(run, float(tau)))


def summary(schedule: pd.DataFrame | Mapping[str, np.ndarray], n_processors: int, *,
            percentiles: Sequence[float] = DEFAULT_PERCENTILES) -> dict[str, float]:
    """The classic metrics of one schedule (definitions: module docstring), as a flat JSON-ready dict.

    Keys: ``n_jobs``, ``mean_wait``, ``max_wait``, ``wait_p<q>``, ``mean_slowdown``, ``mean_bounded_slowdown``,
    ``max_bounded_slowdown``, ``bounded_slowdown_p<q>``, ``utilization``, ``makespan``, ``first_submit``,
    ``last_end``. Percentiles use numpy's linear interpolation. `schedule` is a DataFrame or a mapping of
    column name to array (`BackfillResult.columns`); both give the same floats. O(n log n).

    >>> import pandas as pd
    >>> s = pd.DataFrame({"submit": [0, 0, 1], "start": [0, 0, 10], "end": [5, 100, 20], "procs": [2, 2, 4]})
    >>> m = summary(s, 6, percentiles=[50])
    >>> m["mean_wait"], m["wait_p50"], m["makespan"], round(m["utilization"], 4)
    (3.0, 0.0, 100.0, 0.4167)
    """
    if isinstance(n_processors, bool) or not isinstance(n_processors, int | np.integer) or n_processors < 1:
        raise ConfigError(f"n_processors={n_processors!r}: expected a positive integer")
    missing = [c for c in ("submit", "start", "end", "procs") if c not in schedule]  # DataFrame: its columns
    if missing:
        raise ConfigError(f"the schedule lacks column(s) {', '.join(missing)}")
    submit, start, end, procs = (np.asarray(schedule[name], dtype=np.float64)
                                 for name in ("submit", "start", "end", "procs"))
    if submit.size == 0:
        raise ConfigError("the schedule has no jobs: its metrics are undefined")
    wait, run = start - submit, end - start
    if np.any(run < 0):
        raise ConfigError(f"{int(np.sum(run < 0))} job(s) end before they start (first: row "
                          f"{int(np.flatnonzero(run < 0)[0])}); expected end >= start")
    bsld = bounded_slowdown(wait, run)
    first, last = float(submit.min()), float(end.max())
    makespan = last - first
    out: dict[str, float] = {"n_jobs": float(submit.size), "mean_wait": float(wait.mean()),
                             "max_wait": float(wait.max())}
    out.update({f"wait_p{q:g}": float(np.percentile(wait, q)) for q in percentiles})
    out["mean_slowdown"] = float(np.mean((wait + run) / np.maximum(run, 1.0)))
    out["mean_bounded_slowdown"] = float(bsld.mean())
    out["max_bounded_slowdown"] = float(bsld.max())
    out.update({f"bounded_slowdown_p{q:g}": float(np.percentile(bsld, q)) for q in percentiles})
    out["utilization"] = float(np.dot(procs, run) / (n_processors * makespan)) if makespan > 0 else 0.0
    out.update({"makespan": makespan, "first_submit": first, "last_end": last})
    return out


def waits_by_width(wait: np.ndarray, run: np.ndarray, procs: np.ndarray) -> pd.DataFrame:
    """Wait and bounded slowdown per job width (the JSSPP'05 Table 1 bins, `width_bin`).

    One row per bin, all bins in order (empty bins have ``n_jobs`` 0 and NaN means): ``width, n_jobs, mean_wait,
    median_wait, mean_bounded_slowdown`` (tau = `BOUNDED_SLOWDOWN_TAU`). Wide jobs waiting longer than narrow
    ones is what backfilling is accused of (JSSPP'05 §5). O(n log n).

    >>> frame = waits_by_width(np.array([0, 90, 10]), np.array([100, 10, 10]), np.array([1, 1, 4]))
    >>> frame.loc[frame["width"].isin(["1", "3-4"])].to_numpy().tolist()
    [['1', 2, 45.0, 45.0, 5.5], ['3-4', 1, 10.0, 10.0, 2.0]]
    """
    wait = np.asarray(wait, dtype=np.float64)
    run = np.asarray(run, dtype=np.float64)
    if not (wait.shape == run.shape == np.shape(procs)):
        raise ConfigError(f"waits_by_width: {wait.size} waits, {run.size} run times and {np.size(procs)} widths; "
                          "expected one of each per job")
    import pandas as pd

    frame = pd.DataFrame({"width": width_bin(procs), "wait": wait, "slowdown": bounded_slowdown(wait, run)})
    groups = frame.groupby("width", observed=False)
    out = pd.DataFrame({"n_jobs": groups.size(), "mean_wait": groups["wait"].mean(),
                        "median_wait": groups["wait"].median(),
                        "mean_bounded_slowdown": groups["slowdown"].mean()})
    out.index = out.index.astype(str)
    return out.rename_axis("width").reset_index()


def width_bin(procs: np.ndarray | pd.Series | list[int]) -> pd.Categorical:
    """The JSSPP'05 Table 1 width bin of each job (ordered categorical over `WIDTH_BINS`).

    >>> list(width_bin([1, 2, 3, 4, 5, 128, 129]))
    ['1', '2', '3-4', '3-4', '5-8', '65-128', '>128']
    """
    p = np.asarray(procs)
    if p.size and not np.all(p >= 1):
        raise ConfigError(f"width bins need processor counts >= 1; got {p[~(p >= 1)][0]!r}")
    import pandas as pd

    codes = np.searchsorted(_WIDTH_UPPER, p, side="left")  # bin k holds _WIDTH_UPPER[k-1] < p <= _WIDTH_UPPER[k]
    return pd.Categorical.from_codes(codes, categories=list(WIDTH_BINS), ordered=True)


def by_width(values: np.ndarray | pd.Series, procs: np.ndarray | pd.Series) -> pd.DataFrame:
    """Per width bin (all of `WIDTH_BINS`, in order): ``n_jobs``, ``total`` and ``mean`` of `values` (NaN if empty).

    Pass per-job unfairness (e.g. ``fst_unfairness(...)["unfairness"]``) to get the per-width figures of
    JSSPP'05 Figs. 9–10, 13–14 and 17–18: mean = Σ_{jobs in bin} unfairness / jobs in bin.

    >>> by_width(np.array([60.0, 0.0, 10.0]), np.array([8, 2, 7])).loc["5-8"].tolist()
    [2.0, 70.0, 35.0]
    """
    values = np.asarray(values, dtype=np.float64)
    if values.shape != np.shape(procs):
        raise ConfigError(f"by_width: {values.size} values for {np.size(procs)} processor counts; expected one each")
    import pandas as pd

    frame = pd.DataFrame({"width": width_bin(procs), "value": values})
    groups = frame.groupby("width", observed=False)["value"]
    return pd.DataFrame({"n_jobs": groups.size(), "total": groups.sum(), "mean": groups.mean()})
