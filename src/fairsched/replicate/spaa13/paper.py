"""SPAA'13 §6.3 as the replication runs it: the figures' and the table's set-up, the policies of each, the paper's
averages and table, and the configuration (`SPAA13Config`) with its checks.

Reference: P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013
(long version, arXiv 1302.0948), §6.2–6.3; the set-up is described in `fairsched.replicate.spaa13.replication`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fairsched.errors import ConfigError
from fairsched.replicate._common import SweepOptions
from fairsched.replicate._online_windows import (
    DIRECTCONTR,
    FAIRSHARE,
    RAND15,
    RAND75,
    REF,
    ROUNDROBIN,
    TRACES,
    UTFAIRSHARE,
    PolicySpec,
    check_common,
    check_names,
    trace_file,
)

PAPER_NAME = "SPAA'13"
PARTS = ("fig4", "fig5", "table")
FIG_LENGTH = 5_000_000
TABLE_LENGTH = 500_000
RAND15_PRINTED = PolicySpec("RAND printed (N=15)", "rand", (("n_orderings", 15), ("estimator", "printed")))
RAND75_PRINTED = PolicySpec("RAND printed (N=75)", "rand", (("n_orderings", 75), ("estimator", "printed")))
FIG_POLICIES: tuple[PolicySpec, ...] = (ROUNDROBIN, RAND15, RAND75, DIRECTCONTR, RAND15_PRINTED, RAND75_PRINTED,
                                        REF)
TABLE_POLICIES: tuple[PolicySpec, ...] = (RAND15, DIRECTCONTR, ROUNDROBIN, FAIRSHARE, UTFAIRSHARE, RAND15_PRINTED,
                                          REF)
KS: tuple[int, ...] = tuple(range(2, 11))
QUICK_KS: tuple[int, ...] = (2, 4, 6, 8, 10)
CHUNK = 10  # table windows per sweep cell
# (figure, machines, release scale) of §6.3.1; each is run with the uniform and the Zipf split.
FIG_CONFIGS: tuple[tuple[str, int, float], ...] = (("fig4", 17, 1.0), ("fig4", 30, 1.0), ("fig5", 170, 0.1),
                                                   ("fig5", 300, 0.1))
SPLITS = ("uniform", "zipf")
FIG_AVERAGE = "fig4-5 average"
# §6.3.1, items 1–3: averages over all points of Figs. 4–5 (no standard deviation given).
PAPER_FIG: dict[str, tuple[float, float | None]] = {
    "ROUNDROBIN": (42120, None), "RAND (N=15)": (91, None), "RAND (N=75)": (79, None), "DIRECTCONTR": (480, None)}
# §6.3.2 table, mean (stdev) over 100 windows of 5·10^5 s.
PAPER_TABLE: dict[str, dict[str, tuple[float, float]]] = {
    "LPC-EGEE": {"RAND (N=15)": (161, 435), "DIRECTCONTR": (218, 659), "ROUNDROBIN": (3774, 14244)},
    "RICC": {"RAND (N=15)": (791, 1348), "DIRECTCONTR": (1520, 3765), "ROUNDROBIN": (7560, 9226)},
}


@dataclass(frozen=True)
class SPAA13Config(SweepOptions):
    """What `run` replicates; keyword fields with defaults, stored unchanged (checked by `run`).

    Attributes
    ----------
    traces_dir : directory of the trace files; None = ``$FAIRSCHED_TRACES``, else ``../shared/traces``.
    quick : figures at k in `QUICK_KS` with 2 seeds per point (instead of `KS` with 10), table with 10 windows
        per trace and split (instead of 100).
    jobs : worker processes the sweep cells are spread over.
    seed : the one seed (window start times, users → organizations, machine split, RAND's orderings).
    out_dir : if given, write ``spaa13_table.csv``, ``spaa13_windows.csv``, ``spaa13_fig45.png`` and
        ``spaa13_workloads.png`` (§6.3.2) there.
    parts : ``"fig"`` (§6.3.1, Figs. 4–5) and/or ``"table"`` (§6.3.2).
    traces : traces of the table part (the figures use LPC-EGEE only, as the paper).
    ks : organization counts of the figures (None = by ``quick``).
    seeds : scenario seeds per figure point (None = by ``quick``).
    windows : windows per trace and split in the table (None = by ``quick``).
    fig_configs : (figure, machines, release scale) of the figures (default `FIG_CONFIGS`).
    splits : machine splits of the table (the paper's is uniform; Zipf is the PPAM'13 ablation).
    executor, scheduler, store, resume : how the sweeps run (`fairsched.replicate._common.SweepOptions`); the
        stores go to ``<store>/figs`` and ``<store>/table``.
    """

    traces_dir: Path | None = None
    quick: bool = False
    jobs: int = 1
    seed: int = 0
    out_dir: Path | None = None
    parts: tuple[str, ...] = ("fig", "table")
    traces: tuple[str, ...] = ("LPC-EGEE", "RICC")
    ks: tuple[int, ...] | None = None
    seeds: int | None = None
    windows: int | None = None
    fig_configs: tuple[tuple[str, int, float], ...] = FIG_CONFIGS
    splits: tuple[str, ...] = SPLITS


def check_config(config: SPAA13Config) -> None:
    """ConfigError naming the first option out of range, or a missing trace, before any sweep starts."""
    check_common(config.jobs, config.seed, config.windows)
    check_common(1, 0, config.seeds)
    check_names("parts", config.parts, ("fig", "table"))
    check_names("traces", config.traces, TRACES)
    check_names("splits", config.splits, SPLITS)
    if config.ks is not None and (not config.ks or any(not isinstance(k, int) or k < 1 for k in config.ks)):
        raise ConfigError(f"ks={config.ks!r}: expected a non-empty tuple of organization counts >= 1")
    for trace in dict.fromkeys((("LPC-EGEE",) if "fig" in config.parts else ()) + (
            config.traces if "table" in config.parts else ())):
        trace_file(config.traces_dir, trace)  # a missing trace is named before any sweep starts
