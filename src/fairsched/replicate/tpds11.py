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
`fairsched.replicate.tpds11_cell`), so a replication resumes, runs in parallel and can run on a Dask cluster.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError, InvalidScheduleError
from fairsched.mosp import solve
from fairsched.mosp.generate import generate, heterogeneous_procs
from fairsched.mosp.instance import MospInstance
from fairsched.mosp.metrics import makespan, proven_bound, score
from fairsched.mosp.policies.ilba import ilba
from fairsched.mosp.policies.local import local_schedule
from fairsched.mosp.validate import validate_mosp_schedule
from fairsched.sweep import Spec, load_spec, run_sweep
from fairsched.sweep.results import load_rows
from fairsched.sweep.store import store_or_temporary

__all__ = ["EXPERIMENTS", "PAPER_NOTES", "TPDS11Config", "TPDS11Result", "run", "to_json"]

EXPERIMENTS: tuple[str, ...] = ("homogeneous", "local-policies", "heterogeneous")
DISTS: tuple[str, ...] = ("uni", "swf")
ORGS: tuple[int, ...] = (2, 5, 10, 20)
JOBS: tuple[int, ...] = (10, 50, 100, 500)
PROCS: tuple[int, ...] = (32, 128, 512)
LOCAL_ORDERS: tuple[str, ...] = ("hf", "lpt", "spt", "rnd")
THRESHOLDS: tuple[int, ...] = (3, 4)
PARETO_SHAPES: tuple[int, ...] = tuple(range(1, 11))
HETEROGENEOUS_ORGS = 10
ALL = "all"
SPECS_DIR = Path(__file__).resolve().parent / "specs"
SCORE_COLUMNS: tuple[str, ...] = ("experiment", "dist", "orgs", "jobs", "procs", "shape", "index", "algorithm",
                                  "local_order", "threshold", "score", "lb", "makespan")
OPTIMAL_TOLERANCE = 1e-9  # score 1 up to float rounding of LB = W̄ (a ratio of integers)

ProgressCallback = Callable[[str, int, int], None]
"""Called as ``progress(description, done, total)`` as instances finish."""

# Paper values (§7.2.1, §7.2.2, §7.3, §7.4), keyed by (experiment, dist, orgs, jobs, algorithm, local_order).
PAPER: dict[tuple[str, str, Any, Any, str, str], float] = {
    ("homogeneous", "uni", ALL, ALL, "mocca-exp", "hf"): 2.40,
    ("homogeneous", "uni", ALL, ALL, "mocca+ilba", "hf"): 1.24,
    ("homogeneous", "swf", ALL, ALL, "mocca-exp", "hf"): 1.16,
    ("homogeneous", "swf", ALL, ALL, "mocca+ilba", "hf"): 1.03,
    ("homogeneous", "uni", 2, "50-500", "local", "hf"): 1.57,
    ("homogeneous", "uni", 5, "50-500", "local", "hf"): 3.00,
    ("homogeneous", "uni", 10, "50-500", "local", "hf"): 4.93,
    ("homogeneous", "uni", 20, "50-500", "local", "hf"): 7.35,
    ("local-policies", "uni", ALL, ALL, "mocca3+ilba", "lpt"): 1.2422,
    ("local-policies", "swf", ALL, ALL, "mocca3+ilba", "lpt"): 1.0113,
}
PAPER_NOTES: tuple[str, ...] = (
    "§7.2.2: ILBA returned score 1 on at least 40 % of the instances, MOCCA on 26 % (optimal_fraction).",
    "§7.3: every local order × threshold scores 1.01–1.02 on swf and 1.24–1.31 on uni; LPT is best (the paper "
    "does not say with which threshold; its value is attached to the 3LB rows).",
    "§7.4: on heterogeneous uni grids ILBA scores 1.12–1.15 (std < 0.04); on swf below 1 + 1e-4.",
)


@dataclass(frozen=True)
class TPDS11Config:
    """What `run` replicates; keyword fields with defaults, stored unchanged (checked by `run`).

    Attributes
    ----------
    quick : 5 instances per combination instead of 50 (8 instead of 75 for ``heterogeneous``).
    jobs : worker processes (or Dask workers of a LocalCluster).
    seed : the one seed every instance's seed derives from.
    experiments : which of `EXPERIMENTS` to run.
    instances : instances per combination, overriding ``quick`` (both homogeneous and heterogeneous).
    validate : check every schedule with `fairsched.mosp.validate.validate_mosp_schedule` (guarantees included).
    executor, scheduler : the sweeps' executor (``local`` or ``dask``) and Dask scheduler address (None = a
        LocalCluster); see `fairsched.sweep.run_sweep`.
    store : where the sweeps' stores go (``<store>/homogeneous``, ``<store>/heterogeneous``), kept to resume an
        interrupted run; None = a temporary directory.
    resume : how to resume, for the interruption message (None = with the ``fairsched sweep`` command).
    """

    quick: bool = False
    jobs: int = 1
    seed: int = 0
    experiments: tuple[str, ...] = EXPERIMENTS
    instances: int | None = None
    validate: bool = True
    executor: str = "local"
    scheduler: str | None = None
    store: Path | None = None
    resume: str | None = None


@dataclass
class TPDS11Result:
    """What `run` measured.

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
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0


@dataclass(frozen=True)
class InstanceSpec:
    """One instance to generate and solve, and the experiments that use it (`EXPERIMENTS` names): homogeneous
    instances (`procs` = m, `shape` = 0) serve ``homogeneous`` and ``local-policies``, heterogeneous ones (`shape` =
    the Pareto shape) ``heterogeneous``."""

    experiments: tuple[str, ...]
    dist: str
    orgs: int
    jobs: int
    procs: int
    shape: int
    index: int
    seed: int
    validate: bool


def run(config: TPDS11Config, *, progress: ProgressCallback | None = None) -> TPDS11Result:
    """Replicate TPDS'11 §7 as configured (module docstring), through the sweep layer (`sweep_specs`).

    Raises
    ------
    ConfigError : unknown experiments or bad counts.
    SweepFailed : a schedule broke the model or a proven guarantee (a bug, reported clearly with its instance).
    SweepInterrupted : Ctrl-C or SIGTERM; the finished cells stay in ``config.store``.
    """
    started = time.perf_counter()
    _check(config)
    frames = []
    with store_or_temporary(config.store, prefix="fairsched-tpds11-") as store:
        for name, spec in sweep_specs(config).items():
            report = None if progress is None else (
                lambda done, total, _, name=name: progress(f"{name} instances", done, total))
            run_sweep(spec, store / name, executor=config.executor, workers=config.jobs, scheduler=config.scheduler,
                      fail_fast=True, resume=config.resume, progress=report)
            frames.append(load_rows(store / name)[0].loc[:, list(SCORE_COLUMNS)])
    scores = pd.concat(frames, ignore_index=True)
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


def instance_seed(seed: int, *coordinates: int) -> int:
    """A 63-bit seed for one instance, from the run's seed and the instance's coordinates."""
    return int(np.random.SeedSequence(seed, spawn_key=coordinates).generate_state(1, np.uint64)[0] >> np.uint64(1))


def _check(config: TPDS11Config) -> None:
    unknown = [e for e in config.experiments if e not in EXPERIMENTS]
    if unknown or not config.experiments:
        raise ConfigError(f"experiments={config.experiments!r}: choose from {', '.join(EXPERIMENTS)}")
    if config.instances is not None and (not isinstance(config.instances, int) or config.instances < 1):
        raise ConfigError(f"instances={config.instances!r}: expected an integer >= 1")
    if not isinstance(config.jobs, int) or config.jobs < 1:
        raise ConfigError(f"jobs={config.jobs!r}: expected an integer >= 1 (worker processes)")


def build_instance(spec: InstanceSpec) -> MospInstance:
    """The instance of one spec: homogeneous clusters of ``spec.procs``, or Pareto clusters of ``spec.shape``."""
    rng = np.random.default_rng(spec.seed)
    if spec.shape:
        procs = heterogeneous_procs(spec.orgs, rng, shape=float(spec.shape))
    else:
        procs = np.full(spec.orgs, spec.procs, dtype=np.int64)
    return generate(spec.dist, n_orgs=spec.orgs, n_jobs=spec.jobs, procs=procs, seed=rng)


def solve_instance(spec: InstanceSpec) -> list[dict[str, Any]]:
    """Score records of every algorithm the spec's experiment runs on its instance."""
    instance = build_instance(spec)
    lb = instance.lower_bound()
    runs: list[tuple[str, str, str, int, Any]] = []
    if "homogeneous" in spec.experiments or "heterogeneous" in spec.experiments:
        experiment = "heterogeneous" if spec.shape else "homogeneous"
        local = local_schedule(instance, order="hf")
        mocca = solve(instance, "mocca-exp", local_order="hf")
        runs += [(experiment, "local", "hf", 0, local), (experiment, "mocca-exp", "hf", 3, mocca),
                 (experiment, "mocca+ilba", "hf", 3, ilba(instance, mocca))]
        _validate(spec, instance, mocca, bound=proven_bound(instance, "mocca-exp"))
        _validate(spec, instance, runs[-1][4], delay_reference=mocca)
    if "local-policies" in spec.experiments:
        for order in LOCAL_ORDERS:
            for threshold in THRESHOLDS:
                moved = solve(instance, "mocca-exp", alpha=float(threshold), local_order=order, seed=spec.seed)
                runs.append(("local-policies", f"mocca{threshold}+ilba", order, threshold, ilba(instance, moved)))
                _validate(spec, instance, runs[-1][4], local_order=order, delay_reference=moved)
    records = []
    for experiment, algorithm, order, threshold, schedule in runs:
        value = score(instance, schedule)
        records.append({"experiment": experiment, "dist": spec.dist, "orgs": spec.orgs, "jobs": spec.jobs,
                        "procs": spec.procs, "shape": spec.shape, "index": spec.index, "algorithm": algorithm,
                        "local_order": order, "threshold": threshold, "score": value, "lb": lb,
                        "makespan": makespan(instance, schedule)})
    return records


def _validate(spec: InstanceSpec, instance: MospInstance, schedule: Any, *, bound: float | None = None,
              delay_reference: Any = None, local_order: str = "hf") -> None:
    """Every rule of the model, the local constraint against `local_order` (seeded like the run), the bound."""
    if not spec.validate:
        return
    try:
        validate_mosp_schedule(instance, schedule, local_order=local_order, makespan_bound=bound,
                            delay_reference=delay_reference, seed=spec.seed)
    except InvalidScheduleError as exc:
        raise InvalidScheduleError(f"{spec}: {exc}") from exc


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
