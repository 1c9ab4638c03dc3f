"""Issue 20, "Organizations and shares as operators have them": each case on the real file it names.

* an ``--org-map`` naming users without jobs warns and counts; ``--unmapped-org`` gathers the log's unmapped keys;
  SWF "no user" is ``-1`` in maps, as in the trace (LPC-EGEE);
* ``--shares`` from the micro cluster's ``sacctmgr`` script: ``account0`` (Fairshare=100, no job) makes each
  account's share 1/3; the same tree as ``sacctmgr show assoc -P`` and ``sshare -a -l -P`` dumps, with Slurm's own
  FairShare/LevelFS shown beside ours;
* ``--top N`` pools the rest as ``(other)``; more than 62 organizations is an error naming ``--top``; sampled
  Shapley values report progress;
* usage in billing units when AllocTRES has ``billing=`` (sacct_dump2101.log), GPUs in DRF.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from fairsched.audit import AuditConfig, run_audit
from fairsched.audit.entitlement import OTHER
from fairsched.workload.sshare import read_share_tree
from tests.conftest import run_main, trace_path

MICRO = "slurm/micro-cluster-real-slurm.sacct.txt"
SCRIPT = "slurm/micro-cluster.sacctmgr.script"
FAST = {"fst_sample": 50}


@pytest.fixture(scope="module")
def micro_with_script():
    return run_audit(AuditConfig(log=trace_path(MICRO), shares=str(trace_path(SCRIPT)), **FAST))


# -- org maps ----------------------------------------------------------------------------------------------------
def test_an_org_map_of_every_member_warns_and_counts_the_users_without_jobs(tmp_path, capsys):
    org_map = tmp_path / "members.csv"  # admin (account0's only user) never ran a job in the log
    org_map.write_text("user,org\nuser1,chem\nuser2,chem\nuser3,chem\nuser4,phys\nuser5,phys\nadmin,chem\n"
                       "guest,phys\n")
    code, out, err = run_main(["audit", str(trace_path(MICRO)), "--org-by", "user", "--org-map", str(org_map),
                               "--fst-sample", "50", "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert [o["org"] for o in doc["orgs"]] == ["chem", "phys"]
    assert [o["jobs"] for o in doc["orgs"]] == [313, 187]
    assert doc["summary"]["warnings"] == ["The org map members.csv names 2 user key(s) without a job in the audit "
                                          "window (admin, guest); they are counted, not used."]


def test_unmapped_keys_go_to_the_organization_named_or_stop(tmp_path, capsys):
    org_map = tmp_path / "partial.csv"
    org_map.write_text("user,org\nuser1,chem\nuser2,chem\n")
    code, _, err = run_main(["audit", str(trace_path(MICRO)), "--org-by", "user", "--org-map", str(org_map)], capsys)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
    assert "3 key(s) of the log are not in the org map (first: 'user3')" in err and "--unmapped-org" in err
    result = run_audit(AuditConfig(log=trace_path(MICRO), org_by="user", org_map=org_map, unmapped_org="rest",
                                   **FAST))
    orgs = result.orgs.set_index("org")
    assert orgs.loc["chem", "jobs"] == 115 + 99 and orgs.loc["rest", "jobs"] == 99 + 101 + 86
    assert orgs.loc["rest", "members"] == "user3;user4;user5"
    assert "their 286 job(s) go to the organization 'rest'" in result.summary["warnings"][0]


@pytest.mark.traces
def test_swf_no_user_is_minus_one_in_maps_as_in_the_trace(tmp_path):
    """LPC-EGEE records user -1 for 14,194 jobs, the first one 0.56 days in."""
    from fairsched.workload.swf import read_swf

    path = trace_path("LPC-EGEE-2004-1.2-cln.swf.gz")
    jobs = read_swf(path).jobs
    first = int(jobs["submit_time"].min())
    window = jobs[jobs["submit_time"] < first + 86400]
    users = sorted({str(u) for u in window["user_id"].tolist()})
    assert "-1" in users
    org_map = tmp_path / "users.csv"
    org_map.write_text("user,org\n" + "".join(f"{u},{'nobody' if u == '-1' else 'somebody'}\n" for u in users))
    result = run_audit(AuditConfig(log=path, org_by="user", org_map=org_map, since=str(first),
                                   until=str(first + 86400), **FAST))
    orgs = result.orgs.set_index("org")
    assert orgs.loc["nobody", "members"] == "-1"
    assert orgs.loc["nobody", "jobs"] + orgs.loc["nobody", "jobs_never_started"] == int((window["user_id"] < 0).sum())


# -- shares as Slurm has them -------------------------------------------------------------------------------------
def test_the_micro_clusters_sacctmgr_script_gives_each_account_one_third(micro_with_script):
    """account0 has Fairshare=100 and no job: Slurm's share of account1 and account2 is 100/300, not 1/2."""
    orgs = micro_with_script.orgs.set_index("org")
    assert list(orgs.index) == ["account0", "account1", "account2"]
    assert np.allclose(orgs["entitled_share"], 1 / 3)
    assert orgs["jobs"].tolist() == [0, 313, 187] and orgs["cpus"].tolist() == [40, 40, 40]
    assert np.allclose(orgs["usage_ratio"], orgs["usage_share"] * 3)
    assert orgs.loc["account0", "usage"] == 0 and orgs.loc["account0", "fairshare_factor"] == 1.0
    # account0's 40 CPUs served the others: it gave, and the exact game still balances to the last integer
    assert orgs.loc["account0", "subsidy"] == "subsidizing" and orgs.loc["account0", "subsidy_cpu_hours"] < 0
    assert sum(micro_with_script.shapley.exact, Fraction(0)) == micro_with_script.summary["v_grand"]
    assert micro_with_script.verdicts[0].startswith("account0 ran no job in the window: its CPUs (40) served")
    assert micro_with_script.summary["orgs_without_jobs"] == ["account0"]


def test_the_script_reader_reads_every_add_line():
    tree = read_share_tree(trace_path(SCRIPT))
    accounts = {a.account: a.shares for a in tree.associations if a.user is None}
    users = {(a.account, a.user) for a in tree.associations if a.user is not None}
    assert accounts == {"root": 1, "account0": 100, "account1": 100, "account2": 100}
    assert users == {("account0", "admin"), ("account1", "user1"), ("account1", "user2"), ("account1", "user3"),
                     ("account2", "user4"), ("account2", "user5")}


SACCTMGR_DUMP = """Cluster|Account|User|Partition|Share|Priority|GrpJobs|GrpTRES|Par Name|QOS|Def QOS
micro|root|||1|||||normal|
micro|account0|||100||||root|normal|
micro|account0|admin||1|||||normal|
micro|account1|||100||||root|normal|
micro|account1|user1||1|||||normal|
micro|account2|||100||||root|normal|
micro|account2|user4||1|||||normal|
"""
# sshare -a -l -P as Slurm prints it for this tree (Fair Tree; usage in CPU-seconds, no decay), cut to its columns.
SSHARE_DUMP = """Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS
root|||0.000000|4477033||1.000000||
 account0||100|0.333333|0|0.000000|0.000000||inf
  account0|admin|1|1.000000|0|0.000000|0.000000|1.000000|inf
 account1||100|0.333333|2764680|0.617525|0.617525||0.539786
  account1|user1|1|1.000000|2764680|0.617525|1.000000|0.333333|1.000000
 account2||100|0.333333|1712353|0.382475|0.382475||0.871522
  account2|user4|1|1.000000|1712353|0.382475|1.000000|0.666667|1.000000
"""


@pytest.mark.parametrize("dump", [SACCTMGR_DUMP, SSHARE_DUMP], ids=["sacctmgr-P", "sshare-P"])
def test_sacctmgr_and_sshare_dumps_give_the_same_shares_as_the_script(tmp_path, micro_with_script, dump):
    path = tmp_path / "tree.txt"
    path.write_text(dump)
    result = run_audit(AuditConfig(log=trace_path(MICRO), shares=str(path), **FAST))
    assert np.allclose(result.orgs["entitled_share"], micro_with_script.orgs["entitled_share"])
    assert result.orgs["cpus"].tolist() == [40, 40, 40]


def test_slurms_own_levelfs_is_shown_beside_ours(tmp_path):
    path = tmp_path / "sshare.txt"
    path.write_text(SSHARE_DUMP)
    result = run_audit(AuditConfig(log=trace_path(MICRO), shares=str(path), **FAST))
    orgs = result.orgs.set_index("org")
    assert result.summary["slurm_reported"]
    assert orgs["slurm_level_fs"].tolist()[1:] == [0.539786, 0.871522] and orgs["slurm_norm_shares"].iat[1] == 0.333333
    # ours: S / U with U the decayed usage share (half-life 7 days over a 14-hour log: nearly the raw share)
    assert orgs.loc["account1", "level_fs"] == pytest.approx((1 / 3) / orgs.loc["account1", "decayed_usage_share"])
    assert orgs.loc["account1", "level_fs"] == pytest.approx(0.539786, rel=2e-3)
    assert np.isinf(orgs.loc["account0", "level_fs"])


def test_a_tree_needs_accounts_or_users(micro_with_script, tmp_path, capsys):
    code, _, err = run_main(["audit", str(trace_path(MICRO)), "--org-by", "partition", "--shares",
                             str(trace_path(SCRIPT))], capsys)
    assert code == 2 and "use --org-by account or user" in err


# -- more organizations than the game holds ----------------------------------------------------------------------
@pytest.mark.traces
def test_top_pools_the_rest_and_more_than_62_names_the_option(capsys):
    """SDSC-SP2 (first submit at 566,129 s) has 68 users before 30 days, 17 groups in its first 5 days. More than
    62 organizations: the online reference (64-bit coalitions) stops and names --top (issue 22: the backfill
    reference plays the sampled game with them, tests/test_audit_replay.py)."""
    path = trace_path("SDSC-SP2-1998-4.2-cln.swf.gz")
    code, _, err = run_main(["audit", str(path), "--org-by", "user", "--until", str(30 * 86400), "--reference",
                             "online"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "68 organizations (--org-by user)" in err and "pass --top N" in err
    until = str(566_129 + 5 * 86400)
    whole = run_audit(AuditConfig(log=path, org_by="group", until=until, exact_up_to=0, samples=2, **FAST))
    top = run_audit(AuditConfig(log=path, org_by="group", until=until, top=3, **FAST))
    assert whole.orgs.shape[0] == 17 and top.orgs.shape[0] == 4
    largest = whole.orgs.sort_values(["cpu_seconds", "org"], ascending=[False, True])["org"].tolist()
    assert sorted(top.orgs["org"]) == sorted([*largest[:3], OTHER])
    other = top.orgs.set_index("org").loc[OTHER]
    rest = whole.orgs[whole.orgs["org"].isin(largest[3:])]
    assert other["jobs"] == rest["jobs"].sum() and other["cpu_seconds"] == rest["cpu_seconds"].sum()
    assert other["members"].split(";") == sorted(";".join(rest["members"]).split(";"))
    assert other["entitled_share"] == pytest.approx(14 / 17)              # equal shares: 14 groups of 17 pooled
    assert any("--top 3" in w for w in top.summary["warnings"])


def test_sampled_shapley_reports_its_progress():
    seen = []
    run_audit(AuditConfig(log=trace_path(MICRO), shares=str(trace_path(SCRIPT)), exact_up_to=2, samples=4, **FAST),
              progress=lambda what, done, total: seen.append((what, done, total)))
    sampled = [(d, t) for w, d, t in seen if w == "coalitions (sampled permutations)"]
    assert sampled[-1] == (2 * 4 * 3, 2 * 4 * 3)                            # 4 permutations x 3 orgs x 2 reads
    assert len(sampled) > 3 and all(b[0] >= a[0] for a, b in pairwise(sampled))


# -- billing units, GPUs -----------------------------------------------------------------------------------------
def _dump2101(tmp_path: Path, edit=None) -> Path:
    text = trace_path("slurm/sacct_dump2101.log").read_text()
    path = tmp_path / "dump.log"
    path.write_text(edit(text) if edit else text)
    return path


def test_usage_is_in_billing_units_when_alloctres_has_billing(tmp_path):
    """sacct_dump2101.log's AllocTRES says billing=12,cpu=12,...: billing equals the CPUs there."""
    result = run_audit(AuditConfig(log=_dump2101(tmp_path), skip_bad_records=True, **FAST))
    assert result.summary["usage_unit"] == "billing-seconds"
    assert np.allclose(result.orgs["usage"], result.orgs["cpu_seconds"])
    doubled = run_audit(AuditConfig(log=_dump2101(tmp_path, lambda t: t.replace("billing=40,cpu=40",
                                                                                "billing=80,cpu=40")),
                                    skip_bad_records=True, **FAST)).orgs.set_index("org")
    plain = result.orgs.set_index("org")
    assert doubled.loc["account005", "usage"] == 2 * plain.loc["account005", "usage"]
    assert doubled.loc["account005", "cpu_seconds"] == plain.loc["account005", "cpu_seconds"]
    assert doubled.loc["account005", "usage_share"] > plain.loc["account005", "usage_share"]
    micro = run_audit(AuditConfig(log=trace_path(MICRO), **FAST))                # no AllocTRES there
    assert micro.summary["usage_unit"] == "CPU-seconds"


def test_gpus_are_a_resource_of_their_own_in_drf(tmp_path):
    log = _dump2101(tmp_path, lambda t: t.replace("billing=40,cpu=40,mem=180000M,node=1",
                                                  "billing=40,cpu=40,gres/gpu=2,mem=180000M,node=1"))
    result = run_audit(AuditConfig(log=log, skip_bad_records=True, **FAST))
    dominant = result.dominant_over_time
    mine = dominant[dominant["org"] == "account005"]
    assert mine["gpu_share"].max() == 1.0                                    # the only GPU job: all GPUs in use
    assert (mine["dominant_share"] >= mine["gpu_share"]).all()
