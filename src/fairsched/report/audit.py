"""Outputs of ``fairsched audit``: report.html, orgs.csv, jobs.csv, report.json, metrics.prom, and the --json document.

=============  ==============================================================================================
file           content
=============  ==============================================================================================
report.html    one self-contained page (`fairsched.report.html`): the verdict lines first, then the sharing-
               incentive table, usage against entitlement, contribution against utility, fair start times,
               the figures (ψ against φ bars, usage share over time against the entitled share, Slurm's
               fair-share factor over time, dominant shares over time, the wait CDF of each organization)
orgs.csv       `fairsched.audit.ORG_COLUMNS`, one row per organization
jobs.csv       one row per job: job_id, org, submit, start, end, cpus, wait, fst_strict, fst_relaxed, re_deficit
report.json    `audit_json`: the --json document plus the files written
metrics.prom   OpenMetrics text, one gauge family per measure, labelled by ``org``, ending in ``# EOF``
=============  ==============================================================================================
"""

from __future__ import annotations

import math
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched._io import atomic_write
from fairsched.audit import AuditConfig, AuditResult
from fairsched.report.audit_figures import audit_figures, log_dates, zone_label
from fairsched.report.export import write_csv, write_json
from fairsched.report.html import Report, Table, write_report_html
from fairsched.report.tables import jsonable

FILES = ("report.html", "orgs.csv", "jobs.csv", "report.json", "metrics.prom")

# OpenMetrics gauges: (metric name, orgs.csv column, help text).
PROM_ORG_GAUGES = (
    ("fairsched_org_usage_share", "usage_share", "Share of the pool's CPU time the organization used."),
    ("fairsched_org_entitled_share", "entitled_share", "Share of the pool the organization is entitled to."),
    ("fairsched_org_usage_ratio", "usage_ratio", "Usage share divided by the entitled share."),
    ("fairsched_org_cpu_seconds", "cpu_seconds", "CPU-seconds used in the audit window."),
    ("fairsched_org_fairshare_factor", "fairshare_factor", "Slurm classic fair-share factor 2^(-U/S) at the end."),
    ("fairsched_org_psi", "psi", "Strategy-proof utility psi_sp of the recorded schedule."),
    ("fairsched_org_shapley_value", "phi", "Shapley contribution phi in the coalition game."),
    ("fairsched_org_shapley_gap_seconds", "gap", "(psi - phi) / p_tot: seconds per unit of work; > 0 subsidized."),
    ("fairsched_org_subsidy_cpu_hours", "subsidy_cpu_hours", "CPU-hours received (> 0) or given (< 0) against "
                                                             "its share of the contribution."),
    ("fairsched_org_alone_mean_wait_seconds", "alone_mean_wait", "Mean wait alone on its own CPUs (reference)."),
    ("fairsched_org_pool_mean_wait_seconds", "pool_mean_wait", "Mean wait in the pool (recorded)."),
    ("fairsched_org_fst_strict_late_jobs", "fst_strict_late", "Jobs started after their strict fair start time."),
    ("fairsched_org_dominant_share_mean", "dominant_share_mean", "Mean DRF dominant share."),
)


def audit_command(config: AuditConfig) -> str:
    """The shell command that reruns this audit (every option spelled out, defaults included)."""
    args = ["fairsched", "audit", str(config.log), "--format", config.format]
    if config.org_by is not None:
        args += ["--org-by", config.org_by]
    if config.org_map is not None:
        args += ["--org-map", str(config.org_map)]
    if config.unmapped_org is not None:
        args += ["--unmapped-org", config.unmapped_org]
    args += ["--shares", str(config.shares)]
    if config.top is not None:
        args += ["--top", str(config.top)]
    if config.cpus is not None:
        args += ["--cpus", str(config.cpus)]
    for flag, value in (("--since", config.since), ("--until", config.until)):
        if value is not None:
            args += [flag, str(value)]
    if config.every is not None:
        args += ["--every", config.every]
    args += ["--reference", config.reference, "--half-life", f"{config.half_life:g}", "--exact-up-to",
             str(config.exact_up_to), "--samples", str(config.samples), "--fst-sample", str(config.fst_sample),
             "--seed", str(config.seed)]
    if config.skip_bad_records:
        args.append("--skip-bad-records")
    return shlex.join(args)


def audit_json(result: AuditResult, outputs: dict[str, Path] | None = None) -> dict[str, Any]:
    """The one --json document: orgs, jobs_read, jobs_used, skipped, reference_scheduler, shapley, summary."""
    orgs = []
    for row in result.orgs.to_dict(orient="records"):
        row["members"] = row["members"].split(";") if row["members"] else []
        orgs.append(row)
    shap = result.shapley
    shapley: dict[str, Any] = {"method": shap.method}
    if shap.method == "sampled":
        shapley |= {"samples": shap.n_samples, "confidence": 0.95, "interval": {
            org: [float(lo), float(hi)] for org, lo, hi in zip(result.orgs["org"], shap.low, shap.high, strict=True)},
            "note": "sampled values: the gaps need not sum to zero; gap_rel_low/gap_rel_high bound gap_rel"}
    elif shap.method == "none":
        shapley["note"] = "one organization: nothing to share, no game played"
    else:
        shapley["exact"] = {org: str(value) for org, value in zip(result.orgs["org"], shap.exact, strict=True)}
    summary = {k: v for k, v in result.summary.items()
               if k not in ("jobs_read", "jobs_used", "skipped", "reference_scheduler")}
    doc = {"orgs": orgs, "jobs_read": result.summary["jobs_read"], "jobs_used": result.summary["jobs_used"],
           "skipped": result.summary["skipped"], "reference_scheduler": result.summary["reference_scheduler"],
           "shapley": shapley, "verdicts": list(result.verdicts), "summary": summary, "meta": result.meta}
    if result.windows is not None:
        doc["windows"] = result.windows.to_dict(orient="records")
    if outputs is not None:
        doc["outputs"] = {name: str(path) for name, path in outputs.items()}
    return jsonable(doc)


def metrics_prom(result: AuditResult) -> str:
    """OpenMetrics text exposition (one gauge family per measure, ``org`` label), ending in ``# EOF``."""
    lines = []
    for name, column, text in PROM_ORG_GAUGES:
        lines += [f"# TYPE {name} gauge", f"# HELP {name} {text}"]
        for org, value in zip(result.orgs["org"], result.orgs[column], strict=True):
            lines.append(f'{name}{{org="{_label(org)}"}} {_number(value)}')
    for name, key, text in (("fairsched_audit_delta_psi_over_ptot_seconds", "delta_psi_over_ptot",
                             "Distance of the recorded utilities from the fair ones, per unit of work."),
                            ("fairsched_audit_jobs_used", "jobs_used", "Jobs of the log used by the audit."),
                            ("fairsched_audit_jain_usage_ratio", "jain_usage_ratio",
                             "Jain's index of usage/entitlement over organizations.")):
        lines += [f"# TYPE {name} gauge", f"# HELP {name} {text}", f"{name} {_number(result.summary[key])}"]
    return "\n".join([*lines, "# EOF"]) + "\n"


def _label(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: Any) -> str:
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(value)


def orgs_rows(result: AuditResult) -> pd.DataFrame:
    """orgs.csv: one row per organization; with ``--every``, the whole audit's rows (window ``all``) then one row
    per window and organization (window number, window_start, window_end in log seconds)."""
    if result.windows is None:
        return result.orgs
    whole = result.orgs.assign(window="all", window_start=result.summary["t_begin"],
                               window_end=result.summary["t_end"])
    return pd.concat([whole, result.windows.astype({"window": str})], ignore_index=True)[list(result.windows.columns)]


def write_audit_outputs(result: AuditResult, out_dir: str | Path, *, command: str) -> dict[str, Path]:
    """Write the module's files into `out_dir` (each atomically); return {name: path}."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    outputs = {name: out / name for name in FILES}
    write_csv(orgs_rows(result), outputs["orgs.csv"])
    write_csv(result.jobs, outputs["jobs.csv"])
    with atomic_write(outputs["metrics.prom"]) as handle:
        handle.write(metrics_prom(result))
    write_json(audit_json(result, outputs), outputs["report.json"])
    write_report_html(audit_page(result, command), out)
    return outputs


# -- the page -----------------------------------------------------------------------------------------------------
# One format per column kind (`Table.formats`): counts, CPU-hours, shares, relative gaps, utilities, seconds.
COUNT, HOURS, SHARE, REL, RATIO, BIG, SECONDS = ",.0f", "+,.1f", ".1%", "+.2%", ".3f", ".4g", ",.0f"


def audit_page(result: AuditResult, command: str) -> Report:
    """The report.html content: the answer first (was sharing worth it, who subsidized whom, by how much), then
    the command and configuration, the notes, the figures and the detailed tables."""
    s = result.summary
    tables = _detail_tables(result)
    warnings = [*s.get("warnings", []), *([s["cpus_excess_text"]] if s.get("cpus_excess_text") else [])]
    notes = [*result.verdicts[2:], f"Reference scheduler: {s['reference_scheduler']}.",
             f"Ownership: {s['cpus_how']}."]
    config = {k: v for k, v in result.meta.items() if v is not None}
    return Report(title=f"fairsched audit of {Path(result.meta['log']).name}", command=command,
                  summary=result.verdicts[0], answer=[_answer_table(result)], config=config, tables=tables,
                  figures=audit_figures(result), notes=notes, warnings=[w for w in warnings if w not in notes],
                  files=[f for f in FILES if f != "report.html"])


def _answer_table(result: AuditResult) -> Table:
    from fairsched.audit.verdicts import who_subsidized_whom, worth_it

    orgs, s = result.orgs, result.summary
    rows = [(r.org, r.jobs, r.cpus, r.entitled_share, r.usage_share, worth_it(r), r.subsidy, r.subsidy_cpu_hours,
             r.gap_rel, _interval(r, result.shapley.method)) for r in orgs.itertuples()]
    run = s.get("run_seconds")
    note = " ".join([
        who_subsidized_whom(orgs),
        *result.verdicts[1:2],  # the game the answer rests on (one organization: the next verdict line)
        "CPU-hours: the utility ψ it got beyond (+) or short of (−) its share of the contribution φ, valued at the "
        "pool's mean utility per CPU-hour; % of its contribution: ψ / (φ scaled to the recorded total) − 1.",
        f"Usage in {s['usage_unit']}" + (" (AllocTRES billing=)." if s["usage_unit"] != "CPU-seconds" else "."),
        f"Audit of {s['jobs_used']:,} jobs, {_span(s)}" + (f", run in {run:,.1f} s." if run is not None else "."),
    ])
    return Table("Was sharing worth it, and who subsidized whom",
                 ("organization", "jobs", "CPUs owned", "entitled share", "usage share", "sharing worth it?",
                  "subsidy", "CPU-hours received (+) / given (−)", "vs its contribution", "95% interval"),
                 rows, note=note, formats=(None, COUNT, COUNT, SHARE, SHARE, None, None, HOURS, REL, None))


def _interval(row: Any, method: str) -> str:
    if method != "sampled" or not math.isfinite(row.gap_rel_low):
        return "exact" if method == "exact" else "–"
    return f"{row.gap_rel_low:+.2%} to {row.gap_rel_high:+.2%}"


def _span(s: dict[str, Any]) -> str:
    start, end = log_dates(s, np.array([s["t_begin"], s["t_end"]], dtype=np.float64))
    if isinstance(start, float):
        return f"{s['t_end'] - s['t_begin']:,} s of the log"
    return f"{start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M} ({zone_label(s)})"


def _detail_tables(result: AuditResult) -> list[Table]:
    orgs, s = result.orgs, result.summary
    unit = s["usage_unit"]
    slurm = ("slurm_norm_shares", "slurm_fairshare", "slurm_level_fs") if s.get("slurm_reported") else ()
    tables = [
        Table("Sharing incentive: alone on its own CPUs against the pool, both replayed by the reference scheduler "
              "(recorded figures beside)",
              ("org", "ψ alone", "ψ pool (replayed)", "ψ pool, jobs that fit alone (replayed)", "ψ pool (recorded)",
               "ψ pool, jobs that fit alone (recorded)",
               "mean wait alone (s)", "mean wait pool, replayed (s)", "mean wait pool, recorded (s)",
               "better off alone", "better off alone, jobs that fit", "jobs too wide to run alone"),
              _rows(orgs, ("org", "alone_psi", "replay_psi", "replay_psi_fit", "psi", "psi_fit", "alone_mean_wait",
                           "replay_mean_wait", "pool_mean_wait", "better_alone", "better_alone_fit",
                           "alone_jobs_too_wide")),
              note="Alone and pool are measured in the same world (the replay); the recorded schedule ran on "
                   "nodes with memory limits the replay ignores.",
              formats=(None, BIG, BIG, BIG, BIG, BIG, SECONDS, SECONDS, SECONDS, None, None, COUNT)),
        Table("Organizations and their members", ("org", "members", "jobs", "never started", "CPUs owned"),
              _rows(orgs, ("org", "members", "jobs", "jobs_never_started", "cpus")),
              formats=(None, None, COUNT, COUNT, COUNT)),
        Table("Usage against entitlement", ("org", "CPU-seconds", f"usage ({unit})", "usage share", "entitled share",
                                            "ratio", "decayed usage share", "fair-share factor F = 2^(−U/S)",
                                            "LevelFS = S/U", *(c.replace("slurm_", "Slurm's ") for c in slurm)),
              _rows(orgs, ("org", "cpu_seconds", "usage", "usage_share", "entitled_share", "usage_ratio",
                           "decayed_usage_share", "fairshare_factor", "level_fs", *slurm)),
              note=f"Half-life {result.meta['half_life']:g} s. Jain's index of usage/entitlement "
                   f"{s['jain_usage_ratio']:.4f}, Gini {s['gini_usage_ratio']:.4f}."
                   + (" Slurm's columns: what the sshare dump of --shares printed." if slurm else ""),
              formats=(None, COUNT, COUNT, SHARE, SHARE, RATIO, SHARE, RATIO, RATIO, *(RATIO,) * len(slurm))),
        Table("Utility against Shapley contribution", ("org", "ψ (recorded)", "φ", "φ 95% low", "φ 95% high",
                                                      "fair ψ = φ·Σψ/v(N)", "ψ/fair ψ − 1", "95% low", "95% high",
                                                      "verdict", "CPU-hours", "gap (ψ − fair ψ)/p_tot (s)"),
              _rows(orgs, ("org", "psi", "phi", "phi_low", "phi_high", "fair_psi", "gap_rel", "gap_rel_low",
                           "gap_rel_high", "subsidy", "subsidy_cpu_hours", "gap")),
              note=f"Shapley values {result.shapley.method}" + ("" if result.shapley.method != "sampled" else
                                                                " (the gaps need not sum to zero; an organization "
                                                                "whose interval holds 0 is called neither)")
                   + f"; v(N) = {s['v_grand']}, Σφ = {s['sum_phi']:.6g}; "
                   f"Δψ/p_tot = {s['delta_psi_over_ptot']:.6g} s against {s['fair_utilities']}. Jain's index of "
                   f"ψ/φ {s['jain_psi_phi']:.4f}, Gini {s['gini_psi_phi']:.4f}.",
              formats=(None, BIG, BIG, BIG, BIG, BIG, REL, REL, REL, None, HOURS, ".4g")),
        Table("Fair start times (JSSPP'05) and resource equality",
              ("org", "jobs later than strict FST", "mean delay (s)", "jobs later than relaxed FST",
               "mean delay (s)", "RE deficit (CPU-s)", "mean dominant share"),
              _rows(orgs, ("org", "fst_strict_late", "fst_strict_delay", "fst_relaxed_late", "fst_relaxed_delay",
                           "re_deficit", "dominant_share_mean")),
              note=(f"FST measured for {s['fst_measured_jobs']:,} jobs"
                    + (" (a uniform sample of the jobs that needed a what-if: counts are estimates)"
                       if s["fst_sampled"] else "") + ". Memory capacity for DRF: "
                    + (f"{s['memory_capacity_mb']:,.0f} MB (largest concurrent allocation)"
                       if s["memory_capacity_mb"] else "none in the log (CPU shares only)") + "."),
              formats=(None, COUNT, SECONDS, COUNT, SECONDS, COUNT, SHARE)),
    ]
    return tables


def _rows(frame: pd.DataFrame, columns: tuple[str, ...]) -> list[tuple]:
    return [tuple(_plain(v) for v in row) for row in frame.loc[:, list(columns)].itertuples(index=False, name=None)]


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value


def audit_renderable(result: AuditResult) -> Any:
    """The terminal view: the verdict lines, then one row per organization."""
    from rich.console import Group
    from rich.table import Table as RichTable
    from rich.text import Text

    table = RichTable(title="fairsched audit")
    columns = (("org", "org", "{}"), ("jobs", "jobs", "{:,}"), ("usage/entitled", "usage_ratio", "{:.3g}"),
               ("F", "fairshare_factor", "{:.3g}"), ("vs fair ψ", "gap_rel", "{:+.2%}"), ("subsidy", "subsidy", "{}"),
               ("CPU-h", "subsidy_cpu_hours", "{:+,.1f}"),
               ("wait alone (s)", "alone_mean_wait", "{:,.0f}"), ("wait pool, replay (s)", "replay_mean_wait",
                                                                  "{:,.0f}"),
               ("wait pool, log (s)", "pool_mean_wait", "{:,.0f}"), ("alone better", "better_alone", "{}"),
               ("… for jobs that fit", "better_alone_fit", "{}"))
    for title, _, _ in columns:
        table.add_column(title, justify="left" if title in ("org", "members") else "right")
    for row in result.orgs.to_dict(orient="records"):
        members = row["members"] if len(row["members"]) <= 40 else row["members"][:37] + "..."
        table.add_row(*[("—" if isinstance(row[c], float) and math.isnan(row[c]) else
                         fmt.format(members if c == "members" else row[c])) for _, c, fmt in columns])
    return Group(*[Text(line) for line in result.verdicts], table)
