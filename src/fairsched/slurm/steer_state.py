"""What `fairsched steer` reads from a live Slurm (``scontrol``, ``sshare``, ``sacct``, ``squeue``): a `SteerState`.

Each ``parse_*`` function turns one command's text into data (tested on recorded outputs); `read_state` runs the
commands through a caller's ``call(argv) -> stdout`` (which retries and raises) and assembles the state. The sshare
dump and the sacct export are read by the one reader of each format (`fairsched.workload.sshare`,
`fairsched.workload.sacct`); LevelFS comes from fairsched's Fair Tree (`fairsched.fairshare.fair_tree`).

The commands (Slurm 22.05; all times in UTC: the runner sets ``TZ=UTC``)::

    scontrol show config                    AccountingStorageType, PriorityDecayHalfLife
    scontrol show nodes -o                  CPUTot of every node
    sshare -a -l -P                         the association tree, RawShares and RawUsage
    sacct -a -X -P -S <start> -E now ...    the jobs of the window (`SACCT_FIELDS`)
    squeue -h -r -t PENDING -o %i|%a|%y     the pending jobs (array elements one a line) and their nice
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from fairsched.errors import ClusterError, ConfigError
from fairsched.fairshare import fair_tree
from fairsched.slurm.steer_decide import PendingJob, SteerState, UsedJob
from fairsched.workload.sacct import read_sacct
from fairsched.workload.share_tree import ROOT, ShareTree
from fairsched.workload.sshare import read_share_tree

__all__ = ["SACCT_FIELDS", "no_accounting", "parse_config", "parse_duration", "parse_nodes_cpus", "parse_squeue",
           "read_state", "share_accounts", "used_jobs"]

SACCT_FIELDS = "JobIDRaw,Account,Submit,Start,End,Elapsed,State,NCPUS,Timelimit"
SQUEUE_FORMAT = "%i|%a|%y"
NO_ACCOUNTING = "accounting_storage/none"
_DURATION = re.compile(r"^(?:(\d+)-)?(\d+):(\d\d):(\d\d)$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

Call = Callable[[Sequence[str]], str]


def parse_duration(text: str, flag: str) -> int:
    """Seconds from ``30s``, ``5m``, ``2h``, ``1d``, ``45`` (seconds) or Slurm's ``[D-]HH:MM:SS``.

    >>> parse_duration("30s", "--every"), parse_duration("2m", "--every"), parse_duration("7-00:00:00", "x")
    (30, 120, 604800)
    """
    text = text.strip().lower()
    match = _DURATION.match(text)
    if match:
        days, hours, minutes, seconds = (int(g or 0) for g in match.groups())
        return ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd]?)", text)
    if match is None:
        raise ConfigError(f"{flag} {text!r}: expected a duration such as 30s, 5m, 2h, 1d or 45 (seconds)")
    return round(float(match.group(1)) * _UNITS[match.group(2) or "s"])


def parse_config(text: str) -> dict[str, str]:
    """``scontrol show config``'s ``Name = value`` lines as a dict."""
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {name.strip(): value.strip() for name, value in pairs}


def no_accounting(config: dict[str, str], *, sacct_said: str | None = None) -> str | None:
    """The one-line reason steer cannot run when the cluster keeps no job accounting (by its configuration, or by
    what `sacct_said` when it failed), else None."""
    storage = config.get("AccountingStorageType", "")
    if sacct_said is not None:
        detail = f"sacct: {sacct_said}"
    elif storage in ("", NO_ACCOUNTING):
        detail = f"AccountingStorageType={storage or 'none'}"
    else:
        return None
    return (f"this cluster keeps no job accounting ({detail}): steer needs sacct's records of the jobs that ran "
            "to compute each account's utility and contribution; configure accounting_storage/slurmdbd")


def parse_nodes_cpus(text: str) -> int:
    """The cluster's CPUs: the sum of ``CPUTot`` over ``scontrol show nodes -o``'s lines.

    >>> parse_nodes_cpus("NodeName=n1 CPUAlloc=0 CPUTot=2 State=IDLE\\nNodeName=n2 CPUTot=4 State=IDLE\\n")
    6
    """
    total = sum(int(m.group(1)) for m in re.finditer(r"\bCPUTot=(\d+)", text))
    if total < 1:
        raise ClusterError("scontrol show nodes reports no CPU (no CPUTot=N): steer needs the cluster's size")
    return total


def share_accounts(tree: ShareTree) -> tuple[dict[str, float], dict[str, str], dict[str, float]]:
    """The organizations: (raw shares of root's child accounts, account -> its organization, LevelFS of each).

    A sub-account belongs to the organization of its top account; LevelFS is Fair Tree's (inf without usage).
    """
    parent = {a.account: a.parent for a in tree.associations if not a.is_user and a.account != ROOT}
    shares: dict[str, float] = {}
    for assoc in tree.associations:
        if assoc.is_user or assoc.parent != ROOT:
            continue
        if assoc.shares == "parent":
            raise ConfigError(f"account {assoc.account!r} has Fairshare=parent under root: it owns no share of the "
                              "cluster, so its contribution cannot be computed; give it shares")
        shares[assoc.account] = float(assoc.shares)
    owner: dict[str, str] = {}
    for account in parent:
        top, seen = account, set()
        while parent.get(top) not in (ROOT, None) and top not in seen:
            seen.add(top)
            top = str(parent[top])
        if top in shares:
            owner[account] = top
    table = fair_tree(tree)
    level_fs = {r.account: float(r.level_fs) for r in table.rows
                if r.user is None and r.account in shares and r.level_fs is not None}
    return shares, owner, level_fs


def used_jobs(sacct_path: Path, owner: dict[str, str], window_start: int, now: int) -> tuple[UsedJob, ...]:
    """The jobs of a ``sacct -P`` export that ran in [window_start, now] (epoch seconds), on the window's clock.

    A job that started before the window counts from its start; one that ended before it is left out; a running
    job counts what it ran so far (sacct's Elapsed). Jobs of accounts outside every organization are left out.
    """
    workload = read_sacct(sacct_path)
    jobs = workload.jobs
    if len(jobs) == 0:
        return ()
    origin = workload.header_int("UnixStartTime") or 0
    submit = jobs["submit_time"].to_numpy(np.float64) + origin - window_start
    wait, run = jobs["wait_time"].to_numpy(np.float64), jobs["run_time"].to_numpy(np.float64)
    estimate = jobs["runtime_estimate"].to_numpy(np.float64)
    out = []
    for i, account in enumerate(jobs["account"].tolist()):
        if wait[i] < 0 or run[i] < 0 or account not in owner:
            continue
        start = int(submit[i] + wait[i])
        end = min(start + int(run[i]), now - window_start)
        begin = max(start, 0)
        if end <= begin:
            continue
        out.append(UsedJob(owner[account], max(int(submit[i]), 0), begin, end - begin,
                           int(jobs["processors"].iat[i]), max(int(estimate[i]), 1)))
    return tuple(out)


def parse_squeue(text: str, owner: dict[str, str]) -> tuple[PendingJob, ...]:
    """Pending jobs from ``squeue -h -r -t PENDING -o '%i|%a|%y'``; accounts become their organization.

    >>> parse_squeue("12|phys|0\\n13_2|sub|-100\\n", {"phys": "phys", "sub": "phys"})
    (PendingJob(job_id='12', account='phys', nice=0), PendingJob(job_id='13_2', account='phys', nice=-100))
    """
    pending = []
    for line in text.splitlines():
        if not line.strip():
            continue
        fields = line.strip().split("|")
        if len(fields) != 3 or not re.fullmatch(r"-?\d+", fields[2]):
            raise ClusterError(f"squeue printed {line!r}; expected JOBID|ACCOUNT|NICE (squeue -o '{SQUEUE_FORMAT}')")
        pending.append(PendingJob(fields[0], owner.get(fields[1], fields[1]), int(fields[2])))
    return tuple(pending)


def read_state(call: Call, *, window: int, now: float) -> SteerState:
    """Run the commands (module docstring) through `call` and assemble the state of the window ending at `now`."""
    now_s = int(now)
    start = now_s - window
    n_cpus = parse_nodes_cpus(call(("scontrol", "show", "nodes", "-o")))
    with tempfile.TemporaryDirectory(prefix="fairsched-steer-") as tmp:
        sshare = Path(tmp) / "sshare.txt"
        sshare.write_text(call(("sshare", "-a", "-l", "-P")))
        shares, owner, level_fs = share_accounts(read_share_tree(sshare))
        sacct = Path(tmp) / "sacct.txt"
        since = datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        sacct.write_text(call(("sacct", "-a", "-X", "-P", "-S", since, "-E", "now", f"--format={SACCT_FIELDS}")))
        jobs = used_jobs(sacct, owner, start, now_s)
    pending = parse_squeue(call(("squeue", "-h", "-r", "-t", "PENDING", "-o", SQUEUE_FORMAT)), owner)
    return SteerState(now=now_s - start, n_cpus=n_cpus, shares=shares, jobs=jobs, pending=pending,
                      level_fs=level_fs)
