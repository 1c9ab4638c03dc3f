"""Rendering and writing of backfilling results: tables, JSON, Gantt chart, SWF and Batsim exports, replication.

Everything here presents what `fairsched.backfill.experiment` and `fairsched.replicate.jsspp05` computed; files
are written atomically (`fairsched._io.atomic_write`). Layout of ``fairsched backfill --out DIR``
(`write_backfill_outputs`):

* ``schedule.csv``  ``job,submit,start,end,procs``: one row per job in submission order; ``job`` is the SWF job
  number, times are the trace's clock in seconds.
* ``fairness.csv``  (with ``--fairness``) ``job`` and, for the metrics asked for, ``fst_strict``, ``fst_relaxed``
  (fair start times, JSSPP'05 §3.1), ``re_deserved``, ``re_consumed`` (processor-seconds, §3.2).
* ``jobs.csv``      Batsim's job output, readable by evalys' ``JobSet.from_csv`` (columns and formulas:
  `fairsched.report.batsim`). Processors are assigned first-fit for drawing (`assign_processors`: the model has
  no processor identities); ``allocated_resources`` is an interval set such as ``0-3 8``.
* ``schedule.swf``  the simulated workload as SWF: submit, wait (= start - submit), run, processors and requested
  time as simulated (integer seconds, after load scaling); the other fields as in the trace.
* ``gantt.png``     processors × time, one rectangle per job and contiguous processor range (`gantt_figure`).
* ``report.json``   `backfill_json`, with the paths of the files above; written last, so its presence means the
  directory is complete.

The JSSPP'05 replication (`write_jsspp05_outputs`) writes ``rows.csv``, ``spearman.csv``, ``simulations.csv``,
one figure per metric (value vs load, one line per policy) and one per metric by job width, and ``report.json``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from rich.console import Group
from rich.table import Table

import fairsched
from fairsched.backfill import experiment as backfill_experiment
from fairsched.backfill.experiment import SLURM_RULE_FIELDS, BackfillReport, TraceUnfairness
from fairsched.errors import InvariantError
from fairsched.report.export import DPI, write_csv, write_json, write_png
from fairsched.report.tables import jsonable, key_value_table
from fairsched.workload.model import Workload
from fairsched.workload.swf import write_swf

if TYPE_CHECKING:  # the JSON and the terminal tables need no pandas; the files of --out import it where written
    import pandas as pd
    from matplotlib.figure import Figure

    from fairsched.replicate.jsspp05 import JSSPP05Result as ReplicationResult  # imports the sweep layer
    from fairsched.report.processors import ProcessorAssignment

SCHEDULE_CSV_COLUMNS = ("job", "submit", "start", "end", "procs")
# Matplotlib draws ~100k rectangles in a few seconds; beyond that the chart is unreadable anyway, so only the
# jobs of the first MAX_GANTT_JOBS by start time are drawn and the title says so.
MAX_GANTT_JOBS = 20_000


# ---------------------------------------------------------------------------------------------------- exports

def batsim_jobs_frame(report: BackfillReport, assignment: ProcessorAssignment | None = None) -> pd.DataFrame:
    """Batsim's ``jobs.csv`` rows (`fairsched.report.batsim`); ``requested_time`` is the estimate the scheduler
    used, the processors those of `assign_processors`."""
    from fairsched.report.batsim import jobs_frame
    from fairsched.report.processors import assign_processors

    schedule, jobs = report.result.schedule, report.result.jobs
    if assignment is None:
        assignment = assign_processors(schedule, report.n_processors)
    return jobs_frame(job_id=schedule["job"].to_numpy(np.int64), submission_time=schedule["submit"].to_numpy(np.int64),
                      requested_time=jobs.requested, starting_time=schedule["start"].to_numpy(np.int64),
                      finish_time=schedule["end"].to_numpy(np.int64), offsets=assignment.offsets,
                      resources=assignment.processors, workload_name=workload_name(report))


def workload_name(report: BackfillReport) -> str:
    """The trace's file stem, reduced to characters safe in CSV (``CTC-SP2-1996-3.1-cln``)."""
    from fairsched.report.batsim import safe_workload_name

    trace = report.config.trace
    return safe_workload_name(str(trace)) if trace is not None else "workload"


def simulated_workload(report: BackfillReport) -> Workload:
    """The simulated jobs as a `Workload`, ready for `write_swf`: the trace's fields with the simulated times.

    Replaced: ``submit_time`` (as simulated, integer seconds), ``wait_time`` = start - submit, ``run_time`` and
    ``requested_time`` (after load scaling and the estimate rules), ``allocated_processors``.
    """
    workload = report.workload.to_workload()  # a pandas table: `write_swf` and the columns set below
    jobs = workload.jobs.reset_index(drop=True).copy()
    schedule, simulated = report.result.schedule, report.result.jobs
    if not np.array_equal(jobs["job_number"].to_numpy(np.int64), schedule["job"].to_numpy(np.int64)):
        raise InvariantError("the prepared workload and the schedule list different jobs")
    jobs["submit_time"] = simulated.submit.astype(np.float64)
    jobs["wait_time"] = schedule["wait"].to_numpy(np.float64)
    jobs["run_time"] = simulated.run.astype(np.float64)
    jobs["requested_time"] = simulated.requested.astype(np.float64)
    jobs["allocated_processors"] = simulated.procs
    return workload.with_jobs(jobs)


def swf_note(report: BackfillReport) -> str:
    meta = report.result.meta
    load = "" if meta.get("load") is None else f", offered load {meta['load']:g} by {meta['load_by']}"
    return (f"simulated by fairsched {fairsched.__version__}: {meta['order']} x {meta['backfill']} on "
            f"{report.n_processors} processors{load}; wait times are the simulated ones")


def write_result(result: backfill_experiment.Result, out_dir: str | Path) -> dict[str, Path]:
    """`fairsched.report.write_result` for the backfill model: `write_backfill_outputs` of ``result.report``."""
    return write_backfill_outputs(result.report, out_dir)


def write_backfill_outputs(report: BackfillReport, out_dir: str | Path) -> dict[str, Path]:
    """Write every file of the module docstring's layout into `out_dir` (created if needed).

    Returns a dict mapping each file name to its path, ``report.json`` included (written last).
    """
    from fairsched.report.processors import assign_processors

    out = Path(out_dir)
    written: dict[str, Path] = {}
    schedule = report.result.schedule
    written["schedule.csv"] = out / "schedule.csv"
    write_csv(schedule.loc[:, list(SCHEDULE_CSV_COLUMNS)], written["schedule.csv"])
    if report.fairness is not None:
        written["fairness.csv"] = out / "fairness.csv"
        write_csv(report.fairness, written["fairness.csv"])
    assignment = assign_processors(schedule, report.n_processors)
    written["jobs.csv"] = out / "jobs.csv"
    write_csv(batsim_jobs_frame(report, assignment), written["jobs.csv"])
    written["schedule.swf"] = out / "schedule.swf"
    write_swf(simulated_workload(report), written["schedule.swf"], extra_header=[("Note", swf_note(report))])
    written["gantt.png"] = out / "gantt.png"
    write_png(gantt_figure(schedule, assignment, report.n_processors, title=_gantt_title(report)), written["gantt.png"])
    written["report.json"] = out / "report.json"
    write_json(backfill_json(report, written), written["report.json"])
    return written


# ---------------------------------------------------------------------------------------------------- Gantt chart

def gantt_figure(schedule: pd.DataFrame, assignment: ProcessorAssignment, n_processors: int, *,
                 title: str = "") -> Figure:
    """Processors (y) × time (x): one rectangle per job and range of consecutive processors, coloured by job.

    Time is shown from the first submission, in seconds, hours or days depending on the span. At most
    `MAX_GANTT_JOBS` jobs (the earliest started) are drawn.
    """
    start = schedule["start"].to_numpy(np.float64)
    end = schedule["end"].to_numpy(np.float64)
    origin = float(schedule["submit"].min()) if len(schedule) else 0.0
    drawn = np.zeros(len(schedule), dtype=bool)
    drawn[np.argsort(start, kind="stable")[:MAX_GANTT_JOBS]] = True
    job, lo, hi = assignment.runs()
    keep = drawn[job]
    job, lo, hi = job[keep], lo[keep], hi[keep]
    scale, unit = _time_unit(float(end.max() - origin) if len(schedule) else 0.0)
    x0, x1 = (start[job] - origin) / scale, (end[job] - origin) / scale
    verts = np.stack([np.stack([x0, lo], 1), np.stack([x1, lo], 1), np.stack([x1, hi + 1.0], 1),
                      np.stack([x0, hi + 1.0], 1)], axis=1)
    fig = _figure(figsize=(12, 5), dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    colours = _tab20()[job % 20]
    from matplotlib.collections import PolyCollection

    ax.add_collection(PolyCollection(verts, facecolors=colours, edgecolors="black" if len(job) < 400 else "none",
                                     linewidths=0.3))
    ax.set_xlim(0, max(float(x1.max()) if x1.size else 1.0, 1e-9))
    ax.set_ylim(0, n_processors)
    ax.set_xlabel(f"time since the first submission ({unit})")
    ax.set_ylabel("processor (assigned first-fit)")
    shown = "" if drawn.all() else f" — first {MAX_GANTT_JOBS:,} of {len(schedule):,} jobs by start time"
    ax.set_title(f"{title}{shown}", fontsize=10)
    return fig


def _gantt_title(report: BackfillReport) -> str:
    meta = report.result.meta
    load = "" if meta.get("load") is None else f", load {meta['load']:g}"
    return (f"{workload_name(report)}: {meta['order']} × {meta['backfill']}, P = {report.n_processors}{load}, "
            f"{len(report.result.schedule):,} jobs")


def _time_unit(span: float) -> tuple[float, str]:
    if span > 3 * 86_400:
        return 86_400.0, "days"
    if span > 3 * 3_600:
        return 3_600.0, "hours"
    return 1.0, "s"


def _figure(**options: Any) -> Figure:
    """A matplotlib Figure drawn by Agg (matplotlib is imported here: `fairsched backfill` without --out never
    draws, and importing it costs about a second)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(**options)
    FigureCanvasAgg(fig)
    return fig


def _tab20() -> np.ndarray:
    from matplotlib import colormaps

    return np.asarray(colormaps["tab20"].colors)


# ------------------------------------------------------------------------------------------- JSON and terminal

def backfill_json(report: BackfillReport, outputs: Mapping[str, Path] | None = None) -> dict[str, Any]:
    """The JSON document of a backfill run (``fairsched backfill --json`` and ``report.json``).

    Keys: ``fairsched_version, model, config, workload, meta, metrics, unfairness, timings, elapsed_s,
    outputs``. ``workload`` holds the source, jobs, processors, offered load before/after scaling and the read
    and cleaning reports. Non-finite floats become null.
    """
    read, cleaned = report.read_report, report.clean_report
    doc = {
        "fairsched_version": fairsched.__version__,
        "model": "backfill",
        "config": _config_json(report),
        "workload": {
            "source": report.workload.source, "n_jobs": report.result.jobs.n_jobs,
            "processors": report.n_processors, "offered_load": report.offered_load,
            "read": None if read is None else {"records": read.n_records, "skipped": dict(read.skipped),
                                               "fallbacks": dict(read.fallbacks)},
            "clean": None if cleaned is None else cleaned.as_dict(),
        },
        "meta": report.result.meta,
        "metrics": report.metrics,
        "unfairness": report.unfairness,
        "timings": report.timings,
        "elapsed_s": report.elapsed_s,
        "outputs": {key: str(path) for key, path in (outputs or {}).items()},
    }
    return jsonable(doc)


def _config_json(report: BackfillReport) -> dict[str, Any]:
    """The config's fields; ``--procs`` keeps the key report.json has always given it, ``processors``."""
    hidden = () if report.config.rule().name == "slurm" else SLURM_RULE_FIELDS  # the slurm rule's options
    return {("processors" if name == "procs" else name): value for name, value in asdict(report.config).items()
            if name not in hidden}


def backfill_renderable(report: BackfillReport) -> Group:
    """The run summary, the classic metrics and (if asked) the unfairness tables, ready for `rich`."""
    meta = report.result.meta
    run = {"workload": report.workload.source, "jobs": report.result.jobs.n_jobs,
           "processors": report.n_processors, "policy": f"{meta['order']} × {meta['backfill']}",
           "offered load": _load_text(report), "estimates": meta.get("estimates", {}),
           "elapsed": f"{report.elapsed_s:.2f} s"}
    if report.clean_report is not None:
        run["cleaning"] = "; ".join(line.strip() for line in report.clean_report.lines())
    parts: list[Any] = [key_value_table("Backfilling run", run), key_value_table("Metrics", report.metrics)]
    if report.unfairness:
        parts.append(unfairness_table(report.unfairness))
    return Group(*parts)


def estimate_notes(report: BackfillReport) -> list[str]:
    """One line when jobs had no requested time and plan with their exact run time instead (SDSC-Par: all of them),
    for the terminal and report.html; the counts by rule are in ``meta["estimates"]`` and report.json."""
    jobs = report.result.jobs
    filled = jobs.n_estimates_filled
    if not filled:
        return []
    return [f"{filled:,} of {jobs.n_jobs:,} jobs have no requested time (-1 or 0 in the trace): their run time is "
            "used as the estimate, so the queue order and backfilling see exact run times for them"]


def trace_unfairness_json(result: TraceUnfairness) -> dict[str, Any]:
    """JSON of ``fairsched unfairness re``: source, processors, jobs measured, dropped, unfairness, elapsed_s.

    ``max_used_processors`` and ``overcommitted_seconds`` (time with more busy processors than P) describe the
    recorded schedule: real traces sometimes run more than their header's MaxProcs.
    """
    return jsonable({"fairsched_version": fairsched.__version__, "source": result.source,
                     "processors": result.n_processors, "n_jobs": len(result.schedule), "dropped": result.dropped,
                     "max_used_processors": result.re.attrs.get("max_used_processors"),
                     "overcommitted_seconds": result.re.attrs.get("overcommitted_seconds"),
                     "unfairness": result.unfairness, "elapsed_s": result.elapsed_s})


def trace_unfairness_renderable(result: TraceUnfairness) -> Group:
    """``fairsched unfairness re`` on a terminal: what was measured, then the unfairness table."""
    head = {"trace": result.source, "processors": result.n_processors, "jobs measured": len(result.schedule),
            "left out": result.dropped or "none",
            "max busy processors": result.re.attrs.get("max_used_processors"),
            "time over P (s)": result.re.attrs.get("overcommitted_seconds"), "elapsed": f"{result.elapsed_s:.2f} s"}
    return Group(key_value_table("Resource equality of the recorded schedule (JSSPP'05 §3.2)", head),
                 unfairness_table(result.unfairness))


UNFAIRNESS_NAMES = {"fst": "FST", "fst_strict": "strict FST", "fst_relaxed": "relaxed FST", "re": "resource equality"}


def unfairness_table(unfairness: Mapping[str, Any]) -> Group:
    """`fairsched.backfill.fairness.unfairness_summary` as two tables: overall per metric, then per job width.

    Overall unfairness = Σ max(miss, 0) / n (JSSPP'05 §3.1.3, §3.2); benefit = Σ max(−miss, 0) / n, the
    preferential treatment, reported apart. Seconds for FST, processor-seconds for RE.
    """
    metrics = [key for key in UNFAIRNESS_NAMES if key in unfairness]
    overall = Table(title=f"Unfairness over {unfairness.get('n_jobs', 0):,} jobs (JSSPP'05 §3; s for FST, "
                          "processor-s for RE)", title_justify="left")
    for column in ("metric", "unfairness", "benefit", "jobs unfair", "jobs favoured", "max unfairness"):
        overall.add_column(column, justify="left" if column == "metric" else "right")
    for key in metrics:
        entry = unfairness[key]
        overall.add_row(UNFAIRNESS_NAMES[key], _short_number(entry["unfairness"]), _short_number(entry["benefit"]),
                        f"{entry['n_unfair']:,}", f"{entry['n_benefit']:,}", _short_number(entry["max_unfairness"]))
    widths = Table(title="Mean unfairness by job width (processors; JSSPP'05 Table 1 bins)", title_justify="left")
    widths.add_column("width")
    widths.add_column("jobs", justify="right")
    for key in metrics:
        widths.add_column(UNFAIRNESS_NAMES[key], justify="right")
    for label, count in unfairness.get("width_jobs", {}).items():
        if count:
            widths.add_row(label, f"{count:,}", *(_short_number(unfairness[k]["by_width"].get(label))
                                                  for k in metrics))
    return Group(overall, widths)


def _load_text(report: BackfillReport) -> str:
    before, after = report.offered_load.get("before"), report.offered_load.get("after")
    if report.config.load is None:
        return _load_number(before)
    return f"{_load_number(before)} → {_load_number(after)} (by {report.config.load_by})"


def _load_number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


# ---------------------------------------------------------------------------------------- JSSPP'05 replication

METRIC_LABELS = {"fst_strict": "mean strict FST miss (s)", "fst_relaxed": "mean relaxed FST miss (s)",
                 "re": "mean RE unfairness (processor-s)"}
DEPTH_COLOURS = {"no-guarantee": "tab:red", "easy": "tab:blue", "conservative": "tab:green"}
ORDER_STYLES = {"fcfs": ("-", "o"), "sjf": ("--", "s"), "lxf": (":", "^")}


def jsspp05_json(result: ReplicationResult, outputs: Mapping[str, Path] | None = None) -> dict[str, Any]:
    """JSON of ``fairsched replicate jsspp05``: ``rows`` and ``spearman`` (records), plus ``config``,
    ``traces``, ``simulations``, ``elapsed_s``, ``outputs`` and ``fairsched_version``."""
    return jsonable({
        "fairsched_version": fairsched.__version__,
        "paper": "G. Sabin, P. Sadayappan, Unfairness metrics for space-sharing parallel job schedulers, JSSPP 2005",
        "config": asdict(result.config),
        "rows": result.rows.to_dict("records"),
        "spearman": result.spearman.to_dict("records"),
        "simulations": result.simulations.to_dict("records"),
        "traces": result.traces,
        "elapsed_s": result.elapsed_s,
        "outputs": {key: str(path) for key, path in (outputs or {}).items()},
    })


def write_jsspp05_outputs(result: ReplicationResult, out_dir: str | Path) -> dict[str, Path]:
    """Write ``rows.csv``, ``spearman.csv``, ``simulations.csv``, ``<metric>.png``, ``<metric>_by_width.png``
    and ``report.json`` (last) into `out_dir`; return their paths by name."""
    out = Path(out_dir)
    written: dict[str, Path] = {}
    for name, frame in (("rows.csv", result.rows), ("spearman.csv", result.spearman),
                        ("simulations.csv", result.simulations)):
        written[name] = out / name
        write_csv(frame, written[name])
    for metric in METRIC_LABELS:
        for name, figure in ((f"{metric}.png", metric_by_load_figure), (f"{metric}_by_width.png", width_figure)):
            written[name] = out / name
            write_png(figure(result, metric), written[name])
    written["report.json"] = out / "report.json"
    write_json(jsspp05_json(result, written), written["report.json"])
    return written


def metric_by_load_figure(result: ReplicationResult, metric: str) -> Figure:
    """JSSPP'05 Figs. 7/8, 11/12, 15/16: mean unfairness vs offered load, one panel per trace, one line per policy.

    Colour = reservation depth, line style and marker = queue order.
    """
    rows = result.rows[(result.rows["metric"] == metric) & (result.rows["width"] == "all")]
    traces = list(result.config.traces)
    fig = _figure(figsize=(4.2 * len(traces) + 1.5, 4.2), dpi=DPI, layout="constrained")
    axes = fig.subplots(1, len(traces), squeeze=False)[0]
    for ax, trace in zip(axes, traces, strict=True):
        mine = rows[rows["trace"] == trace]
        for (order, depth), line in mine.groupby(["order", "backfill"], sort=False):
            style, marker = ORDER_STYLES.get(order, ("-", "o"))
            line = line.sort_values("load")
            ax.plot(100 * line["load"], line["value"], linestyle=style, marker=marker, markersize=4,
                    color=DEPTH_COLOURS.get(depth), label=f"{order} × {depth}")
        ax.set_title(trace, fontsize=10)
        ax.set_xlabel("offered load (%)")
        ax.grid(linewidth=0.4, alpha=0.6)
    axes[0].set_ylabel(METRIC_LABELS[metric])
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    fig.suptitle(f"JSSPP'05 replication: {METRIC_LABELS[metric]}, first {result.config.subset_size:,} jobs",
                 fontsize=11)
    return fig


def width_figure(result: ReplicationResult, metric: str) -> Figure:
    """JSSPP'05 Figs. 9/10, 13/14, 17/18: mean unfairness per job-width bin at the medium and high loads.

    One panel per trace and load; one bar per reservation depth, for the FCFS order as in the paper (all orders
    are in ``rows.csv``).
    """
    from fairsched.replicate.jsspp05 import WIDTH_LOADS

    config = result.config
    loads = [load for load in config.loads if load in WIDTH_LOADS] or [max(config.loads)]
    order = "fcfs" if "fcfs" in config.orders else config.orders[0]
    rows = result.rows[(result.rows["metric"] == metric) & (result.rows["width"] != "all")
                       & (result.rows["order"] == order)]
    fig = _figure(figsize=(6.0 * len(loads) + 1.5, 3.4 * len(config.traces)), dpi=DPI, layout="constrained")
    axes = fig.subplots(len(config.traces), len(loads), squeeze=False)
    for (i, trace), (k, load) in ((a, b) for a in enumerate(config.traces) for b in enumerate(loads)):
        ax = axes[i][k]
        mine = rows[(rows["trace"] == trace) & (rows["load"] == load)]
        labels = list(dict.fromkeys(mine["width"]))
        x = np.arange(len(labels))
        bar = 0.8 / max(len(config.depths), 1)
        for d, depth in enumerate(config.depths):
            values = mine[mine["backfill"] == depth].set_index("width")["value"].reindex(labels)
            ax.bar(x - 0.4 + (d + 0.5) * bar, values.to_numpy(), width=bar, color=DEPTH_COLOURS.get(depth),
                   label=f"{order} × {depth}")
            zero = np.flatnonzero(values.to_numpy() == 0)  # a bar of height 0 is invisible: mark it
            ax.plot(zero - 0.4 + (d + 0.5) * bar, np.zeros(zero.size), linestyle="none", marker="x", markersize=4,
                    color=DEPTH_COLOURS.get(depth))
        # the bins double in width (a log-width axis); unfairness spans 0 to ~10^6: symlog keeps the narrow
        # widths' small values visible and 0 on the axis
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_xticks(x, labels, fontsize=8)
        ax.set_title(f"{trace}, load {100 * load:g} %", fontsize=10)
        ax.set_xlabel("job width (processors; bins double: log scale; × = 0)")
        ax.set_ylabel(METRIC_LABELS[metric] + ", symlog", fontsize=8)
        ax.grid(axis="y", linewidth=0.4, alpha=0.6)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    fig.suptitle(f"JSSPP'05 replication: {METRIC_LABELS[metric]} by job width, {order} order, first "
                 f"{config.subset_size:,} jobs", fontsize=11)
    return fig


def jsspp05_renderable(result: ReplicationResult) -> Group:
    """Per trace and metric: the policies × loads table of overall unfairness; then Table 2's rho range."""
    parts: list[Any] = []
    overall = result.rows[result.rows["width"] == "all"]
    for (trace, metric), frame in overall.groupby(["trace", "metric"], sort=False):
        table = Table(title=f"{trace}: {METRIC_LABELS[metric]}", title_justify="left")
        table.add_column("policy")
        loads = list(dict.fromkeys(frame["load"]))
        for load in loads:
            table.add_column(f"{100 * load:g} %", justify="right")
        for (order, depth), line in frame.groupby(["order", "backfill"], sort=False):
            values = line.set_index("load")["value"]
            table.add_row(f"{order} × {depth}", *(_short_number(values.get(load)) for load in loads))
        parts.append(table)
    from fairsched.replicate.jsspp05 import PAPER_TABLE2

    spearman = Table(title="Table 2: Spearman rho, arrival-order subsets vs all jobs (the paper's: CTC and SDSC "
                           "Blue only, per metric)", title_justify="left")
    for column in ("trace", "metric", "min", "median", "max", "paper"):
        spearman.add_column(column, justify="left" if column in ("trace", "metric") else "right")
    for (trace, metric), frame in result.spearman.groupby(["trace", "metric"], sort=False):
        rho = frame["rho"].to_numpy(np.float64)
        paper = PAPER_TABLE2.get((trace, metric))
        spearman.add_row(trace, metric, *(_short_number(f(rho)) if np.isfinite(rho).any() else "-"
                                          for f in (np.nanmin, np.nanmedian, np.nanmax)),
                         f"{min(paper):.2f}–{max(paper):.2f}" if paper else "-")
    parts += [spearman, key_value_table("Run", {"simulations": len(result.simulations),
                                                "elapsed": f"{result.elapsed_s:.1f} s"})]
    return Group(*parts)


def _short_number(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
