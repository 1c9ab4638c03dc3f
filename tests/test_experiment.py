"""`fairsched.online.experiment`: the compare pipeline on hand-made scenarios and a tiny SWF trace.

Utilities are checked against a unit-by-unit brute force of SPAA'13 Eq. (3) and p_tot against PPAM'13 Sec. 5.1's
definition, both recomputed here from the schedules, independently of `fairsched.online.metrics`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError, UnknownPolicyError
from fairsched.online.experiment import Config, compare_scenario, policy_order, resolve_policy_name, run_compare
from fairsched.scenario import scenario_from_arrays

# 18 SWF fields: job submit wait run alloc cpu mem req_procs req_time req_mem status user group exe queue part
# prec think. Job 3 is cancelled before it started (dropped by cleaning); job 2 runs on 2 processors (2 copies).
TINY_SWF = """\
; Version: 2.2
; Computer: toy cluster for tests
; MaxProcs: 4
1 0 -1 10 1 -1 -1 1 20 -1 1 1 -1 -1 1 -1 -1 -1
2 0 -1 5 2 -1 -1 2 20 -1 1 2 -1 -1 1 -1 -1 -1
3 3 -1 -1 0 -1 -1 1 20 -1 5 3 -1 -1 1 -1 -1 -1
4 4 -1 7 1 -1 -1 1 20 -1 1 3 -1 -1 1 -1 -1 -1
5 10 -1 4 1 -1 -1 1 20 -1 1 4 -1 -1 1 -1 -1 -1
6 12 -1 8 1 -1 -1 1 20 -1 1 1 -1 -1 1 -1 -1 -1
7 20 -1 3 1 -1 -1 1 20 -1 1 2 -1 -1 1 -1 -1 -1
8 25 -1 6 1 -1 -1 1 20 -1 1 4 -1 -1 1 -1 -1 -1
"""

ALL_POLICIES = ("roundrobin", "fairshare", "utfairshare", "currfairshare", "directcontr")


def psi_brute_force(schedule: pd.DataFrame, n_orgs: int, t: int) -> list[int]:
    """Every unit executed in slot [i, i+1), i < t, is worth t - i (SPAA'13 Eq. (3), unit by unit)."""
    psi = [0] * n_orgs
    for org, start, end in schedule[["org", "start", "end"]].itertuples(index=False):
        psi[org] += sum(t - i for i in range(start, min(end, t)))
    return psi


def p_tot_brute_force(schedule: pd.DataFrame, t: int) -> int:
    """Unit parts executed by t: sum over jobs started by t of min(p, t - s) (PPAM'13 Sec. 5.1)."""
    return sum(min(end - start, t - start) for start, end in schedule[["start", "end"]].itertuples(index=False)
               if start <= t)


@pytest.fixture
def tiny_trace(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.swf"
    path.write_text(TINY_SWF)
    return path


def test_roundrobin_alone_matches_the_hand_computed_engine_example() -> None:
    """Three jobs on 2 machines (engine docstring): t_end 3, psi (7, 5), p_tot 3 + 2 + 1 = 6, Delta psi 0."""
    scenario = scenario_from_arrays([0, 0, 1], [3, 2, 1], [0, 1, 0], [1, 1])
    result = compare_scenario(scenario, Config(policies=("rr",), reference="rr"), 0)
    assert list(result.policies) == ["roundrobin"]
    outcome = result.reference_outcome
    assert (result.t_end, result.p_tot) == (3, 6)
    assert outcome.psi.tolist() == [7, 5]
    assert outcome.fairness.delta_psi == 0
    assert outcome.fairness.delta_psi_over_ptot == 0.0
    assert outcome.utilization == pytest.approx(6 / (2 * 3))
    assert outcome.mean_wait == pytest.approx(1 / 3)  # only job 3 waits, from 1 to 2


def test_policies_are_compared_at_one_common_t_end() -> None:
    """ROUNDROBIN finishes at 10, FAIRSHARE at 11: both are measured at 11.

    ROUNDROBIN by hand (2 machines, cycle starts at org 0): t=0 job 1 (org 1) on a machine until 5; t=1 job 3
    (org 0) until 3; t=3 job 2 (org 1) until 7; t=5 job 5 (org 0) until 10; t=7 job 4 (org 1) until 10.
    At t=11: org 0 = (10+9) + (6+5+4+3+2) = 39, org 1 = (11+10+9+8+7) + (8+7+6+5) + (4+3+2) = 80.
    """
    scenario = scenario_from_arrays([0, 1, 1, 1, 2], [5, 4, 2, 3, 5], [1, 1, 0, 1, 0], [1, 1])
    result = compare_scenario(scenario, Config(policies=("rr",), reference="fairshare"), 0)
    rr, fair = result.policies["roundrobin"], result.policies["fairshare"]
    assert (rr.result.t_end, fair.result.t_end) == (10, 11)  # the engine stops at each one's last completion
    assert result.t_end == 11
    assert rr.psi.tolist() == [39, 80]
    assert fair.psi.tolist() == psi_brute_force(fair.result.schedule, 2, 11)
    assert result.p_tot == 5 + 4 + 2 + 3 + 5  # everything ran by t_end
    assert rr.fairness.delta_psi == sum(abs(a - b) for a, b in zip([39, 80], fair.psi.tolist(), strict=True))
    assert rr.fairness.delta_psi > 0
    assert rr.fairness.delta_psi_over_ptot == rr.fairness.delta_psi / 19


def test_p_tot_counts_the_reference_work_done_by_the_horizon() -> None:
    """Horizon 10: ROUNDROBIN has run all 19 units, FAIRSHARE (the reference) one unit fewer: p_tot is 18."""
    scenario = scenario_from_arrays([0, 1, 1, 1, 2], [5, 4, 2, 3, 5], [1, 1, 0, 1, 0], [1, 1], horizon=10)
    result = compare_scenario(scenario, Config(policies=("rr",), reference="fairshare"), 0)
    assert result.t_end == 10
    assert p_tot_brute_force(result.policies["roundrobin"].result.schedule, 10) == 19
    assert p_tot_brute_force(result.reference_outcome.result.schedule, 10) == 18
    assert result.p_tot == 18
    # ROUNDROBIN's schedule as in the previous test: org 0 = (9+8) + (5+4+3+2+1), org 1 = (10+..+6) + (7+..+4) + (3+2+1)
    assert result.policies["roundrobin"].psi.tolist() == [32, 68]
    assert result.policies["roundrobin"].fairness.delta_psi_over_ptot == pytest.approx(
        result.policies["roundrobin"].fairness.delta_psi / 18)


def test_every_policy_against_the_reference_on_a_random_scenario() -> None:
    """Reference: Delta psi = 0 exactly; others: psi and p_tot equal the brute force, Delta psi their |sum|."""
    rng = np.random.default_rng(11)
    n = 40
    release = np.sort(rng.integers(0, 30, n))
    scenario = scenario_from_arrays(release, rng.integers(1, 12, n), rng.integers(0, 3, n), [1, 2, 1],
                                    copies=rng.integers(1, 3, n))
    result = compare_scenario(scenario, Config(policies=ALL_POLICIES, reference="directcontr"), 5)
    assert list(result.policies) == list(ALL_POLICIES)
    reference = result.reference_outcome
    assert result.p_tot == p_tot_brute_force(reference.result.schedule, result.t_end)
    assert reference.fairness.delta_psi == 0
    assert reference.fairness.per_org_deviation.tolist() == [0, 0, 0]
    psi_ref = psi_brute_force(reference.result.schedule, 3, result.t_end)
    for outcome in result.policies.values():
        psi = psi_brute_force(outcome.result.schedule, 3, result.t_end)
        assert outcome.psi.tolist() == psi, outcome.name
        assert outcome.fairness.delta_psi == sum(abs(a - b) for a, b in zip(psi, psi_ref, strict=True))
        assert outcome.fairness.delta_psi_over_ptot == pytest.approx(outcome.fairness.delta_psi / result.p_tot)
        assert outcome.per_org["psi"].tolist() == psi


def test_reference_is_simulated_even_when_not_listed_and_names_are_resolved() -> None:
    assert policy_order(("RR", "fairshare", "roundrobin"), "directcontr") == ["roundrobin", "fairshare",
                                                                                "directcontr"]
    assert policy_order(("directcontr", "rr"), "directcontr") == ["directcontr", "roundrobin"]
    assert resolve_policy_name("rr") == "roundrobin"
    with pytest.raises(UnknownPolicyError, match=r"choose one of: .*roundrobin"):
        resolve_policy_name("round-robin")
    with pytest.raises(ConfigError, match="sequence of names"):
        policy_order("roundrobin", "roundrobin")


def test_unknown_policy_fails_before_the_trace_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "does-not-exist.swf"
    with pytest.raises(UnknownPolicyError, match="'nope'"):
        Config(trace=missing, policies=("rr", "nope"))
    with pytest.raises(UnknownPolicyError, match="'nope'"):
        Config(trace=missing, reference="nope")


def test_run_compare_on_a_tiny_trace(tiny_trace: Path) -> None:
    """Cleaning drops the cancelled job; the parallel job becomes 2 copies; 4 machines split 2/2."""
    config = Config(trace=tiny_trace, orgs=2, split="even", policies=("rr", "fairshare"))
    result = run_compare(config, 3)
    assert result.clean_report.kept == 7
    assert result.clean_report.dropped["cancelled before start"] == 1
    assert result.read_report.n_records == 8
    assert result.scenario.n_machines == 4
    assert result.scenario.machines_per_org.tolist() == [2, 2]
    assert result.scenario.n_sequential_jobs == 8
    assert sorted(result.scenario.jobs["job"].tolist()) == [1, 2, 4, 5, 6, 7, 8]
    assert list(result.policies) == ["roundrobin", "fairshare", "ref"]  # REF is the reference for k <= 12
    assert result.scenario_summary["n_sequential_jobs"] == 8
    for outcome in result.policies.values():
        assert len(outcome.result.schedule) == 8  # no horizon: every copy runs
    assert result.p_tot == 10 + 2 * 5 + 7 + 4 + 8 + 3 + 6
    assert result.elapsed_s > 0


def test_window_sets_origin_and_horizon_and_release_scale_packs_arrivals(tiny_trace: Path) -> None:
    """Window [4, 24) keeps jobs 4-7 (submits 4, 10, 12, 20): releases 0, 6, 8, 16, horizon 20; x0.5 halves them."""
    base = {"trace": tiny_trace, "orgs": 2, "split": "even", "policies": ("rr",), "reference": "rr"}
    windowed = run_compare(Config(**base, window_start=4, window_length=20), 0)
    jobs = windowed.scenario.jobs
    assert jobs["job"].tolist() == [4, 5, 6, 7]
    assert jobs["release"].tolist() == [0, 6, 8, 16]
    assert windowed.scenario.horizon == 20
    assert windowed.t_end == 20
    assert windowed.p_tot == p_tot_brute_force(windowed.reference_outcome.result.schedule, 20)
    scaled = run_compare(Config(**base, window_start=4, window_length=20, release_scale=0.5), 0)
    assert scaled.scenario.jobs["release"].tolist() == [0, 3, 4, 8]
    assert scaled.t_end == 20  # the horizon is the window length, not scaled


def test_empty_window_is_a_config_error(tiny_trace: Path) -> None:
    config = Config(trace=tiny_trace, orgs=2, window_start=1000, window_length=10, policies=("rr",))
    with pytest.raises(ConfigError, match="no job"):
        run_compare(config, 0)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("window_length", 0.0, "window length"),
    ("release_scale", -1.0, "release scale"),
    ("policies", (), "policies is empty"),
])
def test_bad_options_are_config_errors(tiny_trace: Path, field: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Config(trace=tiny_trace, orgs=2, **{field: value})


def test_progress_reports_every_step_in_order(tiny_trace: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    config = Config(trace=tiny_trace, orgs=2, policies=("rr", "fairshare"), reference="rr")
    run_compare(config, 0, progress=lambda description, done, total: calls.append((description, done, total)))
    steps = [c for c in calls if "%" not in c[0]]  # within a simulation: "simulating rr: 40% of the ..."
    assert [c[0] for c in steps] == ["reading tiny.swf", "simulating roundrobin", "simulating fairshare",
                                     "measuring"]
    assert [c[1] for c in steps] == [0, 1, 2, 3]
    assert {c[2] for c in calls} == {4}
    assert [c[1] for c in calls] == sorted(c[1] for c in calls)


def test_same_config_same_results(tiny_trace: Path) -> None:
    config = Config(trace=tiny_trace, orgs=3, policies=ALL_POLICIES)
    first, second = run_compare(config, 7), run_compare(config, 7)
    for name in ALL_POLICIES:
        assert first.policies[name].psi.tolist() == second.policies[name].psi.tolist()
        pd.testing.assert_frame_equal(first.policies[name].result.schedule, second.policies[name].result.schedule)
    assert first.scenario.machines_per_org.tolist() == second.scenario.machines_per_org.tolist()


def test_reference_defaults_to_ref_up_to_twelve_organizations() -> None:
    from fairsched.online.experiment import effective_reference

    assert effective_reference(Config(), 12) == "ref"
    assert effective_reference(Config(), 13) == "directcontr"
    assert effective_reference(Config(ref_max_orgs=4), 5) == "directcontr"
    assert effective_reference(Config(reference="rr"), 3) == "roundrobin"
