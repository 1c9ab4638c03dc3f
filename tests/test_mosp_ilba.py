"""ILBA (TPDS'11 §6): hand-computed runs, a unit-grid twin, Prop. 11 (no job delayed) on any feasible input,
Prop. 12 (sequential jobs: within 2 - 1/Σm of the optimum)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.errors import ConfigError
from fairsched.mosp.engine import IdleProfiles
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.metrics import makespan
from fairsched.mosp.policies.ilba import ilba
from fairsched.mosp.policies.local import local_schedule
from fairsched.mosp.policies.mocca_alpha import mocca_alpha
from fairsched.mosp.validate import validate_mosp_schedule
from tests.naive.mosp_brute_force import brute_force_optimum, earliest_on_grid
from tests.strategies import mosp_instances


def naive_ilba(instance: MospInstance, schedule: MospSchedule) -> tuple[list[int], list[int]]:
    """§6.1 read literally on unit grids: clusters by (makespan, work, index); M_1 keeps its jobs; for k = 2..N
    the jobs of M_k, by (start, index), each go to the earliest strip on M_1..M_k (first of them on ties)."""
    n_orgs, runtime, width = instance.n_orgs, instance.runtime.tolist(), instance.width.tolist()
    cluster, start = schedule.cluster.tolist(), schedule.start.tolist()
    end = [s + p for s, p in zip(start, runtime, strict=True)]
    horizon = 2 * (max(end) + sum(runtime)) + 2
    loads = [max([end[j] for j in range(len(end)) if cluster[j] == c], default=0) for c in range(n_orgs)]
    work = [sum(width[j] * runtime[j] for j in range(len(end)) if cluster[j] == c) for c in range(n_orgs)]
    seq = sorted(range(n_orgs), key=lambda c: (loads[c], work[c], c))
    free = {c: np.full(horizon, instance.procs[c], dtype=np.int64) for c in range(n_orgs)}
    new_c, new_s = list(cluster), list(start)
    for k, c_k in enumerate(seq):
        for j in sorted((j for j in range(len(end)) if cluster[j] == c_k), key=lambda j: (start[j], j)):
            if k == 0:
                c, s = c_k, start[j]
            else:
                options = [(earliest_on_grid(free[c], width[j], runtime[j]), r, c) for r, c in enumerate(seq[:k + 1])
                           if width[j] <= instance.procs[c]]
                s, _, c = min(options)
            free[c][s:s + runtime[j]] -= width[j]
            new_c[j], new_s[j] = c, s
    return new_c, new_s


def test_ilba_hand_computed_parallel_jobs() -> None:
    # Cluster 0 (4 procs, org 0): (p, q) = (4, 4) at 0, (2, 2) at 4, (2, 2) at 4 → makespan 6.
    # Cluster 1 (2 procs, org 1): (1, 2) at 0 → makespan 1: it is M_1 and keeps its job.
    # k = 2 (cluster 0), jobs by start: (4,4) → only cluster 0 is wide enough: 0. First (2,2): cluster 1 at 1,
    # cluster 0 at 4 → cluster 1 at 1. Second (2,2): cluster 1 at 3, cluster 0 at 4 → cluster 1 at 3.
    inst = MospInstance.from_arrays(procs=[4, 2], owner=[0, 0, 0, 1], runtime=[4, 2, 2, 1], width=[4, 2, 2, 2])
    before = MospSchedule(cluster=np.array([0, 0, 0, 1]), start=np.array([0, 4, 4, 0]), algorithm="local")
    after = ilba(inst, before)
    assert after.cluster.tolist() == [0, 1, 1, 1] and after.start.tolist() == [0, 1, 3, 0]
    assert after.algorithm == "local+ilba"
    validate_mosp_schedule(inst, after, delay_reference=before)


def test_ilba_orders_equal_makespans_by_work() -> None:
    # Both clusters end at 2. Cluster 1 runs less work (B, C: 1 x 1 each) than cluster 0 (A: 2 x 2), so it is
    # M_1 and keeps B at 0 and C at 1 untouched; A stays at 0 on cluster 0 (cluster 1 has 2 idle only from 2).
    # Were ties broken by index, cluster 0 would be M_1 and C would move to 0 beside B.
    inst = MospInstance.from_arrays(procs=[2, 2], owner=[0, 1, 1], runtime=[2, 1, 1], width=[2, 1, 1])
    before = MospSchedule(cluster=np.array([0, 1, 1]), start=np.array([0, 0, 1]))
    after = ilba(inst, before)
    assert after.cluster.tolist() == [0, 1, 1] and after.start.tolist() == [0, 0, 1]


def _random_feasible_schedule(inst: MospInstance, rng: np.random.Generator) -> MospSchedule:
    """Jobs on random wide-enough clusters at random earliest strips: feasible, not local, with gaps."""
    prof = IdleProfiles.empty(inst.procs)
    cluster = np.zeros(inst.n_jobs, dtype=np.int64)
    start = np.zeros(inst.n_jobs, dtype=np.int64)
    for j in rng.permutation(inst.n_jobs):
        wide = np.flatnonzero(inst.procs >= inst.width[j])
        c = int(rng.choice(wide))
        s = prof.earliest_fit(c, int(inst.width[j]), int(inst.runtime[j]), int(rng.integers(0, 10)))
        prof.reserve(c, s, int(inst.runtime[j]), int(inst.width[j]))
        cluster[j], start[j] = c, s
    return MospSchedule(cluster=cluster, start=start, algorithm="random")


def test_ilba_matches_naive_twin() -> None:
    rng = np.random.default_rng(21)
    for _ in range(120):
        n_orgs, n = int(rng.integers(1, 5)), int(rng.integers(1, 25))
        procs = rng.integers(1, 7, n_orgs)
        owner = rng.integers(0, n_orgs, n)
        inst = MospInstance.from_arrays(procs, owner, rng.integers(1, 8, n), rng.integers(1, procs[owner] + 1))
        base = _random_feasible_schedule(inst, rng) if rng.random() < 0.5 else local_schedule(inst, order="lpt")
        got = ilba(inst, base)
        assert (got.cluster.tolist(), got.start.tolist()) == naive_ilba(inst, base)


@given(mosp_instances(max_orgs=4, max_jobs=14), st.sampled_from(["hf", "lpt", "spt", "rnd"]), st.integers(0, 3))
def test_ilba_never_delays_a_job(inst: MospInstance, order: str, seed: int) -> None:
    """Prop. 11 on local schedules (so constraint (1) holds too), MOCCA(4) outputs and arbitrary ones."""
    local = local_schedule(inst, order=order, seed=seed)
    improved = ilba(inst, local)
    validate_mosp_schedule(inst, improved, local_order=order, seed=seed, delay_reference=local)
    assert makespan(inst, improved) <= makespan(inst, local)
    moved = mocca_alpha(inst, local_order=order, seed=seed)
    validate_mosp_schedule(inst, ilba(inst, moved), local_constraint=False, delay_reference=moved)
    anything = _random_feasible_schedule(inst, np.random.default_rng(seed))
    validate_mosp_schedule(inst, ilba(inst, anything), local_constraint=False, delay_reference=anything)


@given(mosp_instances(max_orgs=3, max_jobs=6, max_procs=2, max_runtime=4).map(
    lambda i: MospInstance.from_arrays(i.procs, i.owner, i.runtime, np.ones(i.n_jobs, dtype=np.int64))))
def test_ilba_sequential_jobs_within_two_of_optimum(inst: MospInstance) -> None:
    """Prop. 12: with sequential jobs, ILBA on the local schedule is a (2 - 1/Σm)-approximation."""
    result = ilba(inst, local_schedule(inst))
    total = int(inst.procs.sum())
    assert makespan(inst, result) * total <= (2 * total - 1) * brute_force_optimum(inst, constrained=False)


def test_ilba_prop12_tight_example() -> None:
    """§6.3: one organization with m processors, SPT order, Graham's m(m-1) unit jobs and one job of length m:
    ILBA moves nothing and the ratio is 2 - 1/m (optimum m)."""
    m = 4
    runtime = [1] * (m * (m - 1)) + [m]
    inst = MospInstance.from_arrays(procs=[m], owner=[0] * len(runtime), runtime=runtime, width=[1] * len(runtime))
    local = local_schedule(inst, order="spt")
    result = ilba(inst, local)
    assert result.start.tolist() == local.start.tolist()
    assert makespan(inst, result) == 2 * m - 1 and inst.lower_bound() == m


def test_ilba_refuses_infeasible_input() -> None:
    inst = MospInstance.from_arrays(procs=[2, 2], owner=[0, 0], runtime=[2, 2], width=[2, 2])
    overlapping = MospSchedule(cluster=np.array([0, 0]), start=np.array([0, 1]))
    with pytest.raises(ConfigError, match="more processors than a cluster has"):
        ilba(inst, overlapping)
    with pytest.raises(ConfigError, match=r"a cluster in 0\.\.1"):
        ilba(inst, MospSchedule(cluster=np.array([0, 2]), start=np.array([0, 0])))
