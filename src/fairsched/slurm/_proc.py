"""Processes of a local cluster: start a daemon detached, know it again by pid, wait until it answers, stop it.

A daemon is recorded as ``(pid, start_ticks)``: the kernel's start time of the process (``/proc/PID/stat`` field
22) tells a recycled pid from the daemon, so `stop` never signals a process it did not start. Every daemon runs
with the environment variable `ENV_MARK` set to its cluster's directory; slurmd hands it on to the slurmstepd of
each job, so `sweep` finds what is left of a cluster (slurmstepd and the jobs under it) after its daemons stopped,
as mirakuru finds an executor's children by its ``MIRAKURU_UUID``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from fairsched.errors import ClusterError

__all__ = ["ENV_MARK", "SBIN_PATH", "alive", "last_lines", "marked_processes", "run", "spawn", "start_ticks", "stop",
           "wait_until"]

log = logging.getLogger(__name__)

SBIN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # useradd, userdel

ENV_MARK = "FAIRSCHED_SLURM_CLUSTER"
POLL = 0.05  # seconds between two probes while waiting for a daemon to answer or to exit


def start_ticks(pid: int) -> int | None:
    """The kernel's start time of process `pid` (clock ticks since boot), or None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])  # field 22; the command name (field 2) may hold spaces


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def _reap(pid: int) -> None:
    """Collect `pid`'s exit status when it is our child (else its parent, or init, does)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def alive(pid: int, ticks: int | None) -> bool:
    """Whether the process recorded as (`pid`, `ticks`) still runs (a zombie has stopped)."""
    _reap(pid)
    return ticks is not None and start_ticks(pid) == ticks and _state(pid) not in (None, "Z", "X")


def spawn(argv: Sequence[str], *, env: Mapping[str, str], log_path: Path, cwd: Path) -> tuple[int, int]:
    """Start `argv` in a new session, stdin from /dev/null, stdout and stderr appended to `log_path`.

    Returns ``(pid, start_ticks)``. The process is not waited for: it outlives the caller (``fairsched slurm up``
    exits while the cluster runs) and is stopped by `stop` from its recorded pid.
    """
    actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, str(log_path), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644),
               (os.POSIX_SPAWN_DUP2, 1, 2)]
    here = os.getcwd()
    os.chdir(cwd)  # posix_spawn has no cwd argument; the daemons' relative paths (core files) land in `cwd`
    try:
        pid = os.posix_spawn(argv[0], list(argv), dict(env), file_actions=actions, setsid=True)
    finally:
        os.chdir(here)
    ticks = start_ticks(pid)
    if ticks is None:  # exited and reaped already (it cannot be: it is our child until waited for)
        raise ClusterError(f"{Path(argv[0]).name} exited at once; see {log_path}")
    return pid, ticks


def wait_until(probe: Callable[[], bool], *, timeout: float, failed: Callable[[], str | None]) -> None:
    """Poll `probe` until it returns True; raise `ClusterError` when `failed` returns a reason or at `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        if probe():
            return
        reason = failed()
        if reason is not None:
            raise ClusterError(reason)
        if time.monotonic() > deadline:
            raise ClusterError(f"no answer within {timeout:g} s")
        time.sleep(POLL)


def stop(pid: int, ticks: int | None, *, timeout: float) -> bool:
    """SIGTERM the recorded process, wait up to `timeout` s, then SIGKILL it. Returns whether it had to be killed.

    A process that no longer runs, or whose pid now belongs to another process, is left alone.
    """
    if not alive(pid, ticks):
        return False
    with contextlib.suppress(ProcessLookupError):  # it may exit between check and signal
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid, ticks):
            return False
        time.sleep(POLL)
    with contextlib.suppress(ProcessLookupError):  # it may exit between check and signal
        os.kill(pid, signal.SIGKILL)
    while alive(pid, ticks) and time.monotonic() < deadline + 2.0:
        time.sleep(POLL)
    return True


def marked_processes(root: Path) -> list[int]:
    """Pids of the processes started for the cluster in `root` (`ENV_MARK`) and of all their descendants."""
    mark = f"{ENV_MARK}={root}".encode()
    parents: dict[int, int] = {}
    marked = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            environ = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] in ("Z", "X"):
            continue
        parents[pid] = int(fields[1])
        if mark in environ.split(b"\0"):
            marked.add(pid)
    found, grew = set(marked), True
    while grew:
        children = {pid for pid, parent in parents.items() if parent in found} - found
        found |= children
        grew = bool(children)
    found.discard(os.getpid())
    return sorted(found)


def run(argv: Sequence[str], *, env: Mapping[str, str], timeout: float = 60.0, check: bool = True,
        what: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a Slurm command; a failure raises `ClusterError` naming the command and its last error line."""
    log.debug("run %s", " ".join(argv))
    try:
        done = subprocess.run(list(argv), env=dict(env), capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise ClusterError(f"{what or argv[0]}: `{' '.join(argv[:3])} ...` did not finish within "
                           f"{timeout:g} s") from None
    except OSError as exc:
        raise ClusterError(f"{what or argv[0]}: cannot run {argv[0]} ({exc.strerror or exc})") from None
    if check and done.returncode != 0:
        lines = (done.stderr.strip() or done.stdout.strip() or f"exit code {done.returncode}").splitlines()
        errors = [line for line in lines if "[ERROR]" in line and not line.rstrip().endswith("Aborting")]
        message = errors[-1] if errors else lines[-1]  # MariaDB ends with a bare "[ERROR] Aborting": say why
        raise ClusterError(f"{what or argv[0]} failed: {message}")
    return done


def last_lines(paths: Sequence[Path], n: int = 3) -> str:
    """The last `n` non-empty lines of the first of `paths` that has any, joined by `` | `` (for one-line errors)."""
    for path in paths:
        try:
            lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
        except OSError:
            continue
        if lines:
            return " | ".join(lines[-n:])
    return "(its log is empty)"
