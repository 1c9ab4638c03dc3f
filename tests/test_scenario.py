"""Scenario builder: machine splits, user -> organization assignment, org maps, job rounding, real data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.errors import ConfigError, InputError
from fairsched.scenario import (
    SCENARIO_COLUMNS,
    Scenario,
    assign_orgs,
    build_scenario,
    describe,
    scenario_from_arrays,
    split_machines,
    zipf_counts,
)
from fairsched.workload.model import Workload
from tests.conftest import trace_path


def small_workload(*, submit=(10.0, 10.5, 12.9), run=(3.0, 0.5, 7.2), processors=(1, 2, 1), users=(4, 4, 9),
                   job_numbers=None, header=(("MaxProcs", "6"),)) -> Workload:
    n = len(submit)
    jobs = pd.DataFrame({
        "job_number": np.arange(1, n + 1) if job_numbers is None else np.asarray(job_numbers),
        "submit_time": np.asarray(submit, dtype=np.float64),
        "run_time": np.asarray(run, dtype=np.float64),
        "processors": np.asarray(processors, dtype=np.int64),
        "user_id": np.asarray(users, dtype=np.int64),
        "group_id": np.full(n, -1, dtype=np.int64),
        "queue_number": np.asarray([u % 2 for u in users], dtype=np.int64),
    })
    return Workload(jobs=jobs, header=tuple(header), source="small")


def many_users_workload(n_users: int = 300, jobs_per_user: int = 3) -> Workload:
    users = np.repeat(np.arange(1, n_users + 1), jobs_per_user)
    n = users.size
    return small_workload(submit=np.arange(n, dtype=np.float64), run=np.ones(n), processors=np.ones(n, dtype=int),
                          users=users)


# --- machine splits ---------------------------------------------------------------------------------------------

@given(n_orgs=st.integers(1, 8), extra=st.integers(0, 300), seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(["even", "uniform", "zipf"]), s=st.floats(0.0, 4.0))
def test_every_split_gives_each_org_a_machine_and_totals_m(n_orgs, extra, seed, kind, s) -> None:
    n_machines = n_orgs + extra
    counts = split_machines(n_machines, n_orgs, kind, zipf_s=s, rng=np.random.default_rng(seed))
    assert counts.dtype == np.int64
    assert counts.shape == (n_orgs,)
    assert counts.min() >= 1
    assert counts.sum() == n_machines
    if kind == "zipf":  # a permutation of the rank-ordered counts, which never increase with the rank
        ranked = zipf_counts(n_machines, n_orgs, s)
        assert np.all(np.diff(ranked) <= 0)
        assert sorted(counts.tolist()) == sorted(ranked.tolist())


@pytest.mark.parametrize(("m", "k", "expected"), [
    (10, 3, [4, 3, 3]), (64, 5, [13, 13, 13, 13, 12]), (5, 5, [1, 1, 1, 1, 1]), (7, 1, [7]), (9, 4, [3, 2, 2, 2])])
def test_even_split_exact(m, k, expected) -> None:
    assert split_machines(m, k, "even").tolist() == expected


def test_zipf_counts_hand_computed() -> None:
    # 64 machines, 5 orgs, s = 1.4267: weights r**-s = 1, .3718, .2087, .1382, .1006 (sum 1.8193); quotas
    # 64 w / sum = 35.18, 13.08, 7.34, 4.86, 3.54 -> floors 35, 13, 7, 4, 3 (62); the 2 left go to the largest
    # fractional parts, ranks 4 (.86) and 5 (.54).
    assert zipf_counts(64, 5, 1.4267).tolist() == [35, 13, 7, 5, 4]
    # 10 machines, 3 orgs, s = 1: quotas 5.45, 2.73, 1.82 -> 5, 2, 1 (+1 to ranks 3 and 2).
    assert zipf_counts(10, 3, 1.0).tolist() == [5, 3, 2]
    # 6 machines, 5 orgs, s = 5: quotas 5.79, .18, .02, .01, .00 -> [6, 0, 0, 0, 0]; each empty org then takes one
    # machine from the largest: [2, 1, 1, 1, 1].
    assert zipf_counts(6, 5, 5.0).tolist() == [2, 1, 1, 1, 1]


def test_zipf_split_gives_ranks_in_random_order() -> None:
    largest = {int(np.argmax(split_machines(64, 5, "zipf", rng=np.random.default_rng(seed)))) for seed in range(60)}
    assert largest == {0, 1, 2, 3, 4}


def test_uniform_split_is_one_each_plus_equal_multinomial() -> None:
    rng = np.random.default_rng(5)
    draws = np.array([split_machines(64, 4, "uniform", rng=rng) for _ in range(4000)])
    # E[count] = 1 + 60/4 = 16 for every org; sd of one count = sqrt(60 * 1/4 * 3/4) = 3.35, of the mean 0.053.
    np.testing.assert_allclose(draws.mean(axis=0), 16.0, atol=0.25)
    assert draws.min() >= 1
    assert draws.std(axis=0).min() > 3.0  # really random, not an even split


@pytest.mark.parametrize(("n_machines", "split", "expected"), [
    (None, "1,2,1", [1, 2, 1]), (4, [1, 2, 1], [1, 2, 1]), (None, " 3, 1 ,1", [3, 1, 1])])
def test_explicit_split(n_machines, split, expected) -> None:
    assert split_machines(n_machines, len(expected), split).tolist() == expected


@pytest.mark.parametrize(("n_machines", "n_orgs", "split", "message"), [
    (5, 3, "1,2,1", "sums to 4 machines but n_machines is 5"),
    (None, 2, "1,2,1", "3 machine counts for 2 organizations"),
    (None, 3, [1, 0, 2], "organization 1 would own no machine"),
    (None, 3, "1,x,2", "expected one of even, uniform, composition, zipf"),
    (10, 3, "zipff", "expected one of even, uniform, composition, zipf"),
    (3, 5, "even", "3 machines cannot be split among 5 organizations"),
    (10, 0, "even", "n_orgs=0"),
    (10, 3, "zipf", "zipf_s=-1"),
])
def test_split_errors(n_machines, n_orgs, split, message) -> None:
    with pytest.raises(ConfigError, match=message):
        split_machines(n_machines, n_orgs, split, zipf_s=-1.0 if "zipf_s" in message else 1.0,
                       rng=np.random.default_rng(0))


# --- organizations ----------------------------------------------------------------------------------------------

def test_all_jobs_of_a_user_are_in_one_org() -> None:
    workload = many_users_workload(n_users=50, jobs_per_user=4)
    scenario = build_scenario(workload, n_orgs=5, seed=3)
    users = workload.jobs.set_index("job_number")["user_id"]
    by_user = scenario.jobs.assign(user=users.loc[scenario.jobs["job"]].to_numpy()).groupby("user")["org"]
    assert by_user.nunique().max() == 1
    assert scenario.jobs["org"].nunique() == 5  # 50 users over 5 orgs: all used (else the test checks little)


def test_assignment_is_uniform_over_orgs() -> None:
    orgs = assign_orgs(np.arange(5000), 5, seed=11)
    counts = np.bincount(orgs, minlength=5)
    # Binomial(5000, 1/5): mean 1000, sd 28; 5 sd either way.
    assert counts.min() > 860 and counts.max() < 1140


def test_assignment_depends_on_seed_and_id_only() -> None:
    ids = np.array([5, -1, 17, 5, 230, 17])
    full = assign_orgs(ids, 5, seed=4)
    assert full[0] == full[3] and full[2] == full[5]
    # A window holding fewer users keeps each user's organization.
    assert assign_orgs(ids[[2, 4]], 5, seed=4).tolist() == full[[2, 4]].tolist()
    other_seeds = [assign_orgs(np.arange(40), 5, seed=s).tolist() for s in (1, 2)]
    assert other_seeds[0] != other_seeds[1]


def test_orgs_by_group_and_queue() -> None:
    workload = small_workload(users=(4, 5, 9))  # groups all -1: one "group", hence one organization
    by_group = build_scenario(workload, n_orgs=5, orgs_by="group", seed=2)
    assert by_group.jobs["org"].nunique() == 1
    by_queue = build_scenario(workload, n_orgs=5, orgs_by="queue", seed=2)
    queue = workload.jobs.set_index("job_number")["queue_number"].loc[by_queue.jobs["job"]].to_numpy()
    expected = assign_orgs(queue, 5, seed=2)
    assert by_queue.jobs["org"].tolist() == expected.tolist()


def test_determinism_and_independent_stages() -> None:
    workload = many_users_workload(n_users=40)
    a = build_scenario(workload, n_orgs=5, n_machines=64, split="zipf", seed=9)
    b = build_scenario(workload, n_orgs=5, n_machines=64, split="zipf", seed=9)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    assert a.machine_owner.tolist() == b.machine_owner.tolist()
    c = build_scenario(workload, n_orgs=5, n_machines=64, split="zipf", seed=10)
    assert a.jobs["org"].tolist() != c.jobs["org"].tolist()
    assert a.machines_per_org.tolist() != c.machines_per_org.tolist()
    # Changing the machine split leaves the organizations' draws alone (separate SeedSequence streams).
    d = build_scenario(workload, n_orgs=5, n_machines=64, split="uniform", seed=9)
    assert d.jobs["org"].tolist() == a.jobs["org"].tolist()


# --- org maps ---------------------------------------------------------------------------------------------------

def write(tmp_path: Path, text: str, name: str = "map.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_org_map_overrides_the_draw(tmp_path) -> None:
    path = write(tmp_path, "user,org\n# the two users\n4, 2\n\n9,0\n17,1\n")
    scenario = build_scenario(small_workload(), n_orgs=3, org_map=path, split="even")
    assert dict(zip(scenario.jobs["job"], scenario.jobs["org"], strict=True)) == {1: 2, 2: 2, 3: 0}


@pytest.mark.parametrize(("text", "prefix"), [
    ("usr,org\n4,0\n9,1\n", ":1: field header: header is 'usr,org'; expected 'user,org'"),
    ("user,org\n4,0\n9,1,2\n", ":3: expected 2 comma-separated fields 'user,org', got 3"),
    ("user,org\nfour,0\n9,1\n", ":2: field user: 'four' is not an integer"),
    ("user,org\n4,0\n9,3\n", ":3: field org: 3 is out of range; expected 0..2"),
    ("user,org\n4,0\n9,-1\n", ":3: field org: -1 is out of range"),
    ("user,org\n4,0\n9,x\n", ":3: field org: 'x' is a name while line 2 gives an organization number"),
    ("group,org\n4,0\n", ":1: field header: header is 'group,org'; expected 'user,org' or 'key,org'"),
    ("user,org\n4,a\n9,b\n17,c\n18,d\n", ": field org: 4 organizations named (a, b, c, d) for 3 organizations"),
    ("user,org\n4,0\n\n4,1\n9,1\n", ":4: field user: user 4 is mapped again (first on line 2)"),
    ("user,org\n4,0\n", ": field user: 1 user id(s) of the workload are not in the map: 9;"),
    ("", ":1: the organization map is empty; expected 'user,org'"),
])
def test_org_map_errors_name_file_line_and_field(tmp_path, text, prefix) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        build_scenario(small_workload(), n_orgs=3, org_map=path)
    assert str(info.value).startswith(f"{path}{prefix}")


def test_org_map_in_audit_s_format_names_its_organizations(tmp_path) -> None:
    """The one --org-map format of compare and audit: header 'key,org' optional, organizations by name."""
    by_name = write(tmp_path, "key,org\n4,physics\n9,biology\n17,physics\n")
    scenario = build_scenario(small_workload(), n_orgs=3, org_map=by_name, split="even")
    # names numbered in sorted order: biology 0, physics 1
    assert dict(zip(scenario.jobs["job"], scenario.jobs["org"], strict=True)) == {1: 1, 2: 1, 3: 0}
    no_header = write(tmp_path, "4,2\n9,0\n17,1\n4,2\n", name="plain.csv")  # a repeated identical line is kept once
    scenario = build_scenario(small_workload(), n_orgs=3, org_map=no_header, split="even")
    assert dict(zip(scenario.jobs["job"], scenario.jobs["org"], strict=True)) == {1: 2, 2: 2, 3: 0}


def test_org_map_for_groups_needs_a_group_header(tmp_path) -> None:
    with pytest.raises(InputError, match="expected 'group,org'"):
        build_scenario(small_workload(), n_orgs=3, orgs_by="group", org_map=write(tmp_path, "user,org\n-1,0\n"))
    scenario = build_scenario(small_workload(), n_orgs=3, orgs_by="group", org_map=write(tmp_path, "group,org\n-1,2\n"))
    assert scenario.jobs["org"].tolist() == [2, 2, 2]


def test_missing_org_map_file(tmp_path) -> None:
    with pytest.raises(InputError, match="cannot read the organization map"):
        build_scenario(small_workload(), n_orgs=3, org_map=tmp_path / "absent.csv")


# --- jobs table -------------------------------------------------------------------------------------------------

def test_release_processing_time_and_copies() -> None:
    workload = small_workload(submit=(10.0, 10.5, 12.9, 12.2), run=(3.0, 0.5, 7.2, 1.0), processors=(1, 2, 1, 4),
                              users=(4, 4, 9, 9), job_numbers=(5, 3, 8, 7))
    scenario = build_scenario(workload, n_orgs=2, split="even")
    assert list(scenario.jobs.columns) == list(SCENARIO_COLUMNS)
    assert all(dtype == np.int64 for dtype in scenario.jobs.dtypes)
    # release = floor(submit - 10), sorted by (release, job): (0, 3), (0, 5), (2, 7), (2, 8).
    assert scenario.jobs[["job", "release", "processing_time", "copies"]].to_numpy().tolist() == [
        [3, 0, 1, 2], [5, 0, 3, 1], [7, 2, 1, 4], [8, 2, 8, 1]]
    assert scenario.time_origin == 10.0
    assert scenario.n_machines == 6  # header MaxProcs
    shifted = build_scenario(workload, n_orgs=2, split="even", time_origin=4.5, horizon=100)
    # floor(submit - 4.5): job 5 -> 5, job 3 -> 6, job 7 -> 7, job 8 -> 8 (now job 5 comes first).
    assert shifted.jobs[["job", "release"]].to_numpy().tolist() == [[5, 5], [3, 6], [7, 7], [8, 8]]
    assert shifted.horizon == 100 and shifted.time_origin == 4.5


def test_jobs_before_the_origin_are_refused() -> None:
    with pytest.raises(ConfigError, match="2 job"):
        build_scenario(small_workload(), time_origin=11.0, n_orgs=2)


def test_jobs_the_model_cannot_run_are_refused_with_counts() -> None:
    workload = small_workload(submit=(0.0, 1.0, 2.0, 3.0), run=(-1.0, 0.0, 5.0, 5.0), processors=(1, 1, 0, 1),
                              users=(1, 2, 3, 4))
    with pytest.raises(ConfigError, match=r"2 job\(s\) have no run time > 0 and 1 no processors >= 1.*clean"):
        build_scenario(workload, n_orgs=2)


def test_machine_count_defaults() -> None:
    assert build_scenario(small_workload(header=(("MaxProcs", "70 (dual)"),)), n_orgs=5).n_machines == 70
    assert build_scenario(small_workload(header=()), n_orgs=2).n_machines == 2  # the widest job
    assert build_scenario(small_workload(), n_orgs=3, split="2,2,3").n_machines == 7  # explicit counts define m
    assert build_scenario(small_workload(), n_orgs=3, n_machines=9).n_machines == 9
    with pytest.raises(ConfigError, match="6 machines cannot be split among 7"):
        build_scenario(small_workload(), n_orgs=7)


@pytest.mark.parametrize(("options", "message"), [
    ({"n_orgs": 0}, "n_orgs=0"), ({"orgs_by": "project"}, "expected one of user, group, queue"),
    ({"seed": -1}, "seed=-1"), ({"horizon": -5}, "horizon=-5"), ({"time_origin": float("nan")}, "time_origin"),
])
def test_bad_options(options, message) -> None:
    with pytest.raises(ConfigError, match=message):
        build_scenario(small_workload(), **options)


def test_describe_counts_per_org() -> None:
    scenario = scenario_from_arrays(release=[0, 0, 1, 4], processing_time=[3, 2, 1, 5], org=[0, 1, 0, 2],
                                    machines_per_org=[1, 2, 1], copies=[1, 2, 1, 3])
    summary = describe(scenario)
    assert summary["machines_per_org"] == [1, 2, 1]
    assert summary["jobs_per_org"] == [2, 1, 1]
    assert summary["sequential_jobs_per_org"] == [2, 2, 3]
    assert summary["work_per_org"] == [4, 4, 15]
    assert (summary["n_jobs"], summary["n_sequential_jobs"], summary["work"]) == (4, 7, 23)
    assert (summary["n_orgs"], summary["n_machines"], summary["last_release"]) == (3, 4, 4)


# --- real data --------------------------------------------------------------------------------------------------

@pytest.mark.traces
def test_lpc_egee_users_into_five_orgs() -> None:
    swf = pytest.importorskip("fairsched.workload.swf")
    clean = pytest.importorskip("fairsched.workload.clean")
    raw = swf.read_swf(trace_path("LPC-EGEE-2004-1.2-cln.swf.gz"))
    with pytest.raises(ConfigError, match="Clean the workload first"):
        build_scenario(raw)
    workload, _ = clean.clean(raw)
    scenario: Scenario = build_scenario(workload, n_orgs=5, seed=0)
    jobs = workload.jobs
    assert scenario.n_orgs == 5 and scenario.n_machines == 140  # header MaxProcs
    assert scenario.machines_per_org.min() >= 1
    assert len(scenario.jobs) == len(jobs) and scenario.jobs["release"].iloc[0] == 0
    assert scenario.jobs["release"].is_monotonic_increasing
    users = jobs.set_index("job_number")["user_id"].loc[scenario.jobs["job"]].to_numpy()
    per_user = pd.Series(scenario.jobs["org"].to_numpy()).groupby(users).nunique()
    assert per_user.max() == 1 and len(per_user) > 40
    assert scenario.jobs["org"].nunique() == 5
    work = int((np.ceil(jobs["run_time"]) * jobs["processors"]).sum())
    assert describe(scenario)["work"] == work
