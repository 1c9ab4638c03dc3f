"""The online model's report (``fairsched compare``): terminal tables, the JSON document, the figure, the files.

Rendering only: every figure comes from `fairsched.online.experiment.CompareResult`, computed by
`fairsched.online.metrics`. The fairness measure is Delta psi / p_tot of Skowron & Rzadca, SPAA'13 Sec. 6.3 and
PPAM'13 Sec. 5.1: the average unjustified delay (positive deviation: speed-up) of a unit of work, in seconds.

The figure: one group of bars per organization, one bar per policy: (psi_u - psi*_u) / p_tot, the seconds by which
the policy speeds up (> 0) or delays (< 0) an average unit of the organization's work compared with the reference
(PPAM'13 Sec. 5.1 sum the absolute values of these bars into Delta psi / p_tot). It uses matplotlib's object API
with the Agg canvas: no pyplot, so no global figure state and no display needed.

Layout of ``DIR`` (`write_compare_outputs`), each file written atomically (complete on disk or absent):

* ``summary.csv``   one row per policy: Delta psi, p_tot, Delta psi / p_tot, worst organization, mean wait, ...
* ``per_org.csv``   one row per (policy, organization): psi, the reference's psi, (psi - psi*) / p_tot, and
  the per-organization metrics of `fairsched.online.metrics.per_org_metrics`.
* ``<policy>/schedule.csv``  ``job,org,release,start,end,machine``, one row per sequential job started by t_end
  (copies of an expanded parallel job share the job number; times in seconds from the scenario's origin).
* ``<policy>/jobs.csv``  the same schedule as Batsim's job output, readable by evalys
  (`fairsched.report.batsim.online_jobs_frame`: one Batsim job per sequential job, on its machine).
* ``machines.csv``  ``machine,org``: who owns each machine.
* ``organizations.csv``  who makes up each organization (`organizations_frame`): one row per (organization,
  user / group / queue id) with the machines the organization contributes, its share of the machines, and the
  jobs, sequential jobs and work the id submitted; an organization that submits no job has one row, its id empty.
* ``utility.png``   `utility_figure`.
* ``report.json``   `to_json`, with the paths of all the files above; written last, so its presence means the
  directory is complete.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from rich import box
from rich.console import Group
from rich.table import Table

import fairsched
from fairsched._io import atomic_write
from fairsched.online import experiment as online_experiment
from fairsched.online.engine import SCHEDULE_COLUMNS
from fairsched.online.experiment import (
    CompareResult,
    PolicyOutcome,
    effective_split,
    org_deviation,
    organizations_frame,
    per_org_frame,
    summary_frame,
)
from fairsched.report.batsim import online_jobs_frame, safe_workload_name
from fairsched.report.export import DPI, write_csv
from fairsched.report.html import Table as HtmlTable
from fairsched.report.tables import Fitted, fmt_number, fmt_value, jsonable, short_policy, whole_numbers, with_legend

# Above this many organizations the per-organization table would be too wide to read: only its extremes are shown.
MAX_ORG_COLUMNS = 12
# Beyond this many organizations, tick labels are thinned out so that they stay legible.
MAX_LABELLED_ORGS = 24


def to_json(result: CompareResult, outputs: Mapping[str, Path] | None = None) -> dict[str, Any]:
    """The JSON document of a compare run (``fairsched compare --json`` and ``report.json``).

    Keys: ``fairsched_version, model, reference, seed, t_end, p_tot, elapsed_s, config, scenario, workload,
    policies, outputs``. ``scenario`` is `fairsched.scenario.describe` plus ``machines_rule`` (where m came from).
    ``policies.<name>`` holds ``psi`` (one int per organization, at t_end),
    ``delta_psi``, ``delta_psi_over_ptot``, ``per_org_deviation`` (psi_u - psi*_u, exact ints),
    ``per_org_deviation_over_ptot`` ((psi_u - psi*_u) / p_tot),
    ``mean_wait``, ``utilization``, ``jobs_started``, ``run_time_s`` and ``is_reference``. Non-finite floats
    become null (strict JSON); ``outputs`` maps each written file to its path.
    """
    doc = {
        "fairsched_version": fairsched.__version__,
        "model": "online",
        "reference": result.reference,
        "seed": result.seed,
        "t_end": int(result.t_end),
        "p_tot": int(result.p_tot),
        "elapsed_s": result.elapsed_s,
        "config": _config_json(result),
        "scenario": {**result.scenario_summary, "machines_rule": result.machines_rule},
        "workload": _workload_json(result),
        "policies": {name: _policy_json(outcome, result) for name, outcome in result.policies.items()},
        "outputs": {key: str(path) for key, path in (outputs or {}).items()},
    }
    return jsonable(doc)


def compare_renderable(result: CompareResult) -> Group:
    """Scenario summary, the per-policy table and the per-organization deviations, ready for `rich`."""
    names = list(result.policies)
    return Group(scenario_table(result),
                 Fitted(whole_numbers(policy_table(result)),
                        with_legend(whole_numbers(policy_table(result, short=True)), names,
                                    note="* = the reference")),
                 Fitted(whole_numbers(org_table(result)),
                        with_legend(whole_numbers(org_table(result, short=True)), names),
                        *(with_legend(Group(*(whole_numbers(org_table(result, short=True, orgs=chunk))
                                              for chunk in _chunks(result.scenario.n_orgs, size))), names)
                          for size in (6, 3))))


def _chunks(n: int, size: int) -> list[range]:
    """0..n-1 in consecutive ranges of `size` (the last may be shorter)."""
    return [range(start, min(start + size, n)) for start in range(0, n, size)]


def scenario_table(result: CompareResult) -> Table:
    """Two-column summary: workload, scenario (k, m, machines per organization, jobs), t_end, p_tot."""
    table = Table(title="Scenario", show_header=False, title_justify="left", box=None, pad_edge=False)
    table.add_column("key", style="bold")
    table.add_column("value")
    rows = {"workload": result.scenario.source or "(hand-made)"}
    if result.clean_report is not None:
        rows["cleaning"] = "; ".join(line.strip() for line in result.clean_report.lines())
    rows.update({key: fmt_value(value) for key, value in result.scenario_summary.items() if key != "source"})
    if result.machines_rule:
        rows["machines from"] = result.machines_rule
    rows["t_end"] = f"{result.t_end:,} s"
    rows["p_tot (reference)"] = f"{result.p_tot:,} unit parts of work"
    rows["seed"] = str(result.seed)
    rows["elapsed"] = f"{result.elapsed_s:.2f} s"
    for key, value in rows.items():
        table.add_row(key, value)
    return table


def policy_table(result: CompareResult, *, short: bool = False) -> Table:
    """One row per policy: Delta psi / p_tot, the worst organization's deviation, mean wait, utilization, time.

    ``short``: abbreviated policy names (`fairsched.report.tables.short_policy`), for narrow terminals."""
    table = Table(title=f"Fairness against {result.reference}: Δψ/p_tot (SPAA'13 Sec. 6.3)", title_justify="left")
    table.add_column("policy")
    table.add_column("Δψ/p_tot (s)", justify="right")
    table.add_column("max |ψ_u−ψ*_u|/p_tot (s)", justify="right")
    table.add_column("mean wait (s)", justify="right")
    table.add_column("utilization", justify="right")
    table.add_column("run time (s)", justify="right")
    for name, outcome in result.policies.items():
        deviation = org_deviation(outcome, result)
        label = (f"{short_policy(name)}*" if short else f"{name} (reference)") if name == result.reference else (
            short_policy(name) if short else name)
        table.add_row(label, fmt_number(outcome.fairness.delta_psi_over_ptot),
                      fmt_number(float(np.abs(deviation).max()) if deviation.size else math.nan),
                      fmt_number(outcome.mean_wait), f"{outcome.utilization:.1%}", f"{outcome.run_time_s:.2f}")
    return table


def org_table(result: CompareResult, *, short: bool = False, orgs: range | None = None) -> Table:
    """(psi_u - psi*_u) / p_tot, one row per policy and one column per organization (machines in the header).

    With more than `MAX_ORG_COLUMNS` organizations only the most favoured and the most harmed are shown.
    ``short``: abbreviated policy names, for narrow terminals; ``orgs``: only these organizations' columns (a
    narrow terminal gets the table in several parts).
    """
    k = result.scenario.n_orgs
    machines = result.scenario.machines_per_org
    shown = range(k) if orgs is None else orgs
    part = "" if orgs is None or len(shown) == k else f", organizations {shown.start}–{shown.stop - 1}"
    table = Table(title=f"Per organization: (ψ_u − ψ*_u)/p_tot in s (> 0 favoured, < 0 harmed){part}",
                  title_justify="left")
    table.add_column("policy")
    if k <= MAX_ORG_COLUMNS:
        for org in shown:
            table.add_column(f"org {org}\n{machines[org]} m", justify="right")
    else:
        table.add_column("most favoured", justify="right")
        table.add_column("most harmed", justify="right")
    for name, outcome in result.policies.items():
        deviation = org_deviation(outcome, result)
        label = short_policy(name) if short else name
        if k <= MAX_ORG_COLUMNS:
            table.add_row(label, *(fmt_number(deviation[org]) for org in shown))
        else:
            best, worst = int(np.argmax(deviation)), int(np.argmin(deviation))
            table.add_row(label, f"org {best}: {fmt_number(deviation[best])}",
                          f"org {worst}: {fmt_number(deviation[worst])}")
    return table


def _policy_json(outcome: PolicyOutcome, result: CompareResult) -> dict[str, Any]:
    fairness = outcome.fairness
    return {
        "is_reference": outcome.name == result.reference,
        "psi": [int(v) for v in outcome.psi],
        "delta_psi": int(fairness.delta_psi),
        "delta_psi_over_ptot": float(fairness.delta_psi_over_ptot),
        "per_org_deviation": [int(v) for v in fairness.per_org_deviation],
        "per_org_deviation_over_ptot": org_deviation(outcome, result),
        "mean_wait": outcome.mean_wait,
        "utilization": outcome.utilization,
        "jobs_started": len(outcome.result.schedule),
        "run_time_s": outcome.run_time_s,
    }


def _config_json(result: CompareResult) -> dict[str, Any]:
    """The config's fields, the seed, and the split actually used (``split`` resolved by `effective_split`)."""
    config = result.config
    values = {name: getattr(config, name) for name in config.__dataclass_fields__}
    values["seed"] = result.seed
    values["split"] = effective_split(config)
    return values


def _workload_json(result: CompareResult) -> dict[str, Any]:
    read = result.read_report
    return {
        "source": result.scenario.source,
        "read": None if read is None else {"records": read.n_records, "skipped": dict(read.skipped),
                                           "fallbacks": dict(read.fallbacks)},
        "clean": None if result.clean_report is None else result.clean_report.as_dict(),
    }


def replication_table(rows: list[Mapping[str, Any]], title: str) -> Fitted:
    """Δψ/p_tot mean (std) per cell and policy, ours beside the paper's (the rows of `ROW_KEYS`).

    On a narrow terminal (80 columns) the policies are abbreviated (a legend follows), the std goes under the
    mean and long names wrap: no number is ever cut.
    """
    names = [str(row["policy"]) for row in rows]
    return Fitted(whole_numbers(_replication_table(rows, title, short=False)),
                  with_legend(whole_numbers(_replication_table(rows, title, short=True)), names,
                              note="mean over the windows, (std) below it"))


def _replication_table(rows: list[Mapping[str, Any]], title: str, *, short: bool) -> Table:
    narrow = {"box": box.SIMPLE_HEAD, "show_edge": False, "padding": (0, 1, 0, 0), "pad_edge": False}
    table = Table(title=title, **(narrow if short else {}))  # short: no vertical rules, one space between columns
    for name in ("table", "trace", "window", "split", "k", "m", "policy", "ours", "paper", "windows"):
        table.add_column("n" if short and name == "windows" else name,
                         justify="right" if name in ("k", "m", "ours", "paper", "windows") else "left")

    def cell(mean: Any, std: Any) -> str:
        if mean is None or (isinstance(mean, float) and math.isnan(mean)):
            return "—"
        return f"{mean:,.1f}" if std is None or (isinstance(std, float) and math.isnan(std)) else (
            f"{mean:,.1f}{chr(10) if short else ' '}({std:,.1f})")

    for row in rows:
        table.add_row(str(row["table"]).replace("Table ", "") if short else str(row["table"]), str(row["trace"]),
                      f"{row['window_length']:.0e}" if row["window_length"] else "—", str(row["split"]),
                      str(row["orgs"]), str(row["machines"]),
                      short_policy(str(row["policy"])) if short else str(row["policy"]),
                      cell(row["mean"], row["std"]), cell(row["paper_mean"], row["paper_std"]), str(row["windows"]))
    return table


def utility_figure(result: CompareResult) -> Figure:
    """Grouped bars of (psi_u - psi*_u) / p_tot per organization and policy (the reference, all zeros, omitted)."""
    others = [outcome for name, outcome in result.policies.items() if name != result.reference]
    k = result.scenario.n_orgs
    width_in = float(np.clip(2.0 + 0.35 * k * max(len(others), 1), 7.0, 18.0))
    fig = Figure(figsize=(width_in, 4.8), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    x = np.arange(k)
    bar_width = 0.8 / max(len(others), 1)
    for i, outcome in enumerate(others):
        label = rf"{outcome.name}  ($\Delta\psi/p_{{tot}}$ = {_fmt(outcome.fairness.delta_psi_over_ptot)} s)"
        ax.bar(x - 0.4 + (i + 0.5) * bar_width, org_deviation(outcome, result), width=bar_width, label=label)
    ax.axhline(0.0, color="black", linewidth=0.8)
    _label_orgs(ax, result)
    ax.set_ylabel(r"$(\psi_u - \psi^*_u)\,/\,p_{tot}$   [s per unit of work]")
    ax.set_title(f"Per-organization utility relative to {result.reference} at t_end = {result.t_end:,} s\n"
                 f"{_subtitle(result)}", fontsize=10)
    if others:
        ax.legend(fontsize=8, loc="best", title="> 0 favoured, < 0 harmed", title_fontsize=8)
    else:
        ax.text(0.5, 0.5, f"only the reference ({result.reference}) was run: nothing to compare",
                transform=ax.transAxes, ha="center", va="center")
    ax.grid(axis="y", linewidth=0.4, alpha=0.6)
    return fig


def utility_png(result: CompareResult) -> bytes:
    """`utility_figure` rendered as PNG bytes (written atomically by `fairsched.report.export`)."""
    buffer = io.BytesIO()
    utility_figure(result).savefig(buffer, format="png")
    return buffer.getvalue()


def _label_orgs(ax, result: CompareResult) -> None:
    k = result.scenario.n_orgs
    machines = result.scenario.machines_per_org
    step = max(1, int(np.ceil(k / MAX_LABELLED_ORGS)))
    ticks = np.arange(0, k, step)
    ax.set_xticks(ticks, [f"org {u}\n{machines[u]} machine{'s' if machines[u] != 1 else ''}" for u in ticks],
                  fontsize=8)
    ax.set_xlim(-0.6, k - 0.4)
    ax.set_xlabel("organization (and the machines it contributes)")


def _subtitle(result: CompareResult) -> str:
    source = result.scenario.source or "hand-made scenario"
    if len(source) > 90:
        source = "…" + source[-89:]
    return (f"{source}; k = {result.scenario.n_orgs}, m = {result.scenario.n_machines}, "
            f"p_tot = {result.p_tot:,}, seed = {result.seed}")


def _fmt(value: float) -> str:
    if not np.isfinite(value):
        return "-"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def write_result(result: online_experiment.Result, out_dir: str | Path) -> dict[str, Path]:
    """`fairsched.report.write_result` for the online model: `write_compare_outputs` of ``result.compare``."""
    return write_compare_outputs(result.compare, out_dir)


def write_compare_outputs(result: CompareResult, out_dir: str | Path) -> dict[str, Path]:
    """Write every file of the module docstring's layout into `out_dir` (created if needed).

    Returns
    -------
    dict mapping each file's path relative to `out_dir` (e.g. ``"roundrobin/schedule.csv"``) to its full path,
    ``report.json`` included. Existing files of the same names are replaced, atomically.
    """
    out = Path(out_dir)
    written: dict[str, Path] = {}
    workload = "synthetic" if result.config.trace is None else safe_workload_name(str(result.config.trace))

    def put(relative: str, frame: pd.DataFrame) -> None:
        written[relative] = out / relative
        write_csv(frame, out / relative)

    put("summary.csv", summary_frame(result))
    put("per_org.csv", per_org_frame(result))
    put("organizations.csv", organizations_frame(result))
    put("machines.csv", pd.DataFrame({"machine": np.arange(result.scenario.n_machines, dtype=np.int64),
                                      "org": np.asarray(result.scenario.machine_owner, dtype=np.int64)}))
    for name, outcome in result.policies.items():
        put(f"{name}/schedule.csv", outcome.result.schedule.loc[:, list(SCHEDULE_COLUMNS)])
        put(f"{name}/jobs.csv", online_jobs_frame(outcome.result.schedule, workload))
    written["utility.png"] = out / "utility.png"
    with atomic_write(written["utility.png"], "wb") as handle:
        handle.write(utility_png(result))
    written["report.json"] = out / "report.json"
    with atomic_write(written["report.json"]) as handle:
        json.dump(to_json(result, outputs=written), handle, indent=2)
        handle.write("\n")
    return written


def organizations_table(result: CompareResult, *, max_ids: int = 10) -> HtmlTable:
    """report.html's "Organizations" table: one row per organization, its first `max_ids` ids by jobs."""
    frame = organizations_frame(result)
    rows = []
    for org, group in frame.groupby("org", sort=True):
        members = group[group["member"] != ""].sort_values(["jobs", "id"], ascending=[False, True])
        shown = [f"{row.member} {row.id} ({row.jobs:,})" for row in members.head(max_ids).itertuples()]
        if len(members) > max_ids:
            shown.append(f"… {len(members) - max_ids:,} more in organizations.csv")
        first = group.iloc[0]
        rows.append((int(org), int(first["machines"]), f"{first['machine_share']:.1%}", len(members),
                     int(group["jobs"].sum()), int(group["work"].sum()), "; ".join(shown) or "no job"))
    return HtmlTable("Organizations", ("org", "machines", "machine share", "ids", "jobs", "work (machine-s)",
                                       "ids with the most jobs (jobs)"), rows,
                     note=f"Machines: {result.machines_rule or 'given'} ({result.scenario.n_machines:,}). Ids are "
                          f"{result.scenario.orgs_by or 'not known (hand-made scenario)'} ids of the trace, "
                          "spread at random over the organizations unless --org-map names them.")
