"""Replication of JSSPP'05 §4–§5: unfairness of 3 queue orders × 3 reservation depths at 5 offered loads.

Reference: G. Sabin, P. Sadayappan, "Unfairness metrics for space-sharing parallel job schedulers", JSSPP 2005
(LNCS 3834). Set-up of §4, as replicated here:

* traces: 5000-job subsets of CTC SP2, SDSC Blue, SDSC SP2 and OSC (Parallel Workloads Archive, cleaned logs).
  The subset is the first `subset_size` jobs after cleaning with the pyss oracle README's rules
  (`fairsched.workload.clean.clean` with P = the header's ``MaxProcs``); the paper does not say which 5000 jobs.
* offered loads 70, 80, 90, 95, 98 % by runtime expansion (`fairsched.workload.transform.scale_to_load`,
  ``how="runtime"``: run and requested times × one factor per trace and load);
* queue orders FCFS, SJF, LXF × reservation depths no-guarantee, EASY ("aggressive"), conservative: 45
  simulations per trace (`fairsched.backfill.simulate`);
* per simulation and job (`fairsched.backfill.fairness`): strict and relaxed fair-start-time miss
  max(0, start − FST) (§3.1) and resource-equality unfairness max(0, deserved − consumed) (§3.2); their means
  over all jobs (Figs. 7, 8, 11, 12, 15, 16) and over the jobs of each width bin (Figs. 9, 10, 13, 14, 17, 18);
* Table 2: the jobs are divided into `n_subsets` subsets "based solely on the arrival order" (§5.1); for each
  trace, metric and subset, the Spearman rank correlation between the simulations ranked by the subset's mean and
  by the mean over all jobs (the paper's Table 2, `PAPER_TABLE2`, has CTC and SDSC only: strict FST / relaxed FST /
  resource equality 0.93–0.98 / 0.76–0.97 / 0.88–0.98 on CTC, 0.85–0.99 / 0.74–0.98 / 0.76–0.98 on SDSC). The
  paper calls its subsets "random" and does not say
  more; `subset_scheme` chooses ``interleaved`` (job i, in arrival order, goes to subset i mod 10: every subset
  spans the whole trace, like a random sample; the default) or ``blocks`` (10 consecutive stretches of jobs).

Deviations: CTC's machine size is the trace header's 338 batch processors (the paper says "430 batch nodes");
Spearman's rho is computed as Pearson's correlation of average ranks (ties shared), without scipy.

Nothing here is random, so there is no seed: the same configuration gives the same numbers, whatever the executor
and the number of workers. Each simulation is one cell of a sweep (`sweep_spec`, the specs shipped in
``fairsched/replicate/specs/``, cells in `fairsched.replicate.jsspp05.cell`), so a replication resumes, runs in
parallel and can run on a Dask cluster like any ``fairsched sweep``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.backfill import fairness
from fairsched.errors import ConfigError
from fairsched.replicate._common import SPECS_DIR, ProgressCallback, ReplicationResult, default_traces_dir, run_sweeps
from fairsched.replicate.jsspp05.paper import (
    ALL_WIDTHS,
    METRICS,
    QUICK_LOADS,
    QUICK_TRACES,
    SUBSET_SCHEMES,
    TRACES,
    JSSPP05Config,
    check_config,
)
from fairsched.sweep import Spec, load_spec

_SIMULATION_FIGURES = ("runtime_factor", "offered_load", "mean_wait", "utilization")
_CELL_FIGURES = (*_SIMULATION_FIGURES, "processors", "natural_load")


@dataclass(frozen=True, kw_only=True)
class JSSPP05Result(ReplicationResult):
    """What `run` measured (`ReplicationResult`'s fields, with these tables); rendered and written by
    `fairsched.report.backfill`.

    Attributes
    ----------
    config : the configuration run (`JSSPP05Config`).
    rows : one row per (trace, load, order, backfill, metric, width): ``value`` is the mean per-job unfairness
        over all jobs (width ``"all"``) or over the jobs of one width bin (bins with no job are left out);
        seconds for the FST metrics, processor-seconds for ``re``.
    spearman : `subset_correlations` with the configured scheme: one row per (trace, metric, subset).
    simulations : one row per simulation: trace, load, order, backfill, runtime_factor, offered_load,
        mean_wait, utilization (timings are left out: the same configuration gives the same table).
    traces : per trace: file, processors, jobs, the subset's own offered load, jobs per width bin (Table 1).
    per_job : (trace, load, order, backfill) -> {metric: float64 per-job unfairness, in arrival order}: what the
        rows average, kept for further analysis (e.g. `subset_correlations` with another scheme).
    elapsed_s : wall-clock seconds of the whole replication.
    """

    config: JSSPP05Config
    rows: pd.DataFrame
    spearman: pd.DataFrame
    simulations: pd.DataFrame
    traces: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_job: dict[tuple[str, float, str, str], dict[str, np.ndarray]] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class _Cell:
    """The stored row of one simulation, read back from the sweep's store."""

    per_job: dict[str, np.ndarray]
    procs: np.ndarray
    figures: dict[str, float]




def run(config: JSSPP05Config, *, progress: ProgressCallback | None = None) -> JSSPP05Result:
    """Replicate JSSPP'05 §4–§5 as configured (module docstring), through the sweep layer.

    Every trace file is checked before any simulation starts, so a missing one fails at once. Each simulation is
    one cell of `sweep_spec` (`fairsched.replicate.jsspp05.cell`), run by `fairsched.sweep.run_sweep` on
    ``config.executor`` with ``config.workers`` workers into the store ``config.store`` (a temporary directory when
    None): a store kept between runs resumes an interrupted replication. Cost: one simulation and the FST what-ifs
    (one per job and kind, each stopped when its job starts) per policy, load and trace.

    Raises
    ------
    ConfigError : a missing trace (naming the file and the directory searched), or bad options.
    SweepFailed : a simulation raised (its one-line error).
    SweepInterrupted : Ctrl-C or SIGTERM; the finished simulations stay in ``config.store``.
    """
    started = time.perf_counter()
    check_config(config)
    trace_paths(config)
    stored = run_sweeps({"": sweep_spec(config)}, config, workers=config.workers, prefix="fairsched-jsspp05-",
                        progress=progress, describe="simulating")[""]
    cells = _read_cells(stored)
    keys = [(name, load, order, depth) for name in config.traces for load in config.loads
            for order in config.orders for depth in config.depths]
    per_job = {key: cells[key].per_job for key in keys}
    procs = {key[0]: cells[key].procs for key in keys}
    rows = rows_by_width(keys, per_job, procs)
    spearman = subset_correlations(per_job, n_subsets=config.n_subsets, scheme=config.subset_scheme)
    simulations = pd.DataFrame([{"trace": key[0], "load": key[1], "order": key[2], "backfill": key[3],
                                 **{name: cells[key].figures[name] for name in _SIMULATION_FIGURES}}
                                for key in keys])
    first = {key[0]: cells[key] for key in reversed(keys)}
    traces = {name: _trace_info(name, first[name]) for name in config.traces}
    return JSSPP05Result(config=config, rows=rows, spearman=spearman, simulations=simulations, traces=traces,
                             per_job=per_job, elapsed_s=time.perf_counter() - started)


def sweep_spec(config: JSSPP05Config) -> Spec:
    """The replication as a sweep: the shipped spec (``specs/jsspp05.toml``, or ``specs/jsspp05-quick.toml`` for
    the quick traces and loads) with its grid set to the configuration's traces, loads, orders and depths.

    The costliest cells come first (conservative what-ifs at high load), so that no worker is left with one of
    them at the end; the rows keep the configuration's order whatever the order of the cells.
    """
    quick = (config.traces, config.loads) == (QUICK_TRACES, QUICK_LOADS)
    spec = load_spec(SPECS_DIR / ("jsspp05-quick.toml" if quick else "jsspp05.toml"),
                     overrides={"subset-size": config.subset_size, "traces-dir": config.traces_dir})
    grid = {"backfill": sorted(config.depths, key=lambda depth: depth != "conservative"),
            "load": sorted(config.loads, reverse=True), "trace": list(config.traces), "order": list(config.orders)}
    return replace(spec, grid=grid)




def trace_paths(config: JSSPP05Config) -> dict[str, Path]:
    """Paper name -> existing file, for ``config.traces``; ConfigError naming every missing file and the fix."""
    folder = Path(config.traces_dir) if config.traces_dir is not None else default_traces_dir()
    paths = {name: folder / TRACES[name] for name in config.traces}
    missing = [f"{name} ({path.name})" for name, path in paths.items() if not path.is_file()]
    if missing:
        raise ConfigError(f"trace(s) missing from {folder}: {', '.join(missing)}. Download them with "
                          "`fairsched trace fetch NAME --cache-dir DIR` and pass --traces DIR (or set "
                          "FAIRSCHED_TRACES), or use --quick, which needs only CTC-SP2 and SDSC-BLUE")
    return paths




def _read_cells(stored: pd.DataFrame) -> dict[tuple[str, float, str, str], _Cell]:
    cells = {}
    for row in stored.to_dict("records"):
        per_job = {metric: np.asarray(row[f"per_job_{metric}"], dtype=np.float64) for metric in METRICS}
        cells[(row["trace"], row["load"], row["order"], row["backfill"])] = _Cell(
            per_job=per_job, procs=np.asarray(row["procs"], dtype=np.int64),
            figures={name: row[name] for name in _CELL_FIGURES})
    return cells


def _trace_info(name: str, cell: _Cell) -> dict[str, Any]:
    """Table 1 for one trace: file, processors, jobs, the subset's own offered load, jobs per width bin."""
    widths = fairness.by_width(np.zeros(cell.procs.size), cell.procs)["n_jobs"]
    return {"file": TRACES[name], "processors": int(cell.figures["processors"]), "n_jobs": int(cell.procs.size),
            "natural_load": float(cell.figures["natural_load"]),
            "jobs_per_width": {str(label): int(n) for label, n in widths.items()}}


def rows_by_width(keys: list[tuple[str, float, str, str]], per_job: Mapping[tuple[str, float, str, str],
          Mapping[str, np.ndarray]], procs: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Mean per-job unfairness over all jobs and per non-empty width bin (JSSPP'05 Figs. 7–18)."""
    records = []
    for key in keys:
        labels = {"trace": key[0], "load": key[1], "order": key[2], "backfill": key[3]}
        for metric in METRICS:
            values = per_job[key][metric]
            records.append({**labels, "metric": metric, "width": ALL_WIDTHS, "value": float(values.mean())})
            bins = fairness.by_width(values, procs[key[0]])
            records += [{**labels, "metric": metric, "width": str(label), "value": float(mean)}
                        for label, n, mean in zip(bins.index, bins["n_jobs"], bins["mean"], strict=True) if n > 0]
    return pd.DataFrame.from_records(records, columns=["trace", "load", "order", "backfill", "metric", "width",
                                                       "value"])


def subset_correlations(per_job: Mapping[tuple[str, float, str, str], Mapping[str, np.ndarray]], *,
                        n_subsets: int = 10, scheme: str = "interleaved") -> pd.DataFrame:
    """JSSPP'05 Table 2: per trace, metric and arrival-order subset, Spearman's rho between the simulations ranked
    by the subset's mean unfairness and by the mean over all jobs (§5.1).

    Parameters
    ----------
    per_job : `JSSPP05Result.per_job`, (trace, load, order, backfill) -> {metric: per-job values}.
    n_subsets : number of subsets (the paper: 10).
    scheme : ``interleaved`` (job i to subset i mod n_subsets) or ``blocks`` (consecutive stretches).

    Returns
    -------
    DataFrame ``trace, metric, subset, n_jobs, n_simulations, rho`` (rho NaN when a ranking is constant).
    """
    records = []
    for trace in dict.fromkeys(key[0] for key in per_job):
        mine = [values for key, values in per_job.items() if key[0] == trace]
        subsets = arrival_subsets(mine[0][METRICS[0]].size, n_subsets, scheme)
        for metric in METRICS:
            values = np.stack([entry[metric] for entry in mine])  # simulations × jobs
            overall = values.mean(axis=1)
            for index, members in enumerate(subsets):
                records.append({"trace": trace, "metric": metric, "subset": index, "n_jobs": int(members.size),
                                "n_simulations": len(mine),
                                "rho": spearman_rho(values[:, members].mean(axis=1), overall)})
    return pd.DataFrame.from_records(records, columns=["trace", "metric", "subset", "n_jobs", "n_simulations",
                                                       "rho"])


def arrival_subsets(n_jobs: int, n_subsets: int, scheme: str) -> list[np.ndarray]:
    """Job positions (arrival order) of each subset: ``interleaved`` deals them round-robin, ``blocks`` cuts.

    >>> [s.tolist() for s in arrival_subsets(5, 2, "interleaved")]
    [[0, 2, 4], [1, 3]]
    >>> [s.tolist() for s in arrival_subsets(5, 2, "blocks")]
    [[0, 1, 2], [3, 4]]
    """
    if scheme not in SUBSET_SCHEMES:
        raise ConfigError(f"scheme={scheme!r}: choose one of {', '.join(SUBSET_SCHEMES)}")
    if scheme == "blocks":
        return np.array_split(np.arange(n_jobs), n_subsets)
    return [np.arange(first, n_jobs, n_subsets) for first in range(n_subsets)]


def spearman_rho(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation: Pearson's correlation of the average ranks (ties share their mean rank).

    NaN when either sequence is constant (no ranking to compare).

    >>> spearman_rho(np.array([1.0, 2.0, 3.0, 4.0]), np.array([10.0, 20.0, 40.0, 30.0]))
    0.8
    >>> spearman_rho(np.array([1.0, 1.0, 2.0]), np.array([3.0, 3.0, 5.0]))
    1.0
    """
    ra = pd.Series(a, dtype=np.float64).rank(method="average").to_numpy()
    rb = pd.Series(b, dtype=np.float64).rank(method="average").to_numpy()
    da, db = ra - ra.mean(), rb - rb.mean()
    denominator = float(np.sqrt(np.dot(da, da) * np.dot(db, db)))
    return float(np.dot(da, db) / denominator) if denominator > 0 else float("nan")
