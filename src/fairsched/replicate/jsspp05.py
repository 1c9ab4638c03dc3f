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
  by the mean over all jobs (the paper reports 0.74–0.99). The paper calls its subsets "random" and does not say
  more; `subset_scheme` chooses ``interleaved`` (job i, in arrival order, goes to subset i mod 10: every subset
  spans the whole trace, like a random sample; the default) or ``blocks`` (10 consecutive stretches of jobs).

Deviations: CTC's machine size is the trace header's 338 batch processors (the paper says "430 batch nodes";
``machine_sizes=(("CTC-SP2", 430),)`` runs that, docs/replication/jsspp05.md compares both);
Spearman's rho is computed as Pearson's correlation of average ranks (ties shared), without scipy.

Nothing here is random, so there is no seed: the same configuration gives the same numbers, whatever the number
of worker processes (results are put back in task order).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.backfill import fairness
from fairsched.backfill.engine import simulate
from fairsched.backfill.jobs import BackfillJobs, jobs_from_workload
from fairsched.backfill.policies import get_backfill, get_order
from fairsched.errors import ConfigError
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import first_jobs, offered_load, scale_to_load

# Paper name -> file in the traces directory (../shared/traces/SOURCES.md).
TRACES: dict[str, str] = {
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "OSC": "OSC-Clust-2000-3.1-cln.swf.gz",
}
LOADS: tuple[float, ...] = (0.70, 0.80, 0.90, 0.95, 0.98)
ORDERS: tuple[str, ...] = ("fcfs", "sjf", "lxf")
DEPTHS: tuple[str, ...] = ("no-guarantee", "easy", "conservative")
METRICS: tuple[str, ...] = ("fst_strict", "fst_relaxed", "re")
WIDTH_LOADS: tuple[float, ...] = (0.80, 0.95)  # the paper's "medium" and "high" loads of the width figures
# --quick: the two traces the paper shows, at its medium and high loads (18 simulations per trace).
QUICK_TRACES: tuple[str, ...] = ("CTC-SP2", "SDSC-BLUE")
QUICK_LOADS: tuple[float, ...] = WIDTH_LOADS
ALL_WIDTHS = "all"
SUBSET_SCHEMES: tuple[str, ...] = ("interleaved", "blocks")

ProgressCallback = Callable[[str, int, int], None]
"""Called as ``progress(description, done, total)`` as simulations finish."""


@dataclass(frozen=True)
class JSSPP05Config:
    """What `run` replicates; keyword fields with defaults, stored unchanged (checked by `run`).

    Attributes
    ----------
    traces_dir : directory holding the `TRACES` files; None = ``$FAIRSCHED_TRACES``, else ``../shared/traces``
        beside the project (`default_traces_dir`).
    traces : paper names of the traces to use, from `TRACES`.
    subset_size : jobs per trace (the first ones after cleaning; the paper uses 5000).
    loads : offered loads to reach by runtime expansion.
    orders, depths : queue orders and reservation depths (backfilling rules) simulated, all combinations.
    n_subsets : arrival-order subsets of Table 2.
    subset_scheme : how jobs are dealt into those subsets: ``interleaved`` (job i to subset i mod n_subsets) or
        ``blocks`` (consecutive stretches); see the module docstring.
    workers : worker processes (1 = in this process).
    skip_jobs : jobs skipped (after cleaning) before the subset; 1000 reproduces the paper's CTC-SP2 Table 1
        exactly (docs/replication/jsspp05.md, "Which 5,000 jobs").
    machine_sizes : (trace, processors) pairs overriding the header's MaxProcs as machine size, e.g.
        ``(("CTC-SP2", 430),)`` for the paper's "430 batch nodes".
    """

    traces_dir: Path | None = None
    traces: tuple[str, ...] = tuple(TRACES)
    subset_size: int = 5000
    loads: tuple[float, ...] = LOADS
    orders: tuple[str, ...] = ORDERS
    depths: tuple[str, ...] = DEPTHS
    n_subsets: int = 10
    subset_scheme: str = "interleaved"
    workers: int = 1
    skip_jobs: int = 0
    machine_sizes: tuple[tuple[str, int], ...] = ()

    @classmethod
    def quick(cls, **overrides: Any) -> JSSPP05Config:
        """``--quick``: CTC-SP2 and SDSC-BLUE at 80 % and 95 % only (`QUICK_TRACES`, `QUICK_LOADS`)."""
        return cls(**{"traces": QUICK_TRACES, "loads": QUICK_LOADS, **overrides})


@dataclass(frozen=True)
class ReplicationResult:
    """What `run` measured; rendered and written by `fairsched.report.backfill`.

    Attributes
    ----------
    config : the configuration run.
    rows : one row per (trace, load, order, backfill, metric, width): ``value`` is the mean per-job unfairness
        over all jobs (width ``"all"``) or over the jobs of one width bin (bins with no job are left out);
        seconds for the FST metrics, processor-seconds for ``re``.
    spearman : `subset_correlations` with the configured scheme: one row per (trace, metric, subset).
    simulations : one row per simulation: trace, load, order, backfill, runtime_factor, offered_load,
        mean_wait, utilization, simulate_s, fairness_s.
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
    elapsed_s: float = 0.0


@dataclass(frozen=True)
class _Task:
    """One simulation: a policy on one trace's jobs scaled to one load."""

    trace: str
    load: float
    order: str
    backfill: str
    jobs: BackfillJobs


@dataclass(frozen=True)
class _Outcome:
    """Per-job unfairness of one simulation (`METRICS` -> float64 array, job order) and its summary figures."""

    per_job: dict[str, np.ndarray]
    figures: dict[str, float]


def run(config: JSSPP05Config, *, progress: ProgressCallback | None = None) -> ReplicationResult:
    """Replicate JSSPP'05 §4–§5 as configured (module docstring).

    Every trace file is checked before any simulation starts, so a missing one fails at once. Cost: one
    simulation and the FST what-ifs (one per job and kind, each stopped when its job starts) per policy, load
    and trace; `workers` processes share them.

    Raises
    ------
    ConfigError : a missing trace (naming the file and the directory searched), or bad options.
    """
    started = time.perf_counter()
    _check_config(config)
    paths = trace_paths(config)
    prepared = {name: _prepare_trace(name, path, config) for name, path in paths.items()}
    tasks = [_Task(name, load, order, depth, prepared[name]["jobs"][load])
             for name in config.traces for load in config.loads for order in config.orders
             for depth in config.depths]
    outcomes = list(_run_tasks(tasks, config.workers, progress))
    procs = {name: prepared[name]["procs"] for name in config.traces}
    rows = _rows(tasks, outcomes, procs)
    per_job = {(t.trace, t.load, t.order, t.backfill): o.per_job for t, o in zip(tasks, outcomes, strict=True)}
    spearman = subset_correlations(per_job, n_subsets=config.n_subsets, scheme=config.subset_scheme)
    simulations = pd.DataFrame([{"trace": t.trace, "load": t.load, "order": t.order, "backfill": t.backfill,
                                 "runtime_factor": prepared[t.trace]["factors"][t.load], **o.figures}
                                for t, o in zip(tasks, outcomes, strict=True)])
    traces = {name: prepared[name]["info"] for name in config.traces}
    return ReplicationResult(config=config, rows=rows, spearman=spearman, simulations=simulations, traces=traces,
                             per_job=per_job, elapsed_s=time.perf_counter() - started)


def default_traces_dir() -> Path:
    """``$FAIRSCHED_TRACES``, else ``../shared/traces`` beside the project checkout (the tests' convention)."""
    env = os.environ.get("FAIRSCHED_TRACES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3].parent / "shared" / "traces"


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


def _check_config(config: JSSPP05Config) -> None:
    unknown = [name for name in config.traces if name not in TRACES]
    if unknown or not config.traces:
        raise ConfigError(f"traces={config.traces!r}: choose one or more of {', '.join(TRACES)}")
    for name in config.orders:
        get_order(name)
    for name in config.depths:
        get_backfill(name)
    if not (config.loads and config.orders and config.depths):
        raise ConfigError("loads, orders and depths must each name at least one value")
    if any(not (0 < load < 1) for load in config.loads):
        raise ConfigError(f"loads={config.loads!r}: expected offered loads in (0, 1), e.g. 0.7, 0.98")
    for name, value, least in (("subset_size", config.subset_size, 2), ("n_subsets", config.n_subsets, 1),
                               ("workers", config.workers, 1), ("skip_jobs", config.skip_jobs, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ConfigError(f"{name}={value!r}: expected an integer >= {least}")
    if config.n_subsets > config.subset_size:
        raise ConfigError(f"n_subsets={config.n_subsets} exceeds subset_size={config.subset_size}: each "
                          "arrival-order subset needs at least one job")
    if config.subset_scheme not in SUBSET_SCHEMES:
        raise ConfigError(f"subset_scheme={config.subset_scheme!r}: choose one of {', '.join(SUBSET_SCHEMES)}")


def _prepare_trace(name: str, path: Path, config: JSSPP05Config) -> dict[str, Any]:
    """Read, clean (P = MaxProcs), keep the first jobs, scale to every load: jobs, factors, info (Table 1)."""
    workload = read_swf(path)
    processors = dict(config.machine_sizes).get(name, workload.header_int("MaxProcs"))
    if processors is None or processors < 1:
        raise ConfigError(f"{path}: the header gives no MaxProcs, which the replication uses as machine size")
    cleaned, _ = clean(workload, max_processors=processors)
    if config.skip_jobs:
        cleaned = cleaned.with_jobs(cleaned.jobs.iloc[config.skip_jobs:].reset_index(drop=True))
    subset = first_jobs(cleaned, config.subset_size)
    natural = offered_load(subset, processors)
    jobs, factors = {}, {}
    for load in config.loads:
        scaled = scale_to_load(subset, load, processors, how="runtime")
        jobs[load] = jobs_from_workload(scaled, n_processors=processors)
        factors[load] = float(np.median(scaled.jobs["run_time"].to_numpy() / subset.jobs["run_time"].to_numpy()))
    procs = jobs[config.loads[0]].procs
    widths = fairness.by_width(np.zeros(procs.size), procs)["n_jobs"]
    info = {"file": path.name, "processors": processors, "n_jobs": len(subset.jobs), "natural_load": natural,
            "jobs_per_width": {str(label): int(n) for label, n in widths.items()}}
    return {"jobs": jobs, "factors": factors, "procs": procs, "info": info}


def _run_tasks(tasks: list[_Task], workers: int, progress: ProgressCallback | None) -> Iterator[_Outcome]:
    """Outcomes in task order; with several workers, the costliest tasks are submitted first."""
    if progress is not None:
        progress("simulating", 0, len(tasks))
    if workers == 1:
        for done, task in enumerate(tasks, start=1):
            yield _simulate_task(task)
            if progress is not None:
                progress("simulating", done, len(tasks))
        return
    # Conservative what-ifs at high load dominate: start them first so that no worker is left with one at the end.
    cost_order = sorted(range(len(tasks)), key=lambda i: (tasks[i].backfill != "conservative", -tasks[i].load, i))
    results: list[_Outcome | None] = [None] * len(tasks)
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(_simulate_task, tasks[i]): i for i in cost_order}
        for done, future in enumerate(as_completed(futures), start=1):
            results[futures[future]] = future.result()
            if progress is not None:
                progress("simulating", done, len(tasks))
    yield from (outcome for outcome in results if outcome is not None)


def _simulate_task(task: _Task) -> _Outcome:
    """One simulation and its per-job unfairness (JSSPP'05 §3.1.3 and §3.2 per-job terms). Runs in a worker."""
    tick = time.perf_counter()
    result = simulate(task.jobs, order=task.order, backfill=task.backfill)
    simulate_s = time.perf_counter() - tick
    schedule = result.schedule
    start = schedule["start"].to_numpy(np.float64)
    tick = time.perf_counter()
    per_job = {}
    for kind in ("strict", "relaxed"):
        fst = fairness.fair_start_times(task.jobs, order=task.order, backfill=task.backfill, kind=kind,
                                        schedule=schedule)
        per_job[f"fst_{kind}"] = np.maximum(start - np.asarray(fst, dtype=np.float64), 0.0)
    deficit = fairness.resource_equality(schedule, task.jobs.n_processors)["deficit"].to_numpy(np.float64)
    per_job["re"] = np.maximum(deficit, 0.0)
    run = (schedule["end"] - schedule["start"]).to_numpy(np.float64)
    span = float(schedule["end"].max() - schedule["submit"].min())
    figures = {"offered_load": offered_load_of(task.jobs), "mean_wait": float(schedule["wait"].mean()),
               "utilization": float(np.dot(run, task.jobs.procs) / (task.jobs.n_processors * span)),
               "simulate_s": simulate_s, "fairness_s": time.perf_counter() - tick}
    return _Outcome(per_job=per_job, figures=figures)


def offered_load_of(jobs: BackfillJobs) -> float:
    """Offered load of the simulated (integer-second) jobs: Σ r·p / (P · (max(s + r) − min s))."""
    span = float(np.max(jobs.submit + jobs.run) - jobs.submit.min())
    return float(np.dot(jobs.run, jobs.procs) / (jobs.n_processors * span))


def _rows(tasks: list[_Task], outcomes: list[_Outcome], procs: dict[str, np.ndarray]) -> pd.DataFrame:
    """Mean per-job unfairness over all jobs and per non-empty width bin (JSSPP'05 Figs. 7–18)."""
    records = []
    for task, outcome in zip(tasks, outcomes, strict=True):
        key = {"trace": task.trace, "load": task.load, "order": task.order, "backfill": task.backfill}
        for metric in METRICS:
            values = outcome.per_job[metric]
            records.append({**key, "metric": metric, "width": ALL_WIDTHS, "value": float(values.mean())})
            bins = fairness.by_width(values, procs[task.trace])
            records += [{**key, "metric": metric, "width": str(label), "value": float(mean)}
                        for label, n, mean in zip(bins.index, bins["n_jobs"], bins["mean"], strict=True) if n > 0]
    return pd.DataFrame.from_records(records, columns=["trace", "load", "order", "backfill", "metric", "width",
                                                       "value"])


def subset_correlations(per_job: Mapping[tuple[str, float, str, str], Mapping[str, np.ndarray]], *,
                        n_subsets: int = 10, scheme: str = "interleaved") -> pd.DataFrame:
    """JSSPP'05 Table 2: per trace, metric and arrival-order subset, Spearman's rho between the simulations ranked
    by the subset's mean unfairness and by the mean over all jobs (§5.1).

    Parameters
    ----------
    per_job : `ReplicationResult.per_job`, (trace, load, order, backfill) -> {metric: per-job values}.
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
