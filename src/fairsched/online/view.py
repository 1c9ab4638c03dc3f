"""What an online policy sees and what it may decide; imported by the engine and by every policy.

The engine (`fairsched.online.engine`) owns the state. At each decision point (a time with a free machine
and a waiting job) it hands the policy an `OnlineView` and receives an `Assignment`: for each machine to
fill, the organization whose *head* job (earliest released, FIFO per organization) starts there.
The engine checks every assignment (greedy, enough waiting jobs, free distinct machines) and raises
`PolicyError` otherwise, so a policy cannot break the model's guarantees.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class ScenarioInfo:
    """Static facts of a scenario a policy may know from the start (never processing times).

    Attributes
    ----------
    n_orgs : k.
    n_machines : m, total machines.
    machine_owner : (m,) organization owning each machine.
    machines_per_org : (k,) m(u), machines contributed by each organization.
    jobs : the scenario's jobs table (release, processing time, ...), given ONLY to policies tagged
        ``clairvoyant=True`` — benchmarks such as REF, which simulate hypothetical schedules of every coalition
        (SPAA'13 Alg. 1) and so must know processing times. None for every other policy.
    horizon : t_end when the scenario has one (nothing after it is simulated), else None.
    """

    n_orgs: int
    n_machines: int
    machine_owner: np.ndarray
    machines_per_org: np.ndarray
    jobs: pd.DataFrame | None = None
    horizon: int | None = None


@dataclass(frozen=True)
class OnlineView:
    """Read-only, non-clairvoyant state at time `now`; valid only during one ``decide`` call.

    All arrays have one entry per organization (length k) unless noted; they are read-only views of the
    engine's state. Utilities follow SPAA'13 Eq. (3): a unit of work executed in slot [i, i+1) is worth
    ``now - i`` at ``now``.

    Attributes
    ----------
    now : current time (integer seconds).
    n_free : number of free machines (>= 1 at a decision point).
    n_to_start : how many jobs a greedy policy starts now: min(free machines, waiting jobs).
    waiting : released jobs not yet started.
    running : jobs running now.
    psi : psi_sp utility of each organization's jobs at ``now``.
    work_done : unit parts of each organization's jobs executed before ``now``.
    psi_by_machine_owner : the same utility, credited to the owner of the *machine* that executed each unit
        (whoever owns the job): DIRECTCONTR's directly estimated contribution (PPAM'13 Alg. 1).
    work_by_machine_owner : unit parts executed on each organization's machines before ``now``.
    head_release : release time of each organization's first waiting job; -1 when none waits.
    info : static scenario facts.
    free_machines : callable returning the sorted ids of free machines (computed on demand: O(m)).
    running_jobs : callable returning ``(org, machine, start)`` arrays of the running jobs (on demand);
        their elapsed time is ``now - start``. Processing times are never shown.
    """

    now: int
    n_free: int
    n_to_start: int
    waiting: np.ndarray
    running: np.ndarray
    psi: np.ndarray
    work_done: np.ndarray
    psi_by_machine_owner: np.ndarray
    work_by_machine_owner: np.ndarray
    head_release: np.ndarray
    info: ScenarioInfo
    free_machines: Callable[[], np.ndarray]
    running_jobs: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Assignment:
    """A policy's decision: ``orgs[i]``'s head job starts on ``machines[i]``, in this order.

    ``orgs`` lists one organization per job to start (an organization may appear many times: its jobs start
    in FIFO order). ``machines`` is None when the machine does not matter to the policy; the engine then uses
    the most recently freed machines first.
    """

    orgs: np.ndarray
    machines: np.ndarray | None = None


@dataclass(frozen=True)
class Tags:
    """Capabilities a policy declares, used by the contract tests and the CLI help."""

    clairvoyant: bool = False
    randomized: bool = False
    greedy: bool = True


@runtime_checkable
class OnlinePolicy(Protocol):
    """A scheduling policy of the online model. Keyword hyper-parameters in ``__init__``, stored unchanged;
    per-run state is created in `reset` with names ending in ``_``; randomness only from ``rng``."""

    name: ClassVar[str]
    tags: ClassVar[Tags]

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None: ...

    def decide(self, view: OnlineView) -> Assignment: ...
