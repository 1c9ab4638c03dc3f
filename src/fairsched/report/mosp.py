"""Reports of the multi-organization makespan model: terminal tables, JSON, files, Gantt charts, TPDS'11 plots.

The Gantt chart draws one lane per cluster (height = its processors) and colours jobs by owner, like TPDS'11
Fig. 4 and 6: jobs that left their owner's cluster are the ones drawn in a foreign colour. The model counts
processors and never names them; processors are assigned first-fit per cluster only to draw.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from rich.console import Group
from rich.table import Table

import fairsched
from fairsched.mosp import experiment as mosp_experiment
from fairsched.mosp.experiment import MospReport
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.io import write_instance, write_schedule_csv
from fairsched.replicate.tpds11 import TPDS11Result, to_json
from fairsched.report.batsim import jobs_frame, safe_workload_name
from fairsched.report.export import DPI, write_csv, write_json, write_png
from fairsched.report.processors import assign_processors
from fairsched.report.tables import jsonable, key_value_table

MAX_GANTT_JOBS = 20_000
LANE_GAP = 0.06  # blank space between cluster lanes, as a fraction of the tallest cluster


# ------------------------------------------------------------------------------------------------ one run

def mosp_json(report: MospReport, outputs: Mapping[str, Path] | None = None) -> dict[str, Any]:
    """``fairsched mosp --json``: the instance's size, LB, makespans and scores, per-organization figures."""
    inst = report.instance
    return jsonable({
        "fairsched_version": fairsched.__version__,
        "source": report.source,
        "algorithm": report.config.algorithm,
        "local_order": report.config.local_order,
        "seed": report.seed,
        "orgs": inst.n_orgs, "jobs": inst.n_jobs, "procs": inst.procs.tolist(),
        "lower_bound": report.lower_bound,
        "makespan": report.makespan, "makespan_local": report.makespan_local,
        "score": report.score, "score_local": report.score_local,
        "local_constraint_holds": bool((report.org_coop <= report.org_local).all()),
        "trace_selection": report.selection,
        "organizations": [{"org": k, "procs": int(inst.procs[k]), "jobs": int((inst.owner == k).sum()),
                           "makespan_local": int(report.org_local[k]), "makespan": int(report.org_coop[k]),
                           "jobs_moved": int(((inst.owner == k) & (report.schedule.cluster != k)).sum())}
                          for k in range(inst.n_orgs)],
        "elapsed_s": report.elapsed_s,
        "outputs": {key: str(path) for key, path in (outputs or {}).items()},
    })


def mosp_renderable(report: MospReport) -> Group:
    """A summary table and one row per organization: local vs cooperative makespan."""
    summary = key_value_table("Multi-organization scheduling (TPDS'11)", {
        "instance": report.source,
        "algorithm": f"{report.config.algorithm} (local order {report.config.local_order})",
        "lower bound LB": f"{report.lower_bound:,.2f}",
        "makespan local → cooperative": f"{report.makespan_local:,} → {report.makespan:,}",
        "score C_max / LB local → cooperative": f"{report.score_local:.3f} → {report.score:.3f}",
        "time in the algorithm": f"{report.elapsed_s * 1000:.1f} ms",
    })
    table = Table(title="Per organization: makespan alone vs in cooperation (never worse: TPDS'11 §3)")
    for name in ("org", "procs", "jobs", "moved", "local C_max", "cooperative C_max", "change"):
        table.add_column(name, justify="right")
    inst = report.instance
    for k in range(inst.n_orgs):
        local, coop = int(report.org_local[k]), int(report.org_coop[k])
        moved = int(((inst.owner == k) & (report.schedule.cluster != k)).sum())
        change = "—" if local == 0 else f"{(coop - local) / local:+.1%}"
        table.add_row(str(k), str(inst.procs[k]), str(int((inst.owner == k).sum())), str(moved), f"{local:,}",
                      f"{coop:,}", change)
    return Group(summary, table)


def write_result(result: mosp_experiment.Result, out_dir: str | Path) -> dict[str, Path]:
    """`fairsched.report.write_result` for the mosp model: `write_mosp_outputs` of ``result.report``."""
    return write_mosp_outputs(result.report, out_dir)


def write_mosp_outputs(report: MospReport, out_dir: str | Path) -> dict[str, Path]:
    """Write ``instance.json``, ``schedule.csv``, ``jobs.csv`` (Batsim, cooperative schedule), ``gantt.png``
    (cooperative), ``gantt_local.png`` and ``report.json`` (last) into `out_dir`; return their paths by name."""
    out = Path(out_dir)
    written = {"instance.json": out / "instance.json", "schedule.csv": out / "schedule.csv",
               "jobs.csv": out / "jobs.csv", "gantt.png": out / "gantt.png", "gantt_local.png": out / "gantt_local.png"}
    write_instance(report.instance, written["instance.json"])
    write_schedule_csv(report.instance, report.schedule, written["schedule.csv"])
    write_csv(batsim_jobs_frame(report.instance, report.schedule, workload_name(report)), written["jobs.csv"])
    title = f"{report.config.algorithm}: C_max = {report.makespan:,} (score {report.score:.3f})"
    write_png(gantt_figure(report.instance, report.schedule, title=title), written["gantt.png"])
    local_title = f"local ({report.config.local_order}): C_max = {report.makespan_local:,} " \
                  f"(score {report.score_local:.3f})"
    write_png(gantt_figure(report.instance, report.local, title=local_title), written["gantt_local.png"])
    written["report.json"] = out / "report.json"
    write_json(mosp_json(report, written), written["report.json"])
    return written


def workload_name(report: MospReport) -> str:
    """The instance file's or trace's stem, else ``mosp-<generator>`` (for Batsim's ``workload_name``)."""
    config = report.config
    if config.instance is not None:
        return safe_workload_name(str(config.instance))
    if config.generate == "trace" and config.trace is not None:
        return safe_workload_name(str(config.trace))
    return f"mosp-{config.generate}"


def batsim_jobs_frame(instance: MospInstance, schedule: MospSchedule, workload_name: str) -> pd.DataFrame:
    """Batsim's ``jobs.csv`` rows (`fairsched.report.batsim`) of a multi-cluster schedule.

    Resources are numbered cluster after cluster: processor p of cluster k is resource ``procs[:k].sum() + p``,
    assigned first-fit within each cluster (`assign_processors`; the model counts processors without naming
    them). Every job is submitted at 0 (TPDS'11 §2: all jobs are known at time 0) and requests its run time.

    >>> inst = MospInstance.from_arrays([2, 1], owner=[0, 1, 1], runtime=[2, 1, 3], width=[2, 1, 1])
    >>> rows = batsim_jobs_frame(inst, MospSchedule(np.array([0, 0, 1]), np.array([0, 2, 0])), "w")
    >>> rows["allocated_resources"].tolist(), rows["finish_time"].tolist()
    (['0-1', '0', '2'], [2, 3, 3])
    """
    start = np.asarray(schedule.start, dtype=np.int64)
    cluster = np.asarray(schedule.cluster, dtype=np.int64)
    end = start + instance.runtime
    first_resource = np.concatenate([[0], np.cumsum(instance.procs)[:-1]])
    offsets = np.concatenate([[0], np.cumsum(instance.width)]).astype(np.int64)
    resources = np.empty(int(offsets[-1]), dtype=np.int64)
    for k in range(instance.n_orgs):
        rows = np.flatnonzero(cluster == k)
        if rows.size == 0:
            continue
        frame = pd.DataFrame({"start": start[rows], "end": end[rows], "procs": instance.width[rows]})
        assignment = assign_processors(frame, int(instance.procs[k]))
        # scatter: the cluster's i-th job (row rows[i]) owns slots offsets[row]..offsets[row + 1] of the layout
        shift = np.repeat(offsets[rows] - assignment.offsets[:-1], instance.width[rows])
        resources[shift + np.arange(assignment.processors.size)] = first_resource[k] + assignment.processors
    return jobs_frame(job_id=instance.job_id, submission_time=np.zeros(instance.n_jobs, dtype=np.int64),
                      requested_time=instance.runtime, starting_time=start, finish_time=end, offsets=offsets,
                      resources=resources, workload_name=workload_name)


def gantt_figure(instance: MospInstance, schedule: MospSchedule, *, title: str = "") -> Figure:
    """One lane per cluster (height ∝ processors), time on x, jobs coloured by owner (TPDS'11 Fig. 4, 6).

    At most `MAX_GANTT_JOBS` jobs per cluster (the earliest started) are drawn; the title then says how many.
    """
    n_orgs = instance.n_orgs
    gap = LANE_GAP * float(instance.procs.max())
    base = np.concatenate([[0.0], np.cumsum(instance.procs[:-1] + gap)])
    end = schedule.start + instance.runtime
    polys, owners = [], []
    drawn = 0
    for k in range(n_orgs):
        rows = np.flatnonzero(schedule.cluster == k)
        rows = rows[np.argsort(schedule.start[rows], kind="stable")][:MAX_GANTT_JOBS]
        drawn += rows.size
        if rows.size == 0:
            continue
        frame = pd.DataFrame({"start": schedule.start[rows], "end": end[rows], "procs": instance.width[rows]})
        job, lo, hi = assign_processors(frame, int(instance.procs[k])).runs()
        x0, x1 = schedule.start[rows][job].astype(float), end[rows][job].astype(float)
        y0, y1 = base[k] + lo, base[k] + hi + 1.0
        polys.append(np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1),
                               np.stack([x0, y1], 1)], axis=1))
        owners.append(instance.owner[rows][job])
    fig = Figure(figsize=(12, max(3.0, min(1.0 + 0.5 * n_orgs, 12.0))), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colours = _owner_colours(n_orgs)
    if polys:
        verts, owner = np.concatenate(polys), np.concatenate(owners)
        ax.add_collection(PolyCollection(verts, facecolors=colours[owner], linewidths=0.3,
                                         edgecolors="black" if len(owner) < 400 else "none"))
    horizon = float(end.max()) if end.size else 1.0
    ax.set_xlim(0, horizon * 1.02)
    ax.set_ylim(0, float(base[-1] + instance.procs[-1]))
    ax.set_yticks(base + instance.procs / 2.0, [f"cluster {k} ({instance.procs[k]})" for k in range(n_orgs)])
    for k in range(n_orgs):
        ax.axhspan(base[k], base[k] + instance.procs[k], color="0.94", zorder=0)
    ax.set_xlabel("time")
    if n_orgs <= 20:
        handles = [ax.bar(0, 0, color=colours[k], label=f"org {k}") for k in range(n_orgs)]
        ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.005, 1.0), title="owner",
                  title_fontsize=7, ncols=1 + n_orgs // 11)
    shown = "" if drawn == instance.n_jobs else (f" — {drawn:,} of {instance.n_jobs:,} jobs drawn (the first "
                                                 f"{MAX_GANTT_JOBS:,} by start time on each cluster)")
    ax.set_title(f"{title}{shown}", fontsize=10)
    return fig


def _owner_colours(n: int) -> np.ndarray:
    from matplotlib import colormaps

    name = "tab10" if n <= 10 else "tab20"
    palette = np.asarray(colormaps[name].colors)
    return palette[np.arange(n) % len(palette)]


# ---------------------------------------------------------------------------------------- TPDS'11 replication

def tpds11_renderable(result: TPDS11Result) -> Group:
    """The rows with a paper value, then the overall rows of each experiment, ours beside the paper's."""
    table = Table(title="TPDS'11 §7: average score C_max / LB (std), ours vs the paper")
    for name in ("experiment", "dist", "N", "n", "m", "algorithm", "order", "ours", "score 1", "paper",
                 "instances"):
        table.add_column(name, justify="right" if name in ("N", "n", "ours", "score 1", "paper", "instances")
                         else "left")
    for row in result.rows:
        overall = row["orgs"] == "all" and row["jobs"] == "all"
        if not (overall or row["paper_mean"] is not None or row["experiment"] == "heterogeneous"):
            continue
        if row["experiment"] == "heterogeneous" and row["algorithm"] != "mocca+ilba":
            continue
        paper = "—" if row["paper_mean"] is None else f"{row['paper_mean']:.2f}"
        table.add_row(row["experiment"], row["dist"], str(row["orgs"]), str(row["jobs"]), str(row["procs"]),
                      row["algorithm"], row["local_order"], f"{row['mean']:.3f} ({row['std']:.3f})",
                      f"{row['optimal_fraction']:.0%}", paper, str(row["instances"]))
    return Group(table)


def write_tpds11_outputs(result: TPDS11Result, out_dir: str | Path) -> dict[str, Path]:
    """Write ``rows.csv``, ``scores.csv``, the figures and ``report.json`` (last); return their paths by name."""
    out = Path(out_dir)
    written: dict[str, Path] = {"rows.csv": out / "rows.csv", "scores.csv": out / "scores.csv"}
    write_csv(pd.DataFrame.from_records(result.rows), written["rows.csv"])
    write_csv(result.scores, written["scores.csv"])
    figures = {"homogeneous.png": homogeneous_figure, "local_policies.png": local_policies_figure,
               "heterogeneous.png": heterogeneous_figure}
    for name, make in figures.items():
        figure = make(result)
        if figure is not None:
            written[name] = out / name
            write_png(figure, written[name])
    written["report.json"] = out / "report.json"
    write_json(jsonable(to_json(result, written)), written["report.json"])
    return written


def homogeneous_figure(result: TPDS11Result) -> Figure | None:
    """TPDS'11 Fig. 8–9: mean score (± std) against N and against n, one panel per distribution and axis."""
    rows = [r for r in result.rows if r["experiment"] == "homogeneous"]
    if not rows:
        return None
    fig = Figure(figsize=(12, 8), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, 2)
    for i, dist in enumerate(("uni", "swf")):
        for j, (axis, other, label) in enumerate((("orgs", "jobs", "N, organizations (average over n, m)"),
                                                  ("jobs", "orgs", "n, jobs (average over N, m)"))):
            ax = axes[i][j]
            for k, algorithm in enumerate(("local", "mocca-exp", "mocca+ilba")):
                sel = [r for r in rows if r["dist"] == dist and r["algorithm"] == algorithm and r[other] == "all"
                       and r[axis] != "all"]
                if not sel:
                    continue
                x = [r[axis] * 1.04 ** (k - 1) for r in sel]  # dodged, so that the error bars do not hide each other
                ax.errorbar(x, [r["mean"] for r in sel], yerr=[r["std"] for r in sel], marker="o", capsize=3,
                            label=algorithm)
            ax.set_xscale("log")
            ticks = sorted({r[axis] for r in rows if isinstance(r[axis], int)})
            ax.set_xticks(ticks, [str(t) for t in ticks])
            ax.minorticks_off()
            _style(ax, label, "score C_max / LB", f"{dist} instances")
    return fig


def local_policies_figure(result: TPDS11Result) -> Figure | None:
    """TPDS'11 Fig. 10: mean score against N for each local order and threshold (after ILBA)."""
    rows = [r for r in result.rows if r["experiment"] == "local-policies" and r["orgs"] != "all"]
    if not rows:
        return None
    fig = Figure(figsize=(12, 4.5), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    for ax, dist in zip(axes, ("uni", "swf"), strict=True):
        for colour, order in enumerate(("hf", "lpt", "spt", "rnd")):
            for algorithm, style in (("mocca3+ilba", "-"), ("mocca4+ilba", "--")):
                sel = [r for r in rows if r["dist"] == dist and r["local_order"] == order
                       and r["algorithm"] == algorithm]
                if sel:
                    ax.plot([r["orgs"] for r in sel], [r["mean"] for r in sel], style, marker="o",
                            color=f"C{colour}", label=f"{order.upper()}{algorithm[5]}")
        ax.set_xticks(sorted({r["orgs"] for r in rows}))
        _style(ax, "N, organizations", "score after ILBA", f"{dist}: local order × threshold (3LB solid, 4LB dashed)",
               fontsize=7, ncols=2)
    return fig


def heterogeneous_figure(result: TPDS11Result) -> Figure | None:
    """TPDS'11 §7.4: mean score against the Pareto shape of cluster sizes (small shape = heterogeneous)."""
    rows = [r for r in result.rows if r["experiment"] == "heterogeneous"]
    if not rows:
        return None
    fig = Figure(figsize=(12, 4.5), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    for ax, dist in zip(axes, ("uni", "swf"), strict=True):
        for k, algorithm in enumerate(("local", "mocca-exp", "mocca+ilba")):
            sel = [r for r in rows if r["dist"] == dist and r["algorithm"] == algorithm]
            if sel:
                shapes = [int(r["procs"].split("=")[1]) + 0.12 * (k - 1) for r in sel]  # dodged, as above
                ax.errorbar(shapes, [r["mean"] for r in sel], yerr=[r["std"] for r in sel], marker="o",
                            capsize=3, label=algorithm)
        _style(ax, "Pareto shape a of cluster sizes (N = 10, 128..1024 processors)", "score C_max / LB",
               f"{dist} instances")
    return fig


def _style(ax: Any, xlabel: str, ylabel: str, title: str, **legend: Any) -> None:
    """Labels, title, light grid and legend shared by the replication's panels."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(linewidth=0.4, alpha=0.6)
    ax.legend(**{"fontsize": 8, **legend})
