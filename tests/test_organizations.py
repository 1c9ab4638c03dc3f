"""Who makes up each organization (``organizations.csv``) and where the default machine count comes from."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError
from fairsched.online import experiment as online_experiment
from fairsched.online.experiment import organizations_frame
from fairsched.report.online import organizations_table
from fairsched.scenario import build_scenario, default_machines
from fairsched.workload.model import Workload
from tests.conftest import run_main


def _workload(users: list[int], processors: list[int], run: list[float]) -> Workload:
    n = len(users)
    jobs = pd.DataFrame({"job_number": np.arange(1, n + 1), "submit_time": np.arange(n, dtype=np.float64),
                         "run_time": run, "processors": processors, "user_id": users})
    return Workload(jobs=jobs, source="hand")


def test_members_count_each_ids_jobs_copies_and_work() -> None:
    # user 4: jobs of 1 and 2 processors, 3 s and 0.5 s (-> 1 s): 2 jobs, 3 copies, 3*1 + 1*2 = 5 machine-s.
    # user 9: one job, 1 processor, 7.2 s (-> 8 s).
    scenario = build_scenario(_workload([4, 4, 9], [1, 2, 1], [3.0, 0.5, 7.2]), n_orgs=2, n_machines=3,
                              split="even", seed=0)
    members = scenario.members.set_index("id")
    assert members.loc[4, ["jobs", "sequential_jobs", "work"]].tolist() == [2, 3, 5]
    assert members.loc[9, ["jobs", "sequential_jobs", "work"]].tolist() == [1, 1, 8]
    job_org = scenario.jobs.set_index("job")["org"]
    assert members.loc[4, "org"] == job_org[1] == job_org[2] and members.loc[9, "org"] == job_org[3]
    assert scenario.orgs_by == "user"


def test_organizations_csv_lists_every_org_even_without_jobs() -> None:
    # Two users, four organizations: at least two organizations submit no job and still get a row.
    config = online_experiment.Config(orgs=4, machines=8, split="even", policies=("roundrobin",),
                                      reference="roundrobin")
    scenario = build_scenario(_workload([1, 1, 2], [1, 1, 1], [5.0, 5.0, 5.0]), n_orgs=4, n_machines=8,
                              split="even", seed=0)
    result = online_experiment.compare_scenario(scenario, config, 0)
    frame = organizations_frame(result)
    assert frame["org"].drop_duplicates().tolist() == [0, 1, 2, 3]
    assert (frame["machines"] == 2).all() and np.allclose(frame["machine_share"], 0.25)
    with_jobs = frame[frame["jobs"] > 0]
    assert sorted(with_jobs["id"].tolist()) == [1, 2] and with_jobs["jobs"].sum() == 3
    empty = frame[frame["jobs"] == 0]
    assert len(empty) == 4 - with_jobs["org"].nunique() and empty["id"].isna().all()
    assert (empty["member"] == "").all() and (with_jobs["member"] == "user").all()
    table = organizations_table(result)
    assert [row[0] for row in table.rows] == [0, 1, 2, 3]
    assert sum(row[4] for row in table.rows) == 3 and sum(row[6] == "no job" for row in table.rows) == len(empty)


def test_default_machines_rule() -> None:
    assert default_machines(_workload([1, 2], [3, 7], [1.0, 1.0])) == (
        7, "the widest job of hand (no MaxProcs header)")
    headed = Workload(jobs=_workload([1], [3], [1.0]).jobs, header=(("MaxProcs", "64"),), source="h.swf")
    assert default_machines(headed) == (64, "the MaxProcs header of h.swf")
    with pytest.raises(ConfigError, match="number of machines is unknown"):
        default_machines(_workload([1], [-1], [1.0]))


def _swf(path: Path, *, header: bool) -> Path:
    """No MaxProcs header (as METACENTRUM): an 8-processor job first, then 1-processor jobs of five users."""
    lines = ["; MaxProcs: 12"] if header else []
    rows = [(1, 0, 8, 1)] + [(j, 1_000 + 10 * j, 1, j % 5 + 2) for j in range(2, 12)]
    for job, submit, procs, user in rows:
        lines.append(f"{job} {submit} 0 50 {procs} -1 -1 {procs} 60 -1 1 {user} 1 -1 1 -1 -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(("header", "machines", "rule"), [
    (False, 8, "the widest job of {swf} (no MaxProcs header)"),
    (True, 12, "the MaxProcs header of {swf}"),
])
def test_compare_takes_m_from_the_whole_trace_not_the_window(header: bool, machines: int, rule: str,
                                                             tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # The window [1000, 2000) holds only 1-processor jobs: its widest job would give m = 1 < 5 organizations.
    swf = _swf(tmp_path / "t.swf", header=header)
    out = tmp_path / "out"
    code, stdout, err = run_main(["compare", "--trace", str(swf), "--window-start", "1000", "--window-length",
                                  "1000", "--policies", "rr", "--reference", "rr", "--out", str(out), "--json"],
                                 capsys)
    assert code == 0, err
    doc = json.loads(stdout)
    assert doc["scenario"]["n_machines"] == machines
    assert doc["scenario"]["machines_rule"] == rule.format(swf=swf)
    assert doc["outputs"]["organizations.csv"] == str(out / "organizations.csv")
    frame = pd.read_csv(out / "organizations.csv")
    assert frame["jobs"].sum() == 10 and frame.groupby("org")["machines"].first().sum() == machines
    page = (out / "report.html").read_text()
    assert "<h2>Organizations</h2>" in page and rule.format(swf=swf) in page
