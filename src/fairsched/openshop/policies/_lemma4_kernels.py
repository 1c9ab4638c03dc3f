"""Compiled kernels of Lemma 4's exchange rules (k-Max-Min's tail order).

numba-level API: plain arrays and scalars only, nothing raised.

Symbols follow Shafiee & Ghaderi, IFIP Networking 2020: ``tau[i]`` is τ_i, the work left on machine i; ``p`` is a
task's processing time p_ij; ``eps[j]`` is the perturbation ε_j of Algorithm 2. Instances arrive as CSR by job
(``indptr``, ``task_machine``, ``task_time``) and by machine (``m_ptr``, ``m_job``, ``m_time``).
"""

from __future__ import annotations

from numba import njit

# -- Lemma 4 exchanges (k-Max-Min) -------------------------------------------------------------------------


@njit(cache=True)
def _dominates(h, k, indptr, task_machine, task_time):
    """Lemma 4(1) strictly: h and k share a machine, p_ih <= p_ik on every shared machine, < on one."""
    a, b = indptr[h], indptr[k]
    shared = strict = False
    while a < indptr[h + 1] and b < indptr[k + 1]:
        ia, ib = task_machine[a], task_machine[b]
        if ia == ib:
            if task_time[a] > task_time[b]:
                return False
            shared = True
            strict = strict or task_time[a] < task_time[b]
            a += 1
            b += 1
        elif ia < ib:
            a += 1
        else:
            b += 1
    return shared and strict


@njit(cache=True)
def lemma4_passes(order, indptr, task_machine, task_time, max_passes):
    """Adjacent exchanges by Lemma 4(1) (h before k when h dominates k) until none applies or `max_passes`;
    the relation can cycle across three jobs, hence the bound. Returns the number of passes made."""
    for done in range(max_passes):
        swapped = False
        for x in range(order.size - 1):
            if _dominates(order[x + 1], order[x], indptr, task_machine, task_time):
                order[x], order[x + 1] = order[x + 1], order[x]
                swapped = True
        if not swapped:
            return done + 1
    return max_passes
