"""Figures and files of ``fairsched trace info --out DIR`` and ``fairsched unfairness re|fst --out DIR``.

What a reader of a trace (or of its unfairness) wants to see beside the numbers: when the jobs arrive, and how
long jobs of each width wait and are slowed down (wide jobs waiting longer is what backfilling is accused of,
JSSPP'05 §5). Rendering only: the tables come from `fairsched.workload.info` (`recorded_waits`, `arrivals`)
and `fairsched.backfill.metrics.waits_by_width`. Importing this module imports matplotlib, so the commands
import it only with ``--out`` (``trace info`` without ``--out`` must stay fast).

Layout of ``trace info --out DIR`` (`write_trace_info_outputs`):

* ``arrivals.csv`` / ``arrivals.png``  jobs and work (processor-seconds) submitted per day since the first submit;
* ``by_width.csv`` / ``by_width.png``  per JSSPP'05 width bin: jobs, mean and median recorded wait, mean bounded
  slowdown (the jobs whose trace records a wait and a run time);
* ``report.json``  the JSON of ``trace info --json`` plus ``outputs``; written last.

``unfairness re --out DIR`` (`write_trace_unfairness_outputs`) writes ``re.csv`` (per job: ``job, submit, start,
end, procs, deserved, consumed, deficit``), ``by_width.csv`` (as above, plus the mean resource-equality
unfairness per bin), ``by_width.png``, ``unfairness_by_width.png``, ``arrivals.csv``, ``arrivals.png`` and
``report.json``. ``unfairness fst --out DIR`` writes what ``backfill --out`` writes plus ``by_width.csv``,
``by_width.png`` and ``unfairness_by_width.png`` (`write_fst_outputs`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from fairsched.backfill.experiment import BackfillReport, TraceUnfairness
from fairsched.backfill.metrics import BOUNDED_SLOWDOWN_TAU, waits_by_width
from fairsched.report.backfill import UNFAIRNESS_NAMES, backfill_json, trace_unfairness_json, write_backfill_outputs
from fairsched.report.export import DPI, write_csv, write_json, write_png
from fairsched.report.tables import jsonable
from fairsched.workload.info import arrivals, recorded_waits
from fairsched.workload.model import Workload


def write_trace_info_outputs(info: Mapping[str, Any], workload: Workload, out_dir: str | Path) -> dict[str, Path]:
    """Write the ``trace info --out`` files (module docstring) into `out_dir`; return name -> path."""
    out = Path(out_dir)
    waits = recorded_waits(workload)
    jobs = workload.jobs
    written = _write_arrivals(out, jobs["submit_time"].to_numpy(np.float64),
                              (jobs["run_time"].clip(lower=0) * jobs["processors"].clip(lower=0)).to_numpy(
                                  np.float64), _short(workload.source))
    table = waits_by_width(waits["wait"].to_numpy(), waits["run"].to_numpy(), waits["procs"].to_numpy())
    written.update(_write_by_width(out, table, f"Recorded waits of {_short(workload.source)} "
                                               f"({len(waits):,} of {len(jobs):,} jobs record a wait)"))
    written["report.json"] = out / "report.json"
    write_json(jsonable({**info, "outputs": written}), written["report.json"])
    return written


def write_trace_unfairness_outputs(result: TraceUnfairness, out_dir: str | Path) -> dict[str, Path]:
    """Write the ``unfairness re --out`` files (module docstring) into `out_dir`; return name -> path."""
    out = Path(out_dir)
    schedule = result.schedule
    per_job = pd.concat([schedule.reset_index(drop=True),
                         result.re.drop(columns=["job"], errors="ignore").reset_index(drop=True)], axis=1)
    written = {"re.csv": out / "re.csv"}
    write_csv(per_job, written["re.csv"])
    submit, start, end, procs = (schedule[c].to_numpy(np.float64) for c in ("submit", "start", "end", "procs"))
    written.update(_write_arrivals(out, submit, (end - start) * procs, _short(result.source)))
    table = waits_by_width(start - submit, end - start, schedule["procs"].to_numpy())
    table = _with_unfairness(table, result.unfairness, ("re",))
    title = f"Recorded schedule of {_short(result.source)} ({len(schedule):,} jobs)"
    written.update(_write_by_width(out, table, title))
    written.update(_write_unfairness(out, result.unfairness, ("re",), title))
    written["report.json"] = out / "report.json"
    write_json({**trace_unfairness_json(result), "outputs": {k: str(v) for k, v in written.items()}},
               written["report.json"])
    return written


def write_fst_outputs(report: BackfillReport, out_dir: str | Path) -> dict[str, Path]:
    """Write the ``unfairness fst --out`` files: `write_backfill_outputs`' plus the by-width table and figures."""
    out = Path(out_dir)
    schedule = report.result.schedule
    metrics = tuple(key for key in UNFAIRNESS_NAMES if key in report.unfairness)
    table = waits_by_width(schedule["wait"].to_numpy(), (schedule["end"] - schedule["start"]).to_numpy(),
                           schedule["procs"].to_numpy())
    table = _with_unfairness(table, report.unfairness, metrics)
    title = (f"{report.config.order} × {report.config.backfill} on {_short(report.workload.source)} "
             f"({len(schedule):,} jobs)")
    extra = {**_write_by_width(out, table, title), **_write_unfairness(out, report.unfairness, metrics, title)}
    written = write_backfill_outputs(report, out)  # its report.json comes last: name the extra files in it too
    written = {**extra, **written}
    write_json(backfill_json(report, written), written["report.json"])
    return written


def _with_unfairness(table: pd.DataFrame, unfairness: Mapping[str, Any], metrics: Sequence[str]) -> pd.DataFrame:
    """`table` (one row per width bin) plus a ``<metric>_unfairness`` column of mean unfairness per bin."""
    table = table.copy()
    for key in metrics:
        by_width = unfairness[key]["by_width"]
        table[f"{key}_unfairness"] = [by_width.get(label) for label in table["width"]]
    return table


def _write_arrivals(out: Path, submit: np.ndarray, work: np.ndarray, source: str) -> dict[str, Path]:
    frame = arrivals(submit, work)
    written = {"arrivals.csv": out / "arrivals.csv", "arrivals.png": out / "arrivals.png"}
    write_csv(frame, written["arrivals.csv"])
    write_png(arrivals_figure(frame, source), written["arrivals.png"])
    return written


def _write_by_width(out: Path, table: pd.DataFrame, title: str) -> dict[str, Path]:
    written = {"by_width.csv": out / "by_width.csv", "by_width.png": out / "by_width.png"}
    write_csv(table, written["by_width.csv"])
    write_png(by_width_figure(table, title), written["by_width.png"])
    return written


def _write_unfairness(out: Path, unfairness: Mapping[str, Any], metrics: Sequence[str],
                      title: str) -> dict[str, Path]:
    if not metrics:
        return {}
    path = out / "unfairness_by_width.png"
    write_png(unfairness_figure(unfairness, metrics, title), path)
    return {"unfairness_by_width.png": path}


def arrivals_figure(frame: pd.DataFrame, source: str) -> Figure:
    """Jobs (bars) and work (line, right axis) submitted per day since the first submit."""
    fig, ax = _figure(9.0, 3.8)
    ax.bar(frame["day"], frame["jobs"], width=1.0, align="edge", color="#4c72b0", label="jobs")
    ax.set_xlabel("days since the first submit")
    ax.set_ylabel("jobs submitted per day")
    work = ax.twinx()
    work.plot(frame["day"] + 0.5, frame["work"] / 3600.0, color="#dd8452", linewidth=1.0, label="work")
    work.set_ylabel("work submitted (processor-hours per day)")
    work.set_ylim(bottom=0)
    ax.set_title(f"Arrivals over time: {source} ({int(frame['jobs'].sum()):,} jobs)", fontsize=10)
    ax.legend(handles=[*ax.get_legend_handles_labels()[0], *work.get_legend_handles_labels()[0]], fontsize=8,
              loc="upper right")
    return fig


def by_width_figure(table: pd.DataFrame, title: str) -> Figure:
    """Mean and median wait, and mean bounded slowdown, per job width bin (jobs per bin under each label)."""
    fig = Figure(figsize=(10.0, 3.8), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    wait_ax, slow_ax = fig.subplots(1, 2)
    x = np.arange(len(table))
    labels = [f"{w}\n{_count(n)}" for w, n in zip(table["width"], table["n_jobs"], strict=True)]
    wait_ax.bar(x - 0.2, table["mean_wait"] / 3600.0, width=0.4, label="mean")
    wait_ax.bar(x + 0.2, table["median_wait"] / 3600.0, width=0.4, label="median")
    wait_ax.set_ylabel("wait (hours)")
    wait_ax.legend(fontsize=8)
    slow_ax.bar(x, table["mean_bounded_slowdown"], width=0.6, color="#55a868")
    slow_ax.set_ylabel(f"mean bounded slowdown (τ = {BOUNDED_SLOWDOWN_TAU} s)")
    for ax in (wait_ax, slow_ax):
        ax.set_xticks(x, labels, fontsize=7)
        ax.set_xlabel("job width (processors) and jobs")
        ax.grid(axis="y", linewidth=0.4, alpha=0.6)
    fig.suptitle(f"Wait and slowdown by job width: {title}", fontsize=10)
    return fig


def unfairness_figure(unfairness: Mapping[str, Any], metrics: Sequence[str], title: str) -> Figure:
    """Mean unfairness per job width bin, one panel per metric (JSSPP'05 Figs. 9–10: s for FST, processor-s
    for RE); empty bins are left out."""
    fig = Figure(figsize=(4.5 * len(metrics) + 1.0, 3.8), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = np.atleast_1d(fig.subplots(1, len(metrics)))
    counts = unfairness.get("width_jobs", {})
    labels = [label for label, n in counts.items() if n]
    x = np.arange(len(labels))
    for ax, key in zip(axes, metrics, strict=True):
        values = [unfairness[key]["by_width"].get(label) for label in labels]
        ax.bar(x, [np.nan if v is None else v for v in values], width=0.6, color="#c44e52")
        ax.set_xticks(x, [f"{label}\n{_count(counts[label])}" for label in labels], fontsize=7)
        ax.set_xlabel("job width (processors) and jobs")
        ax.set_ylabel("mean unfairness (" + ("processor-s" if key == "re" else "s") + ")")
        ax.set_title(f"{UNFAIRNESS_NAMES[key]}: {unfairness[key]['unfairness']:,.4g} overall", fontsize=9)
        ax.grid(axis="y", linewidth=0.4, alpha=0.6)
    fig.suptitle(f"Unfairness by job width (JSSPP'05 §3): {title}", fontsize=10)
    return fig


def _figure(width: float, height: float) -> tuple[Figure, Any]:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _short(source: str) -> str:
    return Path(source.split(" | ")[0]).name if source else "the workload"


def _count(n: int) -> str:
    """A job count short enough for a tick label: 437, 5.5k, 32k."""
    n = int(n)
    return f"{n:,}" if n < 1000 else f"{n / 1000:.1f}k" if n < 10_000 else f"{n // 1000}k"
