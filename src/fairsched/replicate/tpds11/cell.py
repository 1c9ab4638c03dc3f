"""One cell of the TPDS'11 replication's sweeps (model ``fairsched.replicate.tpds11.cell``): every instance of one
(distribution, N, n, m) combination — or (distribution, Pareto shape, n) for the heterogeneous clusters — solved by
every algorithm its experiments run (`fairsched.replicate.tpds11.instances.solve_instance`).

A cell holds all the instances of a combination (50, or 5 with ``--quick``) rather than one: an instance takes
milliseconds, so one file per instance would cost more than solving it. `Config` follows the experiment contract;
``run(config, seed)`` derives each instance's seed from `seed` (the replication's one seed) and the instance's
coordinates, exactly as the replication always has; ``CellResult.rows()`` has one row per (instance, algorithm).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from fairsched._contract import ExperimentConfig, ProgressCallback, check_choice, check_int, check_names
from fairsched.errors import ConfigError
from fairsched.replicate._common import RecordsResult
from fairsched.replicate.tpds11.instances import InstanceSpec, instance_seed, solve_instance
from fairsched.replicate.tpds11.paper import DISTS, EXPERIMENTS


@dataclass(frozen=True)
class Config(ExperimentConfig):
    """The instances ``0 .. instances - 1`` of one combination, for `experiments` (which algorithms run).

    ``shape`` = 0 means homogeneous clusters of ``procs`` processors; ``shape`` > 0 means Pareto clusters of that
    shape (``procs`` = 0), for the ``heterogeneous`` experiment.
    """

    MODEL: ClassVar[str] = "replicate tpds11"

    experiments: tuple[str, ...] = ("homogeneous",)
    dist: str = "uni"
    orgs: int = 2
    jobs: int = 10
    procs: int = 32
    shape: int = 0
    instances: int = 50
    validate: bool = True

    def __post_init__(self) -> None:
        check_names(self.experiments, "experiments")
        for name in self.experiments:
            check_choice(name, "experiments", EXPERIMENTS)
        check_choice(self.dist, "dist", DISTS)
        for name in ("orgs", "jobs", "instances"):
            check_int(getattr(self, name), name)
        check_int(self.procs, "procs", minimum=0)
        check_int(self.shape, "shape", minimum=0)
        if (self.shape == 0) == (self.procs == 0):
            raise ConfigError(f"--procs {self.procs} with --shape {self.shape}: give exactly one of them "
                              "(homogeneous clusters of m processors, or Pareto clusters of that shape)")


@dataclass(frozen=True)
class CellResult(RecordsResult):
    """Score records of every instance of the cell, in instance order; written as ``scores.csv``."""

    FILE: ClassVar[str] = "scores.csv"
    config: Config

    def rows(self) -> pd.DataFrame:
        """One row per (instance, algorithm): experiment, dist, orgs, jobs, procs, shape, index, algorithm (also
        as ``policy``), local_order, threshold, score, lb, makespan."""
        return pd.DataFrame.from_records([{**record, "policy": record["algorithm"]} for record in self.records])


def run(config: Config, seed: int = 0, *, progress: ProgressCallback | None = None) -> CellResult:
    """Generate and solve every instance of the cell (validated when ``config.validate``)."""
    d = DISTS.index(config.dist)
    records = []
    for index in range(config.instances):
        coordinates = (1, d, config.shape, config.jobs, 0, index) if config.shape else (
            0, d, config.orgs, config.jobs, config.procs, index)
        spec = InstanceSpec(config.experiments, config.dist, config.orgs, config.jobs, config.procs, config.shape,
                            index, instance_seed(seed, *coordinates), config.validate)
        records += solve_instance(spec)
    return CellResult(config=config, seed=seed, records=records)
