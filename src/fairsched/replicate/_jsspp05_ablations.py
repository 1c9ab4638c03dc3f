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
  `fairsched.replicate.jsspp05_cell.Config`);
* ``cost`` (one process): the fair-start-time cost model — FCFS at every load and depth on the three traces,
  with the CPU and wall seconds of the simulation and of the strict and relaxed what-ifs, and the model's work
  W = Σ_j E_j Q_j (`whatif_work`).

Each step's wall and CPU seconds (this process and its workers), the load average around it, the date and the
commit go to ``jsspp05_steps.csv`` (the doc renders them; the machine may be shared, so CPU is the figure to
compare). Regenerate::

    python -m fairsched.replicate._jsspp05_ablations table1 full ctc cost --out docs/replication/data
    python -m fairsched.replicate._doc_tables docs/replication/jsspp05.md
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.backfill.fairness import WIDTH_BINS, width_bin
from fairsched.replicate import jsspp05
from fairsched.replicate._doc_tables import fmt, markdown_table, verdict
from fairsched.replicate.jsspp05 import PAPER_TABLE2
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf

__all__ = ["CTC_VARIANTS", "PAPER_TABLE1", "PAPER_TABLE2", "SCHEMES", "TABLES", "table1_windows"]

# JSSPP'05 Table 1 (jobs per width bin), as printed; "SDSC" is SDSC Blue (the trace §4 says it shows, beside CTC).
# Table 2 is `jsspp05.PAPER_TABLE2`.
PAPER_TABLE1: dict[str, tuple[int, ...]] = {"CTC-SP2": (2209, 435, 722, 487, 609, 309, 157, 45, 30),
                                            "SDSC-BLUE": (3, 0, 0, 2489, 653, 569, 616, 396, 277)}
FULL_TRACES = ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")
CTC_VARIANTS: tuple[tuple[str, Mapping[str, Any]], ...] = (  # overrides of `jsspp05_cell.Config`
    ("338 processors, first 5,000", {}),
    ("430 processors, first 5,000", {"processors": 430}),
    ("338 processors, jobs 1,001-6,000", {"skip_jobs": 1000}),
    ("430 processors, jobs 1,001-6,000", {"processors": 430, "skip_jobs": 1000}),
)
CAP_QUANTILE = 0.99
STEPS: tuple[str, ...] = ("table1", "full", "ctc", "cost")


def _cap(values: np.ndarray) -> np.ndarray:
    return np.minimum(values, np.quantile(values, CAP_QUANTILE))


def _random_split(n_jobs: int, n_subsets: int) -> list[np.ndarray]:
    order = np.random.default_rng(0).permutation(n_jobs)
    return [np.sort(part) for part in np.array_split(order, n_subsets)]


# name -> (how jobs are dealt into 10 subsets, a transform of each simulation's per-job values)
SCHEMES: dict[str, tuple[Callable[[int, int], list[np.ndarray]], Callable[[np.ndarray], np.ndarray]]] = {
    "interleaved": (lambda n, k: jsspp05.arrival_subsets(n, k, "interleaved"), lambda v: v),
    "blocks": (lambda n, k: jsspp05.arrival_subsets(n, k, "blocks"), lambda v: v),
    "random (seed 0)": (_random_split, lambda v: v),
    "interleaved, capped at p99": (lambda n, k: jsspp05.arrival_subsets(n, k, "interleaved"), _cap),
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
        workload = read_swf(traces_dir / jsspp05.TRACES[name])
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
        workload = read_swf(traces_dir / jsspp05.TRACES[name])
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
    """Table 2 (`jsspp05.subset_correlations`) under each of `SCHEMES`, plus the share of each simulation's
    total unfairness held by its top 1 % of jobs (median over the simulations)."""
    frames = []
    for scheme, (split, transform) in SCHEMES.items():
        for trace in dict.fromkeys(key[0] for key in per_job):
            mine = [values for key, values in per_job.items() if key[0] == trace]
            subsets = split(mine[0][jsspp05.METRICS[0]].size, n_subsets)
            for metric in jsspp05.METRICS:
                values = np.stack([transform(entry[metric]) for entry in mine])
                overall = values.mean(axis=1)
                top = np.sort(values, axis=1)[:, -max(1, values.shape[1] // 100):].sum(axis=1)
                share = float(np.median(top / np.where(values.sum(axis=1) > 0, values.sum(axis=1), 1.0)))
                frames += [{"scheme": scheme, "trace": trace, "metric": metric, "subset": i,
                            "n_simulations": len(mine), "top1_share": share,
                            "rho": jsspp05.spearman_rho(values[:, members].mean(axis=1), overall)}
                           for i, members in enumerate(subsets)]
    return pd.DataFrame.from_records(frames)


def full_run(traces_dir: Path, out: Path, workers: int = 2) -> None:
    """The three-trace run: rows, simulations, Table 1 counts, Table 2 per scheme; and the quick run's Table 2."""
    from fairsched._io import write_csv

    result = jsspp05.run(jsspp05.JSSPP05Config(traces_dir=traces_dir, traces=FULL_TRACES, workers=workers))
    write_csv(result.rows, out / "jsspp05_full_rows.csv")
    write_csv(result.simulations, out / "jsspp05_full_simulations.csv")
    write_csv(pd.DataFrame([{"trace": name, **{k: v for k, v in info.items() if k != "jobs_per_width"},
                             **info["jobs_per_width"]} for name, info in result.traces.items()]),
              out / "jsspp05_traces.csv")
    write_csv(spearman_schemes(result.per_job), out / "jsspp05_full_spearman.csv")
    quick = {key: v for key, v in result.per_job.items()
             if key[0] in jsspp05.QUICK_TRACES and key[1] in jsspp05.QUICK_LOADS}
    write_csv(spearman_schemes(quick), out / "jsspp05_quick_spearman.csv")


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
    from fairsched.replicate import jsspp05_cell

    rows = []
    for trace in FULL_TRACES:
        for load in jsspp05.LOADS:
            for depth in jsspp05.DEPTHS:
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
    from fairsched.replicate import jsspp05_cell

    frames = []
    for name, overrides in CTC_VARIANTS:
        keys = [("CTC-SP2", load, order, depth) for load in jsspp05.QUICK_LOADS for order in jsspp05.ORDERS
                for depth in jsspp05.DEPTHS]
        cells = {key: jsspp05_cell.run(jsspp05_cell.Config(trace="CTC-SP2", traces_dir=traces_dir, load=key[1],
                                                           order=key[2], backfill=key[3], **overrides))
                 for key in keys}
        rows = jsspp05._rows(keys, {k: c.per_job for k, c in cells.items()}, {"CTC-SP2": cells[keys[0]].procs})
        rows = rows[rows["width"].isin([jsspp05.ALL_WIDTHS, ">128"])]
        first = cells[keys[0]].figures
        factors = {key[1]: cell.figures["runtime_factor"] for key, cell in cells.items()}
        frames.append(rows.assign(variant=name, processors=first["processors"], natural_load=first["natural_load"],
                                  runtime_factor=rows["load"].map(factors)))
    write_csv(pd.concat(frames, ignore_index=True), out / "jsspp05_ctc_variants.csv")


# ------------------------------------------------------------------------------------------ the doc's tables

def table_table1(data: Path) -> str:
    """Table 1: the paper's width mix and ours under each subset rule."""
    frame = pd.read_csv(data / "jsspp05_table1.csv")
    rows = [(r["trace"], r["rule"], "—" if pd.isna(r["first_job"]) else f"{int(r['first_job']):,}",
             *(f"{int(r[b]):,}" for b in WIDTH_BINS), int(r["l1"])) for _, r in frame.iterrows()]
    return markdown_table(("trace", "subset", "first job", *WIDTH_BINS, "L1 to paper"), rows, "ll" + "r" * 11)


def _overall(frame: pd.DataFrame, **match: Any) -> pd.DataFrame:
    keep = frame["width"] == jsspp05.ALL_WIDTHS
    for key, value in match.items():
        keep &= frame[key] == value
    return frame[keep]


def table_overall(data: Path, name: str = "jsspp05_full_rows.csv", loads: tuple[float, ...] | None = None) -> str:
    """Overall unfairness, FCFS order, no-guarantee / EASY / conservative, per trace and load."""
    frame = _overall(pd.read_csv(data / name, dtype={"width": str}), order="fcfs")
    rows = []
    for (trace, load), part in frame.groupby(["trace", "load"], sort=False):
        if loads is not None and (load not in loads or trace not in jsspp05.QUICK_TRACES):
            continue
        cells = []
        for metric in jsspp05.METRICS:
            values = part[part["metric"] == metric].set_index("backfill")["value"]
            cells.append(" / ".join(fmt(values[d], 0) for d in jsspp05.DEPTHS))
        rows.append((f"{trace}, {round(100 * load)} %", *cells))
    return markdown_table(("trace, load", "strict FST (s)", "relaxed FST (s)", "resource equality (processor-s)"),
                          rows, "lrrr")


def table_spearman(data: Path, name: str = "jsspp05_full_spearman.csv") -> str:
    """Table 2 per trace and metric: the paper's range and ours (min–max over the 10 subsets) per scheme."""
    frame = pd.read_csv(data / name)
    schemes = list(dict.fromkeys(frame["scheme"]))
    rows = []
    for (trace, metric), part in frame.groupby(["trace", "metric"], sort=False):
        paper = PAPER_TABLE2.get((trace, metric))
        cells = ["—" if paper is None else f"{min(paper):.2f}–{max(paper):.2f}"]
        for scheme in schemes:
            rho = part[part["scheme"] == scheme]["rho"]
            cells.append(f"{rho.min():.2f}–{rho.max():.2f}")
        share = part[part["scheme"] == "interleaved"]["top1_share"].iloc[0]
        rows.append((trace, metric, *cells, fmt(100 * share, 0)))
    return markdown_table(("trace", "metric", "paper", *schemes, "top 1 % of jobs' share of the total (%)"), rows,
                          "ll" + "r" * (len(schemes) + 2))


def table_ctc(data: Path) -> str:
    """CTC-SP2 under each machine size and subset: FCFS overall (no-guarantee / EASY / conservative) and > 128."""
    frame = pd.read_csv(data / "jsspp05_ctc_variants.csv", dtype={"width": str})
    rows = []
    for (variant, load), part in frame.groupby(["variant", "load"], sort=False):
        fcfs = part[(part["order"] == "fcfs") & (part["width"] == jsspp05.ALL_WIDTHS)]
        cells = [" / ".join(fmt(fcfs[(fcfs.metric == m) & (fcfs.backfill == d)]["value"].iloc[0], 0)
                            for d in jsspp05.DEPTHS) for m in ("fst_strict", "re")]
        wide = part[(part["width"] == ">128") & (part["metric"] == "fst_strict")]
        wide_cell = " / ".join(fmt(wide[wide.backfill == d]["value"].mean(), 0) for d in jsspp05.DEPTHS)
        first = part.iloc[0]
        rows.append((variant, f"{round(100 * load)} %", fmt(100 * first["natural_load"], 1),
                     fmt(first["runtime_factor"]), *cells, wide_cell))
    return markdown_table(("CTC-SP2", "load", "own load (%)", "run-time factor", "strict FST, FCFS (s)",
                           "resource equality, FCFS", "> 128 wide, strict FST, mean of 3 orders"), rows, "llrrrrr")


RATIO_PAIRS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "SJF / FCFS, EASY": (("sjf", "easy"), ("fcfs", "easy")),
    "LXF / FCFS, EASY": (("lxf", "easy"), ("fcfs", "easy")),
    "conservative / EASY, FCFS": (("fcfs", "conservative"), ("fcfs", "easy")),
    "no-guarantee / EASY, FCFS": (("fcfs", "no-guarantee"), ("fcfs", "easy")),
}
"""The §5 comparisons of the ratio table: label -> ((order, depth) over (order, depth))."""


def pair_ratios(frame: pd.DataFrame, pair: str, metric: str) -> pd.Series:
    """The ratio `pair` (a `RATIO_PAIRS` label) of overall `metric` unfairness, per load, in `frame` (one trace's
    overall rows or several traces')."""
    (o1, d1), (o2, d2) = RATIO_PAIRS[pair]
    m = frame[frame["metric"] == metric]
    a = m[(m["order"] == o1) & (m["backfill"] == d1)].set_index(["trace", "load"])["value"]
    b = m[(m["order"] == o2) & (m["backfill"] == d2)].set_index(["trace", "load"])["value"]
    return a / b


def table_ratios(data: Path) -> str:
    """The paper's §5 comparisons as ranges over the loads: ratio of two policies' overall unfairness, per trace and
    metric (> 1: the first policy is more unfair)."""
    frame = _overall(pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str}))
    wide = pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str})
    wide = wide[(wide["width"] == ">128") & (wide["metric"] == "fst_strict")]
    pairs = tuple((label, *pair) for label, pair in RATIO_PAIRS.items())
    rows = []
    for trace, part in frame.groupby("trace", sort=False):
        for label, _, _ in pairs:
            cells = []
            for metric in jsspp05.METRICS:
                ratio = pair_ratios(part, label, metric)
                cells.append(f"{ratio.min():.2f}–{ratio.max():.2f}")
            rows.append((trace, label, *cells))
        mine = wide[wide["trace"] == trace]
        if not mine.empty:
            by = mine.groupby(["load", "backfill"])["value"].mean().unstack()
            ratio = by["no-guarantee"] / by[["easy", "conservative"]].max(axis=1)
            rows.append((trace, "no-guarantee / max(EASY, cons.), > 128 wide, mean of 3 orders",
                         f"{ratio.min():.1f}–{ratio.max():.1f}", "", ""))
    return markdown_table(("trace", "ratio (over the 5 loads)", "strict FST", "relaxed FST", "resource equality"),
                          rows, "llrrr")


def table_cost(data: Path) -> str:
    """The FST cost by trace and depth (FCFS, the five loads summed; ``jsspp05_cost.csv``, the ``cost`` step): CPU
    seconds of the simulations and of the strict and relaxed what-ifs, the work W and the strict what-ifs' CPU
    nanoseconds per unit of W."""
    frame = pd.read_csv(data / "jsspp05_cost.csv")
    cost = frame.groupby(["trace", "backfill"], sort=False)[["simulate_cpu_s", "strict_cpu_s", "relaxed_cpu_s",
                                                             "work"]].sum()
    rows = [(trace, depth, fmt(r.simulate_cpu_s, 1), fmt(r.strict_cpu_s, 1), fmt(r.relaxed_cpu_s, 1),
             fmt(r.work / 1e6, 0), fmt(1e9 * r.strict_cpu_s / r.work, 0))
            for (trace, depth), r in cost.iterrows()]
    total = cost.sum()
    rows.append(("all", "all", fmt(total.simulate_cpu_s, 1), fmt(total.strict_cpu_s, 1),
                 fmt(total.relaxed_cpu_s, 1), fmt(total.work / 1e6, 0), ""))
    return markdown_table(("trace", "backfill", "simulations (CPU s)", "strict what-ifs (CPU s)",
                           "relaxed what-ifs (CPU s)", "W (10⁶)", "strict: ns per unit of W"), rows, "llrrrrr")


def _cost_constant(depth: str, *, least_load: float = 0.9) -> Any:
    """``low–high`` over the traces and the loads ≥ `least_load` of the strict what-ifs' CPU nanoseconds per unit
    of W under `depth` (``jsspp05_cost.csv``): the constant c of the cost model, where it is not dwarfed by the
    fixed cost of a what-if."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_cost.csv")
        part = frame[(frame["backfill"] == depth) & (frame["load"] >= least_load)]
        c = 1e9 * part["strict_cpu_s"] / part["work"]
        return f"{fmt(c.min(), 0)}–{fmt(c.max(), 0)}"
    return render


def _cost_share(depth: str) -> Any:
    """The share (%) of `depth` in the what-ifs' CPU seconds of the cost step (strict and relaxed)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_cost.csv")
        whatifs = frame["strict_cpu_s"] + frame["relaxed_cpu_s"]
        return fmt(100 * whatifs[frame["backfill"] == depth].sum() / whatifs.sum(), 0)
    return render


def _step(step: str, column: str) -> Any:
    """One figure of ``jsspp05_steps.csv`` (each step's wall and CPU seconds, as the command measured them):
    seconds as ``4.2 min`` or ``35 s``, or the recorded text (date, commit, load average)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_steps.csv", dtype=str).set_index("step")
        value = frame.loc[step, column]
        if not column.endswith("_s"):
            return str(value)
        seconds = float(value)
        return f"{fmt(seconds / 60, 1)} min" if seconds >= 120 else f"{fmt(seconds, 0)} s"
    return render


def table_osc(data: Path) -> str:
    """OSC at 90 %, FCFS × conservative: one simulation and its strict what-ifs on the first k jobs, CPU (wall)
    seconds, the queue, the cost model's work W and the CPU nanoseconds per unit of W
    (`benchmarks/bench_osc_fst.py`, ``jsspp05_osc_cost.csv``)."""
    frame = pd.read_csv(data / "jsspp05_osc_cost.csv")
    rows = [(f"{int(r.jobs):,}", f"{fmt(r.simulate_cpu_s, 2)} ({fmt(r.simulate_s, 2)})",
             f"{fmt(r.strict_whatifs_cpu_s, 1)} ({fmt(r.strict_whatifs_s, 1)})", fmt(r.mean_queue_at_arrival, 0),
             int(r.max_queue_at_arrival), fmt(r.mean_events_until_start, 1), fmt(r.work / 1e6, 1),
             fmt(r.ns_per_work, 0)) for r in frame.itertuples()]
    return markdown_table(("first k jobs", "simulation, CPU (wall) s", "strict what-ifs, CPU (wall) s",
                           "mean queue at an arrival", "longest queue", "mean events until start", "W (10⁶)",
                           "ns per unit of W"), rows, "lrrrrrrr")


def _osc_cost(jobs: int | None, column: str, *, how: str = "value", digits: int = 0, scale: float = 1.0) -> Any:
    """One figure of ``jsspp05_osc_cost.csv`` (`benchmarks/bench_osc_fst.py`): `column` (× `scale`) for the first
    `jobs` jobs, or its ``range`` (``low–high``) over the runs whose queue is not empty-ish (the first 3,000 jobs
    and more)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_osc_cost.csv").set_index("jobs")
        frame[column] = frame[column] * scale
        if how == "range":
            busy = frame[frame.index >= 3000][column]
            return f"{fmt(busy.min(), digits)}–{fmt(busy.max(), digits)}"
        if how == "max":
            return fmt(float(frame[column].max()), digits)
        return fmt(float(frame.loc[jobs, column]), digits)
    return render


def _osc_work_growth(data: Path) -> str:
    """How many times W grows from the first 3,000 OSC jobs to the largest measured run."""
    frame = pd.read_csv(data / "jsspp05_osc_cost.csv").set_index("jobs")
    busy = frame[frame.index >= 3000]["work"]
    return fmt(float(busy.iloc[-1] / busy.iloc[0]), 0)


def _osc_profile(data: Path) -> str:
    """The function holding most of the profiled OSC run's time, and its share: ``99 % of the time in `f```."""
    frame = pd.read_csv(data / "jsspp05_osc_cost.csv").dropna(subset=["profile_top_function"])
    row = frame.iloc[0]
    return f"{fmt(100 * row['profile_top_share'], 0)} % of the time in `{row['profile_top_function']}`"


def _osc_grid(what: str) -> Any:
    """The predicted CPU cost of the FST what-ifs of the whole OSC grid (15 conservative simulations, strict and
    relaxed): c (ns per unit of W, the largest OSC run of ``jsspp05_osc_cost.csv``) × W of each simulation
    (``jsspp05_osc_grid.csv``) × (1 + r), r = relaxed / strict what-if CPU on the three traces' conservative runs
    (``jsspp05_cost.csv``). `what`: ``hours`` (the grid), ``hours98`` (its 98 % runs), ``work`` (Σ W, 10⁹),
    ``ratio`` (r), ``c``, ``jobs`` (the largest measured k)."""
    def render(data: Path) -> str:
        osc = pd.read_csv(data / "jsspp05_osc_cost.csv")
        largest = osc.loc[osc["jobs"].idxmax()]
        grid = pd.read_csv(data / "jsspp05_osc_grid.csv")
        cost = pd.read_csv(data / "jsspp05_cost.csv")
        conservative = cost[cost["backfill"] == "conservative"]
        ratio = float(conservative["relaxed_cpu_s"].sum() / conservative["strict_cpu_s"].sum())
        c = float(largest["ns_per_work"]) * 1e-9
        values = {"hours": c * grid["work"].sum() * (1 + ratio) / 3600,
                  "hours98": c * grid[grid["load"] == 0.98]["work"].sum() * (1 + ratio) / 3600,
                  "work": grid["work"].sum() / 1e9, "ratio": ratio, "c": c * 1e9, "jobs": float(largest["jobs"])}
        return fmt(values[what], {"hours": 1, "hours98": 1, "work": 0, "ratio": 2, "c": 0, "jobs": 0}[what])
    return render


def _range(pair: str, metric: str, *, traces: tuple[str, ...] | None = None, digits: int = 2,
           lower_percent: bool = False) -> Any:
    """``low–high`` of a ratio of the ratio table over the loads of `traces` (None: every trace of the full run);
    `lower_percent`: as how many percent lower (1 − ratio)."""
    def render(data: Path) -> str:
        frame = _overall(pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str}))
        if traces is not None:
            frame = frame[frame["trace"].isin(traces)]
        ratio = pair_ratios(frame, pair, metric)
        if lower_percent:
            return f"{fmt(100 * (1 - ratio.max()), 0)}–{fmt(100 * (1 - ratio.min()), 0)}"
        return f"{fmt(ratio.min(), digits)}–{fmt(ratio.max(), digits)}"
    return render


def _side(pair: str, metric: str, *, traces: tuple[str, ...] | None = None, above: str = "more unfair",
          below: str = "less unfair") -> Any:
    """Which side of 1 a ratio of the ratio table falls on, over the loads of `traces` (None: every trace):
    ``more unfair at every load``, ``less unfair at every load`` or ``more unfair at 4 of the 5 loads``."""
    def render(data: Path) -> str:
        frame = _overall(pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str}))
        if traces is not None:
            frame = frame[frame["trace"].isin(traces)]
        ratio = pair_ratios(frame, pair, metric)
        unit = "load" if traces is not None and len(traces) == 1 else "(trace, load) pair"
        n_above, n = int((ratio > 1).sum()), len(ratio)
        if n_above in (0, n):
            return f"{above if n_above else below} at every {unit}"
        units = "loads" if unit == "load" else "(trace, load) pairs"
        return f"{above} at {n_above} of the {n} {units}" if 2 * n_above >= n else \
            f"{below} at {n - n_above} of the {n} {units}"
    return render


def _pair_verdicts(pair: str, metric: str, claim: str) -> Any:
    """A §5 claim checked at every (trace, load) pair of the full run, on the project's verdict scale. ``claim``:
    ``above`` (the first policy more unfair: ratio > 1), ``not above`` (ratio ≤ 1) or ``same`` (within 10 % of 1,
    `verdict`'s rule for "almost the same"). ``matches at every (trace, load) pair``, ``matches at 11 of the 15
    (trace, load) pairs, no at 4`` or ``no at every (trace, load) pair``."""
    def render(data: Path) -> str:
        ratio = pair_ratios(_overall(pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str})), pair, metric)
        if claim == "same":
            good = sum(verdict(1.0, float(r), "same") == "matches" for r in ratio)
        else:
            good = int((ratio > 1).sum() if claim == "above" else (ratio <= 1).sum())
        if good == len(ratio):
            return "matches at every (trace, load) pair"
        if good == 0:
            return "no at every (trace, load) pair"
        return f"matches at {good} of the {len(ratio)} (trace, load) pairs, no at {len(ratio) - good}"
    return render


def _wide_range(trace: str, digits: int) -> Any:
    """``low–high`` over the loads of no-guarantee / max(EASY, conservative) for jobs wider than 128 (strict FST,
    mean of the three orders)."""
    def render(data: Path) -> str:
        wide = pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str})
        wide = wide[(wide["width"] == ">128") & (wide["metric"] == "fst_strict") & (wide["trace"] == trace)]
        by = wide.groupby(["load", "backfill"])["value"].mean().unstack()
        ratio = by["no-guarantee"] / by[["easy", "conservative"]].max(axis=1)
        return f"{fmt(ratio.min(), digits)}–{fmt(ratio.max(), digits)}"
    return render


def _ctc_figure(variant: str, column: str, *, digits: int = 1, scale: float = 100.0, load: float | None = None) -> Any:
    """A figure of one CTC-SP2 machine-size/subset variant (``jsspp05_ctc_variants.csv``)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_ctc_variants.csv", dtype={"width": str})
        part = frame[(frame["variant"] == variant) & ((frame["load"] == load) if load is not None else True)]
        return fmt(float(part.iloc[0][column]) * scale, digits)
    return render


def _ctc_stretch(data: Path) -> str:
    """How many times more 430 processors stretch run times than 338 on the first 5,000 jobs (same load)."""
    frame = pd.read_csv(data / "jsspp05_ctc_variants.csv", dtype={"width": str})
    factor = frame.groupby(["variant", "load"])["runtime_factor"].first()
    ratio = factor[CTC_VARIANTS[1][0]] / factor[CTC_VARIANTS[0][0]]
    return fmt(float(ratio.mean()), 2)


def _ctc_change(numerator: str, denominator: str, metric: str, *, how: str) -> Any:
    """How CTC-SP2's overall FCFS unfairness (`metric`) changes from variant `denominator` to `numerator`, over both
    loads and the three depths: `how` = ``percent`` (signed, ``−37 % to +2``), ``grows`` (``8–26``, percents) or
    ``times`` (the ratio, ``2.5–4.2``)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_ctc_variants.csv", dtype={"width": str})
        overall = frame[(frame["order"] == "fcfs") & (frame["width"] == jsspp05.ALL_WIDTHS)
                        & (frame["metric"] == metric)]
        values = {v: overall[overall["variant"] == v].set_index(["load", "backfill"])["value"]
                  for v in (numerator, denominator)}
        ratio = values[numerator] / values[denominator]
        if how == "percent":
            low, high = 100 * (ratio.min() - 1), 100 * (ratio.max() - 1)
            return f"{fmt(low, 0).replace('-', '−')} % to {'+' if high >= 0 else ''}{fmt(high, 0)}"
        if how == "grows":
            return f"{fmt(100 * (ratio.min() - 1), 0)}–{fmt(100 * (ratio.max() - 1), 0)}"
        return f"{fmt(ratio.min(), 1)}–{fmt(ratio.max(), 1)}"
    return render


def _ctc_wide(data: Path) -> str:
    """``low–high`` over the four CTC-SP2 variants and both loads of no-guarantee / max(EASY, conservative), jobs
    wider than 128 (strict FST, mean of the three orders)."""
    frame = pd.read_csv(data / "jsspp05_ctc_variants.csv", dtype={"width": str})
    wide = frame[(frame["width"] == ">128") & (frame["metric"] == "fst_strict")]
    by = wide.groupby(["variant", "load", "backfill"])["value"].mean().unstack()
    ratio = by["no-guarantee"] / by[["easy", "conservative"]].max(axis=1)
    return f"{fmt(ratio.min(), 0)}–{fmt(ratio.max(), 0)}"


def _rho(trace: str, metric: str, *, scheme: str = "interleaved", low_only: bool = False) -> Any:
    """Table 2: ``min–max`` of our Spearman ρ over the 10 subsets (or only the min), full run."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_full_spearman.csv")
        rho = frame[(frame["scheme"] == scheme) & (frame["trace"] == trace) & (frame["metric"] == metric)]["rho"]
        text = fmt(rho.min(), 2) if low_only else f"{fmt(rho.min(), 2)}–{fmt(rho.max(), 2)}"
        return text.replace("-", "−")  # the prose's minus sign
    return render


def _top1_share(metric: str) -> Any:
    """``low–high`` percent of a simulation's total `metric` held by its top 1 % of jobs, on the paper's two
    traces (the table's last column)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_full_spearman.csv")
        share = frame[(frame["metric"] == metric) & frame["trace"].isin(PAPER_TABLE1)].groupby("trace")["top1_share"]
        first = share.first()
        return f"{fmt(100 * first.min(), 0)}–{fmt(100 * first.max(), 0)}"
    return render


def _table1(trace: str, rule: str, what: str, width: str | None = None) -> Any:
    """A figure of ``jsspp05_table1.csv``: ``more`` = the rule's jobs in `width` minus the paper's, ``l1`` = its
    distance to the paper's mix, ``window`` = the jobs it covers (``7,506–12,505``)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_table1.csv").set_index(["trace", "rule"])
        row = frame.loc[(trace, rule)]
        if what == "more":
            return f"{int(row[width]) - int(frame.loc[(trace, 'paper (Table 1)'), width]):,}"
        if what == "l1":
            return f"{int(row['l1']):,}"
        first = int(row["first_job"])
        return f"{first + 1:,}–{first + 5000:,}"  # the windows of 5,000 jobs
    return render


def _table1_bins(trace: str, rule: str) -> Any:
    """How a subset rule's width mix compares with the paper's Table 1: ``in all nine bins`` or ``in 8 of the nine
    bins``."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_table1.csv").set_index(["trace", "rule"])
        equal = sum(int(frame.loc[(trace, rule), b]) == n for b, n in zip(WIDTH_BINS, PAPER_TABLE1[trace],
                                                                            strict=True))
        return "in all nine bins" if equal == len(WIDTH_BINS) else f"in {equal} of the nine bins"
    return render


def _table1_diff(trace: str, rule: str) -> str | Any:
    """Where a subset rule's width mix differs from the paper's: ``3 jobs, all of width 1``."""
    def render(data: Path) -> str:
        row = pd.read_csv(data / "jsspp05_table1.csv").set_index(["trace", "rule"]).loc[(trace, rule)]
        diff = {b: int(row[b]) - n for b, n in zip(WIDTH_BINS, PAPER_TABLE1[trace], strict=True) if int(row[b]) != n}
        where = ", ".join(f"width {b}" for b in diff)
        return f"{sum(abs(d) for d in diff.values()):,} jobs, all of {where}" if len(diff) == 1 else \
            f"{sum(abs(d) for d in diff.values()):,} jobs ({where})"
    return render


def _paper_total(trace: str) -> Any:
    return lambda data: f"{sum(PAPER_TABLE1[trace]):,}"


def _table1_ratio(trace: str, rule: str, width: str, *, how: str) -> Any:
    """A bin of a rule against the paper's: ``fewer`` (percent fewer jobs) or ``times`` (how many times as many)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_table1.csv").set_index(["trace", "rule"])
        ours, paper = int(frame.loc[(trace, rule), width]), PAPER_TABLE1[trace][WIDTH_BINS.index(width)]
        return fmt(100 * (1 - ours / paper), 0) if how == "fewer" else fmt(ours / paper, 1)
    return render


def _cleaning(trace: str, quantity: str) -> Any:
    """A count of ``jsspp05_clean.csv`` (the ``table1`` step): jobs our cleaning drops for a reason, or the
    narrowest job of the raw log."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_clean.csv").set_index(["trace", "quantity"])
        return f"{int(frame.loc[(trace, quantity), 'jobs']):,}"
    return render


def _paper_rho(trace: str, metric: str) -> Any:
    """The paper's Table 2 range (`PAPER_TABLE2`) for one trace and metric."""
    values = PAPER_TABLE2[trace, metric]
    return lambda data: f"{min(values):.2f}–{max(values):.2f}"


RHO_SLACK = 0.05
"""Our lowest ρ "matches" the paper's Table 2 when it is at most this far below the paper's lowest."""


def _rho_rows(data: Path, metrics: tuple[str, ...], schemes: tuple[str, ...]) -> list[tuple[str, str, str, float]]:
    """(trace, metric, scheme, our lowest ρ − the paper's lowest) for the paper's two traces."""
    frame = pd.read_csv(data / "jsspp05_full_spearman.csv")
    return [(trace, metric, scheme, float(part["rho"].min()) - min(PAPER_TABLE2[trace, metric]))
            for (scheme, trace, metric), part in frame.groupby(["scheme", "trace", "metric"], sort=False)
            if (trace, metric) in PAPER_TABLE2 and metric in metrics and scheme in schemes]


def _rho_verdict(metric: str) -> Any:
    """``matches`` when, with the default (interleaved) subsets, our lowest ρ is within `RHO_SLACK` of the paper's on
    both traces; else ``no``."""
    def render(data: Path) -> str:
        rows = _rho_rows(data, (metric,), ("interleaved",))
        return "matches" if all(gap >= -RHO_SLACK for *_, gap in rows) else "no"
    return render


def _rho_no_scheme(data: Path) -> str:
    """Relaxed FST and resource equality: which uncapped subset schemes bring our lowest ρ within `RHO_SLACK` of
    the paper's (``with no uncapped way of forming the subsets`` or the exceptions)."""
    uncapped = tuple(name for name in SCHEMES if "capped" not in name)
    found = [f"{scheme} on {trace}, {metric}" for trace, metric, scheme, gap
             in _rho_rows(data, ("fst_relaxed", "re"), uncapped) if gap >= -RHO_SLACK]
    return ("with no uncapped way of forming the subsets" if not found else
            f"except with {'; '.join(found)} (of {len(uncapped)} uncapped ways × 2 traces × 2 metrics)")


def _rho_capped(data: Path) -> str:
    """With every per-job value capped at p99: how many of the paper's six (trace, metric) ranges we reach."""
    rows = _rho_rows(data, jsspp05.METRICS, ("interleaved, capped at p99",))
    reached = sum(gap >= 0 for *_, gap in rows)
    return "every metric" if reached == len(rows) else f"{reached} of the {len(rows)} (trace, metric) pairs"


def _ctc_depths(data: Path) -> str:
    """Over the four CTC-SP2 variants and both loads (FCFS): whether no-guarantee always has the largest resource
    equality unfairness, and how far apart conservative and EASY are on it."""
    frame = pd.read_csv(data / "jsspp05_ctc_variants.csv", dtype={"width": str})
    re = frame[(frame["order"] == "fcfs") & (frame["width"] == jsspp05.ALL_WIDTHS) & (frame["metric"] == "re")]
    by = re.pivot_table(index=["variant", "load"], columns="backfill", values="value")
    largest = (by["no-guarantee"] > by[["easy", "conservative"]].max(axis=1)).sum()
    gap = float((by["conservative"] / by["easy"] - 1).abs().max())
    lead = ("in all four variants and both loads no-guarantee has" if largest == len(by) else
            f"in {largest} of the {len(by)} (variant, load) pairs no-guarantee has")
    return f"{lead} the largest resource equality unfairness, conservative and EASY are within {fmt(100 * gap, 0)} %"


CTC_PAPER_JOBS_338, CTC_PAPER_JOBS_430 = CTC_VARIANTS[2][0], CTC_VARIANTS[3][0]
FULL = ("CTC-SP2",), ("SDSC-BLUE",), ("SDSC-SP2",)
VALUES = {
    "jsspp05-ng-re": _range("no-guarantee / EASY, FCFS", "re"),
    "jsspp05-ng-re-side": _side("no-guarantee / EASY, FCFS", "re"),
    "jsspp05-sjf-strict-side": _side("SJF / FCFS, EASY", "fst_strict"),
    "jsspp05-sjf-relaxed-side": _side("SJF / FCFS, EASY", "fst_relaxed"),
    "jsspp05-sjf-re-side": _side("SJF / FCFS, EASY", "re"),
    "jsspp05-lxf-strict-side": _side("LXF / FCFS, EASY", "fst_strict"),
    "jsspp05-lxf-relaxed-side": _side("LXF / FCFS, EASY", "fst_relaxed"),
    "jsspp05-lxf-re-side": _side("LXF / FCFS, EASY", "re"),
    "jsspp05-lxf-re-same": _pair_verdicts("LXF / FCFS, EASY", "re", "same"),
    "jsspp05-ng-re-above": _pair_verdicts("no-guarantee / EASY, FCFS", "re", "above"),
    "jsspp05-sjf-strict-above": _pair_verdicts("SJF / FCFS, EASY", "fst_strict", "above"),
    "jsspp05-sjf-relaxed-above": _pair_verdicts("SJF / FCFS, EASY", "fst_relaxed", "above"),
    "jsspp05-sjf-re-not-above": _pair_verdicts("SJF / FCFS, EASY", "re", "not above"),
    "jsspp05-sjf-re-same": _pair_verdicts("SJF / FCFS, EASY", "re", "same"),
    "jsspp05-cons-re-same": _pair_verdicts("conservative / EASY, FCFS", "re", "same"),
    "jsspp05-cons-relaxed-ctc-side": _side("conservative / EASY, FCFS", "fst_relaxed", traces=FULL[0]),
    "jsspp05-cons-relaxed-blue-side": _side("conservative / EASY, FCFS", "fst_relaxed", traces=FULL[1]),
    "jsspp05-cons-relaxed-sp2-side": _side("conservative / EASY, FCFS", "fst_relaxed", traces=FULL[2]),
    "jsspp05-ng-wide-ctc": _wide_range("CTC-SP2", 0),
    "jsspp05-ng-wide-blue": _wide_range("SDSC-BLUE", 1),
    "jsspp05-ng-strict-ctc": _range("no-guarantee / EASY, FCFS", "fst_strict", traces=FULL[0]),
    "jsspp05-sjf-strict": _range("SJF / FCFS, EASY", "fst_strict", digits=1),
    "jsspp05-sjf-relaxed": _range("SJF / FCFS, EASY", "fst_relaxed", digits=1),
    "jsspp05-sjf-re": _range("SJF / FCFS, EASY", "re"),
    "jsspp05-lxf-re-lower": _range("LXF / FCFS, EASY", "re", lower_percent=True),
    "jsspp05-lxf-strict": _range("LXF / FCFS, EASY", "fst_strict", digits=1),
    "jsspp05-lxf-relaxed": _range("LXF / FCFS, EASY", "fst_relaxed", digits=1),
    "jsspp05-cons-re": _range("conservative / EASY, FCFS", "re"),
    "jsspp05-cons-relaxed-ctc": _range("conservative / EASY, FCFS", "fst_relaxed", traces=FULL[0]),
    "jsspp05-cons-relaxed-sp2": _range("conservative / EASY, FCFS", "fst_relaxed", traces=FULL[2]),
    "jsspp05-cons-relaxed-blue": _range("conservative / EASY, FCFS", "fst_relaxed", traces=FULL[1]),
    "jsspp05-ctc-load-338": _ctc_figure(CTC_VARIANTS[0][0], "natural_load", digits=0),
    "jsspp05-ctc-load-430": _ctc_figure(CTC_VARIANTS[1][0], "natural_load", digits=0),
    "jsspp05-ctc-stretch": _ctc_stretch,
    "jsspp05-ctc-size-strict": _ctc_change(CTC_VARIANTS[1][0], CTC_VARIANTS[0][0], "fst_strict", how="percent"),
    "jsspp05-ctc-size-re": _ctc_change(CTC_VARIANTS[1][0], CTC_VARIANTS[0][0], "re", how="grows"),
    "jsspp05-ctc-paper-quieter": _ctc_change(CTC_VARIANTS[0][0], CTC_PAPER_JOBS_338, "fst_strict", how="times"),
    "jsspp05-ctc-wide": _ctc_wide,
    "jsspp05-table1-ctc-wide": _table1("CTC-SP2", "first 5,000, cleaned", "more", ">128"),
    "jsspp05-table1-ctc-65": _table1("CTC-SP2", "first 5,000, cleaned", "more", "65-128"),
    "jsspp05-table1-blue-closest": _table1("SDSC-BLUE", "closest window of 5,000, cleaned", "l1"),
    "jsspp05-table1-blue-raw-window": _table1("SDSC-BLUE", "closest window of 5,000, raw log", "window"),
    "jsspp05-rho-strict-ctc": _rho("CTC-SP2", "fst_strict"),
    "jsspp05-rho-strict-blue": _rho("SDSC-BLUE", "fst_strict"),
    "jsspp05-rho-relaxed-ctc-low": _rho("CTC-SP2", "fst_relaxed", low_only=True),
    "jsspp05-rho-re-ctc-low": _rho("CTC-SP2", "re", low_only=True),
    "jsspp05-rho-relaxed-blue-low": _rho("SDSC-BLUE", "fst_relaxed", low_only=True),
    "jsspp05-rho-re-blue-low": _rho("SDSC-BLUE", "re", low_only=True),
    "jsspp05-top1-relaxed": _top1_share("fst_relaxed"),
    "jsspp05-top1-re": _top1_share("re"),
    "jsspp05-rho-capped-re-ctc": _rho("CTC-SP2", "re", scheme="interleaved, capped at p99"),
    "jsspp05-rho-capped-relaxed-ctc": _rho("CTC-SP2", "fst_relaxed", scheme="interleaved, capped at p99"),
    "jsspp05-ctc-paper-load-338": _ctc_figure(CTC_PAPER_JOBS_338, "natural_load"),
    "jsspp05-ctc-paper-load-430": _ctc_figure(CTC_PAPER_JOBS_430, "natural_load"),
    "jsspp05-ctc-paper-factor-80": _ctc_figure(CTC_PAPER_JOBS_338, "runtime_factor", digits=2, scale=1.0, load=0.8),
    "jsspp05-table1-ctc-paper-bins": _table1_bins("CTC-SP2", "jobs 1,001-6,003, cleaned"),
    "jsspp05-table1-ctc-paper-total": _paper_total("CTC-SP2"),
    "jsspp05-table1-ctc-5000-diff": _table1_diff("CTC-SP2", "jobs 1,001-6,000, cleaned"),
    "jsspp05-table1-blue-raw-bins": _table1_bins("SDSC-BLUE", "closest window of 5,000, raw log"),
    "jsspp05-table1-blue-58-fewer": _table1_ratio("SDSC-BLUE", "first 5,000, cleaned", "5-8", how="fewer"),
    "jsspp05-table1-blue-1732-times": _table1_ratio("SDSC-BLUE", "first 5,000, cleaned", "17-32", how="times"),
    "jsspp05-clean-blue-cancelled": _cleaning("SDSC-BLUE", "dropped: cancelled before start"),
    "jsspp05-clean-blue-narrowest": _cleaning("SDSC-BLUE", "narrowest job of the raw log (processors)"),
    "jsspp05-paper-rho-ctc-strict": _paper_rho("CTC-SP2", "fst_strict"),
    "jsspp05-paper-rho-ctc-relaxed": _paper_rho("CTC-SP2", "fst_relaxed"),
    "jsspp05-paper-rho-ctc-re": _paper_rho("CTC-SP2", "re"),
    "jsspp05-paper-rho-blue-strict": _paper_rho("SDSC-BLUE", "fst_strict"),
    "jsspp05-paper-rho-blue-relaxed": _paper_rho("SDSC-BLUE", "fst_relaxed"),
    "jsspp05-paper-rho-blue-re": _paper_rho("SDSC-BLUE", "re"),
    "jsspp05-rho-verdict-strict": _rho_verdict("fst_strict"),
    "jsspp05-rho-verdict-relaxed": _rho_verdict("fst_relaxed"),
    "jsspp05-rho-verdict-re": _rho_verdict("re"),
    "jsspp05-rho-no-scheme": _rho_no_scheme,
    "jsspp05-rho-capped": _rho_capped,
    "jsspp05-ctc-depths": _ctc_depths,
    "jsspp05-osc-mean-queue": _osc_cost(None, "mean_queue_at_arrival", how="range"),
    "jsspp05-osc-longest-queue": _osc_cost(None, "max_queue_at_arrival", how="max"),
    "jsspp05-osc-factor": _osc_cost(1000, "runtime_factor", digits=1),  # one factor for the whole subset
    "jsspp05-osc-own-load": _osc_cost(1000, "own_load", digits=1, scale=100.0),
    "jsspp05-osc-ns-range": _osc_cost(None, "ns_per_work", how="range"),
    "jsspp05-osc-profile": _osc_profile,
    "jsspp05-osc-work-growth": _osc_work_growth,
    "jsspp05-osc-grid-hours": _osc_grid("hours"),
    "jsspp05-osc-grid-hours98": _osc_grid("hours98"),
    "jsspp05-osc-grid-work": _osc_grid("work"),
    "jsspp05-osc-grid-ratio": _osc_grid("ratio"),
    "jsspp05-osc-grid-c": _osc_grid("c"),
    "jsspp05-osc-grid-jobs": _osc_grid("jobs"),
    "jsspp05-cost-c-conservative": _cost_constant("conservative"),
    "jsspp05-cost-share-conservative": _cost_share("conservative"),
    "jsspp05-step-full-wall": _step("full", "wall_s"),
    "jsspp05-step-full-cpu": _step("full", "cpu_s"),
    "jsspp05-step-ctc-wall": _step("ctc", "wall_s"),
    "jsspp05-step-ctc-cpu": _step("ctc", "cpu_s"),
    "jsspp05-step-cost-wall": _step("cost", "wall_s"),
    "jsspp05-step-cost-cpu": _step("cost", "cpu_s"),
    "jsspp05-step-full-date": _step("full", "date"),
    "jsspp05-step-full-commit": _step("full", "commit"),
    "jsspp05-step-full-load": _step("full", "load_before"),
}

TABLES = {"jsspp05-table1": table_table1, "jsspp05-overall": table_overall,
          "jsspp05-quick-overall": lambda d: table_overall(d, loads=jsspp05.QUICK_LOADS),
          "jsspp05-spearman": table_spearman,
          "jsspp05-quick-spearman": lambda d: table_spearman(d, "jsspp05_quick_spearman.csv"),
          "jsspp05-ctc": table_ctc, "jsspp05-ratios": table_ratios,
          "jsspp05-cost": table_cost, "jsspp05-osc": table_osc}


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate._jsspp05_ablations STEP... --out DIR [--traces DIR] [--workers N]``."""
    from fairsched._io import write_csv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("steps", nargs="+", choices=STEPS)
    parser.add_argument("--out", type=Path, default=Path("docs/replication/data"))
    parser.add_argument("--traces", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    traces = args.traces if args.traces is not None else jsspp05.default_traces_dir()
    runs: dict[str, Callable[[], object]] = {
        "table1": lambda: (write_csv(table1_windows(traces), args.out / "jsspp05_table1.csv"),
                           write_csv(cleaning_report(traces), args.out / "jsspp05_clean.csv")),
        "full": lambda: full_run(traces, args.out, args.workers), "ctc": lambda: ctc_run(traces, args.out),
        "cost": lambda: cost_run(traces, args.out)}
    for step in STEPS:
        if step in args.steps:
            _record_step(step, runs[step], args.out / "jsspp05_steps.csv",
                         workers=args.workers if step == "full" else 1)


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
