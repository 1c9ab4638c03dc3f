"""Independent checks of multi-organization makespan schedules (TPDS'11) against their instance; never the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fairsched._validation import DEFAULT_MAX_MESSAGES, SHOWN_IN_ERROR, Findings, violations

if TYPE_CHECKING:
    from fairsched.mosp.instance import MospInstance, MospSchedule


def check_mosp_schedule(instance: MospInstance, schedule: MospSchedule, *, local_order: str = "hf",
                        delay_reference: MospSchedule | None = None, makespan_bound: float | None = None,
                        local_constraint: bool = True, seed: int = 0,
                        max_messages: int | None = DEFAULT_MAX_MESSAGES) -> list[str]:
    """Every rule of the MOSP model that `schedule` breaks, as readable sentences (empty: valid).

    Implements the rules of Dutot, Pascual, Rzadca, Trystram, "Approximation algorithms for the
    multi-organization scheduling problem" (IEEE TPDS 2011), §2.1–§2.2: every job runs once, on one cluster with
    at least q processors, from an integer start >= 0 for exactly p; at every instant a cluster's running jobs
    ([start, start + p)) use at most its m_k processors; and constraint (1), C_max(O_k) <= C_max^loc(O_k) for every
    organization k. Checked independently of the algorithms: a sweep over each cluster's sorted start/end events;
    only C_max^loc comes from `fairsched.mosp.policies.local.local_schedule`.

    Parameters
    ----------
    instance, schedule : the `fairsched.mosp.instance` objects (row j of the schedule is job j).
    local_order, seed : the local policy defining C_max^loc (hf, lpt, spt, rnd); `seed` seeds rnd.
    delay_reference : a schedule no job may start later than (ILBA's input: Prop. 11).
    makespan_bound : C_max must not exceed it (e.g. 3LB for MOCCA, Theorem 1); floats get a 1e-9 relative slack
        for the rounding of LB = W/m.
    local_constraint : check constraint (1) (off for the paper's §7.3 runs without the HF fall-back).
    max_messages : at most this many sentences per kind of violation (None = all).
    """
    return _findings(instance, schedule, local_order, delay_reference, makespan_bound, local_constraint, seed,
                     max_messages).messages


def validate_mosp_schedule(instance: MospInstance, schedule: MospSchedule, *, local_order: str = "hf",
                           delay_reference: MospSchedule | None = None, makespan_bound: float | None = None,
                           local_constraint: bool = True, seed: int = 0) -> None:
    """Raise `InvalidScheduleError` listing the rules `schedule` breaks (`check_mosp_schedule`); silent if valid."""
    findings = _findings(instance, schedule, local_order, delay_reference, makespan_bound, local_constraint, seed,
                         SHOWN_IN_ERROR)
    if findings.total:
        raise violations(f"the schedule{f' of {schedule.algorithm}' if schedule.algorithm else ''} breaks the "
                         f"MOSP model's rules in {findings.total} place(s)", findings.messages, "algorithms")


def _findings(instance: MospInstance, schedule: MospSchedule, local_order: str,
              delay_reference: MospSchedule | None, makespan_bound: float | None, local_constraint: bool, seed: int,
              limit: int | None) -> Findings:
    findings = Findings(limit)
    rows = _mosp_rows(instance, schedule, findings)
    if rows is not None:
        cluster, start, end = rows
        _check_mosp_capacity(instance, cluster, start, end, findings)
        if local_constraint:
            _check_mosp_local(instance, end, local_order, seed, findings)
        if makespan_bound is not None:
            _check_mosp_bound(instance, end, makespan_bound, findings)
        if delay_reference is not None:
            _check_mosp_delays(instance, start, delay_reference, findings)
    return findings


def _mosp_rows(instance: MospInstance, schedule: MospSchedule,
               findings: Findings) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Shape, integer type, cluster range, start >= 0 and width <= m_cluster; None when later checks cannot run."""
    n, n_orgs = instance.n_jobs, instance.n_orgs
    raw_cluster, raw_start = np.asarray(schedule.cluster), np.asarray(schedule.start)
    if raw_cluster.shape != (n,) or raw_start.shape != (n,) or not (
            np.issubdtype(raw_cluster.dtype, np.integer) and np.issubdtype(raw_start.dtype, np.integer)):
        findings.add(1, lambda _: f"the schedule has cluster {raw_cluster.shape} {raw_cluster.dtype} and start "
                                  f"{raw_start.shape} {raw_start.dtype}; expected one integer cluster and one "
                                  f"integer start per job ({n} jobs): every job runs exactly once", "")
        return None
    cluster, start = raw_cluster.astype(np.int64), raw_start.astype(np.int64)
    job = instance.job_id
    unknown = np.flatnonzero((cluster < 0) | (cluster >= n_orgs))
    findings.add(unknown.size, lambda i: f"job {job[unknown[i]]} (row {unknown[i]}) runs on cluster "
                                         f"{cluster[unknown[i]]}; expected one of the clusters 0..{n_orgs - 1}",
                 "jobs on unknown clusters")
    early = np.flatnonzero(start < 0)
    findings.add(early.size, lambda i: f"job {job[early[i]]} (row {early[i]}) starts at t={start[early[i]]}; "
                                       "every job is available at 0 and starts at t >= 0", "negative starts")
    if unknown.size:
        return None
    wide = np.flatnonzero(instance.width > instance.procs[cluster])
    findings.add(wide.size, lambda i: f"job {job[wide[i]]} (row {wide[i]}) needs {instance.width[wide[i]]} "
                                      f"processors but runs on cluster {cluster[wide[i]]} of "
                                      f"{instance.procs[cluster[wide[i]]]}", "jobs on too small clusters")
    return cluster, start, start + instance.runtime


def _check_mosp_capacity(instance: MospInstance, cluster: np.ndarray, start: np.ndarray, end: np.ndarray,
                         findings: Findings) -> None:
    """Sweep each cluster's events sorted by time; the usage after all changes at t ([start, end)) is <= m_k.
    Events are sorted by (cluster, time); each cluster's changes sum to 0, so one running sum serves all."""
    on = np.concatenate((cluster, cluster))
    times = np.concatenate((start, end))
    delta = np.concatenate((instance.width, -instance.width))
    order = np.lexsort((times, on))
    on, times, used = on[order], times[order], np.cumsum(delta[order])
    last = np.append((on[1:] != on[:-1]) | (times[1:] != times[:-1]), True)
    over = np.flatnonzero(last & (used > instance.procs[on]))

    def describe(i: int) -> str:
        c, t = on[over[i]], times[over[i]]
        running = np.flatnonzero((cluster == c) & (start <= t) & (end > t))
        return (f"at t={t} cluster {c} runs jobs {instance.job_id[running][:8].tolist()}"
                f"{'...' if running.size > 8 else ''} using {used[over[i]]} processors, more than its "
                f"{instance.procs[c]}")

    findings.add(over.size, describe, "instants over capacity")


def _check_mosp_local(instance: MospInstance, end: np.ndarray, local_order: str, seed: int,
                      findings: Findings) -> None:
    """Constraint (1) of TPDS'11 §2.2: no organization finishes later than with its local schedule."""
    from fairsched.mosp.policies.local import local_schedule  # the only algorithm the validator relies on

    local = local_schedule(instance, order=local_order, seed=seed)
    mine = np.zeros(instance.n_orgs, dtype=np.int64)
    alone = np.zeros(instance.n_orgs, dtype=np.int64)
    np.maximum.at(mine, instance.owner, end)
    np.maximum.at(alone, instance.owner, local.start + instance.runtime)
    worse = np.flatnonzero(mine > alone)
    findings.add(worse.size, lambda i: f"organization {worse[i]} finishes at t={mine[worse[i]]}, later than "
                                       f"t={alone[worse[i]]} with its local {local_order} schedule (constraint "
                                       "(1): it would rather leave the grid)", "organizations worse off")


def _check_mosp_bound(instance: MospInstance, end: np.ndarray, bound: float, findings: Findings) -> None:
    c_max = int(end.max(initial=0))
    slack = 1e-9 * max(1.0, abs(float(bound))) if isinstance(bound, float) else 0
    if c_max > bound + slack:
        last = int(np.argmax(end))
        findings.add(1, lambda _: f"C_max = {c_max} (job {instance.job_id[last]}) exceeds the bound {bound}", "")


def _check_mosp_delays(instance: MospInstance, start: np.ndarray, reference: MospSchedule,
                       findings: Findings) -> None:
    """No job starts later than in `reference` (TPDS'11 Prop. 11 for ILBA)."""
    ref = np.asarray(reference.start)
    if ref.shape != start.shape:
        findings.add(1, lambda _: f"the delay reference has {ref.size} starts for {start.size} jobs", "")
        return
    late = np.flatnonzero(start > ref)
    findings.add(late.size, lambda i: f"job {instance.job_id[late[i]]} (row {late[i]}) starts at "
                                      f"t={start[late[i]]}, later than t={ref[late[i]]} in the reference schedule",
                 "delayed jobs")
