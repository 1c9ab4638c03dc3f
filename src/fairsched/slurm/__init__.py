"""A real Slurm in the loop: a private local cluster (`up`, `down`) and the replay of a log on it (`replay`).

This package talks to Slurm only through its programs (the daemons' binaries and the client commands
``sacctmgr``, ``sbatch``, ``squeue``, ``sacct``, ``sshare``, ``scancel``, ``scontrol``, ``sinfo``) of Debian's
packages ``slurm-wlm``, ``slurmdbd``, ``mariadb-server`` and ``munge`` (Slurm 22.05). See docs/slurm.md.
"""

from fairsched.slurm.cluster import Cluster, DownReport, down, load_cluster, missing_packages, require_cluster, up
from fairsched.slurm.config import ClusterConfig, Ports, parse_half_life, read_accounts_file

__all__ = ["Cluster", "ClusterConfig", "DownReport", "Ports", "down", "load_cluster", "missing_packages",
           "parse_half_life", "read_accounts_file", "require_cluster", "up"]
