"""Compiled lockstep simulation of many coalitions: the engine behind the REF and RAND policies.

SPAA'13 Algorithm 1 keeps a schedule σ[C] for every coalition C: C pools its members' machines (identical) and
runs only its members' jobs. The value of a coalition is v(C, t) = Σ_{u∈C} ψ_u(σ[C], t) (ψ = ψsp, Eq. (3)).
Here every simulated coalition is an *entity*; all entities advance together on integer time, event by event:

- at each time t (the next release or the next completion in any entity) the releases are applied once,
  globally (organization u's jobs reach every coalition containing u at the same time), then every entity
  with a completion at t, or with a free machine and a member that released a job at t, is processed, in
  increasing coalition size (so the values of all proper subcoalitions at t are final when C decides);
- an entity decides when it has free machines and waiting jobs. Rule FIFO starts the waiting jobs in release
  order (RAND's simplified schedules, SPAA'13 Alg. 3). Rule FAIR (REF, and RAND's real schedule) starts every
  waiting job when there is no contention (free machines >= waiting jobs: which job goes to which identical
  machine does not matter); under contention it computes the contributions φ and selects (see `SELECT_*`).

Only the decisions of one entity (the grand coalition's schedule) are output; no per-entity per-job array is
stored, so 2**k coalitions fit in memory even for 214k jobs.

Values are lazy and exact: between its own events an entity's running count n is constant, so
v(t0 + d) = v(t0) + d·W(t0) + n·d(d+1)/2 (SPAA'13 Eq. (3) in closed form, as in `_kernels.advance`), and an
entity without events at t needs no work.

State layout (all int64):

``ent`` (E, N_ENT_FIELDS), one row per entity: NOW (time of its last update), FREE machines, VALUE = Σ_u ψ_u and
WORK_TOTAL = Σ_u W_u at NOW, HEAP_SIZE, RUNNING_TOTAL, MASK (members' bits), MACHINES m(C), HEAP_OFF (start of
its part of the heap arrays), RULE, GROUP = 2·|C| + RULE (the processing order within one time step).
``mem`` (E, N_MEM_FIELDS, k): per member RUN (running jobs), STARTED (jobs started = FIFO head pointer), PSI, WORK.
``heap_end`` / ``heap_org``: entity e's running jobs (end, owner) form a binary heap in
``[HEAP_OFF, HEAP_OFF + MACHINES)``, ordered like `_kernels`' heaps by (end, owner) (which of two jobs ending
together is popped first does not matter). A global indexed heap (``gheap``, ``gpos``, ``gkey``) orders the
entities by their next completion time.

Sequential jobs of organization u, in its FIFO order, are ``seq_*[org_ptr[u]:org_ptr[u+1]]``; ``seq_gid`` is
the job's global position in release order (ties: record order), which FIFO uses to merge members' queues.

The `_kernels` primitives work on one simulator's arrays (a heap per array, a clock row); here the heaps share
arrays and the state is indexed directly, for speed (see the numba note above `_run`), so this module has its
own offset-based variants of ``advance``, ``heap_push`` and ``heap_pop``, with the same formulas and order.

References
----------
P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013 (long
version, arXiv 1302.0948), Sec. 3 (Def. 3.1, 3.2, Algorithm 1, Algorithm 2) and Sec. 5.1 (Algorithm 3).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

from fairsched.errors import ConfigError, InvariantError
from fairsched.online.view import Assignment, OnlineView
from fairsched.scenario import COPIES, ORG, PROCESSING_TIME, RELEASE
from fairsched.shapley import shapley_error_bound

NOW, FREE, VALUE, WORK_TOTAL, HEAP_SIZE, RUNNING_TOTAL, MASK, MACHINES, HEAP_OFF, RULE, GROUP = range(11)
N_ENT_FIELDS = 11
RUN, STARTED, PSI, WORK = range(4)
N_MEM_FIELDS = 4

RULE_FIFO, RULE_FAIR = 0, 1
SELECT_LITERAL, SELECT_LOOKAHEAD = 0, 1
SELECT_RULES = {"literal": SELECT_LITERAL, "lookahead": SELECT_LOOKAHEAD}
CONTRIB_EXACT, CONTRIB_SAMPLED = 0, 1

# cfg (int64): which entity is output, the selection and contribution rules, options.
CFG_GRAND, CFG_SELECT, CFG_CONTRIB, CFG_CHECK_EFFICIENCY, CFG_RECORD, CFG_K, CFG_HORIZON = range(7)
# glob (int64): run-time counters and the error report.
G_NEXT_REC, G_GRAND_LEFT, G_N_DEC, G_N_DEC_ORGS, G_N_REC, G_ERR_T, G_ERR_ENT = range(7)
N_GLOB = 7
OK, EFFICIENCY_BROKEN = 0, 1

INF = np.int64(2**62)
EFFICIENCY_RTOL = 1e-9          # Σ_u φ_u = v(C) up to this relative error (float64 potential, k <= 16)
_UNIT_ROUNDOFF = 2.0**-53

Jobs = namedtuple("Jobs", "rec_release rec_org rec_copies org_ptr seq_proc seq_gid")
State = namedtuple("State", "ent mem heap_end heap_org rel_count glob gheap gpos gkey mark")
Rules = namedtuple("Rules", "cfg value_ent term_org term_pre term_post term_weight sampled_tol")
Scratch = namedtuple("Scratch", "pot pot_vmax pot_stamp pot_stack phi gain take wait eligible todo stack stack2 "
                                 "group_count")
Output = namedtuple("Output", "dec_time dec_ptr dec_orgs rec_time rec_phi rec_values")


# -- Python side: which coalitions, and the front door -------------------------------------------------------------
@dataclass(frozen=True)
class CoalitionSet:
    """The entities to simulate and how the output entity computes contributions.

    Attributes
    ----------
    n_orgs : k.
    masks, rules : (E,) coalition bitmask and rule (`RULE_FIFO` / `RULE_FAIR`) of each entity, sorted by
        (size, rule, mask): the processing order within one time step.
    grand : index of the entity whose decisions are output (always the grand coalition).
    value_ent : (2**k,) entity holding v(S) for the exact contributions (-1: none; exact mode only).
    term_org, term_pre, term_post, term_weight : sampled contributions φ_u = Σ_j w_j (v(post_j) − v(pre_j))
        over the terms j of organization u (entity indices; -1 = the empty coalition, v = 0).
    """

    n_orgs: int
    masks: np.ndarray
    rules: np.ndarray
    grand: int
    value_ent: np.ndarray
    term_org: np.ndarray
    term_pre: np.ndarray
    term_post: np.ndarray
    term_weight: np.ndarray

    @property
    def exact(self) -> bool:
        return self.term_org.size == 0


def _sorted_entities(k: int, masks: np.ndarray, rules: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sizes = np.array([bin(int(m)).count("1") for m in masks], dtype=np.int64)
    order = np.lexsort((masks, rules, sizes))
    return masks[order].astype(np.int64), rules[order].astype(np.int64)


def all_coalitions(k: int) -> CoalitionSet:
    """REF: every non-empty coalition, each scheduled by the fair rule; exact contributions (SPAA'13 Alg. 1)."""
    masks, rules = _sorted_entities(k, np.arange(1, 1 << k, dtype=np.int64), np.full((1 << k) - 1, RULE_FAIR))
    value_ent = np.full(1 << k, -1, dtype=np.int64)
    value_ent[masks] = np.arange(masks.size, dtype=np.int64)
    none_i, none_f = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    return CoalitionSet(k, masks, rules, int(value_ent[(1 << k) - 1]), value_ent, none_i, none_i, none_i, none_f)


def sampled_coalitions(k: int, term_org: np.ndarray, term_before: np.ndarray,
                       term_weight: np.ndarray) -> CoalitionSet:
    """RAND: FIFO schedules for the coalitions B and B ∪ {u} of every term (u, B, w), deduplicated, plus the real
    schedule of the grand coalition (fair rule); φ_u = Σ_terms w · (v(B ∪ {u}) − v(B)) (SPAA'13 Alg. 3)."""
    org = np.asarray(term_org, dtype=np.int64)
    before = np.asarray(term_before, dtype=np.int64)
    after = before | (np.int64(1) << org)
    kept = np.unique(np.concatenate([before, after]))
    kept = kept[kept != 0]
    masks = np.concatenate([kept, [(1 << k) - 1]])
    rules = np.concatenate([np.full(kept.size, RULE_FIFO), [RULE_FAIR]])
    masks, rules = _sorted_entities(k, masks, rules)
    fifo = rules == RULE_FIFO
    index_of = {int(m): i for i, m in zip(np.flatnonzero(fifo), masks[fifo], strict=True)}
    index_of[0] = -1
    grand = int(np.flatnonzero(~fifo)[0])
    pre = np.array([index_of[int(b)] for b in before], dtype=np.int64)
    post = np.array([index_of[int(a)] for a in after], dtype=np.int64)
    return CoalitionSet(k, masks, rules, grand, np.full(1 << k, -1, dtype=np.int64), org, pre, post,
                        np.asarray(term_weight, dtype=np.float64))


@dataclass(frozen=True)
class CoalitionRun:
    """The grand coalition's decisions, and (with ``record``) what it saw at each decision that needed φ.

    Decision i happens at ``decision_times[i]`` and starts the head jobs of
    ``decision_orgs[decision_ptr[i]:decision_ptr[i+1]]``, in this order. ``record_times[r]`` is the time at
    which the contributions ``record_phi[r]`` (k,) and the values ``record_values[r]`` (E,) of every entity
    were evaluated (t for the literal rule, t + 1 for lookahead); ``entity_masks`` names the entities.
    """

    decision_times: np.ndarray
    decision_ptr: np.ndarray
    decision_orgs: np.ndarray
    entity_masks: np.ndarray
    record_times: np.ndarray
    record_phi: np.ndarray
    record_values: np.ndarray

    @property
    def n_decisions(self) -> int:
        return int(self.decision_times.size)

    def orgs_at(self, index: int, now: int, n_to_start: int, policy_name: str) -> np.ndarray:
        """The organizations of decision `index`, checked against the engine's own decision point."""
        if index >= self.n_decisions or self.decision_times[index] != now:
            planned = "none left" if index >= self.n_decisions else f"t={int(self.decision_times[index])}"
            raise InvariantError(f"{policy_name}: the engine asks for a decision at t={now}, but the coalition "
                                 f"simulation's next decision of the grand coalition is at {planned}")
        orgs = self.decision_orgs[self.decision_ptr[index]:self.decision_ptr[index + 1]]
        if orgs.size != n_to_start:
            raise InvariantError(f"{policy_name} at t={now}: the coalition simulation started {orgs.size} jobs, "
                                 f"the engine expects {n_to_start}")
        return orgs


class ReplayDecisions:
    """Policy mixin: `decide` replays ``self.run_`` (a `CoalitionRun` computed in ``reset``), one decision per call.

    The engine re-simulates the grand coalition and validates every decision, so the reported schedule is
    the engine's own; a mismatch of decision times or counts is a bug (InvariantError).
    """

    run_: CoalitionRun
    next_decision_: int

    def decide(self, view: OnlineView) -> Assignment:
        orgs = self.run_.orgs_at(self.next_decision_, view.now, view.n_to_start, getattr(self, "name", "policy"))
        self.next_decision_ += 1
        return Assignment(orgs=orgs)


def simulate_coalitions(jobs: pd.DataFrame, machines_per_org: np.ndarray, coalitions: CoalitionSet, *,
                        select: str = "lookahead", horizon: int | None = None, check_efficiency: bool = False,
                        record: bool = False) -> CoalitionRun:
    """Simulate every entity of `coalitions` in lockstep; return the grand coalition's decisions.

    Implements SPAA'13 Algorithm 1 with SelectAndSchedule of Algorithm 2 (fair rule) and the simplified
    schedules of Algorithm 3 (FIFO rule); see the module docstring and docs/online-policies.md.

    Parameters
    ----------
    jobs : the scenario's jobs table (`fairsched.scenario.SCENARIO_COLUMNS`), sorted by release.
    machines_per_org : (k,) m(u).
    coalitions : `all_coalitions` (REF) or `sampled_coalitions` (RAND).
    select : "lookahead" or "literal" (how the fair rule shares free machines under contention).
    horizon : stop after the decisions at this time (None: when the grand coalition has started every job).
    check_efficiency : at every exact contribution computation check Σ_u φ_u = v(C) (raise InvariantError).
    record : keep φ and all entity values at each grand-coalition decision that needed φ (tests; O(E) each).

    Complexity: O(events · log E) for the event queue plus O(|C|·2^|C|) per contended decision of C (exact), or
    O(terms) (sampled). Memory O(E·k + Σ_C m(C) + jobs).
    """
    if select not in SELECT_RULES:
        raise ConfigError(f"select={select!r}; choose one of: {', '.join(SELECT_RULES)}")
    k = coalitions.n_orgs
    job_arrays = _job_arrays(jobs, k)
    _check_no_overflow(job_arrays, np.asarray(machines_per_org), horizon)
    state = _initial_state(coalitions, np.asarray(machines_per_org, dtype=np.int64))
    n_seq = job_arrays.seq_proc.size
    rules = _rules(coalitions, SELECT_RULES[select], -1 if horizon is None else int(horizon), check_efficiency,
                   record)
    n_coalitions = coalitions.masks.size
    scratch = Scratch(pot=np.zeros(1 << k), pot_vmax=np.zeros(1 << k), pot_stamp=np.full(1 << k, -1, dtype=np.int64),
                      pot_stack=np.zeros(k + k * k + 1, dtype=np.int64), phi=np.zeros(k), gain=np.zeros(k),
                      take=np.zeros(k, dtype=np.int64), wait=np.zeros(k, dtype=np.int64),
                      eligible=np.zeros(k, dtype=np.bool_), todo=np.zeros(n_coalitions, dtype=np.int64),
                      stack=np.zeros(n_coalitions, dtype=np.int64), stack2=np.zeros(n_coalitions, dtype=np.int64),
                      group_count=np.zeros(2 * k + 3, dtype=np.int64))
    n_rec = n_seq if record else 0
    out = Output(np.zeros(n_seq, dtype=np.int64), np.zeros(n_seq + 1, dtype=np.int64), np.zeros(n_seq, dtype=np.int64),
                 np.zeros(n_rec, dtype=np.int64), np.zeros((n_rec, k)), np.zeros((n_rec, coalitions.masks.size)))
    state.glob[G_GRAND_LEFT] = n_seq
    code = _run(job_arrays, state, rules, scratch, out)
    if code == EFFICIENCY_BROKEN:
        t, e = int(state.glob[G_ERR_T]), int(state.glob[G_ERR_ENT])
        raise InvariantError(f"REF efficiency broken at t={t} in coalition {coalitions.masks[e]:#b}: "
                             f"sum of Shapley values != v(C) beyond relative tolerance {EFFICIENCY_RTOL}")
    n_dec, n_recorded = int(state.glob[G_N_DEC]), int(state.glob[G_N_REC])
    return CoalitionRun(out.dec_time[:n_dec].copy(), out.dec_ptr[:n_dec + 1].copy(),
                        out.dec_orgs[:out.dec_ptr[n_dec]].copy(), coalitions.masks.copy(),
                        out.rec_time[:n_recorded].copy(), out.rec_phi[:n_recorded].copy(),
                        out.rec_values[:n_recorded].copy())


def _job_arrays(jobs: pd.DataFrame, k: int) -> Jobs:
    """Records in release order, and every organization's sequential jobs in its FIFO order (copies expanded).

    Writable copies throughout: the kernel is compiled once, for one array type (pandas may hand out read-only).
    """
    release = jobs[RELEASE].to_numpy(np.int64, copy=True)
    if release.size and np.any(np.diff(release) < 0):
        raise ConfigError("scenario jobs must be sorted by release time")
    org = jobs[ORG].to_numpy(np.int64, copy=True)
    copies = jobs[COPIES].to_numpy(np.int64, copy=True)
    seq_record = np.repeat(np.arange(release.size, dtype=np.int64), copies)
    order = np.argsort(org[seq_record], kind="stable").astype(np.int64)  # by org, then release order
    org_ptr = np.concatenate(([0], np.cumsum(np.bincount(org, weights=copies, minlength=k)))).astype(np.int64)
    seq_proc = jobs[PROCESSING_TIME].to_numpy(np.int64)[seq_record][order]
    return Jobs(release, org, copies, org_ptr, np.ascontiguousarray(seq_proc), order)


def _check_no_overflow(jobs: Jobs, machines_per_org: np.ndarray, horizon: int | None) -> None:
    """Refuse scenarios whose int64 utilities could overflow in some coalition.

    Coalitions are simulated until the grand coalition has started its last job, which greedy list scheduling
    does by t_max = last release + total work / m (or until the horizon); values are read up to t_max + 1, and
    every ψ is then at most m·t²/2 (as in the engine).
    """
    m = int(machines_per_org.sum())
    if jobs.seq_proc.size == 0 or m == 0:
        return
    t_max = float(jobs.rec_release[-1]) + float(jobs.seq_proc.astype(np.float64).sum()) / m + 1
    if horizon is not None:
        t_max = min(t_max, float(horizon) + 1)
    if m * t_max * t_max / 2 > 2.0**62:
        raise ConfigError(f"coalition utilities could overflow 64-bit integers ({m} machines over up to "
                          f"{t_max:.3g} s); simulate a time window (--window-length)")


def _initial_state(coalitions: CoalitionSet, machines_per_org: np.ndarray) -> State:
    masks = coalitions.masks
    n_ent, k = masks.size, coalitions.n_orgs
    member = (masks[:, None] >> np.arange(k)) & 1
    machines = member @ machines_per_org
    ent = np.zeros((n_ent, N_ENT_FIELDS), dtype=np.int64)
    ent[:, FREE] = machines
    ent[:, MASK] = masks
    ent[:, MACHINES] = machines
    ent[:, HEAP_OFF] = np.concatenate(([0], np.cumsum(machines)[:-1]))
    ent[:, RULE] = coalitions.rules
    ent[:, GROUP] = 2 * member.sum(axis=1) + coalitions.rules
    capacity = int(machines.sum())
    return State(ent, np.zeros((n_ent, N_MEM_FIELDS, k), dtype=np.int64), np.zeros(capacity, dtype=np.int64),
                 np.zeros(capacity, dtype=np.int64), np.zeros(k, dtype=np.int64), np.zeros(N_GLOB, dtype=np.int64),
                 np.arange(n_ent, dtype=np.int64), np.arange(n_ent, dtype=np.int64), np.full(n_ent, INF),
                 np.zeros(n_ent, dtype=np.int64))


def _rules(coalitions: CoalitionSet, select: int, horizon: int, check_efficiency: bool, record: bool) -> Rules:
    cfg = np.zeros(7, dtype=np.int64)
    cfg[CFG_GRAND], cfg[CFG_SELECT], cfg[CFG_K], cfg[CFG_HORIZON] = coalitions.grand, select, coalitions.n_orgs, horizon
    cfg[CFG_CONTRIB] = CONTRIB_EXACT if coalitions.exact else CONTRIB_SAMPLED
    cfg[CFG_CHECK_EFFICIENCY], cfg[CFG_RECORD] = int(check_efficiency), int(record)
    if coalitions.exact and np.any(coalitions.value_ent[1:] < 0):
        raise ValueError("exact contributions need a value for every non-empty coalition")
    # Sampled φ_u sums at most T terms w·(integer difference), Σ|w·diff| <= vmax: error <= (T + 1)·u·vmax each;
    # two lags are compared, hence the factor 4 (ties within this bound are treated as exact ties).
    per_org = np.bincount(coalitions.term_org, minlength=coalitions.n_orgs).max(initial=0)
    sampled_tol = np.array([4.0 * (per_org + 1) * _UNIT_ROUNDOFF])
    return Rules(cfg, coalitions.value_ent, coalitions.term_org, coalitions.term_pre, coalitions.term_post,
                 coalitions.term_weight, sampled_tol)


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
    ent, mem, heap_end, heap_org = st.ent, st.mem, st.heap_end, st.heap_org
    rel_count, glob, gheap, gpos, gkey, mark = st.rel_count, st.glob, st.gheap, st.gpos, st.gkey, st.mark
    wait, take, todo, stack, stack2, group_count = sc.wait, sc.take, sc.todo, sc.stack, sc.stack2, sc.group_count
    dec_time, dec_ptr, dec_orgs = out.dec_time, out.dec_ptr, out.dec_orgs
    cfg, value_ent, sampled_tol = rules.cfg, rules.value_ent, rules.sampled_tol
    terms = (rules.term_org, rules.term_pre, rules.term_post, rules.term_weight)
    work = (sc.pot, sc.pot_vmax, sc.pot_stamp, sc.pot_stack, sc.phi, sc.gain, sc.eligible)
    recs = (out.rec_time, out.rec_phi, out.rec_values)
    k, grand = cfg[CFG_K], cfg[CFG_GRAND]
    while glob[G_GRAND_LEFT] > 0:
        t = _next_time(rec_release, glob, gheap, gkey)
        if t < 0 or 0 <= cfg[CFG_HORIZON] < t:
            break
        released = _release(rec_release, rec_org, rec_copies, rel_count, glob, t)
        n = _collect(ent, gheap, gkey, mark, todo, stack, stack2, group_count, t, released)
        for i in range(n):
            e = todo[i]
            _advance(ent, mem, e, t, k)
            _complete(ent, mem, heap_end, heap_org, e, t)
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
                        _start(ent, mem, heap_end, heap_org, org_ptr, seq_proc, e, u, t)
                        if e == grand:
                            dec_orgs[glob[G_N_DEC_ORGS]] = u
                            glob[G_N_DEC_ORGS] += 1
                            glob[G_GRAND_LEFT] -= 1
                if e == grand:
                    glob[G_N_DEC] += 1
                    dec_ptr[glob[G_N_DEC]] = glob[G_N_DEC_ORGS]
            _gheap_update(ent, heap_end, gheap, gpos, gkey, e)
    return OK


@njit(cache=True, inline="always")
def _next_time(rec_release, glob, gheap, gkey):  # pragma: no cover - jit
    """The next release or completion time in any entity; -1 when nothing is left to happen."""
    nxt = -1
    if glob[G_NEXT_REC] < rec_release.size:
        nxt = rec_release[glob[G_NEXT_REC]]
    first = gkey[gheap[0]]
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
def _collect(ent, gheap, gkey, mark, todo, stack, found, group_count, t, released):  # pragma: no cover - jit
    """Entities to process at t into ``todo[:n]``, in processing order: those with a completion at t (the heap
    nodes keyed t form a subtree at the root) and those with a free machine and a member releasing at t."""
    n = 0
    top = 0
    if gkey[gheap[0]] == t:
        stack[0] = 0
        top = 1
    while top > 0:
        top -= 1
        pos = stack[top]
        found[n] = gheap[pos]
        mark[gheap[pos]] = t + 1
        n += 1
        for child in (2 * pos + 1, 2 * pos + 2):
            if child < gheap.size and gkey[gheap[child]] == t:
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
def _heap_less(heap_end, heap_org, i, j):  # pragma: no cover - jit
    return heap_end[i] < heap_end[j] or (heap_end[i] == heap_end[j] and heap_org[i] < heap_org[j])


@njit(cache=True, inline="always")
def _heap_swap(heap_end, heap_org, i, j):  # pragma: no cover - jit
    heap_end[i], heap_end[j] = heap_end[j], heap_end[i]
    heap_org[i], heap_org[j] = heap_org[j], heap_org[i]


@njit(cache=True, inline="always")
def _heap_push(ent, heap_end, heap_org, e, end, u):  # pragma: no cover - jit
    """`_kernels.heap_push` on entity e's part of the shared heap arrays (offsets, not slices: see above)."""
    off = ent[e, HEAP_OFF]
    i = ent[e, HEAP_SIZE]
    heap_end[off + i] = end
    heap_org[off + i] = u
    ent[e, HEAP_SIZE] = i + 1
    while i > 0 and _heap_less(heap_end, heap_org, off + i, off + (i - 1) // 2):
        _heap_swap(heap_end, heap_org, off + i, off + (i - 1) // 2)
        i = (i - 1) // 2


@njit(cache=True, inline="always")
def _heap_pop(ent, heap_end, heap_org, e):  # pragma: no cover - jit
    """`_kernels.heap_pop` on entity e's part of the shared heap arrays; returns the owner of the job."""
    off = ent[e, HEAP_OFF]
    top = heap_org[off]
    n = ent[e, HEAP_SIZE] - 1
    ent[e, HEAP_SIZE] = n
    heap_end[off] = heap_end[off + n]
    heap_org[off] = heap_org[off + n]
    i = 0
    while 2 * i + 1 < n:
        child = 2 * i + 1
        if child + 1 < n and _heap_less(heap_end, heap_org, off + child + 1, off + child):
            child += 1
        if not _heap_less(heap_end, heap_org, off + child, off + i):
            break
        _heap_swap(heap_end, heap_org, off + i, off + child)
        i = child
    return top


@njit(cache=True, inline="always")
def _complete(ent, mem, heap_end, heap_org, e, t):  # pragma: no cover - jit
    """Pop every job of entity e ending at or before t."""
    while ent[e, HEAP_SIZE] > 0 and heap_end[ent[e, HEAP_OFF]] <= t:
        u = _heap_pop(ent, heap_end, heap_org, e)
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
def _start(ent, mem, heap_end, heap_org, org_ptr, seq_proc, e, u, t):  # pragma: no cover - jit
    """Start organization u's head job (FIFO) in entity e at t."""
    _heap_push(ent, heap_end, heap_org, e, t + seq_proc[org_ptr[u] + mem[e, STARTED, u]], u)
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
def _share_fairly(ent, mem, cfg, value_ent, sampled_tol, terms, work, wait, take, recs, glob, e, t,
                  n_start):  # pragma: no cover - jit
    """SPAA'13 Alg. 1 lines 36–37 with Alg. 2 under contention: φ, then `_select_*` into ``take``.

    Literal rule: φ(t), all values at t (UpdateVals). Lookahead: φ(t + 1); every proper subcoalition has
    already decided at t, and v(C, t + 1) = Σ_u (ψ_u + W_u + n_u) + n_start because every job running during
    [t, t + 1) adds exactly 1, whichever jobs start (greedy, identical machines). Returns False when the
    efficiency check fails (time and entity in ``glob``). ``terms``, ``work`` and ``recs`` are tuples of
    arrays (see `Rules`, `Scratch`, `Output`).
    """
    k = cfg[CFG_K]
    pot, pot_vmax, pot_stamp, pot_stack, phi, gain, eligible = work
    literal = cfg[CFG_SELECT] == SELECT_LITERAL
    t_eval = t if literal else t + 1
    v_self = ent[e, VALUE] if literal else ent[e, VALUE] + ent[e, WORK_TOTAL] + ent[e, RUNNING_TOTAL] + n_start
    if cfg[CFG_CONTRIB] == CONTRIB_EXACT:
        vmax, size = _phi_exact(ent, value_ent, pot, pot_vmax, pot_stamp, pot_stack, phi, e, t_eval,
                                 v_self)
        tol = 4.0 * shapley_error_bound(size, vmax) + 8.0 * _UNIT_ROUNDOFF * vmax
        if cfg[CFG_CHECK_EFFICIENCY] and not _efficient(phi, ent[e, MASK], v_self, vmax, k):
            glob[G_ERR_T] = t
            glob[G_ERR_ENT] = e
            return False
    else:
        vmax = _phi_sampled(ent, terms[0], terms[1], terms[2], terms[3], phi, t_eval, k)
        tol = sampled_tol[0] * vmax + 8.0 * _UNIT_ROUNDOFF * vmax
    if cfg[CFG_RECORD] and e == cfg[CFG_GRAND]:
        _record(ent, phi, recs[0], recs[1], recs[2], glob, e, t_eval, v_self, k)
    if literal:
        _select_literal(mem, phi, gain, wait, take, eligible, e, n_start, tol, k)
    else:
        _select_lookahead(mem, phi, gain, wait, take, eligible, e, n_start, tol, k)
    return True


@njit(cache=True, inline="always")
def _value_at(ent, f, t_eval):  # pragma: no cover - jit
    """v(S, t_eval) of entity f (S = its coalition) in closed form from its last update; 0 for f = -1 (∅)."""
    if f < 0:
        return 0
    d = t_eval - ent[f, NOW]
    return ent[f, VALUE] + d * ent[f, WORK_TOTAL] + ent[f, RUNNING_TOTAL] * (d * (d + 1) // 2)


@njit(cache=True, inline="always")
def _phi_exact(ent, value_ent, pot, pot_vmax, pot_stamp, pot_stack, phi, e, t_eval, v_self):  # pragma: no cover - jit
    """Exact φ^C via the Hart–Mas-Colell potential; returns (max |v(S)| over S ⊆ C, |C|).

    P(S) = (v(S) + Σ_{i∈S} P(S∖{i})) / |S| depends only on the values of the subsets of S, so the potential of
    the subgame on C is the full game's potential restricted to C (Hart & Mas-Colell 1989, Sec. 2), and one
    potential per time step serves every coalition deciding at that step: ``pot[S]`` is computed once per
    t_eval (``pot_stamp[S] == t_eval``) by `_potential_at`, instead of once per deciding superset of S. This
    costs O(k) per subset touched, at most O(k·2^k) per time step for all coalitions together, where a
    separate subgame per coalition costs Σ_C |C|·2^|C| = O(k·3^k). The values, the order of the sums and
    the divisions are those of `potential_into` on the subgame, so φ is the same float64 number
    (tests/test_ref.py checks it bit for bit).
    """
    mask = ent[e, MASK]
    p_self, vmax, size = _potential_at(ent, value_ent, pot, pot_vmax, pot_stamp, pot_stack, mask, t_eval, v_self)
    for u in range(phi.size):
        phi[u] = 0.0
        if (mask >> u) & 1:
            phi[u] = p_self - pot[mask & ~(1 << u)]  # `shapley_of`: P(C) − P(C∖{u})
    return vmax, size


@njit(cache=True, inline="always")
def _potential_at(ent, value_ent, pot, pot_vmax, pot_stamp, pot_stack, mask, t_eval,
                  v_self):  # pragma: no cover - jit
    """P(C) at t_eval with v(C) = ``v_self``, after making P(S) current for every proper subset S of C.

    Depth-first over the subsets whose ``pot_stamp`` is stale, children (S∖{i}) before parents; every proper
    subcoalition of C has decided at t already (coalitions decide in increasing size), so each v(S, t_eval)
    is final when read. ``pot_vmax[S]`` = max |v(T)| over T ⊆ S, for the error bound. The stack never holds
    more than k + k·k entries (each level of the depth-first path pushes at most k children).
    Returns (P(C), max |v(S)| over S ⊆ C, |C|); P(C) is stored too, for C's supersets at the same time.
    """
    top = 0
    rest = mask
    while rest:
        low = rest & -rest
        child = mask ^ low
        if child and pot_stamp[child] != t_eval:
            pot_stack[top] = child
            top += 1
        rest ^= low
    while top > 0:
        s = pot_stack[top - 1]
        if pot_stamp[s] == t_eval:
            top -= 1
            continue
        ready = True
        rest = s
        while rest:
            low = rest & -rest
            child = s ^ low
            if child and pot_stamp[child] != t_eval:
                pot_stack[top] = child
                top += 1
                ready = False
            rest ^= low
        if ready:
            _potential_step(pot, pot_vmax, pot_stamp, s, t_eval, float(_value_at(ent, value_ent[s], t_eval)))
            top -= 1
    size = _potential_step(pot, pot_vmax, pot_stamp, mask, t_eval, float(v_self))
    return pot[mask], pot_vmax[mask], size


@njit(cache=True, inline="always")
def _potential_step(pot, pot_vmax, pot_stamp, s, t_eval, value):  # pragma: no cover - jit
    """P(S) = (v(S) + Σ_{i∈S} P(S∖{i})) / |S| as in `potential_into` (members in increasing order; P(∅) = 0,
    kept in ``pot[0]``), and max |v(T)| over T ⊆ S; returns |S|."""
    acc = value
    vmax = abs(value)
    size = 0
    rest = s
    while rest:
        low = rest & -rest
        acc += pot[s ^ low]
        vmax = max(vmax, pot_vmax[s ^ low])
        rest ^= low
        size += 1
    pot[s] = acc / size
    pot_vmax[s] = vmax
    pot_stamp[s] = t_eval
    return size


@njit(cache=True, inline="always")
def _phi_sampled(ent, term_org, term_pre, term_post, term_weight, phi, t_eval, k):  # pragma: no cover - jit
    """RAND's φ_u = Σ_j w_j (v(post_j) − v(pre_j)) over u's terms (SPAA'13 Alg. 3, lines 32–37)."""
    for u in range(k):
        phi[u] = 0.0
    vmax = 0.0
    for j in range(term_org.size):
        post = _value_at(ent, term_post[j], t_eval)
        pre = _value_at(ent, term_pre[j], t_eval)
        phi[term_org[j]] += term_weight[j] * float(post - pre)  # the int64 difference is exact
        vmax = max(vmax, abs(float(post)), abs(float(pre)))
    return vmax


@njit(cache=True, inline="always")
def _efficient(phi, mask, v_self, vmax, k):  # pragma: no cover - jit
    """Shapley efficiency: Σ_{u∈C} φ_u = v(C), up to `EFFICIENCY_RTOL` of the largest value involved."""
    total = 0.0
    for u in range(k):
        if (mask >> u) & 1:
            total += phi[u]
    return abs(total - float(v_self)) <= EFFICIENCY_RTOL * max(1.0, vmax)


@njit(cache=True, inline="always")
def _record(ent, phi, rec_time, rec_phi, rec_values, glob, e, t_eval, v_self, k):  # pragma: no cover - jit
    """Tests: keep t_eval, φ and the value of every entity at t_eval (all are final: e is processed last)."""
    r = glob[G_N_REC]
    rec_time[r] = t_eval
    for u in range(k):
        rec_phi[r, u] = phi[u]
    for f in range(ent.shape[0]):
        rec_values[r, f] = float(v_self if f == e else _value_at(ent, f, t_eval))
    glob[G_N_REC] = r + 1


@njit(cache=True, inline="always")
def _argmax(values, eligible, tol, k):  # pragma: no cover - jit
    """Index of the largest value among eligible organizations; values within `tol` of the best so far count
    as ties, which go to the lowest index (tol is the float64 error bound, so exact ties stay ties)."""
    best = -1
    best_value = 0.0
    for u in range(k):
        if eligible[u] and (best < 0 or values[u] > best_value + tol):
            best, best_value = u, values[u]
    return best


@njit(cache=True, inline="always")
def _select_literal(mem, phi, gain, wait, take, eligible, e, n_start, tol, k):  # pragma: no cover - jit
    """SPAA'13 Alg. 2: start the head job of argmax_u (φ_u − ψ_u). Neither changes within t (a job started at t
    adds 0 to ψsp(t)), so that organization takes machines until its queue is empty, then the next one."""
    for u in range(k):
        gain[u] = phi[u] - float(mem[e, PSI, u])
        eligible[u] = wait[u] > 0
        take[u] = 0
    left = n_start
    while left > 0:
        best = _argmax(gain, eligible, tol, k)
        take[best] = min(wait[best], left)
        left -= take[best]
        eligible[best] = False


@njit(cache=True, inline="always")
def _select_lookahead(mem, phi, gain, wait, take, eligible, e, n_start, tol, k):  # pragma: no cover - jit
    """Give the free machines one at a time to argmax_u (g_u − x_u), g_u = φ_u(t+1) − (ψ_u + W_u + n_u).

    With x_u jobs of u started at t, ψ_u(t + 1) = ψ_u + W_u + n_u + x_u, so this minimizes
    Σ_u |φ_u(t + 1) − ψ_u(t + 1)| = Σ_u |g_u − x_u| over 0 <= x_u <= waiting_u, Σ x_u = n_start (a separable
    convex apportionment: each machine goes where it lowers the distance most).
    """
    for u in range(k):
        gain[u] = phi[u] - float(mem[e, PSI, u] + mem[e, WORK, u] + mem[e, RUN, u])
        eligible[u] = wait[u] > 0
        take[u] = 0
    for _ in range(n_start):
        best = _argmax(gain, eligible, tol, k)
        take[best] += 1
        gain[best] -= 1.0
        eligible[best] = take[best] < wait[best]


@njit(cache=True, inline="always")
def _gheap_update(ent, heap_end, gheap, gpos, gkey, e):  # pragma: no cover - jit
    """Re-key entity e in the global heap by its next completion time (INF when nothing runs)."""
    key = heap_end[ent[e, HEAP_OFF]] if ent[e, HEAP_SIZE] > 0 else INF
    if key == gkey[e]:
        return
    gkey[e] = key
    pos = gpos[e]
    while pos > 0 and gkey[gheap[(pos - 1) // 2]] > key:  # sift up
        gheap[pos] = gheap[(pos - 1) // 2]
        gpos[gheap[pos]] = pos
        pos = (pos - 1) // 2
    while 2 * pos + 1 < gheap.size:  # sift down
        child = 2 * pos + 1
        if child + 1 < gheap.size and gkey[gheap[child + 1]] < gkey[gheap[child]]:
            child += 1
        if gkey[gheap[child]] >= key:
            break
        gheap[pos] = gheap[child]
        gpos[gheap[pos]] = pos
        pos = child
    gheap[pos] = e
    gpos[e] = pos
