"""Terminal tables and the JSON document of a `fairsched compare` run (and of ``trace info``).

Rendering only: every figure comes from `fairsched.experiment.CompareResult`, computed by
`fairsched.online.metrics`. The fairness measure is Delta psi / p_tot of Skowron & Rzadca, SPAA'13 Sec. 6.3 and
PPAM'13 Sec. 5.1: the average unjustified delay (positive deviation: speed-up) of a unit of work, in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Group
from rich.table import Table

import fairsched
from fairsched.experiment import CompareResult, PolicyOutcome, effective_split

# Above this many organizations the per-organization table would be too wide to read: only its extremes are shown.
MAX_ORG_COLUMNS = 12


def to_json(result: CompareResult, outputs: Mapping[str, Path] | None = None) -> dict[str, Any]:
    """The JSON document of a compare run (``fairsched compare --json`` and ``report.json``).

    Keys: ``fairsched_version, model, reference, seed, t_end, p_tot, elapsed_s, config, scenario, workload,
    policies, outputs``. ``policies.<name>`` holds ``psi`` (one int per organization, at t_end),
    ``delta_psi``, ``delta_psi_over_ptot``, ``per_org_deviation`` (psi_u - psi*_u, exact ints),
    ``per_org_deviation_over_ptot`` ((psi_u - psi*_u) / p_tot),
    ``mean_wait``, ``utilization``, ``jobs_started``, ``run_time_s`` and ``is_reference``. Non-finite floats
    become null (strict JSON); ``outputs`` maps each written file to its path.
    """
    doc = {
        "fairsched_version": fairsched.__version__,
        "model": "online",
        "reference": result.reference,
        "seed": result.config.seed,
        "t_end": int(result.t_end),
        "p_tot": int(result.p_tot),
        "elapsed_s": result.elapsed_s,
        "config": _config_json(result),
        "scenario": result.scenario_summary,
        "workload": _workload_json(result),
        "policies": {name: _policy_json(outcome, result) for name, outcome in result.policies.items()},
        "outputs": {key: str(path) for key, path in (outputs or {}).items()},
    }
    return jsonable(doc)


def org_deviation(outcome: PolicyOutcome, result: CompareResult) -> np.ndarray:
    """(psi_u - psi*_u) / p_tot per organization, float64: the bars of the figure (NaN when p_tot = 0)."""
    deviation = np.asarray(outcome.fairness.per_org_deviation, dtype=np.float64)
    return deviation / result.p_tot if result.p_tot else np.full(deviation.shape, np.nan)


def compare_renderable(result: CompareResult) -> Group:
    """Scenario summary, the per-policy table and the per-organization deviations, ready for `rich`."""
    parts: list[Any] = [scenario_table(result), policy_table(result)]
    parts.append(org_table(result))
    return Group(*parts)


def scenario_table(result: CompareResult) -> Table:
    """Two-column summary: workload, scenario (k, m, machines per organization, jobs), t_end, p_tot."""
    table = Table(title="Scenario", show_header=False, title_justify="left", box=None, pad_edge=False)
    table.add_column("key", style="bold")
    table.add_column("value")
    rows = {"workload": result.scenario.source or "(hand-made)"}
    if result.clean_report is not None:
        rows["cleaning"] = "; ".join(line.strip() for line in result.clean_report.lines())
    rows.update({key: _short(value) for key, value in result.scenario_summary.items() if key != "source"})
    rows["t_end"] = f"{result.t_end:,} s"
    rows["p_tot (reference)"] = f"{result.p_tot:,} unit parts of work"
    rows["seed"] = str(result.config.seed)
    rows["elapsed"] = f"{result.elapsed_s:.2f} s"
    for key, value in rows.items():
        table.add_row(key, value)
    return table


def policy_table(result: CompareResult) -> Table:
    """One row per policy: Delta psi / p_tot, the worst organization's deviation, mean wait, utilization, time."""
    table = Table(title=f"Fairness against {result.reference}: Δψ/p_tot (SPAA'13 Sec. 6.3)", title_justify="left")
    table.add_column("policy")
    table.add_column("Δψ/p_tot (s)", justify="right")
    table.add_column("max |ψ_u−ψ*_u|/p_tot (s)", justify="right")
    table.add_column("mean wait (s)", justify="right")
    table.add_column("utilization", justify="right")
    table.add_column("run time (s)", justify="right")
    for name, outcome in result.policies.items():
        deviation = org_deviation(outcome, result)
        label = f"{name} (reference)" if name == result.reference else name
        table.add_row(label, _num(outcome.fairness.delta_psi_over_ptot),
                      _num(float(np.abs(deviation).max()) if deviation.size else math.nan),
                      _num(outcome.mean_wait), f"{outcome.utilization:.1%}", f"{outcome.run_time_s:.2f}")
    return table


def org_table(result: CompareResult) -> Table:
    """(psi_u - psi*_u) / p_tot, one row per policy and one column per organization (machines in the header).

    With more than `MAX_ORG_COLUMNS` organizations only the most favoured and the most harmed are shown.
    """
    k = result.scenario.n_orgs
    machines = result.scenario.machines_per_org
    table = Table(title="Per organization: (ψ_u − ψ*_u)/p_tot in s (> 0 favoured, < 0 harmed)",
                  title_justify="left")
    table.add_column("policy")
    if k <= MAX_ORG_COLUMNS:
        for org in range(k):
            table.add_column(f"org {org}\n{machines[org]} m", justify="right")
    else:
        table.add_column("most favoured", justify="right")
        table.add_column("most harmed", justify="right")
    for name, outcome in result.policies.items():
        deviation = org_deviation(outcome, result)
        if k <= MAX_ORG_COLUMNS:
            table.add_row(name, *(_num(value) for value in deviation))
        else:
            best, worst = int(np.argmax(deviation)), int(np.argmin(deviation))
            table.add_row(name, f"org {best}: {_num(deviation[best])}", f"org {worst}: {_num(deviation[worst])}")
    return table


def trace_info_table(info: Mapping[str, Any]) -> Table:
    """``fairsched trace info``: one row per figure, nested dictionaries flattened as ``outer.inner``."""
    table = Table(title=f"Trace {info.get('source', '')}", show_header=False, title_justify="left", box=None)
    table.add_column("key", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in _flatten(info):
        table.add_row(key, _short(value))
    return table


def key_value_table(title: str, values: Mapping[str, Any]) -> Table:
    """A plain two-column table (e.g. ``trace fetch``'s name and path)."""
    table = Table(title=title, show_header=False, title_justify="left", box=None)
    table.add_column("key", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in values.items():
        table.add_row(key, _short(value))
    return table


def jsonable(value: Any) -> Any:
    """`value` with numpy scalars and arrays, paths and tuples turned into JSON types; NaN and inf become None."""
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [jsonable(item) for item in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


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
    config = result.config
    values = {name: getattr(config, name) for name in config.__dataclass_fields__}
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


def _flatten(values: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            rows += _flatten(value, prefix=f"{name}.")
        else:
            rows.append((name, value))
    return rows


def _short(value: Any) -> str:
    """A compact human form: thousands separators, 4 significant digits, lists joined."""
    value = jsonable(value)
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return _num(value)
    if isinstance(value, list):
        return "; ".join(_short(item) for item in value) if value else "-"  # "," would read as 1,000s
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_short(v)}" for k, v in value.items()) if value else "-"
    return str(value)


def _num(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
        return f"{value:.3e}"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def replication_table(rows: list[Mapping[str, Any]], title: str) -> Table:
    """Δψ/p_tot mean (std) per cell and policy, ours beside the paper's (issue #3 §5 row schema)."""
    table = Table(title=title)
    for name in ("table", "trace", "window", "split", "k", "m", "policy", "ours", "paper", "windows"):
        table.add_column(name, justify="right" if name in ("k", "m", "ours", "paper", "windows") else "left")

    def cell(mean: Any, std: Any) -> str:
        if mean is None or (isinstance(mean, float) and math.isnan(mean)):
            return "—"
        return f"{mean:,.1f}" if std is None or (isinstance(std, float) and math.isnan(std)) else (
            f"{mean:,.1f} ({std:,.1f})")

    for row in rows:
        table.add_row(str(row["table"]), str(row["trace"]), f"{row['window_length']:.0e}" if row["window_length"]
                      else "—", str(row["split"]), str(row["orgs"]), str(row["machines"]), str(row["policy"]),
                      cell(row["mean"], row["std"]), cell(row["paper_mean"], row["paper_std"]), str(row["windows"]))
    return table
