"""The openshop schedule validator: engine schedules pass; schedules broken on purpose, one rule at a time, are
caught with a sentence naming the task, job, machine and time."""

from __future__ import annotations

import numpy as np
import pytest

from fairsched.errors import InvalidScheduleError
from fairsched.openshop.engine import evaluate_permutation
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.policies import sptf
from fairsched.openshop.validate import validate_openshop_schedule

# tasks: 0=(j0,m0,3) 1=(j0,m1,1) 2=(j1,m0,1) 3=(j1,m1,2) 4=(j2,m0,4); job 3 has no task
INST = OpenShopInstance.from_tasks(2, [0, 2, 4, 5, 5], [0, 1, 0, 1, 0], [3, 1, 1, 2, 4], arrival=[0, 0, 1, 2],
                                   job_id=[10, 11, 12, 13])
GOOD_START = [1, 2, 0, 0, 4]  # permutation (1, 0, 2): m0 j1 [0,1) j0 [1,4) j2 [4,8); m1 j1 [0,2) j0 [2,3)
GOOD_COMPLETION = [4, 2, 8, 2]


def schedule(start=GOOD_START, completion=GOOD_COMPLETION, algorithm="") -> OpenShopSchedule:
    return OpenShopSchedule(np.array(start), np.array(completion), algorithm)


def test_engine_schedules_pass() -> None:
    validate_openshop_schedule(INST, schedule())
    rng = np.random.default_rng(1)
    for _ in range(20):
        validate_openshop_schedule(INST, evaluate_permutation(INST, rng.permutation(4)))
    validate_openshop_schedule(INST, sptf.sptf(INST))


@pytest.mark.parametrize(("start", "completion", "fragment"), [
    ([1, 2, 0, 0, 3], [4, 2, 7, 2], "machine 0 runs task 0 (job 10) during [1, 4) and task 4 (job 12) from t=3"),
    ([1, 2, 0, 1, 4], [4, 3, 8, 2], "machine 1 runs task 3 (job 11) during [1, 3) and task 1 (job 10) from t=2"),
    ([1, 2, 0, 0, 0], [4, 2, 4, 2], "task 4 (job 12, machine 0) starts at t=0, before its job arrives at t=1"),
    ([1, 2, -1, 0, 4], [4, 2, 8, 2], "task 2 (job 11) starts at t=-1 < 0"),
    ([1, 2, 0, 0, 4], [4, 3, 8, 2], "job 11 is said to complete at t=3, but its last task ends at t=2"),
    ([1, 2, 0, 0, 4], [4, 2, 8, 5], "job 13 has no task and should complete at its arrival t=2, not t=5"),
    ([1, 2, 0, 0], [4, 2, 8, 2], "task_start has shape (4,) and dtype int64; expected 5 integers (one per task)"),
    ([1.0, 2, 0, 0, 4], [4, 2, 8, 2], "task_start has shape (5,) and dtype float64"),
    ([1, 2, 0, 0, 4], [4, 2, 8], "completion has shape (3,)"),
])
def test_broken_schedules_are_named(start, completion, fragment: str) -> None:
    with pytest.raises(InvalidScheduleError, match="breaks the openshop model's rules") as caught:
        validate_openshop_schedule(INST, schedule(start, completion))
    assert fragment in str(caught.value)


def test_every_violation_is_counted() -> None:
    """All tasks at t=-1 on top of each other: 5 negative starts, 3 overlaps, 4 wrong completions (12)."""
    with pytest.raises(InvalidScheduleError, match=r"of bad \(test\) breaks .* in 12 place\(s\)") as caught:
        validate_openshop_schedule(INST, schedule([-1] * 5, [0, 0, 0, 0], algorithm="bad (test)"))
    assert "task 4 (job 12) starts at t=-1 < 0" in str(caught.value)


def test_many_violations_of_one_kind_are_summarized() -> None:
    inst = OpenShopInstance.from_dense(np.ones((13, 1), dtype=np.int64))
    with pytest.raises(InvalidScheduleError, match=r"in 12 place\(s\)") as caught:
        validate_openshop_schedule(inst, schedule([0] * 13, [1] * 13))
    assert str(caught.value).count("machine 0 runs task") == 10
    assert "... and 2 more overlaps (not listed)" in str(caught.value)
