"""``fairsched whatif``: the log's jobs replayed under other policies, beside the recorded schedule (docs/whatif.md).

What an operator asks after an audit is "what should we change?". `run_whatif` reads the log as the audit does
(`fairsched.audit.log`: window, organizations, pool size, entitled shares), then for each policy of
``--policies`` takes a schedule of the jobs that started in the log:

* ``recorded``: the log's own starts (exactly the schedule the audit measures);
* a queue order of the backfilling model (``fcfs``, ``sjf``, ``lxf``, the ticked fair-share orders ``drf``,
  ``directcontr`` and, once they land, ``slurm-fair-tree`` / ``slurm-classic``): the jobs replayed by
  `fairsched.backfill.simulate` on the pool's CPUs under ``--backfill``, with their submit times, CPUs, real run
  times (0 s runs 1 s: the engine's clock needs run times >= 1) and time limits as the runtime estimates; every
  replayed schedule goes through the backfill validator.

Each schedule is measured per organization as the audit measures the recorded one, up to the window's end
t_end (a replayed job running past t_end counts only its part before): CPU-seconds and usage share against the
entitled share (also over time, decayed with ``--half-life``, with Slurm's classic fair-share factor
F = 2^(−U/S): `fairsched.audit.usage.replay`), mean and 95th-percentile wait (numpy's linear interpolation),
mean bounded slowdown (10 s), fair start times (JSSPP'05 §3.1, strict and relaxed, sampled as in the audit:
`fairsched.audit.fairness.fair_start_times`) and the audit's gap (ψ_u − fair_psi_u) / p_tot, with
fair_psi_u = φ_u · Σ_v ψ_v / v(N) (`fairsched.audit.sharing`). The coalition game and its Shapley values φ depend
on the jobs and the CPUs each organization owns, not on the policy: they are computed once (reference scheduler
FCFS + EASY, the audit's default) and every policy's utilities ψ are set against them. So ``recorded`` reproduces
the audit's numbers, and ``fcfs`` under ``easy`` *is* the game's grand-coalition replay (ψ = v(N)-shares, fair_psi
= φ, gaps summing to 0).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import fairsched
from fairsched.audit import game, game_cache, log, sharing, usage, whatif_setup
from fairsched.audit.whatif_setup import RECORDED, parse_duration
from fairsched.errors import ConfigError

Progress = Callable[[str, int, int], None]
DEFAULT_HALF_LIFE = "7d"
DEFAULT_CALC_PERIOD = "5min"
DEFAULT_BACKFILL = "easy"
DEFAULT_BF_INTERVAL = "30s"   # Slurm's bf_interval
DEFAULT_BF_WINDOW = "1440min"  # Slurm's bf_window
DEFAULT_BF_MAX_JOB_TEST = 500  # Slurm's bf_max_job_test
INITIAL_USAGES = ("zero", "tree")
ORG_COLUMNS = ("policy", "org", "jobs", "entitled_share", "cpu_seconds", "usage_share", "usage_ratio",
               "decayed_usage_share", "fairshare_factor", "mean_wait", "p95_wait", "mean_bsld", "psi", "fair_psi",
               "gap", "subsidy", "fst_strict_late", "fst_strict_delay", "fst_relaxed_late", "fst_relaxed_delay")
POLICY_COLUMNS = ("policy", "order", "backfill", "jobs", "mean_wait", "p95_wait", "mean_bsld", "last_end",
                  "jobs_after_t_end", "p_tot", "sum_abs_gap", "max_usage_ratio")


@dataclass(frozen=True)
class WhatifConfig:
    """The options of ``fairsched whatif`` by the same names (docs/whatif.md); validated and normalized on creation.

    ``policies`` None: `fairsched.audit.whatif_setup.default_policies`. ``half_life`` and ``calc_period`` take
    seconds or a duration (``7d``, ``5min``) and are stored in seconds (``calc_period`` a whole number, the
    engine's clock). ``weights``: Slurm's ``PriorityWeight*`` as ``fairshare=10000,age=1000,jobsize=0`` (used by
    the Slurm orders). ``tree``: the entitled shares from an association tree instead of ``shares``.
    ``bf_interval``, ``bf_window`` (durations, stored in whole seconds) and ``bf_max_job_test``: the ``slurm``
    backfilling rule's parameters (Slurm's defaults; other rules refuse other values). ``initial_usage``: ``zero``
    (default) or ``tree``: the Slurm orders start from the raw usages of ``tree`` (an ``sshare -a -l -P`` dump's
    RawUsage) instead of zero.
    """

    log: Path
    policies: tuple[str, ...] | None = None
    half_life: float | str = DEFAULT_HALF_LIFE
    calc_period: float | str = DEFAULT_CALC_PERIOD
    weights: str = whatif_setup.DEFAULT_WEIGHTS
    backfill: str = DEFAULT_BACKFILL
    bf_interval: float | str = DEFAULT_BF_INTERVAL
    bf_window: float | str = DEFAULT_BF_WINDOW
    bf_max_job_test: int = DEFAULT_BF_MAX_JOB_TEST
    tree: Path | None = None
    initial_usage: str = "zero"
    shares: str = "equal"
    format: str = "auto"
    org_by: str | None = None
    org_map: Path | None = None
    cpus: int | None = None
    since: str | None = None
    until: str | None = None
    exact_up_to: int = 12
    samples: int = 200
    fst_sample: int = 500
    seed: int = 0
    skip_bad_records: bool = False

    def __post_init__(self) -> None:
        policies = whatif_setup.default_policies() if self.policies is None else self.policies
        if isinstance(policies, str):
            policies = tuple(policies.split(","))
        set_ = object.__setattr__
        set_(self, "policies", whatif_setup.check_policies(policies))
        set_(self, "backfill", whatif_setup.check_backfill(self.backfill))
        for name in ("bf_interval", "bf_window"):
            flag = "--" + name.replace("_", "-")
            seconds = parse_duration(getattr(self, name), flag)
            if seconds != int(seconds):
                raise ConfigError(f"{flag} {getattr(self, name)!r}: expected a whole number of seconds")
            set_(self, name, int(seconds))
        self.backfill_rule()  # the slurm rule's checks, and other rules refuse its options
        if self.initial_usage not in INITIAL_USAGES:
            raise ConfigError(f"--initial-usage {self.initial_usage!r}: choose one of {', '.join(INITIAL_USAGES)}")
        if self.initial_usage == "tree" and self.tree is None:
            raise ConfigError("--initial-usage tree starts the Slurm orders from the RawUsage of --tree; give "
                              "--tree FILE (an sshare -a -l -P dump)")
        set_(self, "half_life", parse_duration(self.half_life, "--half-life"))
        period = parse_duration(self.calc_period, "--calc-period")
        if period != int(period):
            raise ConfigError(f"--calc-period {self.calc_period!r}: expected a whole number of seconds")
        set_(self, "calc_period", int(period))
        whatif_setup.parse_weights(self.weights)
        if self.format not in log.FORMATS:
            raise ConfigError(f"--format {self.format!r}: choose one of {', '.join(log.FORMATS)}")
        if self.org_by is not None and self.org_by not in log.ORG_BY:
            raise ConfigError(f"--org-by {self.org_by!r}: choose one of {', '.join(log.ORG_BY)}")
        if self.tree is not None and str(self.shares) != "equal":
            raise ConfigError("--tree and --shares both give the entitled shares; pass one of them")
        if self.tree is not None and self.org_map is not None:
            raise ConfigError("--tree names accounts and users; with --org-map the organizations are other names. "
                              "Pass one of them")
        if self.cpus is not None and self.cpus < 1:
            raise ConfigError(f"--cpus {self.cpus}: expected a positive number of CPUs")
        if not 0 <= self.exact_up_to <= 20:
            raise ConfigError(f"--exact-up-to {self.exact_up_to}: expected 0..20 (2**k schedules are simulated)")
        if self.samples < 2:
            raise ConfigError(f"--samples {self.samples}: expected at least 2 permutations")
        if self.fst_sample < 0:
            raise ConfigError(f"--fst-sample {self.fst_sample}: expected >= 0 (0: every job)")

    def backfill_rule(self) -> Any:
        """The backfilling rule of the replays (``slurm``: with ``bf_interval``, ``bf_window``,
        ``bf_max_job_test``)."""
        from fairsched.backfill.policies import get_backfill
        from fairsched.backfill.policies.slurm_rule import slurm_rule

        rule = slurm_rule(int(self.bf_interval), int(self.bf_window), self.bf_max_job_test)
        if self.backfill == "slurm":
            return rule
        if rule != get_backfill("slurm"):
            raise ConfigError(f"--bf-interval, --bf-window and --bf-max-job-test set the slurm backfilling rule; "
                              f"they have no effect with --backfill {self.backfill} (use --backfill slurm)")
        return get_backfill(self.backfill)

    def priority(self) -> Any:
        """The weights as `fairsched.fairshare.PriorityConfig`."""
        from fairsched.fairshare import PriorityConfig

        parsed = whatif_setup.parse_weights(self.weights)
        return PriorityConfig(**{whatif_setup.WEIGHT_KEYS[k]: v for k, v in parsed.items()})


@dataclass(frozen=True)
class WhatifResult:
    """The policies side by side.

    Attributes
    ----------
    orgs : one row per (policy, organization), `ORG_COLUMNS`.
    policies : one row per policy, `POLICY_COLUMNS`.
    usage_over_time : rows (policy, time, org, cpu_seconds, usage_share, decayed_usage, decayed_share,
        fairshare_factor, entitled_share) on the same time steps for every policy (`fairsched.audit.usage.replay`).
    jobs : one row per (policy, job): policy, job_id, org, submit, start, end, cpus, wait.
    summary : the pool, the window, the game (Shapley method, v(N)), the shares and how they were set.
    notes : sentences the report states (defaults taken, accounts missing from the tree, ...).
    meta : the configuration and fairsched's version.
    """

    orgs: pd.DataFrame
    policies: pd.DataFrame
    usage_over_time: pd.DataFrame
    jobs: pd.DataFrame
    summary: dict[str, Any]
    notes: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict)


def run_whatif(config: WhatifConfig, *, progress: Progress | None = None) -> WhatifResult:
    """Replay the log under every policy of `config` and measure each (module docstring)."""
    step = progress or (lambda name, done, total: None)
    workload, fmt = log.read_log(config.log, config.format, skip_bad_records=config.skip_bad_records)
    org_by = config.org_by or log.default_org_by(fmt)
    recorded = log.recorded_jobs(workload, fmt, org_by=org_by, org_map=config.org_map, since=config.since,
                                 until=config.until, skip_bad_records=config.skip_bad_records)
    recorded, owner, notes, tree = _ownership(config, recorded, org_by)
    slurm = _SlurmSetup.of(config, workload, recorded, tree, owner, notes)
    step("read", 1, 1)
    ref_jobs = _reference_jobs(recorded)
    the_game = game.Game(ref_jobs, owner.cpus, recorded.t_end, game.DEFAULT_REFERENCE)
    k = recorded.n_orgs
    if k == 1:
        shap = game.no_game(1)
        notes.append("One organization: nothing is shared, no game is played (the gaps are empty).")
    else:
        shap = game_cache.shapley(the_game, exact_up_to=config.exact_up_to, samples=config.samples, seed=config.seed,
                            progress=progress)
    org_rows, policy_rows, over_time, job_tables = [], [], [], []
    for i, policy in enumerate(config.policies):
        schedule = recorded if policy == RECORDED else _replayed(config, recorded, ref_jobs, owner, slurm, policy)
        measured = _measure(config, schedule, owner, the_game, shap, policy)
        org_rows += measured.orgs
        policy_rows.append(measured.policy)
        over_time.append(measured.over_time)
        job_tables.append(measured.jobs)
        step("policies", i + 1, len(config.policies))
    summary = {
        "jobs_read": recorded.jobs_read, "jobs_replayed": int(recorded.started.sum()),
        "skipped": dict(recorded.skipped), "cpus": owner.n_cpus, "ownership": owner.how,
        "t_begin": recorded.t_begin, "t_end": recorded.t_end, "origin_epoch": recorded.origin_epoch,
        "shapley": shap.method, "v_grand": shap.values.get((1 << k) - 1) if k > 1 else None,
        "reference_scheduler": "FCFS + EASY backfilling on each coalition's CPUs (the audit's default)",
        "orgs": list(recorded.orgs), "cpus_per_org": owner.cpus.tolist(),
        "cpus_excess_text": None if owner.excess is None else owner.excess.sentence(),
    }
    meta = {key: (str(value) if isinstance(value, Path) else value)
            for key, value in dataclasses.asdict(config).items()}
    meta |= {"format": fmt, "org_by": org_by, "fairsched_version": fairsched.__version__}
    return WhatifResult(orgs=pd.DataFrame(org_rows, columns=list(ORG_COLUMNS)),
                        policies=pd.DataFrame(policy_rows, columns=list(POLICY_COLUMNS)),
                        usage_over_time=pd.concat(over_time, ignore_index=True),
                        jobs=pd.concat(job_tables, ignore_index=True), summary=summary, notes=tuple(notes),
                        meta=meta)


# -- setting up ----------------------------------------------------------------------------------------------------
def _ownership(config: WhatifConfig, recorded: log.Recorded,
               org_by: str) -> tuple[log.Recorded, log.Ownership, list[str], Any]:
    """The entitled shares and the pool, as the audit sets them (`fairsched.audit.entitlement`,
    `fairsched.audit.log.ownership`), from ``--shares`` or from ``--tree`` (whose missing accounts get the default
    share); organizations with a share but no job are added. Returns the recorded jobs (with those
    organizations), the ownership, the notes and the tree (None without ``--tree``)."""
    from fairsched.audit import entitlement

    if config.tree is None:
        entitled = entitlement.read_entitlement(config.shares, recorded, org_by)
        weights, idle, how, file_cpus, tree = entitled.weights, entitled.idle, entitled.how, entitled.cpus, None
        notes: list[str] = []
    else:
        shares = whatif_setup.tree_shares(config.tree, recorded.orgs, org_by)
        weights, idle, how, file_cpus, tree = shares.weights, shares.idle, shares.how, None, shares.tree
        notes = [] if not shares.defaulted else [
            f"Not in the tree {config.tree}: {', '.join(shares.defaulted)}; each gets the default share "
            f"(Fairshare={whatif_setup.DEFAULT_TREE_SHARES} under root), as sacctmgr gives an association created "
            "without one."]
    recorded = entitlement.with_idle(recorded, idle)
    if idle:
        notes.append(f"Organizations with a share but no job in the window, kept (they own CPUs in the game): "
                     f"{', '.join(sorted(idle))}.")
    owner = log.ownership(recorded, weights, how, config.cpus, file_cpus=file_cpus)
    return recorded, owner, [*notes, f"Ownership: {owner.how}."], tree


@dataclass(frozen=True)
class _SlurmSetup:
    """What the Slurm orders take besides the common parameters: each job's user association in the tree (with
    --tree), or integer raw shares per organization (without)."""

    tree: Any = None
    assoc: np.ndarray | None = None
    shares: tuple[int, ...] = ()

    @classmethod
    def of(cls, config: WhatifConfig, workload: Any, recorded: log.Recorded, tree: Any, owner: log.Ownership,
           notes: list[str]) -> _SlurmSetup:
        if not any(p.startswith("slurm-") for p in config.policies or ()):
            return cls()
        if tree is None:
            shares = tuple(whatif_setup.integer_shares(owner.entitled_share))
            notes.append(f"Slurm orders: one account per organization with raw shares {list(shares)} (the "
                         "entitled shares as integers), one user association each.")
            return cls(shares=shares)
        accounts, users = _accounts_and_users(workload, recorded)
        tree, assoc, added = whatif_setup.job_user_associations(tree, accounts, users)
        if added:
            notes.append(f"Slurm orders: {added} (account, user) association(s) of the log not in the tree were "
                         f"added with the default share (Fairshare={whatif_setup.DEFAULT_TREE_SHARES}).")
        return cls(tree=tree, assoc=assoc)


def _accounts_and_users(workload: Any, recorded: log.Recorded) -> tuple[list[str], list[str]]:
    """Each recorded job's account and user, found by its job id in the log."""
    from fairsched.workload.schema import JOB_ID

    jobs = workload.jobs
    ids = (jobs[JOB_ID] if JOB_ID in jobs else jobs["job_number"]).astype(str).tolist()
    column = {key: (jobs[key].astype(str).tolist() if key in jobs else None) for key in ("account", "user")}
    if column["user"] is None and "user_id" in jobs:
        column["user"] = jobs["user_id"].astype(str).tolist()
    if column["account"] is None or column["user"] is None:
        raise ConfigError("the Slurm orders with --tree need each job's account and user; this log has "
                          f"{'no account' if column['account'] is None else 'no user'} column (use --shares)")
    account = dict(zip(ids, column["account"], strict=True))
    user = dict(zip(ids, column["user"], strict=True))
    keys = recorded.column("job_id").astype(str).tolist()
    return [account[k] for k in keys], [user[k] for k in keys]


def _reference_jobs(recorded: log.Recorded) -> game.ReferenceJobs:
    """The started jobs in submit order (ties: row), as the audit's game replays them."""
    ran = np.flatnonzero(recorded.started)
    order = ran[np.lexsort((ran, recorded.column("submit")[ran]))]
    pick = {c: recorded.column(c)[order].astype(np.int64) for c in ("org", "submit", "run", "cpus", "estimate")}
    return game.ReferenceJobs(index=order, **pick)


# -- replaying -----------------------------------------------------------------------------------------------------
def _replayed(config: WhatifConfig, recorded: log.Recorded, ref: game.ReferenceJobs, owner: log.Ownership,
              slurm: _SlurmSetup, policy: str) -> log.Recorded:
    """The started jobs of the log scheduled by `policy` × ``config.backfill`` on the pool, as a `Recorded`."""
    from fairsched.backfill import BackfillJobs, simulate
    from fairsched.backfill.policies import get_order
    from fairsched.backfill.validate import validate_backfill_schedule

    run = np.maximum(ref.run, 1)
    jobs = BackfillJobs.from_arrays(ref.submit, run, ref.cpus, ref.estimate, n_processors=owner.n_cpus,
                                    job=ref.index, source=str(config.log))
    order = get_order(policy)
    params = _order_params(config, recorded, ref, owner, slurm, policy) if order.ticked else None
    result = simulate(jobs, order=order, backfill=config.backfill_rule(), order_params=params)
    validate_backfill_schedule(result.schedule, result.jobs, order=order.name, backfill=config.backfill,
                               calc_period=config.calc_period, bf_interval=int(config.bf_interval),
                               bf_window=int(config.bf_window))
    table = recorded.jobs.iloc[ref.index].reset_index(drop=True)
    start = result.schedule["start"].to_numpy(np.int64)
    table["start"], table["run"], table["end"] = start, run, start + run
    return dataclasses.replace(recorded, jobs=table)


def _order_params(config: WhatifConfig, recorded: log.Recorded, ref: game.ReferenceJobs, owner: log.Ownership,
                  slurm: _SlurmSetup, policy: str) -> dict[str, Any]:
    """A ticked order's parameters: organizations, entitled shares, tick period, and each order's own."""
    if policy.startswith("slurm-"):
        weights = whatif_setup.parse_weights(config.weights)
        params: dict[str, Any] = {
            "calc_period": config.calc_period, "half_life": config.half_life,
            "weights": {key: weights[key] for key in ("fairshare", "age", "jobsize")}}
        if weights["partition"] or weights["qos"]:
            raise ConfigError("--weights: the Slurm orders model one partition and no QOS; leave partition and "
                              "qos at 0")
        if slurm.tree is not None:
            return params | {"tree": slurm.tree, "assoc": slurm.assoc[ref.index],
                             "initial_usage": config.initial_usage == "tree"}
        return params | {"org": ref.org, "shares": list(slurm.shares)}
    params = {"org": ref.org, "shares": owner.entitled_share, "calc_period": config.calc_period}
    if policy == "drf":
        memory = recorded.column("memory_mb")[ref.index].astype(np.float64)
        if np.all(np.isfinite(memory)) and np.any(memory > 0):  # DRF over CPUs and memory when the log has it
            params["memory"] = memory
    return params


# -- measuring -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Measured:
    orgs: list[dict[str, Any]]
    policy: dict[str, Any]
    over_time: pd.DataFrame
    jobs: pd.DataFrame


def _measure(config: WhatifConfig, schedule: log.Recorded, owner: log.Ownership, the_game: game.Game,
             shap: game.ShapleyResult, policy: str) -> _Measured:
    """One policy's schedule measured per organization (module docstring)."""
    from fairsched.audit import fairness
    from fairsched.backfill.metrics import bounded_slowdown

    k, t_end = schedule.n_orgs, schedule.t_end
    started = schedule.started
    start, run, org, submit = (schedule.column(c) for c in ("start", "run", "org", "submit"))
    psi, p_tot = _utilities(schedule)
    shares = sharing.sharing_columns(the_game, shap, psi, p_tot)
    over_time = usage.replay(schedule, owner.entitled_share, config.half_life)
    last = over_time.iloc[-k:]
    strict, relaxed, weight = fairness.fair_start_times(schedule, owner.n_cpus, sample=config.fst_sample,
                                                        seed=config.seed)
    wait = np.where(started, start - submit, 0).astype(np.float64)
    bsld = np.where(started, bounded_slowdown(wait, np.maximum(run, 1)), np.nan)
    cpu_seconds = last["cpu_seconds"].to_numpy()
    total = float(cpu_seconds.sum())
    rows = []
    for u in range(k):
        ran = started & (org == u)
        share = float(cpu_seconds[u] / total) if total else float("nan")
        entitled = float(owner.entitled_share[u])
        rows.append({
            "policy": policy, "org": schedule.orgs[u], "jobs": int(ran.sum()), "entitled_share": entitled,
            "cpu_seconds": float(cpu_seconds[u]), "usage_share": share,
            "usage_ratio": share / entitled if entitled else float("inf"),
            "decayed_usage_share": float(last["decayed_share"].iat[u]),
            "fairshare_factor": float(last["fairshare_factor"].iat[u]),
            "mean_wait": float(wait[ran].mean()) if ran.any() else float("nan"),
            "p95_wait": float(np.percentile(wait[ran], 95)) if ran.any() else float("nan"),
            "mean_bsld": float(bsld[ran].mean()) if ran.any() else float("nan"), "psi": psi[u],
            "fair_psi": shares[u]["fair_psi"], "gap": shares[u]["gap"], "subsidy": shares[u]["subsidy"],
            **_late(start, strict, weight, ran, "strict"), **_late(start, relaxed, weight, ran, "relaxed"),
        })
    ends = np.where(started, start + np.maximum(run, 0), 0)
    summary = {
        "policy": policy, "order": None if policy == RECORDED else policy,
        "backfill": None if policy == RECORDED else config.backfill, "jobs": int(started.sum()),
        "mean_wait": float(wait[started].mean()), "p95_wait": float(np.percentile(wait[started], 95)),
        "mean_bsld": float(np.nanmean(bsld[started])), "last_end": int(ends.max()),
        "jobs_after_t_end": int((started & (ends > t_end)).sum()), "p_tot": p_tot,
        "sum_abs_gap": float(np.abs([row["gap"] for row in rows]).sum()) if k > 1 else float("nan"),
        "max_usage_ratio": float(np.nanmax([row["usage_ratio"] for row in rows])),
    }
    over_time.insert(0, "policy", policy)
    over_time["org"] = [schedule.orgs[u] for u in over_time["org"].tolist()]
    over_time["entitled_share"] = np.tile(owner.entitled_share, len(over_time) // k)
    return _Measured(rows, summary, over_time, _job_table(schedule, policy, ends))


def _job_table(schedule: log.Recorded, policy: str, ends: np.ndarray) -> pd.DataFrame:
    """One row per started job: policy, job_id, org, submit, start, end, cpus, wait."""
    started = schedule.started
    start, submit = schedule.column("start")[started], schedule.column("submit")[started]
    return pd.DataFrame({"policy": policy, "job_id": schedule.column("job_id")[started],
                         "org": [schedule.orgs[u] for u in schedule.column("org")[started].tolist()],
                         "submit": submit, "start": start, "end": ends[started],
                         "cpus": schedule.column("cpus")[started], "wait": start - submit})


def _utilities(schedule: log.Recorded) -> tuple[list[int], int]:
    """ψsp of each organization at t_end, and p_tot, the CPU-seconds done by t_end (exact integers, as the audit)."""
    t_end, started = schedule.t_end, schedule.started
    start, run, cpus, org = (schedule.column(c) for c in ("start", "run", "cpus", "org"))
    terms = np.zeros(started.size, dtype=object)
    terms[started] = game.psi_terms(start[started], np.maximum(run[started], 0), cpus[started], t_end)
    psi = [game.exact_sum(terms[started & (org == u)]) for u in range(schedule.n_orgs)]
    units = np.where(started, np.clip(np.minimum(start + np.maximum(run, 0), t_end) - np.minimum(start, t_end), 0,
                                      None), 0)
    return psi, game.exact_sum(units * cpus)


def _late(start: np.ndarray, fst: np.ndarray, weight: np.ndarray, ran: np.ndarray, kind: str) -> dict[str, float]:
    """Jobs started after their fair start time (weighted: an estimate when the FSTs were sampled) and their mean
    delay, as the audit counts them."""
    delay = start.astype(np.float64) - fst
    miss = ran & (weight > 0) & (fst >= 0) & (delay > 0)
    return {f"fst_{kind}_late": float(weight[miss].sum()),
            f"fst_{kind}_delay": float(np.average(delay[miss], weights=weight[miss])) if miss.any() else 0.0}
