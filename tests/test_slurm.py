"""`fairsched.slurm` without a running Slurm: configuration files, options, the replay plan, the safety checks,
and the process handling on plain processes. The tests against a real cluster are in test_slurm_cluster.py."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pandas as pd
import pytest

from fairsched.errors import ClusterError, ConfigError, InputError
from fairsched.slurm import _proc
from fairsched.slurm.cluster import Cluster, Daemon, require_cluster
from fairsched.slurm.config import (
    ClusterConfig,
    Layout,
    Ports,
    free_ports,
    parse_half_life,
    read_accounts_file,
    render_slurm_conf,
    render_slurmdbd_conf,
)
from fairsched.slurm.replay import MIN_RUN, plan_replay, read_replay_log
from fairsched.workload.model import Workload
from tests.conftest import run_main

PORTS = Ports(mariadb=4001, slurmdbd=4002, slurmctld=4003, slurmd=(4004, 4005, 4006))


def _conf(text: str) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, value = line.split("=", 1)
            values.setdefault(key, []).append(value)
    return values


def test_slurm_conf_puts_every_path_under_the_directory_and_every_daemon_on_its_port() -> None:
    layout = Layout(Path("/x/c"))
    conf = _conf(render_slurm_conf(layout, ClusterConfig(nodes=3, cpus_per_node=8, half_life=5400), PORTS))
    assert conf["SlurmctldPort"] == ["4003"]
    assert conf["AccountingStoragePort"] == ["4002"]
    assert conf["AuthInfo"] == ["socket=/x/c/munge/munge.socket"]
    assert conf["AccountingStoragePass"] == ["/x/c/munge/munge.socket"]
    assert conf["AccountingStorageEnforce"] == ["associations,limits"]
    assert conf["SlurmdParameters"] == ["config_overrides"]
    assert conf["PriorityDecayHalfLife"] == ["0-01:30:00"]
    assert "PriorityFlags" not in conf  # Fair Tree is Slurm 22.05's default
    assert conf["NodeName"] == [f"n{i} NodeHostname=localhost NodeAddr=127.0.0.1 Port={4003 + i} CPUs=8 "
                                "State=UNKNOWN" for i in (1, 2, 3)]
    paths = [value for key in ("StateSaveLocation", "SlurmdSpoolDir", "SlurmctldPidFile", "SlurmdPidFile",
                               "SlurmctldLogFile", "SlurmdLogFile") for value in conf[key]]
    assert paths and all(path.startswith("/x/c/") for path in paths)
    assert "%n" in conf["SlurmdSpoolDir"][0] and "%n" in conf["SlurmdPidFile"][0]
    classic = _conf(render_slurm_conf(layout, ClusterConfig(nodes=3, fair_tree=False), PORTS))
    assert classic["PriorityFlags"] == ["NO_FAIR_TREE"]
    assert "PriorityUsageResetPeriod" not in conf
    # Slurm refuses PriorityDecayHalfLife=0 without a reset period (checked on 22.05: sacctmgr "Unable to process
    # configuration file"), so `--half-life 0` comes with a yearly reset
    no_decay = _conf(render_slurm_conf(layout, ClusterConfig(nodes=3, half_life=0), PORTS))
    assert no_decay["PriorityDecayHalfLife"] == ["0-00:00:00"]
    assert no_decay["PriorityUsageResetPeriod"] == ["YEARLY"]


def test_slurmdbd_conf_names_the_private_database() -> None:
    conf = _conf(render_slurmdbd_conf(Layout(Path("/x/c")), PORTS))
    assert conf["StoragePort"] == ["4001"] and conf["DbdPort"] == ["4002"]
    assert conf["StorageHost"] == ["127.0.0.1"] and conf["PidFile"] == ["/x/c/run/slurmdbd.pid"]


def test_half_life_is_whole_minutes() -> None:
    assert [parse_half_life(t) for t in ("10m", "2h", "7d", "7-0", "0-12", "120", "0")] == \
        [600, 7200, 604800, 604800, 43200, 120, 0]
    with pytest.raises(ConfigError, match="whole minutes"):
        parse_half_life("90s")
    with pytest.raises(ConfigError, match="expected a duration"):
        parse_half_life("ten minutes")


def test_accounts_file(tmp_path: Path) -> None:
    path = tmp_path / "accounts.txt"
    path.write_text("# account shares\nphysics 40\nchem,10  # comment\n\n")
    assert read_accounts_file(path) == (("physics", 40), ("chem", 10))
    path.write_text("physics 40\nBad/Name 3\n")
    with pytest.raises(InputError, match=r"accounts.txt:2: account 'Bad/Name'"):
        read_accounts_file(path)
    path.write_text("physics -1\n")
    with pytest.raises(InputError, match="positive integer"):
        read_accounts_file(path)


def test_cluster_config_limits() -> None:
    with pytest.raises(ConfigError, match="--nodes 0"):
        ClusterConfig(nodes=0)
    assert ClusterConfig(nodes=3, cpus_per_node=5).total_cpus == 15


def test_free_ports_are_distinct_and_bindable() -> None:
    ports = free_ports(ClusterConfig(nodes=4))
    named = [port for _, port in ports.named()]
    assert len(named) == 7 and len(set(named)) == 7


def test_socket_paths_too_long_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="at most 107"):
        Layout(tmp_path / ("d" * 120)).check_socket_paths()


def _log(**columns: list) -> Workload:
    return Workload(jobs=pd.DataFrame(columns))


def test_plan_scales_times_raises_short_jobs_and_clips_cpus() -> None:
    """Scale 10: submit 0, 25, 40 s -> 0, 2.5, 4 s; runs 600, 14, 26 s -> 60, 1 -> 2 (raised), 3 s."""
    log = _log(submit_time=[100.0, 125.0, 140.0, 150.0], run_time=[600.0, 14.0, 26.0, -1.0],
               processors=[4, 64, 2, 2], runtime_estimate=[1200.0, 14.0, 600.0, 60.0],
               job_id=["7", "8", "9", "10"], user=["Ann.B", "bob", "Ann.B", "bob"],
               account=["Phys", "chem", "chem", "chem"], group=["g1", "g2", "g1", "g2"])
    plan = plan_replay(log, "sacct", scale=10, total_cpus=32)
    assert [(j.log_job_id, j.submit, j.run, j.cpus, j.limit_minutes) for j in plan.jobs] == \
        [("7", 0.0, 60, 4, 3), ("8", 2.5, MIN_RUN, 32, 1), ("9", 4.0, 3, 2, 2)]
    assert (plan.raised_to_min, plan.cpus_clipped, sum(plan.skipped.values())) == (1, 1, 1)
    assert [(j.user, j.account) for j in plan.jobs] == [("fs_ann_b", "phys"), ("fs_bob", "chem"),
                                                        ("fs_ann_b", "chem")]
    assert plan.user_accounts() == {"fs_ann_b": ("phys", "chem"), "fs_bob": ("chem",)}
    by_group = plan_replay(log, "sacct", scale=10, total_cpus=32, accounts_from="group", limit=2)
    assert [j.account for j in by_group.jobs] == ["g1", "g2"]
    assert by_group.skipped == {}  # job 10, which never started, comes after the last job kept


def test_plan_of_an_swf_log_uses_ids(tmp_path: Path) -> None:
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 8\n"
                    "1 0 5 100 4 -1 -1 4 200 -1 1 12 3 -1 -1 -1 -1 -1\n"
                    "2 50 0 30 2 -1 -1 2 60 -1 1 7 3 -1 -1 -1 -1 -1\n")
    workload, fmt = read_replay_log(path)
    assert fmt == "swf"
    plan = plan_replay(workload, fmt, scale=5, total_cpus=8)
    assert [(j.submit, j.run, j.user, j.account) for j in plan.jobs] == [(0.0, 20, "fs_u12", "g3"),
                                                                          (10.0, 6, "fs_u7", "g3")]
    with pytest.raises(ConfigError, match="an SWF log has no account"):
        plan_replay(workload, fmt, scale=5, total_cpus=8, accounts_from="account")
    with pytest.raises(ConfigError, match="--scale 0"):
        plan_replay(workload, fmt, scale=0, total_cpus=8)


def _fake_cluster(root: Path, *, pid: int, ticks: int | None, state: str = "up") -> Cluster:
    layout = Layout(root)
    layout.etc.mkdir(parents=True)
    layout.slurm_conf.write_text("ClusterName=fairsched\n")
    digest = hashlib.sha256(layout.slurm_conf.read_bytes()).hexdigest()
    cluster = Cluster(root=root, config=ClusterConfig(nodes=1), ports=Ports(1, 2, 3, (4,)),
                      daemons=(Daemon("slurmctld", pid, ticks or 0, ()),), state=state, slurm_conf_sha256=digest)
    layout.marker.write_text(cluster.to_json())
    return cluster


def test_replay_refuses_a_cluster_that_up_did_not_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ClusterError, match="SLURM_CONF is not set"):
        require_cluster(None)
    other = tmp_path / "prod" / "slurm.conf"
    other.parent.mkdir()
    other.write_text("ClusterName=production\n")
    with pytest.raises(ClusterError, match=r"refusing SLURM_CONF=.*no marker"):
        require_cluster(str(other))
    # A marker that records another file (here: the same name, changed since) is refused too.
    cluster = _fake_cluster(tmp_path / "c", pid=os.getpid(), ticks=_proc.start_ticks(os.getpid()))
    assert require_cluster(str(cluster.slurm_conf)).root == tmp_path / "c"
    cluster.slurm_conf.write_text("ClusterName=fairsched\nSlurmctldHost=elsewhere\n")
    with pytest.raises(ClusterError, match="the file was changed"):
        require_cluster(str(cluster.slurm_conf))
    # The CLI: one line on stderr, exit 2, nothing on stdout, no output directory.
    monkeypatch.setenv("SLURM_CONF", str(other))
    log = tmp_path / "log.swf"
    log.write_text("1 0 5 100 4 -1 -1 4 200 -1 1 12 3 -1 -1 -1 -1 -1\n")
    code, out, err = run_main(["slurm", "replay", str(log), "--scale", "10", "--out", str(tmp_path / "o")], capsys)
    assert (code, out) == (2, "") and err.startswith("error: refusing SLURM_CONF=") and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_replay_refuses_a_stopped_cluster(tmp_path: Path) -> None:
    cluster = _fake_cluster(tmp_path / "c", pid=os.getpid(), ticks=None)  # a recycled pid: not the slurmctld
    with pytest.raises(ClusterError, match="is not running"):
        require_cluster(str(cluster.slurm_conf))


def test_up_without_slurm_names_the_debian_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code, out, err = run_main(["slurm", "up", str(tmp_path / "c")], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "slurmctld" in err and "apt-get install -y slurm-wlm slurmdbd mariadb-server munge" in err
    assert not (tmp_path / "c").exists()  # nothing was created, let alone started


def test_stop_terminates_by_recorded_pid_and_spares_a_recycled_one(tmp_path: Path) -> None:
    pid, ticks = _proc.spawn(["/bin/sleep", "60"], env={}, log_path=tmp_path / "out", cwd=tmp_path)
    assert _proc.alive(pid, ticks)
    assert _proc.stop(pid, ticks + 1, timeout=1) is False  # another start time: not ours, left alone
    assert _proc.alive(pid, ticks)
    assert _proc.stop(pid, ticks, timeout=5) is False  # SIGTERM was enough
    assert not _proc.alive(pid, ticks)


def test_stop_kills_a_process_that_ignores_sigterm(tmp_path: Path) -> None:
    script = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); " \
             "time.sleep(60)"
    pid, ticks = _proc.spawn([sys.executable, "-c", script], env={}, log_path=tmp_path / "out", cwd=tmp_path)
    _proc.wait_until(lambda: "ready" in (tmp_path / "out").read_text(), timeout=30, failed=lambda: None)
    assert _proc.stop(pid, ticks, timeout=0.5) is True
    assert not _proc.alive(pid, ticks)


def test_marked_processes_finds_the_cluster_s_processes_and_their_children(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", _proc.ENV_MARK: str(tmp_path)}
    # A marked shell whose child drops the mark (as a job under slurmstepd does); another cluster's mark.
    pid, ticks = _proc.spawn(["/bin/sh", "-c", "env -u FAIRSCHED_SLURM_CLUSTER sleep 60 & wait"], env=env,
                             log_path=tmp_path / "out", cwd=tmp_path)
    other, other_ticks = _proc.spawn(["/bin/sleep", "60"], env={**env, _proc.ENV_MARK: str(tmp_path / "x")},
                                     log_path=tmp_path / "out2", cwd=tmp_path)
    try:
        _proc.wait_until(lambda: len(_proc.marked_processes(tmp_path)) == 2, timeout=10, failed=lambda: None)
        found = _proc.marked_processes(tmp_path)
        assert pid in found and other not in found
        child = next(p for p in found if p != pid)
        assert Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")[0] == b"sleep"
    finally:
        for p in [*_proc.marked_processes(tmp_path), other]:
            _proc.stop(p, _proc.start_ticks(p), timeout=1)
    assert not _proc.alive(pid, ticks) and not _proc.alive(other, other_ticks)


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/sbin/useradd").exists(), reason="needs root and useradd")
def test_down_removes_exactly_the_users_replays_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pwd
    import subprocess

    from fairsched.slurm.cluster import _remove_users
    from fairsched.slurm.replay import _ensure_users

    record = tmp_path / "users-created.txt"
    user = f"fs_rm{os.getpid() % 100000}"
    assert _ensure_users(["root", user], record=record) == (user,)  # root exists: not created, not recorded
    assert record.read_text() == f"{user}\n" and pwd.getpwnam(user)
    assert _remove_users(record) == ((user,), ())
    with pytest.raises(KeyError):
        pwd.getpwnam(user)
    assert not record.exists()
    assert _remove_users(record) == ((), ())  # nothing recorded: nothing to do
    # A user userdel refuses (a process of another cluster's job, say) is named, kept, and stays recorded.
    record.write_text("root\nfs_gone_long_ago\n")
    refused = subprocess.CompletedProcess(["userdel"], 8, "", "userdel: user root is currently used by process 1")
    monkeypatch.setattr(_proc, "run", lambda *args, **kwargs: refused)
    assert _remove_users(record) == ((), (("root", "userdel: user root is currently used by process 1"),))
    assert record.read_text() == "root\n"
