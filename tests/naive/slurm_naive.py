"""A deliberately simple twin of the Slurm orders (``slurm-fair-tree``, ``slurm-classic``) in the backfilling engine.

The ticked engine twin of tests/naive/ticked_naive.py (same events, same ticks) where every tick recomputes
everything from the whole history with the plain-Python functions of `fairsched.fairshare`:

- usage: `replay_usage` over every started job from the first submission to the tick (a job not yet ended
  runs on), the jobs listed in the order they started (start time, then decision number);
- fair-share factors: `fair_tree` or `classic` on the tree with that usage;
- each waiting job's key: −`job_priority` (age from its submission, the factor of its user association, the job
  size factor with one CPU per node); a job submitted between ticks gets the factors of the last tick.

The default tree, when none is given: root -> one account per organization (its shares) -> one user (shares 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fairsched.fairshare import DecayConfig, PriorityConfig, UsageJob, classic, fair_tree, job_priority, replay_usage
from fairsched.fairshare.priority import age_factor, job_size_factor
from fairsched.workload.share_tree import Association, ShareTree, share_tree
from tests.naive.backfill_naive import SLURM_DEFAULTS, NaiveRun, _State
from tests.naive.ticked_naive import _TickedState, run_ticks


@dataclass
class _SlurmState(_TickedState):
    tree: ShareTree | None = None
    assoc: list[int] = field(default_factory=list)
    billing: list[float] = field(default_factory=list)
    decay: DecayConfig = field(default_factory=DecayConfig)
    priority: PriorityConfig = field(default_factory=PriorityConfig)
    damping: float = 1.0
    since: int = 0
    factors: list[float] = field(default_factory=list)  # each association's FairShare at the last tick

    def usage(self) -> list[float]:
        started = sorted(self.started, key=lambda j: (self.started[j], self.decided[j]))
        jobs = [UsageJob(self.assoc[j], self.started[j],
                         self.started[j] + self.run[j] if j in self.terminated else math.inf, self.billing[j])
                for j in started]
        return list(replay_usage(self.tree, jobs, until=self.now, since=self.since, config=self.decay))

    def job_key(self, job: int) -> int:
        size = job_size_factor(cpus=self.procs[job], nodes=self.procs[job], cluster_cpus=self.n_procs,
                               cluster_nodes=self.n_procs, config=self.priority)
        return -job_priority(self.priority, age=age_factor(self.now, self.submit[job], self.priority.max_age),
                             fairshare=self.factors[self.assoc[job]], job_size=size)

    def submit_job(self, job: int) -> None:
        self.key[job] = self.job_key(job)
        _State.submit_job(self, job)

    def tick(self) -> bool:
        before = self.ordered_queue()
        tree = self.tree.with_usage(self.usage())
        table = fair_tree(tree) if self.order == "slurm-fair-tree" else classic(tree, damping=self.damping)
        self.factors = [row.fairshare or 0.0 for row in table.rows]
        for j in self.queue:
            self.key[j] = self.job_key(j)
        return self.ordered_queue() != before


def default_tree(shares: list[int]) -> tuple[ShareTree, list[int]]:
    """The tree of one account and one user per organization, and each organization's user association."""
    tree = share_tree([a for u, s in enumerate(shares) for a in (
        Association(f"acct{u:03d}", parent="root", shares=int(s)), Association(f"acct{u:03d}", "user", shares=1))])
    users = {a.account: i for i, a in enumerate(tree.associations) if a.is_user}
    return tree, [users[f"acct{u:03d}"] for u in range(len(shares))]


def simulate_slurm_naive(submit, run, procs, req, n_procs: int, order: str, backfill: str, *, org=None,
                         period: int = 300, shares=None, tree: ShareTree | None = None, assoc=None, billing=None,
                         half_life: float = 7 * 86400, reset_period: str = "none", weights=None,
                         max_age: float = 7 * 86400, favor_small: bool = False, damping: float = 1.0,
                         bf=None) -> NaiveRun:
    """Start time of every job under a Slurm `order` × `backfill` (module docstring)."""
    n = len(submit)
    if tree is None:
        org = [0] * n if org is None else [int(u) for u in org]
        tree, users = default_tree(list(shares) if shares is not None else [1] * (max(org) + 1))
        assoc = [users[u] for u in org]
    w = {"fairshare": 10000, "age": 1000, "jobsize": 0, **(weights or {})}
    st = _SlurmState([int(x) for x in submit], [int(x) for x in run], [int(x) for x in procs],
                     [int(x) for x in req], int(n_procs), order, backfill, slurm={**SLURM_DEFAULTS, **(bf or {})},
                     tree=tree,
                     assoc=[int(a) for a in assoc],
                     billing=[float(b) for b in (billing if billing is not None else procs)],
                     decay=DecayConfig(calc_period=float(period), half_life=float(half_life),
                                       reset_period=reset_period),  # type: ignore[arg-type]
                     priority=PriorityConfig(weight_age=w["age"], weight_fairshare=w["fairshare"],
                                             weight_job_size=w["jobsize"], max_age=float(max_age),
                                             favor_small=favor_small),
                     damping=float(damping), since=int(submit[0]))
    st.factors = [0.0] * len(tree.associations)
    return run_ticks(st, period)
