"""`fairsched.mosp.validate.validate_mosp_schedule` on schedules broken on purpose, one rule at a time (TPDS'11 §2)."""

from __future__ import annotations

import numpy as np
import pytest

from fairsched.errors import InvalidScheduleError
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.policies.local import local_schedule
from fairsched.mosp.validate import validate_mosp_schedule

# Clusters of 2 and 1 processors. Org 0: jobs 0 (p=2, q=2) and 1 (p=1, q=1); org 1: jobs 2 and 3 (p=1, q=1).
# HF local: job 0 at 0, job 1 at 2 (org 0 ends at 3); jobs 2 and 3 at 0 and 1 (org 1 ends at 2).
INST = MospInstance.from_arrays(procs=[2, 1], owner=[0, 0, 1, 1], runtime=[2, 1, 1, 1], width=[2, 1, 1, 1],
                                job_id=[10, 11, 12, 13])


def schedule(cluster: list[int], start: list[int], algorithm: str = "test") -> MospSchedule:
    return MospSchedule(cluster=np.array(cluster), start=np.array(start), algorithm=algorithm)


GOOD = schedule([0, 1, 1, 1], [0, 2, 0, 1])  # job 11 migrates to cluster 1 after org 1's jobs: nobody loses


def test_valid_schedules_pass() -> None:
    validate_mosp_schedule(INST, local_schedule(INST))
    validate_mosp_schedule(INST, GOOD, makespan_bound=3, delay_reference=local_schedule(INST))


def test_touching_jobs_share_processors() -> None:
    """[start, end): job 0 ends at 2, when job 1 starts on the same processors."""
    validate_mosp_schedule(INST, schedule([0, 0, 1, 1], [0, 2, 0, 1]))


@pytest.mark.parametrize(("bad", "message"), [
    (schedule([0, 0, 1], [0, 2, 0]), r"expected one integer cluster and one integer start per job \(4 jobs\)"),
    (MospSchedule(cluster=np.array([0, 0, 1, 1]), start=np.array([0.0, 2.0, 0.0, 1.0])), "integer start"),
    (schedule([0, 0, 2, 1], [0, 2, 0, 1]), r"job 12 \(row 2\) runs on cluster 2; expected one of the clusters 0..1"),
    (schedule([0, 0, 1, 1], [0, 2, -1, 1]), r"job 12 \(row 2\) starts at t=-1"),
    (schedule([1, 0, 1, 1], [0, 2, 2, 3]), r"job 10 \(row 0\) needs 2 processors but runs on cluster 1 of 1"),
    (schedule([0, 0, 1, 1], [0, 1, 0, 1]), r"at t=1 cluster 0 runs jobs \[10, 11\] using 3 processors, more than"),
    (schedule([0, 0, 1, 1], [0, 2, 0, 0]), r"at t=0 cluster 1 runs jobs \[12, 13\] using 2 processors"),
    (schedule([0, 0, 1, 1], [0, 3, 0, 1]), r"organization 0 finishes at t=4, later than t=3 with its local hf"),
])
def test_each_broken_rule_is_reported(bad: MospSchedule, message: str) -> None:
    with pytest.raises(InvalidScheduleError, match=message):
        validate_mosp_schedule(INST, bad)


def test_makespan_bound() -> None:
    with pytest.raises(InvalidScheduleError, match=r"C_max = 3 \(job 11\) exceeds the bound 2.5"):
        validate_mosp_schedule(INST, GOOD, makespan_bound=2.5)
    validate_mosp_schedule(INST, GOOD, makespan_bound=3.0 - 1e-12)  # LB rounding: 3LB computed as 2.9999999999


def test_delay_reference() -> None:
    reference = local_schedule(INST)  # starts 0, 2, 0, 1
    validate_mosp_schedule(INST, GOOD, delay_reference=reference)  # same starts, job 11 on another cluster
    late = schedule([0, 0, 1, 1], [0, 2, 1, 0])  # jobs 12 and 13 swapped: job 12 starts at 1, not 0
    with pytest.raises(InvalidScheduleError, match=r"job 12 \(row 2\) starts at t=1, later than t=0 in the ref"):
        validate_mosp_schedule(INST, late, delay_reference=reference)
    with pytest.raises(InvalidScheduleError, match="the delay reference has 3 starts for 4 jobs"):
        validate_mosp_schedule(INST, GOOD, delay_reference=schedule([0, 0, 1], [0, 2, 0]))


def test_local_constraint_follows_the_local_order_and_can_be_switched_off() -> None:
    # Cluster of 3; org 0: (p, q) = (3, 2), (1, 1), (1, 1), (3, 1): HF makespan 5, SPT makespan 4.
    inst = MospInstance.from_arrays(procs=[3], owner=[0, 0, 0, 0], runtime=[3, 1, 1, 3], width=[2, 1, 1, 1])
    hf = local_schedule(inst)
    validate_mosp_schedule(inst, hf)
    with pytest.raises(InvalidScheduleError, match="finishes at t=5, later than t=4 with its local spt"):
        validate_mosp_schedule(inst, hf, local_order="spt")
    validate_mosp_schedule(inst, hf, local_order="spt", local_constraint=False)


def test_every_violation_is_listed() -> None:
    broken = schedule([0, 0, 1, 1], [0, 1, -1, 5])
    with pytest.raises(InvalidScheduleError) as caught:
        validate_mosp_schedule(INST, broken, makespan_bound=4)
    text = str(caught.value)
    assert "of test breaks the MOSP model's rules in 4 place(s)" in text
    for part in ("starts at t=-1", "at t=1 cluster 0", "organization 1 finishes at t=6", "exceeds the bound 4"):
        assert part in text
