"""Replication of PPAM'13 Tables 1–2: Δψ/p_tot of six online policies against REF on random trace windows.

Reference: P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with cooperative
game theory", PPAM 2013 (LNCS 8385), §5.1–5.2, Tables 1 and 2. Set-up, as replicated here
(`fairsched.replicate._online_windows` does the work):

* traces LPC-EGEE (cleaned, 70 machines — not the header's 140) and RICC (8192 machines); PIK-IPLEX and
  SHARCNET-Whale are not available (the result's notes say so);
* 100 windows with random start times of 5·10^4 s (Table 1) or 5·10^5 s (Table 2); ``quick`` uses 10;
* 5 organizations, users spread uniformly at random, machines split uniformly at random (the paper ran Zipf and
  uniform splits but does not say which one the tables show; ``splits`` adds Zipf rows, without paper values);
* ROUNDROBIN, RAND (N = 15), DIRECTCONTR, FAIRSHARE, UTFAIRSHARE, CURRFAIRSHARE, and REF itself (Δψ = 0), each
  measured by Δψ/p_tot at t_end = window end against REF with the "lookahead" tie rule.

The PPAM'13 ablation switches are `PPAM13Config` fields (defaults = the set-up above); the grid over them is
`fairsched.replicate.ppam13.variants`. Its finding (docs/replication/ppam13.md): the paper's "DIRECTCONTR clearly
outperforms FAIRSHARE" holds with the Zipf machine split, not with the uniform one.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.replicate._common import SPECS_DIR, ProgressCallback, run_sweeps
from fairsched.replicate._online_plots import bar_figure, write_outputs
from fairsched.replicate._online_windows import (
    REF_NOTE,
    UNAVAILABLE_NOTE,
    Cell,
    OnlineReplicationResult,
    summarize,
    trace_file,
)
from fairsched.replicate.ppam13.paper import CHUNK, PAPER_NAME, SWITCHES, PPAM13Config, cells, check_config
from fairsched.sweep import Spec, load_spec

__all__ = ["run", "summary_rows", "sweep_spec", "windows_frame"]


def run(config: PPAM13Config, *, progress: ProgressCallback | None = None) -> OnlineReplicationResult:
    """Replicate PPAM'13 Tables 1–2 as configured (module docstring), through the sweep layer (`sweep_specs`).

    Every trace file is checked before any is read. Cost: 7 simulations per window (REF at k = 5 is cheap);
    ``quick`` on both traces and both tables takes about a minute on 2 cores (docs/replication/ppam13.md).

    Raises
    ------
    ConfigError : a missing trace (naming the file and the directory searched), or bad options.
    SweepInterrupted : Ctrl-C or SIGTERM; the finished cells stay in ``config.store``.
    """
    started = time.perf_counter()
    check_config(config)
    for trace in config.traces:
        trace_file(config.traces_dir, trace)
    stored = run_sweeps({"": sweep_spec(config)}, config, workers=config.jobs, prefix="fairsched-ppam13-",
                        progress=progress, describe="window cells")[""]
    the_cells = cells(config)
    per_window = windows_frame(stored, the_cells)
    rows = summary_rows(per_window, the_cells)
    result = OnlineReplicationResult(paper=PAPER_NAME, config=config, rows=rows, per_window=per_window,
                               notes=[UNAVAILABLE_NOTE, REF_NOTE], elapsed_s=time.perf_counter() - started)
    if config.out_dir is not None:
        figure = bar_figure(rows, "PPAM'13 Tables 1–2: Δψ/p_tot against REF (ours vs paper)")
        files = write_outputs(result, config.out_dir, "ppam13", {"tables": figure})
        result = replace(result, files=files)
    return result


def sweep_spec(config: PPAM13Config) -> Spec:
    """The shipped spec (``ppam13.toml``, ``ppam13-quick.toml`` for ``quick``) with the configuration's tables,
    traces, splits, windows (cut into cells of `CHUNK`), switches, traces directory and seed."""
    spec = load_spec(SPECS_DIR / f"ppam13{'-quick' if config.quick else ''}.toml")
    base = {key.replace("-", "_"): value for key, value in spec.base.items()}
    base.update({name: getattr(config, name) for name in SWITCHES})
    if config.traces_dir is not None:
        base["traces_dir"] = str(Path(config.traces_dir).resolve())
    grid = {key.replace("-", "_"): value for key, value in spec.grid.items()}
    base.pop("split", None)
    grid = {"table": list(config.tables), "trace": list(config.traces), "split": list(config.splits),
            "first_window": grid.get("first_window", [base.pop("first_window", 0)])}
    base.pop("first_window", None)
    if config.windows is not None:
        chunk = CHUNK if config.windows % CHUNK == 0 else config.windows
        base["windows"] = chunk
        grid["first_window"] = list(range(0, config.windows, chunk))
    return replace(spec, base=base, grid=grid, seeds=(config.seed,))


_WINDOW_COLUMNS = ("paper", "table", "trace", "window_length", "split", "orgs", "machines", "policy", "window", "start",
                   "seed", "delta_psi", "p_tot", "ratio")


def windows_frame(stored: pd.DataFrame, the_cells: list[Cell]) -> pd.DataFrame:
    """The sweep store's rows as `OnlineReplicationResult.per_window`: cells in `cells` order, then windows, then the
    policies in the cell's order (exactly the rows of the direct window loop)."""
    frame = stored.drop(columns=["seed"]).rename(columns={"window_seed": "seed"}).assign(paper=PAPER_NAME)
    position = {(cell.table, cell.trace, cell.split): number for number, cell in enumerate(the_cells)}
    order = {spec.label: number for number, spec in enumerate(the_cells[0].policies)}
    frame = frame.assign(_cell=[position[key] for key in zip(frame["table"], frame["trace"], frame["split"],
                                                              strict=True)],
                         _policy=frame["policy"].map(order))
    frame = frame.sort_values(["_cell", "window", "_policy"], kind="stable")
    return frame.loc[:, list(_WINDOW_COLUMNS)].reset_index(drop=True)


def summary_rows(per_window: pd.DataFrame, the_cells: list[Cell]) -> list[dict[str, Any]]:
    """One row per (cell, policy) (`fairsched.replicate._online_windows.ROW_KEYS`), the paper's values beside."""
    rows = []
    for cell in the_cells:
        mine = per_window[(per_window["table"] == cell.table) & (per_window["trace"] == cell.trace)
                          & (per_window["split"] == cell.split)]
        paper = dict(cell.paper_values)
        for spec in cell.policies:
            ratios = mine.loc[mine["policy"] == spec.label, "ratio"].to_numpy(dtype=np.float64)
            paper_mean, paper_std = paper.get(spec.label, (None, None))
            rows.append({"paper": cell.paper, "table": cell.table, "trace": cell.trace,
                         "window_length": cell.window_length, "split": cell.split, "orgs": cell.orgs,
                         "machines": cell.machines, "policy": spec.label, **summarize(ratios),
                         "paper_mean": paper_mean, "paper_std": paper_std})
    return rows


