"""Online openshop scheduling (Networking'20 §VII-B): interval lengths, hand-made timelines for the re-planning
planners and the event-driven baselines, the per-job utility horizon handed to planners, time units, and
invariants (valid schedules, releases, batching at boundaries, determinism)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.errors import ConfigError, UnknownPolicyError
from fairsched.openshop import online, run_online
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.metrics import default_horizon
from fairsched.openshop.online import interval_lengths
from fairsched.openshop.policies import ALGORITHMS, fifo
from fairsched.openshop.validate import validate_openshop_schedule

PLANNERS = [name for name, entry in ALGORITHMS.items() if not entry.tags.event_driven]


def test_interval_lengths_follow_the_paper_formula() -> None:
    lengths = interval_lengths(4, delta0=3.3e5, alpha=50, beta=3)
    expected = [3.3e5 / (1 + 50 * np.exp(-3 * i)) for i in (1, 2, 3, 4)]
    assert lengths == pytest.approx(expected, rel=1e-12)
    assert lengths[0] == pytest.approx(94_573.4, abs=0.1)  # short first: δ₁ = δ₀ / 3.489
    assert interval_lengths(2, delta0=7.0, alpha=0.0).tolist() == [7.0, 7.0]


def test_partially_started_job_is_replanned_with_its_unstarted_task() -> None:
    """Jobs B = (m1: 12), A = (m0: 20, m1: 1) at t=0, C = (m1: 3) at t=5; boundaries 0, 10, 20, ...

    At 0 PBA orders B, A (keys τ = (20, 13): B 20, A 12): m0 runs A [0,20), m1 runs B [0,12) and plans A's
    m1 task at 12 >= 10, so it is not committed. At 10 A's task and C are re-planned (keys: A 3, C 1 -> C
    last); m1 is busy with B until 12 (no preemption): A [12,13), C [13,16).
    """
    inst = OpenShopInstance.from_dense([[0, 12], [20, 1], [0, 3]], arrival=[0, 0, 5])
    s = run_online(inst, "pba", delta0=10.0, alpha=0.0)
    assert s.task_start.tolist() == [0, 0, 12, 13]
    assert s.completion.tolist() == [12, 20, 16]
    validate_openshop_schedule(inst, s)


def test_a_task_planned_at_the_next_boundary_is_replanned_there() -> None:
    """B (10) and A (12) at t=0 on one machine: PBA puts A last, planned at t=10 = the next boundary, so it is
    re-planned at 10 with C (1, arrived at 4), which goes first."""
    inst = OpenShopInstance.from_dense([[10], [12], [1]], arrival=[0, 0, 4])
    assert run_online(inst, "pba", delta0=10.0, alpha=0.0).task_start.tolist() == [0, 11, 10]


def test_jobs_arriving_inside_an_interval_wait_for_its_end() -> None:
    inst = OpenShopInstance.from_dense([[2], [1]], arrival=[0, 1])
    assert run_online(inst, "pba", delta0=6.0, alpha=0.0).task_start.tolist() == [0, 6]
    assert run_online(inst, "fifo").task_start.tolist() == [0, 2]


def test_event_driven_baselines_by_hand() -> None:
    """One machine: j0 (5) at t=0, j1 (3) at t=1, j2 (1) at t=2; priorities 1, 10, 1 (τ = 9 + 2 = 11)."""
    inst = OpenShopInstance.from_dense([[5], [3], [1]], arrival=[0, 1, 2], priority=[1.0, 10.0, 1.0])
    assert run_online(inst, "fifo").task_start.tolist() == [0, 5, 8]
    assert run_online(inst, "sptf").task_start.tolist() == [0, 6, 5]  # j0 is not preempted
    # at t=5, U = P (τ − (t + p − a)): j1 10·(11 − 7) = 40, j2 1·(11 − 4) = 7
    assert run_online(inst, "luf", utilities="linear").task_start.tolist() == [0, 5, 8]
    # equal utilities measured from arrival: j1 −(5 + 3 − 1) = −7, j2 −(5 + 1 − 2) = −4
    assert run_online(inst, "luf").task_start.tolist() == [0, 6, 5]
    assert run_online(inst, "sptf").algorithm == "sptf (online)"


def test_linear_planners_get_a_horizon_measured_from_arrival() -> None:
    """τ_j = τ − (boundary − a_j), so that P_j (τ_j − c) = P_j (τ − (C_j − a_j)) (§VII-B2)."""
    inst = OpenShopInstance.from_dense([[2, 0], [0, 1], [1, 1]], arrival=[0, 3, 4])
    seen: list[tuple[list[int], list[float], int]] = []

    def spy(residual: OpenShopInstance, *, seed: int, utilities: str, tau=None) -> OpenShopSchedule:
        seen.append((residual.job_id.tolist(), np.asarray(tau).tolist(), seed))
        return fifo.fifo(residual)

    s = run_online(inst, spy, utilities="linear", delta0=10.0, alpha=0.0, seed=4)
    horizon = default_horizon(inst)  # 5 + 4
    assert [(jobs, tau) for jobs, tau, _ in seen] == [([0], [horizon]), ([1, 2], [horizon - 7, horizon - 6])]
    assert seen[0][2] != seen[1][2]  # one derived seed per interval
    assert s.task_start.tolist() == [0, 10, 10, 11]
    assert s.algorithm == "spy (online)"


def test_time_unit_scales_the_intervals() -> None:
    """The same workload in milliseconds with time_unit = 1e-3 gives the schedule in milliseconds."""
    rng = np.random.default_rng(3)
    times = rng.integers(1, 9, size=(12, 3)) * (rng.random((12, 3)) < 0.7)
    times[~times.any(axis=1), 0] = 1
    arrival = np.sort(rng.integers(0, 30, 12))
    seconds = OpenShopInstance.from_dense(times, arrival=arrival)
    millis = OpenShopInstance.from_dense(times * 1000, arrival=arrival * 1000)
    for name in ("pba", "sptf"):
        a = run_online(seconds, name, delta0=7.0, alpha=0.0, seed=2)
        b = run_online(millis, name, delta0=7.0, alpha=0.0, seed=2, time_unit=1e-3)
        assert (a.task_start * 1000).tolist() == b.task_start.tolist()


def test_wrong_time_unit_is_reported() -> None:
    inst = OpenShopInstance.from_dense([[10**12]])  # a microsecond trace read as seconds
    with pytest.raises(ConfigError, match="time_unit"):
        run_online(inst, "pba")


@pytest.mark.parametrize(("option", "value"), [("delta0", 0.0), ("alpha", -1.0), ("beta", float("nan")),
                                               ("time_unit", -1.0)])
def test_bad_interval_options_are_refused(option: str, value: float) -> None:
    inst = OpenShopInstance.from_dense([[1]])
    with pytest.raises(ConfigError, match=option):
        run_online(inst, "pba", **{option: value})


def test_unknown_algorithm_is_refused() -> None:
    with pytest.raises(UnknownPolicyError, match="choose one of"):
        run_online(OpenShopInstance.from_dense([[1]]), "lpt")


@st.composite
def online_instances(draw: st.DrawFn) -> OpenShopInstance:
    n, m = draw(st.integers(1, 7)), draw(st.integers(1, 3))
    times = draw(st.lists(st.lists(st.integers(0, 6), min_size=m, max_size=m), min_size=n, max_size=n))
    arrival = sorted(draw(st.lists(st.integers(0, 25), min_size=n, max_size=n)))
    prio = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    return OpenShopInstance.from_dense(times, arrival=arrival, priority=[float(p) for p in prio])


@given(inst=online_instances(), seed=st.integers(0, 2**32 - 1), delta0=st.sampled_from([1.0, 4.0, 9.5, 40.0]),
       alpha=st.sampled_from([0.0, 2.0, 50.0]), kind=st.sampled_from(["equal", "linear"]))
def test_online_invariants(inst: OpenShopInstance, seed: int, delta0: float, alpha: float, kind: str) -> None:
    """Valid (releases respected, no overlap), every task started, deterministic; planners start a task only at or
    after the first boundary at or after its job's arrival."""
    assert PLANNERS
    task_arrival = inst.arrival[inst.task_job()]
    bounds = np.array(list(itertools.islice(online._boundaries(inst, delta0, alpha, 3.0, 1.0), 400)))
    for name in ALGORITHMS:
        if (name == "kmaxmin" and kind == "linear") or (name == "exact" and kind == "linear"):
            continue
        s = run_online(inst, name, utilities=kind, seed=seed, delta0=delta0, alpha=alpha)
        validate_openshop_schedule(inst, s)
        assert (s.task_start >= 0).all()
        again = run_online(inst, name, utilities=kind, seed=seed, delta0=delta0, alpha=alpha)
        assert s.task_start.tolist() == again.task_start.tolist()
        if name in PLANNERS:
            first_boundary = bounds[np.searchsorted(bounds, task_arrival)]
            assert (s.task_start >= first_boundary).all()
