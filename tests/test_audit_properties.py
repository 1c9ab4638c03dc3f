"""Properties of `fairsched audit`: REF's own schedule is fair, names do not matter, splitting is bounded."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from fairsched.audit import AuditConfig, run_audit
from fairsched.audit.game import marginal_range
from fairsched.backfill import BackfillJobs, simulate
from fairsched.online import get_policy
from fairsched.online import simulate as simulate_online
from fairsched.scenario import scenario_from_arrays

SACCT_HEADER = "JobID|Account|User|Submit|Start|Elapsed|NCPUS|Timelimit|State"


def _clock(seconds: int) -> str:
    days, rest = divmod(int(seconds), 86400)
    return f"2021-01-{1 + days:02d}T{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"


def _duration(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def _random_log(path: Path, seed: int, n_users: int = 6, n_jobs: int = 30, n_cpus: int = 8) -> Path:
    """A consistent recorded schedule: random rigid jobs scheduled by FCFS+EASY on n_cpus, users u0..u5."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 200, n_jobs))
    run = rng.integers(1, 60, n_jobs)
    cpus = rng.integers(1, 4, n_jobs)
    limit = run + rng.integers(0, 30, n_jobs)
    start = simulate(BackfillJobs.from_arrays(submit, run, cpus, limit, n_processors=n_cpus),
                     backfill="easy").schedule["start"].to_numpy()
    users = rng.integers(0, n_users, n_jobs)
    users[:n_users] = np.arange(n_users)  # every user has a job
    lines = [SACCT_HEADER] + [
        f"{i + 1}|acc|u{users[i]}|{_clock(submit[i])}|{_clock(start[i])}|{_duration(run[i])}|{cpus[i]}|"
        f"{_duration(limit[i])}|COMPLETED" for i in range(n_jobs)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _write(path: Path, rows: dict[str, object], header: str) -> Path:
    path.write_text(header + "\n" + "".join(f"{k},{v}\n" for k, v in rows.items()))
    return path


# -- REF's own schedule has Δψ = 0 against the online reference --------------------------------------------------
@st.composite
def _ref_scenarios(draw):
    k = draw(st.integers(1, 3))
    n = draw(st.integers(k, 10))
    org = list(range(k)) + draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))
    return scenario_from_arrays(
        release=draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)),
        processing_time=draw(st.lists(st.integers(1, 8), min_size=n, max_size=n)), org=org,
        machines_per_org=draw(st.lists(st.integers(1, 3), min_size=k, max_size=k)))


@settings(max_examples=25, deadline=None)
@given(scenario=_ref_scenarios())
def test_ref_schedule_has_zero_delta_psi_against_the_online_reference(tmp_path_factory, scenario):
    tmp = tmp_path_factory.mktemp("ref")
    result = simulate_online(scenario, get_policy("ref"), seed=0)
    schedule = result.schedule.sort_values("job")
    jobs = scenario.jobs.set_index("job")
    lines = []
    for row in schedule.itertuples():
        release = int(jobs.loc[row.job, "release"])
        run = int(row.end - row.start)
        fields = [row.job, release, row.start - release, run, 1, -1, -1, 1, run, -1, 1, 1, int(row.org) + 1,
                  -1, -1, -1, -1, -1]
        lines.append(" ".join(str(int(x)) for x in fields))
    log = tmp / "ref.swf"
    log.write_text("\n".join(lines) + "\n")
    shares = _write(tmp / "cpus.csv", {str(u + 1): int(m) for u, m in enumerate(scenario.machines_per_org)},
                    "org,cpus")
    audit = run_audit(AuditConfig(log=log, org_by="group", shares=str(shares), reference="online", fst_sample=0))
    assert audit.summary["delta_psi"] == 0
    assert audit.orgs["psi"].tolist() == result.psi.tolist()


# -- names do not matter ------------------------------------------------------------------------------------------
NAMED_COLUMNS = ["members", "jobs", "cpus", "entitled_share", "cpu_seconds", "usage_share", "psi", "phi", "gap",
                 "alone_psi", "alone_mean_wait", "pool_mean_wait", "fst_strict_late", "fst_relaxed_late",
                 "re_deficit", "fairshare_factor"]


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_permuting_organization_names_permutes_the_results(tmp_path_factory, seed):
    tmp = tmp_path_factory.mktemp("names")
    log = _random_log(tmp / "log.sacct", seed)
    groups = {"u0": 0, "u1": 0, "u2": 1, "u3": 1, "u4": 2, "u5": 2}
    first = _write(tmp / "a.csv", {u: "abc"[g] for u, g in groups.items()}, "key,org")
    second = _write(tmp / "b.csv", {u: "zyx"[g] for u, g in groups.items()}, "key,org")  # reversed order
    shares_a = _write(tmp / "sa.csv", {"a": 4, "b": 3, "c": 1}, "org,cpus")
    shares_b = _write(tmp / "sb.csv", {"z": 4, "y": 3, "x": 1}, "org,cpus")
    one = run_audit(AuditConfig(log=log, org_by="user", org_map=first, shares=str(shares_a))).orgs
    two = run_audit(AuditConfig(log=log, org_by="user", org_map=second, shares=str(shares_b))).orgs
    assert two["org"].tolist() == ["x", "y", "z"]
    renamed = two.set_index(two["org"].map({"z": "a", "y": "b", "x": "c"})).sort_index()
    expected = one.set_index("org")[NAMED_COLUMNS]
    assert renamed["psi"].tolist() == expected["psi"].tolist()   # exact integers
    assert renamed["phi"].tolist() == expected["phi"].tolist()   # from exact rationals
    # sums over organizations (shares) are taken in another order: equal up to float rounding
    pd.testing.assert_frame_equal(renamed[NAMED_COLUMNS], expected, check_names=False, rtol=1e-12)


# -- splitting an organization -------------------------------------------------------------------------------------
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_splitting_an_organization_moves_the_others_phi_within_the_bound(tmp_path_factory, seed):
    tmp = tmp_path_factory.mktemp("split")
    log = _random_log(tmp / "log.sacct", seed)
    whole = _write(tmp / "whole.csv", {"u0": "a", "u1": "a", "u2": "b", "u3": "b", "u4": "c", "u5": "c"}, "key,org")
    split = _write(tmp / "split.csv", {"u0": "a1", "u1": "a2", "u2": "b", "u3": "b", "u4": "c", "u5": "c"},
                   "key,org")
    before = run_audit(AuditConfig(log=log, org_by="user", org_map=whole,
                                   shares=str(_write(tmp / "s1.csv", {"a": 4, "b": 2, "c": 2}, "org,cpus"))))
    after = run_audit(AuditConfig(log=log, org_by="user", org_map=split,
                                  shares=str(_write(tmp / "s2.csv", {"a1": 2, "a2": 2, "b": 2, "c": 2}, "org,cpus"))))
    old, new = before.shapley.values, after.shapley.values   # orgs a, b, c -> bits 0..2; a1, a2, b, c -> bits 0..3
    for s in range(8):  # every old coalition is a new one with the same value (same jobs, same CPUs)
        a, rest = s & 1, s >> 1
        assert new[(0b11 if a else 0) | rest << 2] == old[s]
    for name, new_bit in (("b", 2), ("c", 3)):
        moved = abs(after.orgs.set_index("org").loc[name, "phi"] - before.orgs.set_index("org").loc[name, "phi"])
        assert moved <= marginal_range(new, 4, new_bit) + 1e-6, name
