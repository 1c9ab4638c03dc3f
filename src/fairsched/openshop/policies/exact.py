"""Exact max-min fair schedules of small instances: brute force over permutations, and a lexicographic MILP.

Implements the optimum of Shafiee & Ghaderi, "On max-min fairness of completion times for multi-task job
scheduling", IFIP Networking 2020 (Networking'20): the lexicographically largest sorted utility vector (Def. 1);
with equal utilities the lexicographically smallest non-increasing vector of completion times (Lemma 1); with linear
utilities U_j(t) = P_j (τ - t) (§VI, §VII) the largest non-decreasing vector of U_j. By Theorem 1 one job
permutation applied on every machine suffices, so both methods search permutation schedules
(`fairsched.openshop.engine.evaluate_permutation`, which also enforces arrivals; with arrivals > 0 Theorem 1 no
longer applies and the result is the best *permutation* schedule).

Both minimise, lexicographically, the non-increasing sort of v_j = w_j C_j - o_j: w = 1, o = 0 for equal utilities
(v = C), w_j = P_j, o_j = P_j τ for linear utilities (v = -U).

Not implemented: the paper's single integer program (4) with position weights w_l = τ(N)^{n·l} (Lemma 3). Its largest
weight τ(N)^{n²} exceeds float64 (about 1.8e308) for τ(N) = 50 and n = 14, and long before that the weights differ
by more than 1e16, so in floating point (the only arithmetic of MILP solvers) the terms of the early positions are
lost in rounding and the optimum of (4) is no longer the min-max vector. The sequential MILP below needs no weights.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from dataclasses import dataclass

import highspy
import numpy as np
from numba import njit

from fairsched.errors import ConfigError, InvariantError
from fairsched.openshop.engine import evaluate_permutation
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.metrics import check_utilities, default_horizon

__all__ = ["MAX_BRUTE_FORCE_JOBS", "MAX_MILP_JOBS", "MAX_ORDER_MODEL_JOBS", "brute_force", "exact",
           "lexicographic_milp"]

logger = logging.getLogger(__name__)

MAX_BRUTE_FORCE_JOBS = 8  # 8! = 40,320 permutations (well under a second); 9! = 362,880, 10! = 3,628,800
MAX_MILP_JOBS = 40  # n(n-1)/2 = 780 order binaries, C(n,3) = 9,880 transitivity pairs, n MILPs: minutes at best
# The linear-order model (linear utilities or unequal arrivals) takes ~10 s at n = 10 and did not finish in minutes
# at n = 14 without a time limit.
MAX_ORDER_MODEL_JOBS = 12


def exact(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal",
          tau: float | np.ndarray | None = None, time_limit: float | None = None, **kw: object) -> OpenShopSchedule:
    """The max-min fair permutation schedule: `brute_force` for n <= 8 jobs, else `lexicographic_milp`.

    Implements the optimum of Networking'20 Def. 1 / Lemma 1 (equal) or §VI (linear utilities); see the module
    docstring. `seed` only seeds HiGHS; `time_limit` (seconds) applies to the MILP.

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]])
    >>> exact(inst).completion.tolist()
    [2, 4, 1]
    """
    if instance.n_jobs <= MAX_BRUTE_FORCE_JOBS:
        return brute_force(instance, seed=seed, utilities=utilities, tau=tau, **kw)
    return lexicographic_milp(instance, seed=seed, utilities=utilities, tau=tau, time_limit=time_limit, **kw)


def _values(instance: OpenShopInstance, utilities: str, tau: float | np.ndarray | None,
            kw: dict) -> tuple[np.ndarray, np.ndarray]:
    """(w, o) with v_j = w_j C_j - o_j the values whose non-increasing sort is minimised lexicographically."""
    if kw:
        raise ConfigError(f"exact algorithms take no parameter {', '.join(sorted(kw))}; their parameters: "
                          "utilities, tau, time_limit, seed")
    if check_utilities(utilities) == "equal":
        return np.ones(instance.n_jobs), np.zeros(instance.n_jobs)
    horizon = np.asarray(default_horizon(instance) if tau is None else tau, dtype=np.float64)
    if horizon.shape not in ((), (instance.n_jobs,)) or not np.isfinite(horizon).all():
        raise ConfigError(f"tau: expected a finite number or one per job ({instance.n_jobs}), got shape "
                          f"{horizon.shape}")
    return instance.priority.astype(np.float64), instance.priority * horizon


# ------------------------------------------------------------------------------------------------------ brute force

def brute_force(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal",
                tau: float | np.ndarray | None = None, **kw: object) -> OpenShopSchedule:
    """Try every job permutation; keep the lexicographically fairest (the first in `itertools.permutations` order).

    Implements the max-min fair optimum (Networking'20 Def. 1, Lemma 1, Theorem 1) by enumeration; utilities
    ``equal`` (U = -C) or ``linear`` (U_j = P_j (τ - C_j), τ default `default_horizon`). O(n! (n log n + tasks + m))
    in a numba kernel; refuses n > `MAX_BRUTE_FORCE_JOBS`. `seed` is unused (deterministic).

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]])
    >>> brute_force(inst).completion.tolist()       # sorted: (4, 2, 1), the min-max vector
    [2, 4, 1]
    """
    weight, offset = _values(instance, utilities, tau, kw)
    n = instance.n_jobs
    if n > MAX_BRUTE_FORCE_JOBS:
        raise ConfigError(f"brute force enumerates n! permutations; n={n} means {math.factorial(n):,} schedules "
                          f"(the limit is n <= {MAX_BRUTE_FORCE_JOBS}). Use exact() or lexicographic_milp().")
    if n == 0:
        return evaluate_permutation(instance, np.zeros(0, np.int64), algorithm="brute_force")
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64)
    best = _best_permutation(perms, instance.indptr, instance.task_machine, instance.task_time, instance.arrival,
                             weight, offset, instance.n_machines)
    return evaluate_permutation(instance, perms[best], release=True, algorithm="brute_force")


@njit(cache=True)
def _best_permutation(perms, indptr, task_machine, task_time, arrival, weight, offset, n_machines):
    """Row of `perms` whose sorted value vector v_j = weight_j C_j - offset_j (non-increasing) is smallest.

    C_j: every machine runs its tasks in the row's job order, back to back, none before its job's arrival (as
    `evaluate_permutation` with release); a job without tasks completes at its arrival. Ties keep the first row.
    """
    n = perms.shape[1]
    free = np.zeros(n_machines, np.int64)
    value = np.empty(n)
    best_key = np.empty(n)
    best = -1
    for r in range(perms.shape[0]):
        free[:] = 0
        for pos in range(n):
            j = perms[r, pos]
            done = arrival[j]
            for t in range(indptr[j], indptr[j + 1]):
                start = max(free[task_machine[t]], arrival[j])
                free[task_machine[t]] = start + task_time[t]
                done = max(done, start + task_time[t])
            value[j] = weight[j] * done - offset[j]
        key = np.sort(value)[::-1]
        better = best < 0
        for q in range(n):
            if better or key[q] > best_key[q]:
                break
            if key[q] < best_key[q]:
                better = True
                break
        if better:
            best = r
            best_key[:] = key
    return max(best, 0)


# ------------------------------------------------------------------------------------------------------------ MILP

def lexicographic_milp(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal",
                       tau: float | np.ndarray | None = None, time_limit: float | None = None,
                       **kw: object) -> OpenShopSchedule:
    """The max-min fair permutation schedule by sequential MILPs solved with HiGHS.

    Implements the optimum of Networking'20 Def. 1 / Lemma 1 (equal utilities) or §VI (linear utilities) over
    permutation schedules (Theorem 1), without the weights of IP (4) (module docstring). Two formulations:

    *Prefix makespans* (equal utilities, every arrival equal — the offline model). For a permutation π let
    M(l) = max_i Σ_{s<=l} p_{i,π(s)}, the makespan of its first l jobs. At least l jobs complete by M(l), so the
    non-increasing completion vector is componentwise <= (M(n), ..., M(1)); conversely, ordering an optimal schedule
    by completion time gives prefix makespans <= its sorted completions (the work of the l earliest jobs on machine
    i fits before the l-th smallest completion: Theorem 1's exchange argument). So the min-max vector is the
    lexicographically smallest (M(n), M(n-1), ..., M(1)), M(n) = τ(N) (Eq. (2)) being fixed — Algorithm 1's
    recursion, as MILPs: binaries z_jq = 1 when job j is among the first q (q = 1..n-1), Σ_j z_jq = q,
    z_jq <= z_j(q+1), M_q >= Σ_j p_ij z_jq for every machine i; minimise M_(n-1), bound it, minimise M_(n-2), ...
    Job j goes to position n - Σ_q z_jq.

    *Linear order* (linear utilities, or arrivals). Binaries y_hk (h < k) = 1 when job h precedes job k, a total
    order by the rows 0 <= y_ab + y_bc - y_ac <= 1 (a < b < c); C_k >= a_min + p_ik + Σ_{h before k} p_ih on each
    machine i of job k (a_min the earliest arrival). With unequal arrivals, also task starts s_t >= a_j, for two
    tasks of jobs h < k on one machine the big-M pair s_k >= s_h + p_h - M (1 - y_hk), s_h >= s_k + p_k - M y_hk
    (M = largest arrival + Σ p), and C_j >= s_t + p_t.
    With v_j = w_j C_j - o_j (module docstring), step l = 1..n minimises θ_l = the sum of the l largest v_j,
    linearised as l r_l + Σ_j d_lj with d_lj >= v_j - r_l, d_lj >= 0 (Ogryczak & Tamir 2003), and bounds it: the
    l-th largest value of the optimum is θ*_l - θ*_(l-1).

    Exactness: when every value is an integer combination (equal utilities; linear with integer priorities and τ),
    each bound is ``round(optimum) + 0.5``: no order that is worse can slip through the solver's tolerances.
    Otherwise the bound is optimum (1 + 1e-9) + 1e-6 and near-ties within it may be resolved either way.

    Parameters
    ----------
    seed : HiGHS's random seed.
    time_limit : seconds for all steps together (None: no limit). When reached, the best order found is returned,
        ``algorithm`` says how many steps were proven, and a warning is logged.

    Notes
    -----
    Prefix makespans: n (n-1) binaries, n-1 MILPs; measured 0.1 s for n = 10, about 2 s for n = 20 and 10 s for
    n = 25 (random instances, 4 machines, density 0.5). Linear order: n (n-1)/2 binaries, O(n³) rows, n MILPs;
    much slower (about 10 s for n = 10). Refused beyond `MAX_MILP_JOBS` jobs, and the order model beyond
    `MAX_ORDER_MODEL_JOBS` without a `time_limit`.

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]])
    >>> lexicographic_milp(inst).completion.tolist()
    [2, 4, 1]
    """
    weight, offset = _values(instance, utilities, tau, kw)
    n = instance.n_jobs
    if n > MAX_MILP_JOBS:
        raise ConfigError(f"the lexicographic MILP solves n = {n} MILPs of about n² binaries (the limit is "
                          f"n <= {MAX_MILP_JOBS}); use a heuristic (pba, kmaxmin) instead.")
    prefix = utilities == "equal" and (n == 0 or instance.arrival.min() == instance.arrival.max())
    if not prefix and n > MAX_ORDER_MODEL_JOBS and time_limit is None:
        raise ConfigError(f"the lexicographic MILP for linear utilities or unequal arrivals is slow beyond "
                          f"{MAX_ORDER_MODEL_JOBS} jobs (n = {n}): give it a time_limit (the best order found is "
                          "returned, marked as not proven), or use a heuristic (pba)")
    deadline = None if time_limit is None else time.monotonic() + float(time_limit)
    if n <= 1:
        order, proven, steps = np.arange(n, dtype=np.int64), 0, 0
    elif prefix:
        order, proven, steps = _PrefixModel.build(instance, seed).solve(deadline)
    else:
        order, proven, steps = _OrderModel.build(instance, weight, offset, seed).solve(deadline)
    name = "lexicographic_milp"
    if proven < steps:
        name += f" (time limit: {proven} of {steps} steps proven)"
        logger.warning("lexicographic MILP stopped by its time limit after %d of %d steps", proven, steps)
    return evaluate_permutation(instance, order, release=True, algorithm=name)


def _new_highs(seed: int) -> highspy.Highs:
    h = highspy.Highs()
    # mip_rel_gap 0: the default 1e-4 would accept an incumbent a few units above the optimum.
    for option, value in (("output_flag", False), ("random_seed", int(seed) % 2**31), ("mip_rel_gap", 0.0),
                          ("mip_abs_gap", 1e-7), ("threads", 1)):
        h.setOptionValue(option, value)
    return h


def _run(h: highspy.Highs, deadline: float | None, step: int) -> bool:
    """Solve; True when optimal, False when out of time; anything else is a bug."""
    if deadline is not None:
        h.setOptionValue("time_limit", max(deadline - time.monotonic(), 0.01))
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kOptimal:
        return True
    if status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kInterrupt):
        return False
    raise InvariantError(f"lexicographic MILP step {step}: HiGHS ended with {h.modelStatusToString(status)}")


@dataclass
class _PrefixModel:
    """Prefix-makespan model of `lexicographic_milp` (equal utilities, equal arrivals)."""

    highs: highspy.Highs
    z: np.ndarray  # (n, n-1) columns: z[j, q-1] = 1 when job j is among the first q
    makespan: np.ndarray  # (n-1,) columns M_q

    @classmethod
    def build(cls, instance: OpenShopInstance, seed: int) -> _PrefixModel:
        n, dense = instance.n_jobs, instance.to_dense().astype(np.float64)
        h = _new_highs(seed)
        z = _add_cols(h, np.zeros(n * (n - 1)), np.ones(n * (n - 1)), integer=True).reshape(n, n - 1)
        makespan = _add_cols(h, np.zeros(n - 1), np.full(n - 1, dense.sum(axis=0).max()))
        _add_rows(h, np.arange(1.0, n), np.arange(1.0, n), z.T, np.ones((n - 1, n)))  # |S_q| = q
        _add_rows(h, -np.inf, 0.0, np.stack([z[:, :-1].ravel(), z[:, 1:].ravel()], axis=1),
                  np.array([1.0, -1.0]))  # S_q inside S_(q+1)
        for i in np.flatnonzero(dense.any(axis=0)):  # M_q >= Σ_j p_ij z_jq
            jobs = np.flatnonzero(dense[:, i])
            cols = np.concatenate([makespan[:, None], z[jobs].T], axis=1)
            _add_rows(h, 0.0, np.inf, cols, np.concatenate([[1.0], -dense[jobs, i]]))
        return cls(highs=h, z=z, makespan=makespan)

    def solve(self, deadline: float | None) -> tuple[np.ndarray, int, int]:
        """(order, steps proven, steps): minimise M_(n-1), ..., M_1 in turn."""
        h, n = self.highs, self.z.shape[0]
        solution, proven = None, 0
        for q in range(n - 1, 0, -1):
            col = int(self.makespan[q - 1])
            h.changeColCost(col, 1.0)
            if solution is not None:
                h.setSolution(solution.size, np.arange(solution.size, dtype=np.int32), solution)
            if not _run(h, deadline, n - q):
                break
            h.changeColBounds(col, 0.0, round(h.getInfo().objective_function_value) + 0.5)
            h.changeColCost(col, 0.0)
            solution = np.asarray(h.getSolution().col_value, dtype=np.float64)
            proven += 1
        if solution is None:
            return np.arange(n, dtype=np.int64), 0, n - 1
        position = n - (solution[self.z] > 0.5).sum(axis=1)
        return np.argsort(position, kind="stable").astype(np.int64), proven, n - 1


@dataclass
class _OrderModel:
    """Linear-order model of `lexicographic_milp` (order binaries, completion times, optional task starts)."""

    highs: highspy.Highs
    pair_col: np.ndarray  # (n, n) column of y_hk for h < k, -1 elsewhere
    c_col: np.ndarray  # (n,) columns of C_j
    weight: np.ndarray
    offset: np.ndarray
    solution: np.ndarray | None = None

    @classmethod
    def build(cls, instance: OpenShopInstance, weight: np.ndarray, offset: np.ndarray, seed: int) -> _OrderModel:
        n = instance.n_jobs
        big_m = float(instance.arrival.max() + instance.task_time.sum())
        h = _new_highs(seed)
        hs, ks = np.triu_indices(n, 1)
        pair_col = np.full((n, n), -1, dtype=np.int64)
        pair_col[hs, ks] = _add_cols(h, np.zeros(hs.size), np.ones(hs.size), integer=True)
        c_col = _add_cols(h, instance.arrival.astype(np.float64), np.full(n, big_m))
        model = cls(highs=h, pair_col=pair_col, c_col=c_col, weight=weight, offset=offset)
        triples = np.array(list(itertools.combinations(range(n), 3)), dtype=np.int64).reshape(-1, 3)
        a, b, c = triples.T
        _add_rows(h, 0.0, 1.0, np.stack([pair_col[a, b], pair_col[b, c], pair_col[a, c]], axis=1),
                  np.array([1.0, 1.0, -1.0]))
        first, second = _machine_pairs(instance)
        if instance.n_tasks:
            model._work_before(instance, first, second)
        if instance.arrival.min() != instance.arrival.max():
            model._release(instance, first, second, big_m)
        return model

    def _work_before(self, instance: OpenShopInstance, first: np.ndarray, second: np.ndarray) -> None:
        """C_k >= p_ik + Σ_{h before k} p_ih for each task (i, k): machine i runs the work before k first."""
        job, p = instance.task_job(), instance.task_time.astype(np.float64)
        cols = [[int(self.c_col[job[t]])] for t in range(instance.n_tasks)]
        coefs = [[1.0] for _ in range(instance.n_tasks)]
        lower = p + float(instance.arrival.min())  # no machine starts before the earliest arrival
        for a, b in zip(first.tolist(), second.tolist(), strict=True):  # job[a] < job[b]; y = 1: a's job first
            y = int(self.pair_col[job[a], job[b]])
            cols[a].append(y)  # b before a when y = 0: C_a >= ... + p_b (1 - y)
            coefs[a].append(p[b])
            lower[a] += p[b]
            cols[b].append(y)  # a before b when y = 1: C_b >= ... + p_a y
            coefs[b].append(-p[a])
        starts = np.cumsum([0] + [len(c) for c in cols[:-1]])
        self.highs.addRows(len(cols), lower, np.full(len(cols), np.inf), int(sum(map(len, cols))),
                           starts.astype(np.int32), np.concatenate(cols).astype(np.int32), np.concatenate(coefs))

    def _release(self, instance: OpenShopInstance, first: np.ndarray, second: np.ndarray, big_m: float) -> None:
        """Task starts s_t >= a_j, the big-M disjunction of each pair sharing a machine, C_j >= s_t + p_t."""
        h, job, p = self.highs, instance.task_job(), instance.task_time.astype(np.float64)
        s_col = _add_cols(h, instance.arrival[job].astype(np.float64), np.full(job.size, big_m))
        y = self.pair_col[job[first], job[second]]
        # y = 1 (first's job first): s_second - s_first - M y >= p_first - M
        # y = 0 (second's job first): s_first - s_second + M y >= p_second
        _add_rows(h, p[first] - big_m, np.inf, np.stack([s_col[second], s_col[first], y], axis=1),
                  np.array([1.0, -1.0, -big_m]))
        _add_rows(h, p[second], np.inf, np.stack([s_col[first], s_col[second], y], axis=1),
                  np.array([1.0, -1.0, big_m]))
        _add_rows(h, p, np.inf, np.stack([self.c_col[job], s_col], axis=1), np.array([1.0, -1.0]))

    def solve(self, deadline: float | None) -> tuple[np.ndarray, int, int]:
        """(order, steps proven, steps): minimise θ_1, ..., θ_n in turn."""
        n = self.c_col.size
        integral = bool(np.all(self.weight == np.round(self.weight)) and np.all(self.offset == np.round(self.offset)))
        proven = 0
        for level in range(1, n + 1):
            if not self._step(level, integral, deadline):
                break
            proven = level
        return self._order(), proven, n

    def _step(self, level: int, integral: bool, deadline: float | None) -> bool:
        """Minimise θ = the sum of the `level` largest v_j, then bound it. False if out of time."""
        h, n = self.highs, self.c_col.size
        r = _add_cols(h, np.array([-np.inf]), np.array([np.inf]))
        d = _add_cols(h, np.zeros(n), np.full(n, np.inf))
        _add_rows(h, -self.offset, np.inf, np.stack([d, np.full(n, r[0]), self.c_col], axis=1),
                  np.stack([np.ones(n), np.ones(n), -self.weight], axis=1))  # d_j + r - w_j C_j >= -o_j
        theta_cols = np.concatenate([r, d]).astype(np.int32)
        theta_coef = np.concatenate([[float(level)], np.ones(n)])
        h.changeColsCost(theta_cols.size, theta_cols, theta_coef)
        self._warm_start(level, r[0], d)
        if not _run(h, deadline, level):
            return False
        theta = h.getInfo().objective_function_value
        bound = round(theta) + 0.5 if integral else theta + 1e-9 * abs(theta) + 1e-6
        _add_rows(h, -np.inf, bound, theta_cols[None, :], theta_coef[None, :])
        h.changeColsCost(theta_cols.size, theta_cols, np.zeros(theta_cols.size))
        self.solution = np.asarray(h.getSolution().col_value, dtype=np.float64)
        return True

    def _warm_start(self, level: int, r: int, d: np.ndarray) -> None:
        """Extend the previous step's solution to the new r, d columns (it satisfies every row so far)."""
        if self.solution is None:
            return
        v = self.weight * self.solution[self.c_col] - self.offset
        threshold = np.sort(v)[::-1][level - 1]
        start = np.concatenate([self.solution, [threshold], np.maximum(v - threshold, 0.0)])
        self.highs.setSolution(start.size, np.arange(start.size, dtype=np.int32), start)

    def _order(self) -> np.ndarray:
        """The job permutation of the last solution: job j goes to position #{jobs before j}."""
        n = self.c_col.size
        if self.solution is None:  # no step finished: no order is better than another yet
            return np.arange(n, dtype=np.int64)
        hs, ks = np.triu_indices(n, 1)
        first = self.solution[self.pair_col[hs, ks]] > 0.5
        before = np.zeros((n, n), dtype=np.int64)  # before[h, k] = 1 when h precedes k
        before[hs, ks] = first
        before[ks, hs] = ~first
        return np.argsort(before.sum(axis=0), kind="stable").astype(np.int64)


def _machine_pairs(instance: OpenShopInstance) -> tuple[np.ndarray, np.ndarray]:
    """Every two tasks sharing a machine, as (first, second) task indices with job[first] < job[second]."""
    job = instance.task_job()
    by_machine = np.lexsort((job, instance.task_machine))
    bounds = np.searchsorted(instance.task_machine[by_machine], np.arange(instance.n_machines + 1))
    firsts, seconds = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for i in range(instance.n_machines):
        tasks = by_machine[bounds[i]:bounds[i + 1]]
        u, v = np.triu_indices(tasks.size, 1)
        firsts.append(tasks[u])
        seconds.append(tasks[v])
    return np.concatenate(firsts), np.concatenate(seconds)


def _add_cols(h: highspy.Highs, lower: np.ndarray, upper: np.ndarray, *, integer: bool = False) -> np.ndarray:
    """Append columns with zero cost; returns their indices."""
    first = h.getNumCol()
    h.addVars(lower.size, np.asarray(lower, np.float64), np.asarray(upper, np.float64))
    cols = np.arange(first, first + lower.size, dtype=np.int64)
    if integer and cols.size:
        h.changeColsIntegrality(cols.size, cols.astype(np.int32), np.ones(cols.size, dtype=np.uint8))
    return cols


def _add_rows(h: highspy.Highs, lower: np.ndarray | float, upper: np.ndarray | float, cols: np.ndarray,
              coef: np.ndarray) -> None:
    """Append rows ``lower <= Σ coef[r, q] x[cols[r, q]] <= upper`` (every row has cols.shape[1] entries)."""
    n_rows, width = cols.shape
    if n_rows == 0:
        return
    coef = np.broadcast_to(np.asarray(coef, np.float64), (n_rows, width))
    h.addRows(n_rows, np.broadcast_to(np.asarray(lower, np.float64), (n_rows,)).copy(),
              np.broadcast_to(np.asarray(upper, np.float64), (n_rows,)).copy(), n_rows * width,
              np.arange(0, n_rows * width, width, dtype=np.int32), cols.reshape(-1).astype(np.int32),
              np.ascontiguousarray(coef).reshape(-1))
