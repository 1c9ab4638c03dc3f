"""A private Slurm cluster on this host: ``up`` starts it from a directory, ``down`` stops it, by recorded pids.

``up`` lays everything under one directory (configuration, munge key and socket, MariaDB's data on a free
loopback port, state, spool, logs, pid files; nothing in /etc, no system service) and starts
munged -> MariaDB -> slurmdbd -> slurmctld -> slurmd(s), each only once the previous one answers (polled, no
fixed sleep). Each daemon's pid is recorded, as it starts, in a marker file beside ``slurm.conf``; ``down``
stops them in reverse order from that record, and `require_cluster` refuses any ``SLURM_CONF`` without the
marker (so that ``fairsched slurm replay``, which creates users and jobs, can never act on a real cluster).
A start-up that fails at any step stops what it had started before raising.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import pwd
import shutil
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from fairsched._io import atomic_write
from fairsched.errors import ClusterError
from fairsched.slurm import _proc
from fairsched.slurm.config import (
    CLUSTER_NAME,
    ClusterConfig,
    Layout,
    Ports,
    free_ports,
    port_in_use,
    render_slurm_conf,
    render_slurmdbd_conf,
)

__all__ = ["BINARIES", "DEBIAN_PACKAGES", "Cluster", "Daemon", "DownReport", "down", "load_cluster",
           "missing_packages", "require_cluster", "up"]

log = logging.getLogger(__name__)

# Every program a cluster needs, and the Debian package (of the four the docs name) that brings it.
DEBIAN_PACKAGES = ("slurm-wlm", "slurmdbd", "mariadb-server", "munge")
BINARIES = {"munged": "munge", "mariadb-install-db": "mariadb-server", "mariadbd": "mariadb-server",
            "slurmdbd": "slurmdbd", "slurmctld": "slurm-wlm", "slurmd": "slurm-wlm", "sacctmgr": "slurm-wlm",
            "scontrol": "slurm-wlm", "sinfo": "slurm-wlm", "squeue": "slurm-wlm", "sbatch": "slurm-wlm",
            "scancel": "slurm-wlm", "sacct": "slurm-wlm", "sshare": "slurm-wlm"}
MARKER_KIND = "fairsched-slurm-cluster"
STARTING, UP, DOWN = "starting", "up", "down"
_MARIADB_OPTIONS = ("--no-defaults",)  # first: nothing read from /etc/mysql
# --innodb-use-native-aio=0: each server's Linux AIO contexts count against fs.aio-max-nr, and with several
# clusters up at once (parallel experiments, a test run beside them) mariadb-install-db aborted ("[ERROR] Aborting").
_MARIADB_SMALL = ("--innodb-log-file-size=8M", "--innodb-buffer-pool-size=32M", "--innodb-lock-wait-timeout=900",
                  "--innodb-flush-log-at-trx-commit=0", "--innodb-use-native-aio=0", "--skip-log-bin")


@dataclass(frozen=True)
class Daemon:
    """A started daemon: its name, pid and kernel start time (`fairsched.slurm._proc.start_ticks`), its logs."""

    name: str
    pid: int
    ticks: int
    logs: tuple[str, ...]


@dataclass(frozen=True)
class Cluster:
    """A cluster as its marker records it."""

    root: Path
    config: ClusterConfig
    ports: Ports
    daemons: tuple[Daemon, ...]
    state: str
    slurm_conf_sha256: str

    @property
    def layout(self) -> Layout:
        return Layout(self.root)

    @property
    def slurm_conf(self) -> Path:
        return self.layout.slurm_conf

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for Slurm's commands on this cluster (`base`, default ours, with ``SLURM_CONF``)."""
        return {**(os.environ if base is None else base), "SLURM_CONF": str(self.slurm_conf)}

    def running(self) -> list[Daemon]:
        return [daemon for daemon in self.daemons if _proc.alive(daemon.pid, daemon.ticks)]

    def to_json(self) -> str:
        config = asdict(self.config)
        return json.dumps({"kind": MARKER_KIND, "root": str(self.root), "state": self.state,
                           "slurm_conf_sha256": self.slurm_conf_sha256, "config": config,
                           "ports": asdict(self.ports), "daemons": [asdict(d) for d in self.daemons]}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> Cluster:
        data = json.loads(text)
        if data.get("kind") != MARKER_KIND:
            raise ValueError("not a fairsched cluster marker")
        config = data["config"]
        config["accounts"] = tuple(tuple(pair) for pair in config["accounts"])
        ports = data["ports"]
        ports["slurmd"] = tuple(ports["slurmd"])
        daemons = tuple(Daemon(d["name"], d["pid"], d["ticks"], tuple(d["logs"])) for d in data["daemons"])
        return cls(root=Path(data["root"]), config=ClusterConfig(**config), ports=Ports(**ports), daemons=daemons,
                   state=data["state"], slurm_conf_sha256=data["slurm_conf_sha256"])


def missing_packages(path: str | None = None) -> tuple[list[str], list[str]]:
    """(programs not found on `path` (default ``$PATH``), the Debian packages that bring them)."""
    missing = [name for name in BINARIES if shutil.which(name, path=path) is None]
    packages = [package for package in DEBIAN_PACKAGES if any(BINARIES[name] == package for name in missing)]
    return missing, packages


def _check_installed(env: Mapping[str, str]) -> dict[str, str]:
    missing, packages = missing_packages(env.get("PATH", os.defpath))
    if missing:
        raise ClusterError(f"Slurm is not installed here: {', '.join(missing)} not found on PATH; install Debian's "
                           f"packages {' '.join(packages)} (as root: apt-get install -y {' '.join(DEBIAN_PACKAGES)}); "
                           "fairsched installs nothing itself")
    if os.geteuid() != 0:
        raise ClusterError("a local Slurm cluster needs root: slurmd starts each job as its own user")
    return {name: str(shutil.which(name, path=env.get("PATH", os.defpath))) for name in BINARIES}


def load_cluster(root: str | Path) -> Cluster:
    """The cluster recorded in `root`'s marker; `ClusterError` when `root` holds none."""
    layout = Layout(Path(root).resolve())
    try:
        return Cluster.from_json(layout.marker.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ClusterError(f"{layout.root}: no cluster started by `fairsched slurm up` here (no {layout.marker})") \
            from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ClusterError(f"{layout.marker}: not a readable fairsched cluster marker ({exc})") from None


def _write_marker(cluster: Cluster) -> None:
    with atomic_write(cluster.layout.marker) as handle:
        handle.write(cluster.to_json())


def _prepare_dir(layout: Layout) -> None:
    """An empty or new directory, or one of ours whose daemons all stopped (its old files are removed)."""
    root = layout.root
    if layout.marker.is_file():
        old = load_cluster(root)
        if old.running():
            names = ", ".join(daemon.name for daemon in old.running())
            raise ClusterError(f"{root}: a cluster is already running there ({names}); stop it with "
                               f"`fairsched slurm down {root}` first")
        for path in layout.subdirs():
            shutil.rmtree(path, ignore_errors=True)
    elif root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ClusterError(f"{root}: not empty and not a cluster of `fairsched slurm up`; give a new or empty "
                           "directory (each cluster needs a fresh database and state directory)")
    for path in (root, *layout.subdirs()):
        path.mkdir(parents=True, exist_ok=True)
    for path in (root, layout.munge, layout.spool):  # searchable by all: munge's socket, the jobs' scripts
        path.chmod(0o755)


def _tcp_answers(port: int) -> Callable[[], bool]:
    def probe() -> bool:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as conn:
            conn.settimeout(0.5)
            return conn.connect_ex(("127.0.0.1", port)) == 0
    return probe


def _unix_answers(path: Path) -> Callable[[], bool]:
    def probe() -> bool:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(0.5)
            return conn.connect_ex(str(path)) == 0
    return probe


class _Starter:
    """Starts the daemons one by one, recording each in the marker before waiting for it to answer."""

    def __init__(self, layout: Layout, config: ClusterConfig, ports: Ports, bins: dict[str, str],
                 env: dict[str, str], timeout: float, progress: Callable[[str], None]) -> None:
        self.layout, self.bins, self.env, self.timeout, self.progress = layout, bins, env, timeout, progress
        digest = hashlib.sha256(layout.slurm_conf.read_bytes()).hexdigest()
        self.cluster = Cluster(root=layout.root, config=config, ports=ports, daemons=(), state=STARTING,
                               slurm_conf_sha256=digest)
        _write_marker(self.cluster)

    def start(self, name: str, argv: list[str], logs: tuple[Path, ...]) -> Daemon:
        out = self.layout.logs / f"{name.replace(' ', '-')}.out"
        pid, ticks = _proc.spawn([self.bins[argv[0]], *argv[1:]], env=self.env, log_path=out, cwd=self.layout.run)
        daemon = Daemon(name, pid, ticks, tuple(str(p) for p in (*logs, out)))
        self.cluster = _replace(self.cluster, daemons=(*self.cluster.daemons, daemon))
        _write_marker(self.cluster)
        return daemon

    def wait(self, daemons: list[Daemon], probe: Callable[[], bool], what: str) -> None:
        began = time.monotonic()

        def failed() -> str | None:
            for daemon in daemons:
                if not _proc.alive(daemon.pid, daemon.ticks):
                    return _died(daemon, self.cluster.ports)
            return None

        try:
            _proc.wait_until(probe, timeout=self.timeout, failed=failed)
        except ClusterError as exc:
            if str(exc).startswith("no answer"):
                tail = _proc.last_lines([Path(p) for p in daemons[0].logs])
                raise ClusterError(f"{what} did not answer within {self.timeout:g} s; last lines of its log: "
                                   f"{tail}") from None
            raise
        self.progress(f"{what} answers ({time.monotonic() - began:.1f} s)")

    def sacctmgr(self, *args: str) -> None:
        _proc.run([self.bins["sacctmgr"], "-i", *args], env=self.env, timeout=self.timeout, what="sacctmgr")


def _replace(cluster: Cluster, **changes: object) -> Cluster:
    return Cluster(**{**cluster.__dict__, **changes})


def _died(daemon: Daemon, ports: Ports) -> str:
    tail = _proc.last_lines([Path(p) for p in daemon.logs])
    busy = [f"{name} {port}" for name, port in ports.named() if port_in_use(port)] if "in use" in tail else []
    hint = f" (port in use: {', '.join(busy)}; run `fairsched slurm up` again, it picks free ports)" if busy else ""
    return f"{daemon.name} stopped during start-up{hint}; last lines of its log: {tail}"


def up(root: str | Path, config: ClusterConfig, *, ports: Ports | None = None, timeout: float = 60.0,
       progress: Callable[[str], None] | None = None) -> Cluster:
    """Start a private cluster in `root`; return it once every node is idle.

    Parameters
    ----------
    root : a new or empty directory, or one where an earlier cluster was stopped (its files are replaced).
    config : nodes, CPUs per node, Fair Tree or classic, half-life, accounts (`ClusterConfig`).
    ports : loopback ports to use; default: free ones picked now.
    timeout : seconds each daemon has to answer.
    progress : called with one line per step (the CLI prints them on stderr).

    Raises
    ------
    ClusterError : programs missing (naming the Debian packages), not root, a port in use, a daemon that stops
        or does not answer (with its log's last lines). Whatever had started is stopped first.
    """
    say = progress or (lambda _line: None)
    env = {key: value for key, value in os.environ.items() if key != "SLURM_CONF"}
    bins = _check_installed(env)
    layout = Layout(Path(root).resolve())
    layout.check_socket_paths()
    layout.check_searchable()
    ports = ports or free_ports(config)
    busy = [f"{name} {port}" for name, port in ports.named() if port_in_use(port)]
    if busy:
        raise ClusterError(f"port in use: {', '.join(busy)}; another program listens there (choose other ports, "
                           "or let `up` pick free ones)")
    _prepare_dir(layout)
    layout.slurm_conf.write_text(render_slurm_conf(layout, config, ports), encoding="utf-8")
    layout.slurmdbd_conf.write_text(render_slurmdbd_conf(layout, ports), encoding="utf-8")
    layout.slurmdbd_conf.chmod(0o600)  # slurmdbd refuses a configuration others can read
    layout.munge_key.write_bytes(os.urandom(1024))
    layout.munge_key.chmod(0o400)
    env.update({"SLURM_CONF": str(layout.slurm_conf), _proc.ENV_MARK: str(layout.root)})
    starter = _Starter(layout, config, ports, bins, env, timeout, say)
    try:
        _start_all(starter, layout, config, ports)
    except BaseException:
        _stop(starter.cluster, deadline=time.monotonic() + 10.0)
        _write_marker(_replace(starter.cluster, state=DOWN))
        raise
    cluster = _replace(starter.cluster, state=UP)
    _write_marker(cluster)
    return cluster


def _start_all(starter: _Starter, layout: Layout, config: ClusterConfig, ports: Ports) -> None:
    lay = layout
    munged = starter.start("munged", ["munged", "--foreground", "--force", f"--socket={lay.munge_socket}",
                                      f"--key-file={lay.munge_key}", f"--pid-file={lay.run}/munged.pid",
                                      f"--log-file={lay.logs}/munged.log", f"--seed-file={lay.munge}/munged.seed"],
                           (lay.logs / "munged.log",))
    starter.wait([munged], _unix_answers(lay.munge_socket), "munged")
    install = [starter.bins["mariadb-install-db"], *_MARIADB_OPTIONS, f"--datadir={lay.db_data}", "--user=root",
               "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve", *_MARIADB_SMALL]
    try:
        _proc.run(install, env=starter.env, timeout=starter.timeout, what="mariadb-install-db")
    except ClusterError as first:  # seen to abort now and then on a loaded machine; a clean second try succeeded
        log.warning("mariadb-install-db failed (%s); trying once more from an empty data directory", first)
        shutil.rmtree(lay.db_data, ignore_errors=True)
        lay.db_data.mkdir(parents=True, exist_ok=True)
        _proc.run(install, env=starter.env, timeout=starter.timeout, what="mariadb-install-db")
    mariadb = starter.start("mariadb", ["mariadbd", *_MARIADB_OPTIONS, f"--datadir={lay.db_data}", "--user=root",
                                        f"--port={ports.mariadb}", "--bind-address=127.0.0.1",
                                        f"--socket={lay.db_socket}", f"--pid-file={lay.run}/mariadb.pid",
                                        f"--log-error={lay.logs}/mariadb.log", "--skip-name-resolve",
                                        *_MARIADB_SMALL], (lay.logs / "mariadb.log",))
    starter.wait([mariadb], _tcp_answers(ports.mariadb), "mariadb")
    slurmdbd = starter.start("slurmdbd", ["slurmdbd", "-D"], (lay.logs / "slurmdbd.log",))
    starter.wait([slurmdbd], _tcp_answers(ports.slurmdbd), "slurmdbd")
    starter.sacctmgr("add", "cluster", CLUSTER_NAME)
    for name, shares in config.accounts:
        starter.sacctmgr("add", "account", name, f"Fairshare={shares}")
    slurmctld = starter.start("slurmctld", ["slurmctld", "-D"], (lay.logs / "slurmctld.log",))
    starter.wait([slurmctld], _controller_answers(starter), "slurmctld")
    slurmds = [starter.start(f"slurmd {node}", ["slurmd", "-D", "-N", node], (lay.logs / f"slurmd-{node}.log",))
               for node in config.node_names]
    starter.wait(slurmds, _nodes_idle(starter, config), f"{config.nodes} slurmd")


def _controller_answers(starter: _Starter) -> Callable[[], bool]:
    def probe() -> bool:
        done = _proc.run([starter.bins["scontrol"], "ping"], env=starter.env, timeout=10, check=False)
        return "is UP" in done.stdout
    return probe


def _nodes_idle(starter: _Starter, config: ClusterConfig) -> Callable[[], bool]:
    def probe() -> bool:
        done = _proc.run([starter.bins["sinfo"], "-h", "-N", "-o", "%N %T"], env=starter.env, timeout=10,
                         check=False)
        states = dict(line.split() for line in done.stdout.splitlines() if len(line.split()) == 2)
        return all(states.get(node) == "idle" for node in config.node_names)
    return probe


@dataclass(frozen=True)
class DownReport:
    """What `down` did: daemons stopped (name, whether SIGKILL was needed), leftover processes killed, seconds,
    the Linux users that replays had created and that were removed, and those that could not be (with why)."""

    stopped: tuple[tuple[str, bool], ...]
    leftovers: int
    seconds: float
    users_removed: tuple[str, ...] = ()
    users_kept: tuple[tuple[str, str], ...] = ()


def _stop(cluster: Cluster, *, deadline: float) -> tuple[list[tuple[str, bool]], int]:
    """Stop the recorded daemons in reverse order of start (slurmd together), then what they left (jobs)."""
    stopped = []
    groups: list[list[Daemon]] = []
    for daemon in cluster.daemons:  # consecutive slurmd form one group, stopped together
        if groups and daemon.name.startswith("slurmd ") and groups[-1][0].name.startswith("slurmd "):
            groups[-1].append(daemon)
        else:
            groups.append([daemon])
    for group in reversed(groups):
        running = [daemon for daemon in group if _proc.alive(daemon.pid, daemon.ticks)]
        for daemon in running:
            with contextlib.suppress(ProcessLookupError):
                os.kill(daemon.pid, 15)
        for daemon in running:
            budget = max(0.5, min(3.0, deadline - time.monotonic() - 1.0))
            stopped.append((daemon.name, _proc.stop(daemon.pid, daemon.ticks, timeout=budget)))
    leftovers = _proc.marked_processes(cluster.root)
    for pid in leftovers:
        _proc.stop(pid, _proc.start_ticks(pid), timeout=0.5)
    return stopped, len(leftovers)


def down(root: str | Path, *, timeout: float = 10.0) -> DownReport:
    """Stop every daemon `up` started in `root`, by its recorded pid, in reverse order; then jobs left behind.

    Each daemon gets SIGTERM, then SIGKILL when it has not exited within its share of `timeout`. The marker
    stays (state ``down``): the directory can be started again with `up`, on a fresh database.
    """
    began = time.monotonic()
    cluster = load_cluster(root)
    if cluster.running() and any(d.name == "slurmctld" for d in cluster.running()):
        _cancel_all_jobs(cluster)
    stopped, leftovers = _stop(cluster, deadline=began + timeout)
    _write_marker(_replace(cluster, state=DOWN))
    removed, kept = _remove_users(cluster.layout.users_created)
    return DownReport(tuple(stopped), leftovers, time.monotonic() - began, removed, kept)


def _remove_users(record: Path) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """``userdel`` every user listed in `record` (the users `replay` created here) that still exists.

    ``userdel`` refuses a user with a running process (a job of another cluster, say): that user is kept and
    named, and stays in `record` for the next `down`.
    """
    if not record.exists():
        return (), ()
    removed: list[str] = []
    kept: list[tuple[str, str]] = []
    for user in dict.fromkeys(record.read_text().split()):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        done = _proc.run(["userdel", user], env={"PATH": _proc.SBIN_PATH}, timeout=30, check=False)
        if done.returncode == 0:
            removed.append(user)
        else:
            kept.append((user, (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]))
    if kept:
        with atomic_write(record) as listing:
            listing.write("".join(user + "\n" for user, _ in kept))
    else:
        record.unlink()
    return tuple(removed), tuple(kept)



def _cancel_all_jobs(cluster: Cluster) -> None:
    """Best effort: ask slurmctld to cancel every job, so that the jobs end as cancelled in the accounting."""
    env = cluster.env()
    done = _proc.run(["squeue", "-h", "-o", "%A"], env=env, timeout=3, check=False)
    ids = done.stdout.split()
    if ids:
        _proc.run(["scancel", *ids], env=env, timeout=3, check=False)


def require_cluster(slurm_conf: str | Path | None) -> Cluster:
    """The running cluster of `slurm_conf` if `up` started it; `ClusterError` (one line) for any other.

    The check: the marker beside the file exists, names that directory, records this very file (its SHA-256)
    and says the cluster is up, and its slurmctld still runs under its recorded pid.
    """
    if not slurm_conf:
        raise ClusterError("SLURM_CONF is not set: start a local cluster with `fairsched slurm up DIR` and run "
                           "the `export SLURM_CONF=...` line it prints")
    conf = Path(slurm_conf).resolve()
    refuse = (f"refusing SLURM_CONF={slurm_conf}: it is not a cluster started by `fairsched slurm up`, and replay "
              "creates Linux users, Slurm accounts and jobs, so it only runs on such a private cluster")
    marker = conf.parent / Layout(conf.parent).marker.name  # beside slurm.conf
    try:
        cluster = Cluster.from_json(marker.read_text(encoding="utf-8"))
        digest = hashlib.sha256(conf.read_bytes()).hexdigest()
    except (OSError, ValueError, KeyError, TypeError):
        raise ClusterError(f"{refuse} (no marker {marker})") from None
    if cluster.slurm_conf != conf or cluster.slurm_conf_sha256 != digest:
        raise ClusterError(f"{refuse} (its marker records another slurm.conf, or the file was changed)")
    controller = [d for d in cluster.daemons if d.name == "slurmctld"]
    if cluster.state != UP or not controller or not _proc.alive(controller[0].pid, controller[0].ticks):
        raise ClusterError(f"the cluster in {cluster.root} is not running; start it with "
                           f"`fairsched slurm up {cluster.root}`")
    return cluster
