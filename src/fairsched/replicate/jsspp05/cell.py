"""One simulation of the JSSPP'05 replication: the cell of its sweep (model ``fairsched.replicate.jsspp05.cell``).

It follows the experiment contract (`fairsched._contract`): `Config` (a trace by its paper name, the subset size,
an offered load, a queue order and a reservation depth) and ``run(config, seed) -> CellResult``, whose single row
carries the summary figures and, as list columns, the per-job unfairness (JSSPP'05 §3.1.3 and §3.2 per-job terms)
and job widths that `fairsched.replicate.jsspp05.replication` averages into the paper's figures and Table 2.
Nothing here is random: the seed is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from fairsched._contract import ExperimentConfig, ProgressCallback, check_choice, check_int, check_number, rows_frame
from fairsched.backfill import fairness
from fairsched.backfill.engine import simulate
from fairsched.backfill.jobs import BackfillJobs, jobs_from_workload
from fairsched.backfill.policies import backfill_names, order_names
from fairsched.errors import ConfigError
from fairsched.replicate._common import default_traces_dir
from fairsched.replicate.jsspp05.paper import METRICS, TRACES
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import first_jobs, offered_load, scale_to_load

FIGURES: tuple[str, ...] = ("runtime_factor", "offered_load", "mean_wait", "utilization", "processors",
                            "natural_load")
"""The summary columns of a cell's row (besides the per-job list columns ``per_job_<metric>`` and ``procs``)."""


@dataclass(frozen=True)
class Config(ExperimentConfig):
    """One simulation: `trace` (a `TRACES` name, read from `traces_dir`, None = `default_traces_dir`), its first
    `subset_size` jobs after cleaning, scaled to offered load `load`, under queue order `order` and reservation
    depth `backfill`. `skip_jobs` cleaned jobs are skipped before the subset (1000 gives the paper's CTC-SP2 jobs,
    docs/replication/jsspp05.md, "Which 5,000 jobs"); `processors` overrides the header's MaxProcs as machine size
    (430: the paper's CTC-SP2 batch nodes)."""

    MODEL: ClassVar[str] = "replicate jsspp05"

    trace: str = "CTC-SP2"
    traces_dir: Path | None = None
    subset_size: int = 5000
    load: float = 0.8
    order: str = "fcfs"
    backfill: str = "easy"
    skip_jobs: int = 0
    processors: int | None = None

    def __post_init__(self) -> None:
        check_choice(self.trace, "trace", TRACES)
        check_int(self.subset_size, "subset_size", minimum=2)
        check_number(self.load, "load", positive=True)
        check_choice(self.order, "order", order_names())
        check_choice(self.backfill, "backfill", backfill_names())
        check_int(self.skip_jobs, "skip_jobs", minimum=0)
        if self.processors is not None:
            check_int(self.processors, "processors", minimum=1)

    def input_paths(self) -> tuple[Path, ...]:
        folder = Path(self.traces_dir) if self.traces_dir is not None else default_traces_dir()
        return (folder / TRACES[self.trace],)


@dataclass(frozen=True)
class CellResult:
    """Per-job unfairness (`METRICS` -> float64 array, arrival order), job widths and the `FIGURES`."""

    config: Config
    seed: int
    per_job: dict[str, np.ndarray]
    procs: np.ndarray
    figures: dict[str, float]

    def rows(self) -> pd.DataFrame:
        """One row: the config's columns, ``policy`` (order/backfill), `FIGURES`, ``procs``, ``per_job_<metric>``."""
        return rows_frame(self.config, [{"policy": f"{self.config.order}/{self.config.backfill}", **self.figures,
                                         "procs": self.procs,
                                         **{f"per_job_{metric}": self.per_job[metric] for metric in METRICS}}])

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        """The row without its per-job arrays, as ``simulation.csv``."""
        from fairsched._io import write_csv

        path = Path(out_dir) / "simulation.csv"
        write_csv(self.rows().drop(columns=["procs", *(f"per_job_{m}" for m in METRICS)]), path)
        return {"simulation.csv": path}


def run(config: Config, seed: int = 0, *, progress: ProgressCallback | None = None) -> CellResult:
    """Prepare the trace (read, clean with P = MaxProcs, first jobs, runtime expansion to the load), simulate, and
    measure every job's strict and relaxed fair-start-time miss and resource-equality deficit."""
    jobs, figures = prepare(config)
    schedule = simulate(jobs, order=config.order, backfill=config.backfill).schedule
    start = schedule["start"].to_numpy(np.float64)
    per_job = {}
    both = fairness.fair_start_times_both(jobs, order=config.order, backfill=config.backfill, schedule=schedule)
    for kind, fst in zip(fairness.FST_KINDS, both, strict=True):
        per_job[f"fst_{kind}"] = np.maximum(start - np.asarray(fst, dtype=np.float64), 0.0)
    deficit = fairness.resource_equality(schedule, jobs.n_processors)["deficit"].to_numpy(np.float64)
    per_job["re"] = np.maximum(deficit, 0.0)
    run_time = (schedule["end"] - schedule["start"]).to_numpy(np.float64)
    span = float(schedule["end"].max() - schedule["submit"].min())
    figures |= {"offered_load": offered_load_of(jobs), "mean_wait": float(schedule["wait"].mean()),
                "utilization": float(np.dot(run_time, jobs.procs) / (jobs.n_processors * span))}
    return CellResult(config=config, seed=seed, per_job=per_job, procs=np.asarray(jobs.procs, dtype=np.int64),
                      figures={name: figures[name] for name in FIGURES})


def offered_load_of(jobs: BackfillJobs) -> float:
    """Offered load of the simulated (integer-second) jobs: Σ r·p / (P · (max(s + r) − min s))."""
    span = float(np.max(jobs.submit + jobs.run) - jobs.submit.min())
    return float(np.dot(jobs.run, jobs.procs) / (jobs.n_processors * span))


def prepare(config: Config) -> tuple[BackfillJobs, dict[str, float]]:
    """The cell's jobs, the runtime factor, the machine size and the subset's own offered load."""
    path = config.input_paths()[0]
    workload = read_swf(path)
    processors = config.processors if config.processors is not None else workload.header_int("MaxProcs")
    if processors is None or processors < 1:
        raise ConfigError(f"{path}: the header gives no MaxProcs, which the replication uses as machine size")
    cleaned, _ = clean(workload, max_processors=processors)
    if config.skip_jobs:
        cleaned = cleaned.with_jobs(cleaned.jobs.iloc[config.skip_jobs:].reset_index(drop=True))
    subset = first_jobs(cleaned, config.subset_size)
    scaled = scale_to_load(subset, config.load, processors, how="runtime")
    factor = float(np.median(scaled.jobs["run_time"].to_numpy() / subset.jobs["run_time"].to_numpy()))
    figures = {"runtime_factor": factor, "processors": processors, "natural_load": offered_load(subset, processors)}
    return jobs_from_workload(scaled, n_processors=processors), figures
