"""Evaluate a schedule of the concurrent open shop: a job permutation, or one task order per machine.

Implements the schedule structure of Shafiee & Ghaderi, IFIP Networking 2020, §III-A (Definition 2, Theorem 1):
a non-preemptive schedule is one order of tasks per machine; by Theorem 1 an optimal max-min fair schedule uses
the same job permutation on every machine. Each machine runs its tasks back to back; with ``release=True`` a task
cannot start before its job's arrival (the machine idles), which is how arrivals enter (§VII-B).
Both evaluations are O(tasks) numba loops (> 10^7 tasks/s, see docs/performance.md).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from fairsched.errors import ConfigError
from fairsched.openshop import _kernels as _k
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule


def evaluate_permutation(instance: OpenShopInstance, order: np.ndarray, *, release: bool = True,
                         algorithm: str = "") -> OpenShopSchedule:
    """Schedule every machine by the job order `order` (a permutation of 0..n-1), back to back.

    Implements a permutation schedule (Networking'20 Theorem 1): machine i runs its tasks in the order their jobs
    appear in `order`; C_j = max over j's tasks of their ends (Eq. (1)); a job without tasks completes at its
    arrival. O(tasks + machines).

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]])
    >>> evaluate_permutation(inst, np.array([2, 0, 1])).completion.tolist()
    [2, 4, 1]
    """
    order = _as_permutation(order, instance.n_jobs, "order", "a job permutation")
    start, completion = _k.permutation_kernel(instance.indptr, instance.task_machine, instance.task_time,
                                              instance.arrival, order, instance.n_machines, bool(release))
    return OpenShopSchedule(task_start=start, completion=completion, algorithm=algorithm)


def evaluate_task_order(instance: OpenShopInstance, task_order: np.ndarray, *, release: bool = True,
                        algorithm: str = "") -> OpenShopSchedule:
    """Schedule each machine by the order its tasks appear in `task_order` (a permutation of task indices).

    Implements a general non-preemptive schedule (Networking'20 Definition 2: one permutation π_i per machine).
    O(tasks + jobs + machines).

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]])   # tasks: 0=(j0,m0) 1=(j1,m0) 2=(j1,m1) 3=(j2,m1)
    >>> evaluate_task_order(inst, np.array([1, 0, 3, 2])).completion.tolist()
    [3, 4, 1]
    """
    task_order = _as_permutation(task_order, instance.n_tasks, "task_order", "a permutation of task indices")
    start, completion = _k.task_order_kernel(instance.task_job(), instance.task_machine, instance.task_time,
                                             instance.arrival, task_order, instance.n_jobs, instance.n_machines,
                                             bool(release))
    return OpenShopSchedule(task_start=start, completion=completion, algorithm=algorithm)


def list_schedule(instance: OpenShopInstance, key: np.ndarray, *, task_class: np.ndarray | None = None,
                  class_weight: np.ndarray | None = None, class_offset: np.ndarray | None = None,
                  algorithm: str = "") -> OpenShopSchedule:
    """Non-preemptive list scheduling on each machine: when free, a machine starts the best task of an arrived job.

    Implements the baselines of Networking'20 §VII (FIFO, SPTF, LUF), offline (all arrivals 0) and online
    (§VII-B: "updates its list upon arrival ... does not preempt an ongoing task"). Machines are independent: a
    task's start depends only on its own machine. Without classes the best task has the smallest (`key`, job);
    with classes, each class is ordered by (`key`, job) and the class head maximising
    ``class_weight[c] · (class_offset[c] − now − key[task])`` wins (LUF's utility at the task's completion).
    O(tasks · (log tasks + classes)).

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[3], [1], [2]])
    >>> list_schedule(inst, inst.task_time.astype(float)).completion.tolist()   # shortest first
    [6, 1, 3]
    """
    key = np.ascontiguousarray(key, dtype=np.float64)
    if key.shape != (instance.n_tasks,):
        raise ConfigError(f"key: expected one value per task ({instance.n_tasks}), got shape {key.shape}")
    if task_class is None:
        task_class, class_weight, class_offset = np.zeros(instance.n_tasks, np.int64), np.ones(1), np.zeros(1)
    n_classes = int(np.asarray(class_weight).size)
    m_ptr, m_task = tasks_by_machine(instance)
    task_job = instance.task_job()
    start = _k.list_schedule_kernel(m_ptr, m_task, task_job, instance.task_time, instance.arrival, key,
                                    np.ascontiguousarray(task_class, dtype=np.int64), n_classes,
                                    np.ascontiguousarray(class_weight, dtype=np.float64),
                                    np.ascontiguousarray(class_offset, dtype=np.float64))
    return OpenShopSchedule(task_start=start, completion=completion_of(instance, start), algorithm=algorithm)


def completion_of(instance: OpenShopInstance, task_start: np.ndarray) -> np.ndarray:
    """C_j = max over j's tasks of start + p (Eq. (1)); a job without tasks completes at its arrival."""
    completion = instance.arrival.copy()
    has_tasks = np.diff(instance.indptr) > 0
    if instance.n_tasks:
        ends = np.asarray(task_start, dtype=np.int64) + instance.task_time
        completion[has_tasks] = np.maximum.reduceat(ends, instance.indptr[:-1][has_tasks])
    return completion


def tasks_by_machine(instance: OpenShopInstance, *, longest_first: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """CSR by machine: tasks of machine i are ``m_task[m_ptr[i]:m_ptr[i+1]]``, by job index (= arrival order),
    or by processing time descending (ties by job) when `longest_first`."""
    if longest_first:
        by = np.lexsort((np.arange(instance.n_tasks), -instance.task_time, instance.task_machine))
    else:
        by = np.argsort(instance.task_machine, kind="stable")
    m_ptr = np.zeros(instance.n_machines + 1, dtype=np.int64)
    np.cumsum(np.bincount(instance.task_machine, minlength=instance.n_machines), out=m_ptr[1:])
    return m_ptr, by.astype(np.int64)


def _as_permutation(values: np.ndarray, n: int, name: str, what: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
        raise ConfigError(f"{name}: expected a 1-d integer array ({what}), got dtype {arr.dtype}, shape {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if not _k.is_permutation(arr, n):
        raise ConfigError(f"{name}: expected {what} of 0..{n - 1} (each exactly once), got {arr.size} values "
                          f"{arr[:8].tolist()}{'...' if arr.size > 8 else ''}")
    return arr


def accepts(function: Callable[..., object], parameter: str) -> bool:
    """Whether `function` takes keyword `parameter` (explicitly or through ``**kwargs``): algorithms get only the
    options they declare (e.g. ``tau`` for linear utilities, ``k`` for k-Max-Min)."""
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return parameter in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
