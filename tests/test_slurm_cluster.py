"""`fairsched slurm` against a real Slurm 22.05 (Debian's packages): up, replay, down, and the failures.

These tests start real daemons (tests/slurm_fixture.py). They run on one xdist worker (group ``slurm``) so that
the session's cluster starts once. The replay comes first: it waits for slurmctld's next fair-share pass, made
once a minute from its start, and the first one comes soonest.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from fairsched.slurm import Cluster, ClusterConfig, _proc, load_cluster
from fairsched.slurm.config import free_ports
from fairsched.slurm.replay import MIN_RUN, plan_replay, read_replay_log
from fairsched.workload.sacct import read_sacct
from tests.conftest import run_main, trace_path

pytestmark = [pytest.mark.slurm, pytest.mark.xdist_group("slurm")]

N_JOBS, SCALE = 30, 300  # the micro cluster's first 30 jobs span 2,070 s: 7 s here, runs of 2 to 5 s




def _nothing_left(cluster: Cluster) -> None:
    assert [daemon.name for daemon in cluster.daemons if _proc.alive(daemon.pid, daemon.ticks)] == []
    assert _proc.marked_processes(cluster.root) == []
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert str(cluster.root) not in ps


def _commands(pids: list[int]) -> str:
    return "\n".join(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode() for pid in pids)


def test_replay_of_a_real_log_is_read_back_by_the_sacct_reader(
        slurm_client: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    lines = trace_path("slurm/micro-cluster-real-slurm.sacct.txt").read_text().splitlines()
    log = tmp_path / "micro40.sacct"
    log.write_text("\n".join(lines[:N_JOBS + 1]) + "\n")
    workload, fmt = read_replay_log(log)
    plan = plan_replay(workload, fmt, scale=SCALE, total_cpus=slurm_client.config.total_cpus)
    monkeypatch.setenv("SLURM_CONF", str(slurm_client.slurm_conf))
    out = tmp_path / "out"
    code, stdout, _ = run_main(["slurm", "replay", str(log), "--scale", str(SCALE), "--out", str(out)], capsys)
    assert code == 0
    raised = sum(round(run / SCALE) < MIN_RUN for run in workload.jobs["run_time"])
    assert f"{raised} jobs ran {MIN_RUN} s instead" in stdout

    replayed = read_sacct(out / "sacct.txt").jobs
    assert len(replayed) == N_JOBS
    assert set(replayed["state"]) == {"COMPLETED"}
    assert sorted(replayed["account"].unique()) == ["account1", "account2"]
    assert sorted(replayed["user"].unique()) == [f"fs_user{i}" for i in range(1, 6)]
    names = subprocess.run(["cut", "-d|", "-f3", str(out / "sacct.txt")], capture_output=True, text=True,
                           check=True).stdout.split()[1:]
    assert sorted(names) == sorted(f"r{job_id}" for job_id in workload.jobs["job_id"])
    planned = {f"r{job.log_job_id}": job for job in plan.jobs}
    by_name = dict(zip(names, replayed.sort_values("line")["run_time"], strict=True))
    for name, job in planned.items():  # Slurm counts whole seconds: sleep N lasts N or N + 1
        assert job.run <= by_name[name] <= job.run + 1, name
    assert (replayed["processors"].sort_values().to_numpy() ==
            sorted(job.cpus for job in plan.jobs)).all()

    sshare = (out / "sshare.txt").read_text().splitlines()
    header = sshare[0].split("|")
    rows = {(row[0].strip(), row[1]): row for row in (line.split("|") for line in sshare[1:])}
    raw, effective = header.index("RawUsage"), header.index("EffectvUsage")
    total = int(rows[("root", "")][raw])
    for account in ("account1", "account2"):  # after the fair-share pass: EffectvUsage = RawUsage / root's
        row = rows[(account, "")]
        assert int(row[raw]) > 0
        assert float(row[effective]) == pytest.approx(int(row[raw]) / total, abs=2 / total)

    # `fairsched fairshare` on the cluster's own dump (its RawUsage the input): sshare's FairShare (Fair Tree's
    # ranks) exactly, and its LevelFS up to what sshare's RawUsage, printed truncated to an integer, leaves
    # unknown: usage u in [raw, raw + 1) for the association and for its parent (docs/slurm.md).
    code, stdout, _ = run_main(["fairshare", str(out / "sshare.txt"), "--json"], capsys)
    assert code == 0
    table = json.loads(stdout)["rows"]
    fairshare = [row["diff_fairshare"] for row in table if row["sshare_fairshare"] is not None]
    assert len(fairshare) >= 5 and set(fairshare) == {0.0}  # every user association
    parents: list[int] = []
    level_fs = 0
    for row, line in zip(table, sshare[1:], strict=True):
        depth = len(line) - len(line.lstrip(" "))
        parents = [*parents[:depth], int(row["raw_usage"])]
        if row["sshare_level_fs"] in (None, "inf") or depth == 0:
            continue
        own, parent = max(int(row["raw_usage"]), 1), max(parents[depth - 1], 1)
        assert abs(row["diff_level_fs"]) <= row["sshare_level_fs"] * (1 / own + 1 / parent) + 1e-6, row
        level_fs += 1
    assert level_fs >= 5


def test_up_prints_one_line_and_down_leaves_no_process(slurm_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = slurm_dir
    code, out, _ = run_main(["slurm", "up", str(root), "--nodes", "2", "--cpus-per-node", "3",
                             "--classic", "--half-life", "10m"], capsys)
    assert code == 0
    assert out == f"export SLURM_CONF={root / 'etc' / 'slurm.conf'}\n"
    cluster = load_cluster(root)
    assert [d.name for d in cluster.running()] == ["munged", "mariadb", "slurmdbd", "slurmctld", "slurmd n1",
                                                   "slurmd n2"]
    env = cluster.env()
    nodes = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %c %T"], env=env, capture_output=True, text=True,
                           check=True).stdout.split("\n")
    assert nodes[:2] == ["n1 3 idle", "n2 3 idle"]
    config = subprocess.run(["scontrol", "show", "config"], env=env, capture_output=True, text=True,
                            check=True).stdout
    assert "NO_FAIR_TREE" in config and "AccountingStorageEnforce = associations,limits" in config
    # A job left running: `down` must take it (its slurmstepd and its sleep) along with the daemons.
    subprocess.run(["sbatch", "-n", "1", "-o", "/dev/null", "--wrap", "sleep 300"], env=env, check=True,
                   capture_output=True)
    _proc.wait_until(lambda: "sleep 300" in _commands(_proc.marked_processes(root)), timeout=60,
                     failed=lambda: None)
    code, out, err = run_main(["slurm", "down", str(root)], capsys)
    assert (code, out) == (0, "") and "stopped 6 daemons" in err
    _nothing_left(cluster)
    assert load_cluster(root).state == "down"


def _error_line(err: str) -> str:
    """The command's one error line (the progress lines before it are `up`'s steps), and no traceback."""
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and err.endswith(errors[0] + "\n") and "Traceback" not in err, err
    return errors[0]


def test_a_daemon_that_fails_to_start_shows_its_log_and_leaves_nothing(slurm_dir: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "slurmdbd").write_text("#!/bin/sh\necho 'slurmdbd: fatal: broken on purpose by the test' >&2\n"
                                   "exit 1\n")
    (fake / "slurmdbd").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    root = slurm_dir
    code, out, err = run_main(["slurm", "up", str(root), "--nodes", "1"], capsys)
    assert (code, out) == (2, "")
    assert re.fullmatch(r"error: slurmdbd stopped during start-up; last lines of its log: "
                        r".*fatal: broken on purpose by the test.*", _error_line(err))
    cluster = load_cluster(root)
    assert [d.name for d in cluster.daemons] == ["munged", "mariadb", "slurmdbd"]  # the first two ran
    _nothing_left(cluster)


def test_a_port_in_use_is_refused_before_anything_starts(slurm_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from fairsched.slurm import cluster as cluster_module

    ports = free_ports(ClusterConfig(nodes=1))
    monkeypatch.setattr(cluster_module, "free_ports", lambda config: ports)  # taken between the pick and the start
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("0.0.0.0", ports.slurmctld))
        taken.listen()
        # in slurm_dir itself: should anything start after all, the fixture's teardown stops it
        code, out, err = run_main(["slurm", "up", str(slurm_dir), "--nodes", "1"], capsys)
    assert (code, out) == (2, "")
    assert _error_line(err) == (f"error: port in use: slurmctld {ports.slurmctld}; another program listens there "
                                "(choose other ports, or let `up` pick free ones)")
    assert list(slurm_dir.iterdir()) == []  # nothing written, let alone started


def test_a_user_that_cannot_be_created_stops_the_replay_before_any_job(
        slurm_client: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    fake = tmp_path / "sbin"
    fake.mkdir()
    (fake / "useradd").write_text("#!/bin/sh\necho 'useradd: cannot lock /etc/passwd; try again later.' >&2\n"
                                  "exit 1\n")
    (fake / "useradd").chmod(0o755)
    monkeypatch.setattr(_proc, "SBIN_PATH", str(fake))  # where replay finds useradd
    log = tmp_path / "log.swf"
    log.write_text("1 0 5 100 4 -1 -1 4 200 -1 1 987654 3 -1 -1 -1 -1 -1\n")  # user 987654: fs_u987654, new
    monkeypatch.setenv("SLURM_CONF", str(slurm_client.slurm_conf))
    code, out, err = run_main(["slurm", "replay", str(log), "--scale", "10", "--out", str(tmp_path / "o")], capsys)
    assert (code, out) == (2, "")
    assert err == ("error: cannot create the Linux user fs_u987654 for the replay (useradd "
                                    "fs_u987654 failed: useradd: cannot lock /etc/passwd; try again later.); no "
                                    "job was submitted\n")
    queued = subprocess.run(["squeue", "-h", "-o", "%A"], env=slurm_client.env(), capture_output=True, text=True,
                            check=True).stdout
    assert queued == "" and not (tmp_path / "o" / "sacct.txt").exists()


def test_ctrl_c_cancels_the_jobs_submitted_and_leaves_the_cluster_usable(slurm_client: Cluster,
                                                                         tmp_path: Path) -> None:
    lines = trace_path("slurm/micro-cluster-real-slurm.sacct.txt").read_text().splitlines()
    log = tmp_path / "micro.sacct"
    log.write_text("\n".join(lines[:N_JOBS + 1]) + "\n")
    env = {**slurm_client.env(), "PYTHONPATH": os.pathsep.join(sys.path)}
    replay = subprocess.Popen([sys.executable, "-m", "fairsched", "slurm", "replay", str(log), "--scale", "10",
                               "--out", str(tmp_path / "o")], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # Two jobs queued: jobs 2 and 3 of the log run 120 s and 16 s here, so only scancel empties the queue soon.
        _proc.wait_until(lambda: len(_queue(slurm_client)) >= 2, timeout=60,
                         failed=lambda: None if replay.poll() is None else f"replay exited ({replay.returncode})")
        replay.send_signal(signal.SIGINT)
        _, err = replay.communicate(timeout=60)
    finally:
        replay.kill()
    assert replay.returncode == 130, err
    assert err.splitlines()[-1] == "interrupted: the jobs submitted were cancelled (scancel); the cluster is still up"
    _proc.wait_until(lambda: _queue(slurm_client) == [], timeout=30, failed=lambda: None)
    assert not (tmp_path / "o" / "sacct.txt").exists()
    states = subprocess.run(["sinfo", "-h", "-o", "%T"], env=slurm_client.env(), capture_output=True, text=True,
                            check=True).stdout.split()
    assert states == ["idle"]  # usable: every node back to idle


def _queue(cluster: Cluster) -> list[str]:
    return subprocess.run(["squeue", "-h", "-o", "%A"], env=cluster.env(), capture_output=True, text=True,
                          check=True).stdout.split()
