"""``fairsched whatif`` with Slurm's schedulers: the ``slurm`` backfilling rule and its options, and the fair-share
orders started from the usage of an ``sshare -a -l -P`` dump (``--initial-usage tree``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fairsched.audit.whatif import WhatifConfig, run_whatif
from fairsched.backfill import BackfillJobs
from fairsched.backfill.engine import BackfillSimulator
from fairsched.backfill.policies._slurm import state_of
from fairsched.errors import ConfigError
from fairsched.fairshare import fair_tree
from fairsched.workload.sshare import read_share_tree
from tests.conftest import trace_path

DATA = Path(__file__).parent / "data"
SSHARE_24_4 = DATA / "fairshare" / "sshare_test24_4.txt"  # Slurm's own sshare output for testsuite test24.4
MICRO = "slurm/micro-cluster-real-slurm.sacct.txt"
MICRO_SSHARE = DATA / "whatif" / "micro_sshare.txt"  # hand-made: account1 used 5e6 CPU-s, account2 nothing


def _first_tick(initial_usage: bool) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The Fair Tree factors and each waiting job's key right after the first tick, one job per user of the dump."""
    tree = read_share_tree(SSHARE_24_4)
    users = [i for i, a in enumerate(tree.associations) if a.is_user]
    n = len(users)
    jobs = BackfillJobs.from_arrays(submit=[0] * n, run=[10] * n, procs=[1] * n, n_processors=1)
    fresh = BackfillSimulator(jobs, "slurm-fair-tree", "easy", order_params={
        "tree": tree, "assoc": np.array(users), "initial_usage": initial_usage, "calc_period": 5})
    fresh.run(pause_before=n - 1)  # after the tick at t = 0: every job but the last is queued (or started)
    return state_of(fresh.tick.opar, fresh.tick.ost)["fairshare"], fresh.key.copy(), users


def test_the_first_tick_starts_from_the_dumps_usage() -> None:
    factors, _, users = _first_tick(True)
    expected = [row.fairshare for row in fair_tree(read_share_tree(SSHARE_24_4)).rows]
    assert factors[users] == pytest.approx([expected[i] for i in users], abs=1e-12)
    # and so the dump's own FairShare column (Slurm's test24.4): uAA1 0.619048, uC1 0.047619, uD2 0.238095
    tree = read_share_tree(SSHARE_24_4)
    by_user = {tree.associations[i].user: factors[i] for i in users}
    assert (round(by_user["uAA1"], 6), round(by_user["uC1"], 6), round(by_user["uD2"], 6)) == (
        0.619048, 0.047619, 0.238095)


def test_from_zero_the_starting_priorities_differ() -> None:
    with_usage, key_usage, users = _first_tick(True)
    from_zero, key_zero, _ = _first_tick(False)
    assert not np.allclose(with_usage[users], from_zero[users])
    # each job's priority (key = -priority): 10000 x its user's factor + age 0, truncated
    n = len(users) - 1
    assert key_usage[:n].tolist() == [-int(10000 * with_usage[u]) for u in users[:n]]
    assert key_zero[:n].tolist() == [-int(10000 * from_zero[u]) for u in users[:n]]
    assert sum(a != b for a, b in zip(key_usage[:n], key_zero[:n], strict=True)) >= n // 2


def test_initial_usage_needs_a_tree() -> None:
    jobs = BackfillJobs.from_arrays(submit=[0], run=[1], procs=[1], n_processors=1)
    with pytest.raises(ConfigError, match="initial_usage takes the raw usages of a tree"):
        BackfillSimulator(jobs, "slurm-classic", "easy", order_params={"initial_usage": True})


@pytest.fixture(scope="module")
def micro_runs() -> dict[str, object]:
    log = trace_path(MICRO)
    runs = {}
    for usage in ("zero", "tree"):
        runs[usage] = run_whatif(WhatifConfig(log=log, policies=("slurm-fair-tree",), tree=MICRO_SSHARE,
                                              initial_usage=usage, fst_sample=1))
    runs["slurm"] = run_whatif(WhatifConfig(log=log, policies=("fcfs", "slurm-fair-tree"), tree=MICRO_SSHARE,
                                            backfill="slurm", fst_sample=1))
    return runs


def _mean_wait(result, policy: str, org: str) -> float:
    rows = result.orgs[(result.orgs["policy"] == policy) & (result.orgs["org"] == org)]
    return float(rows["mean_wait"].iloc[0])


def test_a_dump_with_past_usage_changes_who_goes_first(micro_runs) -> None:
    """account1 used 5e6 CPU-seconds before the log begins, account2 nothing: from the dump account2 waits less
    than when both start from zero, account1 more."""
    zero, tree = micro_runs["zero"], micro_runs["tree"]
    assert zero.jobs["start"].tolist() != tree.jobs["start"].tolist()
    assert _mean_wait(tree, "slurm-fair-tree", "account2") < _mean_wait(zero, "slurm-fair-tree", "account2")
    assert _mean_wait(tree, "slurm-fair-tree", "account1") > _mean_wait(zero, "slurm-fair-tree", "account1")
    assert tree.meta["initial_usage"] == "tree" and zero.meta["initial_usage"] == "zero"


def test_backfill_slurm_replays_and_records_its_parameters(micro_runs) -> None:
    result = micro_runs["slurm"]
    assert result.policies["backfill"].tolist() == ["slurm", "slurm"]
    assert (result.meta["bf_interval"], result.meta["bf_window"], result.meta["bf_max_job_test"]) == (30, 86400, 500)
    assert len(result.jobs) == 2 * int(result.summary["jobs_replayed"])


def test_slurm_rule_options_are_checked() -> None:
    log = trace_path(MICRO)
    config = WhatifConfig(log=log, backfill="slurm", bf_interval="1min", bf_window="2d", bf_max_job_test=50)
    assert dict(config.backfill_rule().params) == {"bf_interval": 60, "bf_window": 172800, "bf_max_job_test": 50}
    with pytest.raises(ConfigError, match="no effect with --backfill conservative"):
        WhatifConfig(log=log, backfill="conservative", bf_max_job_test=50)
    with pytest.raises(ConfigError, match="--bf-max-job-test 0: expected a whole number >= 1"):
        WhatifConfig(log=log, backfill="slurm", bf_max_job_test=0)
