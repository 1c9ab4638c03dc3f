"""Preload of the workers of the Dask LocalCluster that ``--executor dask`` starts (`fairsched.sweep.executors`).

A Ctrl-C in a terminal sends SIGINT to the whole process group, the LocalCluster's worker processes included:
each would die printing a KeyboardInterrupt traceback. As with the local executor, the workers ignore SIGINT and
the main process stops them (it closes the cluster when the KeyboardInterrupt reaches it).
"""

from __future__ import annotations

import signal
from typing import Any


def dask_setup(worker: Any) -> None:
    """Called by Dask in each worker process as it starts (the worker's main thread): ignore SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
