"""Metrics of online schedules: psi_sp against SPAA'13 Fig. 1, the engine and a unit-by-unit brute force;
p_tot, Delta psi, utilization and per-organization statistics on a hand-computed example; exactness at scale."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError, InvalidScheduleError
from fairsched.online.engine import SCHEDULE_COLUMNS, simulate
from fairsched.online.metrics import (
    delta_psi,
    fairness_vs_reference,
    p_tot,
    per_org_metrics,
    psi_from_schedule,
    utilization,
)
from fairsched.online.policies import get_policy
from fairsched.scenario import scenario_from_arrays


def schedule_of(org, start, end, release=None) -> pd.DataFrame:
    n = len(start)
    return pd.DataFrame({
        "job": np.arange(1, n + 1), "org": org, "release": np.zeros(n, np.int64) if release is None else release,
        "start": start, "end": end, "machine": np.zeros(n, np.int64),
    }).astype(np.int64)[list(SCHEDULE_COLUMNS)]


def psi_brute_force(org, start, end, n_orgs: int, t: int) -> list[int]:
    """Every unit executed in slot [i, i+1) with i < t is worth t - i (SPAA'13 Eq. (3), unit by unit)."""
    psi = [0] * n_orgs
    for u, s, e in zip(org, start, end, strict=True):
        psi[u] += sum(t - i for i in range(s, min(e, t)))
    return psi


# SPAA'13 Fig. 1: 3 machines, all jobs released at 0. Organization 1 (here 0) has jobs of sizes
# 3,4,3,6,3,6,3,3,4 started at 0,0,0,3,3,4,6,9,10; organization 2 (here 1) one job of size 5 started at 9.
FIG1_SIZES = [3, 4, 3, 6, 3, 6, 3, 3, 4, 5]
FIG1_STARTS = [0, 0, 0, 3, 3, 4, 6, 9, 10, 9]
FIG1_ORGS = [0] * 9 + [1]


def test_fig1_psi_matches_paper() -> None:
    end = np.add(FIG1_STARTS, FIG1_SIZES)
    schedule = schedule_of(FIG1_ORGS, FIG1_STARTS, end)
    assert psi_from_schedule(schedule, 2, 13)[0] == 262
    psi = psi_from_schedule(schedule, 2, 14)
    assert psi.tolist() == [297, 15] and psi.dtype == np.int64


def test_psi_equals_unit_by_unit_brute_force() -> None:
    rng = np.random.default_rng(21)
    for _ in range(100):
        n, k = int(rng.integers(0, 12)), int(rng.integers(1, 4))
        org, start = rng.integers(0, k, n), rng.integers(0, 20, n)
        end = start + rng.integers(1, 10, n)
        t = int(rng.integers(0, 35))
        expected = psi_brute_force(org.tolist(), start.tolist(), end.tolist(), k, t)
        assert psi_from_schedule(schedule_of(org, start, end), k, t).tolist() == expected
        assert p_tot(schedule_of(org, start, end), t) == sum(
            max(0, min(e, t) - s) for s, e in zip(start.tolist(), end.tolist(), strict=True))


@pytest.mark.parametrize("horizon", [False, True])
def test_psi_equals_engine_utilities(horizon: bool) -> None:
    rng = np.random.default_rng(22 + horizon)
    total = 0
    for _ in range(40):
        k, n = int(rng.integers(1, 5)), int(rng.integers(1, 30))
        scenario = scenario_from_arrays(
            release=np.sort(rng.integers(0, 25, n)), processing_time=rng.integers(1, 12, n),
            org=rng.integers(0, k, n), machines_per_org=rng.integers(1, 3, k), copies=rng.integers(1, 4, n),
            horizon=int(rng.integers(1, 40)) if horizon else None)
        result = simulate(scenario, get_policy("roundrobin"))
        psi = psi_from_schedule(result.schedule, k, result.t_end)
        np.testing.assert_array_equal(psi, result.psi)
        np.testing.assert_array_equal(per_org_metrics(result.schedule, scenario, result.t_end)["work_completed"],
                                      result.per_org["work_done"])
        total += int(psi.sum())
    assert total > 0


# -- a three-job example worked by hand ---------------------------------------------------------------------
# 2 machines (one per organization). Job 1: org 0, r=0, p=3 on machine 0 during [0, 3);
# job 2: org 1, r=0, p=2 on machine 1 during [0, 2); job 3: org 0, r=1, p=4 on machine 1 during [2, 6).

def three_jobs():
    scenario = scenario_from_arrays(release=[0, 0, 1], processing_time=[3, 2, 4], org=[0, 1, 0],
                                    machines_per_org=[1, 1])
    schedule = pd.DataFrame([(1, 0, 0, 0, 3, 0), (2, 1, 0, 0, 2, 1), (3, 0, 1, 2, 6, 1)],
                            columns=list(SCHEDULE_COLUMNS))
    return scenario, schedule


def test_three_jobs_at_completion() -> None:
    scenario, schedule = three_jobs()
    # psi at 6: job 1 slots 0,1,2 -> 6+5+4 = 15; job 3 slots 2..5 -> 4+3+2+1 = 10; job 2 slots 0,1 -> 6+5 = 11.
    assert psi_from_schedule(schedule, 2, 6).tolist() == [25, 11]
    assert p_tot(schedule, 6) == 9
    assert utilization(schedule, 2, 6) == 0.75  # 9 busy machine-seconds out of 12
    metrics = per_org_metrics(schedule, scenario, 6)
    assert metrics.index.name == "org" and metrics.index.tolist() == [0, 1]
    assert metrics["machines"].tolist() == [1, 1]
    assert metrics["psi"].tolist() == [25, 11]
    assert metrics["jobs_completed"].tolist() == [2, 1]
    assert metrics["work_completed"].tolist() == [7, 2]
    assert metrics["mean_wait"].tolist() == [0.5, 0.0]          # org 0: waits 0 and 2 - 1
    assert metrics["mean_slowdown"].tolist() == [1.125, 1.0]    # org 0: 3/3 and (6 - 1)/4
    assert metrics["jobs_waiting_at_end"].tolist() == [0, 0]


def test_three_jobs_at_t1() -> None:
    scenario, schedule = three_jobs()
    assert psi_from_schedule(schedule, 2, 1).tolist() == [1, 1]
    assert p_tot(schedule, 1) == 2
    assert utilization(schedule, 2, 1) == 1.0
    metrics = per_org_metrics(schedule, scenario, 1)
    assert metrics["jobs_completed"].tolist() == [0, 0]
    assert metrics["work_completed"].tolist() == [1, 1]
    assert metrics["mean_wait"].tolist() == [0.0, 0.0]  # job 3 has not started by t=1
    assert metrics["mean_slowdown"].isna().all()          # nothing completed yet
    assert metrics["jobs_waiting_at_end"].tolist() == [1, 0]  # job 3, released at 1, waits


def test_instants_at_t2() -> None:
    """At t=2 job 2 has completed (end = t) and job 3 has started (start = t) but executed nothing yet."""
    scenario, schedule = three_jobs()
    metrics = per_org_metrics(schedule, scenario, 2)
    assert metrics["jobs_completed"].tolist() == [0, 1]
    assert metrics["mean_wait"].tolist() == [0.5, 0.0]
    assert metrics["jobs_waiting_at_end"].tolist() == [0, 0]
    assert metrics["work_completed"].tolist() == [2, 2] and p_tot(schedule, 2) == 4


def test_delta_psi_and_fairness_vs_reference() -> None:
    assert delta_psi(np.array([25, 11]), np.array([20, 15])) == 9
    c = fairness_vs_reference(np.array([25, 11]), np.array([20, 15]), 9)
    assert (c.delta_psi, c.p_tot, c.delta_psi_over_ptot) == (9, 9, 1.0)
    assert c.per_org_deviation.tolist() == [5, -4] and c.per_org_deviation.dtype == np.int64
    np.testing.assert_allclose(c.relative_deviation, [0.25, -4 / 15])
    with pytest.raises(ValueError, match="read-only"):
        c.per_org_deviation[0] = 0


def test_fairness_when_the_reference_did_nothing() -> None:
    assert math.isnan(fairness_vs_reference(np.array([0, 0]), np.array([0, 0]), 0).delta_psi_over_ptot)
    c = fairness_vs_reference(np.array([3, 0]), np.array([0, 0]), 0)
    assert c.delta_psi_over_ptot == math.inf
    assert c.relative_deviation[0] == math.inf and math.isnan(c.relative_deviation[1])
    assert math.isnan(utilization(schedule_of([], [], []), 4, 0))


def test_huge_values_stay_exact() -> None:
    """8192 machines busy for ~1e7 s: utilities ~1e17, beyond float64's exact integers (2**53)."""
    m, t = 8192, 10_000_019
    org = np.arange(m) % 4
    start = np.arange(m) % 7
    end = start + 10_000_000 - np.arange(m)
    schedule = schedule_of(org, start, end)
    expected = [0] * 4
    for u, s, e in zip(org.tolist(), start.tolist(), end.tolist(), strict=True):
        n_units = min(e, t) - s
        expected[u] += n_units * t - (s + s + n_units - 1) * n_units // 2  # arithmetic series, Python ints
    assert any(int(float(x)) != x for x in expected)  # float64 accumulation would be wrong here
    assert psi_from_schedule(schedule, 4, t).tolist() == expected
    units = sum(min(e, t) - s for s, e in zip(start.tolist(), end.tolist(), strict=True))
    assert p_tot(schedule, t) == units
    assert utilization(schedule, m, t) == units / (m * t)
    ref = np.array(expected, dtype=np.int64) + np.array([1, -1, 2, 0])
    assert delta_psi(np.array(expected, dtype=np.int64), ref) == 4


def test_overflow_is_refused() -> None:
    schedule = schedule_of([0], [0], [3_000_000_000])
    with pytest.raises(ConfigError, match="overflow 64-bit"):
        psi_from_schedule(schedule, 1, 3_000_000_000)


def test_bad_inputs_are_user_errors() -> None:
    _, schedule = three_jobs()
    with pytest.raises(InvalidScheduleError, match="lacks column"):
        psi_from_schedule(schedule.drop(columns=["end"]), 2, 5)
    with pytest.raises(InvalidScheduleError, match="organization 1, but there are 1"):
        psi_from_schedule(schedule, 1, 5)
    with pytest.raises(ConfigError, match="t_end must be"):
        p_tot(schedule, -1)
    with pytest.raises(ConfigError, match="same length"):
        delta_psi(np.array([1, 2]), np.array([1, 2, 3]))
