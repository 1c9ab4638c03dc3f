"""The TPDS'11 instances: one `InstanceSpec` per generated instance, its seed, and the scores of every algorithm
its experiments run on it (`solve_instance`, what a sweep cell of `fairsched.replicate.tpds11.cell` calls).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairsched.errors import InvalidScheduleError
from fairsched.mosp import solve
from fairsched.mosp.generate import generate, heterogeneous_procs
from fairsched.mosp.instance import MospInstance
from fairsched.mosp.metrics import makespan, proven_bound, score
from fairsched.mosp.policies.ilba import ilba
from fairsched.mosp.policies.local import local_schedule
from fairsched.mosp.validate import validate_mosp_schedule
from fairsched.replicate.tpds11.paper import LOCAL_ORDERS, THRESHOLDS

__all__ = ["InstanceSpec", "build_instance", "instance_seed", "solve_instance"]


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



def instance_seed(seed: int, *coordinates: int) -> int:
    """A 63-bit seed for one instance, from the run's seed and the instance's coordinates."""
    return int(np.random.SeedSequence(seed, spawn_key=coordinates).generate_state(1, np.uint64)[0] >> np.uint64(1))



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
