"""PBA, the perturbation-based algorithm (Networking'20 Algorithm 2), and its generalization to unequal utilities (§VI).

Both fill the positions of one job permutation backwards, n down to 1, then schedule every machine by it with
the original processing times (Theorem 1).

Interpretation (Algorithm 2 line 2). The paper perturbs p_ij ← p_ij + ε_j "for every job", and Definition 2 gives
every job a zero-time task on the machines it does not use; perturbing all n·m entries adds Σ_{j∈N} ε_j to every
τ_i, so the candidate rule of line 4 becomes exactly

    argmin_j  max_{i∈M} (τ_i − p_ij) − ε_j          (τ_i, p_ij the original times, p_ij = 0 off M_j),

i.e. ties of the original rule are broken by the largest ε_j, and a larger gap is overturned only if ε ≥ 1 time
unit. This reading matches the paper's analysis (a collision needs two equal ε_j: probability ≤ C(n,2)·2^−b,
§V-B2) and its report that the Google trace never needed a redraw. Perturbing only the real tasks would not: two
jobs on the most loaded machine whose second-largest completion is set by a machine neither uses tie for every
draw of ε, and Algorithm 2 would redraw forever. Exact ties (equal ε) redraw ε from the same generator.
"""

from __future__ import annotations

import math

import numpy as np

from fairsched.errors import ConfigError, InvariantError
from fairsched.openshop.engine import evaluate_permutation, tasks_by_machine
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.metrics import check_utilities, default_horizon
from fairsched.openshop.policies import _pba_kernels as _k
from fairsched.openshop.policies._registry import register

EPS_FRACTION = 1e-4  # ε = 1e−4 × the smallest processing time (§VII)
MAX_REDRAWS = 20  # a redraw needs two equal float64 draws (probability ~ n²·2^−53): 20 in a row is a bug


def pba(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal", eps: float | None = None,
        tau: float | np.ndarray | None = None) -> OpenShopSchedule:
    """Perturbation-based algorithm: Algorithm 2 with equal utilities, its §VI generalization with linear ones.

    Implements Networking'20 Algorithm 2 (§V-B) and §VI ("we refer to both ... as PBA", §VII). See the module
    docstring for the reading of the perturbation. O(tasks) per position in the worst case, but only the jobs of
    the most loaded machine are scanned: about 1 s for 19k jobs, 600k tasks and 200 machines (generalized: ~5 s).

    Parameters
    ----------
    seed : seeds ``np.random.default_rng``; ε_j = rng.uniform(0, ε, n), redrawn from the same generator on a tie.
    utilities : "equal" (Algorithm 2) or "linear" (`generalized_pba`).
    eps : ε > 0; default 1e−4 × the smallest processing time (§VII).
    tau : τ of linear utilities (scalar or per job); default `metrics.default_horizon`.

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]])
    >>> pba(inst).completion.tolist()
    [2, 4, 1]
    """
    if check_utilities(utilities) == "linear":
        return generalized_pba(instance, seed=seed, utilities=utilities, eps=eps, tau=tau)
    return evaluate_permutation(instance, pba_order(instance, seed=seed, eps=eps), algorithm="pba")


def pba_order(instance: OpenShopInstance, *, seed: int = 0, eps: float | None = None) -> np.ndarray:
    """The permutation of Algorithm 2: ``order[l]`` is the job at position l + 1."""
    n = instance.n_jobs
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    eps = _epsilon(instance, eps)
    m_ptr, m_task = tasks_by_machine(instance, longest_first=True)
    member, n_words = _membership(instance)
    rng = np.random.default_rng(seed)
    for _ in range(MAX_REDRAWS):
        e = rng.uniform(0.0, eps, n)
        order, tie = _k.pba_order_kernel(instance.indptr, instance.task_machine, instance.task_time, m_ptr,
                                         instance.task_job()[m_task], instance.task_time[m_task], member, n_words, e,
                                         np.argsort(-e, kind="stable"), float(e.max()))
        if not tie:
            return order
    raise InvariantError(f"PBA drew tied perturbations {MAX_REDRAWS} times in a row (eps={eps}); a bug")


def generalized_pba(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal",
                    eps: float | None = None, tau: float | np.ndarray | None = None) -> OpenShopSchedule:
    """Generalized PBA for unequal utilities: positions n..1 by I_N = argmax_j min_{i∈M_j} U_j(τ_i + ε_j).

    Implements Networking'20 §VI. Since U_j is decreasing, min_{i∈M_j} U_j(τ_i + ε_j) = U_j(c_j + ε_j) with
    c_j = max_{i∈M_j} τ_i, the completion time of j if it went last: the job that loses least by going last goes
    last (the backward greedy rule of Lawler for min-max cost). Processing times are not perturbed (§VI).
    With ``utilities="equal"`` (U = −t) this is argmin_j c_j + ε_j, which differs from Algorithm 2 (max over
    M_j, not M). O(log n) per changed job; a job changes only when the machine setting its c_j loses work.

    Parameters
    ----------
    tau : τ of linear utilities U_j(t) = P_j·(τ − t); a scalar or one per job (the online driver passes
        τ − (boundary − arrival_j) so that t is measured from arrival, §VII-B2); default `default_horizon`.

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]], priority=[2.0, 1.0, 3.0])
    >>> generalized_pba(inst, utilities="linear").completion.tolist()   # τ = 7: utilities 8, 4, 9
    [3, 3, 4]
    >>> pba(inst).completion.tolist()                # Algorithm 2's order leaves job 1 with utility 3
    [2, 4, 1]
    """
    kind = check_utilities(utilities)
    n = instance.n_jobs
    if n == 0:
        return evaluate_permutation(instance, np.zeros(0, np.int64), algorithm="generalized_pba")
    if kind == "equal":
        weight, horizon = np.ones(n), np.zeros(n)
    else:
        weight = instance.priority.astype(np.float64)
        horizon = np.broadcast_to(np.asarray(default_horizon(instance) if tau is None else tau, np.float64), (n,))
    eps = _epsilon(instance, eps)
    m_ptr, _ = tasks_by_machine(instance)
    member, n_words = _membership(instance)
    rng = np.random.default_rng(seed)
    for _ in range(MAX_REDRAWS):
        order, tie = _k.generalized_order_kernel(instance.indptr, instance.task_machine, instance.task_time, m_ptr,
                                                 member, n_words, weight, np.ascontiguousarray(horizon),
                                                 rng.uniform(0.0, eps, n))
        if not tie:
            return evaluate_permutation(instance, order, algorithm="generalized_pba")
    raise InvariantError(f"generalized PBA drew tied perturbations {MAX_REDRAWS} times in a row; a bug")


def _membership(instance: OpenShopInstance) -> tuple[np.ndarray, int]:
    """Bitmap of M_j: bit i of words ``member[j·w : (j+1)·w]`` is set when job j has a task on machine i."""
    n_words = (instance.n_machines + 63) // 64
    member = np.zeros(instance.n_jobs * n_words, dtype=np.uint64)
    bits = np.left_shift(np.uint64(1), (instance.task_machine & 63).astype(np.uint64))
    np.bitwise_or.at(member, instance.task_job() * n_words + (instance.task_machine >> 6), bits)
    return member, n_words


def _epsilon(instance: OpenShopInstance, eps: float | None) -> float:
    if eps is None:
        return EPS_FRACTION * (float(instance.task_time.min()) if instance.n_tasks else 1.0)
    if not (math.isfinite(eps) and eps > 0):
        raise ConfigError(f"eps={eps!r}: expected a perturbation bound > 0 (Algorithm 2 needs ε > 0 to break ties; "
                          "default 1e-4 × the smallest processing time)")
    return float(eps)


register("pba", pba)
