"""``fairsched steer``: a reconcile loop that sets the nice of a live Slurm queue's pending jobs (docs/slurm.md).

Each pass reads the whole state (`fairsched.slurm.steer_state.read_state`), asks the pure decision
(`fairsched.slurm.steer_decide.decide`) for the nice each pending job should have, and applies only the difference
with ``scontrol update JobId=X Nice=N`` (STYLE.md 2.9: level-triggered and idempotent, like a Kubernetes
controller's reconcile). The actuator here is thin: it runs the commands through an injected ``runner``, logs every
action (time, job, old and new nice, reason) as one JSON line in ``--log`` and one line on stderr, retries a
failed command with a one-line warning, skips a pass while Slurm does not answer (a restart) and goes on with the
next one, and on stop gives back the nice values it set (`restore`).

What steer changed survives its own crash: every change is in the log before the next one, and a new steer with
the same ``--log`` learns from it the nice values to give back (`read_originals`; ``fairsched steer --restore``
gives them back and exits).

A user who may not lower a nice (Slurm lets only operators and administrators do it) gets one message, and steer
goes on with nice values >= 0 (the owed accounts keep 0, the others are pushed back). A user who may not change
the jobs of others at all gets one line, and steer stops (exit code 2).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from fairsched.errors import ClusterError, ConfigError, InputError
from fairsched.slurm.steer_decide import Action, PendingJob, SteerConfig, decide, restore, warm_up
from fairsched.slurm.steer_state import (
    SQUEUE_FORMAT,
    no_accounting,
    parse_config,
    parse_duration,
    parse_squeue,
    read_state,
)

__all__ = ["WARM_UP_NOTICE", "CommandResult", "SteerOptions", "SteerReport", "StopSignal", "read_originals",
           "restore_from_log", "run_command", "steer", "stop_on_signals", "warm_up_kernels"]

log = logging.getLogger(__name__)

WARM_UP_NOTICE = "compiling kernels (first run only)..."
_PERMISSION = ("permission denied", "access denied", "invalid user id", "not authorized")
_GONE = ("invalid job id", "already completed", "already finished", "job is no longer pending", "job not found")


@dataclass(frozen=True)
class CommandResult:
    """What a command returned: exit code, standard output, standard error."""

    returncode: int
    stdout: str
    stderr: str


Runner = Callable[[Sequence[str]], CommandResult]


def run_command(argv: Sequence[str], *, timeout: float = 60.0) -> CommandResult:
    """Run a Slurm client command with ``TZ=UTC`` (sacct then prints UTC times); never raises for a failure."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, check=False,
                              env={**os.environ, "TZ": "UTC"}, start_new_session=True)  # Ctrl-C is steer's alone
    except FileNotFoundError:
        return CommandResult(127, "", f"{argv[0]}: command not found (is Slurm's client installed?)")
    except subprocess.TimeoutExpired:
        return CommandResult(124, "", f"no answer within {timeout:g} s")
    return CommandResult(done.returncode, done.stdout, done.stderr)


@dataclass(frozen=True)
class SteerOptions:
    """The flags of ``fairsched steer`` (docs/slurm.md); durations in seconds."""

    decision: SteerConfig = field(default_factory=SteerConfig)
    every: float = 30.0
    window: int | None = None
    dry_run: bool = False
    log: Path | None = None
    once: bool = False
    retries: int = 3
    retry_delay: float = 1.0

    def __post_init__(self) -> None:
        if not self.every > 0:
            raise ConfigError(f"--every {self.every:g} s: expected a positive period")
        if self.window is not None and self.window < 1:
            raise ConfigError(f"--window {self.window} s: expected a positive duration")
        if self.retries < 1:
            raise ConfigError(f"retries {self.retries}: expected >= 1")

    @classmethod
    def from_flags(cls, *, policy: str = "directcontr", every: str = "30s", max_nice: int = 10000,
                   window: str | None = None, dry_run: bool = False, log: Path | None = None, once: bool = False,
                   exact_up_to: int = 12, samples: int = 200, seed: int = 0) -> SteerOptions:
        """The options from the command line's text (durations such as ``30s``, ``5m``, ``7d``)."""
        decision = SteerConfig(policy=policy, max_nice=max_nice, exact_up_to=exact_up_to, samples=samples, seed=seed)
        return cls(decision=decision, every=parse_duration(every, "--every"), dry_run=dry_run, log=log, once=once,
                   window=None if window is None else parse_duration(window, "--window"))


@dataclass
class SteerReport:
    """What a run did: passes, passes skipped (Slurm not answering), nice values set and given back."""

    passes: int = 0
    skipped: int = 0
    set: int = 0
    restored: int = 0
    not_restored: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: passes, nice values set and given back, and what could not be given back."""
        text = (f"steer: {self.passes} pass(es)" + (f", {self.skipped} skipped (Slurm not answering)"
                                                   if self.skipped else "")
                + f"; {self.set} nice value(s) set, {self.restored} given back")
        if self.not_restored:
            text += (f"; not given back: job(s) {', '.join(self.not_restored)} (run `fairsched steer --restore "
                     "--log FILE`)")
        return text


@dataclass
class StopSignal:
    """Set by SIGINT or SIGTERM (`stop_on_signals`): the loop's stop event and the signal that set it."""

    event: threading.Event = field(default_factory=threading.Event)
    signum: int | None = None


@contextlib.contextmanager
def stop_on_signals() -> Iterator[StopSignal]:
    """SIGINT and SIGTERM set a `StopSignal` instead of raising, so that the loop ends its pass and gives back
    the nice values it set; the previous handlers come back on exit."""
    stop = StopSignal()

    def handler(signum: int, frame: object) -> None:
        stop.signum = signum
        stop.event.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


class _Unavailable(ClusterError):
    """Slurm did not answer after every retry (restarting, or gone)."""


class _Denied(ClusterError):
    """scontrol refused a change for lack of rights."""


class _Gone(ClusterError):
    """The job left the queue (started, finished or cancelled) between the read and the update."""


def read_originals(path: Path | None) -> dict[str, int]:
    """The nice each job had before steer changed it, from steer's JSON-lines log (the jobs not given back yet)."""
    originals: dict[str, int] = {}
    if path is None or not path.exists():
        return originals
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read the steer log ({exc.strerror or exc})", path=path) from None
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            entry = json.loads(text)
            kind, job, old = entry["kind"], str(entry["job"]), int(entry["old_nice"])
        except (ValueError, KeyError, TypeError):
            raise InputError("not a line of steer's log (JSON with kind, job, old_nice); give another --log",
                             path=path, line=number) from None
        if entry.get("dry_run"):
            continue
        if kind == "set":
            originals.setdefault(job, old)
        elif kind == "restore":
            originals.pop(job, None)
    return originals


class _Actuator:
    """Runs the commands (with retries), logs each action, remembers the nice values it replaced."""

    def __init__(self, options: SteerOptions, runner: Runner, clock: Callable[[], float], stop: threading.Event,
                 echo: Callable[[str], None], out: Callable[[str], None]) -> None:
        self.options, self.runner, self.clock, self.stop = options, runner, clock, stop
        self.echo, self.out = echo, out
        self.originals = {} if options.dry_run else read_originals(options.log)
        self.config = options.decision

    def call(self, argv: Sequence[str]) -> str:
        """stdout of `argv`, retried `retries` times with a warning each; `_Unavailable` when it keeps failing."""
        text = " ".join(argv)
        for attempt in range(1, self.options.retries + 1):
            result = self.runner(argv)
            if result.returncode == 0:
                return result.stdout
            why = _last_line(result)
            if any(word in why.lower() for word in _PERMISSION):
                raise _Denied(why)
            if "accounting storage is disabled" in why.lower():
                raise ClusterError(str(no_accounting({}, sacct_said=why)))
            if any(word in why.lower() for word in _GONE):
                raise _Gone(why)
            if attempt < self.options.retries:
                delay = self.options.retry_delay * 2 ** (attempt - 1)
                self.echo(f"warning: `{text}` failed ({why}); retry {attempt}/{self.options.retries - 1} in "
                          f"{delay:g} s")
                if self.stop.wait(delay):
                    break
        raise _Unavailable(f"`{text}` failed {self.options.retries} times: {why}")

    def apply(self, actions: Sequence[Action], *, kind: str = "set") -> int:
        """Run (or print, with --dry-run) each action; returns how many took effect."""
        done = 0
        for action in actions:
            if self.options.dry_run:
                self.out(" ".join(action.command()))
                self._log(action, kind)
                continue
            try:
                self.call(action.command())
            except _Gone:  # it started or ended since the read: nothing to set, nothing to give back
                log.debug("job %s left the queue before its nice was set", action.job_id)
                if kind == "restore":
                    self.originals.pop(action.job_id, None)
                continue
            except _Denied as denied:
                self._denied(action, str(denied))
                return done  # the next pass decides again, with nice >= 0 only
            if kind == "set":
                self.originals.setdefault(action.job_id, action.old_nice)
            else:
                self.originals.pop(action.job_id, None)
            self._log(action, kind)
            done += 1
        return done

    def _denied(self, action: Action, why: str) -> None:
        """A negative nice refused: one message, then nice >= 0 only. Any other refusal: stop (one line)."""
        if action.new_nice < 0 and self.config.allow_negative:
            self.config = replace(self.config, allow_negative=False)
            self.echo(f"steer may not set a negative nice (scontrol update JobId={action.job_id} "
                      f"Nice={action.new_nice}: {why}): only Slurm operators and administrators may (sacctmgr "
                      "modify user NAME set adminlevel=operator). Going on with nice >= 0: the accounts that "
                      "received more than they contributed are pushed back, the others keep 0.")
            return
        raise ClusterError(f"steer may not change the nice of job {action.job_id} to {action.new_nice} ({why}): "
                           "changing other users' jobs needs root, SlurmUser or a Slurm operator (sacctmgr modify "
                           "user NAME set adminlevel=operator)")

    def _log(self, action: Action, kind: str) -> None:
        stamp = datetime.fromtimestamp(self.clock(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        entry = {"time": stamp, "kind": kind, "job": action.job_id, "account": action.account,
                 "old_nice": action.old_nice, "new_nice": action.new_nice, "reason": action.reason,
                 "dry_run": self.options.dry_run}
        verb = "would set" if self.options.dry_run else ("set" if kind == "set" else "restored")
        self.echo(f"{stamp} job {action.job_id}: nice {action.old_nice} -> {action.new_nice} {verb} "
                  f"({action.reason})")
        if self.options.log is not None:
            with open(self.options.log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def pending(self) -> tuple[PendingJob, ...]:
        return parse_squeue(self.call(("squeue", "-h", "-r", "-t", "PENDING", "-o", SQUEUE_FORMAT)), {})

    def restore(self, report: SteerReport) -> None:
        """Give back every nice steer set, for the jobs still pending; those it could not are reported."""
        if self.options.dry_run or not self.originals:
            return
        self.stop = threading.Event()  # the loop's stop is set by now; retries must still wait
        try:
            actions = restore(self.pending(), self.originals)
            report.restored += self.apply(actions, kind="restore")
        except _Unavailable as exc:
            report.not_restored = sorted(self.originals)
            self.echo(f"warning: could not give back the nice values steer set ({exc}); run `fairsched steer "
                      "--restore --log FILE` once Slurm answers")
            return
        report.not_restored = sorted({a.job_id for a in actions} & set(self.originals))


def _last_line(result: CommandResult) -> str:
    lines = [line.strip() for line in (result.stderr + "\n" + result.stdout).splitlines() if line.strip()]
    return lines[-1] if lines else f"exit code {result.returncode}"


def _window(actuator: _Actuator, options: SteerOptions) -> int:
    """Check accounting, and the window: --window, else the cluster's PriorityDecayHalfLife."""
    config = parse_config(actuator.call(("scontrol", "show", "config")))
    reason = no_accounting(config)
    if reason is not None:
        raise ClusterError(reason)
    if options.window is not None:
        return options.window
    half_life = parse_duration(config.get("PriorityDecayHalfLife", "0"), "PriorityDecayHalfLife")
    if half_life < 1:
        raise ConfigError("PriorityDecayHalfLife is 0 (no decay) on this cluster, so there is no decay window; "
                          "pass --window (e.g. --window 7d)")
    return half_life


def warm_up_kernels(echo: Callable[[str], None], *, work: Callable[[], object] = warm_up,
                    notice_after: float = 3.0) -> None:
    """Run `work` (the tiny game of `fairsched.slurm.steer_decide.warm_up`: the JIT compiles, or loads from its
    cache, the kernels of a pass); when it takes longer than `notice_after` seconds, `echo` says so, once.

    A cold compile takes 10 s to minutes (more on a loaded machine); loading the cached kernels about 1 s on a
    loaded machine, hence the default delay of 3 s before the notice."""
    notice = threading.Timer(notice_after, echo, args=(WARM_UP_NOTICE,))
    notice.daemon = True
    notice.start()
    try:
        work()
    finally:
        notice.cancel()


def steer(options: SteerOptions, *, runner: Runner = run_command, clock: Callable[[], float] = time.time,
          stop: threading.Event | None = None, echo: Callable[[str], None] = log.info,
          out: Callable[[str], None] = log.info,
          warm: Callable[[Callable[[str], None]], None] = warm_up_kernels) -> SteerReport:
    """Run the loop until `stop` is set (or one pass with ``--once``), then give back the nice values it set.

    `echo` gets the stderr lines (actions, warnings), `out` the scontrol commands of ``--dry-run``. With
    ``--once`` nothing is given back (cron use: the next run takes over; ``--restore`` undoes). Raises
    `ClusterError` when the cluster keeps no accounting or steer may not change other users' jobs, and, with
    ``--once``, when Slurm does not answer.

    Once the cluster's configuration is read (and accounting checked), and before the first pass reads the
    queue, `warm` compiles the directcontr game's kernels (`warm_up_kernels`): a cold compile takes minutes on a
    loaded machine, and would otherwise fall inside the first pass, between reading the queue and acting on it.
    """
    stop = stop or threading.Event()
    actuator = _Actuator(options, runner, clock, stop, echo, out)
    report = SteerReport()
    window: int | None = None
    try:
        while not stop.is_set():
            try:
                if window is None:
                    window = _window(actuator, options)
                    if actuator.config.policy == "directcontr":
                        warm(echo)
                    if stop.is_set():
                        break
                state = read_state(actuator.call, window=window, now=clock())
                report.set += actuator.apply(decide(state, actuator.config))
                report.passes += 1
            except _Unavailable as exc:
                if options.once:
                    raise ClusterError(f"Slurm does not answer: {exc}") from None
                report.skipped += 1
                echo(f"warning: pass skipped, Slurm does not answer ({exc}); next pass in {options.every:g} s")
            if options.once or stop.wait(options.every):
                break
    finally:
        if not options.once:
            actuator.restore(report)
    return report


def restore_from_log(options: SteerOptions, *, runner: Runner = run_command, clock: Callable[[], float] = time.time,
                     echo: Callable[[str], None] = log.info) -> SteerReport:
    """``fairsched steer --restore``: give back the nice values a steer run recorded in ``--log`` and exit."""
    if options.log is None:
        raise ConfigError("--restore needs --log FILE: the log of the steer run whose nice values to give back")
    actuator = _Actuator(replace(options, dry_run=False), runner, clock, threading.Event(), echo, echo)
    report = SteerReport()
    actuator.restore(report)
    return report
