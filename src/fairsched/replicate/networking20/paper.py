"""Networking'20 §VII as the replication states it: the paper's claims (`PAPER`, ratios between PBA and a baseline)
and the configuration (`Networking20Config`).

Reference: M. Shafiee, J. Ghaderi, "On max-min fairness of completion times for multi-task job scheduling", IFIP
Networking 2020, §VII; the set-up is described in `fairsched.replicate.networking20.replication`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fairsched.replicate._common import SweepOptions

__all__ = ["PAPER", "Claim", "Networking20Config", "setting_name"]


@dataclass(frozen=True)
class Claim:
    """One ratio the paper states: ``metric`` of ``baseline`` vs PBA, oriented so that > 1 means PBA is better.

    ``kind``: "lower" (times, deviations: ratio = baseline / PBA), "higher" (utilities: PBA / baseline) or "same"
    (the paper says "almost the same": ratio = PBA / baseline, expected ≈ 1).
    """

    online: bool
    utilities: str
    metric: str
    baseline: str
    paper: float
    kind: str
    text: str


PAPER: tuple[Claim, ...] = (
    Claim(False, "equal", "mean", "sptf", 1.7, "lower", "average completion time 1.7× better than SPTF"),
    Claim(False, "equal", "mean", "fifo", 3.0, "lower", "average completion time 3× better than FIFO"),
    Claim(False, "equal", "std", "sptf", 1 / 0.65, "lower", "deviation 0.65 of SPTF's"),
    Claim(False, "equal", "std", "fifo", 1 / 0.65, "lower", "deviation 0.65 of FIFO's"),
    Claim(False, "linear", "min", "luf", 9.5, "higher", "worst utility 9.5× greater than LUF's"),
    Claim(False, "linear", "min", "fifo", 6.9, "higher", "worst utility 6.9× greater than FIFO's"),
    Claim(False, "linear", "std", "luf", 1.6, "lower", "utility deviation 1.6× lower than LUF's"),
    Claim(False, "linear", "std", "fifo", 1.4, "lower", "utility deviation 1.4× lower than FIFO's"),
    Claim(False, "linear", "mean", "luf", 1.0, "same", "almost the same average utility as LUF"),
    Claim(True, "equal", "mean", "sptf", 1.7, "lower", "average delay 1.7× better than SPTF"),
    Claim(True, "equal", "mean", "fifo", 3.3, "lower", "average delay 3.3× better than FIFO"),
    Claim(True, "equal", "q4_mean", "sptf", 1.9, "lower", "4th-quartile average delay 1.9× better than SPTF"),
    Claim(True, "equal", "q4_mean", "fifo", 1.7, "lower", "4th-quartile average delay 1.7× better than FIFO"),
    Claim(True, "linear", "min", "fifo", 1.9, "higher", "smallest utility 1.9× greater than FIFO's"),
    Claim(True, "linear", "min", "luf", 14.6, "higher", "smallest utility 14.6× greater than LUF's"),
    Claim(True, "linear", "std", "luf", 1.8, "lower", "utility deviation 1.8× lower than LUF's"),
    Claim(True, "linear", "std", "fifo", 1.3, "lower", "utility deviation 1.3× lower than FIFO's"),
)



@dataclass(frozen=True)
class Networking20Config(SweepOptions):
    """What `run` replicates; keyword fields with defaults, stored unchanged (checked by `run`).

    Attributes
    ----------
    traces_dir : directory holding ``google-clusterdata-2011-2``; None = ``$FAIRSCHED_TRACES``, else
        ../shared/traces.
    quick : 5 of the 10 parts; 50 instances for ``reach``.
    seed : the one seed (machine mapping, PBA's perturbation, the random instances).
    reach_instances : random instances for ``reach`` (None: 200, quick 50; 0 skips it).
    workers : worker processes (or Dask workers of a LocalCluster).
    executor, scheduler, store, resume : how the sweep runs (`fairsched.replicate._common.SweepOptions`).
    """

    traces_dir: Path | None = None
    quick: bool = False
    seed: int = 0
    reach_instances: int | None = None
    workers: int = 1


def setting_name(online: bool, utilities: str) -> str:
    return f"{'online' if online else 'offline'}-{utilities}"
