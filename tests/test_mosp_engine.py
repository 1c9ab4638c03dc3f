"""MOSP engine (TPDS'11 §3.1): list scheduling, idle profiles, backwards list scheduling; local orders, metrics,
the registry and `solve`. Fast paths are checked against slow unit-by-unit twins
(tests/naive/mosp_brute_force.py), next to hand-computed cases."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given

from fairsched.errors import ConfigError, InvariantError, UnknownPolicyError
from fairsched.mosp import ALGORITHMS, solve
from fairsched.mosp.engine import IdleProfiles, backward_list_schedule, list_schedule
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.metrics import (
    deadline,
    local_makespans,
    lower_bound_exact,
    makespan,
    org_makespans,
    score,
)
from fairsched.mosp.policies.local import local_order, local_schedule
from fairsched.mosp.validate import validate_mosp_schedule
from tests.naive.mosp_brute_force import brute_force_optimum, earliest_on_grid, naive_busy, naive_list_schedule
from tests.strategies import mosp_instances

# -- list scheduling ------------------------------------------------------------------------------------------


def test_list_schedule_hand_computed() -> None:
    # m = 4; (p, q): J0 (3, 3), J1 (2, 2), J2 (2, 1), J3 (1, 4). t=0: J0, then J2 (J1 too wide for 1 idle).
    # t=2: J2 ends, 1 idle: nothing. t=3: J0 ends, 4 idle: J1 (J3 needs 4, 2 left). t=5: J3.
    start = list_schedule(np.array([3, 2, 2, 1]), np.array([3, 2, 1, 4]), 4, np.array([0, 1, 2, 3]))
    assert start.tolist() == [0, 3, 0, 5]
    # HF order starts the widest first: J3 at 0, then J0 at 1 with J2 beside it (J1 does not fit), J1 at 4
    start = list_schedule(np.array([3, 2, 2, 1]), np.array([3, 2, 1, 4]), 4, np.array([3, 0, 1, 2]))
    assert start.tolist() == [1, 4, 1, 0]


def test_list_schedule_matches_naive_twin_on_random_lists() -> None:
    rng = np.random.default_rng(11)
    for _ in range(300):
        n, m = int(rng.integers(0, 14)), int(rng.integers(1, 8))
        runtime, width = rng.integers(1, 7, n), rng.integers(1, m + 1, n)
        order = rng.permutation(n)
        expected = naive_list_schedule(runtime.tolist(), width.tolist(), m, order.tolist())
        assert list_schedule(runtime, width, m, order).tolist() == expected


@pytest.mark.parametrize(("runtime", "width", "m", "order"), [
    ([1, 1], [1, 3], 2, [0, 1]), ([1, 1], [0, 1], 2, [0, 1]), ([1, 1], [1, 1], 2, [0, 0]), ([1, 1], [1, 1], 0, [0, 1]),
    ([0, 1], [1, 1], 2, [0, 1])])
def test_list_schedule_rejects_impossible_inputs(runtime: list[int], width: list[int], m: int,
                                                 order: list[int]) -> None:
    with pytest.raises(ConfigError, match="list_schedule"):
        list_schedule(np.array(runtime), np.array(width), m, np.array(order))


# -- idle profiles ------------------------------------------------------------------------------------------


def _random_profile(rng: np.random.Generator, procs: list[int], n_jobs: int, horizon: int):
    """Profiles filled through `reserve` (capacity 3, so they must grow) and the same busy grid."""
    prof = IdleProfiles.empty(np.array(procs), capacity=3)
    free = np.array([[m] * (3 * horizon) for m in procs], dtype=np.int64)
    for _ in range(n_jobs):
        c = int(rng.integers(len(procs)))
        p, q = int(rng.integers(1, 6)), int(rng.integers(1, procs[c] + 1))
        s = int(rng.integers(0, horizon))
        if (free[c, s:s + p] >= q).all():
            prof.reserve(c, s, p, q)
            free[c, s:s + p] -= q
    return prof, free


def test_profile_queries_match_unit_grid() -> None:
    rng = np.random.default_rng(5)
    for _ in range(60):
        procs = rng.integers(1, 6, 3).tolist()
        prof, free = _random_profile(rng, procs, 12, 20)
        for _ in range(30):
            c = int(rng.integers(3))
            q, p, t0, d = int(rng.integers(1, procs[c] + 1)), int(rng.integers(1, 6)), int(rng.integers(0, 25)), \
                int(rng.integers(1, 30))
            assert prof.earliest_fit(c, q, p, t0) == earliest_on_grid(free[c], q, p, t0)
            latest = max((s for s in range(0, d - p + 1) if (free[c, s:s + p] >= q).all()), default=-1)
            assert prof.latest_fit(c, q, p, d) == latest
            since = min(t for t in range(d + 1) if (free[c, t:d] >= q).all())
            assert prof.idle_since(c, q, d) == since
            assert prof.idle_at(c, t0) == free[c, t0]
        assert prof.earliest_fit(0, procs[0] + 1, 1) == -1


def test_profile_hand_computed_and_refuses_overbooking() -> None:
    prof = IdleProfiles.empty(np.array([4]))
    prof.reserve(0, start=2, p=3, q=3)  # idle: 4 on [0,2), 1 on [2,5), 4 after
    assert [s.tolist() for s in prof.segments(0)] == [[0, 2, 5], [4, 1, 4]]
    assert prof.earliest_fit(0, q=2, p=2) == 0 and prof.earliest_fit(0, q=2, p=3) == 5
    assert prof.latest_fit(0, q=1, p=4, deadline=6) == 2 and prof.latest_fit(0, q=2, p=2, deadline=6) == 0
    assert prof.idle_since(0, q=2, deadline=9) == 5 and prof.idle_since(0, q=1, deadline=9) == 0
    with pytest.raises(InvariantError, match="lacks 2 idle processors"):
        prof.reserve(0, start=4, p=2, q=2)


# -- backwards list scheduling --------------------------------------------------------------------------------


def naive_backward(procs, kept, runtime, width, order, d, clusters):
    """Graham's rule in reversed time on a unit grid: for e = d, d-1, ..., 1, repeatedly end the first job of
    the list that fits during [e - p, e) on some cluster (first in `clusters`) at e."""
    free = np.array([[m] * d for m in procs], dtype=np.int64) - naive_busy(procs, *kept, d)
    cluster, start = [-1] * len(runtime), [0] * len(runtime)
    for e in range(d, 0, -1):
        placed = True
        while placed:
            placed = False
            for j in order:
                if cluster[j] >= 0 or runtime[j] > e:
                    continue
                fits = [c for c in clusters if width[j] <= procs[c] and (free[c, e - runtime[j]:e] >= width[j]).all()]
                if fits:
                    cluster[j], start[j], placed = fits[0], e - runtime[j], True
                    free[fits[0], e - runtime[j]:e] -= width[j]
                    break
    return cluster, start


def test_backward_list_schedule_hand_computed() -> None:
    # Cluster of 3 with a kept job (2, 3) at [0, 2); list (4, 2), (2, 1), (3, 1) backwards from 7:
    # e=7: (4,2) on [3,7), (2,1) on [5,7); e=5: (3,1) on [2,5); the kept job ends at 2.
    prof = IdleProfiles.of_jobs(np.array([3]), np.array([0, -1, -1, -1]), np.array([0, 0, 0, 0]),
                                np.array([2, 4, 2, 3]), np.array([3, 2, 1, 1]))
    cluster, start = backward_list_schedule(prof, np.array([2, 4, 2, 3]), np.array([3, 2, 1, 1]),
                                            np.array([1, 2, 3]), 7, np.array([0]))
    assert cluster.tolist() == [-1, 0, 0, 0] and start.tolist() == [0, 3, 5, 2]


def test_backward_list_schedule_matches_naive_twin() -> None:
    rng = np.random.default_rng(3)
    for _ in range(150):
        n_clusters = int(rng.integers(1, 4))
        procs = rng.integers(1, 6, n_clusters).tolist()
        n = int(rng.integers(1, 12))
        runtime = rng.integers(1, 6, n)
        width = np.array([int(rng.integers(1, max(procs) + 1)) for _ in range(n)])
        d = int(rng.integers(1, 16))
        kept_cluster, kept_start = np.full(n, -1), np.zeros(n, dtype=np.int64)
        prof = IdleProfiles.empty(np.array(procs))
        for j in range(n // 2):  # the first half are kept jobs, placed forwards
            c = int(rng.integers(n_clusters))
            if width[j] <= procs[c]:
                kept_cluster[j] = c
                kept_start[j] = prof.earliest_fit(c, int(width[j]), int(runtime[j]), int(rng.integers(0, 4)))
                prof.reserve(c, int(kept_start[j]), int(runtime[j]), int(width[j]))
        order = rng.permutation(np.arange(n // 2, n))
        clusters = rng.permutation(n_clusters)
        got_c, got_s = backward_list_schedule(prof, runtime, width, order, d, clusters)
        want_c, want_s = naive_backward(procs, (kept_cluster, kept_start, runtime, width), runtime.tolist(),
                                        width.tolist(), order.tolist(), d, clusters.tolist())
        assert got_c.tolist() == want_c and got_s.tolist() == want_s


# -- local orders and schedules -------------------------------------------------------------------------------


def test_local_orders() -> None:
    runtime, width = np.array([3, 1, 3, 2]), np.array([2, 4, 4, 1])
    rng = np.random.default_rng(0)
    assert local_order(runtime, width, "hf", rng).tolist() == [1, 2, 0, 3]
    assert local_order(runtime, width, "lpt", rng).tolist() == [0, 2, 3, 1]
    assert local_order(runtime, width, "spt", rng).tolist() == [1, 3, 0, 2]
    first = local_order(runtime, width, "rnd", np.random.default_rng(4))
    assert sorted(first.tolist()) == [0, 1, 2, 3]
    assert first.tolist() == local_order(runtime, width, "rnd", np.random.default_rng(4)).tolist()
    with pytest.raises(ConfigError, match="hf, lpt, spt, rnd"):
        local_order(runtime, width, "fifo", rng)


def test_local_schedule_hand_computed() -> None:
    # org 0 (3 procs): (p, q) = (2, 1), (1, 3), (2, 2); HF: (1,3) at 0, then (2,2) and (2,1) together at 1.
    # SPT on org 0: (1,3) at 0 again, then both others at 1. Org 1 (1 proc): (3, 1), (1, 1); HF keeps index
    # order (ties): starts 0 and 3; SPT runs (1,1) first: starts 1 and 0.
    inst = MospInstance.from_arrays(procs=[3, 1], owner=[0, 0, 0, 1, 1], runtime=[2, 1, 2, 3, 1],
                                    width=[1, 3, 2, 1, 1])
    hf = local_schedule(inst)
    assert hf.cluster.tolist() == [0, 0, 0, 1, 1] and hf.start.tolist() == [1, 0, 1, 0, 3]
    assert local_schedule(inst, order="spt").start.tolist() == [1, 0, 1, 1, 0]
    assert local_makespans(inst).tolist() == [3, 4]
    # LPT on org 0: (2,1) then (2,2) start at 0 together; (1,3) waits until 2
    assert local_schedule(inst, order="lpt").start.tolist() == [0, 2, 0, 0, 3]
    assert local_makespans(inst, "lpt").tolist() == [3, 4]


def test_local_schedule_rnd_depends_on_seed_only() -> None:
    rng = np.random.default_rng(2)
    inst = MospInstance.from_arrays(procs=[4, 3], owner=rng.integers(0, 2, 30), runtime=rng.integers(1, 9, 30),
                                    width=rng.integers(1, 4, 30))
    runs = [local_schedule(inst, order="rnd", seed=s).start.tolist() for s in (1, 1, 2)]
    assert runs[0] == runs[1] and runs[0] != runs[2]


def test_instances_refuse_a_job_wider_than_its_owner() -> None:
    with pytest.raises(ConfigError, match="job 0: procs=3 is wider than its owner's cluster"):
        MospInstance.from_arrays(procs=[4, 2], owner=[1], runtime=[1], width=[3])
    inst = MospInstance.from_arrays(procs=[4, 2], owner=[1], runtime=[1], width=[2])
    with pytest.raises(ConfigError, match="unknown local order"):
        local_schedule(inst, order="edf")


# -- metrics --------------------------------------------------------------------------------------------------


def test_metrics_hand_computed() -> None:
    inst = MospInstance.from_arrays(procs=[2, 2, 1], owner=[0, 0, 1], runtime=[2, 3, 4], width=[2, 1, 1])
    s = MospSchedule(cluster=np.array([0, 1, 1]), start=np.array([0, 1, 0]))
    assert org_makespans(inst, s).tolist() == [4, 4, 0]
    assert makespan(inst, s) == 4
    # LB = max((4 + 3 + 4) / 5, 4) = 4
    assert score(inst, s) == 1.0
    assert lower_bound_exact(inst) == 4


def test_deadline_is_exact() -> None:
    inst = MospInstance.from_arrays(procs=[3], owner=[0, 0, 0, 0, 0], runtime=[2, 2, 2, 2, 2], width=[1, 1, 1, 1, 1])
    assert lower_bound_exact(inst) == Fraction(10, 3)
    assert deadline(inst, 3.0) == 10 and deadline(inst, 4.0) == 13 and deadline(inst, 0.5) == 1
    # A run time beyond float precision: 3 LB = 3 (2**55 + 1) exactly, which a float cannot hold.
    p = 2**55 + 1
    big = MospInstance.from_arrays(procs=[3], owner=[0], runtime=[p], width=[1])
    assert deadline(big, 3.0) == 3 * p != int(3 * big.lower_bound())


# -- registry and solve ---------------------------------------------------------------------------------------

def test_registry_names() -> None:
    assert list(ALGORITHMS) == ["local", "mocca", "mocca-exp", "mocca4", "ilba", "mocca+ilba"]
    with pytest.raises(UnknownPolicyError, match="choose one of: local, mocca, mocca-exp, mocca4, ilba, mocca"):
        solve(MospInstance.from_arrays([1], [0], [1], [1]), "mocca5")


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_algorithm_gives_valid_named_schedules(name: str) -> None:
    rng = np.random.default_rng(8)
    for _ in range(20):
        n_orgs, m = int(rng.integers(1, 5)), int(rng.integers(1, 9))
        n = int(rng.integers(1, 40))
        inst = MospInstance.from_arrays(np.full(n_orgs, m), rng.integers(0, n_orgs, n), rng.integers(1, 20, n),
                                        rng.integers(1, m + 1, n))
        for order in ("hf", "lpt"):
            schedule = solve(inst, name, local_order=order, seed=3)
            assert schedule.algorithm == name
            validate_mosp_schedule(inst, schedule, local_order=order)


@given(mosp_instances(fit_everywhere=True, max_jobs=6, max_orgs=3, max_procs=3, max_runtime=3))
def test_algorithms_between_lower_bound_and_brute_force(inst: MospInstance) -> None:
    """LB <= C* (unconstrained optimum) <= constrained optimum <= every algorithm (all respect constraint (1)),
    and the guarantees: MOCCA within 3LB, MOCCA(4) within 4LB (every job fits every cluster here)."""
    unconstrained = brute_force_optimum(inst, constrained=False)
    constrained = brute_force_optimum(inst, constrained=True)
    assert inst.lower_bound() <= unconstrained <= constrained
    bounds = {"mocca": 3 * inst.lower_bound(), "mocca-exp": 3 * inst.lower_bound(), "mocca4": 4 * inst.lower_bound()}
    for name in ALGORITHMS:
        schedule = solve(inst, name)
        validate_mosp_schedule(inst, schedule, makespan_bound=bounds.get(name))
        assert makespan(inst, schedule) >= constrained
