"""`fairsched steer`'s reader and actuator against a fake Slurm (a runner that records calls and fails on demand).

The cluster of every test is the hand-computed game of tests/test_steer_decide.py: accounts a, b, c with one CPU
each, a ran a 2-CPU job and b a 1-CPU job on the window's first 4 s, so c is owed most (nice −M), b is in the
middle (0) and a received most (+M).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fairsched.errors import ClusterError, ConfigError, InputError
from fairsched.slurm.steer import (
    WARM_UP_NOTICE,
    CommandResult,
    SteerOptions,
    SteerReport,
    read_originals,
    restore_from_log,
    steer,
    stop_on_signals,
    warm_up_kernels,
)
from fairsched.slurm.steer_decide import PendingJob, SteerConfig, UsedJob
from fairsched.slurm.steer_state import (
    no_accounting,
    parse_config,
    parse_duration,
    parse_nodes_cpus,
    parse_squeue,
    share_accounts,
    used_jobs,
)
from fairsched.workload.sshare import read_share_tree

T0 = int(datetime(2026, 1, 1, tzinfo=UTC).timestamp())  # the window's start; now = T0 + 4
SSHARE = """\
Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins
root|||0.000000|12||1.000000||||cpu=0
 root|root|1|0.250000|0|0.000000|0.000000|1.000000|inf||cpu=0
 a||1|0.250000|8|0.666667|0.666667||0.375000||cpu=0
  a|root|1|1.000000|8|0.666667|1.000000|0.333333|1.000000||cpu=0
 b||1|0.250000|4|0.333333|0.333333||0.750000||cpu=0
  b|root|1|1.000000|4|0.333333|1.000000|0.666667|1.000000||cpu=0
 c||1|0.250000|0|0.000000|0.000000||inf||cpu=0
  c|root|1|1.000000|0|0.000000|0.000000|1.000000|inf||cpu=0
"""
SACCT = """\
JobIDRaw|Account|Submit|Start|End|Elapsed|State|NCPUS|Timelimit
1|a|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:04|00:00:04|COMPLETED|2|00:01:00
2|b|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:04|00:00:04|COMPLETED|1|00:01:00
3|a|2026-01-01T00:00:01|Unknown|Unknown|00:00:00|PENDING|1|00:01:00
"""
CONFIG = "Configuration data as of 2026-01-01T00:00:04\nAccountingStorageType   = accounting_storage/slurmdbd\n" \
         "PriorityDecayHalfLife   = 00:00:04\nPriorityWeightFairShare = 10000\n"
NODES = "NodeName=n1 CPUAlloc=0 CPUTot=2 State=IDLE\nNodeName=n2 CPUAlloc=0 CPUTot=1 State=IDLE\n"
CONTROLLER_DOWN = "sshare: error: Unable to contact slurm controller (connect failure)"


class FakeSlurm:
    """A runner: answers scontrol/sshare/sacct/squeue from the texts above, applies `scontrol update Nice=`."""

    def __init__(self, *, config: str = CONFIG, fail: dict[str, int] | None = None,
                 refuse: Callable[[str, int], str | None] = lambda job, nice: None,
                 stop_when: Callable[[FakeSlurm], bool] = lambda fake: False,
                 stop: threading.Event | None = None) -> None:
        self.pending = {"11": ["a", 0], "12": ["a", 0], "13": ["b", 0], "14": ["c", 0]}
        self.config, self.fail, self.refuse = config, dict(fail or {}), refuse
        self.stop_when, self.stop = stop_when, stop
        self.calls: list[tuple[str, ...]] = []
        self.updates: list[tuple[str, int]] = []

    def nice(self) -> dict[str, int]:
        return {job: nice for job, (_, nice) in self.pending.items()}

    def __call__(self, argv: Sequence[str]) -> CommandResult:
        self.calls.append(tuple(argv))
        try:
            return self._answer(list(argv))
        finally:  # a broken loop fails its test instead of running forever
            if self.stop is not None and (self.stop_when(self) or len(self.calls) > 300):
                self.stop.set()

    def _answer(self, argv: list[str]) -> CommandResult:
        name = " ".join(argv[:2]) if argv[0] == "scontrol" else argv[0]
        if self.fail.get(name, 0) > 0:
            self.fail[name] -= 1
            return CommandResult(1, "", CONTROLLER_DOWN)
        if name == "scontrol show":
            return CommandResult(0, self.config if argv[2] == "config" else NODES, "")
        if name == "sshare":
            return CommandResult(0, SSHARE, "")
        if name == "sacct":
            return CommandResult(0, SACCT, "")
        if name == "squeue":
            return CommandResult(0, "".join(f"{j}|{a}|{n}\n" for j, (a, n) in self.pending.items()), "")
        job, nice = argv[2].removeprefix("JobId="), int(argv[3].removeprefix("Nice="))
        why = self.refuse(job, nice)
        if why is not None:
            return CommandResult(1, "", why)
        self.pending[job][1] = nice
        self.updates.append((job, nice))
        return CommandResult(0, "", "")


def options(**changes: object) -> SteerOptions:
    return replace(SteerOptions(every=0.001, retry_delay=0.0), **changes)


def run(fake: FakeSlurm, opts: SteerOptions,
        stop: threading.Event | None = None) -> tuple[SteerReport, list[str], list[str]]:
    lines: list[str] = []
    printed: list[str] = []
    report = steer(opts, runner=fake, clock=lambda: T0 + 4, stop=stop, echo=lines.append, out=printed.append,
                   warm=lambda echo: warm_up_kernels(lambda line: None))  # the notice of a cold compile: not here
    return report, lines, printed


TARGET = {"11": 10000, "12": 10000, "13": 0, "14": -10000}
ORIGINAL = {"11": 0, "12": 0, "13": 0, "14": 0}


# -- reading the state ------------------------------------------------------------------------------------------
def test_parse_squeue_nodes_config() -> None:
    assert parse_squeue("5|x|3\n6_1|sub|-2\n\n", {"sub": "top"}) == (PendingJob("5", "x", 3), PendingJob("6_1", "top",
                                                                                                        -2))
    with pytest.raises(ClusterError, match=r"expected JOBID\|ACCOUNT\|NICE"):
        parse_squeue("5 x 3\n", {})
    assert parse_nodes_cpus(NODES) == 3
    with pytest.raises(ClusterError, match="no CPU"):
        parse_nodes_cpus("No nodes in the system\n")
    config = parse_config(CONFIG)
    assert config["PriorityDecayHalfLife"] == "00:00:04" and no_accounting(config) is None
    assert "keeps no job accounting (AccountingStorageType=accounting_storage/none)" in str(
        no_accounting({"AccountingStorageType": "accounting_storage/none"}))


def test_parse_duration() -> None:
    assert [parse_duration(t, "--every") for t in ("45", "30s", "1.5m", "2h", "1d", "00:10:00", "1-02:00:00")] == \
        [45, 30, 90, 7200, 86400, 600, 93600]
    with pytest.raises(ConfigError, match="--every 'soon': expected a duration"):
        parse_duration("soon", "--every")


def test_share_accounts_maps_sub_accounts_to_their_top_account(tmp_path: Path) -> None:
    path = tmp_path / "sshare.txt"
    path.write_text(SSHARE.replace(" c||1|", " c||2|") + "  c2||1|0.5|0|0|0||inf||cpu=0\n")
    shares, owner, level_fs = share_accounts(read_share_tree(path))
    assert shares == {"a": 1.0, "b": 1.0, "c": 2.0}  # the root user's association is no organization
    assert owner == {"a": "a", "b": "b", "c": "c", "c2": "c"}
    # Fair Tree, recomputed from RawShares and RawUsage: LevelFS = NormShares / EffectvUsage; root's children hold
    # 1 + 1 + 1 + 2 shares (the root user's association counts), so a: 1/5 / (8/12) = 0.3, b: 1/5 / (4/12) = 0.6
    assert level_fs["a"] == pytest.approx(0.3) and level_fs["b"] == pytest.approx(0.6)
    assert level_fs["c"] == float("inf")


def test_used_jobs_clips_to_the_window(tmp_path: Path) -> None:
    path = tmp_path / "sacct.txt"
    path.write_text(
        "JobIDRaw|Account|Submit|Start|End|Elapsed|State|NCPUS|Timelimit\n"
        "1|a|2025-12-31T23:59:10|2025-12-31T23:59:20|2026-01-01T00:00:10|00:00:50|COMPLETED|2|00:01:00\n"
        "2|b|2026-01-01T00:00:05|2026-01-01T00:00:10|Unknown|00:00:30|RUNNING|1|UNLIMITED\n"
        "3|a|2026-01-01T00:00:20|Unknown|Unknown|00:00:00|PENDING|1|00:01:00\n"
        "4|c|2025-12-31T23:58:20|2025-12-31T23:58:30|2025-12-31T23:58:40|00:00:10|COMPLETED|4|00:01:00\n"
        "5|root|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:02|00:00:02|COMPLETED|1|00:01:00\n")
    jobs = used_jobs(path, {"a": "a", "b": "b", "c": "c"}, T0, T0 + 100)
    # job 1 ran 40 s before the window and 10 s in it; job 2 runs since 10 s (30 s so far, no limit: estimate = run);
    # job 3 never started, job 4 ended before the window, job 5's account is no organization
    assert jobs == (UsedJob("a", 0, 0, 10, 2, 60), UsedJob("b", 5, 10, 30, 1, 30))


# -- the loop ---------------------------------------------------------------------------------------------------
def test_one_pass_sets_the_target_nice_and_logs_each_action(tmp_path: Path) -> None:
    fake = FakeSlurm()
    log = tmp_path / "steer.jsonl"
    report, lines, printed = run(fake, options(once=True, log=log))
    assert fake.nice() == TARGET
    assert fake.updates == [("11", 10000), ("12", 10000), ("14", -10000)]
    assert ("sacct", "-a", "-X", "-P", "-S", "2026-01-01T00:00:00", "-E", "now",
            "--format=JobIDRaw,Account,Submit,Start,End,Elapsed,State,NCPUS,Timelimit") in fake.calls
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["kind"], e["job"], e["old_nice"], e["new_nice"]) for e in entries] == [
        ("set", "11", 0, 10000), ("set", "12", 0, 10000), ("set", "14", 0, -10000)]
    assert entries[2]["time"] == "2026-01-01T00:00:04Z" and entries[2]["reason"].startswith("c: φ−ψ = +0.5556")
    assert lines[0] == "2026-01-01T00:00:04Z job 11: nice 0 -> 10000 set (a: φ−ψ = -0.6944 s/unit, level 3 of 3)"
    assert (report.passes, report.set, report.restored, printed) == (1, 3, 0, [])
    assert read_originals(log) == {"11": 0, "12": 0, "14": 0}
    # level-triggered: a second run on the new state has nothing to do
    fake.updates.clear()
    assert run(fake, options(once=True, log=log))[0].set == 0 and fake.updates == []


def test_stopping_gives_back_the_nice_values_it_set(tmp_path: Path) -> None:
    stop = threading.Event()
    fake = FakeSlurm(stop=stop, stop_when=lambda f: len(f.updates) == 3)
    fake.pending["12"][1] = 5  # a user's own nice, restored as it was
    report, _lines, _ = run(fake, options(log=tmp_path / "log"), stop=stop)
    assert fake.nice() == ORIGINAL | {"12": 5}
    assert fake.updates[3:] == [("11", 0), ("12", 5), ("14", 0)]
    assert (report.set, report.restored, report.not_restored) == (3, 3, [])
    assert read_originals(tmp_path / "log") == {}
    assert report.summary() == "steer: 1 pass(es); 3 nice value(s) set, 3 given back"


def test_failed_commands_are_retried_with_one_line_warnings() -> None:
    fake = FakeSlurm(fail={"sshare": 2})
    report, lines, _ = run(fake, options(once=True))
    assert lines[:2] == [f"warning: `sshare -a -l -P` failed ({CONTROLLER_DOWN}); retry 1/2 in 0 s",
                         f"warning: `sshare -a -l -P` failed ({CONTROLLER_DOWN}); retry 2/2 in 0 s"]
    assert fake.nice() == TARGET and report.passes == 1


def test_a_pass_is_skipped_while_slurm_restarts_and_the_next_one_steers() -> None:
    stop = threading.Event()
    fake = FakeSlurm(fail={"squeue": 3}, stop=stop, stop_when=lambda f: len(f.updates) == 3)
    report, lines, _ = run(fake, options(), stop=stop)
    assert [line for line in lines if "pass skipped" in line] == [
        "warning: pass skipped, Slurm does not answer (`squeue -h -r -t PENDING -o %i|%a|%y` failed 3 times: "
        f"{CONTROLLER_DOWN}); next pass in 0.001 s"]
    assert (report.skipped, report.passes, report.set, report.restored) == (1, 1, 3, 3)
    assert fake.nice() == ORIGINAL


def test_once_fails_in_one_line_when_slurm_does_not_answer() -> None:
    with pytest.raises(ClusterError, match=r"^Slurm does not answer: `scontrol show config` failed 3 times"):
        run(FakeSlurm(fail={"scontrol show": 3}), options(once=True))


def test_no_right_to_set_a_negative_nice_one_message_then_nice_at_least_zero() -> None:
    stop = threading.Event()
    fake = FakeSlurm(refuse=lambda job, nice: "Access/permission denied for job " + job if nice < 0 else None,
                     stop=stop, stop_when=lambda f: ("13", 5000) in f.updates)
    report, lines, _ = run(fake, options(), stop=stop)
    denied = [line for line in lines if "may not set a negative nice" in line]
    assert len(denied) == 1 and "sacctmgr modify user NAME set adminlevel=operator" in denied[0]
    assert fake.updates[:3] == [("11", 10000), ("12", 10000), ("13", 5000)]  # pass 2: levels 0, 5000, 10000
    assert fake.nice() == ORIGINAL and report.restored == 3


def test_no_right_to_change_other_users_jobs_stops_in_one_line() -> None:
    fake = FakeSlurm(refuse=lambda job, nice: f"Invalid user id for job {job}")
    with pytest.raises(ClusterError, match="changing other users' jobs needs root, SlurmUser or a Slurm operator"):
        run(fake, options(once=True))
    assert fake.nice() == ORIGINAL


def test_a_job_that_left_the_queue_is_skipped() -> None:
    fake = FakeSlurm(refuse=lambda job, nice: "Invalid job id specified" if job == "14" else None)
    report, _lines, _ = run(fake, options(once=True))
    assert report.set == 2 and fake.nice() == TARGET | {"14": 0}
    assert [c for c in fake.calls if c[-2:] == ("JobId=14", "Nice=-10000")] == [("scontrol", "update", "JobId=14",
                                                                                 "Nice=-10000")]  # not retried


@pytest.mark.parametrize("where", ["config", "sacct"])
def test_a_cluster_without_accounting_is_one_line(where: str) -> None:
    if where == "config":
        fake = FakeSlurm(config="AccountingStorageType   = accounting_storage/none\n")
    else:
        fake = FakeSlurm()
        original = fake._answer
        fake._answer = lambda argv: CommandResult(1, "", "Slurm accounting storage is disabled") \
            if argv[0] == "sacct" else original(argv)
    with pytest.raises(ClusterError, match=r"^this cluster keeps no job accounting"):
        run(fake, options())
    assert fake.updates == []


def test_dry_run_prints_the_commands_and_changes_nothing(tmp_path: Path) -> None:
    fake = FakeSlurm()
    log = tmp_path / "log"
    _report, lines, printed = run(fake, options(once=True, dry_run=True, log=log))
    assert printed == ["scontrol update JobId=11 Nice=10000", "scontrol update JobId=12 Nice=10000",
                       "scontrol update JobId=14 Nice=-10000"]
    assert fake.updates == [] and fake.nice() == ORIGINAL
    assert all(json.loads(line)["dry_run"] for line in log.read_text().splitlines())
    assert read_originals(log) == {}
    assert "would set" in lines[0]


def test_a_new_run_learns_from_the_log_what_to_give_back(tmp_path: Path) -> None:
    fake = FakeSlurm()
    log = tmp_path / "log"
    run(fake, options(once=True, log=log))  # e.g. killed with SIGKILL after this pass
    del fake.pending["11"]  # started meanwhile: nothing to give back
    report = restore_from_log(options(log=log), runner=fake, clock=lambda: T0 + 5, echo=lambda line: None)
    assert fake.nice() == {"12": 0, "13": 0, "14": 0} and report.restored == 2
    assert read_originals(log) == {"11": 0}  # not pending any more: harmless, skipped next time
    with pytest.raises(ConfigError, match="--restore needs --log FILE"):
        restore_from_log(options(), runner=fake)


def test_a_log_that_is_not_steers_is_one_line(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text('{"kind": "set", "job": "1", "old_nice": 0}\nhello\n')
    with pytest.raises(InputError, match=r"log:2: not a line of steer's log"):
        read_originals(log)


def test_sigint_and_sigterm_set_the_stop_event() -> None:
    import os
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM):
        with stop_on_signals() as stopped:
            os.kill(os.getpid(), sig)
            assert stopped.event.wait(5)
        assert stopped.signum == sig
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_options_from_flags() -> None:
    opts = SteerOptions.from_flags(policy="fair-tree-boost", every="2m", max_nice=50, window="1h")
    assert (opts.every, opts.window, opts.decision) == (120, 3600, SteerConfig(policy="fair-tree-boost", max_nice=50))
    with pytest.raises(ConfigError, match="--every 0 s: expected a positive period"):
        SteerOptions.from_flags(every="0")


# -- the warm-up of the kernels -----------------------------------------------------------------------------------
def test_the_kernels_are_warmed_up_once_after_the_config_and_before_the_first_pass_reads_the_queue() -> None:
    stop = threading.Event()
    fake = FakeSlurm(stop=stop, stop_when=lambda f: sum(c[0] == "sacct" for c in f.calls) == 2)  # two passes
    steer(options(), runner=fake, clock=lambda: T0 + 4, stop=stop, echo=lambda line: None,
          warm=lambda echo: fake.calls.append(("warm-up",)))
    assert fake.calls[:3] == [("scontrol", "show", "config"), ("warm-up",), ("scontrol", "show", "nodes", "-o")]
    assert fake.calls.count(("warm-up",)) == 1 and fake.nice() == ORIGINAL


def test_no_warm_up_without_the_game_or_without_accounting() -> None:
    warmed: list[str] = []
    run_once = {"runner": FakeSlurm(), "clock": lambda: T0 + 4, "echo": lambda line: None,
                "warm": lambda echo: warmed.append("warm-up")}
    steer(options(once=True, decision=SteerConfig(policy="fair-tree-boost")), **run_once)
    with pytest.raises(ClusterError, match="keeps no job accounting"):  # said at once, before any compile
        steer(options(once=True),
              **run_once | {"runner": FakeSlurm(config="AccountingStorageType = accounting_storage/none\n")})
    assert warmed == []


def test_a_slow_warm_up_says_so_on_one_line_and_a_quick_one_says_nothing() -> None:
    lines: list[str] = []
    said = threading.Event()

    def echo(line: str) -> None:
        lines.append(line)
        said.set()

    warm_up_kernels(echo, work=lambda: said.wait(60), notice_after=0.0)  # a compile that outlasts the notice delay
    warm_up_kernels(echo, work=lambda: None, notice_after=3600.0)  # loaded from numba's cache at once
    assert lines == [WARM_UP_NOTICE] == ["compiling kernels (first run only)..."]


def test_the_warm_up_compiles_every_kernel_a_pass_runs() -> None:
    import subprocess
    import sys

    # A fresh interpreter (the kernels are loaded in this one): after warm_up(), assessing a bigger game (4
    # accounts, a job too wide for some coalitions, a running one) adds no compiled signature.
    script = """if True:
        from fairsched.audit._replay import _replay, _values_kernel
        from fairsched.slurm.steer_decide import PendingJob, SteerConfig, SteerState, UsedJob, assess, warm_up
        signatures = lambda: [len(_replay.signatures), len(_values_kernel.signatures)]
        before = signatures()
        warm_up()
        warm = signatures()
        jobs = (UsedJob("w", 0, 3, 50, 8, 300), UsedJob("x", 1, 60, 20, 3, 30), UsedJob("y", 2, 80, 9, 1, 30))
        state = SteerState(now=600, n_cpus=8, shares=dict.fromkeys("wxyz", 1.0), jobs=jobs,
                           pending=(PendingJob("1", "z", 0),))
        assess(state, SteerConfig())
        print(before, warm, signatures())
    """
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[0] == "[0, 0] [1, 1] [1, 1]"


# -- the command, with fake Slurm programs on PATH -----------------------------------------------------------------
FAKE_PROGRAM = """#!{python}
import json, os, signal, sys, time
from datetime import datetime, timezone
name, args = os.path.basename(sys.argv[0]), sys.argv[1:]
path = os.environ["FAKE_SLURM_STATE"]
state = json.load(open(path))
if name == "scontrol" and args[0] == "update":
    state["pending"][args[1].split("=")[1]][1] = int(args[2].split("=")[1])
    json.dump(state, open(path, "w"))
elif name == "scontrol":
    print(state["config"] if args[1] == "config" else state["nodes"])
elif name == "sshare":
    print(state["sshare"])
elif name == "sacct" and state.get("sacct_disabled"):
    sys.exit("sacct: error: Slurm accounting storage is disabled")
elif name == "sacct":  # the two jobs ran on the 4 s before now
    at = lambda s: datetime.fromtimestamp(int(time.time()) + s, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    print(state["sacct"].replace("T-4", at(-4)).replace("T-0", at(0)))
elif name == "squeue":
    print("".join(f"{{j}}|{{a}}|{{n}}\\n" for j, (a, n) in state["pending"].items()), end="")
    if state.get("sigint"):
        os.kill(os.getppid(), signal.SIGINT)
"""


@pytest.fixture
def fake_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    import sys

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("scontrol", "sshare", "sacct", "squeue"):
        (bin_dir / name).write_text(FAKE_PROGRAM.format(python=sys.executable))
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")

    def make(*, config: str = CONFIG, sigint: bool = False, sacct_disabled: bool = False) -> Path:
        state = tmp_path / "state.json"
        sacct = SACCT.replace("2026-01-01T00:00:00", "T-4").replace("2026-01-01T00:00:04", "T-0")
        state.write_text(json.dumps({"config": config, "nodes": NODES, "sshare": SSHARE, "sacct": sacct,
                                     "sigint": sigint, "sacct_disabled": sacct_disabled,
                                     "pending": FakeSlurm().pending}))
        monkeypatch.setenv("FAKE_SLURM_STATE", str(state))
        return state

    return make


def _nice(state: Path) -> dict[str, int]:
    return {job: nice for job, (_, nice) in json.loads(state.read_text())["pending"].items()}


def test_cli_once_then_restore(fake_programs: Callable[..., Path], tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    from fairsched.cli import main

    state = fake_programs()
    log = tmp_path / "steer.jsonl"
    main(["steer", "--once", "--window", "10s", "--max-nice", "300", "--log", str(log)])
    assert _nice(state) == {"11": 300, "12": 300, "13": 0, "14": -300}
    err = [line for line in capsys.readouterr().err.splitlines() if line != WARM_UP_NOTICE]  # said when cold
    assert err[-1] == "steer: 1 pass(es); 3 nice value(s) set, 0 given back" and len(err) == 4
    main(["steer", "--restore", "--log", str(log)])
    assert _nice(state) == ORIGINAL
    assert capsys.readouterr().err.splitlines()[-1] == "steer: 0 pass(es); 0 nice value(s) set, 3 given back"


def test_cli_dry_run_prints_the_commands(fake_programs: Callable[..., Path],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from fairsched.cli import main

    state = fake_programs()
    main(["steer", "--once", "--dry-run", "--window", "10s", "--policy", "directcontr"])
    assert capsys.readouterr().out.splitlines() == ["scontrol update JobId=11 Nice=10000",
                                                    "scontrol update JobId=12 Nice=10000",
                                                    "scontrol update JobId=14 Nice=-10000"]
    assert _nice(state) == ORIGINAL


def test_cli_sigint_gives_back_and_exits_130(fake_programs: Callable[..., Path],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from fairsched.cli import main

    state = fake_programs(sigint=True)  # squeue sends SIGINT to steer during the first pass
    with pytest.raises(SystemExit) as exit_info:
        main(["steer", "--window", "10s", "--every", "1h"])
    assert exit_info.value.code == 130
    assert _nice(state) == ORIGINAL
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == "steer: 1 pass(es); 3 nice value(s) set, 3 given back"
    assert "Traceback" not in err


@pytest.mark.parametrize("where", ["config", "sacct"])
def test_cli_without_accounting_is_one_line_exit_2(fake_programs: Callable[..., Path], where: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from fairsched.cli import main

    if where == "config":
        state = fake_programs(config="AccountingStorageType   = accounting_storage/none")
    else:  # the configuration names slurmdbd, but sacct finds no accounting storage
        state = fake_programs(sacct_disabled=True)
    with pytest.raises(SystemExit) as exit_info:
        main(["steer", "--window", "10s", "--every", "1h"])
    assert exit_info.value.code == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line != WARM_UP_NOTICE]
    detail = ("AccountingStorageType=accounting_storage/none" if where == "config" else
              "sacct: sacct: error: Slurm accounting storage is disabled")
    assert err == [f"error: this cluster keeps no job accounting ({detail}): steer needs sacct's records of the "
                   "jobs that ran to compute each account's utility and contribution; configure "
                   "accounting_storage/slurmdbd"]
    assert _nice(state) == ORIGINAL
