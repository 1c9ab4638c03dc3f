"""Scenarios: which organization submits each job and owns each machine.

Implements the set-up of Skowron & Rzadca, PPAM'13 Sec. 5.1 and SPAA'13 Sec. 6.2: user ids are spread
uniformly at random over the organizations, and the machines are split among them (uniform or Zipf);
a parallel job on q processors becomes q copies of a sequential job of the same duration (PPAM'13 Sec. 5.1).

`build_scenario` is the front door (workload -> `Scenario`); `split_machines` (in `fairsched.machine_split`),
`assign_orgs` and `read_org_map` are its steps; `describe` summarises a scenario for reports and ``--json``.

Everything random flows from one ``seed`` through ``numpy.random.SeedSequence(seed, spawn_key=(STAGE, ...))``,
one stream per stage (`STAGE_ORGS`, `STAGE_MACHINES`), so changing how machines are split never changes which
organization a user joins, and conversely.

References
----------
P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013
(arXiv 1302.0948), Sec. 6.2. P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling
with cooperative game theory", PPAM 2013, LNCS 8385, Sec. 5.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError, InputError
from fairsched.machine_split import (
    COUNTS,
    DEFAULT_ZIPF_S,
    SPLITS,
    MachineSplit,
    _explicit_counts,
    _is_int,
    split_machines,
    zipf_counts,
    zipf_weights,
)
from fairsched.seeds import STAGE_MACHINES, STAGE_ORGS, stream  # the named streams (fairsched.seeds)
from fairsched.workload.model import Workload
from fairsched.workload.org_map import read_org_map as read_map
from fairsched.workload.schema import PROCESSORS

__all__ = [  # with the machine split's names (fairsched.machine_split), a step of the scenario
    "COPIES", "COUNTS", "DEFAULT_ZIPF_S", "JOB", "MEMBER_COLUMNS", "ORG", "ORG_ID_COLUMNS", "PROCESSING_TIME",
    "RELEASE", "SCENARIO_COLUMNS", "SPLITS", "MachineSplit", "OrgsBy", "Scenario", "assign_orgs",
    "build_scenario", "default_machines", "describe", "read_org_map", "resolve_machines", "scenario_from_arrays",
    "split_machines", "zipf_counts", "zipf_weights",
]

# Column names of Scenario.jobs (one place).
JOB = "job"                          # SWF job number (or row number for generated workloads)
ORG = "org"                          # 0-based organization id
RELEASE = "release"                  # int64 seconds since the scenario's time origin
PROCESSING_TIME = "processing_time"  # int64 seconds, >= 1; never shown to non-clairvoyant policies
COPIES = "copies"                    # sequential copies of this job (a parallel job on q processors -> q)
SCENARIO_COLUMNS = (JOB, ORG, RELEASE, PROCESSING_TIME, COPIES)
# Columns of Scenario.members: the id (user, group, queue or job number: Scenario.orgs_by), its organization, and
# what it submitted: jobs (rows), sequential jobs (copies) and work (sum of processing_time * copies).
MEMBER_COLUMNS = ("org", "id", "jobs", "sequential_jobs", "work")



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
    orgs_by : what formed the organizations (``"user"``, ``"group"``, ``"queue"``, ``"job"``); "" when hand-made.
    members : who makes up each organization (`MEMBER_COLUMNS`, one row per distinct id that submitted a job,
        sorted by org then id), or None when hand-made. Organizations without a row submit no job.
    """

    jobs: pd.DataFrame
    machine_owner: np.ndarray
    n_orgs: int
    horizon: int | None = None
    time_origin: float = 0.0
    seed: int = 0
    source: str = ""
    orgs_by: str = ""
    members: pd.DataFrame | None = field(default=None, compare=False)

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


# ---------------------------------------------------------------------------------------------------------------
# Building a scenario from a workload (PPAM'13 Sec. 5.1, SPAA'13 Sec. 6.2)
# ---------------------------------------------------------------------------------------------------------------


OrgsBy = Literal["user", "group", "queue", "job"]
# "job": every job draws its own organization (PPAM'13 Sec. 5.1's second scenario, "the jobs are uniformly
# distributed between organizations"): the job number is the id that joins an organization.
ORG_ID_COLUMNS: dict[str, str] = {"user": "user_id", "group": "group_id", "queue": "queue_number",
                                  "job": "job_number"}


def build_scenario(workload: Workload, *, n_orgs: int = 5, orgs_by: OrgsBy = "user",
                   org_map: str | Path | None = None, n_machines: int | None = None,
                   split: str | Sequence[int] = "uniform", zipf_s: float = DEFAULT_ZIPF_S, seed: int = 0,
                   time_origin: float | None = None, horizon: int | None = None) -> Scenario:
    """Spread a workload's jobs and machines over `n_orgs` organizations (PPAM'13 Sec. 5.1, SPAA'13 Sec. 6.2).

    Implements the papers' set-up: each distinct user id (or group, or queue id) joins an organization drawn
    uniformly at random (`assign_orgs`), or the one `org_map` names (`read_org_map`); the machines are split
    by `split_machines`; a job on q processors becomes q sequential copies (column ``copies``).

    Parameters
    ----------
    workload : jobs with run times > 0 and processors >= 1 (`fairsched.workload.clean.clean` drops the others).
    n_orgs : k, the number of organizations.
    orgs_by : ``"user"`` (SWF field 12), ``"group"`` (13), ``"queue"`` (15) or ``"job"`` (1: each job joins an
        organization on its own, PPAM'13 Sec. 5.1's "jobs uniformly distributed" scenario). The id -1 (unknown)
        is one id like any other: all jobs without a group, say, form one "group" that joins one organization.
    org_map : CSV file with header ``user,org`` (``group,org`` / ``queue,org`` for the other `orgs_by`)
        naming the organization (0-based) of each id, instead of drawing it.
    n_machines : m; default the header's ``MaxProcs``, else the widest job; an explicit `split` list defines it.
    split : ``"even"``, ``"uniform"``, ``"zipf"`` or explicit counts (a sequence or ``"1,2,1"``); see
        `split_machines`.
    zipf_s : Zipf exponent of ``split="zipf"``.
    seed : the one seed; organizations and machines use separate streams (module docstring).
    time_origin : trace time that becomes time 0 (default: the first submit, so the first release is 0);
        release = floor(submit - time_origin).
    horizon : t_end stored in the scenario (None = when the last job completes).

    Returns
    -------
    Scenario, jobs sorted by (release, job): job = SWF job number, processing_time = ceil(run_time) >= 1,
    copies = processors. O(n log n + distinct ids).

    Raises
    ------
    ConfigError : options out of range, too few machines, or jobs the model cannot run (run time <= 0 or
        missing, processors < 1) — the message counts them and says how to clean the workload.
    InputError : a malformed or incomplete `org_map` (``FILE:LINE: field NAME: problem``).

    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"job_number": [1, 2, 3], "submit_time": [10.0, 10.5, 12.0],
    ...                      "run_time": [3.0, 0.5, 7.2], "processors": [1, 2, 1], "user_id": [4, 4, 9]})
    >>> s = build_scenario(Workload(jobs=jobs), n_orgs=2, n_machines=3, split="even")
    >>> s.jobs[["job", "release", "processing_time", "copies"]].to_numpy().tolist()
    [[1, 0, 3, 1], [2, 0, 1, 2], [3, 2, 8, 1]]
    >>> s.machines_per_org.tolist(), s.n_sequential_jobs
    ([2, 1], 4)
    """
    _check_options(n_orgs, orgs_by, seed, horizon)
    jobs = workload.jobs
    where = workload.source or "the workload"
    missing = [c for c in ("job_number", "submit_time", "run_time", PROCESSORS, ORG_ID_COLUMNS[orgs_by])
               if c not in jobs.columns]
    if missing:
        raise ConfigError(f"{where}: the job table lacks column(s) {', '.join(missing)}; read traces with "
                          "fairsched.workload.swf.read_swf, which adds them")
    if jobs.empty:
        raise ConfigError(f"{where} has no jobs: nothing to schedule; widen the window or check the cleaning")
    ids = jobs[ORG_ID_COLUMNS[orgs_by]].to_numpy(dtype=np.int64)
    if org_map is None:
        org = assign_orgs(ids, n_orgs, seed=seed)
    else:
        org = _orgs_from_map(ids, read_org_map(org_map, n_orgs=n_orgs, key=orgs_by), org_map, orgs_by)
    counts = _machine_counts(workload, n_machines, n_orgs, split, zipf_s, seed)
    frame, origin = _scenario_jobs(jobs, org, time_origin, where)
    owner = np.repeat(np.arange(n_orgs, dtype=np.int64), counts)
    return Scenario(jobs=frame, machine_owner=owner, n_orgs=int(n_orgs), horizon=horizon, time_origin=origin,
                    seed=int(seed), source=workload.source, orgs_by=orgs_by,
                    members=_members(ids, org, jobs[PROCESSORS].to_numpy(dtype=np.int64),
                                     np.ceil(jobs["run_time"].to_numpy(dtype=np.float64)).astype(np.int64)))


def _members(ids: np.ndarray, org: np.ndarray, copies: np.ndarray, processing_time: np.ndarray) -> pd.DataFrame:
    """`Scenario.members`: one row per distinct id, with what its jobs add up to (every id joins one org)."""
    unique, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)

    def total(values: np.ndarray) -> np.ndarray:
        sums = np.zeros(unique.size, dtype=np.int64)
        np.add.at(sums, inverse, values)  # exact int64 sums
        return sums

    frame = pd.DataFrame({"org": np.asarray(org, dtype=np.int64)[first], "id": unique.astype(np.int64),
                          "jobs": total(np.ones_like(inverse)), "sequential_jobs": total(copies),
                          "work": total(copies * processing_time)})
    return frame.sort_values(["org", "id"], kind="stable").reset_index(drop=True)


def _check_options(n_orgs: int, orgs_by: str, seed: int, horizon: int | None) -> None:
    if not _is_int(n_orgs) or n_orgs < 1:
        raise ConfigError(f"n_orgs={n_orgs!r}: expected a positive number of organizations")
    if orgs_by not in ORG_ID_COLUMNS:
        raise ConfigError(f"orgs_by={orgs_by!r}: expected one of {', '.join(ORG_ID_COLUMNS)}")
    if not _is_int(seed) or seed < 0:
        raise ConfigError(f"seed={seed!r}: expected a non-negative integer")
    if horizon is not None and (not _is_int(horizon) or horizon < 0):
        raise ConfigError(f"horizon={horizon!r}: expected a non-negative integer number of seconds (or None)")


def assign_orgs(ids: np.ndarray, n_orgs: int, *, seed: int) -> np.ndarray:
    """Organization of each job: each distinct id joins an organization drawn uniformly at random.

    Implements PPAM'13 Sec. 5.1 / SPAA'13 Sec. 6.2 ("we uniformly distributed the user identifiers between
    the organizations"). The draw for id ``i`` comes from its own stream ``SeedSequence(seed,
    spawn_key=(STAGE_ORGS, key(i)))``, so an id's organization depends on the seed and the id only — not on
    which other ids the workload holds: a window of a trace keeps every user in the same organization.
    ``key`` maps ids >= 0 to even and negative ids (-1 = unknown) to odd keys, since spawn keys are >= 0.
    O(n log n + distinct ids).

    >>> assign_orgs(np.array([7, 3, 7, -1]), 5, seed=0).tolist() == [
    ...     assign_orgs(np.array([7]), 5, seed=0)[0], assign_orgs(np.array([3]), 5, seed=0)[0],
    ...     assign_orgs(np.array([7]), 5, seed=0)[0], assign_orgs(np.array([-1]), 5, seed=0)[0]]
    True
    """
    unique, inverse = np.unique(np.asarray(ids, dtype=np.int64), return_inverse=True)
    org_of_id = np.fromiter((_org_of_id(int(i), n_orgs, seed) for i in unique), dtype=np.int64,
                            count=unique.size)
    return org_of_id[inverse.reshape(-1)]


def _org_of_id(ident: int, n_orgs: int, seed: int) -> int:
    key = 2 * ident if ident >= 0 else -2 * ident - 1  # zigzag: a bijection from all ints to keys >= 0
    rng = stream(seed, STAGE_ORGS, key)
    return int(rng.integers(n_orgs))


def read_org_map(path: str | Path, *, n_orgs: int, key: OrgsBy = "user") -> dict[int, int]:
    """Id -> organization number from an organization map (`fairsched.workload.org_map`, the format ``audit``
    reads too): header ``<key>,org`` (or ``key,org``; optional), then one ``ID,ORG`` line per id.

    The ids are the integer user ids for ``key="user"``, group ids for ``"group"``, queue numbers for ``"queue"``.
    ORG is an organization number in 0..n_orgs-1 on every line, or a name on every line: the distinct names are
    then numbered in sorted order (at most `n_orgs` of them).

    Raises
    ------
    InputError : ``FILE:LINE: field NAME: problem`` (see `fairsched.workload.org_map.read_org_map`), a
        non-integer id (field `key`), a number out of range, numbers mixed with names, or more names than
        `n_orgs` (field ``org``).
    """
    read = read_map(path, key=key)
    ids = {_map_int(ident, read.path, read.lines[ident], key, "an integer id"): org
           for ident, org in read.orgs.items()}
    numbers = {ident: org for ident, org in read.orgs.items() if org.lstrip("-").isdigit()}
    if numbers and len(numbers) < len(read.orgs):
        name = next(ident for ident in read.orgs if ident not in numbers)
        raise InputError(f"{read.orgs[name]!r} is a name while line {read.lines[next(iter(numbers))]} gives an "
                         f"organization number; use numbers 0..{n_orgs - 1} or names throughout", path=read.path,
                         line=read.lines[name], field="org")
    for ident, org in numbers.items():
        if not 0 <= int(org) < n_orgs:
            raise InputError(f"{int(org)} is out of range; expected 0..{n_orgs - 1} ({n_orgs} organizations)",
                             path=read.path, line=read.lines[ident], field="org")
    names = sorted(set(ids.values()))
    if not numbers and len(names) > n_orgs:
        raise InputError(f"{len(names)} organizations named ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''})"
                         f" for {n_orgs} organizations; name at most {n_orgs}, or number them 0..{n_orgs - 1}",
                         path=read.path, field="org")
    number = {org: int(org) for org in names} if numbers else {org: rank for rank, org in enumerate(names)}
    return {ident: number[org] for ident, org in ids.items()}


def _map_int(text: str, path: Path, line: int, field: str, expected: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"{text!r} is not an integer; expected {expected}", path=path, line=line,
                         field=field) from None


def _orgs_from_map(ids: np.ndarray, mapping: dict[int, int], path: str | Path, key: str) -> np.ndarray:
    unique, inverse = np.unique(ids, return_inverse=True)
    absent = [int(i) for i in unique if int(i) not in mapping]
    if absent:
        shown = ", ".join(map(str, absent[:10])) + (", ..." if len(absent) > 10 else "")
        raise InputError(f"{len(absent)} {key} id(s) of the workload are not in the map: {shown}; add a line "
                         f"'ID,ORG' for each", path=path, field=key)
    return np.array([mapping[int(i)] for i in unique], dtype=np.int64)[inverse.reshape(-1)]


def _machine_counts(workload: Workload, n_machines: int | None, n_orgs: int, split: str | Sequence[int],
                    zipf_s: float, seed: int) -> np.ndarray:
    """m from the options (explicit split, else n_machines, else MaxProcs, else the widest job), then split."""
    n_machines, _ = resolve_machines(workload, n_machines, split)
    return split_machines(n_machines, n_orgs, split, zipf_s=zipf_s, rng=stream(seed, STAGE_MACHINES))


def resolve_machines(workload: Workload, n_machines: int | None,
                     split: str | Sequence[int]) -> tuple[int | None, str]:
    """m for `split_machines` and the rule that gave it, as a phrase for reports ("the MaxProcs header of ...").

    A given `n_machines` wins; else explicit `split` counts define m (None is returned: `split_machines` sums
    them); else `default_machines` of `workload`.
    """
    if n_machines is not None:
        return n_machines, "given"
    if _explicit_counts(split) is not None:
        return None, "the sum of the split counts"
    return default_machines(workload)


def default_machines(workload: Workload) -> tuple[int, str]:
    """m when none is given, and the rule that gave it: the header's ``MaxProcs``, else the widest job.

    Pass the whole trace, not a window of it: a window's widest job says little about the machine (a window of
    METACENTRUM holds 2-processor jobs only, while the machine has 60), so ``compare`` takes m from the whole
    trace before it cuts the window (`fairsched.online.experiment.prepare_scenario`).

    >>> import pandas as pd
    >>> default_machines(Workload(jobs=pd.DataFrame({"processors": [1, 4, 2]}), source="x.swf"))
    (4, 'the widest job of x.swf (no MaxProcs header)')
    """
    header = workload.header_int("MaxProcs")
    where = workload.source or "the workload"
    if header is not None and header > 0:
        return header, f"the MaxProcs header of {where}"
    processors = workload.jobs[PROCESSORS].to_numpy(dtype=np.float64)
    widest = np.nanmax(processors) if processors.size else np.nan
    if np.isfinite(widest) and widest >= 1:
        return int(widest), f"the widest job of {where} (no MaxProcs header)"
    raise ConfigError(f"{workload.source or 'the workload'}: the number of machines is unknown (no MaxProcs "
                      "header, no job with processors >= 1); pass n_machines (--machines)")


def _scenario_jobs(jobs: pd.DataFrame, org: np.ndarray, time_origin: float | None,
                   where: str) -> tuple[pd.DataFrame, float]:
    """The `SCENARIO_COLUMNS` table (sorted by release, job) and the time origin used."""
    submit = jobs["submit_time"].to_numpy(dtype=np.float64)
    run = jobs["run_time"].to_numpy(dtype=np.float64)
    processors = jobs[PROCESSORS].to_numpy(dtype=np.float64)
    bad_run = int(np.count_nonzero(~(np.isfinite(run) & (run > 0))))  # -1 (missing), 0 and NaN
    bad_processors = int(np.count_nonzero(~(np.isfinite(processors) & (processors >= 1))))
    if bad_run or bad_processors:
        raise ConfigError(f"{where}: {bad_run} job(s) have no run time > 0 and {bad_processors} no processors >= 1; "
                          "the model needs both. Clean the workload first (fairsched.workload.clean.clean, as "
                          "the compare command does) to drop them")
    if not np.all(np.isfinite(submit)):
        raise ConfigError(f"{where}: {int(np.count_nonzero(~np.isfinite(submit)))} job(s) have no submit time")
    origin = float(submit.min()) if time_origin is None else float(time_origin)
    if not np.isfinite(origin):
        raise ConfigError(f"time_origin={time_origin!r}: expected a finite trace time in seconds")
    early = int(np.count_nonzero(submit < origin))
    if early:
        raise ConfigError(f"{where}: {early} job(s) are submitted before the time origin {origin:g}; cut the "
                          "workload to a window starting there first, or move the origin earlier")
    job = jobs["job_number"].to_numpy(dtype=np.int64)
    release = np.floor(submit - origin).astype(np.int64)
    order = np.lexsort((job, release))  # by release, then job number; stable
    frame = pd.DataFrame({
        JOB: job[order],
        ORG: np.asarray(org, dtype=np.int64)[order],
        RELEASE: release[order],
        PROCESSING_TIME: np.ceil(run).astype(np.int64)[order],
        COPIES: processors.astype(np.int64)[order],  # a job on q processors = q sequential copies (PPAM'13 5.1)
    })
    return frame, origin


def describe(scenario: Scenario) -> dict[str, Any]:
    """JSON-ready summary of a scenario for reports and ``--json``: sizes, and per organization its machines,
    jobs (rows), sequential jobs (copies) and work (sum of processing_time * copies, machine-seconds).

    >>> s = scenario_from_arrays([0, 0, 1], [3, 2, 1], [0, 1, 0], [1, 1], copies=[1, 2, 1])
    >>> d = describe(s)
    >>> d["machines_per_org"], d["jobs_per_org"], d["sequential_jobs_per_org"], d["work_per_org"]
    ([1, 1], [2, 1], [2, 2], [4, 4])
    """
    jobs = scenario.jobs
    k = scenario.n_orgs
    org = jobs[ORG].to_numpy(dtype=np.int64)
    copies = jobs[COPIES].to_numpy(dtype=np.int64)
    work = jobs[PROCESSING_TIME].to_numpy(dtype=np.int64) * copies

    def per_org(values: np.ndarray) -> list[int]:
        total = np.zeros(k, dtype=np.int64)
        np.add.at(total, org, values)  # exact int64 sums (bincount's float weights could round)
        return total.tolist()

    return {
        "source": scenario.source,
        "seed": int(scenario.seed),
        "n_orgs": int(k),
        "n_machines": scenario.n_machines,
        "horizon": scenario.horizon,
        "time_origin": float(scenario.time_origin),
        "n_jobs": len(jobs),
        "n_sequential_jobs": int(copies.sum()),
        "work": int(work.sum()),
        "last_release": int(jobs[RELEASE].max()) if len(jobs) else None,
        "machines_per_org": [int(x) for x in scenario.machines_per_org],
        "jobs_per_org": per_org(np.ones_like(org)),
        "sequential_jobs_per_org": per_org(copies),
        "work_per_org": per_org(work),
    }
