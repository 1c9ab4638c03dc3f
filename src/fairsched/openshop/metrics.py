"""Utilities and fairness metrics of openshop schedules: pure functions of completion times (or utilities).

Implements Shafiee & Ghaderi, IFIP Networking 2020: utilities U_j (§II, §VII-A2), the lexicographic order of
Definition 1 (max-min fairness of utilities; with equal utilities, min-max of completion times, Lemma 1), and the
three reported metrics of §VII: average, 4th-quartile average (the worst 25 %) and standard deviation.
"""

from __future__ import annotations

import math

import numpy as np

from fairsched.errors import ConfigError
from fairsched.openshop.instance import OpenShopInstance

UTILITY_KINDS = ("equal", "linear")


def check_utilities(kind: str) -> str:
    """`kind` if it names a utility family, else ConfigError listing the choices."""
    if kind not in UTILITY_KINDS:
        raise ConfigError(f"utilities={kind!r}: expected one of {', '.join(UTILITY_KINDS)} (equal: U = −C; "
                          "linear: U_j = P_j·(τ − C_j), P_j the job's priority)")
    return kind


def default_horizon(instance: OpenShopInstance) -> float:
    """τ of linear utilities: Σ of all task times + the largest arrival, so that every U_j >= 0 (§VII-A2 uses the
    makespan; any bound on every completion time keeps utilities positive)."""
    last_arrival = int(instance.arrival.max()) if instance.n_jobs else 0
    return float(int(instance.task_time.sum()) + last_arrival)


def utilities(instance: OpenShopInstance, completion: np.ndarray, kind: str, tau: float | np.ndarray | None = None,
              *, since_arrival: bool = False) -> np.ndarray:
    """U_j of each job: ``equal`` U_j = −C_j; ``linear`` U_j = P_j·(τ − C_j) (Networking'20 §VII-A2).

    Parameters
    ----------
    completion : (n,) completion times C_j.
    kind : "equal" or "linear".
    tau : τ of linear utilities (scalar, or one per job); default `default_horizon`.
    since_arrival : measure t from the job's arrival, U_j(C_j − a_j) (the online setting, §VII-B2).

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2], [3]], priority=[1.0, 2.0])
    >>> utilities(inst, np.array([2, 5]), "linear").tolist()     # τ = 5
    [3.0, 0.0]
    >>> utilities(inst, np.array([2, 5]), "equal").tolist()
    [-2.0, -5.0]
    """
    check_utilities(kind)
    c = np.asarray(completion, dtype=np.float64)
    if c.shape != (instance.n_jobs,):
        raise ConfigError(f"completion: expected {instance.n_jobs} values (one per job), got shape {c.shape}")
    if since_arrival:
        c = c - instance.arrival
    if kind == "equal":
        return -c
    horizon = default_horizon(instance) if tau is None else np.asarray(tau, dtype=np.float64)
    return instance.priority * (horizon - c)


def minmax_key(values: np.ndarray) -> np.ndarray:
    """Completion times sorted non-increasing: the lexicographically smaller key is the fairer (Lemma 1).

    >>> minmax_key(np.array([3, 7, 5])).tolist()
    [7, 5, 3]
    """
    return np.sort(np.asarray(values))[::-1]


def lexicographically_fairer(a: np.ndarray, b: np.ndarray, *, higher_is_better: bool = False) -> bool:
    """True when vector `a` is strictly fairer than `b` (Networking'20 Definition 1).

    Completion times (default): compare the non-increasing sorts, smaller first difference wins (min-max).
    Utilities (``higher_is_better``): compare the non-decreasing sorts, larger first difference wins (max-min).

    >>> lexicographically_fairer(np.array([5, 3, 4]), np.array([5, 5, 1]))
    True
    >>> lexicographically_fairer(np.array([1, 9]), np.array([2, 3]), higher_is_better=True)
    False
    """
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.ndim != 1:
        raise ConfigError(f"lexicographic comparison needs two vectors of one length, got {x.shape} and {y.shape}")
    if higher_is_better:
        x, y = -x, -y  # max-min of utilities is min-max of their negations
    diff = np.flatnonzero(minmax_key(x) != minmax_key(y))
    return bool(diff.size and minmax_key(x)[diff[0]] < minmax_key(y)[diff[0]])


def summary(values: np.ndarray, *, higher_is_better: bool = False) -> dict[str, float]:
    """The metrics of Networking'20 §VII: mean, q4_mean (mean of the worst 25 %), std, min, max.

    The worst 25 % are the ⌈n/4⌉ largest values (completion times, delays), or the smallest when
    `higher_is_better` (utilities). std is the population standard deviation.

    >>> s = summary(np.array([1, 2, 3, 4, 10]))
    >>> s["mean"], s["q4_mean"], s["min"], s["max"]
    (4.0, 7.0, 1.0, 10.0)
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or v.size == 0:
        raise ConfigError(f"summary needs a non-empty vector of values, got shape {v.shape}")
    worst = math.ceil(v.size / 4)
    ranked = np.sort(v)
    tail = ranked[:worst] if higher_is_better else ranked[-worst:]
    return {"mean": float(v.mean()), "q4_mean": float(tail.mean()), "std": float(v.std()),
            "min": float(ranked[0]), "max": float(ranked[-1])}
