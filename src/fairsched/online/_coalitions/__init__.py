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

The package, by responsibility:

- this module: which coalitions (`all_coalitions` for REF, `sampled_coalitions` for RAND), the front door
  `simulate_coalitions` (arrays in, `CoalitionRun` out) and the `ReplayDecisions` policy mixin;
- `layout`: the state arrays' fields, the rule codes and the namedtuples handed to the compiled loop;
- `lockstep`: the compiled event loop (releases, completions, starts, the entities' event queues);
- `contributions`: φ under contention (the exact potential, RAND's sampled terms) and the selection rules.

Sequential jobs of organization u, in its FIFO order, are ``seq_*[org_ptr[u]:org_ptr[u+1]]``; ``seq_gid`` is
the job's global position in release order (ties: record order), which FIFO uses to merge members' queues.

References
----------
P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013 (long
version, arXiv 1302.0948), Sec. 3 (Def. 3.1, 3.2, Algorithm 1, Algorithm 2) and Sec. 5.1 (Algorithm 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError, InvariantError
from fairsched.online._coalitions.layout import (
    CFG_CHECK_EFFICIENCY,
    CFG_CONTRIB,
    CFG_GRAND,
    CFG_HORIZON,
    CFG_K,
    CFG_RECORD,
    CFG_SELECT,
    CONTRIB_EXACT,
    CONTRIB_SAMPLED,
    EFFICIENCY_BROKEN,
    EFFICIENCY_RTOL,
    FREE,
    G_ERR_ENT,
    G_ERR_T,
    G_GRAND_LEFT,
    G_N_DEC,
    G_N_REC,
    GROUP,
    HEAP_OFF,
    INF,
    MACHINES,
    MASK,
    N_ENT_FIELDS,
    N_GLOB,
    N_MEM_FIELDS,
    RULE,
    RULE_FAIR,
    RULE_FIFO,
    SELECT_RULES,
    UNIT_ROUNDOFF,
    Jobs,
    Output,
    Rules,
    Scratch,
    State,
)
from fairsched.online._coalitions.lockstep import _run
from fairsched.online.view import Assignment, OnlineView
from fairsched.scenario import COPIES, ORG, PROCESSING_TIME, RELEASE


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
    entities = np.arange(n_ent, dtype=np.int64)
    gheap = np.column_stack((np.full(n_ent, INF), entities))  # (INF, e) rows in increasing order: a heap already
    return State(ent, np.zeros((n_ent, N_MEM_FIELDS, k), dtype=np.int64), np.zeros((capacity, 2), dtype=np.int64),
                 np.zeros(k, dtype=np.int64), np.zeros(N_GLOB, dtype=np.int64), gheap, entities.copy(),
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
    sampled_tol = np.array([4.0 * (per_org + 1) * UNIT_ROUNDOFF])
    return Rules(cfg, coalitions.value_ent, coalitions.term_org, coalitions.term_pre, coalitions.term_post,
                 coalitions.term_weight, sampled_tol)

