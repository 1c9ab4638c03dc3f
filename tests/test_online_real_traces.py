"""Every online policy on windows of real traces (LPC-EGEE, RICC expanded to sequential jobs), validated."""

from __future__ import annotations

import functools

import pytest

from fairsched.online import metrics
from fairsched.online.engine import simulate
from fairsched.online.policies import REGISTRY, get_policy
from fairsched.online.validate import validate_online_schedule
from fairsched.scenario import build_scenario
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import window
from tests.conftest import trace_path

# (trace, machines, window length in s): LPC-EGEE on 30 machines as in SPAA'13 Sec. 6.3.1 (contention),
# RICC on its 8192 processors with parallel jobs expanded to sequential copies (PPAM'13 Sec. 5.1).
CASES = {
    "lpc-egee": ("LPC-EGEE-2004-1.2-cln.swf.gz", 30, 1_000_000),
    "ricc": ("RICC-2010-2.swf.gz", 8192, 100_000),
}


@functools.cache
def _scenario(key: str):
    name, machines, length = CASES[key]
    workload, _ = clean(read_swf(trace_path(name)), max_processors=machines)
    start = float(workload.jobs["submit_time"].min())
    windowed = window(workload, start=start, length=length)
    return build_scenario(windowed, n_orgs=5, n_machines=machines, split="zipf", seed=1, time_origin=start,
                          horizon=length)


@pytest.fixture(scope="module", params=sorted(CASES))
def real_scenario(request: pytest.FixtureRequest):
    return _scenario(request.param)


@pytest.mark.traces
@pytest.mark.parametrize("policy", sorted(REGISTRY))
def test_policy_schedules_real_window_validly(real_scenario, policy: str) -> None:
    assert REGISTRY
    result = simulate(real_scenario, get_policy(policy), seed=1)
    validate_online_schedule(result.schedule, real_scenario, t_end=real_scenario.horizon)
    assert result.psi.tolist() == metrics.psi_from_schedule(result.schedule, real_scenario.n_orgs,
                                                            result.t_end).tolist()
    assert len(result.schedule) > 1000  # the window really holds work


@pytest.mark.traces
def test_policies_disagree_when_machines_are_contended() -> None:
    scenario = _scenario("lpc-egee")  # LPC-EGEE on 30 machines is overloaded: the policy matters
    psi = {name: simulate(scenario, get_policy(name), seed=1).psi for name in ("roundrobin", "directcontr")}
    deviation = metrics.fairness_vs_reference(psi["roundrobin"], psi["directcontr"], 1)
    assert deviation.delta_psi > 0
