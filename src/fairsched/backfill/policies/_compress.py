"""Incremental compression of conservative reservations: re-plan only the reservations a change can move.

Conservative backfilling keeps a reservation R_j for every waiting job; when a job ends before its requested
time, the schedule is *compressed*: in queue order, each reservation is moved to the earliest slot that fits
against everything else (A. W. Mu'alem, D. G. Feitelson, "Utilization, predictability, workloads, and user
runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001, §2; pyss README §5).
`conservative.compress` does exactly that for every waiting job: lift its reservation, search the profile from
now, put it back. This module gives the same result while searching again only where the profile changed.

When a job can move. Job j (p processors, requested time q) sits at R = R_j. Once its own reservation is
lifted, a start t < R fits iff at least p processors are free on [t, min(t + q, R)) (from R on, the processors
are j's own). So j stays iff every such window holds a *blocking* time x, with fewer than p free.

A certificate. Right after j's reservation is made or re-planned, no t < R fits, and a few blocking times
x_1 < ... < x_r prove it: every window [t, min(t + q, R)), now <= t < R, contains one of them. They are found
greedily from now (`certify`: the last blocking time of the window starting at u, then u = x + 1), and are
at most ceil((R - now) / q) + 1 times or so. Later, time only moves forward (fewer windows) and the profile only
changes where jobs end early or reservations move; as long as each x_i >= now still has fewer than p free, no
window fits and j stays: checking that costs r binary searches, not a search of the profile, and leaves the
profile untouched. When one x_i has become free enough, j is searched from now as in the full re-plan, and
moved (lifted and placed exactly as `conservative.compress` does: same earliest start, same new decision number,
same profile) or re-certified.

A certificate keeps at most `CERT_POINTS` times; when more are needed, it covers the windows starting before
u (``cert[j, CERT_TAIL]``) and the later ones, [u, R), are searched at every compression.

Quiet compressions. Free counts only go up where a job ends before its requested time (the release) or a
reservation moves to an earlier slot (its old slot, minus the new one); a submission only takes processors and
a start at its reservation changes nothing. Once a compression has moved no reservation, every waiting job has
been checked (or certified on arrival) since the last increase, so none could start earlier: ``clock[QUIET]``
says so. A later compression whose release is empty (the job ran exactly its requested time) then has nothing
to find and is skipped whole (`compress_incremental`'s ``released`` argument). Traces without estimates
(OSC-Clust, SDSC-Par: requested = run time) never release anything early, so under them every compression is
skipped; CTC-SP2 skips about 1 in 20.
"""

from __future__ import annotations

from numba import njit

from fairsched.backfill._kernels import next_decision, prof_add, prof_find, queue_move, start_job
from fairsched.backfill.view import (
    CERT_POINTS,
    CERT_TAIL,
    N_PROF,
    N_QUEUE,
    P_FREE,
    P_TIME,
    Q_JOB,
    Q_RES,
    Q_SEQ,
    QUIET,
)


@njit(cache=True)
def first_fit(lo, res, p, q, clock, prof):
    """Earliest t in [lo, res) with at least p free processors on [t, min(t + q, res)); -1 when none."""
    m = clock[N_PROF]
    t = lo
    k = prof_find(prof, m, t)
    while k < m and prof[P_TIME, k] < min(t + q, res):
        if prof[P_FREE, k] < p:  # not the last segment: that one has every processor free
            t = prof[P_TIME, k + 1]
            if t >= res:
                return -1
        k += 1
    return t if t < res else -1


@njit(cache=True)
def certify(now, res, p, q, job, clock, prof, cert):
    """Record blocking times proving that no start in [now, res) fits (module docstring); needs that none fits.

    ``cert[job]`` = (r, x_1, ..., x_r, ..., u): the windows starting before u are covered; u >= res when all are.
    """
    certify_from(now, 0, res, p, q, job, clock, prof, cert)


@njit(cache=True)
def certify_from(u, r, res, p, q, job, clock, prof, cert):
    """`certify`, keeping the first `r` blocking times of ``cert[job]``, which cover the windows starting before
    `u` (`search_from` gives both); the windows from `u` on are certified as `certify` does."""
    m = clock[N_PROF]
    k = prof_find(prof, m, u)  # the next segment to scan: those between x and k are known not to block
    while u < res and r < CERT_POINTS:
        end = min(u + q, res)
        found = -1
        while k < m and prof[P_TIME, k] < end:
            if prof[P_FREE, k] < p:
                found = k
            k += 1
        if found < 0:  # a window fits: not re-planned yet (the caller only certifies re-planned jobs)
            break
        x = min(end, prof[P_TIME, found + 1]) - 1
        r += 1
        cert[job, r] = x
        u = x + 1
        if prof[P_TIME, found + 1] > u:  # the blocking segment goes on past the window: it blocks the next too
            k = found
    cert[job, 0] = r
    cert[job, CERT_TAIL] = u


@njit(cache=True)
def search_from(now, res, p, q, job, clock, prof, cert):
    """Where job's earliest start must be searched from: ``(lo, kept)``, lo = -1 when it cannot move.

    The certificate's times are checked in order; those before `now` are dropped (``cert[job]`` keeps the
    others, `kept` of them). The windows starting in (x_{i-1}, x_i] all contain x_i (each is q long, or ends at
    res), so while x_1, ..., x_{i-1} still block, no start before x_{i-1} + 1 fits: when x_i no longer blocks,
    the search starts there and those i - 1 times stay valid for the new certificate (the move changes the
    profile at or after the new reservation only). When every time blocks, the uncovered tail is searched.
    """
    m = clock[N_PROF]
    lo = now
    kept = 0
    for i in range(1, cert[job, 0] + 1):
        x = cert[job, i]
        if x < now:
            continue
        if prof[P_FREE, prof_find(prof, m, x)] >= p:
            return lo, kept
        kept += 1
        cert[job, kept] = x
        lo = x + 1
    cert[job, 0] = kept
    tail = max(cert[job, CERT_TAIL], now)
    if tail >= res or first_fit(tail, res, p, q, clock, prof) < 0:
        return -1, kept
    return tail, kept


@njit(cache=True)
def stays(now, res, p, q, job, clock, prof, cert):
    """True when job's certificate still holds and no start in its uncovered tail fits: it cannot move."""
    return search_from(now, res, p, q, job, clock, prof, cert)[0] < 0


@njit(cache=True)
def compress_incremental(now, released, clock, queue, hold, prof, cert, req, procs, new, out_start, out_seq):
    """`conservative.compress` (same reservations, decision numbers and starts), searching the profile only
    for the jobs whose certificate no longer holds; nothing at all when `released` is False (the ending job
    freed no processor time) and the last compression moved nothing (module docstring, "Quiet compressions")."""
    if not released and clock[QUIET]:
        return
    quiet = 1
    n = clock[N_QUEUE]
    kept = 0
    for k in range(n):
        job = queue[Q_JOB, k]
        old = queue[Q_RES, k]
        p = procs[job]
        q = req[job]
        res = -1
        lo, held = search_from(now, old, p, q, job, clock, prof, cert)
        if lo >= 0:
            res = first_fit(lo, old, p, q, clock, prof)
            if res >= 0:
                prof_add(prof, clock, old, old + q, p)
                prof_add(prof, clock, res, res + q, -p)
                queue[Q_RES, k] = res
                queue[Q_SEQ, k] = next_decision(clock)
                quiet = 0
            if res != now:
                certify_from(lo, held, queue[Q_RES, k], p, q, job, clock, prof, cert)
        if res == now:
            start_job(job, now, queue[Q_SEQ, k], clock, hold, req, procs, new, out_start, out_seq)
        else:
            queue_move(queue, k, kept)
            kept += 1
    clock[N_QUEUE] = kept
    clock[QUIET] = quiet

