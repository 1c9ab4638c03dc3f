"""Replay a real log (SWF or sacct) on a local cluster of `fairsched.slurm.cluster`, and export what Slurm did.

`plan_replay` (pure) turns the log's jobs into the jobs to submit: submit times and run times divided by the
scale S, every job running ``sleep`` for its scaled run time, at least `MIN_RUN` seconds (Slurm's times are whole
seconds with about 1 s of jitter; the jobs raised are counted), its CPUs, its time limit (Slurm keeps limits in
whole minutes), its Linux user (``fs_`` + the log's user: the replay never runs anything as an existing account
of the machine) and its Slurm account (``--accounts-from``). `replay` then creates the users (``useradd -M``) and
the accounts and associations (``sacctmgr``), submits each job at its scaled submit time (``sbatch --uid``; the
``Submit`` column of the export is then the real submit time, which ``--begin`` would not give), waits for all
of them, and returns the cluster's own exports: ``sacct -a -X -P`` and ``sshare -a -l -P``. Ctrl-C (or any
failure) cancels the jobs it submitted with ``scancel``; the cluster stays usable.
"""

from __future__ import annotations

import grp
import math
import pwd
import re
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fairsched._io import atomic_write
from fairsched.errors import ClusterError, ConfigError, InputError
from fairsched.slurm import _proc
from fairsched.slurm.cluster import Cluster, require_cluster
from fairsched.workload.model import Workload
from fairsched.workload.sacct import is_sacct_header, read_sacct
from fairsched.workload.swf import read_swf

__all__ = ["ACCOUNTS_FROM", "MIN_RUN", "SACCT_FIELDS", "ReplayJob", "ReplayPlan", "ReplayResult", "plan_replay",
           "read_replay_log", "replay"]

ACCOUNTS_FROM = ("account", "user", "group")
MIN_RUN = 2  # seconds: below this, Slurm's 1 s jitter is as large as the job
USER_PREFIX = "fs_"
SACCT_FIELDS = ("JobIDRaw,JobID,JobName,Account,User,Group,Partition,QOS,Submit,Eligible,Start,End,Elapsed,State,"
                "NCPUS,NNodes,ReqMem,AllocTRES,Timelimit,NodeList")
SKIP_NEVER_STARTED = "never started in the log (no run time to replay)"
SKIP_NO_CPUS = "no CPU count"
_FINAL = re.compile(r"^(COMPLETED|CANCELLED|FAILED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)")
_NAME = re.compile(r"[^a-z0-9_-]")


@dataclass(frozen=True)
class ReplayJob:
    """One job to submit: `submit` seconds after the replay starts, ``sleep run`` on `cpus` CPUs."""

    log_job_id: str
    submit: float
    run: int
    cpus: int
    limit_minutes: int
    user: str
    account: str


@dataclass(frozen=True)
class ReplayPlan:
    """The jobs to submit (in submit order) and what the scaling changed, counted."""

    jobs: tuple[ReplayJob, ...]
    scale: float
    accounts_from: str
    raised_to_min: int
    cpus_clipped: int
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def users(self) -> tuple[str, ...]:
        return tuple(sorted({job.user for job in self.jobs}))

    @property
    def accounts(self) -> tuple[str, ...]:
        return tuple(sorted({job.account for job in self.jobs}))

    def user_accounts(self) -> dict[str, tuple[str, ...]]:
        """Each user's accounts, the first being the one of its first job (its Slurm default account)."""
        found: dict[str, list[str]] = {}
        for job in self.jobs:
            accounts = found.setdefault(job.user, [])
            if job.account not in accounts:
                accounts.append(job.account)
        return {user: tuple(accounts) for user, accounts in found.items()}


def read_replay_log(path: str | Path) -> tuple[Workload, str]:
    """Read `path` with fairsched's one reader of its format: ``sacct`` (a ``sacct -P`` header) or ``swf``."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", path=path) from None
    if head[:2] == b"\x1f\x8b":
        return read_swf(path), "swf"  # read_sacct reads gzip too, but real sacct exports come as text
    first = next((line for line in head.decode("utf-8", errors="replace").splitlines() if line.strip()), "")
    if is_sacct_header(first):
        return read_sacct(path), "sacct"
    return read_swf(path), "swf"


def _linux_name(text: str) -> str:
    """``fs_`` + the log's name in the characters useradd accepts, at most 32 (``fs_unknown`` when empty)."""
    name = _NAME.sub("_", text.strip().lower()) or "unknown"
    return (USER_PREFIX + name)[:32]


def _account_name(text: str) -> str:
    return (_NAME.sub("_", text.strip().lower()) or "unknown")[:64]


def _names(workload: Workload, fmt: str, accounts_from: str) -> tuple[list[str], list[str]]:
    """(Linux user, Slurm account) of every job of the log."""
    jobs = workload.jobs
    if fmt == "swf":
        users = [_linux_name(f"u{int(uid)}" if uid >= 0 else "") for uid in jobs["user_id"]]
        column = {"user": "user_id", "group": "group_id"}[accounts_from]
        prefix = accounts_from[0]
        accounts = [_account_name(f"{prefix}{int(value)}" if value >= 0 else "") for value in jobs[column]]
        return users, accounts
    users = [_linux_name(str(name)) for name in jobs["user"]]
    accounts = [_account_name(str(name)) for name in jobs[accounts_from]]
    return users, accounts


def plan_replay(workload: Workload, fmt: str, *, scale: float, total_cpus: int, accounts_from: str | None = None,
                limit: int | None = None) -> ReplayPlan:
    """The jobs of `workload` to submit, scaled by 1/`scale` (module docstring).

    Parameters
    ----------
    workload, fmt : the log, as `read_replay_log` returns it.
    scale : S > 0; submit times and run times are divided by it, and time limits too.
    total_cpus : the cluster's CPUs; a job asking for more gets all of them (counted).
    accounts_from : the log's column that names the Slurm account: ``account`` (sacct only), ``user`` or
        ``group``. Default: ``account`` for sacct, ``group`` for SWF (which has no account).
    limit : keep the first N jobs (in submit order) of those that ran; the records skipped are counted up to
        the last one kept.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairsched.workload.model import Workload
    >>> jobs = pd.DataFrame({"submit_time": [0.0, 30.0, 90.0], "run_time": [600.0, 10.0, -1.0],
    ...                      "processors": [4, 64, 2], "runtime_estimate": [900.0, 60.0, 60.0],
    ...                      "job_id": ["7", "8", "9"], "user": ["ann", "bob", "ann"],
    ...                      "account": ["phys", "chem", "phys"], "group": ["g", "g", "g"]})
    >>> plan = plan_replay(Workload(jobs=jobs), "sacct", scale=10, total_cpus=16)
    >>> [(j.log_job_id, j.submit, j.run, j.cpus, j.limit_minutes, j.user, j.account) for j in plan.jobs]
    [('7', 0.0, 60, 4, 2, 'fs_ann', 'phys'), ('8', 3.0, 2, 16, 1, 'fs_bob', 'chem')]
    >>> plan.raised_to_min, plan.cpus_clipped, plan.skipped
    (1, 1, {'never started in the log (no run time to replay)': 1})
    """
    if not scale > 0 or not math.isfinite(scale):
        raise ConfigError(f"--scale {scale}: expected a positive number (submit and run times are divided by it)")
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit {limit}: expected a positive number of jobs")
    accounts_from = accounts_from or ("group" if fmt == "swf" else "account")
    if accounts_from not in ACCOUNTS_FROM:
        raise ConfigError(f"--accounts-from {accounts_from!r}: choose one of {', '.join(ACCOUNTS_FROM)}")
    if fmt == "swf" and accounts_from == "account":
        raise ConfigError("--accounts-from account: an SWF log has no account; use --accounts-from user or group")
    jobs = workload.jobs
    users, accounts = _names(workload, fmt, accounts_from)
    run_time = jobs["run_time"].to_numpy(np.float64)
    cpus = jobs["processors"].to_numpy(np.int64)
    skipped: Counter[str] = Counter()
    keep = []
    for i in np.argsort(jobs["submit_time"].to_numpy(np.float64), kind="stable"):
        if limit is not None and len(keep) == limit:
            break  # skipped records are counted up to the last job replayed
        if run_time[i] < 0:
            skipped[SKIP_NEVER_STARTED] += 1
        elif cpus[i] < 1:
            skipped[SKIP_NO_CPUS] += 1
        else:
            keep.append(int(i))
    if not keep:
        raise InputError("no job to replay: no job of the log ran (run time >= 0, CPUs >= 1)", path=workload.source)
    submit = jobs["submit_time"].to_numpy(np.float64)
    estimate = jobs["runtime_estimate"].to_numpy(np.float64)
    ids = jobs["job_id"].astype(str).to_numpy() if "job_id" in jobs else jobs["job_number"].astype(str).to_numpy()
    origin = submit[keep[0]]
    planned, raised, clipped = [], 0, 0
    for i in keep:
        run = round(run_time[i] / scale)
        raised += int(run < MIN_RUN)
        run = max(run, MIN_RUN)
        clipped += int(cpus[i] > total_cpus)
        wanted = max(estimate[i] / scale, run) if estimate[i] > 0 else run
        planned.append(ReplayJob(log_job_id=str(ids[i]), submit=float((submit[i] - origin) / scale), run=int(run),
                                 cpus=int(min(cpus[i], total_cpus)), limit_minutes=max(1, math.ceil((wanted + 1) / 60)),
                                 user=users[i], account=accounts[i]))
    return ReplayPlan(jobs=tuple(planned), scale=float(scale), accounts_from=accounts_from, raised_to_min=raised,
                      cpus_clipped=clipped, skipped=dict(skipped))


@dataclass(frozen=True)
class ReplayResult:
    """What a replay did, and the cluster's exports (text, as the commands printed them)."""

    plan: ReplayPlan
    slurm_job_ids: tuple[str, ...]
    sacct: str
    sshare: str
    users_created: tuple[str, ...]
    accounts_created: tuple[str, ...]
    max_lateness: float
    seconds: float

    def write(self, out: str | Path) -> dict[str, Path]:
        """Write ``sacct.txt`` and ``sshare.txt`` into `out` (each atomically); return their paths."""
        out = Path(out)
        files = {"sacct": out / "sacct.txt", "sshare": out / "sshare.txt"}
        for name, path in files.items():
            with atomic_write(path) as handle:
                handle.write(getattr(self, name))
        return files

    def summary(self) -> list[str]:
        plan = self.plan
        lines = [f"replayed {len(plan.jobs)} jobs at scale 1/{plan.scale:g} in {self.seconds:.0f} s "
                 f"({len(plan.users)} users, {len(plan.accounts)} accounts from the log's {plan.accounts_from})",
                 f"{plan.raised_to_min} jobs ran {MIN_RUN} s instead of their shorter scaled run time",
                 f"{plan.cpus_clipped} jobs asked for more CPUs than the cluster has and got all of them",
                 f"submissions were at most {self.max_lateness:.1f} s late"]
        lines += [f"{count} records skipped: {reason}" for reason, count in sorted(plan.skipped.items())]
        if self.users_created:
            lines.append(f"Linux users created: {', '.join(self.users_created)}")
        if self.accounts_created:
            lines.append(f"Slurm accounts created with Fairshare=1: {', '.join(self.accounts_created)} "
                         "(set shares with `fairsched slurm up --accounts FILE`)")
        return lines


def replay(log: str | Path, *, scale: float, slurm_conf: str | None, accounts_from: str | None = None,
           limit: int | None = None, progress: Callable[[str], None] | None = None,
           poll: float = 1.0) -> ReplayResult:
    """Replay `log` on the local cluster of `slurm_conf` (which `fairsched slurm up` must have started).

    Raises
    ------
    ClusterError : `slurm_conf` is not such a cluster (nothing is done), a user or account that cannot be
        created (before any job is submitted), a Slurm command that fails (the jobs submitted are cancelled).
    KeyboardInterrupt : after cancelling the jobs submitted so far.
    """
    cluster = require_cluster(slurm_conf)
    say = progress or (lambda _line: None)
    workload, fmt = read_replay_log(log)
    plan = plan_replay(workload, fmt, scale=scale, total_cpus=cluster.config.total_cpus,
                       accounts_from=accounts_from, limit=limit)
    began = time.monotonic()
    users_created = _ensure_users(plan.users, record=cluster.layout.users_created)
    accounts_created = _ensure_associations(cluster, plan)
    _wait_associations(cluster, plan)
    submitted: list[str] = []
    try:
        lateness = _submit(cluster, plan, submitted, say)
        _wait_done(cluster, plan, submitted, say, poll)
        sacct = _sacct_export(cluster, submitted, poll)
    except BaseException:
        _cancel(cluster, submitted)
        say(f"cancelled the {len(submitted)} jobs submitted")
        raise
    _wait_fairshare_pass(cluster, since=time.time(), say=say, poll=poll)
    sshare = _run(cluster, ["sshare", "-a", "-l", "-P"]).stdout
    return ReplayResult(plan=plan, slurm_job_ids=tuple(submitted), sacct=sacct, sshare=sshare,
                        users_created=users_created, accounts_created=accounts_created, max_lateness=lateness,
                        seconds=time.monotonic() - began)


def _run(cluster: Cluster, argv: Sequence[str], *, check: bool = True,
         timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return _proc.run(argv, env=cluster.env(), check=check, timeout=timeout)


def _ensure_users(users: Sequence[str], *, record: Path) -> tuple[str, ...]:
    """Create the missing Linux users (``useradd -M``, no home, no login); all of them before any job.

    Each user created is appended to `record` at once, so that `down` removes exactly the users replays created.
    """
    created = []
    for user in users:
        try:
            pwd.getpwnam(user)
            continue
        except KeyError:
            pass
        try:
            grp.getgrnam(user)
            group = ["-g", user]
        except KeyError:
            group = ["-U"]
        try:
            _proc.run(["useradd", "-M", *group, "-s", "/usr/sbin/nologin", user], env={"PATH": _proc.SBIN_PATH},
                      timeout=30, what=f"useradd {user}")
        except ClusterError as exc:
            raise ClusterError(f"cannot create the Linux user {user} for the replay ({exc}); no job was "
                               "submitted") from None
        created.append(user)
        with record.open("a") as listing:
            listing.write(user + "\n")
    return tuple(created)



def _ensure_associations(cluster: Cluster, plan: ReplayPlan) -> tuple[str, ...]:
    """Add the missing accounts (Fairshare=1) and user associations; return the accounts added."""
    listed = _run(cluster, ["sacctmgr", "-n", "-P", "list", "assoc", "format=account,user"]).stdout
    pairs = {tuple(line.split("|")[:2]) for line in listed.splitlines() if "|" in line}
    accounts = {account for account, _ in pairs}
    new = [account for account in plan.accounts if account not in accounts]
    if new:
        _run(cluster, ["sacctmgr", "-i", "add", "account", ",".join(new), "Fairshare=1"])
    known_users = {user for _, user in pairs if user}
    batches: dict[tuple[str, ...], list[str]] = {}  # one sacctmgr call per set of (accounts, default account)
    for user, wanted in plan.user_accounts().items():
        missing = tuple(account for account in wanted if (account, user) not in pairs)
        if missing:
            default = () if user in known_users else (f"DefaultAccount={wanted[0]}",)
            batches.setdefault((f"Account={','.join(missing)}", *default), []).append(user)
    for settings, users in batches.items():
        _run(cluster, ["sacctmgr", "-i", "add", "user", ",".join(users), *settings])
    return tuple(new)


def _wait_associations(cluster: Cluster, plan: ReplayPlan, timeout: float = 30.0) -> None:
    """slurmctld learns new associations from slurmdbd a moment later: wait until it accepts each pair."""
    for user, accounts in plan.user_accounts().items():
        for account in accounts:
            argv = ["sbatch", "--test-only", f"--uid={user}", f"--gid={pwd.getpwnam(user).pw_gid}", "-A", account,
                    "-n", "1", "-t", "1", "--wrap", "true"]
            try:
                _proc.wait_until(lambda argv=argv: _run(cluster, argv, check=False).returncode == 0,
                                 timeout=timeout, failed=lambda: None)
            except ClusterError:
                why = _run(cluster, argv, check=False).stderr.strip().splitlines()
                raise ClusterError(f"slurmctld does not accept jobs of user {user} in account {account} "
                                   f"({why[-1] if why else 'no reason given'}); no job was submitted") from None


def _submit(cluster: Cluster, plan: ReplayPlan, submitted: list[str], say: Callable[[str], None]) -> float:
    """Submit each job at its scaled submit time; return the largest delay behind that time (seconds)."""
    env = {"PATH": cluster.env().get("PATH", _proc.SBIN_PATH), "SLURM_CONF": str(cluster.slurm_conf),
           _proc.ENV_MARK: str(cluster.root)}  # the jobs inherit this environment (sbatch --export=ALL)
    gids = {user: pwd.getpwnam(user).pw_gid for user in plan.users}
    began, lateness, said = time.monotonic(), 0.0, time.monotonic()
    for job in plan.jobs:
        delay = began + job.submit - time.monotonic()
        if delay > 0:
            time.sleep(delay)  # the job's scaled submit time (not a wait for a daemon)
        lateness = max(lateness, time.monotonic() - began - job.submit)
        done = _proc.run(["sbatch", "--parsable", f"--uid={job.user}", f"--gid={gids[job.user]}", "-A", job.account,
                          "-n", str(job.cpus), "-t", str(job.limit_minutes), "-J", f"r{job.log_job_id}",
                          "--chdir=/tmp", "-o", "/dev/null", "-e", "/dev/null", "--wrap", f"sleep {job.run}"],
                         env=env, timeout=30, what=f"sbatch (job {job.log_job_id} of the log)")
        submitted.append(done.stdout.strip().split(";")[0])
        if time.monotonic() - said > 10:
            say(f"submitted {len(submitted)}/{len(plan.jobs)} jobs")
            said = time.monotonic()
    return lateness


def _wait_done(cluster: Cluster, plan: ReplayPlan, submitted: list[str], say: Callable[[str], None],
               poll: float) -> None:
    """Wait until none of the submitted jobs is pending or running (bounded by running them all one by one)."""
    bound = time.monotonic() + sum(job.run + 60 * job.limit_minutes for job in plan.jobs) + 120
    ours, said = set(submitted), time.monotonic()
    while True:
        queued = ours & set(_run(cluster, ["squeue", "-h", "-o", "%A"]).stdout.split())
        if not queued:
            return
        if time.monotonic() > bound:
            raise ClusterError(f"{len(queued)} replayed jobs still queued after every job's time limit; see "
                               "`squeue` for their reasons")
        if time.monotonic() - said > 10:
            say(f"{len(queued)} of {len(ours)} jobs still pending or running")
            said = time.monotonic()
        time.sleep(poll)


def _sacct_export(cluster: Cluster, ids: Sequence[str], poll: float, timeout: float = 60.0) -> str:
    """``sacct -a -X -P`` of the replayed jobs, once slurmdbd has recorded every one as ended."""
    argv = ["sacct", "-a", "-X", "-P", "-j", ",".join(ids), f"--format={SACCT_FIELDS}"]
    deadline = time.monotonic() + timeout
    while True:
        text = _run(cluster, argv).stdout
        rows = [line.split("|") for line in text.splitlines()[1:] if line.strip()]
        state, end = SACCT_FIELDS.split(",").index("State"), SACCT_FIELDS.split(",").index("End")
        ended = sum(1 for row in rows if _FINAL.match(row[state]) and row[end] != "Unknown")
        if ended == len(ids):
            return text
        if time.monotonic() > deadline:
            raise ClusterError(f"slurmdbd recorded {ended} of {len(ids)} replayed jobs as ended within {timeout:g} s")
        time.sleep(poll)


def _wait_fairshare_pass(cluster: Cluster, *, since: float, say: Callable[[str], None], poll: float) -> None:
    """Wait for slurmctld's next fair-share pass (every PriorityCalcPeriod, 1 min) after `since`.

    RawUsage is charged when a job ends, but NormUsage, EffectvUsage, FairShare and LevelFS are recomputed only by
    that pass; after it, ``sshare`` shows columns computed from the RawUsage it shows. slurmctld writes
    ``StateSaveLocation/priority_last_decay_ran`` at the end of each pass: its time stamp is what is polled.
    """
    stamp = cluster.layout.state / "priority_last_decay_ran"
    say("waiting for slurmctld's next fair-share pass (at most 1 min), so that sshare's columns include every job")

    def passed() -> bool:
        try:
            return stamp.stat().st_mtime > since
        except FileNotFoundError:
            return False

    try:
        _proc.wait_until(passed, timeout=90.0 + poll, failed=lambda: None)
    except ClusterError:
        raise ClusterError(f"slurmctld made no fair-share pass within 90 s ({stamp} unchanged); see "
                           f"{cluster.layout.logs / 'slurmctld.log'}") from None


def _cancel(cluster: Cluster, ids: Sequence[str]) -> None:
    for start in range(0, len(ids), 500):
        _run(cluster, ["scancel", *ids[start:start + 500]], check=False, timeout=30)
