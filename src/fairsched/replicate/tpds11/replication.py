"""Replication of TPDS'11 §7: scores of local scheduling, MOCCA and MOCCA+ILBA on random MOSP instances.

Reference: P.-F. Dutot, F. Pascual, K. Rzadca, D. Trystram, "Approximation algorithms for the multi-organization
scheduling problem", IEEE TPDS 22(11), 2011, §7. The score of an algorithm on an instance is
s = C_max / max(W̄, p_max) (§7.1), an upper bound on its approximation ratio; 1 means provably optimal.
Set-up, as replicated here:

* ``homogeneous`` (§7.2, Fig. 8–9): ``uni`` and ``swf`` instances (`fairsched.mosp.generate`), N ∈ {2, 5, 10, 20},
  n ∈ {10, 50, 100, 500}, m ∈ {32, 128, 512}, 50 instances per combination (4,800); algorithms ``local`` (HF),
  ``mocca-exp`` (the §7.1 variant the paper ran) and ``mocca+ilba``. Rows average over n and m (per N), over N and
  m (per n), over everything (per distribution), and local on ``uni`` without n = 10 (per N, the §7.2.1 figures).
* ``local-policies`` (§7.3, Fig. 10): the same ``uni`` and ``swf`` instances; local order HF, LPT, SPT or RND, the
  experimental MOCCA cutting at 3LB or 4LB (without the fall-back to HF local schedules of MOCCA(α), as the paper
  says it did; with compaction, as in every experiment of §7), then ILBA. The paper does not say whether the
  4,800 instances were all reused; we reuse them.
* ``heterogeneous`` (§7.4): N = 10, m_k ~ Pareto(shape a, minimum 128, cut off at 1024), a ∈ {1, …, 10}. The paper
  has 6,000 instances but not how they split; we use n ∈ {10, 50, 100, 500} and 75 instances per (distribution, a,
  n) = 6,000.

``quick`` runs 5 instances per combination instead of 50 (75 → 8 for heterogeneous). Every instance has its own
seed, derived from the one ``seed`` and the instance's coordinates (`numpy.random.SeedSequence`), so results do not
depend on ``jobs`` (the number of workers), the executor or on which experiments run. The experiments are sweeps
(`sweep_specs`: the specs shipped in ``fairsched/replicate/specs/``, one cell per combination of parameters in
`fairsched.replicate.tpds11.cell`), so a replication resumes, runs in parallel and can run on a Dask cluster.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from fairsched.replicate._common import SPECS_DIR, ProgressCallback, ReplicationResult, run_sweeps
from fairsched.replicate.tpds11.paper import (
    ALL,
    EXPERIMENTS,
    HETEROGENEOUS_ORGS,
    OPTIMAL_TOLERANCE,
    PAPER,
    PAPER_NOTES,
    SCORE_COLUMNS,
    TPDS11Config,
    check_config,
)
from fairsched.sweep import Spec, load_spec

__all__ = ["TPDS11Result", "aggregate", "run", "sweep_specs", "to_json"]


@dataclass(frozen=True, kw_only=True)
class TPDS11Result(ReplicationResult):
    """What `run` measured (`ReplicationResult`'s fields, with the per-instance scores).

    Attributes
    ----------
    config : the configuration run.
    rows : the issue's row schema (experiment, dist, orgs, jobs, procs, algorithm, local_order, threshold, mean,
        std, optimal_fraction, instances, paper_mean), one per aggregate.
    scores : one row per (instance, algorithm): experiment, dist, orgs, jobs, procs, shape, index, algorithm,
        local_order, threshold, score, lb, makespan.
    notes : what the paper says that does not fit a row.
    elapsed_s : wall-clock seconds.
    """

    config: TPDS11Config
    rows: list[dict[str, Any]]
    scores: pd.DataFrame


def run(config: TPDS11Config, *, progress: ProgressCallback | None = None) -> TPDS11Result:
    """Replicate TPDS'11 §7 as configured (module docstring), through the sweep layer (`sweep_specs`).

    Raises
    ------
    ConfigError : unknown experiments or bad counts.
    SweepFailed : a schedule broke the model or a proven guarantee (a bug, reported clearly with its instance).
    SweepInterrupted : Ctrl-C or SIGTERM; the finished cells stay in ``config.store``.
    """
    started = time.perf_counter()
    check_config(config)
    frames = run_sweeps(sweep_specs(config), config, workers=config.jobs, prefix="fairsched-tpds11-",
                        progress=progress, describe="{name} instances")
    scores = pd.concat([frame.loc[:, list(SCORE_COLUMNS)] for frame in frames.values()], ignore_index=True)
    rows = aggregate(scores)
    return TPDS11Result(config=config, rows=rows, scores=scores, notes=list(PAPER_NOTES),
                        elapsed_s=time.perf_counter() - started)


def sweep_specs(config: TPDS11Config) -> dict[str, Spec]:
    """The sweeps the configuration needs, by name: ``homogeneous`` (its instances also serve ``local-policies``)
    and ``heterogeneous``; the shipped specs (``-quick`` ones for ``quick``) with the configuration's experiments,
    instances, validation and seed."""
    wanted = set(config.experiments)
    quick = "-quick" if config.quick else ""
    overrides: dict[str, Any] = {"validate": config.validate}
    if config.instances is not None:
        overrides["instances"] = config.instances
    specs = {}
    if wanted & {"homogeneous", "local-policies"}:
        uses = [e for e in EXPERIMENTS[:2] if e in wanted]
        specs["homogeneous"] = load_spec(SPECS_DIR / f"tpds11-homogeneous{quick}.toml",
                                         overrides={**overrides, "experiments": uses})
    if "heterogeneous" in wanted:
        specs["heterogeneous"] = load_spec(SPECS_DIR / f"tpds11-heterogeneous{quick}.toml", overrides=overrides)
    return {name: replace(spec, seeds=(config.seed,)) for name, spec in specs.items()}




def aggregate(scores: pd.DataFrame) -> list[dict[str, Any]]:
    """The issue's rows: mean, std and fraction of score 1 over groups of instances (module docstring)."""
    rows: list[dict[str, Any]] = []
    if scores.empty:
        return rows
    homogeneous = scores[scores["experiment"] == "homogeneous"]
    policies = scores[scores["experiment"] == "local-policies"]
    hetero = scores[scores["experiment"] == "heterogeneous"]
    for frame, by, fixed in (
        (homogeneous, ["dist", "algorithm"], {"orgs": ALL, "jobs": ALL, "procs": ALL}),
        (homogeneous, ["dist", "orgs", "algorithm"], {"jobs": ALL, "procs": ALL}),
        (homogeneous, ["dist", "jobs", "algorithm"], {"orgs": ALL, "procs": ALL}),
        (homogeneous[(homogeneous["jobs"] != 10) & (homogeneous["algorithm"] == "local")],
         ["dist", "orgs", "algorithm"], {"jobs": "50-500", "procs": ALL}),
        (policies, ["dist", "algorithm", "local_order"], {"orgs": ALL, "jobs": ALL, "procs": ALL}),
        (policies, ["dist", "orgs", "algorithm", "local_order"], {"jobs": ALL, "procs": ALL}),
        (hetero, ["dist", "shape", "algorithm"], {"orgs": HETEROGENEOUS_ORGS, "jobs": ALL}),
    ):
        rows += _group_rows(frame, by, fixed)
    return rows


def _group_rows(frame: pd.DataFrame, by: list[str], fixed: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    if frame.empty:
        return rows
    for key, group in frame.groupby(by, sort=False):
        values = dict(zip(by, key, strict=True))
        first = group.iloc[0]
        experiment = str(first["experiment"])
        row = {"experiment": experiment, "dist": values["dist"],
               "orgs": _plain(values.get("orgs", fixed.get("orgs"))),
               "jobs": _plain(values.get("jobs", fixed.get("jobs"))),
               "procs": f"pareto a={int(values['shape'])}" if "shape" in values else fixed.get("procs", ALL),
               "algorithm": values["algorithm"], "local_order": str(values.get("local_order", first["local_order"])),
               "threshold": int(first["threshold"]) or None,
               "mean": float(group["score"].mean()), "std": float(group["score"].std(ddof=0)),
               "optimal_fraction": float((group["score"] <= 1 + OPTIMAL_TOLERANCE).mean()),
               "instances": len(group)}
        row["paper_mean"] = PAPER.get((experiment, row["dist"], row["orgs"], row["jobs"], row["algorithm"],
                                       row["local_order"]))
        rows.append(row)
    return rows


def _plain(value: Any) -> Any:
    """numpy scalars -> int/str for JSON and table keys."""
    return value if isinstance(value, str) else int(value)


def to_json(result: TPDS11Result, outputs: dict[str, Path] | None = None) -> dict[str, Any]:
    """The ``--json`` document: ``{"rows": [...], "notes", "config", "elapsed_s", "outputs"}``."""
    config = {name: getattr(result.config, name) for name in ("quick", "jobs", "seed", "experiments", "instances")}
    return {"rows": result.rows, "notes": result.notes, "config": config, "instances": int(
        result.scores[["dist", "orgs", "jobs", "procs", "shape", "index"]].drop_duplicates().shape[0])
        if not result.scores.empty else 0,
        "elapsed_s": result.elapsed_s, "outputs": {k: str(v) for k, v in (outputs or {}).items()}}
