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

Beyond the paper, as ablations (docs/replication/spaa13.md): the table is run with the Zipf split too (the PPAM'13
finding: under Zipf DIRECTCONTR separates from UTFAIRSHARE) and with FAIRSHARE and UTFAIRSHARE; the figures and the
table also run RAND with φ estimated as printed in Algorithm 3 lines 35–37 (``RAND printed``).

The runs are sweeps (`sweep_specs`: ``spaa13-figs.toml`` and ``spaa13-table.toml`` shipped in
``fairsched/replicate/specs/``, cells in `fairsched.replicate.spaa13.cell`), so a replication resumes from its
store, runs its cells in parallel (``jobs``) and can run on a Dask cluster (``executor="dask"``).
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.replicate._common import SPECS_DIR, ProgressCallback, run_sweeps
from fairsched.replicate._online_plots import bar_figure, k_figure, write_outputs
from fairsched.replicate._online_windows import (
    REF_NOTE,
    TRACES,
    UNAVAILABLE_NOTE,
    OnlineReplicationResult,
    summarize,
)
from fairsched.replicate.spaa13.paper import (
    CHUNK,
    FIG_AVERAGE,
    FIG_LENGTH,
    FIG_POLICIES,
    PAPER_FIG,
    PAPER_NAME,
    PAPER_TABLE,
    TABLE_POLICIES,
    SPAA13Config,
    check_config,
)
from fairsched.sweep import Spec, load_spec

__all__ = ["run", "sweep_specs", "table_rows", "windows_frame"]

_WINDOW_COLUMNS = ("paper", "table", "trace", "window_length", "split", "orgs", "machines", "policy", "window", "start",
                   "seed", "delta_psi", "p_tot", "ratio")



def sweep_specs(config: SPAA13Config) -> dict[str, Spec]:
    """The sweeps the configuration needs, by name (``figs``, ``table``): the shipped specs (``-quick`` ones for
    ``quick``) with the configuration's k, seeds, windows, traces, splits, traces directory and seed."""
    quick = "-quick" if config.quick else ""
    base = {} if config.traces_dir is None else {"traces_dir": str(Path(config.traces_dir).resolve())}
    specs = {}
    if "fig" in config.parts:
        spec = load_spec(SPECS_DIR / f"spaa13-figs{quick}.toml", overrides=base)
        grid = dict(spec.grid)
        if config.ks is not None:
            grid["orgs"] = list(config.ks)
        if config.seeds is not None:
            grid["first_window"] = list(range(config.seeds))
        zipped = {"part": [c[0] for c in config.fig_configs], "machines": [c[1] for c in config.fig_configs],
                  "release_scale": [c[2] for c in config.fig_configs]}
        specs["figs"] = replace(spec, grid=_normal_keys(grid), zips=(zipped,))
    if "table" in config.parts:
        spec = load_spec(SPECS_DIR / f"spaa13-table{quick}.toml", overrides=base)
        grid = _normal_keys(spec.grid)
        grid["trace"], grid["split"] = list(config.traces), list(config.splits)
        the_base = _normal_keys(spec.base)
        if config.windows is not None:
            chunk = CHUNK if config.windows % CHUNK == 0 else config.windows
            the_base.pop("first_window", None)
            the_base["windows"] = chunk
            grid["first_window"] = list(range(0, config.windows, chunk))
        specs["table"] = replace(spec, base=the_base, grid=grid)
    return {name: replace(spec, seeds=(config.seed,)) for name, spec in specs.items()}


def _normal_keys(table: dict[str, Any]) -> dict[str, Any]:
    return {key.replace("-", "_"): value for key, value in table.items()}


def run(config: SPAA13Config, *, progress: ProgressCallback | None = None) -> OnlineReplicationResult:
    """Replicate SPAA'13 §6.3.1 (Figs. 4–5) and §6.3.2 (table) as configured (module docstring).

    Cost: REF simulates 2^k − 1 coalitions; at k = 10 on the 5·10^6 s figure window one REF run takes 10–15 s of
    CPU, which dominates the figures. ``quick`` takes a few minutes on 2 cores (docs/replication/spaa13.md).

    Raises
    ------
    ConfigError : a missing trace (naming the file and the directory searched), or bad options.
    SweepInterrupted : Ctrl-C or SIGTERM; the finished cells stay in ``config.store``.
    """
    started = time.perf_counter()
    check_config(config)
    frames = run_sweeps(sweep_specs(config), config, workers=config.jobs, prefix="fairsched-spaa13-",
                        progress=progress, describe="{name} cells")
    per_window = windows_frame(pd.concat(frames.values(), ignore_index=True))
    rows = table_rows(per_window)
    result = OnlineReplicationResult(paper=PAPER_NAME, config=config, rows=rows, per_window=per_window,
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
        result = replace(result, files=files)
    return result


def windows_frame(cells: pd.DataFrame) -> pd.DataFrame:
    """The sweep stores' rows as the per-window table (`ReplicationResult.per_window`), in a fixed order:
    figures by (table, machines, split, k, window), then the table by (trace, split, window); policies in the
    order they run."""
    frame = cells.drop(columns=["seed"]).rename(columns={"window_seed": "seed"}).assign(paper=PAPER_NAME)
    order = {spec.label: number for number, spec in enumerate(dict.fromkeys(FIG_POLICIES + TABLE_POLICIES))}
    frame = frame.assign(_policy=frame["policy"].map(order), _table=frame["table"].map(
        {"fig4": 0, "fig5": 1, "table": 2}), _trace=frame["trace"].map({name: i for i, name in enumerate(TRACES)}))
    frame = frame.sort_values(["_table", "machines", "_trace", "split", "orgs", "window", "_policy"], kind="stable")
    return frame.loc[:, list(_WINDOW_COLUMNS)].reset_index(drop=True)


def table_rows(per_window: pd.DataFrame) -> list[dict[str, Any]]:
    """One row per (point, policy) (`fairsched.replicate._online_windows.ROW_KEYS`), the paper's values beside
    ours, then the ``fig4-5 average`` rows if the figures ran."""
    rows = []
    keys = ["table", "trace", "window_length", "split", "orgs", "machines"]
    for point, group in per_window.groupby(keys, sort=False):
        columns = dict(zip(keys, (_plain(value) for value in point), strict=True))
        paper = PAPER_TABLE.get(columns["trace"], {}) if columns["table"] == "table" else {}
        for policy, ratios in group.groupby("policy", sort=False)["ratio"]:
            paper_mean, paper_std = paper.get(policy, (None, None)) if columns["split"] == "uniform" else (None, None)
            rows.append({"paper": PAPER_NAME, **columns, "policy": policy,
                         **summarize(ratios.to_numpy(dtype=np.float64)), "paper_mean": paper_mean,
                         "paper_std": paper_std})
    if per_window["table"].isin(["fig4", "fig5"]).any():
        rows += _fig_average_rows(per_window)
    return rows


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


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


