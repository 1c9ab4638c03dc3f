"""What a local cluster is made of: its options, its ports, its directory layout, and its configuration files.

Everything here is pure (text in, text out) except `free_ports` and `port_in_use`, which ask the kernel. The
files rendered are Slurm 22.05's ``slurm.conf`` and ``slurmdbd.conf`` (slurm.conf(5), slurmdbd.conf(5)); the
settings that matter for fair-share experiments, and why, are in docs/slurm.md.
"""

from __future__ import annotations

import contextlib
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path

from fairsched.errors import ConfigError, InputError

__all__ = ["CLUSTER_NAME", "PARTITION", "ClusterConfig", "Layout", "Ports", "free_ports", "parse_half_life",
           "port_in_use", "read_accounts_file", "render_slurm_conf", "render_slurmdbd_conf"]

CLUSTER_NAME = "fairsched"
PARTITION = "main"
ACCOUNT_NAME = re.compile(r"^[a-z0-9_][a-z0-9_.-]{0,63}$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_SOCKET_PATH_MAX = 107  # sun_path holds 108 bytes, the last one a NUL


def parse_half_life(text: str) -> int:
    """``--half-life``: seconds from ``90m``, ``2h``, ``7d``, ``3600`` (seconds) or ``7-0`` (Slurm's days-hours).

    Slurm keeps ``PriorityDecayHalfLife`` in whole minutes, so the value must be one; 0 turns the decay off.

    >>> parse_half_life("90m"), parse_half_life("7-0"), parse_half_life("600")
    (5400, 604800, 600)
    """
    text = text.strip().lower()
    match = re.fullmatch(r"(\d+)-(\d+)", text)
    if match:
        seconds = int(match.group(1)) * 86400 + int(match.group(2)) * 3600
    else:
        match = re.fullmatch(r"(\d+)([smhd]?)", text)
        if match is None:
            raise ConfigError(f"--half-life {text!r}: expected a duration such as 30m, 2h, 7d, 3600 (seconds) or "
                              "7-0 (Slurm's days-hours)")
        seconds = int(match.group(1)) * _UNITS[match.group(2) or "s"]
    if seconds % 60:
        raise ConfigError(f"--half-life {text!r} is {seconds} s; Slurm keeps PriorityDecayHalfLife in whole "
                          "minutes, so give a multiple of 60 s (e.g. 1m, 10m)")
    return seconds


def read_accounts_file(path: str | Path) -> tuple[tuple[str, int], ...]:
    """``--accounts FILE``: one account per line, ``NAME SHARES`` (or ``NAME,SHARES``); ``#`` starts a comment.

    Returns ((name, shares), ...) in file order; names are Slurm account names (lower case), shares positive.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", path=path) from None
    accounts: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        text = raw.split("#", 1)[0].replace(",", " ").split()
        if not text:
            continue
        if len(text) != 2 or not text[1].isdigit() or int(text[1]) < 1:
            raise InputError(f"{raw.strip()!r}: expected 'ACCOUNT SHARES' with SHARES a positive integer "
                             "(e.g. 'physics 40')", path=path, line=number)
        name = text[0]
        if not ACCOUNT_NAME.match(name):
            raise InputError(f"account {name!r}: Slurm account names are lower-case letters, digits, '_', '.', "
                             "'-' (at most 64)", path=path, line=number)
        if name in accounts:
            raise InputError(f"account {name!r} is given twice", path=path, line=number)
        accounts[name] = int(text[1])
    if not accounts:
        raise InputError("no account in the file; write one 'ACCOUNT SHARES' per line", path=path)
    return tuple(accounts.items())


@dataclass(frozen=True)
class ClusterConfig:
    """The options of ``fairsched slurm up``.

    Attributes
    ----------
    nodes : number of slurmd (nodes ``n1`` .. ``nN``), all on this host.
    cpus_per_node : CPUs each node declares (``SlurmdParameters=config_overrides``: not the host's).
    fair_tree : Fair Tree (Slurm's default since 19.05) when True, classic fair-share (``NO_FAIR_TREE``) otherwise.
    half_life : ``PriorityDecayHalfLife`` in seconds (whole minutes; 0 = no decay).
    accounts : ((account, shares), ...) created at start-up under root.
    """

    nodes: int = 4
    cpus_per_node: int = 4
    fair_tree: bool = True
    half_life: int = 7 * 86400
    accounts: tuple[tuple[str, int], ...] = field(default=())

    def __post_init__(self) -> None:
        if not 1 <= self.nodes <= 64:
            raise ConfigError(f"--nodes {self.nodes}: expected 1 to 64 (each node is one slurmd on this host)")
        if not 1 <= self.cpus_per_node <= 4096:
            raise ConfigError(f"--cpus-per-node {self.cpus_per_node}: expected 1 to 4096")
        if self.half_life < 0 or self.half_life % 60:
            raise ConfigError(f"half-life {self.half_life} s: expected whole minutes (a multiple of 60), or 0")

    @property
    def total_cpus(self) -> int:
        return self.nodes * self.cpus_per_node

    @property
    def node_names(self) -> tuple[str, ...]:
        return tuple(f"n{i}" for i in range(1, self.nodes + 1))


@dataclass(frozen=True)
class Ports:
    """Loopback TCP ports: MariaDB, slurmdbd, slurmctld, and one per slurmd."""

    mariadb: int
    slurmdbd: int
    slurmctld: int
    slurmd: tuple[int, ...]

    def named(self) -> list[tuple[str, int]]:
        fixed = [("mariadb", self.mariadb), ("slurmdbd", self.slurmdbd), ("slurmctld", self.slurmctld)]
        return fixed + [(f"slurmd n{i}", port) for i, port in enumerate(self.slurmd, start=1)]


@dataclass(frozen=True)
class Layout:
    """The files of a cluster under its directory `root` (all absolute)."""

    root: Path

    etc = property(lambda self: self.root / "etc")
    slurm_conf = property(lambda self: self.etc / "slurm.conf")
    slurmdbd_conf = property(lambda self: self.etc / "slurmdbd.conf")
    marker = property(lambda self: self.etc / "fairsched-cluster.json")
    users_created = property(lambda self: self.etc / "users-created.txt")  # by `replay`, removed by `down`
    munge = property(lambda self: self.root / "munge")
    munge_socket = property(lambda self: self.munge / "munge.socket")
    munge_key = property(lambda self: self.munge / "munge.key")
    db = property(lambda self: self.root / "db")
    db_data = property(lambda self: self.db / "data")
    db_socket = property(lambda self: self.db / "mysqld.sock")
    state = property(lambda self: self.root / "state")
    spool = property(lambda self: self.root / "spool")
    logs = property(lambda self: self.root / "log")
    run = property(lambda self: self.root / "run")

    def subdirs(self) -> tuple[Path, ...]:
        return (self.etc, self.munge, self.db, self.state, self.spool, self.logs, self.run)

    def check_searchable(self) -> None:
        """Jobs run as their own users, who must reach the job scripts under ``spool/``: every directory above
        `root` must be searchable by all (``o+x``), as /tmp and /var/tmp are, and pytest's ``tmp_path`` is not."""
        for parent in self.root.parents:
            if parent.exists() and not parent.stat().st_mode & 0o001:
                raise ConfigError(f"{self.root}: {parent} is not searchable by other users (mode "
                                  f"{parent.stat().st_mode & 0o777:o}), so the jobs, which run as their own "
                                  "users, could not reach their scripts; use a directory under /tmp or /var/tmp")

    def check_socket_paths(self) -> None:
        for path in (self.munge_socket, self.db_socket):
            if len(str(path)) > _SOCKET_PATH_MAX:
                raise ConfigError(f"{self.root}: the socket {path} would be {len(str(path))} characters; a Unix "
                                  f"socket path holds at most {_SOCKET_PATH_MAX}. Use a shorter directory")


def port_in_use(port: int) -> bool:
    """Whether a TCP `port` cannot be bound on every interface (the Slurm daemons listen on all of them)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("0.0.0.0", port))
        except OSError:
            return True
    return False


def free_ports(config: ClusterConfig) -> Ports:
    """Ports the kernel reports free now (bound together, then released: no two are the same)."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(3 + config.nodes):
            probe = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            probe.bind(("0.0.0.0", 0))
            ports.append(probe.getsockname()[1])
    return Ports(mariadb=ports[0], slurmdbd=ports[1], slurmctld=ports[2], slurmd=tuple(ports[3:]))


def _slurm_time(seconds: int) -> str:
    days, rest = divmod(seconds, 86400)
    return f"{days}-{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"


def render_slurm_conf(layout: Layout, config: ClusterConfig, ports: Ports) -> str:
    """``slurm.conf`` of the cluster: every path under `layout`, every daemon on the loopback address.

    >>> text = render_slurm_conf(Layout(Path("/c")), ClusterConfig(nodes=2, cpus_per_node=8), Ports(1, 2, 3, (4, 5)))
    >>> [line for line in text.splitlines() if line.startswith(("NodeName", "Priority", "AccountingStorageE"))]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['AccountingStorageEnforce=associations,limits', 'PriorityType=priority/multifactor',
     'PriorityDecayHalfLife=7-00:00:00', 'PriorityCalcPeriod=1', 'PriorityWeightFairshare=10000',
     'NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=4 CPUs=8 State=UNKNOWN',
     'NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=5 CPUs=8 State=UNKNOWN']
    """
    lay = layout
    lines = [
        "# Written by `fairsched slurm up`: a private test cluster (docs/slurm.md). Do not copy to a real one.",
        f"ClusterName={CLUSTER_NAME}",
        "SlurmctldHost=localhost(127.0.0.1)",
        f"SlurmctldPort={ports.slurmctld}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        f"AuthInfo=socket={lay.munge_socket}",
        f"StateSaveLocation={lay.state}",
        f"SlurmdSpoolDir={lay.spool}/%n",
        f"SlurmctldPidFile={lay.run}/slurmctld.pid",
        f"SlurmdPidFile={lay.run}/slurmd-%n.pid",
        f"SlurmctldLogFile={lay.logs}/slurmctld.log",
        f"SlurmdLogFile={lay.logs}/slurmd-%n.log",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "MpiDefault=none",
        "MailProg=/bin/true",
        "ReturnToService=2",
        "SchedulerType=sched/backfill",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU",
        "SlurmdParameters=config_overrides",
        "AccountingStorageType=accounting_storage/slurmdbd",
        "AccountingStorageHost=127.0.0.1",
        f"AccountingStoragePort={ports.slurmdbd}",
        f"AccountingStoragePass={lay.munge_socket}",  # the munge socket of the slurmdbd connection
        "AccountingStorageEnforce=associations,limits",  # without `limits`, short jobs never reach RawUsage
        "JobCompType=jobcomp/none",
        "PriorityType=priority/multifactor",
        *([] if config.fair_tree else ["PriorityFlags=NO_FAIR_TREE"]),
        f"PriorityDecayHalfLife={_slurm_time(config.half_life)}",
        # Slurm refuses a half-life of 0 without a reset period ("the priority plugin will result in rolling over")
        *([] if config.half_life else ["PriorityUsageResetPeriod=YEARLY"]),
        "PriorityCalcPeriod=1",
        "PriorityWeightFairshare=10000",
    ]
    for name, port in zip(config.node_names, ports.slurmd, strict=True):
        lines.append(f"NodeName={name} NodeHostname=localhost NodeAddr=127.0.0.1 Port={port} "
                     f"CPUs={config.cpus_per_node} State=UNKNOWN")
    lines.append(f"PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def render_slurmdbd_conf(layout: Layout, ports: Ports) -> str:
    """``slurmdbd.conf``: the private MariaDB on the loopback port, the database ``slurm_acct_db``."""
    lay = layout
    return "\n".join([
        "# Written by `fairsched slurm up` (docs/slurm.md).",
        "AuthType=auth/munge",
        f"AuthInfo=socket={lay.munge_socket}",
        "DbdHost=localhost",
        "DbdAddr=127.0.0.1",
        f"DbdPort={ports.slurmdbd}",
        "SlurmUser=root",
        f"LogFile={lay.logs}/slurmdbd.log",
        f"PidFile={lay.run}/slurmdbd.pid",
        "StorageType=accounting_storage/mysql",
        "StorageHost=127.0.0.1",
        f"StoragePort={ports.mariadb}",
        "StorageUser=root",
        "StorageLoc=slurm_acct_db",
    ]) + "\n"
