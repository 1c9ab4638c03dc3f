"""`fairsched audit`: hand-computed games, the real Slurm log, bad input, outputs, the CLI."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.audit import AuditConfig, run_audit
from fairsched.audit.fairness import gini, jain
from fairsched.audit.game import fifo_copies, psi_terms
from fairsched.report.audit import metrics_prom, write_audit_outputs
from fairsched.workload.sacct import read_sacct
from tests.conftest import run_main, trace_path

HEADER = "JobID|Account|User|Submit|Start|Elapsed|NCPUS|Timelimit|State"


def _sacct(tmp_path: Path, jobs: list[tuple[str, str, int, int, int, int]], name: str = "log.sacct") -> Path:
    """jobs: (id, account, submit, start, run, cpus) in seconds after 2021-01-01T00:00:00; limit = run."""
    def when(seconds: int) -> str:
        return f"2021-01-01T00:{seconds // 60:02d}:{seconds % 60:02d}"

    lines = [HEADER] + [f"{j}|{acc}|u{acc}|{when(s)}|{when(b)}|00:00:{r:02d}|{q}|00:00:{r:02d}|COMPLETED"
                        for j, acc, s, b, r, q in jobs]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _shares(tmp_path: Path, rows: dict[str, int], name: str = "shares.csv") -> Path:
    path = tmp_path / name
    path.write_text("org,cpus\n" + "".join(f"{k},{v}\n" for k, v in rows.items()))
    return path


# -- hand-computed games -----------------------------------------------------------------------------------------
TWO_ORGS = [("1", "a", 0, 0, 4, 1), ("2", "a", 0, 0, 2, 1), ("3", "b", 1, 2, 2, 1)]


@pytest.mark.parametrize("reference", ["backfill", "online"])
def test_two_organizations_by_hand(tmp_path, reference):
    """a owns 1 CPU and runs a1 (0-4) and a2 (0-2) on both; b owns 1 CPU, submits b1 at 1, which waits until 2.

    At t_end = 4: ψ_a = (4·4 − 6) + (2·4 − 1) = 17, ψ_b = 2·2 − 1 = 3.
    v(a) = 10 (a1 0-4, a2 not started), v(b) = 5 (b1 1-3), v(ab) = 20 (as recorded).
    φ_a = (10 + 20 − 5)/2 = 12.5, φ_b = (5 + 20 − 10)/2 = 7.5; p_tot = 8.
    """
    log = _sacct(tmp_path, TWO_ORGS)
    result = run_audit(AuditConfig(log=log, shares=str(_shares(tmp_path, {"a": 1, "b": 1})), reference=reference))
    orgs = result.orgs.set_index("org")
    assert orgs["psi"].tolist() == [17, 3]
    assert result.shapley.values == {0: 0, 1: 10, 2: 5, 3: 20}
    assert result.shapley.exact == (Fraction(25, 2), Fraction(15, 2))
    assert orgs["gap"].tolist() == [4.5 / 8, -4.5 / 8]
    assert orgs["alone_psi"].tolist() == [10, 5]
    assert orgs["better_alone"].tolist() == [False, True]      # b: 5 alone against 3 in the pool
    assert orgs["alone_mean_wait"].tolist() == [2.0, 0.0] and orgs["pool_mean_wait"].tolist() == [0.0, 1.0]
    assert result.verdicts[0].startswith("Better off alone: b ")
    if reference == "backfill":
        assert result.summary["delta_psi_over_ptot"] == 9 / 8  # Σ|ψ − φ| / p_tot


def test_three_organizations_by_hand(tmp_path):
    """a, b, c own 1 CPU each; b's two jobs use c's CPU while c's job (submitted at 2) waits until 3. t_end = 4.

    v(a)=9, v(b)=9+1=10, v(c)=2, v(ab)=19, v(ac)=11, v(bc)=19, v(abc)=28 (weights 1/3, 1/6, 1/6, 1/3):
    φ_a = 3 + 1.5 + 1.5 + 3 = 9; φ_b = 10/3 + 10/6 + 17/6 + 17/3 = 13.5; φ_c = 2/3 + 2/6 + 9/6 + 9/3 = 5.5.
    ψ = (9, 18, 1): c subsidized b by 4.5 units·s.
    """
    jobs = [("1", "a", 0, 0, 3, 1), ("2", "b", 0, 0, 3, 1), ("3", "b", 0, 0, 3, 1), ("4", "c", 2, 3, 1, 1)]
    log = _sacct(tmp_path, jobs)
    result = run_audit(AuditConfig(log=log, shares=str(_shares(tmp_path, {"a": 1, "b": 1, "c": 1}))))
    assert result.shapley.values == {0: 0, 1: 9, 2: 10, 3: 19, 4: 2, 5: 11, 6: 19, 7: 28}
    assert result.shapley.exact == (Fraction(9), Fraction(27, 2), Fraction(11, 2))
    assert result.orgs["psi"].tolist() == [9, 18, 1]
    assert result.orgs["gap"].tolist() == [0.0, 4.5 / 10, -4.5 / 10]   # p_tot = 3 + 3 + 3 + 1
    assert result.summary["v_grand"] == 28 and result.summary["sum_psi"] == 28
    late = result.jobs.set_index("job_id")
    assert late.loc["4", "fst_strict"] == 3 and late.loc["4", "start"] == 3   # c1 could not start earlier


def test_psi_and_fifo_kernels_by_hand():
    assert psi_terms(np.array([0, 0, 2]), np.array([4, 2, 2]), np.array([1, 1, 1]), 4).tolist() == [10, 7, 3]
    start, value = fifo_copies(np.array([0, 1]), np.array([3, 2]), np.array([2, 1]), 2, 4)
    assert start.tolist() == [0, 3] and value.tolist() == [2 * (3 * 4 - 3), 1 * 1]


def test_jain_and_gini_by_hand():
    assert jain(np.array([1.0, 3.0])) == 16 / 20
    assert gini(np.array([1.0, 3.0])) == 4 / (2 * 4 * 2)


# -- the real Slurm log ------------------------------------------------------------------------------------------
def test_micro_cluster_every_job_used_cpu_seconds_and_efficiency():
    path = trace_path("slurm/micro-cluster-real-slurm.sacct.txt")
    result = run_audit(AuditConfig(log=path))
    assert result.summary["jobs_read"] == result.summary["jobs_used"] == 500
    assert result.summary["skipped"] == {}
    jobs = read_sacct(path).jobs
    expected = (jobs["processors"] * jobs["run_time"]).groupby(jobs["account"]).sum()
    orgs = result.orgs.set_index("org")
    assert orgs["cpu_seconds"].to_dict() == expected.to_dict()
    assert orgs["members"].tolist() == ["account1", "account2"]
    assert sum(result.shapley.exact) == result.summary["v_grand"]          # efficiency, exactly
    assert result.summary["cpus"] == 120                                     # 10 nodes x 12 CPUs, all busy once
    assert result.orgs["fairshare_factor"].between(0, 1).all()
    # 22 jobs ask for 96 CPUs: neither account's 60 CPUs can run them alone, and the first verdict separates them
    # from the jobs that fit (tests/test_audit_messy_logs.py checks the whole verdict).
    assert orgs["alone_jobs_too_wide"].to_dict() == {"account1": 13, "account2": 9}
    assert "jobs wider than its own CPUs (account2 9)" in result.verdicts[0]


# -- bad input ---------------------------------------------------------------------------------------------------
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    empty = tmp_path / "empty.sacct"
    empty.write_text("")
    never = tmp_path / "never.sacct"
    never.write_text(HEADER + "\n1|a|ua|2021-01-01T00:00:00|Unknown|00:00:00|1|00:01:00|PENDING\n")
    log = _sacct(tmp_path, TWO_ORGS)
    partial_map = tmp_path / "map.csv"
    partial_map.write_text("key,org\na,x\nzzz,y\n")
    zero = tmp_path / "zero.csv"
    zero.write_text("org,share\na,0\nb,0\n")
    cases = {
        "empty log": ([str(empty)], r"empty\.sacct:1: "),
        "no started job": ([str(never)], r"never\.sacct: no job .* ever started"),
        "log key missing from the org map": ([str(log), "--org-map", str(partial_map)],
                                             r"map\.csv: 1 key\(s\) of the log are not in the org map .*unmapped-org"),
        "shares summing to 0": ([str(log), "--shares", str(zero)], r"do not sum to anything positive"),
        "bad record": ([str(_bad_record(tmp_path))], r"bad\.sacct:2: field Elapsed: "),
    }
    for what, (args, pattern) in cases.items():
        code, out, err = run_main(["audit", *args], capsys)
        assert code == 2, what
        assert out == "", what
        assert err.count("\n") == 1 and err.startswith("error: "), what
        assert pytest.importorskip("re").search(pattern, err), (what, err)


def _bad_record(tmp_path: Path) -> Path:
    path = tmp_path / "bad.sacct"
    path.write_text(HEADER + "\n1|a|ua|2021-01-01T00:00:00|2021-01-01T00:00:00|soon|1|00:01:00|COMPLETED\n")
    return path


def test_skip_bad_records_counts_in_the_json(tmp_path, capsys):
    path = tmp_path / "mixed.sacct"
    good = "|ua|2021-01-01T00:00:00|2021-01-01T00:00:00|00:00:05|1|00:01:00|COMPLETED"
    path.write_text(HEADER + f"\n1|a{good}\n2|b{good}\n3|b|ub|2021|x|y|1|1|COMPLETED\n4.batch|a{good}\n")
    code, out, err = run_main(["audit", str(path), "--skip-bad-records", "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["jobs_read"] == 2 and doc["jobs_used"] == 2
    assert doc["skipped"] == {"malformed value": 1, "job step (export with sacct -X)": 1}


# -- outputs and CLI ---------------------------------------------------------------------------------------------
def test_json_document_has_every_field(tmp_path, capsys):
    log = _sacct(tmp_path, TWO_ORGS)
    code, out, err = run_main(["audit", str(log), "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    for key in ("orgs", "jobs_read", "jobs_used", "skipped", "reference_scheduler", "shapley"):
        assert key in doc
    for org in doc["orgs"]:
        for key in ("org", "members", "jobs", "cpu_seconds", "entitled_share", "usage_share", "psi", "phi", "gap",
                    "alone_mean_wait", "pool_mean_wait"):
            assert key in org
    assert doc["orgs"][0]["members"] == ["a"]
    assert doc["shapley"]["method"] == "exact"


def test_sampled_shapley_has_an_interval_and_is_seeded(tmp_path):
    jobs = [(str(i), f"o{i % 4}", i, i, 3, 1) for i in range(8)]
    log = _sacct(tmp_path, jobs)
    config = AuditConfig(log=log, exact_up_to=2, samples=20, seed=3, fst_sample=0)
    first, again = run_audit(config), run_audit(config)
    assert first.shapley.method == "sampled"
    assert (first.shapley.low <= first.shapley.phi).all() and (first.shapley.phi <= first.shapley.high).all()
    assert first.shapley.phi.tolist() == again.shapley.phi.tolist()


def test_outputs_files_and_openmetrics(tmp_path):
    log = _sacct(tmp_path, TWO_ORGS)
    result = run_audit(AuditConfig(log=log))
    outputs = write_audit_outputs(result, tmp_path / "out", command="fairsched audit x")
    assert sorted(outputs) == sorted(["report.html", "orgs.csv", "jobs.csv", "report.json", "metrics.prom"])
    prom = outputs["metrics.prom"].read_text()
    assert prom.endswith("# EOF\n") and prom.count("# EOF") == 1
    assert 'fairsched_org_usage_share{org="a"} ' in prom
    assert 'fairsched_org_shapley_gap_seconds{org="b"} ' in prom
    for line in prom.splitlines()[:-1]:
        assert line.startswith("#") or len(line.split(" ")) == 2
    jobs = pd.read_csv(outputs["jobs.csv"])
    assert jobs.columns.tolist() == ["job_id", "org", "submit", "start", "end", "cpus", "wait", "fst_strict",
                                     "fst_relaxed", "re_deficit"]
    assert metrics_prom(result) == prom
    html = outputs["report.html"].read_text()
    assert "Sharing incentive" in html and "data:image/png;base64," in html and "http" not in html


def test_same_seed_same_bytes(tmp_path):
    log = _sacct(tmp_path, TWO_ORGS)
    pages = []
    for name in ("one", "two"):
        result = run_audit(AuditConfig(log=log, seed=7))
        outputs = write_audit_outputs(result, tmp_path / name, command="fairsched audit x")
        pages.append({k: re.sub(rb"run in [\d.,]+ s", b"", p.read_bytes())   # the run time, which varies
                      for k, p in outputs.items() if k != "report.json"})
    assert pages[0] == pages[1]


# -- Batsim jobs.csv ---------------------------------------------------------------------------------------------
JOBS_CSV = ("job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
            "final_state,starting_time,execution_time,finish_time,waiting_time\n")


def test_batsim_jobs_csv_is_sniffed_and_audited(tmp_path):
    """The two-organization case of `test_two_organizations_by_hand`, written by Batsim (one workload per org)."""
    path = tmp_path / "jobs.csv"
    path.write_text(JOBS_CSV + "a!1,a,p,0,1,4,1,COMPLETED_SUCCESSFULLY,0,4,4,0\n"
                               "a!2,a,p,0,1,2,1,COMPLETED_SUCCESSFULLY,0,2,2,0\n"
                               "b!3,b,p,1,1,2,1,COMPLETED_SUCCESSFULLY,2,2,4,1\n"
                               "b!4,b,p,2,1,2,0,REJECTED,-1,0,-1,-1\n")
    result = run_audit(AuditConfig(log=path, shares=str(_shares(tmp_path, {"a": 1, "b": 1}))))
    assert result.meta["format"] == "jobs-csv"
    assert result.shapley.values == {0: 0, 1: 10, 2: 5, 3: 20}
    assert result.orgs["psi"].tolist() == [17, 3]
    assert result.summary["jobs_used"] == 3 and result.orgs["jobs_never_started"].tolist() == [0, 1]


def test_batsim_jobs_csv_bad_value(tmp_path, capsys):
    path = tmp_path / "jobs.csv"
    path.write_text(JOBS_CSV + "a!1,a,p,zero,1,4,1,COMPLETED_SUCCESSFULLY,0,4,4,0\n")
    code, _, err = run_main(["audit", str(path)], capsys)
    assert code == 2 and "jobs.csv:2: field submission_time: 'zero' is not a number of seconds" in err
