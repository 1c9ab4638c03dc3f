"""One run of the multi-organization makespan model: instance -> algorithm -> checked schedule -> figures.

What ``fairsched mosp`` does (docs/mosp.md): read an instance file or generate one (``uni``, ``swf`` = the
Lublin–Feitelson model, ``trace`` = rigid jobs of an SWF trace), schedule it with one algorithm, check the schedule
with `fairsched.mosp.validate.validate_mosp_schedule` (capacity, every job once, the local constraint, the proven bound
when it applies, and that ILBA delayed no job), and measure each organization's makespan alone (local schedule)
and in cooperation.

The model contract (`fairsched._contract`): `Config` holds the options of ``fairsched mosp`` by their flags'
names; the same `Config` and the seed drive `run_mosp`. ``run(config, seed)`` returns a `Result` with ``rows()`` (one
row: the algorithm); `fairsched.report.write_result` writes it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched._contract import ExperimentConfig, ProgressCallback, check_choice, check_int, check_path, rows_frame
from fairsched.errors import ConfigError
from fairsched.mosp import solve
from fairsched.mosp.generate import generate, select_trace_jobs
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.io import read_instance
from fairsched.mosp.metrics import makespan, org_makespans, proven_bound, score
from fairsched.mosp.policies import ALGORITHMS
from fairsched.mosp.policies.local import LOCAL_ORDERS, local_schedule
from fairsched.mosp.validate import validate_mosp_schedule
from fairsched.workload.swf import read_swf

GENERATORS: tuple[str, ...] = ("uni", "swf", "trace")


@dataclass(frozen=True)
class Config(ExperimentConfig):
    """What ``fairsched mosp`` runs: its options by their flags' names, with the CLI's defaults (docs/mosp.md).

    The seed (instance generation, RND order) is not a field: it is `run`'s argument (and `run_mosp`'s). Checked
    on construction (one-line `ConfigError` naming the flag).

    Attributes
    ----------
    instance : an instance file (JSON, `fairsched.mosp.io`); if None, one is generated.
    generate : ``uni``, ``swf`` or ``trace`` (TPDS'11 §7.1; ``trace`` needs ``trace``).
    orgs, jobs, procs : N, n and m of a generated instance (every cluster has m processors).
    trace : SWF file for ``generate="trace"``: its first ``jobs`` jobs, users spread over the organizations.
    algorithm : one of `fairsched.mosp.policies.ALGORITHMS`.
    local_order : the local schedules' order (hf, lpt, spt, rnd).
    """

    MODEL = "mosp"
    PATH_FIELDS = ("instance", "trace")

    instance: Path | None = None
    generate: str = "uni"
    orgs: int = 5
    jobs: int = 100
    procs: int = 32
    trace: Path | None = None
    algorithm: str = "mocca+ilba"
    local_order: str = "hf"

    def __post_init__(self) -> None:
        check_path(self.instance, "instance")
        check_path(self.trace, "trace")
        check_choice(self.algorithm, "algorithm", ALGORITHMS)
        check_choice(self.generate, "generate", GENERATORS)
        check_choice(self.local_order, "local_order", LOCAL_ORDERS)
        for name in ("orgs", "jobs", "procs"):
            check_int(getattr(self, name), name)
        if self.instance is None and self.generate == "trace" and self.trace is None:
            raise ConfigError("--generate trace needs --trace FILE (an SWF trace)")

    def _reads(self, name: str) -> bool:
        return name == "instance" or (self.instance is None and self.generate == "trace")



@dataclass(frozen=True)
class Result:
    """A ``mosp`` run under the model contract: the `MospReport` and its tidy rows.

    Data only: `fairsched.report.write_result` writes the files of ``--out``."""

    config: Config
    seed: int
    report: MospReport

    def rows(self) -> pd.DataFrame:
        """One row: the config's columns, ``policy`` (the algorithm), ``n_orgs``, ``n_jobs``, ``lower_bound``,
        ``makespan``, ``makespan_local``, ``score`` and ``score_local`` (C_max / LB, TPDS'11 §7.1), and
        ``orgs_improved`` (organizations finishing earlier than alone); no timings."""
        report = self.report
        row: dict[str, Any] = {"policy": self.config.algorithm, "n_orgs": report.instance.n_orgs,
                               "n_jobs": report.instance.n_jobs, "lower_bound": float(report.lower_bound),
                               "makespan": int(report.makespan), "makespan_local": int(report.makespan_local),
                               "score": float(report.score), "score_local": float(report.score_local),
                               "orgs_improved": int(np.sum(report.org_coop < report.org_local))}
        return rows_frame(self.config, [row])

    def per_org(self) -> pd.DataFrame:
        """One row per organization: ``policy``, ``org``, ``jobs``, ``makespan_local`` (C_max^loc(O_k), alone on
        its cluster), ``makespan`` (C_max(O_k), cooperating) and ``gain`` = local − cooperative (> 0: it
        finishes earlier by cooperating; TPDS'11 §2's selfishness constraint asks gain >= 0)."""
        report = self.report
        orgs = np.arange(report.instance.n_orgs, dtype=np.int64)
        jobs = np.bincount(np.asarray(report.instance.owner, dtype=np.int64), minlength=report.instance.n_orgs)
        local = np.asarray(report.org_local, dtype=np.int64)
        coop = np.asarray(report.org_coop, dtype=np.int64)
        return pd.DataFrame({"policy": self.config.algorithm, "org": orgs, "jobs": jobs.astype(np.int64),
                             "makespan_local": local, "makespan": coop, "gain": local - coop})


def run(config: Config, seed: int, *, progress: ProgressCallback | None = None) -> Result:
    """Run ``fairsched mosp`` with `config` and `seed` (`run_mosp`)."""
    if progress is not None:
        progress(f"solving with {config.algorithm}", 0, 1)
    return Result(config=config, seed=seed, report=run_mosp(config, seed))


@dataclass(frozen=True)
class MospReport:
    """A checked schedule and its figures.

    Attributes
    ----------
    config : what was run.
    seed : the seed it was run with.
    instance, schedule, local : the instance, the algorithm's schedule, the local schedule (``local_order``).
    lower_bound : LB = max(Σ q·p / Σ m, p_max).
    org_local, org_coop : (N,) C_max^loc(O_k) and C_max(O_k).
    makespan_local, makespan : global makespans.
    source : where the instance came from.
    elapsed_s : seconds spent in the algorithm.
    selection : for a trace instance, what was kept and left out (None otherwise).
    """

    config: Config
    seed: int
    instance: MospInstance
    schedule: MospSchedule
    local: MospSchedule
    lower_bound: float
    org_local: np.ndarray
    org_coop: np.ndarray
    makespan_local: int
    makespan: int
    source: str
    elapsed_s: float
    selection: dict[str, object] | None = None

    @property
    def score(self) -> float:
        """C_max / LB (TPDS'11 §7.1); 1 = provably optimal."""
        return score(self.instance, self.schedule)

    @property
    def score_local(self) -> float:
        return score(self.instance, self.local)


def run_mosp(config: Config, seed: int) -> MospReport:
    """Build or read the instance, solve it, check the schedule (module docstring); `seed` drives instance
    generation and the RND order.

    Raises
    ------
    ConfigError, InputError : bad options or a bad instance file.
    InvalidScheduleError : the algorithm broke a rule or a proven bound (a bug, reported clearly).
    """
    instance, source, selection = load_instance(config, seed)
    started = time.perf_counter()
    schedule = solve(instance, config.algorithm, local_order=config.local_order, seed=seed)
    elapsed = time.perf_counter() - started
    local = local_schedule(instance, order=config.local_order, seed=seed)
    validate_mosp_schedule(instance, schedule, local_order=config.local_order, seed=seed,
                        makespan_bound=proven_bound(instance, config.algorithm, config.local_order),
                        delay_reference=_ilba_input(instance, config, seed))
    return MospReport(config=config, seed=seed, instance=instance, schedule=schedule, local=local,
                      lower_bound=instance.lower_bound(), org_local=org_makespans(instance, local),
                      org_coop=org_makespans(instance, schedule), makespan_local=makespan(instance, local),
                      makespan=makespan(instance, schedule), source=source, elapsed_s=elapsed, selection=selection)


def _ilba_input(instance: MospInstance, config: Config, seed: int) -> MospSchedule | None:
    """ILBA never delays a job (TPDS'11 Prop. 11): the schedule it started from, to check that against."""
    first = {"ilba": "local", "mocca+ilba": "mocca-exp"}.get(config.algorithm)
    return None if first is None else solve(instance, first, local_order=config.local_order, seed=seed)


def load_instance(config: Config, seed: int) -> tuple[MospInstance, str, dict[str, object] | None]:
    """The instance file, or a generated instance; a one-line description of where it came from; for a trace,
    what was kept and left out (`fairsched.mosp.generate.TraceSelection.as_dict`)."""
    if config.instance is not None:
        return read_instance(config.instance), str(config.instance), None
    procs = np.full(config.orgs, config.procs, dtype=np.int64)
    if config.generate == "trace":
        if config.trace is None:
            raise ConfigError("--generate trace needs --trace FILE (an SWF trace)")
        selection = select_trace_jobs(read_swf(config.trace), config.orgs, procs, seed=seed,
                                      first=config.jobs)
        summary = selection.as_dict()
        too_wide = selection.too_wide
        return selection.instance, (f"{config.trace}: first {selection.instance.n_jobs} usable jobs, "
                                    f"{config.orgs} organizations ({too_wide} wider than a cluster of "
                                    f"{config.procs} dropped)"), summary
    instance = generate(config.generate, n_orgs=config.orgs, n_jobs=config.jobs, procs=procs,
                        seed=np.random.default_rng(seed))
    return instance, f"generated {config.generate}: N={config.orgs}, n={config.jobs}, m={config.procs}, " \
                     f"seed {seed}", None
