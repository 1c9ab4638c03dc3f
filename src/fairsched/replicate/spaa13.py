"""Replication of SPAA'13 §6.3: Δψ/p_tot against REF for k = 2..10 organizations (Figs. 4–5) and on two traces.

Reference: P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013
(long version, arXiv 1302.0948), §6.2–6.3. Set-up, as replicated here (`fairsched.replicate._online_windows`
does the work):

* §6.3.1, Figs. 4–5 (``parts`` contains ``"fig"``): LPC-EGEE truncated to its first 5·10^6 s (t_end = 5·10^6);
  k organizations (`KS`); 17 and 30 machines (Fig. 4), and 170 and 300 machines with release times × 0.1
  (Fig. 5; the horizon stays 5·10^6 s); machines split uniformly and by Zipf; ROUNDROBIN, RAND (N = 15 and 75),
  DIRECTCONTR. The window is fixed, so each point averages ``seeds`` scenario seeds (users → organizations,
  machine split, RAND's orderings); the paper does not say how many runs a point averages.
  The paper reports only averages over all points (ROUNDROBIN 42120, RAND 91 / 79, DIRECTCONTR 480): the
  ``"fig4-5 average"`` rows compare those with our mean over every (configuration, k, seed).
* §6.3.2, table (``parts`` contains ``"table"``): LPC-EGEE (70 machines) and RICC (8192), 5 organizations,
  uniform split, windows of 5·10^5 s with random starts (the paper says "non-overlapping", which 100 windows of
  5·10^5 s in these traces cannot be: starts here are independent draws); RAND (N = 15), DIRECTCONTR, ROUNDROBIN.
* PIK-IPLEX and SHARCNET-Whale are not available (the result's notes say so).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError
from fairsched.replicate._online_windows import (
    DIRECTCONTR,
    RAND15,
    RAND75,
    REF,
    REF_NOTE,
    ROUNDROBIN,
    TRACES,
    UNAVAILABLE_NOTE,
    Cell,
    ProgressCallback,
    ReplicationResult,
    bar_figure,
    check_common,
    check_names,
    k_figure,
    load_traces,
    measure,
    summarize,
    to_json,
    write_outputs,
)

__all__ = [
    "FIG_CONFIGS",
    "KS",
    "PAPER_FIG",
    "PAPER_TABLE",
    "QUICK_KS",
    "ReplicationResult",
    "SPAA13Config",
    "run",
    "to_json",
]

PAPER_NAME = "SPAA'13"
FIG_LENGTH = 5_000_000
TABLE_LENGTH = 500_000
KS: tuple[int, ...] = tuple(range(2, 11))
QUICK_KS: tuple[int, ...] = (2, 4, 6, 8, 10)
# (figure, machines, release scale) of §6.3.1; each is run with the uniform and the Zipf split.
FIG_CONFIGS: tuple[tuple[str, int, float], ...] = (("fig4", 17, 1.0), ("fig4", 30, 1.0), ("fig5", 170, 0.1),
                                                   ("fig5", 300, 0.1))
FIG_POLICIES = (ROUNDROBIN, RAND15, RAND75, DIRECTCONTR, REF)
TABLE_POLICIES = (RAND15, DIRECTCONTR, ROUNDROBIN, REF)
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
class SPAA13Config:
    """What `run` replicates; keyword fields with defaults, stored unchanged (checked by `run`).

    Attributes
    ----------
    traces_dir : directory of the trace files; None = ``$FAIRSCHED_TRACES``, else ``../shared/traces``.
    quick : figures at k in `QUICK_KS` with 2 seeds per point (instead of `KS` with 10), table with 10 windows
        per trace (instead of 100).
    jobs : worker processes the windows are spread over.
    seed : the one seed (window start times, users → organizations, machine split, RAND's orderings).
    out_dir : if given, write ``spaa13_table.csv``, ``spaa13_windows.csv``, ``spaa13_fig45.png`` and
        ``spaa13_workloads.png`` (§6.3.2) there.
    parts : ``"fig"`` (§6.3.1, Figs. 4–5) and/or ``"table"`` (§6.3.2).
    traces : traces of the table part (the figures use LPC-EGEE only, as the paper).
    ks : organization counts of the figures (None = by ``quick``).
    seeds : scenario seeds per figure point (None = by ``quick``).
    windows : windows per trace in the table (None = by ``quick``).
    fig_configs : (figure, machines, release scale) of the figures (default `FIG_CONFIGS`).
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


def cells(config: SPAA13Config) -> list[Cell]:
    """Figure cells (configuration × split × k), then table cells (trace), in that order."""
    out: list[Cell] = []
    if "fig" in config.parts:
        ks = config.ks if config.ks is not None else (QUICK_KS if config.quick else KS)
        seeds = config.seeds if config.seeds is not None else (2 if config.quick else 10)
        out += [Cell(paper=PAPER_NAME, table=figure, trace="LPC-EGEE", window_length=FIG_LENGTH, split=split,
                     orgs=k, machines=machines, policies=FIG_POLICIES, windows=seeds, release_scale=scale,
                     fixed_start=True)
                for figure, machines, scale in config.fig_configs for split in ("uniform", "zipf") for k in ks]
    if "table" in config.parts:
        windows = config.windows if config.windows is not None else (10 if config.quick else 100)
        out += [Cell(paper=PAPER_NAME, table="table", trace=trace, window_length=TABLE_LENGTH, split="uniform",
                     orgs=5, machines=TRACES[trace].machines, policies=TABLE_POLICIES, windows=windows,
                     paper_values=tuple(PAPER_TABLE[trace].items()))
                for trace in config.traces]
    return out


def run(config: SPAA13Config, *, progress: ProgressCallback | None = None) -> ReplicationResult:
    """Replicate SPAA'13 §6.3.1 (Figs. 4–5) and §6.3.2 (table) as configured (module docstring).

    Cost: REF simulates 2^k − 1 coalitions; at k = 10 on the 5·10^6 s figure window one REF run takes about
    15 s, which dominates the figures. ``quick`` takes a few minutes on 2 cores (docs/replication/spaa13.md).

    Raises
    ------
    ConfigError : a missing trace (naming the file and the directory searched), or bad options.
    """
    started = time.perf_counter()
    _check(config)
    the_cells = cells(config)
    workloads = load_traces([cell.trace for cell in the_cells], config.traces_dir)
    rows, per_window = measure(the_cells, workloads, seed=config.seed, jobs=config.jobs, progress=progress)
    if "fig" in config.parts:
        rows += _fig_average_rows(per_window)
    result = ReplicationResult(paper=PAPER_NAME, config=config, rows=rows, per_window=per_window,
                               notes=[UNAVAILABLE_NOTE, REF_NOTE], elapsed_s=time.perf_counter() - started)
    if config.out_dir is not None:
        figures = {}
        if "fig" in config.parts:
            figures["fig45"] = k_figure([r for r in rows if r["table"] in ("fig4", "fig5")],
                                        "SPAA'13 Figs. 4–5: Δψ/p_tot against k (LPC-EGEE, first 5·10^6 s)")
        if "table" in config.parts:
            figures["workloads"] = bar_figure([r for r in rows if r["table"] == "table"],
                                          "SPAA'13 §6.3.2: Δψ/p_tot against REF (ours vs paper)")
        files = write_outputs(result, config.out_dir, "spaa13", figures)
        result = ReplicationResult(**{**result.__dict__, "files": files})
    return result


def _fig_average_rows(per_window: pd.DataFrame) -> list[dict[str, Any]]:
    """Mean over every (configuration, k, seed) of the figures, per policy, beside the paper's averages."""
    fig = per_window[per_window["table"].isin(["fig4", "fig5"])]
    rows = []
    for spec in FIG_POLICIES:
        ratios = fig.loc[fig["policy"] == spec.label, "ratio"].to_numpy(dtype=np.float64)
        paper_mean, paper_std = PAPER_FIG.get(spec.label, (None, None))
        rows.append({"paper": PAPER_NAME, "table": FIG_AVERAGE, "trace": "LPC-EGEE", "window_length": FIG_LENGTH,
                     "split": "all", "orgs": None, "machines": None, "policy": spec.label, **summarize(ratios),
                     "paper_mean": paper_mean, "paper_std": paper_std})
    return rows


def _check(config: SPAA13Config) -> None:
    check_common(config.jobs, config.seed, config.windows)
    check_common(1, 0, config.seeds)
    check_names("parts", config.parts, ("fig", "table"))
    check_names("traces", config.traces, TRACES)
    if config.ks is not None and (not config.ks or any(not isinstance(k, int) or k < 1 for k in config.ks)):
        raise ConfigError(f"ks={config.ks!r}: expected a non-empty tuple of organization counts >= 1")
