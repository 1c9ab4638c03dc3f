"""The compiled tick of the Slurm orders: usage decay and accumulation, Fair Tree or classic fair-share, and the
multifactor priority of every waiting job (layouts of ``opar`` / ``ost`` / ``jpar``: `_slurm`).

Each kernel repeats, operation for operation, the plain-Python function it stands for, so that the results are
the same floats (tests/test_backfill_slurm.py checks it against them):

* usage: `fairsched.fairshare.decay.replay_usage`, the jobs taken in the order they started (start time, then
  decision number). Its two orders of summation follow: the running jobs add their usage at a tick in that
  order, and an ended job adds its last piece when its termination is processed, which the engine does in
  (end, start, decision) order — replay_usage's (end, job) order for jobs so listed. Adding that piece at once
  rather than at the next tick changes nothing: usage changes only at ticks and ends;
* fair-share: `fairsched.fairshare.fair_tree` (LevelFS, siblings sorted, depth-first ranks) and
  `fairsched.fairshare.classic` (normalized usage, effective usage, 2^(-UE/S/damping));
* priority: `fairsched.fairshare.priority.job_priority` with `age_factor`.

Incremental where it is exact: the running jobs are kept in start order (a job is appended at the first tick
after its start, removed at its end), the siblings of each account stay sorted from one tick to the next
(insertion sort: O(siblings + inversions)), and the queue is re-sorted only when a key changed. Per tick:
O(associations + running × depth + queue + inversions).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fairsched.backfill.policies._slurm import (
    ALGO,
    DAMPING,
    DECAY,
    FAIR_TREE,
    J_BILLING,
    J_PIECE,
    J_SIZE,
    MAX_AGE,
    N_ASSOC,
    N_RESETS,
    N_USERS,
    O_CH_START,
    O_CL_RATIO,
    O_CL_SHARES,
    O_CL_SPLIT,
    O_FS_PARENT,
    O_IS_USER,
    O_NORM_SHARES,
    O_PARENT,
    O_RESETS,
    O_USE_PARENT,
    S_EFFECTIVE,
    S_FACTOR,
    S_LAST,
    S_LEVEL,
    S_N_RUN,
    S_NEW,
    S_NEXT_RESET,
    S_ORDER,
    S_RUN,
    S_STACK,
    S_USAGE,
    W_AGE,
    W_FS,
    D,
)
from fairsched.backfill.policies._ticked import sort_queue
from fairsched.backfill.view import K_JOB, K_SEQ, K_START, N_HEAP, N_QUEUE, Q_JOB

NO_VAL = 4294967294.0  # fairsched.fairshare.fair_tree.NO_VAL
MAX_PRIORITY = 4294967295.0  # fairsched.fairshare.priority.MAX_PRIORITY


@njit(cache=True)
def _add_to_chain(usage, opar, assoc, piece):
    """usage[a] += piece for the association and each ancestor up to root (replay_usage's chains)."""
    parent0 = int(opar[O_PARENT])
    a = assoc
    while a >= 0:
        usage[a] += piece
        a = int(opar[parent0 + a])


@njit(cache=True)
def _job_usage(seconds, billing, d):
    """fairsched.fairshare.decay.job_usage: seconds * d^seconds * billing."""
    return seconds * d ** seconds * billing


@njit(cache=True)
def on_end(job, start, now, procs, org, jpar, opar, ost):
    """`job` (started at `start`) ended at `now`: its last piece of usage, and it leaves the running list."""
    u0 = int(ost[S_USAGE])
    usage = ost[u0:u0 + int(opar[N_ASSOC])]
    last = ost[S_LAST]
    seconds = max(0.0, float(now) - max(last, float(start)))
    _add_to_chain(usage, opar, org[job], _job_usage(seconds, jpar[J_BILLING, job], opar[D]))
    r0 = int(ost[S_RUN])
    m = int(ost[S_N_RUN])
    for k in range(m):
        if int(ost[r0 + k]) == job:
            for i in range(k + 1, m):
                ost[r0 + i - 1] = ost[r0 + i]
            ost[S_N_RUN] = m - 1
            return


@njit(cache=True)
def _admit_started(clock, heap, ost, last):
    """Append the jobs started since the last tick (start >= it) to the running list, by (start, decision)."""
    w0 = int(ost[S_NEW])
    width = (int(ost[S_STACK]) - w0) // 3  # the S_NEW buffer: starts, decisions, jobs (CAP_RUN each)
    count = 0
    for i in range(clock[N_HEAP]):
        start = float(heap[i, K_START])
        if start < last:
            continue
        seq = float(heap[i, K_SEQ])
        k = count  # insertion by (start, decision): few jobs start between two ticks
        while k > 0 and (ost[w0 + k - 1] > start or (ost[w0 + k - 1] == start and ost[w0 + width + k - 1] > seq)):
            for row in range(3):
                ost[w0 + row * width + k] = ost[w0 + row * width + k - 1]
            k -= 1
        ost[w0 + k] = start
        ost[w0 + width + k] = seq
        ost[w0 + 2 * width + k] = heap[i, K_JOB]
        count += 1
    r0 = int(ost[S_RUN])
    m = int(ost[S_N_RUN])
    for k in range(count):
        ost[r0 + m + k] = ost[w0 + 2 * width + k]
    ost[S_N_RUN] = m + count


@njit(cache=True)
def advance_usage(t, clock, heap, out_start, org, jpar, opar, ost):
    """The decay thread at tick t (replay_usage's loop body): reset if due, decay, add the running jobs' usage."""
    n = int(opar[N_ASSOC])
    u0 = int(ost[S_USAGE])
    usage = ost[u0:u0 + n]
    last = ost[S_LAST]
    nr, n_resets, res0 = int(ost[S_NEXT_RESET]), int(opar[N_RESETS]), int(opar[O_RESETS])
    if nr < n_resets and opar[res0 + nr] <= t:
        usage[:] = 0.0
        while nr < n_resets and opar[res0 + nr] <= t:
            nr += 1
        ost[S_NEXT_RESET] = nr
    decay = opar[DECAY]
    for a in range(n):
        usage[a] *= decay
    _admit_started(clock, heap, ost, last)
    d = opar[D]
    r0 = int(ost[S_RUN])
    for k in range(int(ost[S_N_RUN])):
        job = int(ost[r0 + k])
        start = float(out_start[job])
        # a whole period: UNIT * billing, which is job_usage(period, billing, d) computed once
        piece = jpar[J_PIECE, job] if start <= last else _job_usage(t - start, jpar[J_BILLING, job], d)
        _add_to_chain(usage, opar, org[job], piece)


@njit(cache=True)
def _ft_before(x, y, level, opar, is_user0):
    """Fair Tree's sibling order: LevelFS descending, users before accounts, then sshare's order."""
    if level[x] != level[y]:
        return level[x] > level[y]
    ux = opar[is_user0 + x] != 0.0
    uy = opar[is_user0 + y] != 0.0
    if ux != uy:
        return ux
    return x < y


@njit(cache=True)
def fair_tree_factors(opar, ost):
    """fairsched.fairshare.fair_tree on the current usage: LevelFS of every association, then the users' ranks."""
    n, n_users = int(opar[N_ASSOC]), int(opar[N_USERS])
    u0, l0, f0 = int(ost[S_USAGE]), int(ost[S_LEVEL]), int(ost[S_FACTOR])
    usage, level, factor = ost[u0:u0 + n], ost[l0:l0 + n], ost[f0:f0 + n]
    fsp0, user0, upar0, ns0 = int(opar[O_FS_PARENT]), int(opar[O_IS_USER]), int(opar[O_USE_PARENT]), \
        int(opar[O_NORM_SHARES])
    level[0] = NO_VAL
    for i in range(1, n):
        parent_usage = usage[int(opar[fsp0 + i])]
        effective = usage[i] / parent_usage if parent_usage != 0.0 else 0.0
        shares = opar[ns0 + i]
        if opar[upar0 + i] != 0.0:
            level[i] = np.inf if opar[user0 + i] != 0.0 else NO_VAL
        elif shares == 0.0:
            level[i] = 0.0
        else:
            level[i] = shares / effective if effective != 0.0 else np.inf
    cs0, o0 = int(opar[O_CH_START]), int(ost[S_ORDER])
    for a in range(n):
        lo, hi = int(opar[cs0 + a]), int(opar[cs0 + a + 1])
        for i in range(lo + 1, hi):  # insertion sort of a's siblings, from last tick's order
            x = ost[o0 + i]
            k = i
            while k > lo and _ft_before(int(x), int(ost[o0 + k - 1]), level, opar, user0):
                ost[o0 + k] = ost[o0 + k - 1]
                k -= 1
            ost[o0 + k] = x
    _rank_users(opar, ost, level, factor, n_users, cs0, o0, user0)


@njit(cache=True)
def _rank_users(opar, ost, level, factor, n_users, cs0, o0, user0):
    """The depth-first walk of fair_tree's ``walk`` with an explicit stack (account, position, previous, tied)."""
    s0 = int(ost[S_STACK])
    depth = (int(ost.size) - s0) // 4
    acc, pos, prev, tied_in = s0, s0 + depth, s0 + 2 * depth, s0 + 3 * depth
    rank = rnt = n_users
    sp = 0
    ost[acc] = 0
    ost[pos] = 0
    ost[prev] = NO_VAL
    ost[tied_in] = 0.0
    while sp >= 0:
        a = int(ost[acc + sp])
        p = int(ost[pos + sp])
        lo, hi = int(opar[cs0 + a]), int(opar[cs0 + a + 1])
        if lo + p >= hi:
            sp -= 1
            continue
        i = int(ost[o0 + lo + p])
        ost[pos + sp] = p + 1
        tied = True if p == 0 and ost[tied_in + sp] != 0.0 else ost[prev + sp] == level[i]
        ost[prev + sp] = level[i]
        if opar[user0 + i] != 0.0:
            if not tied:
                rank = rnt
            factor[i] = rank / n_users
            rnt -= 1
        else:
            sp += 1
            ost[acc + sp] = i
            ost[pos + sp] = 0
            ost[prev + sp] = NO_VAL
            ost[tied_in + sp] = 1.0 if tied else 0.0


@njit(cache=True)
def classic_factors(opar, ost):
    """fairsched.fairshare.classic on the current usage: NormUsage, EffectvUsage, 2^(-UE / S / damping)."""
    n = int(opar[N_ASSOC])
    u0, e0, f0 = int(ost[S_USAGE]), int(ost[S_EFFECTIVE]), int(ost[S_FACTOR])
    usage, effective, factor = ost[u0:u0 + n], ost[e0:e0 + n], ost[f0:f0 + n]
    fsp0, sh0, ra0, sp0 = int(opar[O_FS_PARENT]), int(opar[O_CL_SHARES]), int(opar[O_CL_RATIO]), \
        int(opar[O_CL_SPLIT])
    damping = opar[DAMPING]
    total = usage[0]
    effective[0] = 1.0
    for i in range(1, n):
        usage_norm = min(usage[i] / total, 1.0) if total != 0.0 else 0.0
        p = int(opar[fsp0 + i])
        if p == 0:
            effective[i] = usage_norm
        elif opar[sp0 + i] == 0.0:
            effective[i] = effective[p]
        else:
            effective[i] = usage_norm + (effective[p] - usage_norm) * opar[ra0 + i]
    for i in range(n):
        shares = opar[sh0 + i]
        factor[i] = 2.0 ** (-(effective[i] / shares) / damping) if shares > 0.0 else 0.0


@njit(cache=True)
def priority(now, job, submit, org, jpar, opar, factor):
    """job_priority(age=age_factor(now, submit, max_age), fairshare=factor of the job's association,
    job_size) as a float (an integer in [1, 2^32 - 1])."""
    waited = now - submit[job]
    max_age = opar[MAX_AGE]
    if waited <= 0:
        age = 0.0
    elif waited >= max_age:
        age = 1.0
    else:
        age = waited / max_age
    value = opar[W_AGE] * age + opar[W_FS] * factor[org[job]] + jpar[J_SIZE, job]
    if value < 1.0:
        value = 1.0
    return min(float(np.int64(value)), MAX_PRIORITY)


@njit(cache=True)
def on_tick(now, clock, heap, out_start, queue, submit, procs, org, jpar, opar, ost, key):
    """A tick at `now`: usage (none at the first tick, which precedes every start), the fair-share factors, every
    waiting job's key (−priority) and, when one changed, the queue order. Returns True when the order changed."""
    t = float(now)
    if not np.isnan(ost[S_LAST]):
        advance_usage(t, clock, heap, out_start, org, jpar, opar, ost)
    ost[S_LAST] = t
    if int(opar[ALGO]) == FAIR_TREE:
        fair_tree_factors(opar, ost)
    else:
        classic_factors(opar, ost)
    f0 = int(ost[S_FACTOR])
    factor = ost[f0:f0 + int(opar[N_ASSOC])]
    changed = False
    for k in range(clock[N_QUEUE]):
        job = queue[Q_JOB, k]
        new = -priority(now, job, submit, org, jpar, opar, factor)
        if new != key[job]:
            key[job] = new
            changed = True
    if changed:
        return sort_queue(queue, clock, key)
    return False


@njit(cache=True)
def job_key(job, now, submit, org, jpar, opar, ost):
    """The key of a job submitted at `now` between ticks: −priority with the last tick's fair-share factors."""
    f0 = int(ost[S_FACTOR])
    return -priority(now, job, submit, org, jpar, opar, ost[f0:f0 + int(opar[N_ASSOC])])
