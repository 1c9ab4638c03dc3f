"""Event-driven engine of the online multi-organization model.

Model (Skowron & Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA'13 long
version, Sec. 2): organizations 0..k-1; organization u owns m(u) identical machines and releases sequential
jobs; on-line and non-clairvoyant (a job's processing time is learnt only when it completes); no preemption
or migration; each organization's jobs start in the order it released them (FIFO); greedy (a machine never
idles while a job waits).

Time is integer seconds and exact: between two events nothing changes, so the engine jumps. Utilities
follow SPAA'13 Eq. (3), kept in closed form per organization: with W(t) the unit parts executed before t and
n the jobs running during [t, t + d),

    psi(t + d) = psi(t) + d * W(t) + n * d * (d + 1) / 2,      W(t + d) = W(t) + n * d,

i.e. every unit executed in slot [i, i + 1) is worth t - i at time t. All utilities are int64; the
constructor refuses scenarios whose utilities could overflow (say why, and how to avoid it).

`OnlineSimulator` is the stepping core (advance, process events, view, apply a decision), so that REF can
run one simulator per coalition in lockstep; `simulate` is the front door for one policy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

import fairsched
from fairsched.errors import ConfigError, PolicyError
from fairsched.online import _kernels as _k
from fairsched.online.view import Assignment, OnlinePolicy, OnlineView, ScenarioInfo
from fairsched.scenario import COPIES, JOB, ORG, PROCESSING_TIME, RELEASE, Scenario

# Column names of OnlineResult.schedule (one row per sequential job that started by t_end):
#   job      the SWF job number (copies of an expanded parallel job share it)
#   org      the organization that released the job
#   release  release time (s since the scenario's origin)
#   start    start time; wait = start - release
#   end      completion time = start + processing time (may lie beyond t_end)
#   machine  machine id (0-based; see `Scenario.machine_owner`)
SCHEDULE_COLUMNS = ("job", "org", "release", "start", "end", "machine")

PROGRESS_STEPS = 100  # `simulate` reports progress at most this many times (every 1 % of simulated time)
_INT64_SAFE = 2**62
_NO_MACHINES = np.empty(0, dtype=np.int64)  # headroom below 2**63 for the sums metrics take over organizations


@dataclass(frozen=True)
class OnlineResult:
    """What one run produced.

    Attributes
    ----------
    schedule : DataFrame with `SCHEDULE_COLUMNS`, one row per started sequential job, by start order.
    per_org : DataFrame indexed by org: machines, psi (at t_end), work_done, psi_by_machine_owner.
    t_end : time at which utilities were taken (the scenario's horizon, else the last completion).
    meta : policy name and parameters, seed, fairsched version, source.
    """

    schedule: pd.DataFrame
    per_org: pd.DataFrame
    t_end: int
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def psi(self) -> np.ndarray:
        return self.per_org["psi"].to_numpy()


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class OnlineSimulator:
    """Stepping core of the online engine for one scenario (one coalition, for REF).

    Use: ``while sim.run_until_decision(horizon): sim.apply(policy.decide(sim.view()))`` — `simulate` wraps
    exactly this loop. Finer steps (``next_event_time``, ``advance_to``, ``process_events``) serve tests and
    lockstep simulations. The state lives in int64 arrays updated by the compiled primitives of
    `fairsched.online._kernels` (see its docstring for the layout).
    """

    def __init__(self, scenario: Scenario) -> None:
        jobs = scenario.jobs
        self.n_orgs = k = int(scenario.n_orgs)
        self._machine_owner = np.ascontiguousarray(scenario.machine_owner, dtype=np.int64)
        m = self._machine_owner.size
        if m == 0:
            raise ConfigError("the scenario has no machines")
        self._rec_release = jobs[RELEASE].to_numpy(np.int64)
        self._rec_processing = jobs[PROCESSING_TIME].to_numpy(np.int64)
        self._rec_org = jobs[ORG].to_numpy(np.int64)
        self._rec_copies = jobs[COPIES].to_numpy(np.int64)
        self._rec_job = jobs[JOB].to_numpy(np.int64)
        _check_records(self._rec_release, self._rec_processing, self._rec_org, self._rec_copies, k)
        _check_no_overflow(self._rec_release, self._rec_processing, self._rec_copies, m, scenario.horizon)
        self._rec_first_seq = np.concatenate(([0], np.cumsum(self._rec_copies)[:-1])).astype(np.int64)
        self._n_seq = int(self._rec_copies.sum())
        self._seq_record = np.repeat(np.arange(self._rec_copies.size, dtype=np.int64), self._rec_copies)
        # Per-organization FIFO queues as CSR lists of record ids, in release order.
        self._org_records = np.argsort(self._rec_org, kind="stable").astype(np.int64)
        self._org_ptr = np.concatenate(([0], np.cumsum(np.bincount(self._rec_org, minlength=k)))).astype(np.int64)

        self._org_state = np.zeros((_k.N_ORG_FIELDS, k), dtype=np.int64)
        self._org_state[_k.HEAD_RELEASE] = -1
        self._clock = np.zeros(_k.N_CLOCK, dtype=np.int64)
        self._clock[_k.N_FREE] = m
        self._free_stack = np.arange(m - 1, -1, -1, dtype=np.int64)  # machine 0 on top at t = 0
        self._stack_pos = np.empty(m, dtype=np.int64)
        self._stack_pos[self._free_stack] = np.arange(m, dtype=np.int64)
        self._completions = np.zeros((m, 2), dtype=np.int64)  # heap of (end, seq) rows: at most m jobs run at once
        self._seq_start = np.full(self._n_seq, -1, dtype=np.int64)
        self._seq_machine = np.full(self._n_seq, -1, dtype=np.int64)
        self._mark = np.zeros(m, dtype=np.int64)  # scratch for duplicate-machine checks
        self._decisions = 0
        # What `start_jobs` reads and changes, as plain tuples built once: numba types a namedtuple argument in
        # Python on every call, a plain tuple on its fast path (docs/contributing.md, "What stays, and why").
        self._start_jobs = tuple(_k.StartJobs(
            rec_release=self._rec_release, rec_processing=self._rec_processing, rec_copies=self._rec_copies,
            rec_first_seq=self._rec_first_seq, org_records=self._org_records, org_ptr=self._org_ptr,
            machine_owner=self._machine_owner))
        self._start_state = tuple(_k.StartState(
            org_state=self._org_state, clock=self._clock, free_stack=self._free_stack, stack_pos=self._stack_pos,
            seq_start=self._seq_start, seq_machine=self._seq_machine, completions=self._completions))

        self.info = ScenarioInfo(
            n_orgs=k, n_machines=m, machine_owner=_read_only(self._machine_owner),
            machines_per_org=_read_only(np.bincount(self._machine_owner, minlength=k).astype(np.int64)),
            horizon=None if scenario.horizon is None else int(scenario.horizon),
        )
        self._rows = {name: _read_only(self._org_state[index]) for name, index in (
            ("waiting", _k.WAITING), ("running", _k.RUNNING), ("psi", _k.PSI), ("work_done", _k.WORK),
            ("psi_by_machine_owner", _k.PSI_ON), ("work_by_machine_owner", _k.WORK_ON),
            ("head_release", _k.HEAD_RELEASE))}

    # -- state, read-only --------------------------------------------------------------------------------
    @property
    def now(self) -> int:
        return int(self._clock[_k.NOW])

    @property
    def n_free(self) -> int:
        return int(self._clock[_k.N_FREE])

    @property
    def total_waiting(self) -> int:
        return int(self._clock[_k.TOTAL_WAITING])

    @property
    def psi(self) -> np.ndarray:
        return self._rows["psi"]

    # -- time ------------------------------------------------------------------------------------------
    def next_event_time(self) -> int | None:
        """Time of the next release or completion, or None when nothing is left to happen."""
        t = int(_k.next_event_time(self._rec_release, self._clock, self._completions))
        return None if t < 0 else t

    def advance_to(self, t: int) -> None:
        """Accrue utilities over [now, t) in closed form (SPAA'13 Eq. (3)); no event is applied."""
        if t < self.now:
            raise ValueError(f"cannot go back in time from {self.now} to {t}")
        _k.advance(self._org_state, self._clock, t)

    def process_events(self) -> None:
        """Apply every completion at or before `now`, then every release at or before `now`."""
        _k.process_events(self._rec_release, self._rec_org, self._rec_copies, self._seq_record, self._seq_machine,
                          self._machine_owner, self._org_state, self._clock, self._free_stack, self._stack_pos,
                          self._completions)

    def run_until_decision(self, horizon: int | None = None) -> bool:
        """Jump through events until a machine is free while a job waits (True) or none is left up to
        `horizon` (False)."""
        return bool(_k.run_until_decision(
            self._rec_release, self._rec_org, self._rec_copies, self._seq_record, self._seq_machine,
            self._machine_owner, self._org_state, self._clock, self._free_stack, self._stack_pos, self._completions,
            -1 if horizon is None else int(horizon)))

    # -- decisions -------------------------------------------------------------------------------------
    def needs_decision(self) -> bool:
        return self.n_free > 0 and self.total_waiting > 0

    def view(self) -> OnlineView:
        n_free = self.n_free
        return OnlineView(now=self.now, n_free=n_free, n_to_start=min(n_free, self.total_waiting), info=self.info,
                          free_machines=self.free_machines,
                          running_jobs=self._running_jobs, **self._rows)

    def free_machines(self) -> np.ndarray:
        """Sorted ids of the free machines; O(f log f) for f free machines, not O(m)."""
        return np.sort(self._free_stack[:self.n_free])

    def _running_jobs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        started = np.flatnonzero(self._seq_start >= 0)
        ends = self._seq_start[started] + self._rec_processing[self._seq_record[started]]
        alive = started[ends > self.now]
        return self._rec_org[self._seq_record[alive]], self._seq_machine[alive], self._seq_start[alive]

    def apply(self, assignment: Assignment, policy_name: str = "policy") -> None:
        """Check a decision (an `Assignment`: greedy, FIFO-feasible, free distinct machines), then start its jobs."""
        if not isinstance(assignment, Assignment):
            raise PolicyError(_not_an_assignment(assignment, policy_name, self.now))
        orgs = np.ascontiguousarray(assignment.orgs, dtype=np.int64)
        use_machines = assignment.machines is not None
        machines = np.ascontiguousarray(assignment.machines if use_machines else _NO_MACHINES, dtype=np.int64)
        if orgs.ndim != 1 or machines.ndim != 1:
            raise PolicyError(f"{policy_name} at t={self.now}: orgs and machines must be 1-d integer arrays")
        self._decisions += 1
        code, value = _k.check_assignment(orgs, machines, use_machines, self._org_state, self._clock, self._stack_pos,
                                          self._mark, self._decisions)
        if code != _k.OK:
            raise PolicyError(self._explain(code, int(value), policy_name))
        _k.start_jobs(orgs, machines, use_machines, self._start_jobs, self._start_state)

    def _explain(self, code: int, value: int, policy_name: str) -> str:
        n_start = min(self.n_free, self.total_waiting)
        problem = {
            _k.BAD_COUNT: f"must start exactly {n_start} jobs (greedy: min(free machines {self.n_free}, waiting "
                          f"jobs {self.total_waiting})), got {value}",
            _k.BAD_ORG: f"organization {value} does not exist (ids 0..{self.n_orgs - 1})",
            _k.TOO_MANY_OF_ORG: f"starts more jobs of organization {value} than the "
                                f"{self._org_state[_k.WAITING, value] if 0 <= value < self.n_orgs else 0} waiting",
            _k.BAD_MACHINE_COUNT: f"gave {value} machines for {n_start} jobs",
            _k.BAD_MACHINE_ID: f"machine {value} does not exist (ids 0..{self._machine_owner.size - 1})",
            _k.MACHINE_NOT_FREE: f"machine {value} is busy or listed twice",
        }[code]
        return f"{policy_name} at t={self.now}: {problem}"

    # -- output ----------------------------------------------------------------------------------------
    def schedule(self) -> pd.DataFrame:
        """One row per started sequential job, in start order (ties: by sequential job id)."""
        started = np.flatnonzero(self._seq_start >= 0)
        started = started[np.argsort(self._seq_start[started], kind="stable")]
        rec = self._seq_record[started]
        start = self._seq_start[started]
        return pd.DataFrame({
            "job": self._rec_job[rec], "org": self._rec_org[rec], "release": self._rec_release[rec],
            "start": start, "end": start + self._rec_processing[rec], "machine": self._seq_machine[started],
        })

    def per_org(self) -> pd.DataFrame:
        frame = pd.DataFrame({
            "machines": np.asarray(self.info.machines_per_org), "psi": self._org_state[_k.PSI].copy(),
            "work_done": self._org_state[_k.WORK].copy(), "psi_by_machine_owner": self._org_state[_k.PSI_ON].copy(),
        })
        frame.index.name = "org"
        return frame


def simulate(scenario: Scenario, policy: OnlinePolicy, *, seed: int = 0,
             progress: Callable[[int, int], None] | None = None) -> OnlineResult:
    """Run `policy` on `scenario` and return the schedule and the utilities at t_end.

    Implements the online model of SPAA'13 Sec. 2 with utility psi_sp (Eq. (3)); decisions are asked for
    only at event times with a free machine and a waiting job (between events nothing changes).
    t_end is ``scenario.horizon`` when set (events after it are not simulated), else the last completion.
    `progress`, if given, is called as ``progress(now, end)`` each time the simulated time passes another
    `PROGRESS_STEPS`-th of [0, end] (end: the horizon, else the last release), for long runs such as REF's.

    Examples
    --------
    >>> from fairsched.scenario import scenario_from_arrays
    >>> from fairsched.online.policies import get_policy
    >>> s = scenario_from_arrays(release=[0, 0, 1], processing_time=[3, 2, 1], org=[0, 1, 0],
    ...                          machines_per_org=[1, 1])
    >>> r = simulate(s, get_policy("roundrobin"))
    >>> r.schedule[["job", "start", "end"]].to_numpy().tolist()
    [[1, 0, 3], [2, 0, 2], [3, 2, 3]]
    >>> r.t_end, r.psi.tolist()   # org 0: slots 0,1,2 worth 3+2+1, slot 2 again 1; org 1: slots 0,1 worth 3+2
    (3, [7, 5])
    """
    sim = OnlineSimulator(scenario)
    tags = getattr(policy, "tags", None)
    # Only benchmark policies that declare themselves clairvoyant (REF, RAND) may see processing times.
    info = replace(sim.info, jobs=scenario.jobs) if tags is not None and tags.clairvoyant else sim.info
    policy.reset(info, np.random.default_rng(seed))
    horizon = scenario.horizon
    name = getattr(policy, "name", type(policy).__name__)
    end = int(horizon) if horizon is not None else int(scenario.jobs[RELEASE].max()) if len(scenario.jobs) else 0
    step = max(1, end // PROGRESS_STEPS)
    told = -1
    while sim.run_until_decision(horizon):
        if progress is not None and sim.now // step > told:  # one integer comparison per decision
            told = sim.now // step
            progress(min(sim.now, end), end)
        sim.apply(policy.decide(sim.view()), name)
    t_end = sim.now if horizon is None else int(horizon)
    sim.advance_to(t_end)
    meta = {"model": "online", "policy": name, "params": dict(vars(policy)) if hasattr(policy, "__dict__") else {},
            "seed": seed, "fairsched_version": fairsched.__version__, "source": scenario.source}
    meta["params"] = {key: value for key, value in meta["params"].items() if not key.endswith("_")}
    return OnlineResult(schedule=sim.schedule(), per_org=sim.per_org(), t_end=t_end, meta=meta)


def _not_an_assignment(decision: object, policy_name: str, now: int) -> str:
    """The `PolicyError` message for a ``decide`` that returned something else than one `Assignment`."""
    got = type(decision).__name__
    if isinstance(decision, list | tuple) and decision and all(isinstance(d, Assignment) for d in decision):
        got = f"a {got} of {len(decision)} Assignments"
    return (f"{policy_name} at t={now}: decide must return one Assignment (orgs: one organization per job to start "
            f"now, machines: None or one free machine each), got {got}; see fairsched.online.view.Assignment")


def _check_records(release: np.ndarray, processing: np.ndarray, org: np.ndarray, copies: np.ndarray,
                   n_orgs: int) -> None:
    if release.size and np.any(np.diff(release) < 0):
        raise ConfigError("scenario jobs must be sorted by release time")
    if release.size and release.min() < 0:
        raise ConfigError("release times must be >= 0 (relative to the scenario's time origin)")
    if np.any(processing < 1):
        raise ConfigError("processing times must be >= 1 s; clean the workload (run time <= 0 is dropped)")
    if np.any(copies < 1):
        raise ConfigError("every job needs >= 1 copy (processors >= 1)")
    if org.size and (org.min() < 0 or org.max() >= n_orgs):
        raise ConfigError(f"organization ids must lie in 0..{n_orgs - 1}")


def _check_no_overflow(release: np.ndarray, processing: np.ndarray, copies: np.ndarray, n_machines: int,
                       horizon: int | None) -> None:
    """Refuse scenarios whose int64 utilities could overflow.

    Greedy list scheduling ends by max release + total work / m + max processing time, and the total
    utility at t is at most m * t**2 / 2.
    """
    if release.size == 0:
        return
    work = float(np.dot(processing.astype(np.float64), copies))
    t_max = float(release[-1]) + work / n_machines + float(processing.max())
    if horizon is not None:
        t_max = min(t_max, float(horizon))
    if n_machines * t_max * t_max / 2 > _INT64_SAFE:
        raise ConfigError(
            f"exact utilities could overflow 64-bit integers ({n_machines} machines over up to {t_max:.3g} s); "
            "simulate a time window (--window-length) or fewer machines")
