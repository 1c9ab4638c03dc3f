"""Replication of Networking'20 §VII: PBA against FIFO, SPTF and LUF on the Google cluster trace.

Reference: M. Shafiee, J. Ghaderi, "On max-min fairness of completion times for multi-task job scheduling", IFIP
Networking 2020, §VII. Set-up, as replicated here (`fairsched.openshop.experiment` does the work):

* the Google clusterdata-2011-2 slice of ../shared/traces (10 parts, 13.9 hours of arrivals, not the paper's
  month: 6,760 jobs and 10,239 tasks kept instead of our estimate of ≈19k jobs and ≈600k tasks), jobs with at
  most 200 tasks, the original machines mapped uniformly at random onto 200 (`fairsched.workload.google.read_google`);
* four settings: offline (every job at time 0, §VII-A) and online (arrivals of the trace, δ-intervals, §VII-B),
  each with equal utilities (completion times / delays; PBA vs SPTF and FIFO) and linear utilities
  U_j = P_j·(τ − t) (generalized PBA vs LUF and FIFO);
* online, δ₀ is scaled to the slice: the paper uses δ₀ = 3.3·10⁵ s for 3.3·10⁶ s of arrivals, so δ₀ = a tenth of
  the arrival span here; α = 50, β = 3 as in the paper;
* the paper's claims are ratios between PBA and a baseline (e.g. "average completion 1.7× better than SPTF"); each
  row gives the paper's ratio and ours, oriented so that > 1 means PBA is better;
* ``reach``: how often PBA, k-Max-Min (k = 2, 3, 7) and generalized PBA find the exact max-min fair vector (brute
  force over all permutations) on random instances (n = 7 jobs, m = 3 machines, density 0.5, times 1..10,
  priorities 1..5), and how many of the worst coordinates they get right (`exact_reach`) — the issue asks for it;
  the paper does not report it.

``quick`` reads the first 5 parts of the slice and uses 50 random instances for ``reach`` (instead of 200).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError
from fairsched.replicate._common import SPECS_DIR, ProgressCallback, ReplicationResult, run_sweeps, verdict
from fairsched.replicate.networking20.cell import REACH, SETTINGS
from fairsched.replicate.networking20.cell import Config as CellConfig
from fairsched.replicate.networking20.paper import PAPER, Claim, Networking20Config, setting_name
from fairsched.sweep import Spec, load_spec

__all__ = ["AlgorithmValues", "Networking20Result", "SettingReport", "claim_row", "run", "sweep_spec", "to_json"]

SUMMARY_KEYS: tuple[str, ...] = ("mean", "q4_mean", "std", "min", "max")


@dataclass(frozen=True)
class AlgorithmValues:
    """One algorithm in one setting: the per-job values (utilities with linear utilities, else completion times
    offline and delays online) and their summary (`fairsched.openshop.metrics.summary`)."""

    name: str
    values: np.ndarray
    summary: dict[str, float]


@dataclass(frozen=True)
class SettingReport:
    """One §VII setting as the sweep's cell measured it: its algorithms and the scheduled instance's facts.

    Attributes
    ----------
    name : ``offline-equal``, ``offline-linear``, ``online-equal`` or ``online-linear`` (`setting_name`).
    outcomes : algorithm -> `AlgorithmValues`, in the paper's order.
    n_jobs, n_tasks, n_machines : the slice as scheduled.
    arrival_span_s : seconds between the first and the last arrival.
    max_machine_load : the busiest machine's work, in time units.
    delta0 : δ₀ in seconds (None offline); ``tau`` : τ of linear utilities (None with equal ones).
    time_unit_s : seconds per time unit.
    """

    name: str
    outcomes: dict[str, AlgorithmValues]
    n_jobs: int
    n_tasks: int
    n_machines: int
    arrival_span_s: float
    max_machine_load: int
    delta0: float | None
    tau: float | None
    time_unit_s: float

    @property
    def online(self) -> bool:
        return self.name.startswith("online")

    @property
    def measure(self) -> str:
        """What the per-job values are: completion / delay times, or utilities."""
        if self.tau is not None:
            return "utility"
        return "delay" if self.online else "completion time"


@dataclass(frozen=True, kw_only=True)
class Networking20Result(ReplicationResult):
    """What `run` measured (`ReplicationResult`'s fields): rows of claims (`PAPER`), the four settings (`reports`),
    and the exact-reach counts (`reach`)."""

    config: Networking20Config
    rows: list[dict[str, Any]]
    reports: dict[str, SettingReport]
    reach: list[dict[str, Any]] = field(default_factory=list)


def run(config: Networking20Config, *, progress: ProgressCallback | None = None) -> Networking20Result:
    """Replicate Networking'20 §VII as configured (module docstring), through the sweep layer.

    Each setting, and the exact-reach counts, is one cell of `sweep_spec`
    (`fairsched.replicate.networking20.cell`), run by `fairsched.sweep.run_sweep` on ``config.executor`` with
    ``config.workers`` workers into the store ``config.store`` (a temporary directory when None): a store kept
    between runs resumes an interrupted replication.

    Raises
    ------
    ConfigError : the Google slice is missing (naming where it was looked for and how to get it), or bad options.
    SweepFailed : a cell raised (its one-line error).
    SweepInterrupted : Ctrl-C or SIGTERM; the finished cells stay in ``config.store``.
    """
    started = time.perf_counter()
    if not isinstance(config.workers, int) or isinstance(config.workers, bool) or config.workers < 1:
        raise ConfigError(f"workers={config.workers!r}: expected an integer >= 1 (worker processes)")
    spec = sweep_spec(config)
    CellConfig(traces_dir=config.traces_dir).google_dir()  # a missing slice fails before any cell runs
    stored = run_sweeps({"": spec}, config, workers=config.workers, prefix="fairsched-networking20-",
                        progress=progress, describe="cells")[""]
    reports = {name: _setting_report(name, stored[stored["setting"] == name]) for name in SETTINGS}
    rows = [claim_row(claim, reports[setting_name(claim.online, claim.utilities)]) for claim in PAPER]
    reach = _reach_records(stored[stored["setting"] == REACH])
    first = reports[setting_name(True, "equal")]
    notes = [f"Google slice: {first.n_jobs:,} jobs, {first.n_tasks:,} tasks on {first.n_machines} machines, "
             f"arrivals over {first.arrival_span_s / 3600.0:.1f} h (the paper: a month, by our estimate ≈19k jobs, "
             "≈600k tasks); δ₀ scaled to a tenth of the arrival span "
             f"({first.delta0:,.0f} s; the paper: 3.3e5 s of 3.3e6 s)."]
    return Networking20Result(config=config, rows=rows, reports=reports, reach=reach, notes=notes,
                              elapsed_s=time.perf_counter() - started)


def sweep_spec(config: Networking20Config) -> Spec:
    """The replication as a sweep: the shipped spec (``specs/networking20.toml``, or ``-quick.toml``) with the
    configuration's traces directory, exact-reach instances and seed."""
    overrides: dict[str, Any] = {"traces-dir": config.traces_dir}
    if config.reach_instances is not None:
        overrides["reach-instances"] = config.reach_instances
    spec = load_spec(SPECS_DIR / f"networking20{'-quick' if config.quick else ''}.toml", overrides=overrides)
    return replace(spec, seeds=(config.seed,))


def _setting_report(name: str, frame: pd.DataFrame) -> SettingReport:
    """A setting's rows (one per algorithm, in the paper's order) back as a `SettingReport`."""
    first = frame.iloc[0]
    outcomes = {str(r["algorithm"]): AlgorithmValues(str(r["algorithm"]), np.asarray(r["values"], dtype=np.float64),
                                                     {key: float(r[key]) for key in SUMMARY_KEYS})
                for _, r in frame.iterrows()}
    return SettingReport(name=name, outcomes=outcomes, n_jobs=int(first["n_jobs"]), n_tasks=int(first["n_tasks"]),
                         n_machines=int(first["n_machines"]), arrival_span_s=float(first["arrival_span_s"]),
                         max_machine_load=int(first["max_machine_load"]), delta0=_optional(first["delta0"]),
                         tau=_optional(first["tau"]), time_unit_s=float(first["time_unit_s"]))


def _reach_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """`exact_reach`'s records back from the store (integers as integers, k None where it has none)."""
    return [{"algorithm": str(r["algorithm"]), "utilities": str(r["utilities"]),
             "k": None if pd.isna(r["k"]) else int(r["k"]), "instances": int(r["instances"]),
             "n_jobs": int(r["n_jobs"]), "n_machines": int(r["n_machines"]),
             "exact_vector": float(r["exact_vector"]), "leading_mean": float(r["leading_mean"]),
             "leading_min": int(r["leading_min"])} for _, r in frame.iterrows()]


def _optional(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)



def claim_row(claim: Claim, report: SettingReport) -> dict[str, Any]:
    """Ours beside the paper's ratio, with the project's ``verdict``: ``matches`` (PBA's gain, ratio - 1,
    within a factor 1.25 of the paper's; ≈ 1 ± 10 % for "same"), ``direction only`` (PBA better, by another
    gain) or ``no``."""
    pba = report.outcomes["pba"].summary[claim.metric]
    base = report.outcomes[claim.baseline].summary[claim.metric]
    if claim.kind == "lower":
        ours = base / pba if pba else float("inf")
    else:
        ours = pba / base if base else (float("inf") if pba > 0 else float("nan"))
    return {"setting": setting_name(claim.online, claim.utilities), "metric": claim.metric,
            "baseline": claim.baseline, "claim": claim.text, "paper": claim.paper, "ours": ours, "pba": pba,
            "baseline_value": base, "verdict": verdict(claim.paper, ours, claim.kind)}



def to_json(result: Networking20Result, outputs: dict[str, Path] | None = None) -> dict[str, Any]:
    """``--json``: rows (claims), per-setting summaries, reach, notes, elapsed_s, outputs."""
    settings = {name: {"delta0_s": report.delta0, "tau": report.tau,
                       "algorithms": {a: o.summary for a, o in report.outcomes.items()}}
                for name, report in result.reports.items()}
    return {"rows": result.rows, "settings": settings, "reach": result.reach, "notes": result.notes,
            "config": {"quick": result.config.quick, "seed": result.config.seed}, "elapsed_s": result.elapsed_s,
            "outputs": {k: str(v) for k, v in (outputs or {}).items()}}
