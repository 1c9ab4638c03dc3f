"""Incremental compression of conservative reservations: re-plan only the reservations a change can move.

Conservative backfilling keeps a reservation R_j for every waiting job; when a job ends before its requested
time, the schedule is *compressed*: in queue order, each reservation is moved to the earliest slot that fits
against everything else (A. W. Mu'alem, D. G. Feitelson, "Utilization, predictability, workloads, and user
runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001, §2; pyss README §5).
`conservative.compress` does exactly that for every waiting job: lift its reservation, search the profile from
now, put it back. This module gives the same result while looking again only at the jobs whose slot can have
changed.

Why a job can be skipped. Job j (p processors, requested q) sits at R = R_j. Once its own reservation is lifted,
a start t < R fits iff the free-processor profile F has at least p free on [t, min(t + q, R)): beyond R, j's own
reservation is what is lifted. Call that "t fits". Right after j's reservation is made or checked, no t < R
fits (R was the earliest fit). Afterwards, time only moves forward, and F only changes by

* decreases: new reservations, reservations moved *to* a slot, both only occupy processors;
* increases: the unused part [now, S_i + q_i) of a job i ending early, and the part of the slot a moved
  reservation left that its new slot does not cover.

If F never grew anywhere on [now, R) since j was last checked, every window that fits now fitted then: j
stays. More precisely, a window [t, min(t + q, R)) that fits now but did not then contains a time x whose free
count grew to >= p; the last increase covering x had at least p free right after it (later changes only
lowered x's count). So each increase is logged as (begin, end, most free processors on it right after), the
*increase log* (``incr``, layout in `fairsched.backfill.view`), and job j looks only at the entries since
its last check (``seen[j]``) with begin < R and most >= p; a window can only fit if it meets one of them,
i.e. t in (begin - q, end). When no entry qualifies, j stays without touching the profile; otherwise the search
runs on those candidate starts only, and a job that moves is lifted and placed exactly as the full re-plan
places it (same earliest start, same new decision number, same profile).

Every waiting job is visited at every compression, so the log only keeps the entries of the last two
compressions (a job visited in the previous one has seen the older ones). A job checked before the entries it
needs were dropped (never in the engine) is searched in full, which is still exact.

Cost per compression: O(queue × new log entries) comparisons plus one bounded search per job an increase
reaches, instead of a whole-profile search and two profile updates per waiting job.
"""

from __future__ import annotations

from numba import njit

from fairsched.backfill._kernels import next_decision, prof_add, prof_find, queue_move, start_job
from fairsched.backfill.view import (
    I_BEGIN,
    I_END,
    I_WIDTHS,
    LOG_BASE,
    LOG_KEEP,
    N_LOG,
    N_PROCS,
    N_PROF,
    N_QUEUE,
    P_FREE,
    P_TIME,
    Q_JOB,
    Q_RES,
    Q_SEQ,
)


@njit(cache=True)
def log_counter(clock):
    """The number the next log entry will get (a job's ``seen`` value after a check)."""
    return clock[LOG_BASE] + clock[N_LOG]


@njit(cache=True)
def log_open_pass(clock, incr):
    """A compression begins: drop the entries older than the previous compression (module docstring)."""
    drop = clock[LOG_KEEP] - clock[LOG_BASE]
    n = clock[N_LOG]
    if drop > 0:
        for i in range(drop, n):
            for row in range(incr.shape[0]):
                incr[row, i - drop] = incr[row, i]
        clock[N_LOG] = n - drop
        clock[LOG_BASE] += drop
    clock[LOG_KEEP] = log_counter(clock)


@njit(cache=True)
def width_shift(clock, incr):
    """Job widths p share bit ``p >> shift`` of an entry's width set: exact (shift 0) up to 64 x words widths."""
    shift = 0
    while (clock[N_PROCS] >> shift) >= 64 * (incr.shape[0] - I_WIDTHS):
        shift += 1
    return shift


@njit(cache=True)
def _set_widths(incr, i, lo, hi, shift):
    """Mark widths lo..hi (inclusive, 1 <= lo <= hi) in entry i's width set."""
    first = lo >> shift
    last = hi >> shift
    for word in range(first >> 6, (last >> 6) + 1):
        a = max(first, word * 64) - word * 64
        b = min(last, word * 64 + 63) - word * 64
        width = b - a + 1
        mask = -1 if width == 64 else (1 << width) - 1
        incr[I_WIDTHS + word, i] |= mask << a


@njit(cache=True)
def log_increase(clock, incr, prof, begin, end, delta):
    """Log that `delta` more processors are free on [begin, end).

    The entry's width set holds every p for which a time of the interval went from blocking (< p free) to free
    enough (>= p): p in (F(x) - delta, F(x)] for the free count F(x) after the increase, over the interval.
    """
    if end <= begin:
        return
    i = clock[N_LOG]
    incr[I_BEGIN, i] = begin
    incr[I_END, i] = end
    for row in range(I_WIDTHS, incr.shape[0]):
        incr[row, i] = 0
    shift = width_shift(clock, incr)
    m = clock[N_PROF]
    k = prof_find(prof, m, begin)
    while k < m and prof[P_TIME, k] < end:
        free = prof[P_FREE, k]
        if free >= 1:
            _set_widths(incr, i, max(1, free - delta + 1), free, shift)
        k += 1
    clock[N_LOG] = i + 1


@njit(cache=True)
def earlier_fit(now, res, p, q, seen, shift, clock, incr, prof):
    """Earliest start t < `res` that fits for a job (p, q) reserved at `res`, or -1 when it must stay.

    Only starts whose window meets an increase logged since entry `seen` with p in its width set can fit
    (module docstring); t fits iff at least p processors are free on [t, min(t + q, res)).
    """
    lo = res  # candidate starts: [lo, hi)
    hi = now
    first = seen - clock[LOG_BASE]
    if first < 0:  # entries this job needs were dropped: search every start (still exact)
        lo, hi = now, res
    bucket = p >> shift
    word = I_WIDTHS + (bucket >> 6)
    bit = bucket & 63
    for i in range(max(first, 0), clock[N_LOG]):
        if incr[I_BEGIN, i] < res and (incr[word, i] >> bit) & 1:
            lo = min(lo, max(now, incr[I_BEGIN, i] - q + 1))
            hi = max(hi, min(incr[I_END, i], res))
    if lo >= hi:
        return -1
    m = clock[N_PROF]
    t = lo
    k = prof_find(prof, m, t)
    while k < m and prof[P_TIME, k] < min(t + q, res):
        if prof[P_FREE, k] < p:  # not the last segment: that one has every processor free
            t = prof[P_TIME, k + 1]
            if t >= hi:
                return -1
        k += 1
    return t


@njit(cache=True)
def compress_incremental(now, clock, queue, hold, prof, incr, seen, req, procs, new, out_start, out_seq):
    """`conservative.compress` (same reservations, decision numbers and starts), visiting the profile only for
    the jobs a logged increase can move. The caller has opened the pass and logged the ended job's increase."""
    n = clock[N_QUEUE]
    shift = width_shift(clock, incr)
    kept = 0
    for k in range(n):
        job = queue[Q_JOB, k]
        old = queue[Q_RES, k]
        p = procs[job]
        q = req[job]
        res = earlier_fit(now, old, p, q, seen[job], shift, clock, incr, prof)
        if res >= 0:
            prof_add(prof, clock, old, old + q, p)
            prof_add(prof, clock, res, res + q, -p)
            log_increase(clock, incr, prof, max(old, res + q), old + q, p)
            queue[Q_RES, k] = res
            queue[Q_SEQ, k] = next_decision(clock)
        seen[job] = log_counter(clock)
        if res == now:
            start_job(job, now, queue[Q_SEQ, k], clock, hold, req, procs, new, out_start, out_seq)
        else:
            queue_move(queue, k, kept)
            kept += 1
    clock[N_QUEUE] = kept
