"""Replication of PPAM'13 Fig. 1: Δψ/p_tot of the six policies against the number of organizations, LPC-EGEE.

Reference: P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with cooperative
game theory", PPAM 2013 (LNCS 8385), §5.2, last paragraph and Fig. 1 ("As the number of organizations increases,
the unfairness ratio Δψ/p_tot grows"). The paper gives neither the window length nor the split of Fig. 1, and our
copy has no figure; we use the windows of Table 2 (5·10^5 s, the "long runs" where the policies differ) with the
switches of `PPAM13Config` (so the split and every PPAM'13 ablation apply), k = `KS` organizations.
"""

from __future__ import annotations

import time
from dataclasses import replace

from fairsched.replicate._online_plots import k_figure, write_outputs
from fairsched.replicate._online_windows import (
    Cell,
    OnlineReplicationResult,
    ProgressCallback,
    load_traces,
    measure,
)
from fairsched.replicate.ppam13.paper import TABLES, PPAM13Config, check_config
from fairsched.replicate.ppam13.paper import cells as window_cells

__all__ = ["KS", "QUICK_KS", "run_fig1"]

KS: tuple[int, ...] = tuple(range(2, 11))
QUICK_KS: tuple[int, ...] = (2, 4, 6, 8, 10)
WINDOW_LENGTH = TABLES["table2"]
TRACE = "LPC-EGEE"


def cells(config: PPAM13Config, ks: tuple[int, ...]) -> list[Cell]:
    """One cell per (split, k) on LPC-EGEE, the windows of Table 2 (same starts for every k and split)."""
    table2 = replace(config, tables=("table2",), traces=(TRACE,))
    return [replace(cell, table="fig1", orgs=k, paper_values=()) for cell in window_cells(table2) for k in ks]


def run_fig1(config: PPAM13Config, ks: tuple[int, ...] | None = None, *,
             progress: ProgressCallback | None = None) -> OnlineReplicationResult:
    """Δψ/p_tot per (split, k, policy) over the config's windows; ``ks`` None = `QUICK_KS` if quick else `KS`.

    Writes ``ppam13_fig1_table.csv``, ``ppam13_fig1_windows.csv`` and ``ppam13_fig1_k.png`` to ``out_dir``.
    Cost: REF simulates 2**k coalitions, so the k = 10 windows dominate (docs/replication/ppam13.md).
    """
    started = time.perf_counter()
    check_config(config)
    chosen = ks if ks is not None else (QUICK_KS if config.quick else KS)
    workloads = load_traces((TRACE,), config.traces_dir)
    rows, per_window = measure(cells(config, tuple(chosen)), workloads, seed=config.seed, jobs=config.jobs,
                               progress=progress)
    result = OnlineReplicationResult(paper="PPAM'13", config=config, rows=rows, per_window=per_window,
                               notes=["Fig. 1: windows of Table 2 (5·10^5 s) on LPC-EGEE; the paper gives neither "
                                      "the window length nor the split"], elapsed_s=time.perf_counter() - started)
    if config.out_dir is not None:
        figure = k_figure(rows, "PPAM'13 Fig. 1: Δψ/p_tot against the number of organizations (LPC-EGEE)")
        files = write_outputs(result, config.out_dir, "ppam13_fig1", {"k": figure})
        result = replace(result, files=files)
    return result
