"""The compiled lockstep loop of the coalition simulation: every entity advances together, event by event.

At each time t (the next release or the next completion in any entity) the releases are applied once, then the
entities with a completion at t, or with a free machine and a member releasing at t, are processed in increasing
coalition size (`_collect`): completions, then a decision when machines are free and jobs wait (FIFO rule here;
the fair rule under contention in `contributions`). Two event queues, both the shared heap of
`fairsched._kernels.heap`: each entity's running jobs (rows (end, owner)) and the entities by next completion
(rows (time, entity), indexed). Field names: `layout`.

``_advance`` is the coalition variant of `fairsched.online._kernels.advance` (the same formula), indexing the 2-d
state directly for speed (numba note below).
"""

from __future__ import annotations

from numba import njit

from fairsched._kernels.heap import heap_pop, heap_push, heap_replace
from fairsched.online._coalitions.contributions import _share_fairly
from fairsched.online._coalitions.layout import (
    CFG_GRAND,
    CFG_HORIZON,
    CFG_K,
    EFFICIENCY_BROKEN,
    FREE,
    G_GRAND_LEFT,
    G_N_DEC,
    G_N_DEC_ORGS,
    G_NEXT_REC,
    GROUP,
    HEAP_OFF,
    HEAP_SIZE,
    INF,
    MASK,
    NOW,
    OK,
    PSI,
    RULE,
    RULE_FIFO,
    RUN,
    RUNNING_TOTAL,
    STARTED,
    VALUE,
    WORK,
    WORK_TOTAL,
)

# -- the compiled loop ---------------------------------------------------------------------------------------------
# Numba note: reading a namedtuple field, taking a row view or a slice, or calling a non-inlined function with
# arrays costs two atomic reference-count operations per array; inside the event loop they took more than half
# the run time. So `_run` unpacks the namedtuples once, and every helper below takes plain arrays, indexes the
# 2-d state directly and is inlined (``inline="always"``) into `_run`.

@njit(cache=True)
def _run(jobs, st, rules, sc, out):  # pragma: no cover - jit
    """Advance all entities event by event until the grand coalition has started every job."""
    rec_release, rec_org, rec_copies = jobs.rec_release, jobs.rec_org, jobs.rec_copies
    org_ptr, seq_proc, seq_gid = jobs.org_ptr, jobs.seq_proc, jobs.seq_gid
    ent, mem, running = st.ent, st.mem, st.running
    rel_count, glob, gheap, gpos, mark = st.rel_count, st.glob, st.gheap, st.gpos, st.mark
    wait, take, todo, stack, stack2, group_count = sc.wait, sc.take, sc.todo, sc.stack, sc.stack2, sc.group_count
    dec_time, dec_ptr, dec_orgs = out.dec_time, out.dec_ptr, out.dec_orgs
    cfg, value_ent, sampled_tol = rules.cfg, rules.value_ent, rules.sampled_tol
    terms = (rules.term_org, rules.term_pre, rules.term_post, rules.term_weight)
    work = (sc.pot, sc.pot_vmax, sc.pot_stamp, sc.pot_stack, sc.phi, sc.gain, sc.eligible)
    recs = (out.rec_time, out.rec_phi, out.rec_values)
    k, grand = cfg[CFG_K], cfg[CFG_GRAND]
    while glob[G_GRAND_LEFT] > 0:
        t = _next_time(rec_release, glob, gheap)
        if t < 0 or 0 <= cfg[CFG_HORIZON] < t:
            break
        released = _release(rec_release, rec_org, rec_copies, rel_count, glob, t)
        n = _collect(ent, gheap, mark, todo, stack, stack2, group_count, t, released)
        for i in range(n):
            e = todo[i]
            _advance(ent, mem, e, t, k)
            _complete(ent, mem, running, e, t)
            total = _count_waiting(ent, mem, rel_count, wait, e, k)
            n_start = min(ent[e, FREE], total)
            if n_start > 0:
                if e == grand:
                    dec_time[glob[G_N_DEC]] = t
                if ent[e, RULE] == RULE_FIFO:
                    _fifo_takes(mem, org_ptr, seq_gid, wait, take, e, n_start, k)
                elif _contended(wait, take, n_start, total, k) and not _share_fairly(
                        ent, mem, cfg, value_ent, sampled_tol, terms, work, wait, take, recs, glob, e, t, n_start):
                    return EFFICIENCY_BROKEN
                for u in range(k):
                    for _ in range(take[u]):
                        _start(ent, mem, running, org_ptr, seq_proc, e, u, t)
                        if e == grand:
                            dec_orgs[glob[G_N_DEC_ORGS]] = u
                            glob[G_N_DEC_ORGS] += 1
                            glob[G_GRAND_LEFT] -= 1
                if e == grand:
                    glob[G_N_DEC] += 1
                    dec_ptr[glob[G_N_DEC]] = glob[G_N_DEC_ORGS]
            _gheap_update(ent, running, gheap, gpos, e)
    return OK


@njit(cache=True, inline="always")
def _next_time(rec_release, glob, gheap):  # pragma: no cover - jit
    """The next release or completion time in any entity; -1 when nothing is left to happen."""
    nxt = -1
    if glob[G_NEXT_REC] < rec_release.size:
        nxt = rec_release[glob[G_NEXT_REC]]
    first = gheap[0, 0]
    if first < INF and (nxt < 0 or first < nxt):
        nxt = first
    return nxt


@njit(cache=True, inline="always")
def _release(rec_release, rec_org, rec_copies, rel_count, glob, t):  # pragma: no cover - jit
    """Release every record at time t, once for all coalitions; return the bitmask of releasing organizations."""
    released = 0
    rec = glob[G_NEXT_REC]
    while rec < rec_release.size and rec_release[rec] <= t:
        rel_count[rec_org[rec]] += rec_copies[rec]
        released |= 1 << rec_org[rec]
        rec += 1
    glob[G_NEXT_REC] = rec
    return released


@njit(cache=True, inline="always")
def _collect(ent, gheap, mark, todo, stack, found, group_count, t, released):  # pragma: no cover - jit
    """Entities to process at t into ``todo[:n]``, in processing order: those with a completion at t (the heap
    nodes keyed t form a subtree at the root) and those with a free machine and a member releasing at t."""
    n = 0
    top = 0
    if gheap[0, 0] == t:
        stack[0] = 0
        top = 1
    while top > 0:
        top -= 1
        pos = stack[top]
        found[n] = gheap[pos, 1]
        mark[gheap[pos, 1]] = t + 1
        n += 1
        for child in (2 * pos + 1, 2 * pos + 2):
            if child < gheap.shape[0] and gheap[child, 0] == t:
                stack[top] = child
                top += 1
    if released:
        for e in range(ent.shape[0]):
            if mark[e] != t + 1 and ent[e, FREE] > 0 and ent[e, MASK] & released:
                found[n] = e
                n += 1
    # Counting sort by group = 2·size + rule, the processing order (no full sort needed).
    group_count[:] = 0
    for i in range(n):
        group_count[ent[found[i], GROUP] + 1] += 1
    for g in range(1, group_count.size):
        group_count[g] += group_count[g - 1]
    for i in range(n):
        g = ent[found[i], GROUP]
        todo[group_count[g]] = found[i]
        group_count[g] += 1
    return n


@njit(cache=True, inline="always")
def _advance(ent, mem, e, t, k):  # pragma: no cover - jit
    """Coalition variant of `_kernels.advance`: accrue ψ and W over [NOW, t) for the members and the totals."""
    d = t - ent[e, NOW]
    if d <= 0:
        return
    tri = d * (d + 1) // 2
    mask = ent[e, MASK]
    for u in range(k):
        if (mask >> u) & 1:
            mem[e, PSI, u] += d * mem[e, WORK, u] + tri * mem[e, RUN, u]
            mem[e, WORK, u] += d * mem[e, RUN, u]
    ent[e, VALUE] += d * ent[e, WORK_TOTAL] + tri * ent[e, RUNNING_TOTAL]
    ent[e, WORK_TOTAL] += d * ent[e, RUNNING_TOTAL]
    ent[e, NOW] = t


@njit(cache=True, inline="always")
def _complete(ent, mem, running, e, t):  # pragma: no cover - jit
    """Pop every job of entity e ending at or before t."""
    off = ent[e, HEAP_OFF]
    while ent[e, HEAP_SIZE] > 0 and running[off, 0] <= t:
        u = running[off, 1]
        ent[e, HEAP_SIZE] = heap_pop(running, off, ent[e, HEAP_SIZE])
        mem[e, RUN, u] -= 1
        ent[e, RUNNING_TOTAL] -= 1
        ent[e, FREE] += 1


@njit(cache=True, inline="always")
def _count_waiting(ent, mem, rel_count, wait, e, k):  # pragma: no cover - jit
    """Waiting jobs of each member (released minus started) into ``wait``; returns their total."""
    total = 0
    mask = ent[e, MASK]
    for u in range(k):
        wait[u] = rel_count[u] - mem[e, STARTED, u] if (mask >> u) & 1 else 0
        total += wait[u]
    return total


@njit(cache=True, inline="always")
def _start(ent, mem, running, org_ptr, seq_proc, e, u, t):  # pragma: no cover - jit
    """Start organization u's head job (FIFO) in entity e at t."""
    ent[e, HEAP_SIZE] = heap_push(running, ent[e, HEAP_OFF], ent[e, HEAP_SIZE],
                                  (t + seq_proc[org_ptr[u] + mem[e, STARTED, u]], u))
    mem[e, RUN, u] += 1
    mem[e, STARTED, u] += 1
    ent[e, RUNNING_TOTAL] += 1
    ent[e, FREE] -= 1


@njit(cache=True, inline="always")
def _fifo_takes(mem, org_ptr, seq_gid, wait, take, e, n_start, k):  # pragma: no cover - jit
    """RAND's simplified schedule (SPAA'13 Alg. 3): the n_start earliest released waiting jobs, across members
    (a merge of the members' FIFO queues by global release position); counts per organization into ``take``."""
    for u in range(k):
        take[u] = 0
    for _ in range(n_start):
        best, best_gid = -1, 0
        for u in range(k):
            if take[u] < wait[u]:
                gid = seq_gid[org_ptr[u] + mem[e, STARTED, u] + take[u]]
                if best < 0 or gid < best_gid:
                    best, best_gid = u, gid
        take[best] += 1


@njit(cache=True, inline="always")
def _contended(wait, take, n_start, total, k):  # pragma: no cover - jit
    """Whether the fair rule has a choice to make. Sets ``take`` to min(waiting, n_start) per organization, which
    is the decision when it has none: every waiting job starts (free machines >= waiting jobs; the order does
    not matter), or a single organization waits and takes every free machine."""
    n_waiting_orgs = 0
    for u in range(k):
        take[u] = min(wait[u], n_start)
        n_waiting_orgs += wait[u] > 0
    return n_start < total and n_waiting_orgs > 1




@njit(cache=True, inline="always")
def _gheap_update(ent, running, gheap, gpos, e):  # pragma: no cover - jit
    """Re-key entity e in the global heap by its next completion time (INF when nothing runs)."""
    key = running[ent[e, HEAP_OFF], 0] if ent[e, HEAP_SIZE] > 0 else INF
    if key != gheap[gpos[e], 0]:
        heap_replace(gheap, 0, gheap.shape[0], gpos[e], (key, e), gpos)
