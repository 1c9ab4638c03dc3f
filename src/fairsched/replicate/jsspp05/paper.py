"""JSSPP'05 §4–§5 as the replication runs it: the traces, loads, queue orders and reservation depths, the paper's
Tables 1 and 2, and the configuration (`JSSPP05Config`) with its checks.

Reference: G. Sabin, P. Sadayappan, "Unfairness metrics for space-sharing parallel job schedulers", JSSPP 2005
(LNCS 3834); the set-up is described in `fairsched.replicate.jsspp05.replication`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairsched.backfill.policies import get_backfill, get_order
from fairsched.errors import ConfigError
from fairsched.replicate._common import SweepOptions

# Paper name -> file in the traces directory (../shared/traces/SOURCES.md).
TRACES: dict[str, str] = {
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "OSC": "OSC-Clust-2000-3.1-cln.swf.gz",
}
LOADS: tuple[float, ...] = (0.70, 0.80, 0.90, 0.95, 0.98)
ORDERS: tuple[str, ...] = ("fcfs", "sjf", "lxf")
DEPTHS: tuple[str, ...] = ("no-guarantee", "easy", "conservative")
METRICS: tuple[str, ...] = ("fst_strict", "fst_relaxed", "re")
WIDTH_LOADS: tuple[float, ...] = (0.80, 0.95)  # the paper's "medium" and "high" loads of the width figures
# --quick: the two traces the paper shows, at its medium and high loads (18 simulations per trace).
QUICK_TRACES: tuple[str, ...] = ("CTC-SP2", "SDSC-BLUE")
QUICK_LOADS: tuple[float, ...] = WIDTH_LOADS
# --grid osc: the full grid (3 orders × 3 depths × 5 loads) on OSC alone, the trace the paper names but whose
# conservative what-ifs cost the most (docs/replication/jsspp05.md, "OSC").
OSC_GRID: tuple[str, ...] = ("OSC",)
GRIDS: tuple[str, ...] = ("paper", "osc")
ALL_WIDTHS = "all"
SUBSET_SCHEMES: tuple[str, ...] = ("interleaved", "blocks")
# JSSPP'05 Table 1 (jobs per width bin), as printed; "SDSC" is SDSC Blue (the trace §4 says it shows, beside CTC).
PAPER_TABLE1: dict[str, tuple[int, ...]] = {"CTC-SP2": (2209, 435, 722, 487, 609, 309, 157, 45, 30),
                                            "SDSC-BLUE": (3, 0, 0, 2489, 653, 569, 616, 396, 277)}
# §5.1, Table 2: the paper's Spearman rho of subsets 0..9 against all jobs, per trace and metric. It has two traces
# only, CTC and SDSC (SDSC Blue, the trace its figures show beside CTC).
PAPER_TABLE2: dict[tuple[str, str], tuple[float, ...]] = {
    ("CTC-SP2", "fst_strict"): (0.96, 0.97, 0.93, 0.93, 0.95, 0.94, 0.97, 0.96, 0.98, 0.94),
    ("CTC-SP2", "fst_relaxed"): (0.96, 0.95, 0.87, 0.76, 0.85, 0.83, 0.96, 0.97, 0.91, 0.95),
    ("CTC-SP2", "re"): (0.96, 0.97, 0.89, 0.88, 0.88, 0.91, 0.98, 0.97, 0.95, 0.96),
    ("SDSC-BLUE", "fst_strict"): (0.95, 0.98, 0.97, 0.97, 0.97, 0.96, 0.97, 0.99, 0.94, 0.85),
    ("SDSC-BLUE", "fst_relaxed"): (0.91, 0.96, 0.96, 0.98, 0.97, 0.95, 0.96, 0.98, 0.88, 0.74),
    ("SDSC-BLUE", "re"): (0.93, 0.98, 0.96, 0.98, 0.97, 0.98, 0.95, 0.97, 0.93, 0.76),
}


@dataclass(frozen=True)
class JSSPP05Config(SweepOptions):
    """What `run` replicates; keyword fields with defaults, stored unchanged (checked by `run`).

    Attributes
    ----------
    traces_dir : directory holding the `TRACES` files; None = ``$FAIRSCHED_TRACES``, else ``../shared/traces``
        beside the project (`default_traces_dir`).
    traces : paper names of the traces to use, from `TRACES`.
    subset_size : jobs per trace (the first ones after cleaning; the paper uses 5000).
    loads : offered loads to reach by runtime expansion.
    orders, depths : queue orders and reservation depths (backfilling rules) simulated, all combinations.
    n_subsets : arrival-order subsets of Table 2.
    subset_scheme : how jobs are dealt into those subsets: ``interleaved`` (job i to subset i mod n_subsets) or
        ``blocks`` (consecutive stretches); see `fairsched.replicate.jsspp05.replication`.
    workers : worker processes (1 = in this process) or Dask workers of a LocalCluster.
    executor, scheduler, store, resume : how the sweep runs (`fairsched.replicate._common.SweepOptions`).
    """

    traces_dir: Path | None = None
    traces: tuple[str, ...] = tuple(TRACES)
    subset_size: int = 5000
    loads: tuple[float, ...] = LOADS
    orders: tuple[str, ...] = ORDERS
    depths: tuple[str, ...] = DEPTHS
    n_subsets: int = 10
    subset_scheme: str = "interleaved"
    workers: int = 1

    @classmethod
    def quick(cls, **overrides: Any) -> JSSPP05Config:
        """``--quick``: CTC-SP2 and SDSC-BLUE at 80 % and 95 % only (`QUICK_TRACES`, `QUICK_LOADS`)."""
        return cls(**{"traces": QUICK_TRACES, "loads": QUICK_LOADS, **overrides})

    @classmethod
    def osc(cls, **overrides: Any) -> JSSPP05Config:
        """``--grid osc``: every load, order and depth on OSC alone (`OSC_GRID`, 45 simulations)."""
        return cls(**{"traces": OSC_GRID, **overrides})


def check_config(config: JSSPP05Config) -> None:
    """ConfigError naming the first option out of range (unknown trace, order or depth, load outside (0, 1), ...)."""
    unknown = [name for name in config.traces if name not in TRACES]
    if unknown or not config.traces:
        raise ConfigError(f"traces={config.traces!r}: choose one or more of {', '.join(TRACES)}")
    for name in config.orders:
        get_order(name)
    for name in config.depths:
        get_backfill(name)
    if not (config.loads and config.orders and config.depths):
        raise ConfigError("loads, orders and depths must each name at least one value")
    if any(not (0 < load < 1) for load in config.loads):
        raise ConfigError(f"loads={config.loads!r}: expected offered loads in (0, 1), e.g. 0.7, 0.98")
    for name, value, least in (("subset_size", config.subset_size, 2), ("n_subsets", config.n_subsets, 1),
                               ("workers", config.workers, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ConfigError(f"{name}={value!r}: expected an integer >= {least}")
    if config.n_subsets > config.subset_size:
        raise ConfigError(f"n_subsets={config.n_subsets} exceeds subset_size={config.subset_size}: each "
                          "arrival-order subset needs at least one job")
    if config.subset_scheme not in SUBSET_SCHEMES:
        raise ConfigError(f"subset_scheme={config.subset_scheme!r}: choose one of {', '.join(SUBSET_SCHEMES)}")
