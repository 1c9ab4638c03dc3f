"""The tables of docs/replication/jsspp05.md (`TABLES`), rendered from the ``jsspp05_*.csv`` files that
``python -m fairsched.replicate.jsspp05.ablations`` writes to ``docs/replication/data``; the numbers in its prose
are in `fairsched.replicate.jsspp05.doc_values`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from fairsched.backfill.fairness import WIDTH_BINS
from fairsched.replicate._doc_format import fmt, markdown_table
from fairsched.replicate.jsspp05.paper import (
    ALL_WIDTHS,
    DEPTHS,
    LOADS,
    METRICS,
    ORDERS,
    PAPER_TABLE2,
    QUICK_LOADS,
    QUICK_TRACES,
)

__all__ = ["RATIO_PAIRS", "TABLES", "overall", "pair_ratios"]

def table_table1(data: Path) -> str:
    """Table 1: the paper's width mix and ours under each subset rule."""
    frame = pd.read_csv(data / "jsspp05_table1.csv")
    rows = [(r["trace"], r["rule"], "—" if pd.isna(r["first_job"]) else f"{int(r['first_job']):,}",
             *(f"{int(r[b]):,}" for b in WIDTH_BINS), int(r["l1"])) for _, r in frame.iterrows()]
    return markdown_table(("trace", "subset", "first job", *WIDTH_BINS, "L1 to paper"), rows, "ll" + "r" * 11)


def overall(frame: pd.DataFrame, **match: Any) -> pd.DataFrame:
    """The rows of `frame` over all jobs (width ``all``) that match every ``column=value`` of `match`."""
    keep = frame["width"] == ALL_WIDTHS
    for key, value in match.items():
        keep &= frame[key] == value
    return frame[keep]


def table_overall(data: Path, name: str = "jsspp05_full_rows.csv", loads: tuple[float, ...] | None = None) -> str:
    """Overall unfairness, FCFS order, no-guarantee / EASY / conservative, per trace and load."""
    frame = overall(pd.read_csv(data / name, dtype={"width": str}), order="fcfs")
    rows = []
    for (trace, load), part in frame.groupby(["trace", "load"], sort=False):
        if loads is not None and (load not in loads or trace not in QUICK_TRACES):
            continue
        cells = []
        for metric in METRICS:
            values = part[part["metric"] == metric].set_index("backfill")["value"]
            cells.append(" / ".join(fmt(values[d], 0) for d in DEPTHS))
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
        fcfs = part[(part["order"] == "fcfs") & (part["width"] == ALL_WIDTHS)]
        cells = [" / ".join(fmt(fcfs[(fcfs.metric == m) & (fcfs.backfill == d)]["value"].iloc[0], 0)
                            for d in DEPTHS) for m in ("fst_strict", "re")]
        wide = part[(part["width"] == ">128") & (part["metric"] == "fst_strict")]
        wide_cell = " / ".join(fmt(wide[wide.backfill == d]["value"].mean(), 0) for d in DEPTHS)
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
    frame = overall(pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str}))
    wide = pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str})
    wide = wide[(wide["width"] == ">128") & (wide["metric"] == "fst_strict")]
    pairs = tuple((label, *pair) for label, pair in RATIO_PAIRS.items())
    rows = []
    for trace, part in frame.groupby("trace", sort=False):
        for label, _, _ in pairs:
            cells = []
            for metric in METRICS:
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



def table_osc_grid(data: Path) -> str:
    """The OSC grid (``jsspp05_osc_rows.csv``, the ``osc`` step): overall unfairness per load and order,
    no-guarantee / EASY / conservative, each metric; a simulation not run (yet) shows as ``·``."""
    path = data / "jsspp05_osc_rows.csv"
    frame = overall(pd.read_csv(path, dtype={"width": str})) if path.is_file() else None
    rows = []
    for load in LOADS:
        for order in ORDERS:
            cells = []
            for metric in METRICS:
                values = {} if frame is None else frame[(frame["load"] == load) & (frame["order"] == order)
                                                        & (frame["metric"] == metric)].set_index("backfill")["value"]
                cells.append(" / ".join(fmt(values[d], 0) if d in values else "·" for d in DEPTHS))
            rows.append((f"{round(100 * load)} %", order.upper(), *cells))
    return markdown_table(("load", "order", "strict FST (s)", "relaxed FST (s)", "resource equality (processor-s)"),
                          rows, "llrrr")


def table_osc_parts(data: Path) -> str:
    """The parts of the OSC grid that finished (``jsspp05_osc_parts.csv``): simulations, wall and CPU minutes
    (the workers included), the load average at the end, date and commit."""
    path = data / "jsspp05_osc_parts.csv"
    if not path.is_file():
        return "No part of the OSC grid has finished yet.\n"
    frame = pd.read_csv(path, dtype={"commit": str})
    rows = [(r.part, int(r.simulations), fmt(r.wall_s / 60, 1), fmt(r.cpu_s / 60, 1), fmt(r.load_after, 1), r.date,
             r.commit) for r in frame.itertuples()]
    rows.append(("all finished parts", int(frame["simulations"].sum()), fmt(frame["wall_s"].sum() / 60, 1),
                 fmt(frame["cpu_s"].sum() / 60, 1), "", "", ""))
    return markdown_table(("part", "simulations", "wall (min)", "CPU (min)", "load average after", "finished",
                           "commit"), rows, "lrrrrll")


TABLES = {"jsspp05-table1": table_table1, "jsspp05-overall": table_overall,
          "jsspp05-quick-overall": lambda d: table_overall(d, loads=QUICK_LOADS),
          "jsspp05-spearman": table_spearman,
          "jsspp05-quick-spearman": lambda d: table_spearman(d, "jsspp05_quick_spearman.csv"),
          "jsspp05-ctc": table_ctc, "jsspp05-ratios": table_ratios,
          "jsspp05-cost": table_cost, "jsspp05-osc": table_osc, "jsspp05-osc-grid": table_osc_grid,
          "jsspp05-osc-parts": table_osc_parts,
          "jsspp05-osc-spearman": lambda d: (table_spearman(d, "jsspp05_osc_spearman.csv")
                                             if (d / "jsspp05_osc_spearman.csv").is_file()
                                             else "Table 2 needs the whole grid (45 simulations); not run yet.\n")}

