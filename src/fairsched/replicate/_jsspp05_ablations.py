"""JSSPP'05 §4–§5: the runs and ablations behind docs/replication/jsspp05.md.

Three steps, each writing CSV files to ``docs/replication/data`` (``jsspp05_*.csv``):

* ``table1`` (seconds): the paper's Table 1 width mix beside ours for several subset rules — the first 5,000 jobs
  after cleaning, and the window of consecutive jobs (cleaned or raw log) whose mix is closest to the paper's;
* ``full`` (4–8 min on 2 cores): `fairsched.replicate.jsspp05.run` on CTC-SP2, SDSC-BLUE and SDSC-SP2 (45
  simulations each); the overall and by-width rows, and Table 2 under several subset schemes (`SCHEMES`: the
  default interleaved subsets, consecutive blocks, a seeded random split, and interleaved with every per-job value
  capped at its simulation's 99th percentile); the quick run's numbers are the 80 % / 95 % rows of the same
  simulations (the simulations are deterministic), so they are derived, not rerun;
* ``ctc`` (10–20 min, one process): CTC-SP2 at 80 % and 95 % with the header's 338 processors or the paper's 430
  batch nodes, on the first 5,000 jobs or on the paper's subset (`CTC_VARIANTS`, plain overrides of
  `fairsched.replicate.jsspp05_cell.Config`).

Regenerate::

    python -m fairsched.replicate._jsspp05_ablations table1 full ctc --out docs/replication/data
    python -m fairsched.replicate._doc_tables docs/replication/jsspp05.md
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.backfill.fairness import WIDTH_BINS, width_bin
from fairsched.replicate import jsspp05
from fairsched.replicate._doc_tables import fmt, markdown_table
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf

__all__ = ["CTC_VARIANTS", "PAPER_TABLE1", "PAPER_TABLE2", "SCHEMES", "TABLES", "table1_windows"]

# JSSPP'05 Table 1 (jobs per width bin) and Table 2 (Spearman rho, subsets 0..9), as printed; "SDSC" is SDSC Blue
# (the trace §4 says it shows, beside CTC).
PAPER_TABLE1: dict[str, tuple[int, ...]] = {"CTC-SP2": (2209, 435, 722, 487, 609, 309, 157, 45, 30),
                                            "SDSC-BLUE": (3, 0, 0, 2489, 653, 569, 616, 396, 277)}
PAPER_TABLE2: dict[tuple[str, str], tuple[float, ...]] = {
    ("CTC-SP2", "fst_strict"): (0.96, 0.97, 0.93, 0.93, 0.95, 0.94, 0.97, 0.96, 0.98, 0.94),
    ("CTC-SP2", "fst_relaxed"): (0.96, 0.95, 0.87, 0.76, 0.85, 0.83, 0.96, 0.97, 0.91, 0.95),
    ("CTC-SP2", "re"): (0.96, 0.97, 0.89, 0.88, 0.88, 0.91, 0.98, 0.97, 0.95, 0.96),
    ("SDSC-BLUE", "fst_strict"): (0.95, 0.98, 0.97, 0.97, 0.97, 0.96, 0.97, 0.99, 0.94, 0.85),
    ("SDSC-BLUE", "fst_relaxed"): (0.91, 0.96, 0.96, 0.98, 0.97, 0.95, 0.96, 0.98, 0.88, 0.74),
    ("SDSC-BLUE", "re"): (0.93, 0.98, 0.96, 0.98, 0.97, 0.98, 0.95, 0.97, 0.93, 0.76),
}
FULL_TRACES = ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2")
CTC_VARIANTS: tuple[tuple[str, Mapping[str, Any]], ...] = (  # overrides of `jsspp05_cell.Config`
    ("338 processors, first 5,000", {}),
    ("430 processors, first 5,000", {"processors": 430}),
    ("338 processors, jobs 1,001-6,000", {"skip_jobs": 1000}),
    ("430 processors, jobs 1,001-6,000", {"processors": 430, "skip_jobs": 1000}),
)
CAP_QUANTILE = 0.99


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
    from fairsched.report.export import write_csv

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


def ctc_run(traces_dir: Path, out: Path) -> None:
    """CTC-SP2 at 80 % and 95 % under each of `CTC_VARIANTS` (one `jsspp05_cell` simulation per load, order and
    depth): the overall and > 128 rows, the machine size, the subset's own load and the run-time factor."""
    from fairsched.replicate import jsspp05_cell
    from fairsched.report.export import write_csv

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
    """Seconds (wall, summed over the worker processes) of the full run by trace and depth: simulations, what-ifs."""
    frame = pd.read_csv(data / "jsspp05_full_simulations.csv")
    cost = frame.groupby(["trace", "backfill"], sort=False)[["simulate_s", "fairness_s"]].sum()
    rows = [(trace, depth, fmt(r.simulate_s, 1), fmt(r.fairness_s, 0), fmt(100 * r.fairness_s
                                                                            / frame["fairness_s"].sum(), 0))
            for (trace, depth), r in cost.iterrows()]
    rows.append(("all", "all", fmt(frame["simulate_s"].sum(), 1), fmt(frame["fairness_s"].sum(), 0), "100"))
    return markdown_table(("trace", "backfill", "simulations (s)", "FST what-ifs (s)", "share of what-ifs (%)"),
                          rows, "llrrr")


def table_osc(data: Path) -> str:
    """OSC at 90 %, FCFS × conservative: one simulation and its strict what-ifs on the first k jobs
    (`benchmarks/bench_osc_fst.py --jobs 1000,2000 --csv ...` and ``--jobs 3000,4000``, merged)."""
    frame = pd.read_csv(data / "jsspp05_osc_cost.csv")
    rows = [(f"{int(r.jobs):,}", fmt(r.simulate_s, 2), fmt(r.strict_whatifs_s, 1), fmt(r.mean_queue_at_arrival, 0),
             int(r.max_queue_at_arrival)) for r in frame.itertuples()]
    return markdown_table(("first k jobs", "simulation (s)", "strict what-ifs (s)", "mean queue at an arrival",
                           "longest queue"), rows, "lrrrr")


def _osc_cost(jobs: int | None, column: str, *, how: str = "value", digits: int = 0) -> Any:
    """One figure of ``jsspp05_osc_cost.csv`` (`benchmarks/bench_osc_fst.py`): `column` for the first `jobs` jobs,
    or its ``range`` (``low–high``) over the runs whose queue is not empty-ish (the first 3,000 jobs and more)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "jsspp05_osc_cost.csv").set_index("jobs")
        if how == "range":
            busy = frame[frame.index >= 3000][column]
            return f"{fmt(busy.min(), digits)}–{fmt(busy.max(), digits)}"
        if how == "max":
            return fmt(float(frame[column].max()), digits)
        return fmt(float(frame.loc[jobs, column]), digits)
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


CTC_PAPER_JOBS_338, CTC_PAPER_JOBS_430 = CTC_VARIANTS[2][0], CTC_VARIANTS[3][0]
FULL = ("CTC-SP2",), ("SDSC-BLUE",), ("SDSC-SP2",)
VALUES = {
    "jsspp05-ng-re": _range("no-guarantee / EASY, FCFS", "re"),
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
    "jsspp05-osc-whatifs-3000": _osc_cost(3000, "strict_whatifs_s"),
    "jsspp05-osc-whatifs-4000": _osc_cost(4000, "strict_whatifs_s"),
    "jsspp05-osc-mean-queue": _osc_cost(None, "mean_queue_at_arrival", how="range"),
    "jsspp05-osc-longest-queue": _osc_cost(None, "max_queue_at_arrival", how="max"),
}

TABLES = {"jsspp05-table1": table_table1, "jsspp05-overall": table_overall,
          "jsspp05-quick-overall": lambda d: table_overall(d, loads=jsspp05.QUICK_LOADS),
          "jsspp05-spearman": table_spearman,
          "jsspp05-quick-spearman": lambda d: table_spearman(d, "jsspp05_quick_spearman.csv"),
          "jsspp05-ctc": table_ctc, "jsspp05-ratios": table_ratios,
          "jsspp05-cost": table_cost, "jsspp05-osc": table_osc}


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate._jsspp05_ablations STEP... --out DIR [--traces DIR] [--workers N]``."""
    from fairsched.report.export import write_csv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("steps", nargs="+", choices=("table1", "full", "ctc"))
    parser.add_argument("--out", type=Path, default=Path("docs/replication/data"))
    parser.add_argument("--traces", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    traces = args.traces if args.traces is not None else jsspp05.default_traces_dir()
    if "table1" in args.steps:
        write_csv(table1_windows(traces), args.out / "jsspp05_table1.csv")
    if "full" in args.steps:
        full_run(traces, args.out, args.workers)
    if "ctc" in args.steps:
        ctc_run(traces, args.out)


if __name__ == "__main__":
    main()
