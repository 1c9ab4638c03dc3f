"""`run_audit`: the fairness report of a recorded schedule, organization by organization (docs/audit.md).

Steps: read the log and form organizations (`fairsched.audit.log`) → usage against entitlement over time
(`fairsched.audit.usage`) → ψsp of the recorded schedule and the coalition game under the reference scheduler,
Shapley values, sharing incentive (`fairsched.audit.game`) → fair start times, resource equality, dominant
shares, Jain and Gini (`fairsched.audit.fairness`). The library computes; `fairsched.report.audit` writes.

Δψ/p_tot of the recorded schedule (PPAM'13 Sec. 5.1) is Σ_u |ψ_u − ψ*_u| / p_tot, p_tot the unit parts executed
by t_end in the recorded schedule. ψ* is the utility vector of a fair schedule. With the ``backfill`` reference
no exactly fair backfilling scheduler exists, so ψ* = φ (SPAA'13 Def. 3.2: a schedule is fair when every
organization's utility equals its Shapley contribution). With the ``online`` reference, ψ* is the utility of the
papers' fair scheduler REF (SPAA'13 Alg. 1; RAND's sampled version beyond ``exact_up_to``) run on the pool, as in
PPAM'13. The signed gap of organization u is (ψ_u − φ_u) / p_tot in both cases: positive means u got more than
its contribution (it was subsidized), negative that it subsidized the others.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import fairsched
from fairsched.audit import entitlement, fairness, game, game_cache, log, sharing, usage, verdicts
from fairsched.backfill.metrics import bounded_slowdown
from fairsched.errors import ConfigError, InputError

Progress = Callable[[str, int, int], None]
MAX_ORGS = 1000  # the sampled game replays up to k + 1 coalitions per ordering: 2·10^5 at the default 200
MAX_ORGS_ONLINE = 62  # --reference online: REF's and RAND's coalitions are 64-bit masks (fairsched.online)


@dataclass(frozen=True)
class AuditConfig:
    """The options of ``fairsched audit`` by the same names (docs/audit.md); validated on creation."""

    log: Path
    format: str = "auto"
    org_by: str | None = None
    org_map: Path | None = None
    shares: str = "equal"
    cpus: int | None = None
    since: str | None = None
    until: str | None = None
    reference: str = game.DEFAULT_REFERENCE
    half_life: float = usage.DEFAULT_HALF_LIFE
    exact_up_to: int = 12
    samples: int = 200
    seed: int = 0
    fst_sample: int = 2000
    skip_bad_records: bool = False
    unmapped_org: str | None = None
    top: int | None = None
    every: str | None = None

    def __post_init__(self) -> None:
        if self.format not in log.FORMATS:
            raise ConfigError(f"--format {self.format!r}: choose one of {', '.join(log.FORMATS)}")
        if self.org_by is not None and self.org_by not in log.ORG_BY:
            raise ConfigError(f"--org-by {self.org_by!r}: choose one of {', '.join(log.ORG_BY)}")
        if self.reference not in game.REFERENCES:
            raise ConfigError(f"--reference {self.reference!r}: choose one of {', '.join(game.REFERENCES)}")
        if self.cpus is not None and self.cpus < 1:
            raise ConfigError(f"--cpus {self.cpus}: expected a positive number of CPUs")
        if not self.half_life > 0:
            raise ConfigError(f"--half-life {self.half_life}: expected a positive number of seconds")
        if not 0 <= self.exact_up_to <= 20:
            raise ConfigError(f"--exact-up-to {self.exact_up_to}: expected 0..20 (2**k schedules are simulated)")
        if self.fst_sample < 0:
            raise ConfigError(f"--fst-sample {self.fst_sample}: expected >= 0 (0: every job)")
        if self.samples < 2:
            raise ConfigError(f"--samples {self.samples}: expected at least 2 permutations")
        if self.top is not None and not 1 <= self.top <= MAX_ORGS:
            raise ConfigError(f"--top {self.top}: expected 1..{MAX_ORGS} organizations (the rest are pooled as "
                              f"{entitlement.OTHER})")
        if self.every is not None:
            parse_every(self.every)
        if self.unmapped_org is not None and not self.unmapped_org.strip():
            raise ConfigError("--unmapped-org: expected an organization name")


@dataclass(frozen=True)
class AuditResult:
    """What an audit found.

    Attributes
    ----------
    orgs : one row per organization (`ORG_COLUMNS`).
    jobs : one row per job of the window: job_id, org, submit, start, end, cpus, wait, fst_strict,
        fst_relaxed, re_deficit (times on the log's clock; start/end/wait/FST empty for never-started jobs).
    usage_over_time : `fairsched.audit.usage.replay` rows.
    dominant_over_time : `fairsched.audit.fairness.dominant_shares` rows.
    shapley : the Shapley values and the coalition values evaluated.
    summary : scalars (Δψ/p_tot, p_tot, v(N), Jain/Gini, counts, ...).
    verdicts : the report's first lines, in plain words.
    meta : the configuration, the resolved defaults and how they were chosen, fairsched's version.
    windows : with ``--every``, one row per window and organization (window, window_start, window_end, then
        `ORG_COLUMNS`), each window audited on its own; else None.
    """

    orgs: pd.DataFrame
    jobs: pd.DataFrame
    usage_over_time: pd.DataFrame
    dominant_over_time: pd.DataFrame
    shapley: game.ShapleyResult
    summary: dict[str, Any]
    verdicts: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict)
    windows: pd.DataFrame | None = None


ORG_COLUMNS = ("org", "members", "jobs", "jobs_never_started", "cpus", "entitled_share", "cpu_seconds", "usage",
               "usage_share", "usage_ratio", "decayed_usage_share", "fairshare_factor", "level_fs",
               *entitlement.SLURM_COLUMNS, "psi", "phi", "phi_low",
               "phi_high", "psi_fit", "fair_psi", "gap", "subsidy_cpu_hours", "gap_rel", "gap_rel_low",
               "gap_rel_high", "subsidy",
               "alone_psi", "replay_psi", "replay_psi_fit", "alone_mean_wait", "replay_mean_wait", "pool_mean_wait",
               "alone_mean_bsld", "pool_mean_bsld", "better_alone", "better_alone_fit", "alone_jobs_too_wide",
               "fst_strict_late", "fst_strict_delay", "fst_relaxed_late", "fst_relaxed_delay", "re_deficit",
               "dominant_share_mean")


def run_audit(config: AuditConfig, *, progress: Progress | None = None) -> AuditResult:
    """Audit the recorded schedule of `config.log` (module docstring; docs/audit.md for every number)."""
    clock = time.perf_counter()
    step = progress or (lambda name, done, total: None)
    workload, fmt = log.read_log(config.log, config.format, skip_bad_records=config.skip_bad_records)
    step("read", 1, 1)
    result = _audit(config, workload, fmt, progress)
    if config.every is not None:
        windows = _windows(config, workload, fmt, result, progress)
        result = dataclasses.replace(result, windows=windows,
                                     summary=result.summary | {"windows": int(windows["window"].nunique())})
    result.summary["run_seconds"] = time.perf_counter() - clock
    return result


def _windows(config: AuditConfig, workload: Any, fmt: str, whole: AuditResult,
             progress: Progress | None) -> pd.DataFrame:
    """One audit per window of `config.every` seconds from the audit's start (jobs submitted in the window,
    utilities at its end); one row per window and organization (`ORG_COLUMNS` after window, window_start,
    window_end). A window where no job started is left out and counted in the summary's warnings."""
    every = parse_every(config.every)
    begin, end = whole.summary["t_begin"], whole.summary["t_end"]
    starts = list(range(int(begin), int(end), every))
    frames = []
    for i, w0 in enumerate(starts, start=1):
        w1 = min(w0 + every, int(end))
        if progress is not None:
            progress("windows", i - 1, len(starts))
        part = dataclasses.replace(config, since=str(w0), until=str(w1), every=None, cpus=whole.summary["cpus"])
        try:
            rows = _audit(part, workload, fmt, None).orgs
        except InputError:  # no job submitted in the window started: nothing to audit there
            whole.summary.setdefault("warnings", []).append(
                f"--every: window {i} ({w0:,} to {w1:,} s) is left out: no job submitted in it started.")
            continue
        frames.append(rows.assign(window=i, window_start=w0, window_end=w1))
    if progress is not None:
        progress("windows", len(starts), len(starts))
    columns = ["window", "window_start", "window_end", *ORG_COLUMNS]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


def parse_every(text: str) -> int:
    """``--every``: seconds, or a number with a unit s, m, h, d or w (``30d``); at least 1 s."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
    raw = str(text).strip().lower()
    scale = units.get(raw[-1:])
    number = raw[:-1] if scale is not None else raw
    try:
        seconds = float(number) * (scale or 1)
    except ValueError:
        raise ConfigError(f"--every {text!r}: expected a duration such as 30d, 12h, 3600 (s, m, h, d, w)") from None
    if not seconds >= 1:
        raise ConfigError(f"--every {text!r}: expected a duration of at least 1 s")
    return int(seconds)


def _audit(config: AuditConfig, workload: Any, fmt: str, progress: Progress | None) -> AuditResult:
    """The audit of one window of the log read (`run_audit`)."""
    step = progress or (lambda name, done, total: None)
    org_by = config.org_by or log.default_org_by(fmt)
    recorded = log.recorded_jobs(workload, fmt, org_by=org_by, org_map=config.org_map, since=config.since,
                                 until=config.until, skip_bad_records=config.skip_bad_records,
                                 unmapped_org=config.unmapped_org)
    entitled = entitlement.read_entitlement(config.shares, recorded, org_by)
    recorded = entitlement.with_idle(recorded, entitled.idle)
    if config.top is not None:
        recorded, renamed = entitlement.keep_top(recorded, config.top)
        entitled = entitled.pooled(renamed)
    limit, why = ((MAX_ORGS_ONLINE, "with --reference online (coalitions are 64-bit masks)")
                  if config.reference == "online" else (MAX_ORGS, f"({config.samples} sampled orderings replay up "
                                                                   "to k + 1 coalitions each)"))
    if recorded.n_orgs > limit:
        raise ConfigError(f"{recorded.n_orgs} organizations (--org-by {org_by}): the coalition game holds at most "
                          f"{limit} {why}; pass --top N to keep the N largest by CPU-seconds and pool the rest as "
                          f"{entitlement.OTHER}, or group keys with --org-map")
    owner = log.ownership(recorded, entitled.weights, entitled.how, config.cpus, file_cpus=entitled.cpus)
    k, t_end = recorded.n_orgs, recorded.t_end
    jobs = recorded.jobs
    started = recorded.started
    start, run, cpus, org = (recorded.column(c) for c in ("start", "run", "cpus", "org"))
    psi_terms = np.zeros(len(jobs), dtype=object)
    psi_terms[started] = game.psi_terms(start[started], np.maximum(run[started], 0), cpus[started], t_end)
    psi = [game.exact_sum(psi_terms[started & (org == u)]) for u in range(k)]
    units = np.where(started, np.clip(np.minimum(start + np.maximum(run, 0), t_end) - np.minimum(start, t_end), 0,
                                      None), 0)
    p_tot = game.exact_sum(units * cpus)
    ref_jobs = _reference_jobs(recorded)
    the_game = game.Game(ref_jobs, owner.cpus, t_end, config.reference)
    if k == 1:  # nothing to share: no game (docs/audit.md)
        shap = game.no_game(1)
        psi_star, fair_how = psi, "none: one organization has nothing to share, no game is played"
    else:
        shap = game_cache.shapley(the_game, exact_up_to=config.exact_up_to, samples=config.samples, seed=config.seed,
                            progress=progress)
        psi_star, fair_how = _fair_utilities(config, recorded, owner, ref_jobs, shap)
    step("fair utilities", 1, 1)
    rate, usage_unit = log.usage_rate(recorded)
    replayed = usage.replay(recorded, owner.entitled_share, config.half_life, rate)
    times = replayed["time"].to_numpy()[::k]
    dominant, memory_capacity = fairness.dominant_shares(recorded, owner.n_cpus, times)
    step("usage and dominant shares", 1, 1)
    fst_strict, fst_relaxed, fst_weight = fairness.fair_start_times(recorded, owner.n_cpus,
                                                                    sample=config.fst_sample, seed=config.seed)
    step("fair start times", 1, 1)
    re_deficit = fairness.resource_equality_of(recorded, owner.n_cpus)
    job_table = _job_table(recorded, fst_strict, fst_relaxed, re_deficit)
    orgs = _org_table(recorded, owner, psi, psi_terms, shap, the_game, p_tot, replayed, dominant, job_table,
                      fst_weight, entitled.slurm)
    delta = sum(abs(p - q) for p, q in zip(psi, psi_star, strict=True))
    ratio = orgs["usage_ratio"].to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        psi_phi = np.array(psi, dtype=np.float64) / shap.phi
    v_grand = shap.values.get((1 << k) - 1) if k > 1 else None
    summary = {
        "jobs_read": recorded.jobs_read, "jobs_used": int(started.sum()),
        "jobs_never_started": int((~started).sum()), "skipped": dict(recorded.skipped),
        "reference_scheduler": _REFERENCE_TEXT[config.reference], "reference": config.reference,
        "fair_utilities": fair_how, "cpus": owner.n_cpus, "cpus_how": owner.how,
        "t_begin": recorded.t_begin, "t_end": t_end, "origin_epoch": recorded.origin_epoch, "p_tot": p_tot,
        "delta_psi": delta, "delta_psi_over_ptot": delta / p_tot if p_tot else float("nan"),
        "v_grand": v_grand, "sum_phi": float(shap.phi.sum()), "sum_psi": sum(psi),
        "jain_usage_ratio": fairness.jain(ratio), "gini_usage_ratio": fairness.gini(ratio),
        "jain_psi_phi": fairness.jain(psi_phi), "gini_psi_phi": fairness.gini(psi_phi),
        "memory_capacity_mb": memory_capacity, "fst_measured_jobs": int((fst_weight > 0).sum()),
        "fst_sampled": bool(np.any(fst_weight > 1)),
        "coalitions_simulated": len(the_game.runs),
        "replay_mean_wait": game.pool_mean_wait(the_game) if k > 1 else float("nan"),
        "recorded_mean_wait": float((start - recorded.column("submit"))[started].mean()),
        "cpus_excess": None if owner.excess is None else dataclasses.asdict(owner.excess),
        "cpus_excess_text": None if owner.excess is None else owner.excess.sentence(),
        "warnings": list(recorded.warnings), "orgs_without_jobs": [o for o, n in zip(orgs["org"], orgs["jobs"],
                                                                                   strict=True) if n == 0],
        "usage_unit": usage_unit, "time_zone": recorded.time_zone, "slurm_reported": bool(entitled.slurm),
    }
    meta = {"log": str(config.log), "format": fmt, "org_by": org_by,
            "org_map": None if config.org_map is None else str(config.org_map), "shares": str(config.shares),
            "since": config.since, "until": config.until, "half_life": config.half_life,
            "reference": config.reference, "exact_up_to": config.exact_up_to, "samples": config.samples,
            "fst_sample": config.fst_sample, "seed": config.seed, "unmapped_org": config.unmapped_org,
            "top": config.top, "every": config.every, "fairsched_version": fairsched.__version__}
    return AuditResult(orgs=orgs, jobs=job_table, usage_over_time=_named(replayed, recorded),
                       dominant_over_time=_named(dominant, recorded), shapley=shap, summary=summary,
                       verdicts=verdicts.verdicts(orgs, summary, shap), meta=meta)


_REFERENCE_TEXT = {
    "backfill": "FCFS + EASY backfilling, logged time limits as runtime estimates (fairsched.backfill)",
    "online": "FIFO on sequential copies, identical machines (SPAA'13 model, Alg. 3's simplified schedules)",
}


def _reference_jobs(recorded: log.Recorded) -> game.ReferenceJobs:
    ran = np.flatnonzero(recorded.started)
    order = ran[np.lexsort((ran, recorded.column("submit")[ran]))]
    pick = {c: recorded.column(c)[order].astype(np.int64) for c in ("org", "submit", "run", "cpus", "estimate")}
    return game.ReferenceJobs(index=order, **pick)


def _fair_utilities(config: AuditConfig, recorded: log.Recorded, owner: log.Ownership, ref_jobs: game.ReferenceJobs,
                    shap: game.ShapleyResult) -> tuple[list[float] | list[int], str]:
    """ψ*: φ (backfill reference), or REF's / RAND's utilities on the pool (online reference)."""
    if config.reference == "backfill":
        return shap.phi.tolist(), "the Shapley values φ (SPAA'13 Def. 3.2)"
    from fairsched.online import get_policy
    from fairsched.online import simulate as simulate_online
    from fairsched.scenario import scenario_from_arrays

    if np.any(owner.cpus < 1):
        raise ConfigError("--reference online needs every organization to own >= 1 CPU (REF's model); raise "
                          "--cpus or the smallest shares")
    scenario = scenario_from_arrays(ref_jobs.submit, np.maximum(ref_jobs.run, 1), ref_jobs.org, owner.cpus,
                                    copies=ref_jobs.cpus, job=ref_jobs.index, horizon=recorded.t_end,
                                    source=str(config.log))
    exact = recorded.n_orgs <= config.exact_up_to
    policy = get_policy("ref") if exact else get_policy("rand", n_orderings=config.samples)
    result = simulate_online(scenario, policy, seed=config.seed)
    name = "REF (SPAA'13 Alg. 1)" if exact else f"RAND with {config.samples} orderings (SPAA'13 Alg. 3)"
    return [int(x) for x in result.psi.tolist()], f"the utilities of {name} on the pool (PPAM'13 Sec. 5.1)"


def _job_table(recorded: log.Recorded, fst_strict: np.ndarray, fst_relaxed: np.ndarray,
               re_deficit: np.ndarray) -> pd.DataFrame:
    jobs = recorded.jobs
    started = recorded.started
    start = jobs["start"].to_numpy()
    table = pd.DataFrame({
        "job_id": jobs["job_id"].to_numpy(), "org": [recorded.orgs[u] for u in jobs["org"].tolist()],
        "submit": jobs["submit"].to_numpy(), "start": pd.array(np.where(started, start, 0), dtype="Int64"),
        "end": pd.array(np.where(started, jobs["end"].to_numpy(), 0), dtype="Int64"),
        "cpus": jobs["cpus"].to_numpy(),
        "wait": pd.array(np.where(started, start - jobs["submit"].to_numpy(), 0), dtype="Int64"),
        "fst_strict": pd.array(fst_strict, dtype="Int64"), "fst_relaxed": pd.array(fst_relaxed, dtype="Int64"),
        "re_deficit": re_deficit,
    })
    for column in ("start", "end", "wait"):
        table.loc[~started, column] = pd.NA
    table.loc[fst_strict < 0, ["fst_strict", "fst_relaxed"]] = pd.NA
    return table


def _org_table(recorded: log.Recorded, owner: log.Ownership, psi: list[int], psi_terms: np.ndarray,
               shap: game.ShapleyResult,
               the_game: game.Game, p_tot: int, replayed: pd.DataFrame, dominant: pd.DataFrame,
               job_table: pd.DataFrame, fst_weight: np.ndarray,
               slurm: dict[str, dict[str, float]]) -> pd.DataFrame:
    k = recorded.n_orgs
    last = replayed.iloc[-k:]
    started = recorded.started
    org = recorded.column("org")
    wait = (recorded.column("start") - recorded.column("submit")).astype(np.float64)
    bsld = np.full(org.size, np.nan)
    bsld[started] = bounded_slowdown(wait[started], np.maximum(recorded.column("run")[started], 1))
    cpu_seconds = last["cpu_seconds"].to_numpy()
    used = last["usage"].to_numpy()
    total = used.sum()
    shares = sharing.sharing_columns(the_game, shap, psi, p_tot)
    rows = []
    for u in range(k):
        mine = org == u
        ran = mine & started
        late = {}
        for kind in ("strict", "relaxed"):
            fst = job_table[f"fst_{kind}"].to_numpy(dtype=np.float64, na_value=np.nan)
            delay = job_table["start"].to_numpy(dtype=np.float64, na_value=np.nan) - fst
            miss = ran & (fst_weight > 0) & (delay > 0)
            late[f"fst_{kind}_late"] = float(fst_weight[miss].sum())  # an estimate when FSTs were sampled
            late[f"fst_{kind}_delay"] = float(np.average(delay[miss], weights=fst_weight[miss])) if miss.any() \
                else 0.0
        share = float(used[u] / total) if total else float("nan")
        rows.append({
            "org": recorded.orgs[u], "members": ";".join(recorded.members[u]), "jobs": int(ran.sum()),
            "jobs_never_started": int((mine & ~started).sum()), "cpus": int(owner.cpus[u]),
            "entitled_share": float(owner.entitled_share[u]), "cpu_seconds": float(cpu_seconds[u]),
            "usage": float(used[u]),
            "usage_share": share, "usage_ratio": share / owner.entitled_share[u] if owner.entitled_share[u] else
            float("inf"), "decayed_usage_share": float(last["decayed_share"].iat[u]),
            "fairshare_factor": float(last["fairshare_factor"].iat[u]),
            "level_fs": _level_fs(owner.entitled_share[u], float(last["decayed_share"].iat[u])),
            **{c: slurm.get(recorded.orgs[u], {}).get(c, float("nan")) for c in entitlement.SLURM_COLUMNS},
            "psi": psi[u], "phi": float(shap.phi[u]),
            "phi_low": float(shap.low[u]), "phi_high": float(shap.high[u]), **shares[u],
            "psi_fit": game.exact_sum(psi_terms[ran & (recorded.column("cpus") <= owner.cpus[u])]),
            "pool_mean_wait": float(wait[ran].mean()) if ran.any() else float("nan"),
            "pool_mean_bsld": float(bsld[ran].mean()) if ran.any() else float("nan"),
            **late, "re_deficit": float(np.nansum(job_table["re_deficit"].to_numpy()[mine])),
            "dominant_share_mean": float(dominant.loc[dominant["org"] == u, "dominant_share"].mean()),
        })
    return pd.DataFrame(rows, columns=list(ORG_COLUMNS))


def _level_fs(share: float, decayed_share: float) -> float:
    """Fair Tree's LevelFS of an account under the root: NormShares / EffectvUsage (inf without usage)."""
    if not decayed_share > 0:
        return math.inf
    return float(share) / decayed_share


def _named(frame: pd.DataFrame, recorded: log.Recorded) -> pd.DataFrame:
    out = frame.copy()
    out["org"] = [recorded.orgs[u] for u in frame["org"].tolist()]
    return out
