"""PPAM'13 Tables 1–2 as the replication runs them: the tables, policies and the paper's values, the configuration
(`PPAM13Config`, with the ablation switches) and its checks, and the cells of windows a configuration runs.

Reference: P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with cooperative
game theory", PPAM 2013 (LNCS 8385), §5.1–5.2; the set-up is described in `fairsched.replicate.ppam13.replication`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fairsched.errors import ConfigError
from fairsched.replicate._common import SweepOptions
from fairsched.replicate._online_windows import (
    CURRFAIRSHARE,
    DIRECTCONTR,
    FAIRSHARE,
    RAND15,
    REF,
    ROUNDROBIN,
    TRACES,
    UTFAIRSHARE,
    Cell,
    PolicySpec,
    check_common,
    check_names,
)
from fairsched.scenario import DEFAULT_ZIPF_S

__all__ = ["CHUNK", "PAPER", "PAPER_NAME", "POLICIES", "SWITCHES", "TABLES", "PPAM13Config", "cells", "check_config",
           "policies"]

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
class PPAM13Config(SweepOptions):
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

    How it runs (the windows are a sweep, `fairsched.replicate.ppam13.replication.sweep_spec`):

    executor, scheduler, store, resume : `fairsched.replicate._common.SweepOptions`.
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


SWITCHES = ("directcontr_update", "fairshare_ratios", "rand_estimator", "rand_orderings", "window_start", "orgs_by",
            "reference", "zipf_s", "granularity", "parallel_jobs", "directcontr_machines")
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



def check_config(config: PPAM13Config) -> None:
    """ConfigError naming the first field out of range."""
    check_common(config.jobs, config.seed, config.windows)
    check_names("tables", config.tables, TABLES)
    check_names("traces", config.traces, TRACES)
    check_names("splits", config.splits, ("uniform", "composition", "zipf"))
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
