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

import heapq
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

import fairsched
from fairsched.errors import ConfigError, PolicyError
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

_INT64_SAFE = 2**62  # headroom below 2**63 for the sums metrics take over organizations


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

    Use: ``t = next_event_time()``; ``advance_to(t)``; ``process_events()``; if ``needs_decision()``,
    ``apply(policy.decide(view()))``. `simulate` wraps exactly this loop.
    """

    def __init__(self, scenario: Scenario) -> None:
        jobs = scenario.jobs
        self.n_orgs = k = int(scenario.n_orgs)
        self.machine_owner = np.ascontiguousarray(scenario.machine_owner, dtype=np.int64)
        m = self.machine_owner.size
        if m == 0:
            raise ConfigError("the scenario has no machines")
        self.rec_release = jobs[RELEASE].to_numpy(np.int64)
        self.rec_processing = jobs[PROCESSING_TIME].to_numpy(np.int64)
        self.rec_org = jobs[ORG].to_numpy(np.int64)
        self.rec_copies = jobs[COPIES].to_numpy(np.int64)
        self.rec_job = jobs[JOB].to_numpy(np.int64)
        _check_records(self.rec_release, self.rec_processing, self.rec_org, self.rec_copies, k)
        self.rec_first_seq = np.concatenate(([0], np.cumsum(self.rec_copies)[:-1])).astype(np.int64)
        self.n_seq = int(self.rec_copies.sum())
        _check_no_overflow(self.rec_release, self.rec_processing, self.rec_copies, m, scenario.horizon)

        # Per-organization FIFO queues as CSR lists of record ids, in release order.
        order = np.argsort(self.rec_org, kind="stable")
        self.org_records = order.tolist()
        self.org_ptr = np.concatenate(([0], np.cumsum(np.bincount(self.rec_org, minlength=k)))).tolist()
        self.head = [0] * k          # position of the head record in the organization's list
        self.head_started = [0] * k  # copies of the head record already started
        self.next_release = 0        # first record not yet released (records are sorted by release)

        self.seq_start = np.full(self.n_seq, -1, dtype=np.int64)
        self.seq_machine = np.full(self.n_seq, -1, dtype=np.int64)
        self.seq_record = np.repeat(np.arange(self.rec_copies.size, dtype=np.int64), self.rec_copies)

        # Free machines: a stack (most recently freed on top) plus a membership mask.
        self.free_stack = np.arange(m - 1, -1, -1, dtype=np.int64)  # machine 0 on top at t = 0
        self.n_free = m
        self.is_free = np.ones(m, dtype=bool)
        self.completions: list[tuple[int, int, int, int, int]] = []  # (end, seq, first_seq, count, org)
        self.counter = 0

        self.now = 0
        self.waiting = np.zeros(k, dtype=np.int64)
        self.total_waiting = 0
        self.running = np.zeros(k, dtype=np.int64)
        self.psi = np.zeros(k, dtype=np.int64)
        self.work = np.zeros(k, dtype=np.int64)
        self.running_on = np.zeros(k, dtype=np.int64)  # running jobs on each organization's machines
        self.psi_on = np.zeros(k, dtype=np.int64)
        self.work_on = np.zeros(k, dtype=np.int64)
        self.head_release = np.full(k, -1, dtype=np.int64)
        self.info = ScenarioInfo(
            n_orgs=k, n_machines=m, machine_owner=_read_only(self.machine_owner),
            machines_per_org=_read_only(np.bincount(self.machine_owner, minlength=k).astype(np.int64)),
        )
        self._ro = tuple(_read_only(a) for a in (self.waiting, self.running, self.psi, self.work,
                                                  self.psi_on, self.work_on, self.head_release))

    # -- time ------------------------------------------------------------------------------------------
    def next_event_time(self) -> int | None:
        """Time of the next release or completion, or None when nothing is left to happen."""
        nxt = None
        if self.next_release < self.rec_release.size:
            nxt = int(self.rec_release[self.next_release])
        if self.completions and (nxt is None or self.completions[0][0] < nxt):
            nxt = self.completions[0][0]
        return nxt

    def advance_to(self, t: int) -> None:
        """Accrue utilities over [now, t) in closed form (SPAA'13 Eq. (3)); no event is applied."""
        d = t - self.now
        if d < 0:
            raise ValueError(f"cannot go back in time from {self.now} to {t}")
        if d:
            tri = d * (d + 1) // 2
            self.psi += d * self.work + tri * self.running
            self.work += d * self.running
            self.psi_on += d * self.work_on + tri * self.running_on
            self.work_on += d * self.running_on
            self.now = t

    def process_events(self) -> None:
        """Apply every completion at `now`, then every release at or before `now`."""
        now = self.now
        heap = self.completions
        owner = self.machine_owner
        while heap and heap[0][0] <= now:
            _, _, first, count, org = heapq.heappop(heap)
            machines = self.seq_machine[first:first + count]
            self.running[org] -= count
            if count == 1:
                self.running_on[owner[machines[0]]] -= 1
            else:
                self.running_on -= np.bincount(owner[machines], minlength=self.n_orgs)
            self.free_stack[self.n_free:self.n_free + count] = machines
            self.n_free += count
            self.is_free[machines] = True
        stop = self.next_release
        n_records = self.rec_release.size
        while stop < n_records and self.rec_release[stop] <= now:
            stop += 1
        for rec in range(self.next_release, stop):
            org = self.rec_org[rec]
            if self.waiting[org] == 0:
                self.head_release[org] = self.rec_release[rec]
            self.waiting[org] += self.rec_copies[rec]
            self.total_waiting += int(self.rec_copies[rec])
        self.next_release = stop

    # -- decisions -------------------------------------------------------------------------------------
    def needs_decision(self) -> bool:
        return self.n_free > 0 and self.total_waiting > 0

    def view(self) -> OnlineView:
        waiting, running, psi, work, psi_on, work_on, head_release = self._ro
        return OnlineView(
            now=self.now, n_free=self.n_free, waiting=waiting, running=running, psi=psi, work_done=work,
            psi_by_machine_owner=psi_on, work_by_machine_owner=work_on, head_release=head_release,
            info=self.info, free_machines=self._free_machines_sorted, running_jobs=self._running_jobs,
        )

    def _free_machines_sorted(self) -> np.ndarray:
        return np.flatnonzero(self.is_free)

    def _running_jobs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        started = np.flatnonzero(self.seq_start >= 0)
        ends = self.seq_start[started] + self.rec_processing[self.seq_record[started]]
        alive = started[ends > self.now]
        return self.rec_org[self.seq_record[alive]], self.seq_machine[alive], self.seq_start[alive]

    def apply(self, assignment: Assignment, policy_name: str = "policy") -> None:
        """Check a decision (greedy, FIFO-feasible, free distinct machines) and start its jobs."""
        orgs = np.asarray(assignment.orgs, dtype=np.int64)
        n_start = min(self.n_free, self.total_waiting)
        where = f"{policy_name} at t={self.now}"
        if orgs.ndim != 1 or orgs.size != n_start:
            raise PolicyError(f"{where}: must start exactly {n_start} jobs (greedy: min(free machines "
                              f"{self.n_free}, waiting jobs {self.total_waiting})), got {orgs.size}")
        if orgs.size and (orgs.min() < 0 or orgs.max() >= self.n_orgs):
            raise PolicyError(f"{where}: organization ids must lie in 0..{self.n_orgs - 1}")
        per_org = np.bincount(orgs, minlength=self.n_orgs)
        if np.any(per_org > self.waiting):
            u = int(np.argmax(per_org > self.waiting))
            raise PolicyError(f"{where}: starts {per_org[u]} jobs of organization {u}, "
                              f"which has only {self.waiting[u]} waiting")
        machines = self._take_machines(assignment.machines, n_start, where)
        for u in np.flatnonzero(per_org).tolist():
            self._start_head_jobs(u, machines[orgs == u] if per_org[u] != n_start else machines)
        self.total_waiting -= n_start

    def _take_machines(self, machines: np.ndarray | None, count: int, where: str) -> np.ndarray:
        if machines is None:  # most recently freed first
            top = self.n_free
            taken = self.free_stack[top - count:top][::-1].copy()
            self.n_free -= count
            self.is_free[taken] = False
            return taken
        taken = np.asarray(machines, dtype=np.int64)
        if taken.shape != (count,):
            raise PolicyError(f"{where}: gave {taken.size} machines for {count} jobs")
        if taken.size and (taken.min() < 0 or taken.max() >= self.is_free.size):
            raise PolicyError(f"{where}: machine ids must lie in 0..{self.is_free.size - 1}")
        if not np.all(self.is_free[taken]) or np.unique(taken).size != taken.size:
            raise PolicyError(f"{where}: machines must be free and distinct; got {taken.tolist()[:10]}")
        self.is_free[taken] = False
        stack = self.free_stack[:self.n_free]
        kept = stack[self.is_free[stack]]
        self.n_free = kept.size
        self.free_stack[:kept.size] = kept
        return taken

    def _start_head_jobs(self, org: int, machines: np.ndarray) -> None:
        """Start the next ``len(machines)`` jobs of `org`, FIFO, on `machines` in that order."""
        now = self.now
        count = machines.size
        self.running[org] += count
        owners = self.machine_owner[machines]
        if count == 1:
            self.running_on[owners[0]] += 1
        else:
            self.running_on += np.bincount(owners, minlength=self.n_orgs)
        self.waiting[org] -= count
        base = self.org_ptr[org]
        done = 0
        while done < count:
            rec = self.org_records[base + self.head[org]]
            started = self.head_started[org]
            take = min(count - done, int(self.rec_copies[rec]) - started)
            first = int(self.rec_first_seq[rec]) + started
            self.seq_start[first:first + take] = now
            self.seq_machine[first:first + take] = machines[done:done + take]
            heapq.heappush(self.completions, (now + int(self.rec_processing[rec]), self.counter, first, take, org))
            self.counter += 1
            done += take
            if started + take == self.rec_copies[rec]:
                self.head[org] += 1
                self.head_started[org] = 0
            else:
                self.head_started[org] = started + take
        if self.waiting[org] > 0:
            rec = self.org_records[base + self.head[org]]
            self.head_release[org] = self.rec_release[rec]
        else:
            self.head_release[org] = -1

    # -- output ----------------------------------------------------------------------------------------
    def schedule(self) -> pd.DataFrame:
        """One row per started sequential job, in start order (ties: by sequential job id)."""
        started = np.flatnonzero(self.seq_start >= 0)
        started = started[np.argsort(self.seq_start[started], kind="stable")]
        rec = self.seq_record[started]
        start = self.seq_start[started]
        return pd.DataFrame({
            "job": self.rec_job[rec], "org": self.rec_org[rec], "release": self.rec_release[rec],
            "start": start, "end": start + self.rec_processing[rec], "machine": self.seq_machine[started],
        })

    def per_org(self) -> pd.DataFrame:
        frame = pd.DataFrame({
            "machines": np.asarray(self.info.machines_per_org), "psi": self.psi.copy(),
            "work_done": self.work.copy(), "psi_by_machine_owner": self.psi_on.copy(),
        })
        frame.index.name = "org"
        return frame


def simulate(scenario: Scenario, policy: OnlinePolicy, *, seed: int = 0) -> OnlineResult:
    """Run `policy` on `scenario` and return the schedule and the utilities at t_end.

    Implements the online model of SPAA'13 Sec. 2 with utility psi_sp (Eq. (3)); decisions are asked for
    only at event times with a free machine and a waiting job (between events nothing changes).
    t_end is ``scenario.horizon`` when set (events after it are not simulated), else the last completion.

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
    policy.reset(sim.info, np.random.default_rng(seed))
    horizon = scenario.horizon
    name = getattr(policy, "name", type(policy).__name__)
    while (t := sim.next_event_time()) is not None and (horizon is None or t <= horizon):
        sim.advance_to(t)
        sim.process_events()
        if sim.needs_decision():
            sim.apply(policy.decide(sim.view()), name)
    t_end = sim.now if horizon is None else int(horizon)
    sim.advance_to(t_end)
    meta = {"model": "online", "policy": name, "params": dict(vars(policy)) if hasattr(policy, "__dict__") else {},
            "seed": seed, "fairsched_version": fairsched.__version__, "source": scenario.source}
    meta["params"] = {key: value for key, value in meta["params"].items() if not key.endswith("_")}
    return OnlineResult(schedule=sim.schedule(), per_org=sim.per_org(), t_end=t_end, meta=meta)


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
