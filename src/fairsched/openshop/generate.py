"""Instance generators: random instances, and the vertex-cover construction of Networking'20 Theorem 2.

Shafiee & Ghaderi, "On max-min fairness of completion times for multi-task job scheduling", IFIP Networking 2020
(Networking'20), §III-B: the proof of Theorem 2 (NP-hardness of f(n)-max-min fairness) maps a graph G = (V, E) to
an instance with one machine per edge, one unit task per (vertex, incident edge), plus n' dummy jobs with one unit
task each on a machine of its own. Every machine holds one or two unit tasks, so two time slots suffice; in a
two-slot schedule the vertex jobs finishing in the second slot form a vertex cover of G, and the min-max fair
schedule minimises their number: it equals the minimum vertex cover VC(G).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fairsched.errors import ConfigError
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule

__all__ = ["google_like_instance", "random_instance", "second_slot_jobs", "vertex_cover_from_schedule",
           "vertex_cover_instance"]


def random_instance(n_jobs: int, n_machines: int, rng: np.random.Generator | int, *, density: float = 0.5,
                    max_time: int = 10, arrivals: int | Sequence[int] | np.ndarray | None = None,
                    max_priority: int = 1) -> OpenShopInstance:
    """A random instance: each job has a task on each machine with probability `density`, p_ij uniform in 1..max_time.

    Parameters
    ----------
    n_jobs, n_machines : n >= 1 and m >= 1.
    rng : a numpy Generator, or a seed for ``np.random.default_rng``.
    density : probability that job j has a task on machine i (0 < density <= 1). A job that drew no task gets one
        on a machine drawn uniformly, so that every job has at least one task.
    max_time : largest processing time (>= 1).
    arrivals : None (all 0, the offline model), an integer A (arrivals uniform in 0..A, sorted), or n release
        times (sorted; jobs are indexed by non-decreasing arrival).
    max_priority : priorities P_j uniform in 1..max_priority (1 = equal priorities).

    Examples
    --------
    >>> inst = random_instance(3, 2, 7, density=1.0, max_time=4)
    >>> inst.n_jobs, inst.n_tasks, bool(inst.task_time.max() <= 4)
    (3, 6, True)
    """
    _check(n_jobs >= 1 and n_machines >= 1, f"n_jobs, n_machines: expected >= 1, got {n_jobs}, {n_machines}")
    _check(0 < density <= 1, f"density: expected a probability in (0, 1], got {density}")
    _check(max_time >= 1 and max_priority >= 1, f"max_time, max_priority: expected >= 1, got {max_time}, "
                                                f"{max_priority}")
    rng = np.random.default_rng(rng)
    times = rng.integers(1, max_time + 1, size=(n_jobs, n_machines))
    times[rng.random((n_jobs, n_machines)) >= density] = 0
    empty = np.flatnonzero(~times.any(axis=1))
    times[empty, rng.integers(0, n_machines, size=empty.size)] = rng.integers(1, max_time + 1, size=empty.size)
    priority = rng.integers(1, max_priority + 1, size=n_jobs).astype(np.float64)
    return OpenShopInstance.from_dense(times, arrival=_arrivals(arrivals, n_jobs, rng), priority=priority)


def google_like_instance(n_jobs: int, n_machines: int, tasks_per_job: float, seed: int) -> OpenShopInstance:
    """A sparse instance shaped like the Google jobs of Networking'20 §VII: job j has k_j tasks on distinct machines
    drawn uniformly, k_j log-normal (σ = 1.2, mean `tasks_per_job`, rounded up, capped at m), p_ij log-normal
    (median 100, σ = 1.5), priorities 1..10, every arrival 0 (set them with ``dataclasses.replace``).

    With 19,000 jobs, 200 machines and a mean of 32 it has about 576,000 tasks, 30 per job: the paper's size by the
    project's estimate (docs/replication/networking20.md). Memory: an n_jobs × n_machines float array.

    >>> inst = google_like_instance(50, 20, 8.0, 0)
    >>> inst.n_jobs, int(np.diff(inst.indptr).max()) <= 20
    (50, True)
    """
    _check(n_jobs >= 1 and n_machines >= 1 and tasks_per_job >= 1,
           f"n_jobs, n_machines, tasks_per_job: expected >= 1, got {n_jobs}, {n_machines}, {tasks_per_job}")
    rng = np.random.default_rng(seed)
    sigma = 1.2
    k = np.ceil(rng.lognormal(np.log(tasks_per_job) - sigma**2 / 2, sigma, n_jobs))
    k = np.clip(k, 1, n_machines).astype(np.int64)
    rank = np.argsort(np.argsort(rng.random((n_jobs, n_machines)), axis=1), axis=1)
    _, machines = np.nonzero(rank < k[:, None])  # row-major: by job, machines increasing (the CSR order)
    times = np.ceil(rng.lognormal(np.log(100.0), 1.5, machines.size)).astype(np.int64)
    indptr = np.zeros(n_jobs + 1, dtype=np.int64)
    np.cumsum(k, out=indptr[1:])
    return OpenShopInstance.from_tasks(n_machines, indptr, machines, times,
                                       priority=rng.integers(1, 11, n_jobs).astype(np.float64))


def _arrivals(arrivals: int | Sequence[int] | np.ndarray | None, n_jobs: int, rng: np.random.Generator) -> np.ndarray:
    if arrivals is None:
        return np.zeros(n_jobs, dtype=np.int64)
    if np.ndim(arrivals) == 0:
        _check(int(arrivals) >= 0, f"arrivals: expected a largest arrival >= 0, got {arrivals}")
        return np.sort(rng.integers(0, int(arrivals) + 1, size=n_jobs))
    values = np.asarray(arrivals, dtype=np.int64)
    _check(values.shape == (n_jobs,) and (values >= 0).all(),
           f"arrivals: expected {n_jobs} release times >= 0, got shape {values.shape}")
    return np.sort(values)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ConfigError(message)


def vertex_cover_instance(graph_edges: Sequence[tuple[int, int]], n_vertices: int, *,
                          n_dummy: int = 0) -> OpenShopInstance:
    """The instance of Networking'20 Theorem 2's proof for the graph G = (0..n_vertices-1, graph_edges).

    Machines 0..|E|-1 are the edges (machine e = ``graph_edges[e]``), then one machine per dummy job. Job v
    (v < n_vertices) is the vertex job j(v): a unit task on the machine of each edge incident to v (none for an
    isolated vertex: it completes at time 0). Jobs n_vertices.. are the `n_dummy` dummy jobs (the proof takes
    n' = f^-1(|V|) - |V|). All arrivals 0, priorities 1, job ids 0..n-1.

    The min-max fair schedule finishes in two slots and its number of jobs completing at 2
    (`second_slot_jobs`) is the minimum vertex cover VC(G).

    Examples
    --------
    >>> inst = vertex_cover_instance([(0, 1), (1, 2)], 3, n_dummy=1)   # a path: VC = 1 ({1})
    >>> inst.to_dense().tolist()
    [[1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1]]
    """
    edges = np.asarray(graph_edges, dtype=np.int64).reshape(-1, 2)
    _check(n_vertices >= 1 and n_dummy >= 0, f"n_vertices >= 1 and n_dummy >= 0 expected, got {n_vertices}, "
                                              f"{n_dummy}")
    _check(bool(((edges >= 0) & (edges < n_vertices)).all()), f"graph_edges: vertices must be 0..{n_vertices - 1}")
    _check(bool((edges[:, 0] != edges[:, 1]).all()), "graph_edges: a self-loop (u, u); the graph must be simple")
    _check(np.unique(np.sort(edges, axis=1), axis=0).shape[0] == edges.shape[0],
           "graph_edges: an edge listed twice; the graph must be simple")
    n_edges = edges.shape[0]
    times = np.zeros((n_vertices + n_dummy, max(1, n_edges + n_dummy)), dtype=np.int64)
    times[edges[:, 0], np.arange(n_edges)] = 1
    times[edges[:, 1], np.arange(n_edges)] = 1
    times[n_vertices + np.arange(n_dummy), n_edges + np.arange(n_dummy)] = 1
    return OpenShopInstance.from_dense(times)


def second_slot_jobs(schedule: OpenShopSchedule) -> int:
    """Number of jobs completing at time 2, i.e. in the second unit slot (Theorem 2's proof minimises it)."""
    return int((np.asarray(schedule.completion) == 2).sum())


def vertex_cover_from_schedule(schedule: OpenShopSchedule, n_vertices: int) -> np.ndarray:
    """Vertices whose job completes in the second slot: a vertex cover when the schedule takes two slots."""
    return np.flatnonzero(np.asarray(schedule.completion)[:n_vertices] == 2)
