"""One cell of the Networking'20 replication's sweep (model ``fairsched.replicate.networking20.cell``).

A cell is one of the four §VII settings (``offline-equal``, ``offline-linear``, ``online-equal``,
``online-linear``: every algorithm the paper compares in it, on the Google slice), or ``reach`` (the exact-reach
counts on random instances, `fairsched.replicate.networking20.reach.exact_reach`). `Config` follows the experiment
contract; ``run(config, seed)`` uses `seed` exactly as the replication always has (the machine mapping and PBA's
perturbation; the random instances of ``reach``), so the published tables do not depend on the executor.

A setting's ``rows()`` has one row per algorithm: its summary (`fairsched.openshop.metrics.summary`), the per-job
values as a list column ``values`` (utilities with linear utilities, else completion times offline and delays
online: what Fig. 1–4 plot) and the facts of the scheduled instance. ``reach``'s rows are `exact_reach`'s.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from fairsched._contract import ExperimentConfig, ProgressCallback, check_choice, check_int
from fairsched.errors import ConfigError
from fairsched.replicate._common import RecordsResult, default_traces_dir
from fairsched.replicate.networking20.reach import exact_reach

SETTINGS: tuple[str, ...] = ("offline-equal", "offline-linear", "online-equal", "online-linear")
REACH = "reach"
GOOGLE_DIR = "google-clusterdata-2011-2"
FACTS: tuple[str, ...] = ("n_jobs", "n_tasks", "n_machines", "arrival_span_s", "max_machine_load", "delta0", "tau",
                          "time_unit_s")
"""The scheduled instance's facts and the setting's parameters, repeated on each row of a setting."""


@dataclass(frozen=True)
class Config(ExperimentConfig):
    """`setting` (one of `SETTINGS`, or ``reach``) on the Google slice of `traces_dir` (None =
    `fairsched.replicate._common.default_traces_dir`), reading the part numbers `parts` (empty = every part
    present); ``reach`` solves `reach_instances` random instances instead and reads nothing."""

    MODEL: ClassVar[str] = "replicate networking20"

    setting: str = "offline-equal"
    traces_dir: Path | None = None
    parts: tuple[int, ...] = ()
    reach_instances: int = 200

    def __post_init__(self) -> None:
        check_choice(self.setting, "setting", (*SETTINGS, REACH))
        if not isinstance(self.parts, tuple) or not all(
                isinstance(part, int) and not isinstance(part, bool) and part >= 0 for part in self.parts):
            raise ConfigError(f"--parts {self.parts!r}: expected part numbers >= 0, e.g. [0, 1]")
        check_int(self.reach_instances, "reach_instances", minimum=0)

    def google_dir(self) -> Path:
        """The slice's directory; ConfigError naming where it was looked for and how to get it when missing."""
        folder = (Path(self.traces_dir) if self.traces_dir is not None else default_traces_dir()) / GOOGLE_DIR
        if not (folder / "task_events").is_dir() or not (folder / "job_events").is_dir():
            raise ConfigError(f"the Google clusterdata-2011-2 slice is missing: expected {folder}/task_events and "
                              f"{folder}/job_events (gzip CSV parts part-000NN-of-00500.csv.gz). Download parts "
                              "from the public bucket gs://clusterdata-2011-2 (see docs/openshop.md) and pass "
                              "--traces DIR")
        return folder

    def input_paths(self) -> tuple[Path, ...]:
        if self.setting == REACH:
            return ()
        from fairsched.workload.google import _part_files

        _, task_paths, job_paths = _part_files(self.google_dir(), self.parts or None)
        return (*task_paths, *job_paths)


@dataclass(frozen=True)
class CellResult(RecordsResult):
    """The rows of one cell (module docstring): the config's columns, then one row per algorithm (a setting) or per
    heuristic (``reach``); ``rows.csv`` leaves out the per-job ``values``."""

    UNWRITTEN: ClassVar[tuple[str, ...]] = ("values",)
    config: Config


def run(config: Config, seed: int = 0, *, progress: ProgressCallback | None = None) -> CellResult:
    """Run the cell's setting on the slice (every schedule validated by `run_openshop`), or the reach counts."""
    if config.setting == REACH:
        records = exact_reach(config.reach_instances, seed=seed) if config.reach_instances else []
        return CellResult(config=config, seed=seed, records=[
            {"policy": r["algorithm"] + ("" if r["k"] is None else f" (k = {r['k']})"), **r} for r in records])
    from fairsched.openshop.experiment import run_openshop

    online, kind = config.setting.startswith("online"), config.setting.split("-")[1]
    base, loaded = _slice(config.google_dir(), config.parts, seed)
    report = run_openshop(replace(base, utilities=kind, online=online), seed, loaded=loaded)
    instance = report.instance
    span = float(instance.arrival.max() - instance.arrival.min()) * report.time_unit_s if instance.n_jobs else 0.0
    facts = {"n_jobs": instance.n_jobs, "n_tasks": instance.n_tasks, "n_machines": instance.n_machines,
             "arrival_span_s": span, "max_machine_load": int(instance.machine_loads().max(initial=0)),
             "delta0": report.delta0, "tau": report.tau, "time_unit_s": report.time_unit_s}
    records = [{"policy": name, "algorithm": name, **outcome.summary,
                "values": outcome.utilities if outcome.utilities is not None else outcome.times, **facts}
               for name, outcome in report.outcomes.items()]
    return CellResult(config=config, seed=seed, records=records)


@functools.lru_cache(maxsize=2)
def _slice(folder: Path, parts: tuple[int, ...], seed: int) -> tuple[Any, Any]:
    """The openshop configuration of the slice and the slice read once (the four settings of a process share it)."""
    from fairsched.openshop import experiment as openshop_experiment

    base = openshop_experiment.Config(google=folder, google_parts=parts or None)
    return base, openshop_experiment.load_instance(base, seed)
