"""Outputs of ``fairsched whatif``: report.html, CSV files, report.json, the --json document and the terminal table.

Renders and writes only: every number comes from `fairsched.audit.whatif.WhatifResult`.

===================  ==========================================================================================
file                 content
===================  ==========================================================================================
report.html          one self-contained page (`fairsched.report.html`) with the policies side by side, one
                     figure per question an operator asks: who waits (mean and 95th-percentile wait per
                     organization), who is over their share (decayed usage share over time against the
                     entitled share, one panel per policy), who subsidizes whom (the ψ − φ gap per
                     organization), and the fair-share factor's trajectory
orgs.csv             `fairsched.audit.whatif.ORG_COLUMNS`, one row per (policy, organization)
policies.csv         `fairsched.audit.whatif.POLICY_COLUMNS`, one row per policy
usage_over_time.csv  policy, time, org, cpu_seconds, usage_share, decayed_usage, decayed_share, fairshare_factor,
                     entitled_share
jobs.csv             policy, job_id, org, submit, start, end, cpus, wait (one row per policy and job)
report.json          `whatif_json` with the files written
===================  ==========================================================================================
"""

from __future__ import annotations

import math
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.audit import whatif_experiment
from fairsched.audit.whatif import WhatifConfig, WhatifResult
from fairsched.report.export import write_csv, write_json
from fairsched.report.html import Figure, Report, Table, write_report_html
from fairsched.report.tables import jsonable

FILES = ("report.html", "orgs.csv", "policies.csv", "usage_over_time.csv", "jobs.csv", "report.json")
JSON_ORG_KEYS = ("org", "cpu_seconds", "usage_share", "entitled_share", "mean_wait", "p95_wait", "gap",
                 "usage_ratio", "decayed_usage_share", "fairshare_factor", "mean_bsld", "psi", "fair_psi", "subsidy",
                 "fst_strict_late", "fst_strict_delay", "fst_relaxed_late", "fst_relaxed_delay", "jobs")


def whatif_command(config: WhatifConfig) -> str:
    """The shell command that reruns this what-if (every option spelled out, defaults included)."""
    args = ["fairsched", "whatif", str(config.log), "--policies", ",".join(config.policies or ()),
            "--half-life", f"{config.half_life:g}", "--calc-period", str(config.calc_period), "--weights",
            config.weights, "--backfill", config.backfill, "--format", config.format]
    if config.tree is not None:
        args += ["--tree", str(config.tree)]
    else:
        args += ["--shares", str(config.shares)]
    for flag, value in (("--org-by", config.org_by), ("--org-map", config.org_map), ("--cpus", config.cpus),
                        ("--since", config.since), ("--until", config.until)):
        if value is not None:
            args += [flag, str(value)]
    args += ["--exact-up-to", str(config.exact_up_to), "--samples", str(config.samples), "--fst-sample",
             str(config.fst_sample), "--seed", str(config.seed)]
    if config.skip_bad_records:
        args.append("--skip-bad-records")
    return shlex.join(args)


def whatif_json(result: WhatifResult, outputs: dict[str, Path] | None = None) -> dict[str, Any]:
    """The one --json document: ``{"policies": [{"policy", "order", "backfill", "summary", "orgs": [...]}],
    "summary", "notes", "meta"}`` (each org: `JSON_ORG_KEYS`)."""
    policies = []
    for row in result.policies.to_dict(orient="records"):
        mine = result.orgs[result.orgs["policy"] == row["policy"]]
        orgs = [{key: org[key] for key in JSON_ORG_KEYS} for org in mine.to_dict(orient="records")]
        policies.append({"policy": row["policy"], "order": row["order"], "backfill": row["backfill"],
                         "summary": {k: v for k, v in row.items() if k not in ("policy", "order", "backfill")},
                         "orgs": orgs})
    doc = {"policies": policies, "summary": result.summary, "notes": list(result.notes), "meta": result.meta}
    if outputs is not None:
        doc["outputs"] = {name: str(path) for name, path in outputs.items()}
    return jsonable(doc)


def write_result(result: whatif_experiment.Result, out_dir: str | Path) -> dict[str, Path]:
    """`fairsched.report.write_result` for a what-if run by ``fairsched sweep``: `write_whatif_outputs`."""
    return write_whatif_outputs(result.whatif, out_dir, command=whatif_command(result.config))


def write_whatif_outputs(result: WhatifResult, out_dir: str | Path, *, command: str) -> dict[str, Path]:
    """Write the module's files into `out_dir` (each atomically); return {name: path}."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    outputs = {name: out / name for name in FILES}
    write_csv(result.orgs, outputs["orgs.csv"])
    write_csv(result.policies, outputs["policies.csv"])
    write_csv(result.usage_over_time, outputs["usage_over_time.csv"])
    write_csv(result.jobs, outputs["jobs.csv"])
    write_json(whatif_json(result, outputs), outputs["report.json"])
    write_report_html(whatif_page(result, command), out)
    return outputs


# -- the page -----------------------------------------------------------------------------------------------------
def whatif_page(result: WhatifResult, command: str) -> Report:
    """The report.html content: the policies side by side, one table and one figure per question."""
    orgs, s = result.orgs, result.summary
    tables = [
        Table("Policies", ("policy", "order", "backfilling", "jobs", "mean wait (s)", "p95 wait (s)",
                           "mean bounded slowdown", "Σ|gap| (s per unit of work)", "largest usage/entitled",
                           "jobs ending after t_end"),
              _rows(result.policies, ("policy", "order", "backfill", "jobs", "mean_wait", "p95_wait", "mean_bsld",
                                      "sum_abs_gap", "max_usage_ratio", "jobs_after_t_end"))),
        Table("Who waits", ("policy", "org", "jobs", "mean wait (s)", "p95 wait (s)", "mean bounded slowdown",
                            "jobs later than strict FST", "mean delay (s)"),
              _rows(orgs, ("policy", "org", "jobs", "mean_wait", "p95_wait", "mean_bsld", "fst_strict_late",
                           "fst_strict_delay"))),
        Table("Who is over their share", ("policy", "org", "CPU-seconds", "usage share", "entitled share",
                                          "usage/entitled", "decayed usage share at t_end",
                                          "fair-share factor at t_end"),
              _rows(orgs, ("policy", "org", "cpu_seconds", "usage_share", "entitled_share", "usage_ratio",
                           "decayed_usage_share", "fairshare_factor")),
              note=f"Usage up to t_end = {s['t_end']:,} s; decay half-life {result.meta['half_life']:g} s."),
        Table("Who subsidizes whom", ("policy", "org", "ψ", "fair ψ = φ·Σψ/v(N)", "gap (ψ − fair ψ)/p_tot",
                                      "verdict"),
              _rows(orgs, ("policy", "org", "psi", "fair_psi", "gap", "subsidy")),
              note=f"Shapley values {s['shapley']}; reference scheduler: {s['reference_scheduler']}; "
                   f"v(N) = {s['v_grand']}. Gap > 0: subsidized, < 0: subsidizing."),
    ]
    owned = ", ".join(f"{o} {c}" for o, c in zip(s["orgs"], s["cpus_per_org"], strict=True))
    notes = [*result.notes, f"Pool: {s['cpus']:,} CPUs, owned as: {owned}.",
             f"Jobs read {s['jobs_read']:,}, replayed {s['jobs_replayed']:,}; skipped: "
             + (", ".join(f"{k}: {v:,}" for k, v in s["skipped"].items()) or "none") + "."]
    if s.get("cpus_excess_text"):
        notes.append(s["cpus_excess_text"])
    return Report(title="fairsched whatif", command=command, summary=_headline(result),
                  config={k: v for k, v in result.meta.items() if v is not None}, tables=tables,
                  figures=_figures(result), notes=notes, files=[f for f in FILES if f != "report.html"])


def _headline(result: WhatifResult) -> str:
    p = result.policies
    best = p.loc[p["mean_wait"].idxmin()]
    text = f"{len(p)} policies on {result.summary['jobs_replayed']:,} jobs; shortest mean wait: {best['policy']} " \
           f"({best['mean_wait']:,.0f} s)"
    gaps = p.dropna(subset=["sum_abs_gap"])
    if not gaps.empty:
        fair = gaps.loc[gaps["sum_abs_gap"].idxmin()]
        text += f"; closest to the Shapley contributions: {fair['policy']} (Σ|gap| {fair['sum_abs_gap']:.4g} s)"
    return text + "."


def _rows(frame: pd.DataFrame, columns: tuple[str, ...]) -> list[tuple]:
    return [tuple(v.item() if isinstance(v, np.generic) else v for v in row)
            for row in frame.loc[:, list(columns)].itertuples(index=False, name=None)]


def _figures(result: WhatifResult) -> list[Figure]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = [
        _bars(plt, result.orgs, "mean_wait", "mean wait (s)", "Who waits: mean wait per organization",
              "Bars: mean wait; dots: 95th percentile.", extra="p95_wait"),
        _panels(plt, result.usage_over_time, "decayed_share", "decayed usage share",
                "Who is over their share: decayed usage share over time against the entitled share (dashed)",
                entitled=True),
        _bars(plt, result.orgs, "gap", "(ψ − fair ψ) / p_tot (s per unit of work)",
              "Who subsidizes whom: the ψ − φ gap per organization",
              "Above 0: the organization got more than its contribution (subsidized); below: it subsidized."),
        _panels(plt, result.usage_over_time, "fairshare_factor", "F = 2^(−U/S)",
                "The fair-share factor's trajectory (Slurm classic, one level)"),
    ]
    return figures


def _bars(plt: Any, orgs: pd.DataFrame, column: str, ylabel: str, title: str, caption: str = "",
          extra: str | None = None) -> Figure:
    policies = list(dict.fromkeys(orgs["policy"]))
    names = list(dict.fromkeys(orgs["org"]))
    width = 0.8 / max(len(policies), 1)
    fig, ax = plt.subplots(figsize=(8, 3.4), dpi=100)
    x = np.arange(len(names))
    for i, policy in enumerate(policies):
        part = orgs[orgs["policy"] == policy].set_index("org").reindex(names)
        where = x - 0.4 + width * (i + 0.5)
        ax.bar(where, part[column].astype(float), width, label=policy, color=f"C{i % 10}")
        if extra is not None:
            ax.plot(where, part[extra].astype(float), "o", color="black", markersize=3)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xticks(x, names, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    fig.tight_layout()
    figure = Figure.from_matplotlib(title, fig, caption=caption)
    plt.close(fig)
    return figure


def _panels(plt: Any, over_time: pd.DataFrame, column: str, ylabel: str, title: str, *,
            entitled: bool = False) -> Figure:
    policies = list(dict.fromkeys(over_time["policy"]))
    cols = min(len(policies), 3)
    rows = math.ceil(len(policies) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols + 1, 2.6 * rows + 0.4), dpi=100, sharex=True,
                             sharey=True, squeeze=False)
    for ax, policy in zip(axes.ravel(), policies, strict=False):
        part = over_time[over_time["policy"] == policy]
        for i, (org, lines) in enumerate(part.groupby("org", sort=True)):
            ax.plot(lines["time"] / 86400, lines[column], label=str(org), color=f"C{i % 10}", linewidth=0.9)
            if entitled:
                ax.axhline(float(lines["entitled_share"].iat[0]), color=f"C{i % 10}", linestyle="--", linewidth=0.7)
        ax.set_title(policy, fontsize=9)
    for ax in axes.ravel()[len(policies):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel, fontsize=8)
    for ax in axes[-1, :]:
        ax.set_xlabel("days since the log's time 0", fontsize=8)
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    figure = Figure.from_matplotlib(title, fig)
    plt.close(fig)
    return figure


def whatif_renderable(result: WhatifResult) -> Any:
    """The terminal view: the headline, then one row per (policy, organization)."""
    from rich.console import Group
    from rich.table import Table as RichTable
    from rich.text import Text

    table = RichTable(title="fairsched whatif")
    columns = (("policy", "policy", "{}"), ("org", "org", "{}"), ("jobs", "jobs", "{:,}"),
               ("usage share", "usage_share", "{:.3f}"), ("entitled", "entitled_share", "{:.3f}"),
               ("mean wait (s)", "mean_wait", "{:,.0f}"), ("p95 wait (s)", "p95_wait", "{:,.0f}"),
               ("bsld", "mean_bsld", "{:.3g}"), ("F", "fairshare_factor", "{:.3g}"),
               ("(ψ−φ)/p_tot (s)", "gap", "{:+.4g}"))
    for title, _, _ in columns:
        table.add_column(title, justify="left" if title in ("policy", "org") else "right")
    for row in result.orgs.to_dict(orient="records"):
        table.add_row(*[("—" if isinstance(row[c], float) and math.isnan(row[c]) else fmt.format(row[c]))
                        for _, c, fmt in columns])
    return Group(Text(_headline(result)), table, *[Text(f"note: {n}") for n in result.notes])
