"""The recorded schedule: read a log (SWF, sacct, jobs.csv), form organizations, decide who owns what.

Pipeline of this module: `read_log` (format sniffing, one reader per format, all in `fairsched.workload`) →
`recorded_jobs` (the audit window, the jobs used, the organizations and their members) → `ownership` (entitled
shares and the CPUs each organization brought, from ``--shares`` and ``--cpus``).

Column names of `Recorded.jobs` (one row per job submitted in the window, in submit order; int64 seconds on the
log's clock):

==============  ==================================================================================
job_id          the log's own job id (str)
org             0-based organization (index into `Recorded.orgs`)
submit          submit time
start           recorded start; `NEVER` for a job that never started (kept: "waiting at the end")
run             recorded run time (0 allowed; -1 when never started)
end             start + run (`NEVER` when never started)
cpus            CPUs allocated (requested ones for a job that never started)
estimate        the user's time limit (s), else the run time (the reader's ``runtime_estimate``)
memory_mb       memory of the job (NaN when the log has none)
billing         billing rate of the job (Slurm ``AllocTRES`` ``billing=``; NaN when the log has none)
gpus            GPUs of the job (``AllocTRES`` ``gres/gpu=``; NaN when the log has no TRES)
==============  ==================================================================================
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError, InputError
from fairsched.workload.files import read_head
from fairsched.workload.jobs_csv import is_jobs_csv_header, read_jobs_csv
from fairsched.workload.model import Workload
from fairsched.workload.org_map import read_org_map as read_map
from fairsched.workload.sacct import is_sacct_header, read_sacct
from fairsched.workload.schema import ACCOUNTING_KEYS, BILLING, GPUS, JOB_ID, MEMORY_MB, PROCESSORS, RUNTIME_ESTIMATE
from fairsched.workload.swf import read_swf

FORMATS = ("auto", "swf", "sacct", "jobs-csv")
ORG_BY = ("account", "group", "user", "partition", "queue")
JOB_COLUMNS = ("job_id", "org", "submit", "start", "run", "end", "cpus", "estimate", "memory_mb", "billing", "gpus")
NEVER = np.iinfo(np.int64).max // 4  # "never started": far beyond any horizon, still safe to add run times to
_SWF_KEYS = {"user": "user_id", "group": "group_id", "queue": "queue_number", "partition": "partition_number"}
SKIP_NEVER_STARTED = "never started (kept as waiting at the end)"
SKIP_OUTSIDE = "submitted outside --since/--until"
SKIP_NO_CPUS = "started without a CPU count (--skip-bad-records)"


def sniff_format(path: str | Path) -> str:
    """``swf``, ``sacct`` or ``jobs-csv`` from the first non-empty line of the (possibly gzipped) file."""
    path = Path(path)
    head = read_head(path, 1 << 16)  # gzip or plain; a damaged file is one InputError
    text = head.decode("utf-8", errors="replace")
    first = next((line for line in text.splitlines() if line.strip()), "")
    if is_sacct_header(first):
        return "sacct"
    if is_jobs_csv_header(first):
        return "jobs-csv"
    if first.lstrip().startswith(";") or first.strip()[:1].isdigit():
        return "swf"
    if not first:
        raise InputError("empty log: no job to audit", path=path, line=1)
    raise InputError("cannot tell the log's format from its first line (not an SWF line, not a sacct -P header, "
                     "not a Batsim jobs.csv header); pass --format swf|sacct|jobs-csv", path=path, line=1)


def read_log(path: str | Path, fmt: str = "auto", *, skip_bad_records: bool = False) -> tuple[Workload, str]:
    """Read the log with the one reader of its format; return the workload and the format used."""
    if fmt not in FORMATS:
        raise ConfigError(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if fmt == "auto":
        fmt = sniff_format(path)
    reader = {"swf": read_swf, "sacct": read_sacct, "jobs-csv": read_jobs_csv}[fmt]
    return reader(path, skip_bad_records=skip_bad_records), fmt


def default_org_by(fmt: str) -> str:
    """``group`` for SWF (no accounts there), ``account`` for sacct and jobs.csv."""
    return "group" if fmt == "swf" else "account"


@dataclass(frozen=True)
class Recorded:
    """The jobs of the audit window and their organizations (module docstring for the columns).

    Attributes
    ----------
    jobs : DataFrame with `JOB_COLUMNS`.
    orgs : organization names, sorted (index = ``org``).
    members : for each organization, the accounting keys (accounts, users, ...) that form it, sorted.
    t_begin, t_end : the audit window on the log's clock; utilities are taken at ``t_end``.
    skipped : records not used, by reason (the reader's, plus never-started and out-of-window jobs).
    jobs_read : jobs the reader returned.
    origin_epoch : the log's time 0 in seconds since the epoch (None when the log does not say).
    max_procs : the machine size the log's header states (SWF ``MaxProcs``), else None.
    warnings : what the audit noticed and went on with (an org map naming keys without jobs, keys sent to
        ``--unmapped-org``), one sentence each.
    idle_keys : keys of the org map without a job in the window -> their organization.
    time_zone : the log's time zone (SWF ``TimeZoneString``), else None (sacct: local times as written).
    """

    jobs: pd.DataFrame
    orgs: tuple[str, ...]
    members: tuple[tuple[str, ...], ...]
    t_begin: int
    t_end: int
    skipped: dict[str, int]
    jobs_read: int
    origin_epoch: int | None
    max_procs: int | None = None
    warnings: tuple[str, ...] = ()
    idle_keys: dict[str, str] = field(default_factory=dict)
    time_zone: str | None = None

    @property
    def n_orgs(self) -> int:
        return len(self.orgs)

    def column(self, name: str) -> np.ndarray:
        return self.jobs[name].to_numpy()

    @property
    def started(self) -> np.ndarray:
        return self.jobs["start"].to_numpy() < NEVER


def parse_time(text: str | float | None, origin_epoch: int | None, flag: str) -> int | None:
    """``--since``/``--until``: seconds on the log's clock, or an ISO date (``2021-02-11T22:36:19``, UTC)."""
    if text is None:
        return None
    try:
        return math.floor(float(text))
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(str(text)).replace(tzinfo=UTC)
    except ValueError:
        raise ConfigError(f"{flag} {text!r}: expected seconds on the log's clock or a date such as "
                          "2021-02-11T22:36:19") from None
    if origin_epoch is None:
        raise ConfigError(f"{flag} {text!r}: this log gives no UnixStartTime, so dates cannot be placed; "
                          "give seconds on the log's clock")
    return int(moment.timestamp()) - origin_epoch


def _keys(workload: Workload, fmt: str, org_by: str) -> np.ndarray:
    jobs = workload.jobs
    if org_by not in ORG_BY:
        raise ConfigError(f"--org-by {org_by!r}: choose one of {', '.join(ORG_BY)}")
    if fmt == "swf":
        if org_by == "account":
            raise ConfigError("--org-by account: SWF logs have no accounts; choose group, user, queue or partition")
        ids = jobs[_SWF_KEYS[org_by]].to_numpy(np.int64)
        if ids.size and np.all(ids < 0):
            raise ConfigError(f"--org-by {org_by}: the log records no {org_by} (SWF field "
                              f"{_SWF_KEYS[org_by]} is -1 for every job); choose another --org-by")
        return np.where(ids < 0, "-1", ids.astype(str)).astype(object)  # "no user": -1, as in the trace
    keys = jobs[org_by].to_numpy(dtype=object) if org_by in ACCOUNTING_KEYS and org_by in jobs else None
    if keys is None or (keys.size and all(k == "" for k in keys)):
        raise ConfigError(f"--org-by {org_by}: the log has no {org_by} column or it is empty everywhere")
    return keys


def read_org_map(path: str | Path, key: str = "key") -> dict[str, str]:
    """Accounting key -> organization name, from the one organization-map format (`fairsched.workload.org_map`)."""
    return read_map(path, key=key).orgs


def recorded_jobs(workload: Workload, fmt: str, *, org_by: str, org_map: str | Path | None = None,
                  since: str | float | None = None, until: str | float | None = None,
                  skip_bad_records: bool = False, unmapped_org: str | None = None) -> Recorded:
    """The jobs to audit, their organizations and members (module docstring); see `Recorded`.

    With `org_map`, keys of the map without a job in the window are counted in `Recorded.warnings` (a map of
    every member is normal); keys of the log missing from the map go to the organization `unmapped_org`, or,
    when it is None, raise `InputError`.

    A started job without a CPU count (SWF: allocated and requested processors -1) raises `InputError`, or with
    `skip_bad_records` is dropped and counted under `SKIP_NO_CPUS`, whatever the log's format.
    """
    origin = workload.header_int("UnixStartTime")
    t_since, t_until = parse_time(since, origin, "--since"), parse_time(until, origin, "--until")
    jobs = workload.jobs
    skipped = Counter(workload.read_report.skipped)
    if len(jobs) == 0:
        raise InputError("the log holds no job", path=workload.source)
    keys = _keys(workload, fmt, org_by)
    submit = np.floor(jobs["submit_time"].to_numpy(np.float64)).astype(np.int64)
    keep = np.ones(len(jobs), dtype=bool)
    if t_since is not None:
        keep &= submit >= t_since
    if t_until is not None:
        keep &= submit < t_until
    skipped[SKIP_OUTSIDE] += int((~keep).sum())
    wait = jobs["wait_time"].to_numpy(np.float64)
    run = jobs["run_time"].to_numpy(np.float64)
    started = (wait >= 0) & (run >= 0)
    bad = keep & started & (jobs[PROCESSORS].to_numpy(np.int64) < 1)
    if bad.any():
        first = _job_ids(jobs)[int(np.flatnonzero(bad)[0])]
        if not skip_bad_records:
            raise InputError(f"{int(bad.sum())} started job(s) have no CPU count (first: job {first}); pass "
                             "--skip-bad-records to drop and count them, or fix the log", path=workload.source)
        skipped[SKIP_NO_CPUS] += int(bad.sum())
        keep &= ~bad
    if not np.any(keep & started):
        raise InputError("no job of the log (in the audit window) ever started: nothing to audit",
                         path=workload.source)
    skipped[SKIP_NEVER_STARTED] += int((keep & ~started).sum())
    names = keys[keep].astype(str)
    names = np.where(names == "", "(none)", names)
    org_names, warnings, idle_keys = _organizations(names, org_map, org_by, unmapped_org)
    orgs = tuple(sorted(set(org_names)))
    index = {name: i for i, name in enumerate(orgs)}
    members = tuple(tuple(sorted(set(names[org_names == o]))) for o in orgs)
    start = np.where(started, submit + np.ceil(wait).astype(np.int64), NEVER)[keep]
    run_s = np.where(started, np.ceil(run), -1).astype(np.int64)[keep]
    estimate = jobs[RUNTIME_ESTIMATE].to_numpy(np.float64)[keep]
    estimate = np.where(np.isfinite(estimate) & (estimate > 0), np.ceil(estimate), np.maximum(run_s, 1))
    memory, billing, gpus = (jobs[c].to_numpy(np.float64)[keep] if c in jobs else np.full(int(keep.sum()), np.nan)
                             for c in (MEMORY_MB, BILLING, GPUS))
    job_id = _job_ids(jobs)[keep]
    table = pd.DataFrame({
        "job_id": job_id, "org": np.array([index[o] for o in org_names], dtype=np.int64),
        "submit": submit[keep], "start": start, "run": run_s,
        "end": np.where(start < NEVER, start + np.maximum(run_s, 0), NEVER),
        "cpus": jobs[PROCESSORS].to_numpy(np.int64)[keep], "estimate": estimate.astype(np.int64),
        "memory_mb": memory, "billing": billing, "gpus": gpus,
    })
    t_begin = int(t_since) if t_since is not None else int(table["submit"].min())
    ends = table["end"].to_numpy()
    t_end = int(t_until) if t_until is not None else int(ends[ends < NEVER].max())
    return Recorded(jobs=table, orgs=orgs, members=members, t_begin=t_begin, t_end=max(t_end, t_begin),
                    skipped={k: v for k, v in skipped.items() if v}, jobs_read=len(jobs), origin_epoch=origin,
                    max_procs=workload.header_int("MaxProcs"), warnings=warnings, idle_keys=idle_keys,
                    time_zone=_time_zone(workload.header_value("TimeZoneString")))


def usage_rate(recorded: Recorded) -> tuple[np.ndarray, str]:
    """Each job's usage per second of run and the unit: its billing rate when every started job of the window
    has one (Slurm ``AllocTRES`` ``billing=``), "billing-seconds"; else its CPUs, "CPU-seconds"."""
    billing = recorded.column("billing")
    if recorded.started.any() and np.all(np.isfinite(billing[recorded.started])):
        return np.where(recorded.started, np.nan_to_num(billing), 0.0), "billing-seconds"
    return recorded.column("cpus").astype(np.float64), "CPU-seconds"


def _time_zone(name: str | None) -> str | None:
    """The header's time zone when the zone database knows it (``US/Pacific``), else None (dates then in UTC)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if not name or not name.strip():
        return None
    try:
        ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name.strip()


def _job_ids(jobs: pd.DataFrame) -> np.ndarray:
    """The log's own job ids as text (sacct/jobs.csv ``job_id``, SWF job number)."""
    return jobs[JOB_ID].astype(str).to_numpy() if JOB_ID in jobs else jobs["job_number"].astype(str).to_numpy()


def _organizations(keys: np.ndarray, org_map: str | Path | None, org_by: str = "key",
                   unmapped_org: str | None = None) -> tuple[np.ndarray, tuple[str, ...], dict[str, str]]:
    """Each job's organization, the warnings to report, and the map's keys without a job (-> organization)."""
    if org_map is None:
        if unmapped_org is not None:
            raise ConfigError("--unmapped-org names the organization of the keys missing from --org-map; "
                              "give --org-map too")
        return keys, (), {}
    mapping = read_org_map(org_map, org_by)
    present = set(keys.tolist())
    warnings = []
    idle = sorted(set(mapping) - present)
    if idle:
        warnings.append(f"The org map {Path(org_map).name} names {len(idle):,} {org_by} key(s) without a job in "
                        f"the audit window ({_first(idle)}); they are counted, not used.")
    unmapped = sorted(present - set(mapping))
    if unmapped and unmapped_org is None:
        raise InputError(f"{len(unmapped)} key(s) of the log are not in the org map (first: {unmapped[0]!r}); "
                         "map every key to an organization, or pass --unmapped-org NAME to gather them in one",
                         path=org_map)
    if unmapped:
        count = int(np.isin(keys, unmapped).sum())
        warnings.append(f"{len(unmapped):,} {org_by} key(s) of the log are not in the org map "
                        f"({_first(unmapped)}): their {count:,} job(s) go to the organization {unmapped_org!r} "
                        "(--unmapped-org).")
    orgs = np.array([mapping.get(k, unmapped_org) for k in keys.tolist()], dtype=object)
    return orgs, tuple(warnings), {k: mapping[k] for k in idle}


def _first(names: list[str], n: int = 5) -> str:
    shown = ", ".join(names[:n])
    return shown + (f" and {len(names) - n:,} more" if len(names) > n else "")


# -- ownership -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ownership:
    """What each organization brought to the pool.

    Attributes
    ----------
    entitled_share : (k,) float, sums to 1.
    cpus : (k,) int64, the CPUs each organization owns (sums to ``n_cpus``).
    n_cpus : the pool's CPUs.
    how : one sentence saying where the shares and the CPU count come from (shown in the report).
    excess : when the log allocates more CPUs at once than ``--cpus`` (or the shares file, or the header's
        MaxProcs) says: where and by how much (`Excess`); the pool is then the larger value.
    """

    entitled_share: np.ndarray
    cpus: np.ndarray
    n_cpus: int
    how: str
    excess: Excess | None = None


def peak_allocation(recorded: Recorded) -> int:
    """The largest number of CPUs allocated at once in the recorded schedule."""
    started = recorded.started & (recorded.column("run") > 0)
    start, end, cpus = (recorded.column(c)[started] for c in ("start", "end", "cpus"))
    if start.size == 0:
        return int(recorded.column("cpus")[recorded.started].max())
    times = np.concatenate([start, end])
    delta = np.concatenate([cpus, -cpus])
    order = np.lexsort((delta, times))  # at equal times, ends (negative) before starts
    return int(max(np.cumsum(delta[order]).max(), recorded.column("cpus")[recorded.started].max()))


def ownership(recorded: Recorded, weights: Mapping[str, float], how: str, n_cpus: int | None = None, *,
              file_cpus: Mapping[str, int] | None = None) -> Ownership:
    """Entitled shares and CPUs per organization, from the share of each organization (`weights`, any scale;
    missing ones 0), where they come from (`how`), and the CPUs each bought (`file_cpus`, an ``org,cpus`` file):
    `fairsched.audit.entitlement` reads them from ``--shares``.

    The pool's CPU count is ``n_cpus``, else the file's total CPUs, else the largest concurrent allocation of the
    log (a lower bound of the real machine, stated in the report). When the log allocates more CPUs at once than
    that count, the pool is the larger value and `Ownership.excess` says where, which jobs and how much. CPUs
    are split by the shares with the largest-remainder rule (ties: organization order); an organization with a
    positive share gets at least one CPU when there are enough.
    """
    peak = peak_allocation(recorded)
    share = np.array([weights.get(o, 0.0) for o in recorded.orgs], dtype=np.float64)
    bought = None if file_cpus is None else np.array([file_cpus.get(o, 0) for o in recorded.orgs], dtype=np.int64)
    total = float(share.sum())
    if not np.isfinite(total) or total <= 0 or np.any(share < 0):
        raise ConfigError(f"--shares ({how}): the shares do not sum to anything positive ({share.tolist()}); "
                          "give every organization a share >= 0 and at least one > 0")
    if n_cpus is None and bought is not None:
        n_cpus, cpus_how = int(bought.sum()), "the total of the shares file"
    elif n_cpus is None:
        n_cpus, cpus_how = peak, "the largest concurrent allocation seen in the log (default; pass --cpus)"
    else:
        cpus_how = "--cpus"
    excess = None
    if n_cpus < peak:  # the stated pool is smaller than what the log ran at once: audit the larger pool, say so
        excess = allocation_excess(recorded, n_cpus, cpus_how)
        n_cpus, cpus_how = peak, f"the log's peak allocation, larger than the {excess.limit} of {cpus_how}"
    elif recorded.max_procs is not None and recorded.max_procs < peak:
        excess = allocation_excess(recorded, recorded.max_procs, "the log's header (MaxProcs)")
    split = bought if bought is not None and int(bought.sum()) == n_cpus else _largest_remainder(share / total,
                                                                                                 n_cpus)
    return Ownership(entitled_share=share / total, cpus=split.astype(np.int64), n_cpus=int(n_cpus),
                     how=f"{how}; {n_cpus} CPUs: {cpus_how}", excess=excess)


@dataclass(frozen=True)
class Excess:
    """Where the recorded schedule allocates more CPUs at once than a stated pool size (`allocation_excess`).

    Attributes
    ----------
    limit, source : the stated size and where it comes from (``--cpus``, the shares file, MaxProcs).
    peak, peak_time : the largest allocation and the first time it is reached (log seconds).
    jobs_at_peak : ids of the jobs running then (the widest job alone when it is wider than every overlap).
    seconds_over, cpu_seconds_over : how long the allocation stays above `limit`, and by how many CPU-seconds.
    """

    limit: int
    source: str
    peak: int
    peak_time: int
    jobs_at_peak: tuple[str, ...]
    seconds_over: int
    cpu_seconds_over: int

    def sentence(self) -> str:
        """One line for the report: the excess, the jobs, and the rule applied."""
        jobs = ", ".join(self.jobs_at_peak[:8]) + (f" and {len(self.jobs_at_peak) - 8} more"
                                                   if len(self.jobs_at_peak) > 8 else "")
        return (f"The log allocates up to {self.peak} CPUs at once, {self.peak - self.limit} more than the "
                f"{self.limit} of {self.source} (above it for {self.seconds_over:,} s, {self.cpu_seconds_over:,} "
                f"CPU-seconds beyond it; at t = {self.peak_time:,} s jobs {jobs} ran together). The audit uses "
                f"the larger value, {self.peak} CPUs, split by the shares; to audit exactly {self.limit} CPUs, "
                "leave out the jobs above (--since/--until) or correct the log.")


def allocation_excess(recorded: Recorded, limit: int, source: str) -> Excess:
    """How the recorded allocation exceeds `limit` CPUs: peak, when, which jobs, for how long, how much."""
    ran = recorded.started & (recorded.column("run") > 0)
    start, end, cpus = (recorded.column(c)[ran] for c in ("start", "end", "cpus"))
    times = np.concatenate([start, end])
    delta = np.concatenate([cpus, -cpus])
    order = np.lexsort((delta, times))  # at equal times, ends before starts
    times, level = times[order], np.cumsum(delta[order])
    spans = np.diff(times, append=times[-1]) if times.size else np.zeros(0, dtype=np.int64)
    over = np.clip(level - limit, 0, None)
    peak_overlap = int(level.max()) if level.size else 0
    widest = int(np.argmax(recorded.column("cpus") * recorded.started))
    if peak_overlap >= int(recorded.column("cpus")[widest]) and level.size:
        at = int(times[int(np.argmax(level))])
        running = np.flatnonzero(ran)[(start <= at) & (end > at)]
    else:
        at, running = int(recorded.column("start")[widest]), np.array([widest])
    ids = recorded.column("job_id")[running]
    return Excess(limit=int(limit), source=source, peak=peak_allocation(recorded), peak_time=at,
                  jobs_at_peak=tuple(str(i) for i in ids), seconds_over=int(spans[over > 0].sum()),
                  cpu_seconds_over=int((over * spans).sum()))


def cpu_seconds(recorded: Recorded) -> np.ndarray:
    """(k,) CPU-seconds of each organization's jobs up to ``t_end``."""
    start, run, cpus, org = (recorded.column(c) for c in ("start", "run", "cpus", "org"))
    units = np.clip(np.minimum(start + np.maximum(run, 0), recorded.t_end) - np.minimum(start, recorded.t_end), 0,
                    None)
    units = np.where(start < NEVER, units, 0)
    return np.bincount(org, weights=(units * cpus).astype(np.float64), minlength=recorded.n_orgs)


def _largest_remainder(share: np.ndarray, n: int) -> np.ndarray:
    exact = share * n
    base = np.floor(exact).astype(np.int64)
    order = np.lexsort((np.arange(share.size), -(exact - base)))
    base[order[: n - int(base.sum())]] += 1
    for u in np.flatnonzero((share > 0) & (base == 0)):  # a positive share owns at least one CPU
        donor = int(np.argmax(base))
        if base[donor] > 1:
            base[donor] -= 1
            base[u] += 1
    return base
