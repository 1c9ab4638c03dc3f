"""Independent checks of multi-task job schedules (Networking'20) against their instance; never the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fairsched._validation import (
    DEFAULT_MAX_MESSAGES,
    SHOWN_IN_ERROR,
    Findings,
    argsort_stable,
    overlaps_kernel,
    violations,
)

if TYPE_CHECKING:
    from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule


def check_openshop_schedule(instance: OpenShopInstance, schedule: OpenShopSchedule, *,
                            max_messages: int | None = DEFAULT_MAX_MESSAGES) -> list[str]:
    """Every rule of the openshop model that `schedule` breaks, as readable sentences (empty: valid).

    Implements the rules of Shafiee & Ghaderi, "On max-min fairness of completion times for multi-task job
    scheduling" (IFIP Networking 2020), §II: one integer start >= 0 per task; a task occupies its machine during
    [start, start + p_ij) without preemption and no two tasks of a machine overlap; no task starts before its
    job's arrival (§VII-B); C_j = max over j's tasks of start + p_ij (Eq. (1)), the arrival for a job without tasks.
    Re-derived from the instance's arrays, independently of the engine. O(t log t) for t tasks.
    `max_messages` bounds the sentences per kind of violation (None = all).

    Examples
    --------
    >>> from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3]])
    >>> check_openshop_schedule(inst, OpenShopSchedule(np.array([0, 2, 0]), np.array([2, 3])))
    []
    >>> check_openshop_schedule(inst, OpenShopSchedule(np.array([0, 1, 0]), np.array([2, 3])))
    ['machine 0 runs task 0 (job 0) during [0, 2) and task 1 (job 1) from t=1, before the first ends']
    """
    return _findings(instance, schedule, max_messages).messages


def validate_openshop_schedule(instance: OpenShopInstance, schedule: OpenShopSchedule) -> None:
    """Raise `InvalidScheduleError` listing the rules `schedule` breaks (`check_openshop_schedule`); silent if valid.

    >>> from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3]])
    >>> validate_openshop_schedule(inst, OpenShopSchedule(np.array([0, 1, 0]), np.array([2, 3])))
    Traceback (most recent call last):
    ...
    fairsched.errors.InvalidScheduleError: the schedule breaks the openshop model's rules in 1 place(s):
      - machine 0 runs task 0 (job 0) during [0, 2) and task 1 (job 1) from t=1, before the first ends
    A schedule produced by fairsched's algorithms should never fail this check: please report it.
    """
    findings = _findings(instance, schedule, SHOWN_IN_ERROR)
    if findings.total:
        raise violations(f"the schedule{f' of {schedule.algorithm}' if schedule.algorithm else ''} breaks the "
                         f"openshop model's rules in {findings.total} place(s)", findings.messages, "algorithms")


def _findings(instance: OpenShopInstance, schedule: OpenShopSchedule, limit: int | None) -> Findings:
    findings = Findings(limit)
    start, completion = _openshop_arrays(instance, schedule, findings)
    if start is not None and completion is not None:
        _check_openshop_tasks(instance, start, findings)
        _check_openshop_completion(instance, start, completion, findings)
    return findings


def _openshop_arrays(instance: OpenShopInstance, schedule: OpenShopSchedule,
                     findings: Findings) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The schedule's arrays as int64 when they have one integer per task / job, else (None, None) and a finding."""
    arrays = []
    for name, size, what in (("task_start", instance.n_tasks, "task"), ("completion", instance.n_jobs, "job")):
        values = np.asarray(getattr(schedule, name))
        if values.shape != (size,) or not (values.size == 0 or np.issubdtype(values.dtype, np.integer)):
            findings.add(1, lambda _, n=name, v=values, s=size, w=what: f"{n} has shape {v.shape} and dtype "
                                                                        f"{v.dtype}; expected {s} integers (one "
                                                                        f"per {w})", "")
            return None, None
        arrays.append(values.astype(np.int64))
    return arrays[0], arrays[1]


def _check_openshop_tasks(instance: OpenShopInstance, start: np.ndarray, findings: Findings) -> None:
    """Starts >= 0 and >= the job's arrival; per machine, [start, start + p) disjoint."""
    job = instance.task_job()
    release = instance.arrival[job]
    negative = np.flatnonzero(start < 0)
    findings.add(negative.size, lambda i: f"task {negative[i]} (job {instance.job_id[job[negative[i]]]}) starts at "
                                          f"t={start[negative[i]]} < 0", "negative starts")
    early = np.flatnonzero((start < release) & (start >= 0))
    findings.add(early.size, lambda i: f"task {early[i]} (job {instance.job_id[job[early[i]]]}, machine "
                                       f"{instance.task_machine[early[i]]}) starts at t={start[early[i]]}, before "
                                       f"its job arrives at t={release[early[i]]}", "starts before arrival")
    end = start + instance.task_time
    order = argsort_stable(start)
    n_clash, a, b = overlaps_kernel(order, start, end, instance.task_machine, instance.n_machines,
                                     order.size if findings.limit is None else findings.limit)
    findings.add(int(n_clash), lambda i: f"machine {instance.task_machine[a[i]]} runs task {a[i]} (job "
                                       f"{instance.job_id[job[a[i]]]}) during [{start[a[i]]}, {end[a[i]]}) and task "
                                       f"{b[i]} (job {instance.job_id[job[b[i]]]}) from t={start[b[i]]}, before the "
                                       "first ends", "overlaps")


def _check_openshop_completion(instance: OpenShopInstance, start: np.ndarray, completion: np.ndarray,
                               findings: Findings) -> None:
    """C_j = max over the job's tasks of start + p (Eq. (1)); the arrival for a job without tasks."""
    expected = instance.arrival.astype(np.int64)
    has_tasks = np.diff(instance.indptr) > 0
    if instance.n_tasks:
        expected[has_tasks] = np.maximum.reduceat(start + instance.task_time, instance.indptr[:-1][has_tasks])
    wrong = np.flatnonzero(completion != expected)
    findings.add(wrong.size, lambda i: f"job {instance.job_id[wrong[i]]} is said to complete at "
                                       f"t={completion[wrong[i]]}, but its last task ends at t={expected[wrong[i]]}"
                                       if has_tasks[wrong[i]] else
                                       f"job {instance.job_id[wrong[i]]} has no task and should complete at its "
                                       f"arrival t={expected[wrong[i]]}, not t={completion[wrong[i]]}",
                 "wrong completion times")


