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
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from fairsched.errors import ConfigError
from fairsched.openshop import experiment as openshop_experiment
from fairsched.openshop import solve
from fairsched.openshop.experiment import OpenShopReport, load_instance, run_openshop
from fairsched.openshop.generate import random_instance
from fairsched.openshop.metrics import minmax_key, utilities
from fairsched.openshop.policies.exact import brute_force
from fairsched.replicate.jsspp05 import default_traces_dir

__all__ = ["PAPER", "SETTINGS", "Networking20Config", "Networking20Result", "run", "to_json"]

GOOGLE_DIR = "google-clusterdata-2011-2"
SETTINGS: tuple[tuple[bool, str], ...] = ((False, "equal"), (False, "linear"), (True, "equal"), (True, "linear"))
QUICK_PARTS = (0, 1, 2, 3, 4)

ProgressCallback = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Claim:
    """One ratio the paper states: ``metric`` of ``baseline`` vs PBA, oriented so that > 1 means PBA is better.

    ``kind``: "lower" (times, deviations: ratio = baseline / PBA), "higher" (utilities: PBA / baseline) or "same"
    (the paper says "almost the same": ratio = PBA / baseline, expected ≈ 1).
    """

    online: bool
    utilities: str
    metric: str
    baseline: str
    paper: float
    kind: str
    text: str


PAPER: tuple[Claim, ...] = (
    Claim(False, "equal", "mean", "sptf", 1.7, "lower", "average completion time 1.7× better than SPTF"),
    Claim(False, "equal", "mean", "fifo", 3.0, "lower", "average completion time 3× better than FIFO"),
    Claim(False, "equal", "std", "sptf", 1 / 0.65, "lower", "deviation 0.65 of SPTF's"),
    Claim(False, "equal", "std", "fifo", 1 / 0.65, "lower", "deviation 0.65 of FIFO's"),
    Claim(False, "linear", "min", "luf", 9.5, "higher", "worst utility 9.5× greater than LUF's"),
    Claim(False, "linear", "min", "fifo", 6.9, "higher", "worst utility 6.9× greater than FIFO's"),
    Claim(False, "linear", "std", "luf", 1.6, "lower", "utility deviation 1.6× lower than LUF's"),
    Claim(False, "linear", "std", "fifo", 1.4, "lower", "utility deviation 1.4× lower than FIFO's"),
    Claim(False, "linear", "mean", "luf", 1.0, "same", "almost the same average utility as LUF"),
    Claim(True, "equal", "mean", "sptf", 1.7, "lower", "average delay 1.7× better than SPTF"),
    Claim(True, "equal", "mean", "fifo", 3.3, "lower", "average delay 3.3× better than FIFO"),
    Claim(True, "equal", "q4_mean", "sptf", 1.9, "lower", "4th-quartile average delay 1.9× better than SPTF"),
    Claim(True, "equal", "q4_mean", "fifo", 1.7, "lower", "4th-quartile average delay 1.7× better than FIFO"),
    Claim(True, "linear", "min", "fifo", 1.9, "higher", "smallest utility 1.9× greater than FIFO's"),
    Claim(True, "linear", "min", "luf", 14.6, "higher", "smallest utility 14.6× greater than LUF's"),
    Claim(True, "linear", "std", "luf", 1.8, "lower", "utility deviation 1.8× lower than LUF's"),
    Claim(True, "linear", "std", "fifo", 1.3, "lower", "utility deviation 1.3× lower than FIFO's"),
)


@dataclass(frozen=True)
class Networking20Config:
    """What `run` replicates; keyword fields with defaults, stored unchanged (checked by `run`).

    Attributes
    ----------
    traces_dir : directory holding ``google-clusterdata-2011-2``; None = ``$FAIRSCHED_TRACES``, else
        ../shared/traces.
    quick : 5 of the 10 parts; 50 instances for ``reach``.
    seed : the one seed (machine mapping, PBA's perturbation, the random instances).
    reach_instances : random instances for ``reach`` (None: 200, quick 50; 0 skips it).
    """

    traces_dir: Path | None = None
    quick: bool = False
    seed: int = 0
    reach_instances: int | None = None


@dataclass
class Networking20Result:
    """Rows of claims (`PAPER`), the four comparisons, and the exact-reach counts."""

    config: Networking20Config
    rows: list[dict[str, Any]]
    reports: dict[str, OpenShopReport]
    reach: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0


def run(config: Networking20Config, *, progress: ProgressCallback | None = None) -> Networking20Result:
    """Replicate Networking'20 §VII as configured (module docstring).

    Raises
    ------
    ConfigError : the Google slice is missing (naming where it was looked for and how to get it).
    """
    started = time.perf_counter()
    google = _google_dir(config)
    reports: dict[str, OpenShopReport] = {}
    base = openshop_experiment.Config(google=google, google_parts=QUICK_PARTS if config.quick else None)
    loaded = load_instance(base, config.seed)  # the slice is read once for the four settings
    for done, (online, kind) in enumerate(SETTINGS):
        if progress is not None:
            progress("settings", done, len(SETTINGS))
        reports[setting_name(online, kind)] = run_openshop(replace(base, utilities=kind, online=online),
                                                           config.seed, loaded=loaded)
    rows = [claim_row(claim, reports[setting_name(claim.online, claim.utilities)]) for claim in PAPER]
    n_reach = config.reach_instances if config.reach_instances is not None else (50 if config.quick else 200)
    reach = exact_reach(n_reach, seed=config.seed) if n_reach else []
    first = reports[setting_name(True, "equal")]
    notes = [f"Google slice: {first.instance.n_jobs:,} jobs, {first.instance.n_tasks:,} tasks on "
             f"{first.instance.n_machines} machines, arrivals over {_span_hours(first):.1f} h (the paper: a month, "
             "by our estimate ≈19k jobs, ≈600k tasks); δ₀ scaled to a tenth of the arrival span "
             f"({reports[setting_name(True, 'equal')].delta0:,.0f} s; the paper: 3.3e5 s of 3.3e6 s)."]
    if progress is not None:
        progress("settings", len(SETTINGS), len(SETTINGS))
    return Networking20Result(config=config, rows=rows, reports=reports, reach=reach, notes=notes,
                              elapsed_s=time.perf_counter() - started)


def setting_name(online: bool, utilities: str) -> str:
    return f"{'online' if online else 'offline'}-{utilities}"


def claim_row(claim: Claim, report: OpenShopReport) -> dict[str, Any]:
    """Ours beside the paper's ratio; ``holds`` = PBA better in the paper's direction (≈ 1 ± 10 % for "same")."""
    pba = report.outcomes["pba"].summary[claim.metric]
    base = report.outcomes[claim.baseline].summary[claim.metric]
    if claim.kind == "lower":
        ours = base / pba if pba else float("inf")
    else:
        ours = pba / base if base else (float("inf") if pba > 0 else float("nan"))
    holds = abs(ours - 1.0) <= 0.1 if claim.kind == "same" else ours > 1.0
    return {"setting": setting_name(claim.online, claim.utilities), "metric": claim.metric,
            "baseline": claim.baseline, "claim": claim.text, "paper": claim.paper, "ours": ours, "pba": pba,
            "baseline_value": base, "holds": bool(holds)}


REACH_RUNS: tuple[tuple[str, str, dict[str, int]], ...] = (
    ("pba", "equal", {}), ("kmaxmin", "equal", {"k": 2}), ("kmaxmin", "equal", {"k": 3}),
    ("kmaxmin", "equal", {"k": 7}), ("pba", "linear", {}))


def exact_reach(n_instances: int, *, seed: int, n_jobs: int = 7, n_machines: int = 3) -> list[dict[str, Any]]:
    """How close each heuristic's sorted vector is to the brute-force optimum on random instances
    (`random_instance(n_jobs, n_machines, ·, max_priority=5)`, one seed each from `seed`): the share of instances
    where the whole vector is exact, and the mean / least number of leading (worst-first) coordinates that agree.
    Equal utilities compare completion vectors (min-max); linear ones (generalized PBA) utility vectors (max-min).
    """
    leading: dict[tuple[str, str, int | None], list[int]] = {
        (name, kind, params.get("k")): [] for name, kind, params in REACH_RUNS}
    for child in np.random.SeedSequence(seed).spawn(n_instances):
        instance = random_instance(n_jobs, n_machines, np.random.default_rng(child), max_priority=5)
        run_seed = int(child.generate_state(1)[0])
        best = {kind: brute_force(instance, utilities=kind).completion for kind in ("equal", "linear")}
        for name, kind, params in REACH_RUNS:
            got = solve(instance, name, utilities=kind, seed=run_seed, **params).completion
            leading[name, kind, params.get("k")].append(_leading_equal(instance, got, best[kind], kind))
    return [{"algorithm": name if kind == "equal" else "generalized pba", "utilities": kind, "k": k,
             "instances": n_instances, "n_jobs": n_jobs, "n_machines": n_machines,
             "exact_vector": float(np.mean(np.array(v) == n_jobs)), "leading_mean": float(np.mean(v)),
             "leading_min": int(min(v))}
            for (name, kind, k), v in leading.items()]


def _leading_equal(instance: Any, got: np.ndarray, best: np.ndarray, kind: str) -> int:
    """Leading coordinates of the sorted vectors (worst first) that agree; n when the vector is exact."""
    if kind == "equal":
        a, b = minmax_key(got), minmax_key(best)
    else:
        a, b = np.sort(utilities(instance, got, "linear")), np.sort(utilities(instance, best, "linear"))
    differ = np.flatnonzero(a != b)
    return int(differ[0]) if differ.size else int(a.size)


def to_json(result: Networking20Result, outputs: dict[str, Path] | None = None) -> dict[str, Any]:
    """``--json``: rows (claims), per-setting summaries, reach, notes, elapsed_s, outputs."""
    settings = {name: {"delta0_s": report.delta0, "tau": report.tau,
                       "algorithms": {a: o.summary for a, o in report.outcomes.items()}}
                for name, report in result.reports.items()}
    return {"rows": result.rows, "settings": settings, "reach": result.reach, "notes": result.notes,
            "config": {"quick": result.config.quick, "seed": result.config.seed}, "elapsed_s": result.elapsed_s,
            "outputs": {k: str(v) for k, v in (outputs or {}).items()}}


def _google_dir(config: Networking20Config) -> Path:
    folder = (Path(config.traces_dir) if config.traces_dir is not None else default_traces_dir()) / GOOGLE_DIR
    if not (folder / "task_events").is_dir() or not (folder / "job_events").is_dir():
        raise ConfigError(f"the Google clusterdata-2011-2 slice is missing: expected {folder}/task_events and "
                          f"{folder}/job_events (gzip CSV parts part-000NN-of-00500.csv.gz). Download parts from "
                          "the public bucket gs://clusterdata-2011-2 (see docs/openshop.md) and pass --traces DIR")
    return folder


def _span_hours(report: OpenShopReport) -> float:
    """Hours between the first and the last arrival (an online report keeps the arrivals)."""
    arrival = report.instance.arrival
    return float(arrival.max() - arrival.min()) * report.time_unit_s / 3600.0 if arrival.size else 0.0
