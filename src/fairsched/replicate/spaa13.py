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
``fairsched/replicate/specs/``, cells in `fairsched.replicate.spaa13_cell`), so a replication resumes from its
store, runs its cells in parallel (``jobs``) and can run on a Dask cluster (``executor="dask"``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError
from fairsched.replicate._online_windows import (
    REF_NOTE,
    TRACES,
    UNAVAILABLE_NOTE,
    ProgressCallback,
    ReplicationResult,
    bar_figure,
    check_common,
    check_names,
    k_figure,
    summarize,
    to_json,
    trace_file,
    write_outputs,
)
from fairsched.replicate.spaa13_cell import FIG_LENGTH, FIG_POLICIES, PAPER_NAME, TABLE_POLICIES
from fairsched.sweep import Spec, load_spec, run_sweep
from fairsched.sweep.results import load_rows
from fairsched.sweep.store import store_or_temporary

__all__ = [
    "FIG_CONFIGS",
    "KS",
    "PAPER_FIG",
    "PAPER_TABLE",
    "QUICK_KS",
    "ReplicationResult",
    "SPAA13Config",
    "run",
    "sweep_specs",
    "to_json",
]

SPECS_DIR = Path(__file__).with_name("specs")
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
_WINDOW_COLUMNS = ("paper", "table", "trace", "window_length", "split", "orgs", "machines", "policy", "window", "start",
                   "seed", "delta_psi", "p_tot", "ratio")


@dataclass(frozen=True)
class SPAA13Config:
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
    executor, scheduler : the sweep's executor (``local`` or ``dask``) and Dask scheduler address (None = a
        LocalCluster); see `fairsched.sweep.run_sweep`.
    store : where the sweeps' stores go (``<store>/figs``, ``<store>/table``), kept to resume an interrupted run;
        None = a temporary directory.
    resume : how to resume, for the interruption message (None = with the ``fairsched sweep`` command).
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
    executor: str = "local"
    scheduler: str | None = None
    store: Path | None = None
    resume: str | None = None


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


def run(config: SPAA13Config, *, progress: ProgressCallback | None = None) -> ReplicationResult:
    """Replicate SPAA'13 §6.3.1 (Figs. 4–5) and §6.3.2 (table) as configured (module docstring).

    Cost: REF simulates 2^k − 1 coalitions; at k = 10 on the 5·10^6 s figure window one REF run takes 10–15 s of
    CPU, which dominates the figures. ``quick`` takes a few minutes on 2 cores (docs/replication/spaa13.md).

    Raises
    ------
    ConfigError : a missing trace (naming the file and the directory searched), or bad options.
    SweepInterrupted : Ctrl-C or SIGTERM; the finished cells stay in ``config.store``.
    """
    started = time.perf_counter()
    _check(config)
    frames = []
    with store_or_temporary(config.store, prefix="fairsched-spaa13-") as store:
        for name, spec in sweep_specs(config).items():
            report = None if progress is None else (
                lambda done, total, _, name=name: progress(f"{name} cells", done, total))
            run_sweep(spec, store / name, executor=config.executor, workers=config.jobs, scheduler=config.scheduler,
                      fail_fast=True, resume=config.resume, progress=report)
            frames.append(load_rows(store / name)[0])
    per_window = windows_frame(pd.concat(frames, ignore_index=True))
    rows = table_rows(per_window)
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


def _check(config: SPAA13Config) -> None:
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
