"""A deliberately simple twin of the audit's coalition values (`fairsched.audit._replay`): pick the coalition's
jobs, schedule them with the README-built naive FCFS + EASY engine (tests/naive/backfill_naive.py), and add up
ψsp slot by slot from its definition (SPAA'13 Eq. (3)): a unit of work done in [i, i + 1) is worth t_end − i,
and a job on q CPUs does q units per second. Slow and obviously correct; for small t_end only.
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.naive.backfill_naive import simulate_naive


def coalition_naive(org: Sequence[int], submit: Sequence[int], run: Sequence[int], req: Sequence[int],
                    procs: Sequence[int], members: Sequence[int], n_cpus: int, t_end: int) -> tuple[list[int], int]:
    """Start of every job (-1: not in the coalition, or wider than its CPUs) and v(C)."""
    mine = [j for j in range(len(org)) if members[org[j]] and procs[j] <= n_cpus]
    start = [-1] * len(org)
    if not mine:
        return start, 0
    schedule = simulate_naive([submit[j] for j in mine], [run[j] for j in mine], [procs[j] for j in mine],
                              [req[j] for j in mine], n_cpus, "fcfs", "easy")
    value = 0
    for j, s in zip(mine, schedule.start, strict=True):
        start[j] = s
        for slot in range(s, min(s + run[j], t_end)):
            value += procs[j] * (t_end - slot)
    return start, value
