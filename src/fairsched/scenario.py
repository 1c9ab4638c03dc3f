"""Scenarios: which organization submits each job and owns each machine.

Implements the set-up of Skowron & Rzadca, PPAM'13 Sec. 5.1 and SPAA'13 Sec. 6.2: user ids are spread
uniformly at random over the organizations, and the machines are split among them (uniform or Zipf).

Everything random flows from one ``seed`` through ``numpy.random.SeedSequence``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

# Column names of Scenario.jobs (one place).
JOB = "job"                          # SWF job number (or row number for generated workloads)
ORG = "org"                          # 0-based organization id
RELEASE = "release"                  # int64 seconds since the scenario's time origin
PROCESSING_TIME = "processing_time"  # int64 seconds, >= 1; never shown to non-clairvoyant policies
COPIES = "copies"                    # sequential copies of this job (a parallel job on q processors -> q)
SCENARIO_COLUMNS = (JOB, ORG, RELEASE, PROCESSING_TIME, COPIES)

DEFAULT_ZIPF_S = 1.4267


@dataclass(frozen=True)
class Scenario:
    """Organizations, the machines each contributes, and the jobs each submits.

    Attributes
    ----------
    jobs : DataFrame with columns `SCENARIO_COLUMNS`, sorted by (release, job); int64 throughout.
        One row stands for ``copies`` identical sequential jobs (PPAM'13 Sec. 5.1), stored compactly.
    machine_owner : int64 array (n_machines,), the organization owning each machine; non-decreasing.
    n_orgs : number of organizations k (every one owns >= 1 machine; some may submit no job).
    horizon : t_end, the time at which utilities are compared, or None = when the last job completes.
    time_origin : trace time (s) that became time 0.
    seed : the seed the scenario was built from.
    source : description of the workload.
    """

    jobs: pd.DataFrame
    machine_owner: np.ndarray
    n_orgs: int
    horizon: int | None = None
    time_origin: float = 0.0
    seed: int = 0
    source: str = ""

    @property
    def n_machines(self) -> int:
        return int(self.machine_owner.size)

    @property
    def machines_per_org(self) -> np.ndarray:
        return np.bincount(self.machine_owner, minlength=self.n_orgs).astype(np.int64)

    @property
    def n_sequential_jobs(self) -> int:
        return int(self.jobs[COPIES].sum())


def scenario_from_arrays(release, processing_time, org, machines_per_org, *, copies=None, job=None,
                         horizon: int | None = None, source: str = "arrays") -> Scenario:
    """Build a small Scenario directly (tests, examples, hand-made paper instances).

    >>> s = scenario_from_arrays([0, 0, 1], [3, 2, 1], [0, 1, 0], [1, 1])
    >>> s.n_machines, s.n_orgs, s.n_sequential_jobs
    (2, 2, 3)
    """
    release = np.asarray(release, dtype=np.int64)
    n = release.size
    frame = pd.DataFrame({
        JOB: np.arange(1, n + 1, dtype=np.int64) if job is None else np.asarray(job, dtype=np.int64),
        ORG: np.asarray(org, dtype=np.int64),
        RELEASE: release,
        PROCESSING_TIME: np.asarray(processing_time, dtype=np.int64),
        COPIES: np.ones(n, dtype=np.int64) if copies is None else np.asarray(copies, dtype=np.int64),
    })
    frame = frame.sort_values([RELEASE, JOB], kind="stable").reset_index(drop=True)
    counts = np.asarray(machines_per_org, dtype=np.int64)
    owner = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    return Scenario(jobs=frame, machine_owner=owner, n_orgs=int(counts.size), horizon=horizon, source=source)
