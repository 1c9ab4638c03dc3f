"""Reports of the multi-task job model: terminal table, JSON, per-job CSV files, the CDF figure (Networking'20
Fig. 1–4: empirical CDF of completion times / delays / utilities per algorithm, and the average, 4th-quartile
average and deviation bars)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from rich.console import Group
from rich.table import Table

import fairsched
from fairsched.openshop import experiment as openshop_experiment
from fairsched.openshop.experiment import OpenShopReport
from fairsched.openshop.io import write_instance, write_jobs_csv
from fairsched.replicate.networking20 import AlgorithmValues, Networking20Result, SettingReport
from fairsched.replicate.networking20 import to_json as networking20_to_json
from fairsched.report.export import DPI, write_csv, write_json, write_png
from fairsched.report.tables import jsonable, key_value_table

SUMMARY_KEYS = ("mean", "q4_mean", "std", "min", "max")


def openshop_json(report: OpenShopReport, outputs: Mapping[str, Path] | None = None) -> dict[str, Any]:
    """``fairsched openshop --json``: the instance, the set-up and each algorithm's summary (module docstring)."""
    inst = report.instance
    return jsonable({
        "fairsched_version": fairsched.__version__,
        "source": report.source,
        "jobs": inst.n_jobs, "tasks": inst.n_tasks, "machines": inst.n_machines,
        "utilities": report.config.utilities, "online": report.config.online, "measure": report.measure,
        "time_unit_s": report.time_unit_s, "tau": report.tau, "delta0_s": report.delta0, "seed": report.seed,
        "algorithms": {name: {**outcome.summary, "elapsed_s": outcome.elapsed_s}
                       for name, outcome in report.outcomes.items()},
        "google": None if report.google is None else asdict(report.google),
        "outputs": {key: str(path) for key, path in (outputs or {}).items()},
    })


def openshop_renderable(report: OpenShopReport) -> Group:
    """The set-up, then one row per algorithm: mean, worst-25 % mean, deviation, min, max, time."""
    inst = report.instance
    setup = {"instance": report.source,
             "jobs / tasks / machines": f"{inst.n_jobs:,} / {inst.n_tasks:,} / {inst.n_machines}",
             "setting": ("online, δ₀ = " + f"{report.delta0:,.0f} s" if report.config.online else "offline (all "
                         "jobs at time 0)"),
             "utilities": report.config.utilities if report.tau is None else f"linear, τ = {report.tau:,.0f}"}
    if report.google is not None:
        dropped = sum(report.google.dropped_jobs.values())
        setup["Google slice"] = f"{report.google.n_jobs_kept:,} jobs kept, {dropped:,} dropped (see --json)"
    better = "higher is better" if report.tau is not None else "lower is better"
    unit = "" if report.tau is not None else f" ({_unit(report)})"
    table = Table(title=f"Per-job {report.measure}{unit}: {better}; q4 = average of the worst 25 % "
                        "(Networking'20 §VII)")
    for name in ("algorithm", "mean", "q4 (worst 25 %)", "std", "min", "max", "time"):
        table.add_column(name, justify="left" if name == "algorithm" else "right")
    for name, outcome in report.outcomes.items():
        s = outcome.summary
        table.add_row(name, *(f"{s[key]:,.1f}" for key in SUMMARY_KEYS), f"{outcome.elapsed_s:.2f} s")
    return Group(key_value_table("Multi-task jobs, max-min fair completion times", setup), table)


def write_result(result: openshop_experiment.Result, out_dir: str | Path) -> dict[str, Path]:
    """`fairsched.report.write_result` for the openshop model: `write_openshop_outputs` of ``result.report``."""
    return write_openshop_outputs(result.report, out_dir)


def write_openshop_outputs(report: OpenShopReport, out_dir: str | Path) -> dict[str, Path]:
    """Write ``instance.json``, ``jobs.csv`` (the first algorithm), ``jobs_<algorithm>.csv`` (each), ``cdf.png``
    and ``report.json`` (last) into `out_dir`; return their paths by name."""
    out = Path(out_dir)
    written: dict[str, Path] = {"instance.json": out / "instance.json"}
    write_instance(report.instance, written["instance.json"])
    for rank, (name, outcome) in enumerate(report.outcomes.items()):
        utilities = outcome.utilities if outcome.utilities is not None else -outcome.times
        for file in (["jobs.csv"] if rank == 0 else []) + [f"jobs_{name}.csv"]:
            written[file] = out / file
            write_jobs_csv(report.instance, outcome.schedule, utilities, written[file])
    written["cdf.png"] = out / "cdf.png"
    write_png(cdf_figure(report), written["cdf.png"])
    written["report.json"] = out / "report.json"
    write_json(openshop_json(report, written), written["report.json"])
    return written


def cdf_figure(report: OpenShopReport | SettingReport) -> Figure:
    """Networking'20 Fig. 1–4: (a) empirical CDF per algorithm, (b) average / 4th-quartile average / deviation.

    `report` is one run of ``fairsched openshop`` or one setting of the replication (its per-job ``values``)."""
    fig = Figure(figsize=(12, 4.6), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax_cdf, ax_bars = fig.subplots(1, 2, width_ratios=(3, 2))
    linear = report.tau is not None
    for name, outcome in report.outcomes.items():
        if isinstance(outcome, AlgorithmValues):
            values = np.sort(outcome.values)
        else:
            values = np.sort(outcome.utilities if linear else outcome.times)
        ax_cdf.step(values, np.arange(1, values.size + 1) / values.size, where="post", label=name)
    label = "utility P_j·(τ − t)" if linear else f"{report.measure} ({_unit(report)})"
    online = report.online if isinstance(report, SettingReport) else report.config.online
    if not linear:  # times span 0 to ~10^5 s and most jobs are short: symlog spreads them and keeps 0 on the axis
        ax_cdf.set_xscale("symlog", linthresh=1.0)
        ax_cdf.set_xlim(left=0)
    ax_cdf.set_xlabel(label if linear else f"{label}, symlog: linear below 1")
    ax_cdf.set_ylabel("fraction of jobs")
    ax_cdf.set_title(f"Empirical CDF, {'online' if online else 'offline'}", fontsize=10)
    ax_cdf.grid(linewidth=0.4, alpha=0.6)
    ax_cdf.legend(fontsize=8)
    names = list(report.outcomes)
    width = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        s = report.outcomes[name].summary
        heights = [s["mean"], s["q4_mean"], s["std"]]
        ax_bars.bar(np.arange(3) - 0.4 + (i + 0.5) * width, heights, width=width, label=name)
    ax_bars.set_xticks(range(3), ["average", "4th-quartile avg", "deviation"])
    ax_bars.set_ylabel(label)
    hint = "higher average, lower deviation is better" if linear else "lower is better"
    ax_bars.set_title(f"Average and deviation\n({hint})", fontsize=10)
    ax_bars.grid(axis="y", linewidth=0.4, alpha=0.6)
    ax_bars.legend(fontsize=8)
    return fig


def _unit(report: OpenShopReport | SettingReport) -> str:
    """Google times are seconds (× the reader's unit); other instances have abstract time units."""
    if isinstance(report, OpenShopReport) and report.google is None:
        return "time units"
    return "s" if report.time_unit_s == 1.0 else f"× {report.time_unit_s:g} s"


# ------------------------------------------------------------------------------------ Networking'20 replication

def networking20_renderable(result: Networking20Result) -> Group:
    """The paper's ratios beside ours (> 1: PBA better), then the exact-reach shares."""
    table = Table(title="Networking'20 §VII: PBA vs the baselines, as ratios oriented so that > 1 means PBA is better")
    for name in ("setting", "paper's claim", "paper", "ours", "verdict"):
        table.add_column(name, justify="right" if name in ("paper", "ours") else "left")
    for row in result.rows:
        table.add_row(row["setting"], row["claim"], f"{row['paper']:.2f}", f"{row['ours']:.2f}", row["verdict"])
    reach = Table(title="Exact max-min fair vector reached (brute force), random instances")
    for name in ("algorithm", "utilities", "k", "instances", "n × m", "exact vector", "leading equal: mean / least"):
        reach.add_column(name, justify="left" if name in ("algorithm", "utilities") else "right")
    for row in result.reach:
        reach.add_row(row["algorithm"], row["utilities"], "—" if row["k"] is None else str(row["k"]),
                      str(row["instances"]), f"{row['n_jobs']} × {row['n_machines']}", f"{row['exact_vector']:.1%}",
                      f"{row['leading_mean']:.2f} / {row['leading_min']}")
    return Group(table, reach) if result.reach else Group(table)


def write_networking20_outputs(result: Networking20Result, out_dir: str | Path) -> dict[str, Path]:
    """Write ``rows.csv``, ``reach.csv``, ``cdf_<setting>.png`` (Fig. 1–4) and ``report.json`` (last)."""
    out = Path(out_dir)
    written: dict[str, Path] = {"rows.csv": out / "rows.csv"}
    write_csv(pd.DataFrame.from_records(result.rows), written["rows.csv"])
    if result.reach:
        written["reach.csv"] = out / "reach.csv"
        write_csv(pd.DataFrame.from_records(result.reach), written["reach.csv"])
    for name, report in result.reports.items():
        written[f"cdf_{name}.png"] = out / f"cdf_{name}.png"
        write_png(cdf_figure(report), written[f"cdf_{name}.png"])
    written["report.json"] = out / "report.json"
    write_json(jsonable(networking20_to_json(result, written)), written["report.json"])
    return written
