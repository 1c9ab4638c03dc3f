"""Acceptance: the engine reproduces the pyss oracle schedules (../shared/oracles/pyss) job for job.

pyss "fcfs" = order fcfs with backfill none, "easy" = fcfs × easy, "cons" = fcfs × conservative; 10,000 jobs of
SDSC-SP2 and of CTC-SP2 each (README there). Every start time must be equal; the README's summary figures and
the validator are checked too. Skips cleanly when the oracle folder is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.backfill import jobs_from_workload, simulate
from fairsched.backfill.metrics import summary
from fairsched.backfill.policies.conservative import FULL_REPLAN
from fairsched.backfill.validate import check_backfill_schedule
from fairsched.workload.swf import read_swf

ORACLES_DIR = Path(os.environ.get("FAIRSCHED_ORACLES",
                                  Path(__file__).resolve().parents[2] / "shared" / "oracles" / "pyss"))
CASES = {"SDSC-SP2-1998-4.2-cln": 128, "CTC-SP2-1996-3.1-cln": 338}
POLICIES = {"fcfs": "none", "easy": "easy", "cons": "conservative"}
# README "Summary figures": mean wait (s), mean bounded slowdown (tau = 10 s), last end.
README_SUMMARY = {
    ("SDSC-SP2-1998-4.2-cln", "fcfs"): (36605.34, 256.682, 10196776),
    ("SDSC-SP2-1998-4.2-cln", "easy"): (8073.71, 24.802, 10158795),
    ("SDSC-SP2-1998-4.2-cln", "cons"): (8847.28, 32.478, 10151951),
    ("CTC-SP2-1996-3.1-cln", "fcfs"): (109959.57, 698.305, 3959308),
    ("CTC-SP2-1996-3.1-cln", "easy"): (12036.88, 44.294, 3754889),
    ("CTC-SP2-1996-3.1-cln", "cons"): (14571.46, 55.412, 3741273),
}


def oracle_path(name: str) -> Path:
    """Path of a file of the pyss oracle folder; skips the calling test cleanly when it is absent."""
    path = ORACLES_DIR / name
    if not path.exists():
        pytest.skip(f"pyss oracle file {name} not found in {ORACLES_DIR}")
    return path


@pytest.mark.traces
@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("case", list(CASES))
def test_engine_reproduces_pyss_job_for_job(case: str, policy: str) -> None:
    jobs = jobs_from_workload(read_swf(oracle_path(f"{case}.swf")))
    oracle = pd.read_csv(oracle_path(f"{case}.{policy}.csv"))
    assert jobs.n_processors == CASES[case]
    # Our reading of the clean SWF is pyss's: same jobs, run times, processors and requested times.
    for ours, theirs in ((jobs.job, "job_id"), (jobs.submit, "submit"), (jobs.run, "run"), (jobs.procs, "procs"),
                         (jobs.requested, "requested")):
        np.testing.assert_array_equal(ours, oracle[theirs].to_numpy())
    schedule = simulate(jobs, order="fcfs", backfill=POLICIES[policy]).schedule
    differ = np.flatnonzero(schedule["start"].to_numpy() != oracle["start"].to_numpy())
    assert differ.size == 0, (f"{differ.size} start times differ from pyss; first jobs "
                              f"{oracle['job_id'].to_numpy()[differ[:5]].tolist()}: ours "
                              f"{schedule['start'].to_numpy()[differ[:5]].tolist()}, pyss "
                              f"{oracle['start'].to_numpy()[differ[:5]].tolist()}")
    assert check_backfill_schedule(schedule, jobs, order="fcfs", backfill=POLICIES[policy]) == []
    if policy == "cons":  # the slow twin of the incremental re-planning too (tests/test_backfill_incremental.py)
        full = simulate(jobs, order="fcfs", backfill=FULL_REPLAN).schedule["start"].to_numpy()
        np.testing.assert_array_equal(full, oracle["start"].to_numpy())
    mean_wait, mean_bsld, last_end = README_SUMMARY[(case, policy)]
    figures = summary(schedule, jobs.n_processors)
    assert round(figures["mean_wait"], 2) == mean_wait
    assert round(figures["mean_bounded_slowdown"], 3) == mean_bsld
    assert figures["last_end"] == last_end
