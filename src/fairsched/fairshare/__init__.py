"""Slurm's fair-share arithmetic as pure functions: Fair Tree, classic fair-share, usage decay, job priority.

A lower layer: it imports nothing above `fairsched.workload` (whose `share_tree` holds the association tree and
whose `sshare` reads it from files), so engines' policies and reports can build on it. docs/fairshare.md gives
the formulas and what follows Slurm's code.
"""

from __future__ import annotations

from fairsched.errors import ConfigError
from fairsched.fairshare.classic import classic
from fairsched.fairshare.decay import DecayConfig, UsageJob, replay_usage
from fairsched.fairshare.fair_tree import fair_tree
from fairsched.fairshare.priority import PriorityConfig, job_priority, queue_order
from fairsched.fairshare.result import ALGORITHMS, Algorithm, FairShareRow, FairShareTable
from fairsched.workload.share_tree import ShareTree

__all__ = ["ALGORITHMS", "Algorithm", "DecayConfig", "FairShareRow", "FairShareTable", "PriorityConfig",
           "UsageJob", "classic", "compute_fairshare", "fair_tree", "job_priority", "queue_order", "replay_usage"]


def compute_fairshare(tree: ShareTree, *, algorithm: str = "fair-tree", damping: float | None = None) -> FairShareTable:
    """Every association's fair-share under `algorithm` ("fair-tree" or "classic"), as ``sshare -a -l`` shows it.

    `damping` is FairShareDampeningFactor (classic only; default 1). Raises `ConfigError` for an unknown
    algorithm, or a damping factor with Fair Tree (which has none).
    """
    if algorithm == "fair-tree":
        if damping is not None and damping != 1:
            raise ConfigError("--damping (FairShareDampeningFactor) applies to --algorithm classic only; "
                              "Fair Tree does not use it")
        return fair_tree(tree)
    if algorithm == "classic":
        return classic(tree, damping=1.0 if damping is None else damping)
    raise ConfigError(f"unknown fair-share algorithm {algorithm!r}; choose one of: {', '.join(ALGORITHMS)}")
