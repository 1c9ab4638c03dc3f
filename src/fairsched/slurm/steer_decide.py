"""`fairsched steer`'s decision: the nice each pending job of a live Slurm queue should have (a pure function).

Given what ``sacct``, ``sshare``, ``squeue`` and ``scontrol`` report (`SteerState`), `decide` returns the `Action`s
that bring every pending job's nice to its target, and `restore` those that give back the nice values steer found.
Nothing here runs a command: `fairsched.slurm.steer` reads the state and applies the actions (STYLE.md 2.9: a
level-triggered, idempotent reconcile loop around a pure decision). The target depends on the state alone, never
on what an earlier pass did, so deciding again after the actions are applied returns nothing.

Policies (`POLICIES`)
---------------------
``directcontr``
    The DIRECTCONTR rule (PPAM'13 Sec. 4, Algorithm 1 line 19; SPAA'13 Sec. 6.1, Algorithm 4) applied to a real
    queue: the account whose utility ψ lags its contribution φ most is served first. ψ_u is the utility ψsp of
    account u's jobs at ``now`` (SPAA'13 Eq. (3)) over the window; φ_u is u's Shapley value in the audit's
    coalition game (`fairsched.audit.game`: each coalition's jobs replayed alone by FCFS + EASY backfilling on the
    CPUs its shares bring; exact for k <= ``exact_up_to`` accounts, sampled beyond), the contribution of SPAA'13
    Def. 3.2.
``fair-tree-boost``
    Fair Tree's own order made strict: accounts ranked by LevelFS (`fairsched.fairshare.fair_tree` on sshare's
    tree; the highest, the most under-served, first). A baseline with the same nice magnitudes as directcontr.

From an order to nice values
----------------------------
The accounts with pending jobs are sorted by their lag, highest first: (φ − ψ)/p_tot for directcontr (the
audit's signed gap, negated: seconds per unit of work; p_tot the CPU-seconds run in the window), LevelFS for
fair-tree-boost. They are cut into levels: two neighbours share a level when their lags differ by at most the
tolerance (``tolerance`` × ``now`` for directcontr, plus both lags' 95% half-widths when φ is sampled; a relative
1e-6 for LevelFS, sshare's precision). With G levels, level g (0 = most owed) gets the nice −M + 2Mg/(G−1),
rounded half up, M = ``max_nice``; a single level gets 0. Without the right to lower a nice
(``allow_negative=False``) the levels span [0, M]: the owed accounts keep 0 and the others are pushed back.
Slurm subtracts the nice from a job's priority, so with 2M/(G−1) above the spread of the other priority terms
(PriorityWeightFairshare=10000 on the clusters of ``fairsched slurm up``) the order between levels is strict, as in
DIRECTCONTR.

Deviations
----------
DIRECTCONTR chooses the job started at every event; here Slurm chooses, and steer orders accounts once per pass.
Jobs of one account keep Slurm's order among themselves. φ is the Shapley value of the audit's game, not
DIRECTCONTR's direct estimate (the CPUs of a real cluster do not belong to accounts one by one). Only jobs that
started in the window count (a job that started before it counts from the window's start).

References
----------
P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013 (long version,
arXiv 1302.0948). P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with
cooperative game theory", PPAM 2013, LNCS 8385.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from fairsched.audit import game
from fairsched.audit.log import _largest_remainder  # the audit's CPU split by shares, reused as is
from fairsched.errors import ConfigError

__all__ = ["POLICIES", "Action", "PendingJob", "Standing", "SteerConfig", "SteerState", "UsedJob", "assess",
           "decide", "nice_of_level", "restore", "warm_up"]

POLICIES = ("directcontr", "fair-tree-boost")
MAX_NICE = 2147483645  # Slurm's bound on |nice| (NICE_OFFSET - 3)
LEVEL_FS_REL_TOL = 1e-6


@dataclass(frozen=True)
class UsedJob:
    """A job that started in the window (finished or running), times in seconds since the window's start.

    ``run`` is the time it ran by ``now`` (so far, for a running job); ``estimate`` its time limit (s), the
    reference scheduler's runtime estimate.
    """

    account: str
    submit: int
    start: int
    run: int
    cpus: int
    estimate: int


@dataclass(frozen=True)
class PendingJob:
    """A pending job as squeue shows it: id, (organization) account, current nice."""

    job_id: str
    account: str
    nice: int


@dataclass(frozen=True)
class SteerState:
    """What the cluster reports, on one clock whose 0 is the window's start.

    Attributes
    ----------
    now : utilities are taken at ``now`` (the window's length).
    n_cpus : the cluster's CPUs.
    shares : organization account -> raw shares (sshare's RawShares of the children of root).
    jobs : the jobs that ran in the window (`UsedJob`).
    pending : the pending jobs (`PendingJob`); only these are ever steered.
    level_fs : account -> LevelFS (Fair Tree), used by ``fair-tree-boost``.
    """

    now: int
    n_cpus: int
    shares: Mapping[str, float]
    jobs: tuple[UsedJob, ...] = ()
    pending: tuple[PendingJob, ...] = ()
    level_fs: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class SteerConfig:
    """How `decide` steers: the options of ``fairsched steer`` by the same names (module docstring)."""

    policy: str = "directcontr"
    max_nice: int = 10000
    allow_negative: bool = True
    tolerance: float = 0.001
    exact_up_to: int = 12
    samples: int = 200
    seed: int = 0

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ConfigError(f"--policy {self.policy!r}: choose one of {', '.join(POLICIES)}")
        if not 1 <= self.max_nice <= MAX_NICE:
            raise ConfigError(f"--max-nice {self.max_nice}: expected 1 to {MAX_NICE} (Slurm's bound on a nice)")
        if not self.tolerance >= 0:
            raise ConfigError(f"tolerance {self.tolerance}: expected a fraction of the window >= 0")
        if not 0 <= self.exact_up_to <= 20:
            raise ConfigError(f"--exact-up-to {self.exact_up_to}: expected 0..20 (2**k schedules are simulated)")
        if self.samples < 2:
            raise ConfigError(f"--samples {self.samples}: expected at least 2 permutations")


@dataclass(frozen=True)
class Standing:
    """Where one account stands in a pass.

    Attributes
    ----------
    account : the organization account.
    lag : the sort key, highest served first ((φ − ψ)/p_tot in s per unit of work, or LevelFS).
    spread : half-width of lag's 95% interval (0 unless φ is sampled).
    psi, phi : ψsp and φ (NaN for fair-tree-boost).
    level, n_levels : the account's level (0 = most owed) among the accounts with pending jobs; -1 without any.
    nice : the target nice of its pending jobs (None without any).
    """

    account: str
    lag: float
    spread: float
    psi: float
    phi: float
    level: int
    n_levels: int
    nice: int | None

    @property
    def reason(self) -> str:
        what = "φ−ψ" if math.isfinite(self.phi) else "LevelFS"
        unit = " s/unit" if math.isfinite(self.phi) else ""
        return f"{self.account}: {what} = {self.lag:+.4g}{unit}, level {self.level + 1} of {self.n_levels}"


@dataclass(frozen=True)
class Action:
    """Set the nice of a pending job: ``scontrol update JobId=<job_id> Nice=<new_nice>``."""

    job_id: str
    account: str
    old_nice: int
    new_nice: int
    reason: str

    def command(self) -> tuple[str, ...]:
        return ("scontrol", "update", f"JobId={self.job_id}", f"Nice={self.new_nice}")


def nice_of_level(level: int, n_levels: int, max_nice: int, *, allow_negative: bool = True) -> int:
    """The nice of `level` (0 = most owed) among `n_levels`: −M + 2M·level/(G−1) rounded half up, or [0, M].

    >>> [nice_of_level(g, 3, 10000) for g in range(3)], [nice_of_level(g, 4, 100, allow_negative=False)
    ...                                                    for g in range(4)]
    ([-10000, 0, 10000], [0, 33, 67, 100])
    """
    if n_levels <= 1:
        return 0
    low = -max_nice if allow_negative else 0
    span = (max_nice - low) * level
    return low + (2 * span + n_levels - 1) // (2 * (n_levels - 1))


def assess(state: SteerState, config: SteerConfig) -> tuple[Standing, ...]:
    """Every organization account's lag, level and target nice (module docstring), in account order.

    Complexity: directcontr simulates the 2^k coalitions (k <= ``exact_up_to``) or ``samples`` permutations,
    each an EASY backfilling run of the window's jobs; fair-tree-boost O(k log k).

    Examples
    --------
    Two accounts with one CPU each: ``a`` ran a job on both CPUs for 2 s, ``b`` nothing. ψ_a = 2·(2+1) = 6; alone,
    ``a``'s job is too wide, so v({a}) = 0, v({b}) = 0, v({a, b}) = 6 and φ = (3, 3); p_tot = 4.

    >>> state = SteerState(now=2, n_cpus=2, shares={"a": 1, "b": 1}, jobs=(UsedJob("a", 0, 0, 2, 2, 2),),
    ...                    pending=(PendingJob("1", "a", 0), PendingJob("2", "b", 0)))
    >>> [(s.account, s.psi, s.phi, s.lag, s.nice) for s in assess(state, SteerConfig())]
    [('a', 6.0, 3.0, -0.75, 10000), ('b', 0.0, 3.0, 0.75, -10000)]
    """
    accounts = sorted(state.shares)
    if config.policy == "directcontr":
        psi, phi, spread_phi, p_tot = _utilities(state, accounts, config)
        scale = float(p_tot) if p_tot else 1.0
        lag = (phi - psi) / scale
        spread = spread_phi / scale
        tolerance = config.tolerance * max(state.now, 1)
        def same(i: int, j: int) -> bool:
            return abs(lag[i] - lag[j]) <= tolerance + spread[i] + spread[j]
    else:
        psi = phi = np.full(len(accounts), np.nan)
        lag = np.array([float(state.level_fs.get(a, math.inf)) for a in accounts])
        spread = np.zeros(len(accounts))
        def same(i: int, j: int) -> bool:
            return math.isclose(lag[i], lag[j], rel_tol=LEVEL_FS_REL_TOL)
    waiting = {job.account for job in state.pending}
    ranked = sorted((i for i, a in enumerate(accounts) if a in waiting), key=lambda i: (-lag[i], accounts[i]))
    level = {}
    for rank, i in enumerate(ranked):
        level[i] = 0 if rank == 0 else level[ranked[rank - 1]] + (not same(ranked[rank - 1], i))
    n_levels = level[ranked[-1]] + 1 if ranked else 0
    return tuple(Standing(a, float(lag[i]), float(spread[i]), float(psi[i]), float(phi[i]), level.get(i, -1),
                          n_levels, nice_of_level(level[i], n_levels, config.max_nice,
                                                  allow_negative=config.allow_negative) if i in level else None)
                 for i, a in enumerate(accounts))


def _utilities(state: SteerState, accounts: list[str],
               config: SteerConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """ψ, φ, φ's 95% half-width (per account) and p_tot of the window's jobs (SPAA'13 Eq. (3), Def. 3.2)."""
    k = len(accounts)
    index = {a: u for u, a in enumerate(accounts)}
    jobs = [j for j in state.jobs if j.account in index]
    if not jobs:
        return np.zeros(k), np.zeros(k), np.zeros(k), 0
    org, submit, start, run, cpus, estimate = (np.array(col, dtype=np.int64) for col in zip(
        *((index[j.account], j.submit, j.start, max(j.run, 0), j.cpus, j.estimate) for j in jobs), strict=True))
    terms = game.psi_terms(start, run, cpus, state.now)
    psi = np.array([float(game.exact_sum(terms[org == u])) for u in range(k)])
    units = np.clip(np.minimum(start + run, state.now) - np.minimum(start, state.now), 0, None)
    p_tot = game.exact_sum(units * cpus)
    weights = np.array([float(state.shares[a]) for a in accounts])
    if not weights.sum() > 0:
        raise ConfigError("every account has 0 shares in sshare: no account owns a CPU, so there is no "
                          "contribution to compute; give the accounts shares (sacctmgr modify account ... "
                          "set fairshare=N)")
    owned = _largest_remainder(weights / weights.sum(), state.n_cpus)
    order = np.lexsort((np.arange(org.size), submit))
    reference = game.ReferenceJobs(org=org[order], submit=submit[order], run=np.maximum(run[order], 1),
                                   cpus=cpus[order], estimate=np.maximum(estimate[order], 1), index=order)
    the_game = game.Game(reference, owned.astype(np.int64), int(state.now), "backfill")
    shapley = game.shapley(the_game, exact_up_to=config.exact_up_to, samples=config.samples, seed=config.seed)
    return psi, shapley.phi.astype(np.float64), (shapley.high - shapley.low) / 2, p_tot


def decide(state: SteerState, config: SteerConfig) -> list[Action]:
    """The nice changes that bring every pending job of an organization account to its account's target.

    Running jobs are never in ``state.pending``, so never touched; jobs of accounts that are not organizations
    (not children of root in sshare) are left alone; a job already at its target gets no action, so applying the
    actions and deciding again on the new state returns ``[]``.

    >>> state = SteerState(now=2, n_cpus=2, shares={"a": 1, "b": 1}, jobs=(UsedJob("a", 0, 0, 2, 2, 2),),
    ...                    pending=(PendingJob("7", "a", 0), PendingJob("8", "b", -10000)))
    >>> [(a.job_id, a.old_nice, a.new_nice) for a in decide(state, SteerConfig())]
    [('7', 0, 10000)]
    """
    standings = {s.account: s for s in assess(state, config)}
    actions = []
    for job in state.pending:
        standing = standings.get(job.account)
        if standing is None or standing.nice is None or job.nice == standing.nice:
            continue
        actions.append(Action(job.job_id, job.account, job.nice, standing.nice, standing.reason))
    return actions


def restore(pending: Sequence[PendingJob], originals: Mapping[str, int]) -> list[Action]:
    """Give back the nice each still-pending job had before steer changed it (``originals``: job id -> nice).

    >>> restore([PendingJob("7", "a", 10000), PendingJob("9", "b", 5)], {"7": 0, "8": 0})
    [Action(job_id='7', account='a', old_nice=10000, new_nice=0, reason='restore: the nice it had before steer')]
    """
    return [Action(job.job_id, job.account, job.nice, originals[job.job_id], "restore: the nice it had before steer")
            for job in pending if job.job_id in originals and job.nice != originals[job.job_id]]


def warm_up() -> tuple[Standing, ...]:
    """Assess a tiny directcontr game, so that the game's compiled kernels are built (or loaded from cache) now.

    Three accounts with one CPU each, one 1-CPU job each: the singletons and the grand coalition go through the
    compiled replay of one coalition, the two-account coalitions through the batched replay
    (`fairsched.audit._replay`), the two entry points of every pass. Called by `fairsched.slurm.steer.steer`
    before its first pass, so that the cold compile (minutes on a loaded machine) does not delay the first period.

    Examples
    --------
    Each account ran 2 s on its own CPU from t = 0 and is alone in its coalition's replay: ψ = φ = 2·2 − 1 = 3.

    >>> [(s.account, s.psi, s.phi) for s in warm_up()]
    [('a', 3.0, 3.0), ('b', 3.0, 3.0), ('c', 3.0, 3.0)]
    """
    jobs = tuple(UsedJob(account, 0, 0, 2, 1, 2) for account in "abc")
    state = SteerState(now=2, n_cpus=3, shares=dict.fromkeys("abc", 1.0), jobs=jobs)
    return assess(state, SteerConfig())
