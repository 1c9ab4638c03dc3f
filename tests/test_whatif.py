"""`fairsched.audit.whatif`: a log replayed under other policies, measured as the audit measures the recorded one.

A four-job log computed by hand (tests/data/whatif/tiny.sacct.txt, two CPUs), then the real Slurm log of the
micro cluster (../shared/traces/slurm): ``recorded`` reproduces the audit, ``fcfs`` under EASY is the audit
game's grand-coalition replay, usage shares sum to 1, shares come from the cluster's association tree.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fairsched.audit import AuditConfig, run_audit
from fairsched.audit.whatif import WhatifConfig, run_whatif
from fairsched.audit.whatif_setup import parse_duration, parse_weights
from fairsched.errors import ConfigError, InputError, UnknownPolicyError
from tests.conftest import trace_path

DATA = Path(__file__).parent / "data" / "whatif"
TINY = DATA / "tiny.sacct.txt"
MICRO = "slurm/micro-cluster-real-slurm.sacct.txt"


def _org(result, policy: str, org: str) -> dict:
    rows = result.orgs[(result.orgs["policy"] == policy) & (result.orgs["org"] == org)]
    assert len(rows) == 1, (policy, org)
    return rows.iloc[0].to_dict()


# -- four jobs, by hand ----------------------------------------------------------------------------------------
# job  acct   submit  run  CPUs  limit  recorded start
#  1   acctA     0    100    2    120        0
#  2   acctB    10     50    1     60      200
#  3   acctA    20     10    1     30      100
#  4   acctA    30    100    2    100      250
# The pool: 2 CPUs (the peak), one each (equal shares). t_end = 350, the last recorded end.
# FCFS + EASY: 1 at 0; 2 and 3 at 100 (1 ends); 4 at 150 (3 ended at 110, 2 at 150).

@pytest.fixture(scope="module")
def tiny():
    return run_whatif(WhatifConfig(log=TINY, policies=("recorded", "fcfs", "drf"), fst_sample=0))


def test_tiny_log_waits_by_hand(tiny) -> None:
    assert _org(tiny, "recorded", "acctA")["mean_wait"] == pytest.approx((0 + 80 + 220) / 3)
    assert _org(tiny, "recorded", "acctB")["mean_wait"] == 190
    assert _org(tiny, "recorded", "acctA")["p95_wait"] == pytest.approx(80 + 0.9 * (220 - 80))  # linear, numpy's
    assert _org(tiny, "fcfs", "acctA")["mean_wait"] == pytest.approx((0 + 80 + 120) / 3)
    assert _org(tiny, "fcfs", "acctB")["mean_wait"] == 90
    fcfs = tiny.jobs[tiny.jobs["policy"] == "fcfs"]
    assert fcfs["start"].tolist() == [0, 100, 100, 150]
    assert tiny.summary["cpus"] == 2 and tiny.summary["t_end"] == 350


def test_tiny_log_usage_and_gap_by_hand(tiny) -> None:
    # CPU-seconds: A 2·100 + 10 + 2·100 = 410, B 50, in every schedule (all end before t_end)
    for policy in ("recorded", "fcfs", "drf"):
        assert _org(tiny, policy, "acctA")["cpu_seconds"] == 410
        assert _org(tiny, policy, "acctA")["usage_share"] == pytest.approx(410 / 460)
    # ψsp at 350 under FCFS: job 1 2·(100·350 − 4950), job 3 10·250 − 45, job 4 2·(100·200 − 4950), job 2 50·250 − 1225
    assert _org(tiny, "fcfs", "acctA")["psi"] == 60100 + 2455 + 30100
    assert _org(tiny, "fcfs", "acctB")["psi"] == 11275
    assert tiny.summary["v_grand"] == 103930
    # alone on one CPU: A runs only job 3 (10·330 − 45 = 3255), B job 2 (50·340 − 1225 = 15775)
    phi_a = (3255 + 103930 - 15775) / 2
    assert _org(tiny, "fcfs", "acctA")["fair_psi"] == pytest.approx(phi_a)          # FCFS+EASY is the game's σ[N]
    assert _org(tiny, "fcfs", "acctA")["gap"] == pytest.approx((92655 - phi_a) / 460)
    # recorded: job 4 at 250 gives 2·(100·100 − 4950), job 2 at 200 gives 50·150 − 1225; Σψ = 78930
    fair = phi_a * 78930 / 103930
    assert _org(tiny, "recorded", "acctA")["gap"] == pytest.approx((72655 - fair) / 460)
    assert _org(tiny, "recorded", "acctA")["subsidy"] == "subsidized"


def test_tiny_log_fair_start_times_by_hand(tiny) -> None:
    # recorded: job 2 could have started at 100 (FCFS+EASY from the state at its submission), started at 200;
    # job 4 at 150, started at 250. FCFS itself is never late against FCFS.
    for org in ("acctA", "acctB"):
        row = _org(tiny, "recorded", org)
        assert (row["fst_strict_late"], row["fst_strict_delay"]) == (1, 100)
        assert _org(tiny, "fcfs", org)["fst_strict_late"] == 0


# -- the real micro cluster ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def micro():
    log = trace_path(MICRO)
    audit = run_audit(AuditConfig(log=log, fst_sample=100))
    whatif = run_whatif(WhatifConfig(log=log, policies=("recorded", "fcfs", "directcontr"), fst_sample=100))
    return audit, whatif


def test_recorded_reproduces_the_audit(micro) -> None:
    audit, whatif = micro
    for row in audit.orgs.to_dict(orient="records"):
        mine = _org(whatif, "recorded", row["org"])
        for ours, theirs in (("cpu_seconds", "cpu_seconds"), ("usage_share", "usage_share"), ("gap", "gap"),
                             ("psi", "psi"), ("fair_psi", "fair_psi"), ("mean_wait", "pool_mean_wait"),
                             ("mean_bsld", "pool_mean_bsld"), ("fairshare_factor", "fairshare_factor"),
                             ("decayed_usage_share", "decayed_usage_share"), ("entitled_share", "entitled_share"),
                             ("fst_strict_late", "fst_strict_late"), ("fst_relaxed_delay", "fst_relaxed_delay")):
            expected = row[theirs]
            assert mine[ours] == (expected if isinstance(expected, int) else pytest.approx(expected)), ours
    assert whatif.summary["v_grand"] == audit.summary["v_grand"]


def test_fcfs_under_easy_is_the_audit_games_grand_coalition(micro) -> None:
    audit, whatif = micro
    for row in audit.orgs.to_dict(orient="records"):
        assert _org(whatif, "fcfs", row["org"])["psi"] == row["replay_psi"]
        assert _org(whatif, "fcfs", row["org"])["fair_psi"] == pytest.approx(row["phi"])
    fcfs = whatif.policies.set_index("policy").loc["fcfs"]
    assert fcfs["mean_wait"] == pytest.approx(audit.summary["replay_mean_wait"])
    gaps = whatif.orgs.loc[whatif.orgs["policy"] == "fcfs", "gap"]
    assert abs(gaps.sum()) < 1e-9 * gaps.abs().max()   # exact φ: Σψ = v(N), the gaps sum to 0


def test_usage_shares_sum_to_one_and_cpu_seconds_to_the_work_done(micro) -> None:
    _, whatif = micro
    assert set(whatif.orgs["policy"]) == {"recorded", "fcfs", "directcontr"}
    for policy, rows in whatif.orgs.groupby("policy"):
        assert rows["usage_share"].sum() == pytest.approx(1.0, abs=1e-12)
        p_tot = whatif.policies.set_index("policy").loc[policy, "p_tot"]
        assert rows["cpu_seconds"].sum() == p_tot    # CPU-seconds up to t_end = units done by t_end
        assert rows["jobs"].sum() == 500
    over = whatif.usage_over_time
    totals = over.groupby(["policy", "time"])["decayed_share"].sum()
    assert np.allclose(totals[totals > 0], 1.0)


def test_directcontr_serves_the_lagging_account_first(micro) -> None:
    """account1 used 62% with an entitlement of 50%: DIRECTCONTR makes account2 wait less than FCFS does."""
    _, whatif = micro
    assert _org(whatif, "directcontr", "account2")["mean_wait"] < _org(whatif, "fcfs", "account2")["mean_wait"]
    assert _org(whatif, "directcontr", "account1")["mean_wait"] > _org(whatif, "fcfs", "account1")["mean_wait"]


# -- shares from the association tree --------------------------------------------------------------------------
def test_tree_shares_of_the_micro_cluster() -> None:
    # three accounts with Fairshare=100: account0 (admin) has no job in the log, and is kept (as the audit keeps it)
    result = run_whatif(WhatifConfig(log=trace_path(MICRO), policies=("recorded",), tree=DATA / "micro_tree.csv",
                                     fst_sample=1))
    assert result.orgs["org"].tolist() == ["account0", "account1", "account2"]
    assert result.orgs["entitled_share"].to_numpy() == pytest.approx([1 / 3] * 3)
    assert result.orgs["jobs"].tolist() == [0, 313, 187] and result.summary["cpus_per_org"] == [40, 40, 40]
    assert result.notes[0] == ("Organizations with a share but no job in the window, kept (they own CPUs in the "
                               "game): account0.")
    assert "Slurm's normalized shares (NormShares) from the association tree" in result.notes[1]


def test_tree_equals_the_audit_given_the_same_tree_as_shares() -> None:
    log = trace_path(MICRO)
    audit = run_audit(AuditConfig(log=log, shares=str(DATA / "micro_tree.csv"), fst_sample=1))
    whatif = run_whatif(WhatifConfig(log=log, policies=("recorded",), tree=DATA / "micro_tree.csv", fst_sample=1))
    assert whatif.orgs["org"].tolist() == audit.orgs["org"].tolist()
    assert whatif.orgs["gap"].to_numpy() == pytest.approx(audit.orgs["gap"].to_numpy(), nan_ok=True)
    assert whatif.orgs["entitled_share"].tolist() == audit.orgs["entitled_share"].tolist()


def test_an_account_missing_from_the_tree_gets_the_default_share_and_is_named(tmp_path: Path) -> None:
    tree = tmp_path / "tree.csv"
    tree.write_text("account,user,parent,shares,raw_usage\naccount1,,root,100,\naccount1,user1,,1,\n")
    result = run_whatif(WhatifConfig(log=trace_path(MICRO), policies=("recorded",), tree=tree, fst_sample=1))
    assert result.orgs["entitled_share"].to_numpy() == pytest.approx([100 / 101, 1 / 101])
    assert result.notes[0].startswith(f"Not in the tree {tree}: account2; each gets the default share "
                                      "(Fairshare=1 under root)")


def test_a_bad_tree_is_one_file_line_error(tmp_path: Path) -> None:
    tree = tmp_path / "tree.csv"
    tree.write_text("account,user,parent,shares,raw_usage\naccount1,,nowhere,100,\n")
    with pytest.raises(InputError, match=rf"^{tree}:2: account 'account1' names unknown parent account 'nowhere'"):
        run_whatif(WhatifConfig(log=TINY, policies=("recorded",), tree=tree))


# -- the options -------------------------------------------------------------------------------------------------
def test_a_policy_this_build_lacks_is_refused_naming_the_available_ones() -> None:
    with pytest.raises(UnknownPolicyError, match=r"'nosuch' is not available in this build; available: recorded, "
                                                 r"fcfs, sjf, lxf, drf, directcontr, slurm-fair-tree, slurm-classic$"):
        WhatifConfig(log=TINY, policies=("recorded", "nosuch"))
    with pytest.raises(UnknownPolicyError, match=r"--backfill 'nosuch' is not available in this build; available: "
                                                 r"none, no-guarantee, easy, conservative"):
        WhatifConfig(log=TINY, backfill="nosuch")


def test_durations_weights_and_conflicting_flags() -> None:
    assert parse_duration("7d", "x") == 604800 and parse_duration("5min", "x") == 300
    assert parse_duration("12h", "x") == 43200 and parse_duration("90", "x") == 90
    config = WhatifConfig(log=TINY, half_life="1d", calc_period="2min")
    assert (config.half_life, config.calc_period) == (86400.0, 120)
    assert parse_weights("fairshare=10000,age=1000,jobsize=0")["fairshare"] == 10000
    assert config.priority().weight_fairshare == 10000 and config.priority().weight_age == 1000
    for bad, match in (({"half_life": "7x"}, "--half-life '7x'"), ({"calc_period": "1.5"}, "whole number"),
                       ({"weights": "nice=3"}, "KEY=INTEGER"), ({"weights": "age=-1"}, "age must be >= 0"),
                       ({"tree": DATA / "micro_tree.csv", "shares": "usage"}, "--tree and --shares"),
                       ({"policies": ("fcfs", "fcfs")}, "names fcfs twice")):
        with pytest.raises(ConfigError, match=match):
            WhatifConfig(log=TINY, **bad)


# -- the Slurm orders --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def slurm_micro():
    from fairsched.backfill.policies import order_names

    if "slurm-fair-tree" not in order_names():
        pytest.skip("this build has no Slurm orders")
    return run_whatif(WhatifConfig(log=trace_path(MICRO), policies=("fcfs", "slurm-fair-tree", "slurm-classic"),
                                   tree=DATA / "micro_tree.csv", fst_sample=1))


def test_slurm_orders_with_zero_weights_are_fcfs() -> None:
    """Every priority is then 1 (Slurm's floor): ties go by submission, as FCFS."""
    result = run_whatif(WhatifConfig(log=trace_path(MICRO), policies=("fcfs", "slurm-fair-tree", "slurm-classic"),
                                     weights="fairshare=0,age=0,jobsize=0", fst_sample=1))
    starts = {p: part["start"].tolist() for p, part in result.jobs.groupby("policy")}
    assert starts["slurm-fair-tree"] == starts["fcfs"] and starts["slurm-classic"] == starts["fcfs"]
    assert any("raw shares [1, 1]" in note for note in result.notes)


def test_slurm_orders_serve_the_account_under_its_share_first(slurm_micro) -> None:
    """account1 used 62% of the CPU time against a 50% share: its fair-share factor falls, account2 goes first."""
    for policy in ("slurm-fair-tree", "slurm-classic"):
        assert _org(slurm_micro, policy, "account2")["mean_wait"] < _org(slurm_micro, "fcfs", "account2")["mean_wait"]
        assert _org(slurm_micro, policy, "account1")["mean_wait"] > _org(slurm_micro, "fcfs", "account1")["mean_wait"]


def test_slurm_orders_use_the_users_of_the_tree(slurm_micro, tmp_path: Path) -> None:
    # the tree of the micro cluster names every (account, user) of the log: nothing added
    assert not any("association(s) of the log not in the tree" in note for note in slurm_micro.notes)
    tree = tmp_path / "accounts.csv"
    tree.write_text("account,user,parent,shares,raw_usage\naccount1,,root,100,\naccount2,,root,100,\n")
    result = run_whatif(WhatifConfig(log=trace_path(MICRO), policies=("slurm-fair-tree",), tree=tree, fst_sample=1))
    assert any(note.startswith("Slurm orders: 5 (account, user) association(s) of the log not in the tree were "
                               "added with the default share (Fairshare=1)") for note in result.notes)
