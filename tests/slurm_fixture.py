"""A real Slurm for the test suite, started and stopped like a database in pytest-postgresql (STYLE.md 2.9).

`slurm_cluster` (session scope) starts the whole stack once — munged, MariaDB, slurmdbd, slurmctld, four slurmd —
from a temporary directory with free ports, through `fairsched.slurm.up` (each daemon started only when the
previous one answers), and in teardown stops every daemon it started by its recorded pid, whatever the tests
did. `slurm_client` (function scope) hands a test that cluster with an empty queue.

Where Debian's packages are missing, the fixture installs them with apt-get (as `.ci/run` does); tests are
skipped, with the reason, only where that cannot be done (no apt-get, or not root).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairsched.slurm import Cluster, ClusterConfig, down, missing_packages, up
from fairsched.slurm.cluster import DEBIAN_PACKAGES
from fairsched.slurm.config import Layout

SESSION_CONFIG = ClusterConfig(nodes=4, cpus_per_node=24)
INSTALL = Path(__file__).resolve().parents[1] / ".ci" / "install-slurm"  # the one install recipe, shared with CI


@functools.cache
def slurm_unavailable() -> str | None:
    """None when Slurm's programs are here (installed now by .ci/install-slurm if needed); else why to skip."""
    missing, _ = missing_packages()
    if not missing:
        return None
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        return (f"Slurm is not installed ({', '.join(missing)} missing from PATH) and apt-get is not available as "
                f"root to install {' '.join(DEBIAN_PACKAGES)}")
    done = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True, check=False)
    missing, _ = missing_packages()
    assert not missing, f"{INSTALL} could not install Slurm ({', '.join(missing)} missing): {done.stderr[-500:]}"
    return None


def stop_cluster(root: Path) -> None:
    """Teardown: stop whatever `up` recorded in `root` (nothing when it never wrote its marker)."""
    if Layout(root).marker.is_file():
        down(root)


@contextlib.contextmanager
def cluster_dir() -> Iterator[Path]:
    """A directory for one cluster under /tmp (the jobs' users must reach it: pytest's tmp_path is private), whose
    daemons are stopped and which is removed on exit, whatever happened."""
    root = Path(tempfile.mkdtemp(prefix="fairsched-slurm-", dir="/tmp"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        stop_cluster(root)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def slurm_cluster() -> Iterator[Cluster]:
    reason = slurm_unavailable()
    if reason is not None:
        pytest.skip(reason)
    with cluster_dir() as root:
        yield up(root, SESSION_CONFIG, timeout=120)


@pytest.fixture
def slurm_dir() -> Iterator[Path]:
    """A directory for a test's own cluster (`cluster_dir`); the test is skipped where Slurm cannot be had."""
    reason = slurm_unavailable()
    if reason is not None:
        pytest.skip(reason)
    with cluster_dir() as root:
        yield root


@pytest.fixture
def slurm_client(slurm_cluster: Cluster) -> Cluster:
    """The session's cluster, with no job queued or running (cancelled: each test starts from an empty queue)."""
    env = slurm_cluster.env()
    queued = subprocess.run(["squeue", "-h", "-o", "%A"], env=env, capture_output=True, text=True,
                            check=True).stdout.split()
    if queued:
        subprocess.run(["scancel", *queued], env=env, check=True)
    return slurm_cluster
