"""The numbers in the prose of docs/replication/jsspp05.md (`VALUES`: NAME -> renderer), each computed from the
``jsspp05_*.csv`` files of ``docs/replication/data`` (`fairsched.replicate.jsspp05.ablations` writes them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from fairsched.backfill.fairness import WIDTH_BINS
from fairsched.replicate._common import verdict
from fairsched.replicate._doc_format import fmt
from fairsched.replicate.jsspp05.ablations import CTC_VARIANTS, SCHEMES
from fairsched.replicate.jsspp05.doc import overall, pair_ratios
from fairsched.replicate.jsspp05.paper import ALL_WIDTHS, METRICS, PAPER_TABLE1, PAPER_TABLE2

__all__ = ["VALUES"]


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


def _osc_done(data: Path) -> str:
    """How many of the OSC grid's 45 simulations have rows in ``jsspp05_osc_simulations.csv`` (the ``osc`` step,
    or ``osc --harvest`` of an unfinished one)."""
    path = data / "jsspp05_osc_simulations.csv"
    return str(len(pd.read_csv(path)) if path.is_file() else 0)


def _range(pair: str, metric: str, *, traces: tuple[str, ...] | None = None, digits: int = 2,
           lower_percent: bool = False) -> Any:
    """``low–high`` of a ratio of the ratio table over the loads of `traces` (None: every trace of the full run);
    `lower_percent`: as how many percent lower (1 − ratio)."""
    def render(data: Path) -> str:
        frame = overall(pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str}))
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
        frame = overall(pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str}))
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
        ratio = pair_ratios(overall(pd.read_csv(data / "jsspp05_full_rows.csv", dtype={"width": str})), pair, metric)
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
        overall = frame[(frame["order"] == "fcfs") & (frame["width"] == ALL_WIDTHS)
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
    rows = _rho_rows(data, METRICS, ("interleaved, capped at p99",))
    reached = sum(gap >= 0 for *_, gap in rows)
    return "every metric" if reached == len(rows) else f"{reached} of the {len(rows)} (trace, metric) pairs"


def _ctc_depths(data: Path) -> str:
    """Over the four CTC-SP2 variants and both loads (FCFS): whether no-guarantee always has the largest resource
    equality unfairness, and how far apart conservative and EASY are on it."""
    frame = pd.read_csv(data / "jsspp05_ctc_variants.csv", dtype={"width": str})
    re = frame[(frame["order"] == "fcfs") & (frame["width"] == ALL_WIDTHS) & (frame["metric"] == "re")]
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
    "jsspp05-osc-done": _osc_done,
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

