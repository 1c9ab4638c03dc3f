"""Compiled helper of the relaxed fair-start-time what-if (JSSPP'05 §3.1.2; `fairsched.backfill.fairness`).

Job j's submission is an event: the engine runs one scheduling pass right after it (pyss README §1), and that
pass may start *earlier* jobs, e.g. into processors released at this very second by jobs that reached their
requested time (released when time advances, with no pass of their own). The strict what-if and the real run
both have that pass. The relaxed what-if holds j back until every earlier job has started, but must otherwise
be the strict what-if ("the only difference ... is when the newly arriving job is added", §3.1.2): so it runs
the pass of j's arrival without j. Leaving the pass out changes the earlier jobs' schedule and breaks
relaxed >= strict even under FCFS × EASY (tests/test_backfill_fairness.py).
"""

from __future__ import annotations

from numba import njit

from fairsched.backfill._loop import flush_starts
from fairsched.backfill.policies._dispatch import arrival_without_job, is_conservative


@njit(cache=True)
def arrival_pass(rule, order, submit, run, req, procs, clock, hold, heap, queue, new, out_start, out_seq):
    """The pass that a submission at ``now`` triggers, for a job that is held back (not in the queue).

    Mirrors `fairsched.backfill.policies._dispatch.on_submission` minus the queue insertion: none,
    no-guarantee and EASY run one pass over the waiting jobs; conservative only reserves the new job (an
    arrival never moves other reservations), so without the job there is nothing to do. The jobs started
    get their terminations scheduled, as after any handler (`fairsched.backfill._loop.flush_starts`).
    Arrays: the state of `fairsched.backfill.view`; `rule`, `order` are policy codes.
    """
    if not is_conservative(rule):  # conservative and its slow twin: nothing
        arrival_without_job(rule, order, submit, req, procs, clock, hold, queue, new, out_start, out_seq)
        flush_starts(clock, heap, run, new, out_seq)
