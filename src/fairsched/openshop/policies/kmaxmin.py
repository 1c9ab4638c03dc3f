"""k-Max-Min (Networking'20 Algorithm 1): the last k jobs of a min-max fair permutation, by dynamic programming.

With equal utilities the l-th largest completion time of a permutation schedule is τ of the set of the first
n − l + 1 jobs when the schedule is min-max optimal (§V-A1), so choosing the last job j of a set N fixes the next
coordinate of the completion vector to τ(N∖{j}) = max_{i∈M}(τ_i − p_ij). Algorithm 1 branches on every minimiser
(the candidate set I_N of line 1.2) down to depth k and keeps the branch whose vector (τ(N), τ(N∖{j_n}), ...)
is lexicographically smallest: the first k coordinates of the min-max vector (k-min-max fairness, §IV-A).
The other n − k jobs go first in a random order improved by the exchange rules of Lemma 4.
"""

from __future__ import annotations

import numpy as np

from fairsched.errors import ConfigError, InvariantError
from fairsched.openshop import _kernels as _k
from fairsched.openshop.engine import evaluate_permutation
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.metrics import check_utilities
from fairsched.openshop.policies import _lemma4_kernels as _lemma4
from fairsched.openshop.policies._registry import register

DEFAULT_K = 2
MAX_NODES = 200_000  # search nodes (each O(tasks)); the candidate sets can make the search O(n^k)
MAX_DEPTH = 256  # positions searched recursively (Python's recursion limit is ~1000)
MAX_PASSES = 100  # adjacent-exchange passes of Lemma 4(1); the exchanges can cycle over three jobs


def kmaxmin(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal", k: int = DEFAULT_K,
            max_nodes: int = MAX_NODES) -> OpenShopSchedule:
    """k-Max-Min: the last k positions by Algorithm 1, the first n − k by a random permutation and Lemma 4.

    Implements Networking'20 Algorithm 1 (§V-A) and the completion of its output described after it. With
    k = n it is an exact search of the min-max fair permutation. O(k·tasks·n^k) in the worst case (candidate
    sets of size n), memoized on the set of jobs placed.

    Parameters
    ----------
    k : how many positions to optimize (0 <= k; values above n mean n).
    seed : seeds the random order of the other jobs.
    utilities : "equal" only: §VI explains why Algorithm 1 does not extend to unequal utilities.
    max_nodes : give up (ConfigError) after this many search nodes.

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]])
    >>> kmaxmin(inst, k=3).completion.tolist()
    [2, 4, 1]
    """
    if check_utilities(utilities) != "equal":
        raise ConfigError("kmaxmin: utilities='linear' is not supported — with unequal utilities the job finishing "
                          "last need not be the worst off, so Algorithm 1 does not apply (Networking'20 §VI); use "
                          "--algorithm pba (generalized PBA) or exact")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
        raise ConfigError(f"k={k!r}: expected a number of positions >= 0 (Algorithm 1 finds the last k jobs)")
    depth = min(int(k), instance.n_jobs)
    if depth > MAX_DEPTH:
        raise ConfigError(f"k={k}: k-Max-Min searches the last k positions recursively, at most {MAX_DEPTH} (and "
                          "O(n^k) nodes when candidates tie); use a smaller k, or pba")
    suffix = last_jobs(instance, depth, max_nodes=max_nodes)
    rest = _lemma4_order(instance, suffix, np.random.default_rng(seed))
    order = np.concatenate([rest, np.asarray(suffix, dtype=np.int64)])
    return evaluate_permutation(instance, order, algorithm=f"kmaxmin(k={depth})")


def last_jobs(instance: OpenShopInstance, k: int, *, max_nodes: int = MAX_NODES) -> list[int]:
    """The jobs of positions n − k + 1 .. n (in that order) chosen by Algorithm 1."""
    search = _Search(instance, max_nodes)
    _, suffix = search.best(np.ones(instance.n_jobs, dtype=bool), k)
    return suffix


class _Search:
    """Algorithm 1's recursion, memoized on the set of jobs already placed at the end."""

    def __init__(self, instance: OpenShopInstance, max_nodes: int) -> None:
        self.inst = instance
        self.max_nodes = max_nodes
        self.nodes = 0
        self.memo: dict[bytes, tuple[tuple[int, ...], list[int]]] = {}

    def best(self, alive: np.ndarray, depth: int) -> tuple[tuple[int, ...], list[int]]:
        """(vector (τ(N∖{j_n}), τ(N∖{j_n, j_n−1}), ...), suffix) of the best branch below the set `alive`."""
        if depth == 0 or not alive.any():
            return (), []
        memo_key = np.packbits(alive).tobytes()  # the depth follows from the set: k − (n − |alive|)
        if memo_key in self.memo:
            return self.memo[memo_key]
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise ConfigError(f"kmaxmin: more than {self.max_nodes} search nodes (ties in Algorithm 1's candidate "
                              "sets make the search O(n^k)); use a smaller k or PBA")
        inst = self.inst
        tau = _k.loads(inst.indptr, inst.task_machine, inst.task_time, alive, inst.n_machines)
        keys = _k.minmax_keys(inst.indptr, inst.task_machine, inst.task_time, alive, tau)
        low = keys[alive].min()
        result: tuple[tuple[int, ...], list[int]] | None = None
        for j in np.flatnonzero(alive & (keys == low)):  # I_N of line 1.2
            alive[j] = False
            vector, suffix = self.best(alive, depth - 1)
            alive[j] = True
            candidate = ((int(low), *vector), [*suffix, int(j)])
            if result is None or candidate[0] < result[0]:  # line 1.4: the min-max dominant branch
                result = candidate
        if result is None:
            raise InvariantError(f"kmaxmin: empty candidate set among {int(alive.sum())} jobs")
        self.memo[memo_key] = result
        return result


def _lemma4_order(instance: OpenShopInstance, placed: list[int], rng: np.random.Generator) -> np.ndarray:
    """A random order of the jobs not in `placed`, improved by Lemma 4: (1) h before k when p_ih <= p_ik on
    every shared machine (strictly on one; adjacent exchanges), then (2) identical jobs made adjacent."""
    rest = np.setdiff1d(np.arange(instance.n_jobs, dtype=np.int64), np.asarray(placed, dtype=np.int64))
    rest = rng.permutation(rest)
    _lemma4.lemma4_passes(rest, instance.indptr, instance.task_machine, instance.task_time, MAX_PASSES)
    return _group_identical(instance, rest)


def _group_identical(instance: OpenShopInstance, order: np.ndarray) -> np.ndarray:
    """Move every job right after the first job of `order` with the same tasks (Lemma 4(2))."""
    groups: dict[bytes, list[int]] = {}
    for j in order.tolist():
        a, b = instance.indptr[j], instance.indptr[j + 1]
        signature = instance.task_machine[a:b].tobytes() + b"|" + instance.task_time[a:b].tobytes()
        groups.setdefault(signature, []).append(j)
    return np.array([j for members in groups.values() for j in members], dtype=np.int64)


register("kmaxmin", kmaxmin)
