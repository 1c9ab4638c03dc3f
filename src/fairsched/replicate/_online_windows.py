"""Shared machinery of the online-model replications (PPAM'13 Tables 1–2, SPAA'13 §6.3): windows → Δψ/p_tot.

Implements the evaluation protocol of P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in
scheduling with cooperative game theory", PPAM 2013 (LNCS 8385), §5.1–5.2, and "Non-monetary fair scheduling —
cooperative game theory approach", SPAA 2013 (long version, arXiv 1302.0948), §6.2–6.3:

1. read the trace once and clean it (`fairsched.workload.clean.clean`);
2. draw window start times uniformly at random (integer seconds) in [first submit, last submit − length], from
   one seeded stream per (trace, window length), so that every policy, split and table sees the same windows;
   a window holding no job is redrawn;
3. per window: keep the jobs submitted in [start, start + length), optionally pack their arrivals (SPAA'13 §6.3.1
   multiplies release times by 0.1), spread users over organizations and machines among them
   (`fairsched.scenario.build_scenario`: a parallel job on q processors = q sequential copies; one seed per window);
   time origin = window start, horizon t_end = window length;
4. simulate REF (the exact fair algorithm, ``select="lookahead"``) and every policy, and measure
   Δψ/p_tot = Σ_u |ψ_u − ψ*_u| / p_tot at t_end against REF (`fairsched.online.experiment.compare_scenario`);
5. mean and sample standard deviation (ddof = 1) of Δψ/p_tot over the windows of each cell.

Windows run in parallel over ``jobs`` processes (spawned); results are put back in task order, so the output does
not depend on the number of processes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched import seeds
from fairsched.errors import ConfigError
from fairsched.online import experiment as online_experiment
from fairsched.online import metrics
from fairsched.online.engine import simulate
from fairsched.online.policies import get_policy
from fairsched.replicate._common import ProgressCallback, ReplicationResult, default_traces_dir
from fairsched.scenario import DEFAULT_ZIPF_S, build_scenario
from fairsched.seeds import STAGE_WINDOW_SEEDS, STAGE_WINDOWS, stream
from fairsched.sweep.executors import map_unordered
from fairsched.workload.clean import clean
from fairsched.workload.model import Workload
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import compress_arrivals, window


@dataclass(frozen=True)
class TraceSpec:
    """A trace of the papers: its file in the traces directory and the machines the papers give it."""

    file: str
    machines: int


# PPAM'13 §5.1 / SPAA'13 §6.3.2: "the number of the machines that were originally used in the workload (that is
# 70, 2560, 8192 and 3072)". LPC-EGEE's SWF header says MaxProcs 140; the papers use 70.
TRACES: dict[str, TraceSpec] = {
    "LPC-EGEE": TraceSpec("LPC-EGEE-2004-1.2-cln.swf.gz", 70),
    "RICC": TraceSpec("RICC-2010-2.swf.gz", 8192),
}
UNAVAILABLE_NOTE = ("PIK-IPLEX and SHARCNET-Whale are not available in the traces directory (not in "
                    "../shared/traces/SOURCES.md): their rows of the papers' tables are not replicated")
REF_NOTE = ("reference: REF with the 'lookahead' tie rule (fairsched's default, see docs/online-policies.md), not "
            "the paper's literal rule ('ref-literal')")
ROW_KEYS = ("paper", "table", "trace", "window_length", "split", "orgs", "machines", "policy", "mean", "std",
            "windows", "paper_mean", "paper_std")
MAX_REDRAWS = 1000


@dataclass(frozen=True)
class PolicySpec:
    """A policy as the paper names it (``label``), the registered name, and its hyper-parameters."""

    label: str
    name: str
    params: tuple[tuple[str, Any], ...] = ()


REF = PolicySpec("REF", "ref")
ROUNDROBIN = PolicySpec("ROUNDROBIN", "roundrobin")
RAND15 = PolicySpec("RAND (N=15)", "rand", (("n_orderings", 15),))
RAND75 = PolicySpec("RAND (N=75)", "rand", (("n_orderings", 75),))
DIRECTCONTR = PolicySpec("DIRECTCONTR", "directcontr")
FAIRSHARE = PolicySpec("FAIRSHARE", "fairshare")
UTFAIRSHARE = PolicySpec("UTFAIRSHARE", "utfairshare")
CURRFAIRSHARE = PolicySpec("CURRFAIRSHARE", "currfairshare")


@dataclass(frozen=True)
class Cell:
    """One line group of a table: a trace, window length, split, k and m, measured for several policies.

    ``fixed_start`` = the windows all start at the first submit (SPAA'13 §6.3.1: "the first 5 million time
    moments"); then only the scenario seed (users → organizations, machine split, RAND's orderings) varies.
    ``paper_values`` maps a policy label to the paper's (mean, std); ``std`` may be None.
    The PPAM'13 ablations: ``orgs_by`` ("user", or "job": each job joins an organization on its own),
    ``zipf_s`` (exponent of the Zipf split), ``warm_start`` (`warm_window`: the trace's backlog and running jobs
    at the window start are released at time 0), ``reference`` ("ref" = lookahead rule, or "ref-literal"),
    ``granularity`` (seconds: releases floored and run times rounded up to multiples of it, `coarsen`) and
    ``parallel_jobs`` ("copies": a q-processor job is q sequential copies; "serial": one copy; "skip": dropped).
    """

    paper: str
    table: str
    trace: str
    window_length: int
    split: str
    orgs: int
    machines: int
    policies: tuple[PolicySpec, ...]
    windows: int
    release_scale: float = 1.0
    fixed_start: bool = False
    paper_values: tuple[tuple[str, tuple[float, float | None]], ...] = ()
    orgs_by: str = "user"
    zipf_s: float = DEFAULT_ZIPF_S
    warm_start: bool = False
    reference: str = "ref"
    granularity: int = 1
    parallel_jobs: str = "copies"


@dataclass(frozen=True, kw_only=True)
class OnlineReplicationResult(ReplicationResult):
    """What an online replication (PPAM'13, SPAA'13) measured: `ReplicationResult`'s fields, the paper's name, the
    per-window table and the files written.

    Attributes
    ----------
    paper : "PPAM'13" or "SPAA'13".
    config : the configuration run.
    rows : one dict per (cell, policy) with the keys `ROW_KEYS` (the ``--json`` schema);
        paper values are None where the paper has none; ``std`` is NaN with a single window.
    per_window : one row per (cell, window, policy): table, trace, window_length, split, orgs, machines,
        policy, window, start (trace seconds), seed, delta_psi, p_tot, ratio (Δψ/p_tot).
    notes : what is not replicated, or replicated differently, in plain words.
    elapsed_s : wall-clock seconds.
    files : the files written to ``out_dir`` (name → path), if any.
    """

    paper: str
    rows: list[dict[str, Any]]
    per_window: pd.DataFrame
    files: dict[str, Path] = field(default_factory=dict)


@dataclass(frozen=True)
class WindowsResult:
    """The result of one sweep cell of windows (`fairsched.replicate.ppam13.cell`, `spaa13.cell`): one record per
    (window, policy), in window order."""

    config: Any
    seed: int
    records: list[dict[str, Any]]

    def rows(self) -> pd.DataFrame:
        """The config's columns, then each record's columns (window, policy, Δψ, p_tot, ...)."""
        base = self.config.columns()
        return pd.DataFrame.from_records([{**base, **record} for record in self.records])

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        """The rows as ``windows.csv``."""
        from fairsched._io import write_csv

        path = Path(out_dir) / "windows.csv"
        write_csv(self.rows(), path)
        return {"windows.csv": path}


def trace_file(traces_dir: Path | None, trace: str) -> Path:
    """The path of `trace` (a `TRACES` key); ConfigError naming the file and the directory searched if absent."""
    if trace not in TRACES:
        raise ConfigError(f"unknown trace {trace!r}; choose from {', '.join(TRACES)} ({UNAVAILABLE_NOTE})")
    directory = default_traces_dir() if traces_dir is None else Path(traces_dir)
    path = directory / TRACES[trace].file
    if not path.is_file():
        raise ConfigError(f"trace {trace}: {TRACES[trace].file} not found in {directory}; download it from the "
                          "Parallel Workloads Archive (see docs/workloads.md) or pass --traces DIR / set "
                          "FAIRSCHED_TRACES to the directory holding it")
    return path


def check_common(jobs: int, seed: int, windows: int | None) -> None:
    """Options every online replication shares."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"jobs={jobs!r}: expected a positive number of worker processes")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed={seed!r}: expected a non-negative integer")
    if windows is not None and (isinstance(windows, bool) or not isinstance(windows, int) or windows < 1):
        raise ConfigError(f"windows={windows!r}: expected a positive number of windows")


def check_names(what: str, names: Any, valid: Any) -> None:
    """ConfigError unless `names` is a non-empty tuple of names from `valid`."""
    if isinstance(names, str) or not names:
        raise ConfigError(f"{what}={names!r}: expected a non-empty tuple of names from {', '.join(valid)}")
    unknown = [name for name in names if name not in valid]
    if unknown:
        raise ConfigError(f"{what}: unknown {', '.join(map(repr, unknown))}; choose from {', '.join(valid)}")


def load_traces(names: Sequence[str], traces_dir: Path | None) -> dict[str, Workload]:
    """Read and clean each named trace once; every file is checked before any is read."""
    paths = {name: trace_file(traces_dir, name) for name in dict.fromkeys(names)}
    return {name: clean(read_swf(path))[0] for name, path in paths.items()}


def window_starts(workload: Workload, trace: str, length: int, n: int, seed: int) -> list[int]:
    """`n` seeded window starts (integer trace seconds) in [first, last − length] holding >= 1 job each.

    The stream is ``SeedSequence(seed, spawn_key=(STAGE_WINDOWS, trace index, length))``: the same for every
    policy, split and table using this trace and length. Starts may repeat or overlap (the papers' 100 windows of
    5·10^5 s cannot be disjoint in traces spanning 1.3–2.1·10^7 s).
    """
    submit = np.sort(workload.jobs["submit_time"].to_numpy(dtype=np.float64))
    first, last = math.floor(submit[0]), math.floor(submit[-1])
    key = (STAGE_WINDOWS, list(TRACES).index(trace) if trace in TRACES else len(TRACES), int(length))
    rng = stream(seed, *key)
    starts: list[int] = []
    for _ in range(n * MAX_REDRAWS):
        start = int(rng.integers(first, max(first, last - length) + 1))
        if np.searchsorted(submit, start + length, "left") > np.searchsorted(submit, start, "left"):
            starts.append(start)
            if len(starts) == n:
                return starts
    raise ConfigError(f"trace {trace}: could not find {n} windows of {length} s holding a job")


def window_seed(seed: int, cell_key: tuple[int, ...], index: int) -> int:
    """The scenario / policy seed of window `index` (a non-negative int derived from the replication seed)."""
    sequence = seeds.sequence(seed, STAGE_WINDOW_SEEDS, *cell_key, int(index))
    return int(sequence.generate_state(1)[0])


@dataclass(frozen=True)
class _Task:
    """One window of one cell, with the window's jobs already cut (small to send to a worker)."""

    cell: Cell
    index: int
    start: int
    seed: int
    workload: Workload


_KEEP_COLUMNS = ("job_number", "submit_time", "run_time", "processors", "user_id")


def make_tasks(cells: Sequence[Cell], workloads: dict[str, Workload], seed: int) -> list[_Task]:
    """Every (cell, window) task in a deterministic order; windows of equal (trace, length) share start times."""
    tasks = []
    for cell in cells:
        workload = workloads[cell.trace]
        if cell.fixed_start:
            starts = [math.floor(workload.jobs["submit_time"].min())] * cell.windows
        else:
            starts = window_starts(workload, cell.trace, cell.window_length, cell.windows, seed)
        key = (list(TRACES).index(cell.trace) if cell.trace in TRACES else len(TRACES), cell.window_length,
               cell.orgs, cell.machines, int(cell.split == "zipf"), round(cell.release_scale * 1000))
        for index, start in enumerate(starts):
            if cell.warm_start:
                cut = warm_window(workload, start=start, length=cell.window_length)
            else:
                cut = window(workload, start=start, length=cell.window_length)
            cut = cut.with_jobs(cut.jobs.loc[:, list(_KEEP_COLUMNS)].reset_index(drop=True))
            cut = coarsen(cut, start=start, granularity=cell.granularity, parallel_jobs=cell.parallel_jobs)
            if cell.release_scale != 1.0:
                cut = compress_arrivals(cut, cell.release_scale, origin=start)
            tasks.append(_Task(cell, index, start, window_seed(seed, key, index), cut))
    return tasks


def coarsen(workload: Workload, *, start: float, granularity: int = 1, parallel_jobs: str = "copies") -> Workload:
    """The PPAM'13 ablations of time granularity and parallel jobs (docs/replication/ppam13.md), on a window's jobs.

    ``granularity`` g > 1: each release is floored to a multiple of g seconds after `start` and each run time
    rounded up to a multiple of g (a clock ticking every g seconds: more jobs arrive and end together).
    ``parallel_jobs``: "copies" keeps q processors (q sequential copies, the default), "serial" makes every job
    one copy, "skip" drops the jobs on more than one processor (at least one job is kept: the narrowest first).

    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"submit_time": [100.0, 161.0], "run_time": [1.0, 60.0], "processors": [1, 4]})
    >>> coarsen(Workload(jobs=jobs), start=100, granularity=60).jobs.to_numpy().tolist()
    [[100.0, 60.0, 1.0], [160.0, 60.0, 4.0]]
    >>> coarsen(Workload(jobs=jobs), start=100, parallel_jobs="skip").jobs["processors"].tolist()
    [1]
    """
    if granularity == 1 and parallel_jobs == "copies":
        return workload
    jobs = workload.jobs.copy()
    if granularity != 1:
        g = float(granularity)
        jobs["submit_time"] = start + np.floor((jobs["submit_time"].to_numpy(dtype=np.float64) - start) / g) * g
        jobs["run_time"] = np.maximum(np.ceil(jobs["run_time"].to_numpy(dtype=np.float64) / g), 1.0) * g
    if parallel_jobs == "serial":
        jobs["processors"] = 1
    elif parallel_jobs == "skip":
        wide = jobs["processors"].to_numpy(dtype=np.float64) > 1
        if wide.all() and len(jobs):
            wide[int(np.argmin(jobs["processors"].to_numpy(dtype=np.float64)))] = False
        jobs = jobs.loc[~wide].reset_index(drop=True)
    elif parallel_jobs != "copies":
        raise ConfigError(f"parallel_jobs={parallel_jobs!r}: expected copies, serial or skip")
    return workload.with_jobs(jobs)


def warm_window(workload: Workload, *, start: float, length: float) -> Workload:
    """The jobs submitted in [start, start + length), plus the trace's backlog and running jobs at `start`.

    A job submitted before `start` that the trace had not finished by then (recorded start = submit + wait,
    a missing wait counting as 0) is carried over: submitted at `start`, with its full run time if it was
    still waiting, with the rest of it (end − start) if it was running. The window then opens with the
    contention the trace had, instead of from an empty system (an ablation of docs/replication/ppam13.md). O(n).

    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"job_number": [1, 2, 3, 4], "submit_time": [0.0, 5.0, 8.0, 12.0],
    ...                      "wait_time": [0.0, 0.0, 4.0, 0.0], "run_time": [3.0, 10.0, 6.0, 1.0]})
    >>> warm_window(Workload(jobs=jobs), start=10, length=5).jobs[["job_number", "submit_time", "run_time"]
    ...                                                           ].to_numpy().tolist()  # 1 ended at 3
    [[2.0, 10.0, 5.0], [3.0, 10.0, 6.0], [4.0, 12.0, 1.0]]
    """
    jobs = workload.jobs
    submit = jobs["submit_time"].to_numpy(dtype=np.float64)
    run = jobs["run_time"].to_numpy(dtype=np.float64)
    began = submit + np.maximum(jobs["wait_time"].to_numpy(dtype=np.float64), 0.0)
    carried = (submit < start) & (began + run > start)
    backlog = jobs.loc[carried].copy()
    backlog["run_time"] = np.where(began[carried] < start, began[carried] + run[carried] - start, run[carried])
    backlog["submit_time"] = float(start)
    inside = window(workload, start=start, length=length).jobs
    merged = pd.concat([backlog, inside], ignore_index=True)
    return workload.with_jobs(merged)


def run_window(task: _Task) -> list[dict[str, Any]]:
    """Simulate REF and the cell's policies on one window; one record per policy (runs in a worker).

    Policies without hyper-parameters go through `compare_scenario` (reference REF, common t_end = horizon);
    the others (RAND with N = 75) are simulated with the same seed and measured against the same REF run.
    """
    cell = task.cell
    scenario = build_scenario(task.workload, n_orgs=cell.orgs, orgs_by=cell.orgs_by, n_machines=cell.machines,
                              split=cell.split, zipf_s=cell.zipf_s, seed=task.seed, time_origin=task.start,
                              horizon=int(cell.window_length))
    plain = tuple(dict.fromkeys(spec.name for spec in cell.policies if not spec.params)) or ("ref",)
    config = online_experiment.Config(policies=plain, reference=cell.reference, validate=False)
    compared = online_experiment.compare_scenario(scenario, config, task.seed)
    reference = compared.reference_outcome
    records = []
    for spec in cell.policies:
        if not spec.params and spec.name in compared.policies:
            fairness = compared.policies[spec.name].fairness
        else:
            result = simulate(scenario, get_policy(spec.name, **dict(spec.params)), seed=task.seed)
            psi = metrics.psi_from_schedule(result.schedule, scenario.n_orgs, compared.t_end)
            fairness = metrics.fairness_vs_reference(psi, reference.psi, compared.p_tot)
        records.append({"policy": spec.label, "window": task.index, "start": task.start, "seed": task.seed,
                        "delta_psi": int(fairness.delta_psi), "p_tot": int(fairness.p_tot),
                        "ratio": float(fairness.delta_psi_over_ptot)})
    return records


def run_tasks(tasks: list[_Task], jobs: int, progress: ProgressCallback | None) -> list[list[dict[str, Any]]]:
    """Records of every task, in task order whatever the number of processes; costliest (largest k) first.

    The windows run on the sweep layer's executor (`fairsched.sweep.executors.map_unordered`): with ``jobs`` > 1,
    spawned worker processes that a Ctrl-C stops within seconds, none left behind.
    """
    if progress is not None:
        progress("simulating windows", 0, len(tasks))
    order = sorted(range(len(tasks)), key=lambda i: (-tasks[i].cell.orgs, -tasks[i].cell.window_length, i))
    if jobs == 1:
        order = list(range(len(tasks)))
    results: list[list[dict[str, Any]] | None] = [None] * len(tasks)
    ordered = [tasks[i] for i in order]
    for done, (index, records) in enumerate(map_unordered(run_window, ordered, workers=jobs), start=1):
        results[order[index]] = records
        if progress is not None:
            progress("simulating windows", done, len(tasks))
    return [records for records in results if records is not None]


def _cell_columns(cell: Cell) -> dict[str, Any]:
    return {"paper": cell.paper, "table": cell.table, "trace": cell.trace, "window_length": cell.window_length,
            "split": cell.split, "orgs": cell.orgs, "machines": cell.machines}


def measure(cells: Sequence[Cell], workloads: dict[str, Workload], *, seed: int, jobs: int,
            progress: ProgressCallback | None = None) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Run every cell's windows; return the summary rows (`ROW_KEYS`) and the per-window table."""
    tasks = make_tasks(cells, workloads, seed)
    outcomes = run_tasks(tasks, jobs, progress)
    per_window = pd.DataFrame([{**_cell_columns(task.cell), **record}
                               for task, records in zip(tasks, outcomes, strict=True) for record in records])
    rows = []
    for number, cell in enumerate(cells):
        mine = [record for task, records in zip(tasks, outcomes, strict=True) if task.cell is cells[number]
                for record in records]
        paper = dict(cell.paper_values)
        for spec in cell.policies:
            ratios = np.array([r["ratio"] for r in mine if r["policy"] == spec.label], dtype=np.float64)
            paper_mean, paper_std = paper.get(spec.label, (None, None))
            rows.append({**_cell_columns(cell), "policy": spec.label, **summarize(ratios),
                         "paper_mean": paper_mean, "paper_std": paper_std})
    return rows, per_window


def summarize(ratios: np.ndarray) -> dict[str, Any]:
    """Mean, sample standard deviation (ddof = 1; NaN for one window) and count of the finite ratios."""
    finite = ratios[np.isfinite(ratios)]
    mean = float(finite.mean()) if finite.size else math.nan
    std = float(finite.std(ddof=1)) if finite.size > 1 else math.nan
    return {"mean": mean, "std": std, "windows": int(finite.size)}


def to_json(result: OnlineReplicationResult) -> dict[str, Any]:
    """``{"rows": [...], "notes": [...]}``: the ``--json`` rows of docs/usage.md (NaN → null) plus the notes."""
    def clean_value(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, np.integer | np.floating):
            return clean_value(value.item())
        return value

    rows = [{key: clean_value(row[key]) for key in ROW_KEYS} for row in result.rows]
    return {"rows": rows, "notes": list(result.notes)}
