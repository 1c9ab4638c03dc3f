"""One comparison of multi-task job schedulers: instance -> algorithms (offline or online) -> checked schedules.

What ``fairsched openshop`` does (docs/openshop.md): read the Google trace slice, an instance file, or generate an
instance; schedule it with one or more algorithms, offline (every job available at 0, Networking'20 §VII-A) or
online (jobs arrive, δ-intervals, §VII-B); check every schedule with
`fairsched.openshop.validate.validate_openshop_schedule`; measure completion times (equal utilities) or linear
utilities U_j = P_j·(τ − t) (§VII).

What is measured (§VII): offline, t is the completion time C_j; online, the delay C_j − a_j ("measured from
arrival of job j", §VII-B2). Linear utilities U_j = P_j·(τ − t) need τ, "the makespan of completing all the jobs (a
constant just to ensure utilities are positive)" (§VII-A2). Offline no machine idles, so every algorithm's
makespan is max_i Σ_j p_ij; but with τ exactly that, the job finishing last has utility 0 under *every*
algorithm, and the paper's "worst utility is 9.5× greater" could not be measured. We take the smallest τ that
makes every utility positive: the makespan + 1 time unit. Online (the paper does not say) we use the arrival span
+ the largest machine load + δ₀ + 1 unit, a bound on every delay (an interval planner may wait up to δ₀ for its
next boundary). The algorithms that decide with utilities (generalized PBA, LUF, exact) get the same τ.

The model contract (`fairsched._contract`): `Config` holds the options of ``fairsched openshop`` by their flags'
names, plus the Google reader's ``google_parts`` (no CLI flag); the same `Config` and the seed drive `run_openshop`.
``run(config, seed)`` returns a `Result` with ``rows()`` (one row per algorithm);
`fairsched.report.write_result` writes it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched._contract import (
    ExperimentConfig,
    ProgressCallback,
    check_bool,
    check_choice,
    check_int,
    check_names,
    check_number,
    check_path,
    rows_frame,
)
from fairsched.errors import ConfigError
from fairsched.openshop import run_online, solve
from fairsched.openshop.engine import accepts
from fairsched.openshop.generate import random_instance
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.io import read_instance
from fairsched.openshop.metrics import summary
from fairsched.openshop.metrics import utilities as metric_utilities
from fairsched.openshop.policies import ALGORITHMS
from fairsched.openshop.validate import validate_openshop_schedule
from fairsched.workload.google import GoogleReport, read_google

UTILITIES: tuple[str, ...] = ("equal", "linear")
GENERATED_MACHINES = 10  # machines of a generated instance by default
GOOGLE_MACHINES = 200    # machines the Google trace is mapped onto by default (Networking'20 §VII)
# The paper's comparisons (§VII): PBA against SPTF and FIFO with equal utilities, against LUF and FIFO with linear.
DEFAULT_ALGORITHMS: dict[str, tuple[str, ...]] = {"equal": ("pba", "sptf", "fifo"), "linear": ("pba", "luf", "fifo")}


@dataclass(frozen=True)
class Config(ExperimentConfig):
    """What ``fairsched openshop`` runs: its options by their flags' names, with the CLI's defaults (docs/openshop.md).

    The seed (machine mapping, generated instance, PBA's perturbation, k-Max-Min's tail) is not a field: it is
    `run`'s argument (and `run_openshop`'s, `load_instance`'s). Checked on construction (one-line `ConfigError`).

    Attributes
    ----------
    google : directory of the Google clusterdata-2011-2 slice (task_events/, job_events/).
    instance : an instance file (JSON, `fairsched.openshop.io`).
    jobs : jobs of a generated instance (used when neither `google` nor `instance` is given).
    machines : machines of a generated instance, or with `google` how many machines the trace's machines are
        mapped onto; None = the source's default (`GENERATED_MACHINES`, `GOOGLE_MACHINES`: §VII uses 200).
    max_tasks : the Google reader's task cap (§VII: 200).
    algorithm : which of `fairsched.openshop.policies.ALGORITHMS`; empty = the paper's three for `utilities`.
    utilities : ``equal`` (completion times) or ``linear`` (U_j = P_j·(τ − t)).
    online : jobs arrive over time (§VII-B) instead of all at 0.
    delta0 : δ₀ of the online intervals in seconds; None = a tenth of the arrival span (the paper: 3.3·10⁵ s for
        3.3·10⁶ s of arrivals).
    k : k of k-Max-Min.
    google_parts : which part numbers of the Google slice to read; None = all present (no CLI flag).
    """

    MODEL = "openshop"
    PATH_FIELDS = ("google", "instance")

    google: Path | None = None
    instance: Path | None = None
    jobs: int = 50
    machines: int | None = None
    max_tasks: int = 200
    algorithm: tuple[str, ...] = ()
    utilities: str = "equal"
    online: bool = False
    delta0: float | None = None
    k: int = 2
    google_parts: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        check_path(self.google, "google")
        check_path(self.instance, "instance")
        for name in ("jobs", "max_tasks", "k"):
            check_int(getattr(self, name), name)
        check_int(self.machines, "machines", optional=True)
        check_names(self.algorithm, "algorithm")
        check_choice(self.utilities, "utilities", UTILITIES)
        check_bool(self.online, "online")
        check_number(self.delta0, "delta0", positive=True, optional=True)
        if self.google_parts is not None and not (
                isinstance(self.google_parts, tuple)
                and all(isinstance(part, int) and not isinstance(part, bool) and part >= 0
                        for part in self.google_parts)):
            raise ConfigError(f"google_parts={self.google_parts!r}: expected a tuple of part numbers >= 0, e.g. "
                              "(0, 1)")
        _check(self)

@dataclass(frozen=True)
class Result:
    """An ``openshop`` run under the model contract: the `OpenShopReport` and its tidy rows.

    Data only: `fairsched.report.write_result` writes the files of ``--out``."""

    config: Config
    seed: int
    report: OpenShopReport

    def rows(self) -> pd.DataFrame:
        """One row per algorithm (in the order run): the config's columns, ``policy``, ``measure`` (completion
        time, delay or utility), ``n_jobs``, ``tau``, ``delta0_s`` and the summary of the measured values
        (``mean``, ``q4_mean``, ``std``, ``min``, ``max``; Networking'20 §VII); no timings."""
        report = self.report
        return rows_frame(self.config, [
            {"policy": name, "measure": report.measure, "n_jobs": report.instance.n_jobs, "tau": report.tau,
             "delta0_s": report.delta0, **outcome.summary} for name, outcome in report.outcomes.items()])


def run(config: Config, seed: int, *, progress: ProgressCallback | None = None) -> Result:
    """Run ``fairsched openshop`` with `config` and `seed` (`run_openshop`)."""
    if progress is not None:
        progress("scheduling", 0, 1)
    return Result(config=config, seed=seed, report=run_openshop(config, seed))


@dataclass(frozen=True)
class AlgorithmOutcome:
    """One algorithm's checked schedule, per-job times (completion offline, delay online), utilities (linear only),
    the summary of the measured values (utilities if linear, else times) and the seconds spent in the algorithm."""

    name: str
    schedule: OpenShopSchedule
    times: np.ndarray
    utilities: np.ndarray | None
    summary: dict[str, float]
    elapsed_s: float


@dataclass(frozen=True)
class OpenShopReport:
    """The instance, and every algorithm's outcome (in the order asked).

    Attributes
    ----------
    config, seed : what was run, with which seed.
    instance : as scheduled (offline: arrivals set to 0).
    outcomes : name -> `AlgorithmOutcome`; ``times`` are completion times (offline) or delays (online).
    tau : τ of linear utilities (None with equal utilities).
    time_unit_s : seconds per time unit of the instance.
    delta0 : δ₀ used online, in seconds (None offline).
    google : what the Google reader kept and dropped (None for other sources).
    """

    config: Config
    seed: int
    instance: OpenShopInstance
    source: str
    outcomes: dict[str, AlgorithmOutcome]
    tau: float | None
    time_unit_s: float
    delta0: float | None
    google: GoogleReport | None = None

    @property
    def measure(self) -> str:
        """What the per-job values are: completion / delay times, or utilities."""
        if self.config.utilities == "linear":
            return "utility"
        return "delay" if self.config.online else "completion time"


def run_openshop(config: Config, seed: int, *,
                 loaded: tuple[OpenShopInstance, str, float, GoogleReport | None] | None = None) -> OpenShopReport:
    """Load the instance, run every algorithm with `seed`, check and measure each schedule (module docstring).

    `loaded` is `load_instance`'s result for this configuration and seed, to reuse one read across several runs.

    Raises
    ------
    ConfigError, InputError : bad options or input files.
    InvalidScheduleError : an algorithm produced an invalid schedule (a bug, reported clearly).
    """
    instance, source, unit, google = loaded if loaded is not None else load_instance(config, seed)
    if instance.n_jobs == 0:
        raise ConfigError(f"{source}: no job to schedule (an empty jobs list, or every job dropped by the reader; "
                          "see its report with --json)")
    names = tuple(name.lower() for name in config.algorithm) or DEFAULT_ALGORITHMS[config.utilities]
    delta0 = _delta0(config, instance, unit) if config.online else None
    if not config.online:  # offline: every job is available at time 0 (§VII-A)
        instance = replace(instance, arrival=np.zeros(instance.n_jobs, dtype=np.int64))
    tau = horizon(instance, (delta0 or 0.0) / unit) if config.utilities == "linear" else None
    outcomes = {}
    for name in names:
        takes_tau = tau is not None and accepts(ALGORITHMS.entry(name).plugin, "tau")
        params: dict[str, Any] = {"tau": tau} if takes_tau else {}
        if name == "kmaxmin":
            params["k"] = config.k
        started = time.perf_counter()
        if config.online:
            schedule = run_online(instance, name, utilities=config.utilities, seed=seed, delta0=delta0,
                                  time_unit=unit, **params)
        else:
            schedule = solve(instance, name, utilities=config.utilities, seed=seed, **params)
        elapsed = time.perf_counter() - started
        validate_openshop_schedule(instance, schedule)
        times = schedule.completion.astype(np.float64) - (instance.arrival if config.online else 0)
        utilities = None if tau is None else metric_utilities(instance, schedule.completion, "linear", tau,
                                                               since_arrival=config.online)
        values = times if utilities is None else utilities
        outcomes[name] = AlgorithmOutcome(name, schedule, times, utilities,
                                          summary(values, higher_is_better=utilities is not None), elapsed)
    return OpenShopReport(config=config, seed=seed, instance=instance, source=source, outcomes=outcomes, tau=tau,
                          time_unit_s=unit, delta0=delta0, google=google)


def horizon(instance: OpenShopInstance, delta0_units: float = 0.0) -> float:
    """τ of linear utilities (module docstring): arrival span + largest machine load + δ₀ + 1 time unit."""
    if instance.n_jobs == 0:
        return 1.0
    span = int(instance.arrival.max() - instance.arrival.min())
    return float(span + int(instance.machine_loads().max(initial=0)) + math.ceil(delta0_units) + 1)


def load_instance(config: Config, seed: int) -> tuple[OpenShopInstance, str, float, GoogleReport | None]:
    """(instance, where it came from, seconds per time unit, the Google reader's report) for the configured source;
    `seed` draws the Google machine mapping or the generated instance."""
    if config.google is not None:
        instance, report = read_google(config.google, machines=config.machines or GOOGLE_MACHINES,
                                       max_tasks=config.max_tasks, seed=seed, parts=config.google_parts)
        return instance, f"Google clusterdata-2011-2 ({config.google})", float(report.time_unit_s), report
    if config.instance is not None:
        return read_instance(config.instance), str(config.instance), 1.0, None
    machines = config.machines or GENERATED_MACHINES
    instance = random_instance(config.jobs, machines, np.random.default_rng(seed))
    return instance, f"random: {config.jobs} jobs, {machines} machines, seed {seed}", 1.0, None


def _delta0(config: Config, instance: OpenShopInstance, unit: float) -> float:
    if config.delta0 is not None:
        return float(config.delta0)
    span = float(instance.arrival.max() - instance.arrival.min()) * unit if instance.n_jobs else 0.0
    return max(span / 10.0, unit)


def _check(config: Config) -> None:
    """The choices of `config` that depend on one another or on the registry, with the fix for each."""
    if config.google is not None and config.instance is not None:
        raise ConfigError("--google and --instance are exclusive: give one source")
    unknown = [name for name in config.algorithm if name.lower() not in ALGORITHMS]
    if unknown:
        raise ConfigError(f"--algorithm {', '.join(unknown)}: choose from {', '.join(ALGORITHMS)}")
    if config.online and "exact" in (name.lower() for name in config.algorithm):
        raise ConfigError("--online with --algorithm exact: exact references are offline only")
