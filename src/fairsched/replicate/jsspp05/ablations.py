"""JSSPP'05 §4–§5: the runs and ablations behind docs/replication/jsspp05.md.

Four steps, each writing CSV files to ``docs/replication/data`` (``jsspp05_*.csv``):

* ``table1``: the paper's Table 1 width mix beside ours for several subset rules — the first 5,000 jobs
  after cleaning, and the window of consecutive jobs (cleaned or raw log) whose mix is closest to the paper's —
  and what our cleaning drops (``jsspp05_clean.csv``);
* ``full``: `fairsched.replicate.jsspp05.run` on CTC-SP2, SDSC-BLUE and SDSC-SP2 (45 simulations each); the
  overall and by-width rows, and Table 2 under several subset schemes (`SCHEMES`: the default interleaved
  subsets, consecutive blocks, a seeded random split, and interleaved with every per-job value capped at its
  simulation's 99th percentile); the quick run's numbers are the 80 % / 95 % rows of the same simulations (the
  simulations are deterministic), so they are derived, not rerun;
* ``ctc`` (one process): CTC-SP2 at 80 % and 95 % with the header's 338 processors or the paper's 430
  batch nodes, on the first 5,000 jobs or on the paper's subset (`CTC_VARIANTS`, plain overrides of
  `fairsched.replicate.jsspp05.cell.Config`);
* ``cost`` (one process): the fair-start-time cost model — FCFS at every load and depth on the three traces,
  with the CPU and wall seconds of the simulation and of the strict and relaxed what-ifs, and the model's work
  W = Σ_j E_j Q_j (`whatif_work`);
* ``osc``: the OSC grid — `fairsched.replicate.jsspp05.run` on OSC alone (`OSC_GRID`, 45 simulations, the
  conservative ones first), its overall and by-width rows, simulations and Table 2 per scheme
  (``jsspp05_osc_*.csv``); ``fairsched replicate jsspp05 --grid osc`` runs the same simulations. ``--store DIR``
  keeps its sweep, so an interrupted run resumes.

Each step's wall and CPU seconds (this process and its workers), the load average around it, the date and the
commit go to ``jsspp05_steps.csv`` (the doc renders them; the machine may be shared, so CPU is the figure to
compare). Regenerate::

    python -m fairsched.replicate.jsspp05.ablations table1 full ctc cost --out docs/replication/data
    python -m fairsched.replicate.jsspp05.ablations osc --out docs/replication/data --store DIR
    python -m fairsched.replicate._doc_tables docs/replication/jsspp05.md
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.backfill.fairness import WIDTH_BINS, width_bin
from fairsched.replicate._common import default_traces_dir
from fairsched.replicate.jsspp05 import cell as jsspp05_cell
from fairsched.replicate.jsspp05.paper import (
    ALL_WIDTHS,
    DEPTHS,
    LOADS,
    METRICS,
    ORDERS,
    PAPER_TABLE1,
    QUICK_LOADS,
    QUICK_TRACES,
    TRACES,
    JSSPP05Config,
)
from fairsched.replicate.jsspp05.replication import arrival_subsets, rows_by_width, run, spearman_rho
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf

__all__ = ["CTC_VARIANTS", "OSC_PARTS", "SCHEMES", "STEPS", "cleaning_report", "cost_run", "ctc_run", "full_run",
           "main", "osc_harvest", "osc_run", "spearman_schemes", "table1_windows", "whatif_work"]

FULL_TRACES = ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")
CTC_VARIANTS: tuple[tuple[str, Mapping[str, Any]], ...] = (  # overrides of `jsspp05_cell.Config`
    ("338 processors, first 5,000", {}),
    ("430 processors, first 5,000", {"processors": 430}),
    ("338 processors, jobs 1,001-6,000", {"skip_jobs": 1000}),
    ("430 processors, jobs 1,001-6,000", {"processors": 430, "skip_jobs": 1000}),
)
# The OSC grid in parts, cheapest first (`osc_run`): name -> overrides of `JSSPP05Config.osc`.
OSC_PARTS: tuple[tuple[str, Mapping[str, Any]], ...] = (
    ("no-guarantee and easy", {"depths": ("no-guarantee", "easy")}),
    *((f"conservative {round(100 * load)}", {"depths": ("conservative",), "loads": (load,)}) for load in LOADS),
)
CAP_QUANTILE = 0.99
STEPS: tuple[str, ...] = ("table1", "full", "ctc", "cost", "osc")


def _cap(values: np.ndarray) -> np.ndarray:
    return np.minimum(values, np.quantile(values, CAP_QUANTILE))


def _random_split(n_jobs: int, n_subsets: int) -> list[np.ndarray]:
    order = np.random.default_rng(0).permutation(n_jobs)
    return [np.sort(part) for part in np.array_split(order, n_subsets)]


# name -> (how jobs are dealt into 10 subsets, a transform of each simulation's per-job values)
SCHEMES: dict[str, tuple[Callable[[int, int], list[np.ndarray]], Callable[[np.ndarray], np.ndarray]]] = {
    "interleaved": (lambda n, k: arrival_subsets(n, k, "interleaved"), lambda v: v),
    "blocks": (lambda n, k: arrival_subsets(n, k, "blocks"), lambda v: v),
    "random (seed 0)": (_random_split, lambda v: v),
    "interleaved, capped at p99": (lambda n, k: arrival_subsets(n, k, "interleaved"), _cap),
}


# ---------------------------------------------------------------------------------------------------- Table 1

def _bin_counts(procs: np.ndarray) -> np.ndarray:
    """Jobs per `WIDTH_BINS` bin of every window start: row s = jobs s..s+n of `procs` (cumulative counts)."""
    codes = width_bin(np.maximum(procs, 1)).codes
    onehot = np.zeros((procs.size + 1, len(WIDTH_BINS)), dtype=np.int64)
    onehot[np.arange(1, procs.size + 1), codes] = 1
    return np.cumsum(onehot, axis=0)


def table1_windows(traces_dir: Path, n_jobs: int = 5000) -> pd.DataFrame:
    """Per trace and subset rule: the first job (0-based, in the file's order), jobs per width bin and the L1
    distance to the paper's Table 1; "best" rules scan every window of `n_jobs` consecutive jobs."""
    rows = []
    for name, paper in PAPER_TABLE1.items():
        workload = read_swf(traces_dir / TRACES[name])
        cleaned, _ = clean(workload, max_processors=workload.header_int("MaxProcs"))
        rows.append({"trace": name, "rule": "paper (Table 1)", "first_job": np.nan, **dict(zip(WIDTH_BINS, paper,
                                                                                               strict=True)),
                     "l1": 0})
        for log, jobs in (("cleaned", cleaned.jobs), ("raw log", workload.jobs)):
            cum = _bin_counts(jobs["processors"].to_numpy(np.int64))
            for size in (n_jobs, sum(paper)):  # the paper's counts add up to 5,003
                windows = cum[size:] - cum[:-size]
                distance = np.abs(windows - np.array(paper)).sum(axis=1)
                picks = {f"first {size:,}, {log}": 0, f"jobs 1,001-{1000 + size:,}, {log}": 1000,
                         f"closest window of {size:,}, {log}": int(np.argmin(distance))}
                for rule, start in picks.items():
                    rows.append({"trace": name, "rule": rule, "first_job": start,
                                 **dict(zip(WIDTH_BINS, windows[start].tolist(), strict=True)),
                                 "l1": int(distance[start])})
    return pd.DataFrame.from_records(rows)


def cleaning_report(traces_dir: Path) -> pd.DataFrame:
    """Per trace of Table 1: the jobs our cleaning drops, by reason (`fairsched.workload.clean.CLEAN_RULES`), the
    jobs it keeps, and the narrowest job of the raw log (``quantity, jobs`` rows)."""
    rows = []
    for name in PAPER_TABLE1:
        workload = read_swf(traces_dir / TRACES[name])
        _, report = clean(workload, max_processors=workload.header_int("MaxProcs"))
        rows += [{"trace": name, "quantity": f"dropped: {reason}", "jobs": count}
                 for reason, count in report.dropped.items()]
        rows += [{"trace": name, "quantity": "kept", "jobs": report.kept},
                 {"trace": name, "quantity": "narrowest job of the raw log (processors)",
                  "jobs": int(workload.jobs["processors"][workload.jobs["processors"] > 0].min())}]
    return pd.DataFrame.from_records(rows)


# ------------------------------------------------------------------------------------------ full run, Table 2

def spearman_schemes(per_job: Mapping[tuple[str, float, str, str], Mapping[str, np.ndarray]],
                     n_subsets: int = 10) -> pd.DataFrame:
    """Table 2 (`subset_correlations`) under each of `SCHEMES`, plus the share of each simulation's
    total unfairness held by its top 1 % of jobs (median over the simulations)."""
    frames = []
    for scheme, (split, transform) in SCHEMES.items():
        for trace in dict.fromkeys(key[0] for key in per_job):
            mine = [values for key, values in per_job.items() if key[0] == trace]
            subsets = split(mine[0][METRICS[0]].size, n_subsets)
            for metric in METRICS:
                values = np.stack([transform(entry[metric]) for entry in mine])
                overall = values.mean(axis=1)
                top = np.sort(values, axis=1)[:, -max(1, values.shape[1] // 100):].sum(axis=1)
                share = float(np.median(top / np.where(values.sum(axis=1) > 0, values.sum(axis=1), 1.0)))
                frames += [{"scheme": scheme, "trace": trace, "metric": metric, "subset": i,
                            "n_simulations": len(mine), "top1_share": share,
                            "rho": spearman_rho(values[:, members].mean(axis=1), overall)}
                           for i, members in enumerate(subsets)]
    return pd.DataFrame.from_records(frames)


def full_run(traces_dir: Path, out: Path, workers: int = 2) -> None:
    """The three-trace run: rows, simulations, Table 1 counts, Table 2 per scheme; and the quick run's Table 2."""
    from fairsched._io import write_csv

    result = run(JSSPP05Config(traces_dir=traces_dir, traces=FULL_TRACES, workers=workers))
    write_csv(result.rows, out / "jsspp05_full_rows.csv")
    write_csv(result.simulations, out / "jsspp05_full_simulations.csv")
    write_csv(pd.DataFrame([{"trace": name, **{k: v for k, v in info.items() if k != "jobs_per_width"},
                             **info["jobs_per_width"]} for name, info in result.traces.items()]),
              out / "jsspp05_traces.csv")
    write_csv(spearman_schemes(result.per_job), out / "jsspp05_full_spearman.csv")
    quick = {key: v for key, v in result.per_job.items()
             if key[0] in QUICK_TRACES and key[1] in QUICK_LOADS}
    write_csv(spearman_schemes(quick), out / "jsspp05_quick_spearman.csv")


def osc_run(traces_dir: Path, out: Path, workers: int = 2, store: Path | None = None, *,
            subset_size: int = 5000) -> None:
    """The OSC grid (`OSC_GRID`: 3 orders × 3 depths × 5 loads on OSC's first 5,000 jobs), cheapest parts first:
    no-guarantee and EASY at every load, then conservative load by load (`OSC_PARTS`).

    After each part, the rows and simulations of every finished part are written (``jsspp05_osc_rows.csv``,
    ``jsspp05_osc_simulations.csv``) with that part's wall and CPU seconds (``jsspp05_osc_parts.csv``), so an
    interrupted grid leaves a labelled partial result; Table 2 (``jsspp05_osc_spearman.csv``, every scheme)
    needs all 45 simulations and is written at the end. `store` keeps each part's sweep (None: temporary
    directories), so a rerun resumes where it stopped.
    """
    from fairsched._io import write_csv

    rows, simulations, parts, per_job = [], [], [], {}
    for name, overrides in OSC_PARTS:
        commit, wall, cpu = _commit(), time.perf_counter(), _cpu_seconds()
        config = JSSPP05Config.osc(traces_dir=traces_dir, workers=workers, subset_size=subset_size, **overrides,
                                   store=None if store is None else store / name.replace(" ", "-"))
        result = run(config)
        rows.append(result.rows)
        simulations.append(result.simulations)
        per_job |= result.per_job
        parts.append({"part": name, "simulations": len(result.simulations), "wall_s": time.perf_counter() - wall,
                      "cpu_s": _cpu_seconds() - cpu, "workers": workers, "load_after": round(os.getloadavg()[0], 2),
                      "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit})
        write_csv(pd.concat(rows, ignore_index=True), out / "jsspp05_osc_rows.csv")
        write_csv(pd.concat(simulations, ignore_index=True), out / "jsspp05_osc_simulations.csv")
        write_csv(pd.DataFrame.from_records(parts), out / "jsspp05_osc_parts.csv")
    keys = [("OSC", load, order, depth) for load in LOADS for order in ORDERS for depth in DEPTHS]
    write_csv(spearman_schemes({key: per_job[key] for key in keys}), out / "jsspp05_osc_spearman.csv")


def osc_harvest(store: Path, out: Path) -> int:
    """The finished simulations of an interrupted or running `osc_run` (its ``--store``), cell by cell: writes
    ``jsspp05_osc_rows.csv`` and ``jsspp05_osc_simulations.csv`` for them (in the grid's order) and returns how
    many there are. A partial grid, to be labelled as such; `osc_run` rewrites both files when a part ends."""
    from fairsched._io import write_csv
    from fairsched.replicate.jsspp05.replication import _SIMULATION_FIGURES, _read_cells
    from fairsched.sweep.results import load_rows

    cells = {}
    for name, _ in OSC_PARTS:
        folder = store / name.replace(" ", "-")
        if (folder / "manifest.json").is_file():
            cells |= _read_cells(load_rows(folder)[0])
    keys = [("OSC", load, order, depth) for load in LOADS for order in ORDERS for depth in DEPTHS
            if ("OSC", load, order, depth) in cells]
    if keys:
        rows = rows_by_width(keys, {key: cells[key].per_job for key in keys}, {"OSC": cells[keys[0]].procs})
        write_csv(rows, out / "jsspp05_osc_rows.csv")
        write_csv(pd.DataFrame([{"trace": key[0], "load": key[1], "order": key[2], "backfill": key[3],
                                 **{name: cells[key].figures[name] for name in _SIMULATION_FIGURES}}
                                for key in keys]), out / "jsspp05_osc_simulations.csv")
    return len(keys)


def whatif_work(schedule: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The cost model's terms per job of a run (`schedule` in job order): Q_j, the jobs waiting right after j
    arrives (j included when it waits), and E_j, the completions between j's arrival and its start.

    The what-if of job j (`fairsched.backfill.fairness.fair_start_times`) replays the events from j's arrival until
    j starts, and conservative backfilling re-plans the reservation of every queued job at each event, so its cost
    grows as E_j × Q_j; the FST cost of a run is then about c · W with W = Σ_j E_j Q_j: jobs × events × queue. (The
    what-if starts j at its fair start, usually before its real start, so E_j is an upper estimate.)

    >>> import pandas as pd
    >>> schedule = pd.DataFrame({"submit": [0, 0, 1], "start": [0, 5, 9], "end": [5, 9, 10]})
    >>> [a.tolist() for a in whatif_work(schedule)]  # job 2 waits behind job 1 for the ends at 5 and 9
    [[0, 1, 2], [0, 1, 2]]
    """
    submit, start, end = (schedule[c].to_numpy(np.float64) for c in ("submit", "start", "end"))
    queue = np.arange(1, submit.size + 1) - np.searchsorted(np.sort(start), submit, side="right")
    ends = np.sort(end)
    events = np.searchsorted(ends, start, side="right") - np.searchsorted(ends, submit, side="right")
    return queue.astype(np.int64), events.astype(np.int64)


def _timed(function: Callable[[], Any]) -> tuple[Any, float, float]:
    """``function()``, its wall and CPU seconds (this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def cost_run(traces_dir: Path, out: Path) -> None:
    """FCFS at every load and depth on the full run's traces: the seconds (wall, CPU) of the simulation and of the
    strict and relaxed what-ifs, the mean queue at an arrival and the work W of `whatif_work`."""
    from fairsched._io import write_csv
    from fairsched.backfill import fairness
    from fairsched.backfill.engine import simulate

    rows = []
    for trace in FULL_TRACES:
        for load in LOADS:
            for depth in DEPTHS:
                config = jsspp05_cell.Config(trace=trace, traces_dir=traces_dir, load=load, order="fcfs",
                                             backfill=depth)
                jobs, figures = jsspp05_cell.prepare(config)
                result, sim_wall, sim_cpu = _timed(lambda jobs=jobs, depth=depth: simulate(jobs, order="fcfs",
                                                                                          backfill=depth))
                row = {"trace": trace, "load": load, "order": "fcfs", "backfill": depth, "jobs": jobs.n_jobs,
                       "runtime_factor": figures["runtime_factor"], "simulate_wall_s": sim_wall,
                       "simulate_cpu_s": sim_cpu}
                for kind in fairness.FST_KINDS:
                    _, wall, cpu = _timed(lambda jobs=jobs, depth=depth, kind=kind, result=result:
                                          fairness.fair_start_times(jobs, order="fcfs", backfill=depth, kind=kind,
                                                                    schedule=result.schedule))
                    row |= {f"{kind}_wall_s": wall, f"{kind}_cpu_s": cpu}
                queue, events = whatif_work(result.schedule)
                rows.append(row | {"mean_queue_at_arrival": float(queue.mean()),
                                   "mean_events_until_start": float(events.mean()),
                                   "work": float(np.dot(events, queue))})
    write_csv(pd.DataFrame.from_records(rows), out / "jsspp05_cost.csv")


def ctc_run(traces_dir: Path, out: Path) -> None:
    """CTC-SP2 at 80 % and 95 % under each of `CTC_VARIANTS` (one `jsspp05_cell` simulation per load, order and
    depth): the overall and > 128 rows, the machine size, the subset's own load and the run-time factor."""
    from fairsched._io import write_csv

    frames = []
    for name, overrides in CTC_VARIANTS:
        keys = [("CTC-SP2", load, order, depth) for load in QUICK_LOADS for order in ORDERS
                for depth in DEPTHS]
        cells = {key: jsspp05_cell.run(jsspp05_cell.Config(trace="CTC-SP2", traces_dir=traces_dir, load=key[1],
                                                           order=key[2], backfill=key[3], **overrides))
                 for key in keys}
        rows = rows_by_width(keys, {k: c.per_job for k, c in cells.items()}, {"CTC-SP2": cells[keys[0]].procs})
        rows = rows[rows["width"].isin([ALL_WIDTHS, ">128"])]
        first = cells[keys[0]].figures
        factors = {key[1]: cell.figures["runtime_factor"] for key, cell in cells.items()}
        frames.append(rows.assign(variant=name, processors=first["processors"], natural_load=first["natural_load"],
                                  runtime_factor=rows["load"].map(factors)))
    write_csv(pd.concat(frames, ignore_index=True), out / "jsspp05_ctc_variants.csv")



def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate.jsspp05.ablations STEP... --out DIR [--traces DIR] [--workers N]``."""
    from fairsched._io import write_csv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("steps", nargs="+", choices=STEPS)
    parser.add_argument("--out", type=Path, default=Path("docs/replication/data"))
    parser.add_argument("--traces", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--store", type=Path, default=None, help="keep the osc step's sweep here (resumable)")
    parser.add_argument("--harvest", action="store_true", help="only write the osc rows of the simulations "
                        "finished in --store (a partial grid) and stop")
    args = parser.parse_args(argv)
    if args.harvest:
        sys.stdout.write(f"{osc_harvest(args.store, args.out)} of 45 OSC simulations finished\n")
        return
    traces = args.traces if args.traces is not None else default_traces_dir()
    runs: dict[str, Callable[[], object]] = {
        "table1": lambda: (write_csv(table1_windows(traces), args.out / "jsspp05_table1.csv"),
                           write_csv(cleaning_report(traces), args.out / "jsspp05_clean.csv")),
        "full": lambda: full_run(traces, args.out, args.workers), "ctc": lambda: ctc_run(traces, args.out),
        "cost": lambda: cost_run(traces, args.out),
        "osc": lambda: osc_run(traces, args.out, args.workers, args.store)}
    for step in STEPS:
        if step in args.steps:
            _record_step(step, runs[step], args.out / "jsspp05_steps.csv",
                         workers=args.workers if step in ("full", "osc") else 1)


def _cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished children (the sweep's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _record_step(step: str, run: Callable[[], object], path: Path, *, workers: int) -> None:
    """Run one step and write its wall and CPU seconds, the load average before and after, the date (at the end)
    and the commit (at the start) into `path` (one row per step; the step's previous row is replaced)."""
    from fairsched._io import write_csv

    commit, load_before, wall, cpu = _commit(), os.getloadavg()[0], time.perf_counter(), _cpu_seconds()
    run()
    row = {"step": step, "wall_s": time.perf_counter() - wall, "cpu_s": _cpu_seconds() - cpu, "workers": workers,
           "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
           "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "commit": commit, "python": platform.python_version()}
    old = pd.read_csv(path, dtype=str) if path.is_file() else pd.DataFrame(columns=list(row))
    frame = pd.concat([old[old["step"] != step], pd.DataFrame([row]).astype(str)], ignore_index=True)
    frame["order"] = frame["step"].map({name: i for i, name in enumerate(STEPS)})
    write_csv(frame.sort_values("order").drop(columns="order"), path)


def _commit() -> str:
    """The checkout's commit (short hash, ``+`` when the tree has uncommitted changes), or ``unknown``."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


if __name__ == "__main__":
    main()
