"""What the two Slurm orders (``slurm-fair-tree``, ``slurm-classic``) share: their parameters, the association
tree flattened into arrays, and the layouts of ``opar`` / ``ost`` that the compiled tick (`_slurm_kernels`) reads.

The static parts of the fair-share arithmetic (NormShares, classic's product of shares, the sibling lists) are
taken from the plain-Python functions of `fairsched.fairshare` once, at preparation, so that the compiled tick
repeats exactly their floating-point operations on the usages that change.

Parameters (``order_params``; defaults stated, Slurm's where Slurm has one):

``org``            organization (account) index of each job, 0-based; default every job in organization 0
``shares``         raw shares of each account (integers >= 0, Slurm's ``Fairshare=``); default 1 each (Slurm's)
``tree``           a `fairsched.workload.share_tree.ShareTree` to take the shares from instead (then give
                   ``assoc``, not ``org`` / ``shares``); its raw usages are ignored unless ``initial_usage``
``assoc``          with ``tree``: the index in ``tree.associations`` of each job's user association
``initial_usage``  with ``tree``: True to start from the tree's raw usages (an account given none sums its
                   children, as sshare shows it), e.g. an ``sshare -a -l -P`` dump's RawUsage taken when the
                   replayed log begins; default False: every usage starts at 0
``calc_period``    ``PriorityCalcPeriod``, seconds between ticks (default 300: Slurm's 5 minutes)
``half_life``      ``PriorityDecayHalfLife`` in seconds (default 604800: Slurm's 7 days; 0: no decay)
``reset_period``   ``PriorityUsageResetPeriod``: none (Slurm's default), daily, weekly, monthly, quarterly,
                   yearly (calendar in UTC over the jobs' clock taken as seconds since the epoch)
``weights``        {"fairshare": W, "age": W, "jobsize": W}, integers; default fairshare 10000, age 1000,
                   jobsize 0 (Slurm's defaults are all 0, which would make every job's priority 1: FCFS)
``max_age``        ``PriorityMaxAge`` in seconds (default 604800: Slurm's 7-0)
``favor_small``    ``PriorityFavorSmall`` (default False, Slurm's); the job-size factor is procs / P (one CPU per
                   node), or (P - procs) / P when favouring small jobs
``billing``        the usage one second of each job adds (default its processors: Slurm's allocated CPUs)
``damping``        ``FairShareDampeningFactor`` (slurm-classic only; default 1, Slurm's)
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import numpy as np

from fairsched.backfill.policies._ticked import calc_period
from fairsched.backfill.view import TickSetup
from fairsched.errors import ConfigError
from fairsched.fairshare import PriorityConfig, classic, fair_tree
from fairsched.fairshare._tree import index_tree
from fairsched.fairshare.decay import RESET_PERIODS, _reset_times, decay_factor
from fairsched.fairshare.priority import job_size_factor
from fairsched.workload.share_tree import Association, ShareTree, share_tree

PARAMS = ("org", "shares", "tree", "assoc", "initial_usage", "calc_period", "half_life", "reset_period", "weights",
          "max_age", "favor_small", "billing", "damping")
DEFAULT_WEIGHTS = {"fairshare": 10000, "age": 1000, "jobsize": 0}
DEFAULT_HALF_LIFE = 7 * 86400
FAIR_TREE, CLASSIC = 0, 1

# opar header (float64): sizes, constants, then the offsets of the per-association arrays that follow it
(N_ASSOC, N_USERS, ALGO, DAMPING, DECAY, UNIT, D, W_AGE, W_FS, MAX_AGE, N_RESETS, CAP_RUN, DEPTH,
 O_PARENT, O_FS_PARENT, O_IS_USER, O_USE_PARENT, O_NORM_SHARES, O_CL_SHARES, O_CL_RATIO, O_CL_SPLIT,
 O_CH_START, O_CH, O_RESETS, OPAR_HEAD) = range(25)
# ost header (float64): the last tick's time (NaN before the first), the next reset, the running jobs counted
(S_LAST, S_NEXT_RESET, S_N_RUN, S_USAGE, S_LEVEL, S_EFFECTIVE, S_FACTOR, S_ORDER, S_RUN, S_NEW, S_STACK,
 OST_HEAD) = range(12)
# jpar rows: billing, the job-size term W_jobsize * factor, the usage of one whole period (UNIT * billing)
J_BILLING, J_SIZE, J_PIECE = range(3)


def prepare(name: str, algorithm: int, jobs: Any, params: Mapping[str, Any]) -> TickSetup:
    """The `TickSetup` of one run of ``slurm-fair-tree`` (FAIR_TREE) or ``slurm-classic`` (CLASSIC)."""
    allowed = PARAMS if algorithm == CLASSIC else tuple(p for p in PARAMS if p != "damping")
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ConfigError(f"queue order {name!r} has no parameter(s) {', '.join(unknown)}; it takes: "
                          f"{', '.join(allowed)}")
    tree, assoc = job_associations(name, jobs, params)
    period = calc_period(name, params)
    priority = priority_config(name, params)
    half_life = _number(name, params, "half_life", DEFAULT_HALF_LIFE, minimum=0.0)
    damping = _number(name, params, "damping", 1.0, minimum=0.0)
    if algorithm == CLASSIC and damping <= 0:
        raise ConfigError(f"queue order {name!r}: damping (FairShareDampeningFactor) must be > 0, got {damping}")
    reset = params.get("reset_period", "none")
    if reset not in RESET_PERIODS:
        raise ConfigError(f"queue order {name!r}: unknown reset_period {reset!r}; choose one of: "
                          f"{', '.join(RESET_PERIODS)}")
    n = jobs.n_jobs
    bill = np.asarray(params.get("billing", jobs.procs), dtype=np.float64)
    if bill.shape != (n,) or not np.all(np.isfinite(bill)) or np.any(bill < 0):
        raise ConfigError(f"queue order {name!r}: billing must give one finite number >= 0 per job ({n})")
    d = decay_factor(half_life)
    unit = float(period) * d ** float(period)  # job_usage(period, 1, d) before the billing factor
    size = np.array([priority.weight_job_size * job_size_factor(
        cpus=int(p), nodes=int(p), cluster_cpus=jobs.n_processors, cluster_nodes=jobs.n_processors,
        config=priority) for p in jobs.procs], dtype=np.float64)
    jpar = np.vstack([bill, size, unit * bill]) if n else np.zeros((3, 1))
    first = float(jobs.submit[0]) if n else 0.0
    horizon = float(jobs.submit[-1] + jobs.run.sum()) if n else 0.0  # no job can run past it
    resets = np.asarray(_reset_times(reset, first, horizon), dtype=np.float64)
    cap_run = min(n, 2 * jobs.n_processors) + 1
    opar, ost = _layout(tree, algorithm, damping=damping, decay=max(d ** float(period), sys.float_info.min),
                        unit=unit, d=d, priority=priority, resets=resets, cap_run=cap_run)
    initial = params.get("initial_usage", False)
    if not isinstance(initial, bool | np.bool_):
        raise ConfigError(f"queue order {name!r}: initial_usage must be True or False, got {initial!r}")
    if initial:
        if params.get("tree") is None:
            raise ConfigError(f"queue order {name!r}: initial_usage takes the raw usages of a tree; give tree= "
                              "(e.g. an sshare dump) and assoc=")
        u0 = int(ost[S_USAGE])
        ost[u0:u0 + len(tree.associations)] = index_tree(tree).usage
    return TickSetup(period=period, org=assoc, jpar=jpar, opar=opar, ost=ost)


def job_associations(name: str, jobs: Any, params: Mapping[str, Any]) -> tuple[ShareTree, np.ndarray]:
    """The association tree and each job's user association (int64[n], indices into the tree)."""
    n = jobs.n_jobs
    tree = params.get("tree")
    if tree is None:
        if "assoc" in params:
            raise ConfigError(f"queue order {name!r}: assoc indexes a tree; give tree= too (or org= alone)")
        org = np.zeros(n, dtype=np.int64) if params.get("org") is None else np.asarray(params["org"])
        if org.shape != (n,) or (n and not np.issubdtype(org.dtype, np.integer)) or (n and org.min() < 0):
            raise ConfigError(f"queue order {name!r}: org must give one 0-based integer organization index per "
                              f"job ({n})")
        k = int(org.max()) + 1 if n else 1
        raw = params.get("shares")
        shares = [1] * k if raw is None else list(np.asarray(raw).tolist())
        if len(shares) < k or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in shares):
            raise ConfigError(f"queue order {name!r}: shares must give one integer >= 0 per organization ({k}) "
                              f"(Slurm's raw shares), got {shares}")
        tree = default_tree(shares)
        users = [i for i, a in enumerate(tree.associations) if a.is_user]  # one per account, in account order
        return tree, np.asarray(users, dtype=np.int64)[org.astype(np.int64)] if n else np.zeros(0, np.int64)
    if not isinstance(tree, ShareTree):
        raise ConfigError(f"queue order {name!r}: tree must be a fairsched.workload.share_tree.ShareTree")
    if "org" in params or "shares" in params:
        raise ConfigError(f"queue order {name!r}: with tree=, give each job's user association as assoc= "
                          "(the shares come from the tree), not org= or shares=")
    assoc = np.asarray(params.get("assoc", []))
    if assoc.shape != (n,) or (n and not np.issubdtype(assoc.dtype, np.integer)):
        raise ConfigError(f"queue order {name!r}: assoc must give one association index per job ({n})")
    bad = [int(a) for a in assoc if not 0 <= a < len(tree.associations) or not tree.associations[a].is_user]
    if bad:
        raise ConfigError(f"queue order {name!r}: assoc must name user associations of the tree (jobs run under "
                          f"a user in an account); {len(bad)} do not, first {bad[0]}")
    return tree, assoc.astype(np.int64)


def default_tree(shares: list[int]) -> ShareTree:
    """root -> one account per organization (its raw shares) -> one user (shares 1), named in index order."""
    width = len(str(max(len(shares) - 1, 0)))
    assocs = []
    for u, s in enumerate(shares):
        assocs += [Association(f"org{u:0{width}d}", parent="root", shares=int(s)),
                   Association(f"org{u:0{width}d}", f"user{u:0{width}d}", shares=1)]
    return share_tree(assocs)


def priority_config(name: str, params: Mapping[str, Any]) -> PriorityConfig:
    """The multifactor weights (module docstring), as `fairsched.fairshare.PriorityConfig`."""
    raw = params.get("weights") or {}
    if not isinstance(raw, Mapping) or set(raw) - set(DEFAULT_WEIGHTS):
        raise ConfigError(f"queue order {name!r}: weights must map some of {', '.join(DEFAULT_WEIGHTS)} to "
                          f"integers, got {raw!r}")
    weights = {**DEFAULT_WEIGHTS, **raw}
    try:
        return PriorityConfig(weight_age=weights["age"], weight_fairshare=weights["fairshare"],
                              weight_job_size=weights["jobsize"],
                              max_age=_number(name, params, "max_age", 7 * 86400, minimum=0.0),
                              favor_small=bool(params.get("favor_small", False)))
    except ConfigError as error:
        raise ConfigError(f"queue order {name!r}: {error}") from None


def _number(name: str, params: Mapping[str, Any], key: str, default: float, *, minimum: float) -> float:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating) \
            or not np.isfinite(value) or value < minimum:
        raise ConfigError(f"queue order {name!r}: {key} must be a number >= {minimum:g}, got {value!r}")
    return float(value)


def _layout(tree: ShareTree, algorithm: int, *, damping: float, decay: float, unit: float, d: float,
            priority: PriorityConfig, resets: np.ndarray, cap_run: int) -> tuple[np.ndarray, np.ndarray]:
    """opar (the header, then the tree's arrays at their offsets) and the initial ost (module constants)."""
    t = index_tree(tree)
    n = len(t.shares)
    ft_rows = fair_tree(tree).rows
    cl_rows = classic(tree, damping=damping).rows
    ch_start = np.cumsum([0] + [len(c) for c in t.fs_children])
    children = [c for kids in t.fs_children for c in kids]
    arrays = {
        O_PARENT: t.parent, O_FS_PARENT: t.fs_parent, O_IS_USER: t.is_user, O_USE_PARENT: t.use_parent,
        O_NORM_SHARES: [r.norm_shares for r in ft_rows], O_CL_SHARES: [r.norm_shares for r in cl_rows],
        O_CL_RATIO: [t.shares[i] / t.level_shares[i] if t.level_shares[i] else 0.0 for i in range(n)],
        # classic's UE takes the parent's UE for an association with ``parent`` shares or siblings without any
        O_CL_SPLIT: [not (t.use_parent[i] or not t.level_shares[i]) for i in range(n)],
        O_CH_START: ch_start, O_CH: children, O_RESETS: resets}
    depth = max(tree.depths) + 2
    head = np.zeros(OPAR_HEAD)
    head[[N_ASSOC, N_USERS, ALGO, DAMPING, DECAY, UNIT, D, W_AGE, W_FS, MAX_AGE, N_RESETS, CAP_RUN, DEPTH]] = (
        n, t.n_users, algorithm, damping, decay, unit, d, priority.weight_age, priority.weight_fairshare,
        priority.max_age, resets.size, cap_run, depth)
    parts, offset = [head], OPAR_HEAD
    for slot in range(O_PARENT, O_RESETS + 1):
        values = np.asarray(arrays[slot], dtype=np.float64)
        head[slot] = offset
        parts.append(values)
        offset += values.size
    opar = np.concatenate(parts)
    sizes = {S_USAGE: n, S_LEVEL: n, S_EFFECTIVE: n, S_FACTOR: n, S_ORDER: len(children), S_RUN: cap_run,
             S_NEW: 3 * cap_run, S_STACK: 4 * depth}
    ost_head = np.zeros(OST_HEAD)
    ost_head[S_LAST] = np.nan
    offset = OST_HEAD
    for slot in range(S_USAGE, S_STACK + 1):
        ost_head[slot] = offset
        offset += sizes[slot]
    ost = np.zeros(offset)
    ost[:OST_HEAD] = ost_head
    ost[int(ost_head[S_ORDER]):int(ost_head[S_ORDER]) + len(children)] = children
    return opar, ost


def state_of(opar: np.ndarray, ost: np.ndarray) -> dict[str, Any]:
    """The order's state as of its last tick (tests, reports): ``last_tick`` (None before the first),
    ``usage`` (raw usage of every association now, the jobs ended since the last tick included), ``fairshare``
    (each association's factor at the last tick: users only under Fair Tree) and ``level_fs`` (Fair Tree)."""
    n = int(opar[N_ASSOC])

    def part(slot: int) -> np.ndarray:
        return ost[int(ost[slot]):int(ost[slot]) + n].copy()

    last = float(ost[S_LAST])
    return {"last_tick": None if np.isnan(last) else last, "usage": part(S_USAGE), "fairshare": part(S_FACTOR),
            "level_fs": part(S_LEVEL), "effective_usage": part(S_EFFECTIVE)}
