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
`fairsched.replicate.ppam13_variants`. Its finding (docs/replication/ppam13.md): the paper's "DIRECTCONTR clearly
outperforms FAIRSHARE" holds with the Zipf machine split, not with the uniform one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError
from fairsched.replicate._online_plots import bar_figure, write_outputs
from fairsched.replicate._online_windows import (
    CURRFAIRSHARE,
    DIRECTCONTR,
    FAIRSHARE,
    RAND15,
    REF,
    REF_NOTE,
    ROUNDROBIN,
    TRACES,
    UNAVAILABLE_NOTE,
    UTFAIRSHARE,
    Cell,
    PolicySpec,
    ProgressCallback,
    check_common,
    check_names,
    summarize,
    to_json,
    trace_file,
)
from fairsched.replicate._online_windows import OnlineReplicationResult as ReplicationResult
from fairsched.scenario import DEFAULT_ZIPF_S
from fairsched.sweep import Spec, load_spec, run_sweep
from fairsched.sweep.results import load_rows
from fairsched.sweep.store import store_or_temporary

__all__ = ["PAPER", "POLICIES", "TABLES", "PPAM13Config", "ReplicationResult", "run", "to_json"]

PAPER_NAME = "PPAM'13"
TABLES: dict[str, int] = {"table1": 50_000, "table2": 500_000}  # window length of each table (s)
POLICIES = (ROUNDROBIN, RAND15, DIRECTCONTR, FAIRSHARE, UTFAIRSHARE, CURRFAIRSHARE, REF)
_ORDER = ("ROUNDROBIN", "RAND (N=15)", "DIRECTCONTR", "FAIRSHARE", "UTFAIRSHARE", "CURRFAIRSHARE")


def _paper(*pairs: tuple[float, float]) -> tuple[tuple[str, tuple[float, float]], ...]:
    return tuple(zip(_ORDER, pairs, strict=True))


# PPAM'13 Tables 1 and 2, mean (stdev) of Δψ/p_tot over 100 windows; (table, trace) -> policy -> (mean, std).
PAPER: dict[tuple[str, str], tuple[tuple[str, tuple[float, float]], ...]] = {
    ("table1", "LPC-EGEE"): _paper((238, 353), (8, 21), (5, 11), (16, 25), (16, 25), (87, 106)),
    ("table1", "RICC"): _paper((2839, 357), (162, 187), (537, 303), (626, 309), (515, 284), (1231, 243)),
    ("table2", "LPC-EGEE"): _paper((4511, 6257), (562, 1670), (410, 1083), (575, 1404), (888, 2101),
                                   (1082, 2091)),
    ("table2", "RICC"): _paper((10850, 13773), (771, 1479), (1808, 3397), (2746, 4070), (4963, 6080),
                               (5387, 9083)),
}


@dataclass(frozen=True)
class PPAM13Config:
    """What `run` replicates; keyword fields with defaults, stored unchanged (checked by `run`).

    Attributes
    ----------
    traces_dir : directory of the trace files; None = ``$FAIRSCHED_TRACES``, else ``../shared/traces``.
    quick : 10 windows per (table, trace) instead of 100.
    jobs : worker processes the windows are spread over.
    seed : the one seed (window start times, users → organizations, machine split, RAND's orderings).
    out_dir : if given, write ``ppam13_table.csv``, ``ppam13_windows.csv`` and ``ppam13_tables.png`` there.
    tables : which of `TABLES` to run.
    traces : which of the available traces (`fairsched.replicate._online_windows.TRACES`) to run.
    splits : machine splits; the paper's values are attached to the ``"uniform"`` rows only.
    windows : windows per (table, trace), overriding ``quick`` (None = 10 quick, else 100).

    The PPAM'13 ablation switches (defaults = the replication as shipped; docs/replication/ppam13.md):

    directcontr_update : DIRECTCONTR's Algorithm 1 lines 15–16 "corrected" or as "printed".
    fairshare_ratios : FAIRSHARE/UTFAIRSHARE ratios "frozen" within a decision or re-evaluated "per_start".
    rand_estimator : RAND's φ as the mean over "orderings" or SPAA'13 Alg. 3 lines 35–37 as "printed".
    rand_orderings : RAND's N (the paper's tables use 15; SPAA'13 also 75); the row is labelled with N, and
        only N = 15 carries the paper's values.
    window_start : a window starts "empty" or "warm" (the trace's backlog and running jobs at its start,
        `fairsched.replicate._online_windows.warm_window`).
    orgs_by : users ("user", the paper's tables) or single jobs ("job", the paper's second scenario) are spread
        uniformly over the organizations.
    reference : REF with the "ref" (lookahead) or "ref-literal" tie rule.
    zipf_s : the Zipf exponent of ``splits=("zipf",)`` (default TPDS'11's 1.4267; the papers give none).
    granularity : seconds per clock tick: releases floored, run times rounded up to multiples (default 1).
    parallel_jobs : a q-processor job is q sequential "copies" (the paper), one "serial" copy, or "skip"ped.
    directcontr_machines : DIRECTCONTR hands out free machines in "random" order (Algorithm 1 line 9) or
        "lowest" id first.

    How it runs (the windows are a sweep, `sweep_specs`):

    executor, scheduler : the sweep's executor (``local`` or ``dask``) and Dask scheduler address (None = a
        LocalCluster); see `fairsched.sweep.run_sweep`.
    store : where the sweep's store goes, kept to resume an interrupted run; None = a temporary directory.
    resume : how to resume, for the interruption message (None = with the ``fairsched sweep`` command).
    """

    traces_dir: Path | None = None
    quick: bool = False
    jobs: int = 1
    seed: int = 0
    out_dir: Path | None = None
    tables: tuple[str, ...] = ("table1", "table2")
    traces: tuple[str, ...] = ("LPC-EGEE", "RICC")
    splits: tuple[str, ...] = ("uniform",)
    windows: int | None = None
    directcontr_update: Literal["corrected", "printed"] = "corrected"
    fairshare_ratios: Literal["frozen", "per_start"] = "frozen"
    rand_estimator: Literal["orderings", "printed"] = "orderings"
    rand_orderings: int = 15
    window_start: Literal["empty", "warm"] = "empty"
    orgs_by: Literal["user", "job"] = "user"
    reference: Literal["ref", "ref-literal"] = "ref"
    zipf_s: float = DEFAULT_ZIPF_S
    granularity: int = 1
    parallel_jobs: Literal["copies", "serial", "skip"] = "copies"
    directcontr_machines: Literal["random", "lowest"] = "random"
    executor: str = "local"
    scheduler: str | None = None
    store: Path | None = None
    resume: str | None = None


SWITCHES = ("directcontr_update", "fairshare_ratios", "rand_estimator", "rand_orderings", "window_start", "orgs_by",
            "reference", "zipf_s", "granularity", "parallel_jobs", "directcontr_machines")
SPECS_DIR = Path(__file__).with_name("specs")
CHUNK = 10  # windows per sweep cell


def policies(config: PPAM13Config) -> tuple[PolicySpec, ...]:
    """The policies of the tables with the config's switches; the defaults give exactly `POLICIES`."""
    def with_params(spec: PolicySpec, **params: object) -> PolicySpec:
        changed = tuple((key, value) for key, value in params.items() if value is not None)
        return PolicySpec(spec.label, spec.name, spec.params + changed) if changed else spec

    def unless(value: object, default: object) -> object:
        return None if value == default else value

    rand = RAND15 if config.rand_orderings == 15 else PolicySpec(f"RAND (N={config.rand_orderings})", "rand",
                                                                 (("n_orderings", config.rand_orderings),))
    ratios = unless(config.fairshare_ratios, "frozen")
    return (ROUNDROBIN, with_params(rand, estimator=unless(config.rand_estimator, "orderings")),
            with_params(DIRECTCONTR, update=unless(config.directcontr_update, "corrected"),
                        machines=unless(config.directcontr_machines, "random")),
            with_params(FAIRSHARE, ratios=ratios), with_params(UTFAIRSHARE, ratios=ratios), CURRFAIRSHARE, REF)


def cells(config: PPAM13Config) -> list[Cell]:
    """One `Cell` per (table, trace, split), in that order."""
    n = config.windows if config.windows is not None else (10 if config.quick else 100)
    return [Cell(paper=PAPER_NAME, table=table, trace=trace, window_length=TABLES[table], split=split, orgs=5,
                 machines=TRACES[trace].machines, policies=policies(config), windows=n,
                 paper_values=PAPER[(table, trace)] if split == "uniform" else (), orgs_by=config.orgs_by,
                 zipf_s=config.zipf_s, warm_start=config.window_start == "warm", reference=config.reference,
                 granularity=config.granularity, parallel_jobs=config.parallel_jobs)
            for table in config.tables for trace in config.traces for split in config.splits]


def run(config: PPAM13Config, *, progress: ProgressCallback | None = None) -> ReplicationResult:
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
    with store_or_temporary(config.store, prefix="fairsched-ppam13-") as store:
        report = None if progress is None else (lambda done, total, _: progress("window cells", done, total))
        run_sweep(sweep_spec(config), store, executor=config.executor, workers=config.jobs,
                  scheduler=config.scheduler, fail_fast=True, resume=config.resume, progress=report)
        stored = load_rows(store)[0]
    the_cells = cells(config)
    per_window = windows_frame(stored, the_cells)
    rows = summary_rows(per_window, the_cells)
    result = ReplicationResult(paper=PAPER_NAME, config=config, rows=rows, per_window=per_window,
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
    """The sweep store's rows as `ReplicationResult.per_window`: cells in `cells` order, then windows, then the
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


def check_config(config: PPAM13Config) -> None:
    """ConfigError naming the first field out of range."""
    check_common(config.jobs, config.seed, config.windows)
    check_names("tables", config.tables, TABLES)
    check_names("traces", config.traces, TRACES)
    check_names("splits", config.splits, ("uniform", "zipf"))
    for name, value, valid in (("directcontr_update", config.directcontr_update, ("corrected", "printed")),
                               ("fairshare_ratios", config.fairshare_ratios, ("frozen", "per_start")),
                               ("rand_estimator", config.rand_estimator, ("orderings", "printed")),
                               ("window_start", config.window_start, ("empty", "warm")),
                               ("orgs_by", config.orgs_by, ("user", "job")),
                               ("reference", config.reference, ("ref", "ref-literal")),
                               ("parallel_jobs", config.parallel_jobs, ("copies", "serial", "skip")),
                               ("directcontr_machines", config.directcontr_machines, ("random", "lowest"))):
        if value not in valid:
            raise ConfigError(f"{name}={value!r}: expected one of {', '.join(valid)}")
    if isinstance(config.rand_orderings, bool) or not isinstance(config.rand_orderings, int) \
            or config.rand_orderings < 1:
        raise ConfigError(f"rand_orderings={config.rand_orderings!r}: expected a positive number of orderings")
    if isinstance(config.granularity, bool) or not isinstance(config.granularity, int) or config.granularity < 1:
        raise ConfigError(f"granularity={config.granularity!r}: expected a positive number of seconds")
    if not (isinstance(config.zipf_s, int | float) and math.isfinite(config.zipf_s) and config.zipf_s >= 0):
        raise ConfigError(f"zipf_s={config.zipf_s!r}: expected a finite exponent >= 0")
