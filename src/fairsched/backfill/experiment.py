"""The `backfill` experiment: one trace, one queue order × backfilling rule, classic metrics and unfairness.

Implements the measurement pipeline of G. Sabin, P. Sadayappan, "Unfairness metrics for space-sharing parallel
job schedulers", JSSPP 2005, for one policy and one trace (§4 set-up, §3 metrics):

1. read the SWF trace; drop the jobs no simulator can replay (`fairsched.workload.clean.clean`, with the machine
   size P, so that jobs wider than the machine go too; these are the pyss oracle README's cleaning rules);
2. keep the jobs submitted in a time window, then the first N of them (the paper uses 5000-job subsets);
3. optionally scale the offered load, by runtime expansion (JSSPP'05 §4) or arrival compression;
4. simulate (`fairsched.backfill.simulate`) and validate the schedule (`fairsched.backfill.validate`);
5. measure the classic metrics (`fairsched.backfill.metrics.summary`) and the unfairness metrics asked for:
   strict / relaxed fair start time (§3.1) and resource equality (§3.2), from `fairsched.backfill.fairness`.

`trace_resource_equality` measures resource-equality unfairness of the schedule a trace *recorded* (start =
submit + wait, SWF fields 2 and 3), with no simulation (§3.2: "computed using post processing").

The library never prints or writes files: `fairsched.report.backfill` renders and writes the results.

The model contract (`fairsched._contract`): `Config` holds the options of ``fairsched backfill`` by their flags'
names, plus ``validate`` (no CLI flag); the same `Config` drives `run_backfill` and `backfill_workload`.
``run(config, seed)`` returns a `Result` with ``rows()`` (one row: the order × rule);
`fairsched.report.write_result` writes it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from fairsched._contract import (
    ExperimentConfig,
    ProgressCallback,
    check_bool,
    check_int,
    check_names,
    check_number,
    check_path,
    rows_frame,
)
from fairsched.backfill.engine import BackfillResult, simulate
from fairsched.backfill.jobs import jobs_from_workload
from fairsched.backfill.metrics import summary
from fairsched.backfill.policies import get_backfill, get_order
from fairsched.backfill.policies.slurm_rule import (
    BF_INTERVAL_DEFAULT,
    BF_MAX_JOB_TEST_DEFAULT,
    BF_WINDOW_DEFAULT,
    slurm_rule,
)
from fairsched.backfill.validate import validate_backfill_schedule
from fairsched.backfill.view import BackfillRule
from fairsched.errors import ConfigError, FairschedError
from fairsched.workload.clean import CleanReport, clean
from fairsched.workload.model import ReadReport, Workload, WorkloadColumns
from fairsched.workload.schema import PROCESSORS
from fairsched.workload.swf import read_swf, read_swf_columns
from fairsched.workload.transform import first_jobs, offered_load, scale_to_load, window

if TYPE_CHECKING:  # pandas and the fairness metrics are imported where they are used: a plain run needs neither
    import pandas as pd

# Unfairness metrics a run may ask for (CLI ``--fairness``), and the per-job columns each adds to `fairness.csv`.
FAIRNESS_METRICS: dict[str, tuple[str, ...]] = {
    "fst-strict": ("fst_strict",),
    "fst-relaxed": ("fst_relaxed",),
    "re": ("re_deserved", "re_consumed"),
}
LOAD_SCALINGS: tuple[str, ...] = ("runtime", "arrival")
SLURM_RULE_FIELDS: tuple[str, ...] = ("bf_interval", "bf_window", "bf_max_job_test")
"""The ``slurm`` rule's parameters among `Config`'s fields (`fairsched.backfill.policies.slurm_rule`)."""
W = TypeVar("W", Workload, WorkloadColumns)  # preparing keeps the workload's kind: pandas table or numpy columns


@dataclass(frozen=True)
class Config(ExperimentConfig):
    """What ``fairsched backfill`` runs: its options by their flags' names, with the CLI's defaults (docs/backfill.md).

    The model has no randomness: `run`'s seed is recorded, not used. Checked on construction (one-line
    `ConfigError` naming the flag; an unknown order or rule is an `UnknownPolicyError` listing the choices).

    Attributes
    ----------
    trace : SWF file (``.swf`` or ``.swf.gz``); required by `run` and `run_backfill` (None only for
        `backfill_workload`, which is given the workload in memory).
    procs : P, the machine size; None = the trace header's ``MaxProcs``.
    order : queue order, ``fcfs``, ``sjf`` or ``lxf``.
    backfill : backfilling rule, ``none``, ``no-guarantee``, ``easy`` or ``conservative``.
    load : offered load to reach (e.g. 0.9) after windowing; None = the trace's own.
    load_by : ``runtime`` (run and requested times × factor, JSSPP'05 §4) or ``arrival`` (compression).
    window_start, window_length : keep the jobs submitted in [start, start + length) (trace seconds; times are
        not shifted). None = from the first submit / to the end.
    first : then keep only the first N jobs (JSSPP'05 uses 5000-job subsets); None = all.
    fairness : unfairness metrics to compute, from `FAIRNESS_METRICS` (``fst-strict``, ``fst-relaxed``, ``re``).
    bf_interval, bf_window, bf_max_job_test : the ``slurm`` rule's parameters (seconds between backfill passes,
        seconds of its plan, jobs tested per pass; Slurm's defaults 30, 86400, 500). Other rules refuse values
        other than the defaults; report.json lists them only for ``slurm``, and rows give them as null (not
        applicable). A sweep leaves them out of the cells of other rules (`not_applicable`, docs/sweeps.md).
    skip_bad_records : drop malformed SWF records (counted in the read report) instead of failing.
    validate : check the schedule with `fairsched.backfill.validate.validate_backfill_schedule` (no CLI flag).
    """

    MODEL = "backfill"
    PATH_FIELDS = ("trace",)
    REQUIRED = ("trace",)  # None only for `backfill_workload`; `run` reads it

    trace: Path | None = None
    procs: int | None = None
    order: str = "fcfs"
    backfill: str = "easy"
    load: float | None = None
    load_by: str = "runtime"
    window_start: float | None = None
    window_length: float | None = None
    first: int | None = None
    fairness: tuple[str, ...] = ()
    bf_interval: int = BF_INTERVAL_DEFAULT
    bf_window: int = BF_WINDOW_DEFAULT
    bf_max_job_test: int = BF_MAX_JOB_TEST_DEFAULT
    skip_bad_records: bool = False
    validate: bool = True

    def __post_init__(self) -> None:
        check_path(self.trace, "trace")
        check_int(self.procs, "procs", optional=True)
        check_number(self.load, "load", positive=True, optional=True)
        check_number(self.window_start, "window_start", optional=True)
        check_number(self.window_length, "window_length", optional=True)
        check_names(self.fairness, "fairness")
        check_bool(self.skip_bad_records, "skip_bad_records")
        check_bool(self.validate, "validate")
        for name in SLURM_RULE_FIELDS:
            check_int(getattr(self, name), name)
        _check_names(self)
        self.rule()  # the slurm rule's own checks

    def rule(self) -> BackfillRule:
        """The backfilling rule, with its parameters (``slurm``: `slurm_rule` of the bf_* fields)."""
        if get_backfill(self.backfill).name != "slurm":
            return get_backfill(self.backfill)
        return slurm_rule(self.bf_interval, self.bf_window, self.bf_max_job_test)

    @classmethod
    def not_applicable(cls, options: Mapping[str, Any]) -> tuple[str, ...]:
        """The fields among `options` (field name -> value) that have no effect with the others: the ``slurm``
        rule's `SLURM_RULE_FIELDS` when ``backfill`` names another rule. `fairsched.sweep.spec.expand` leaves
        them out of such a cell; the Config itself refuses them (the command's one-line error). An unknown rule
        gives (): the Config names the error.

        >>> Config.not_applicable({"backfill": "easy", "bf_window": 3600, "order": "sjf"})
        ('bf_window',)
        >>> Config.not_applicable({"bf_interval": 60}), Config.not_applicable({"backfill": "slurm", "bf_window": 1})
        (('bf_interval',), ())
        """
        name = options.get("backfill", cls.backfill)
        try:
            slurm = isinstance(name, str) and get_backfill(name).name == "slurm"
        except FairschedError:
            return ()
        return () if slurm else tuple(field for field in SLURM_RULE_FIELDS if field in options)

    def columns(self) -> dict[str, Any]:
        """The config's fields as table cells; the bf_* fields are None (not applicable) unless the rule is
        ``slurm``, so that a row never shows parameters its run did not use."""
        columns = super().columns()
        if self.rule().name != "slurm":
            columns.update(dict.fromkeys(SLURM_RULE_FIELDS))
        return columns

@dataclass(frozen=True)
class Result:
    """A ``backfill`` run under the model contract: the `BackfillReport` and its tidy rows.

    Data only: `fairsched.report.write_result` writes the files of ``--out``."""

    config: Config
    seed: int
    report: BackfillReport

    def rows(self) -> pd.DataFrame:
        """One row: the config's columns, ``policy`` (``<order>/<backfill>``), ``n_processors``,
        ``n_estimates_filled`` (jobs without a requested time, planned with their run time:
        `BackfillJobs.n_estimates_filled`), the classic metrics (`fairsched.backfill.metrics.summary`),
        ``offered_load_before/after`` and, per unfairness metric asked for, its overall ``<metric>_unfairness``,
        ``_benefit``, ``_n_unfair``, ``_n_benefit``, ``_max_unfairness`` (JSSPP'05 §3); no timings."""
        report = self.report
        row: dict[str, Any] = {"policy": self.policy, "n_processors": report.n_processors,
                               "n_estimates_filled": report.result.jobs.n_estimates_filled, **report.metrics,
                               "offered_load_before": report.offered_load["before"],
                               "offered_load_after": report.offered_load["after"]}
        for metric, entry in report.unfairness.items():
            if isinstance(entry, dict) and "unfairness" in entry:
                row.update({f"{metric}_{key}": value for key, value in entry.items() if key != "by_width"})
        row.update({"n_jobs": int(report.result.jobs.n_jobs), "n_machines": report.n_processors,
                    "offered_load": report.offered_load["after"]})
        return rows_frame(self.config, [row])

    @property
    def policy(self) -> str:
        """``<order>/<backfill>``, the row's ``policy``."""
        return f"{self.report.result.meta['order']}/{self.report.result.meta['backfill']}"

    def per_org(self) -> pd.DataFrame:
        """One row per user of the trace (SWF field 12; the backfill model has no organizations, so each user is
        one): ``policy``, ``org`` (the user id), ``jobs``, ``work`` (processor-seconds), ``mean_wait`` and
        ``max_wait`` (seconds), then per unfairness metric asked for, ``<metric>_unfairness`` (Σ max(start − FST,
        0) / jobs of the user, JSSPP'05 §3.1.3; for ``re``, Σ max(D_i, 0) / jobs, §3.2) and ``<metric>_n_unfair``.
        """
        return per_user_frame(self.report, self.policy)


def run(config: Config, seed: int, *, progress: ProgressCallback | None = None) -> Result:
    """Run ``fairsched backfill`` with `config` (`run_backfill`); `seed` is recorded (the model is deterministic)."""
    return Result(config=config, seed=seed, report=run_backfill(config, progress=progress))


@dataclass(frozen=True)
class BackfillReport:
    """Everything `run_backfill` measured; rendered and written by `fairsched.report.backfill`.

    Attributes
    ----------
    config : the configuration run.
    workload : the simulated jobs as a workload (after cleaning, window, first N and load scaling), in the
        engine's job order; the SWF export writes it back with the simulated wait times. `run_backfill` reads
        the trace into numpy columns (`WorkloadColumns`), so a run imports pandas only for what needs a table.
    result : the engine's `BackfillResult` (schedule, jobs, meta; ``meta["load"]`` is the target load).
    metrics : `fairsched.backfill.metrics.summary` of the schedule.
    fairness : one row per job (``job`` and the `FAIRNESS_METRICS` columns asked for), None when none was asked.
    unfairness : `fairsched.backfill.fairness.unfairness_summary` of the metrics asked for ({} when none).
    offered_load : ``{"before", "after"}`` load scaling (None when undefined).
    timings : wall-clock seconds of ``simulate`` and ``fairness``.
    elapsed_s : wall-clock seconds of the whole run.
    read_report, clean_report : what reading and cleaning did (None for in-memory workloads / not cleaned).
    """

    config: Config
    workload: Workload | WorkloadColumns
    result: BackfillResult
    metrics: dict[str, float]
    fairness: pd.DataFrame | None
    unfairness: dict[str, Any]
    offered_load: dict[str, float | None]
    timings: dict[str, float]
    elapsed_s: float
    read_report: ReadReport | None = None
    clean_report: CleanReport | None = None

    @property
    def n_processors(self) -> int:
        return int(self.result.jobs.n_processors)


def run_backfill(config: Config, *, progress: ProgressCallback | None = None) -> BackfillReport:
    """Run the whole pipeline of the module docstring (steps 1–5) on ``config.trace``.

    Implements the JSSPP'05 §4 set-up for one policy, measured with the §3 metrics. `config` was checked on
    construction (names of the order, rule and metrics included), so a typo fails before the trace is read.
    `progress` is told each step (`backfill_workload`).

    Raises
    ------
    UnknownPolicyError : unknown order or backfilling rule (the message lists the choices).
    ConfigError, InputError : bad options or a malformed trace.
    InvalidScheduleError : the engine broke the model's rules (a bug; only with ``validate=True``).
    """
    started = time.perf_counter()
    if config.trace is None:
        raise ConfigError("--trace: required; give an SWF file (.swf or .swf.gz)")
    if progress is not None:
        progress(f"reading {Path(config.trace).name}", 0, 1)
    workload = read_swf_columns(Path(config.trace), skip_bad_records=config.skip_bad_records, compiled=True)
    report = backfill_workload(workload, config, progress=progress)
    return replace(report, read_report=workload.read_report, elapsed_s=time.perf_counter() - started)


def backfill_workload(workload: Workload | WorkloadColumns, config: Config, *,
                      progress: ProgressCallback | None = None) -> BackfillReport:
    """Steps 1 (cleaning) to 5 on a workload already in memory (pandas or numpy columns); ``config.trace`` is
    ignored.

    Cost: O(n log n) for the preparation, one simulation, and the fairness metrics asked for (strict / relaxed
    FST: one what-if simulation per job, each stopped as soon as its job has started). `progress` is called as
    ``progress(description, done, total)`` before the simulation (0 of 1) and during each FST measure (jobs
    done of all jobs).
    """
    started = time.perf_counter()
    processors = _machine_size(workload, config.procs)
    prepared, clean_report, loads = prepare_workload(workload, config, processors)
    jobs = jobs_from_workload(prepared, n_processors=processors)
    order, rule = get_order(config.order), config.rule()
    if progress is not None:
        progress(f"simulating {order.name} × {rule.name}", 0, 1)
    tick = time.perf_counter()
    result = simulate(jobs, order=order, backfill=rule)
    timings = {"simulate": time.perf_counter() - tick}
    result = replace(result, meta={**result.meta, "load": config.load,
                                   "load_by": config.load_by if config.load is not None else None})
    if config.validate:
        bf = dict(rule.params)
        validate_backfill_schedule(result.columns, jobs, order=order.name, backfill=rule.name,
                                   bf_interval=bf.get("bf_interval", BF_INTERVAL_DEFAULT),
                                   bf_window=bf.get("bf_window", BF_WINDOW_DEFAULT))
    tick = time.perf_counter()
    per_job, unfairness = measure_fairness(result, config.fairness, progress=progress)
    timings["fairness"] = time.perf_counter() - tick
    return BackfillReport(config=config, workload=prepared, result=result,
                          metrics=summary(result.columns, processors), fairness=per_job, unfairness=unfairness,
                          offered_load=loads, timings=timings, elapsed_s=time.perf_counter() - started,
                          clean_report=clean_report)


def prepare_workload(workload: W, config: Config, processors: int) -> tuple[W, CleanReport, dict[str, float | None]]:
    """Steps 1–3: clean (P as machine size), window, first N, scale the load. O(n log n).

    Returns the prepared workload (of the same kind: pandas `Workload` or `WorkloadColumns`), the cleaning report
    and the offered load before and after scaling.
    """
    cleaned, clean_report = clean(workload, max_processors=processors)
    prepared = cleaned
    if config.window_start is not None or config.window_length is not None:
        prepared = window(prepared, start=config.window_start, length=config.window_length)
    if config.first is not None:
        prepared = first_jobs(prepared, config.first)
    if prepared.n_jobs == 0:
        raise ConfigError(_no_jobs_message(cleaned, prepared))
    before = _load_or_none(prepared, processors)
    if config.load is not None:
        prepared = scale_to_load(prepared, config.load, processors, how=config.load_by)  # type: ignore[arg-type]
    after = before if config.load is None else _load_or_none(prepared, processors)
    return prepared, clean_report, {"before": before, "after": after}


def measure_fairness(result: BackfillResult, metrics: tuple[str, ...] | list[str], *,
                     progress: ProgressCallback | None = None) -> tuple[pd.DataFrame | None, dict[str, Any]]:
    """The per-job unfairness columns asked for (`FAIRNESS_METRICS`) and their summary (JSSPP'05 §3).

    Returns (None, {}) when `metrics` is empty. The FST what-ifs use the run's own order and rule (§3.1: "the
    same policy"); resource equality needs only the schedule (§3.2). `progress` is told the jobs done by each
    FST measure (``progress("fair start times, strict", done, n_jobs)``).
    """
    wanted = {_metric_key(name) for name in metrics}
    asked = [name for name in FAIRNESS_METRICS if name in wanted]
    if not asked:
        return None, {}
    import pandas as pd

    from fairsched.backfill import fairness

    jobs, schedule = result.jobs, result.schedule
    order, rule = result.meta["order"], result.meta["backfill"]
    if "backfill_params" in result.meta:  # the slurm rule with the run's own parameters
        rule = slurm_rule(**result.meta["backfill_params"])
    columns: dict[str, np.ndarray] = {"job": schedule["job"].to_numpy()}
    fst: dict[str, np.ndarray] = {}
    for kind in ("strict", "relaxed"):
        if f"fst-{kind}" in asked:
            told = None if progress is None else functools.partial(progress, f"fair start times, {kind}")
            fst[kind] = fairness.fair_start_times(jobs, order=order, backfill=rule, kind=kind, schedule=schedule,
                                                  progress=told)
            columns[f"fst_{kind}"] = fst[kind]
    re_frame = None
    if "re" in asked:
        re_frame = fairness.resource_equality(schedule, jobs.n_processors)
        columns["re_deserved"] = re_frame["deserved"].to_numpy()
        columns["re_consumed"] = re_frame["consumed"].to_numpy()
    unfairness = fairness.unfairness_summary(schedule, fst=fst or None, re=re_frame)
    return pd.DataFrame(columns), unfairness


def per_user_frame(report: BackfillReport, policy: str) -> pd.DataFrame:
    """`Result.per_org`: the schedule's waits and the unfairness asked for, summed per user (sorted by id)."""
    import pandas as pd

    from fairsched.backfill import fairness

    schedule = report.result.schedule
    users = report.workload.column("user_id")
    if len(users) != len(schedule):
        raise ConfigError("the prepared workload and the schedule list different jobs")
    wait = schedule["wait"].to_numpy(np.float64)
    columns: dict[str, np.ndarray] = {"org": users, "wait": wait,
                                      "work": (schedule["end"] - schedule["start"]).to_numpy(np.float64)
                                      * schedule["procs"].to_numpy(np.float64)}
    per_job = report.fairness
    for kind in ("strict", "relaxed"):
        name = f"fst_{kind}"
        if per_job is not None and name in per_job.columns:
            miss = fairness.fst_unfairness(schedule, per_job[name].to_numpy())["unfairness"].to_numpy(np.float64)
            columns[name] = miss
    if per_job is not None and "re_deserved" in per_job.columns:
        deficit = per_job["re_deserved"].to_numpy(np.float64) - per_job["re_consumed"].to_numpy(np.float64)
        columns["re"] = np.maximum(deficit, 0.0)  # D_i = d_i - s_i, unfair when positive (§3.2)
    frame = pd.DataFrame(columns)
    grouped = frame.groupby("org", sort=True)
    out = pd.DataFrame({"policy": policy, "org": grouped.size().index.to_numpy(), "jobs": grouped.size().to_numpy(),
                        "work": grouped["work"].sum().to_numpy(), "mean_wait": grouped["wait"].mean().to_numpy(),
                        "max_wait": grouped["wait"].max().to_numpy()})
    for name in [c for c in ("fst_strict", "fst_relaxed", "re") if c in frame.columns]:
        out[f"{name}_unfairness"] = grouped[name].mean().to_numpy()
        out[f"{name}_n_unfair"] = grouped[name].agg(lambda v: int((v > 0).sum())).to_numpy()
    return out


@dataclass(frozen=True)
class TraceUnfairness:
    """Resource-equality unfairness of the schedule a trace recorded (`trace_resource_equality`).

    Attributes
    ----------
    source : the trace.
    n_processors : P used for the used-processor profile.
    schedule : ``job, submit, start, end, procs`` of the measured jobs (start = submit + wait).
    re : `fairsched.backfill.fairness.resource_equality` of it (job, deserved, consumed, deficit).
    unfairness : `fairsched.backfill.fairness.unfairness_summary` (overall and by width).
    dropped : jobs left out, by reason (cleaning reasons, then ``wait time missing``).
    elapsed_s : wall-clock seconds.
    """

    source: str
    n_processors: int
    schedule: pd.DataFrame
    re: pd.DataFrame
    unfairness: dict[str, Any]
    dropped: dict[str, int]
    elapsed_s: float


def trace_resource_equality(trace: str | Path, *, processors: int | None = None,
                            skip_bad_records: bool = False) -> TraceUnfairness:
    """Resource-equality unfairness (JSSPP'05 §3.2) of the trace's real schedule: start = submit + wait.

    Jobs that cleaning drops (no run time, no processors, wider than P) and jobs with no recorded wait time
    (SWF field 3 = -1) cannot be placed in time: they are left out and counted in ``dropped``. O(n log n).
    """
    from fairsched.backfill import fairness

    started = time.perf_counter()
    workload = read_swf(Path(trace), skip_bad_records=skip_bad_records)
    n_processors = _machine_size(workload, processors)
    schedule, dropped = recorded_schedule(workload, n_processors)
    re_frame = fairness.resource_equality(schedule, n_processors)
    return TraceUnfairness(source=workload.source or str(trace), n_processors=n_processors, schedule=schedule,
                           re=re_frame, unfairness=fairness.unfairness_summary(schedule, re=re_frame),
                           dropped=dropped, elapsed_s=time.perf_counter() - started)


def recorded_schedule(workload: Workload, n_processors: int) -> tuple[pd.DataFrame, dict[str, int]]:
    """``job, submit, start, end, procs`` as the trace ran it (start = submit + wait, end = start + run).

    Returns the schedule (jobs with a wait time >= 0, after cleaning with P = `n_processors`) and the number of
    jobs left out per reason. Times stay float seconds as recorded.
    """
    import pandas as pd

    cleaned, report = clean(workload, max_processors=n_processors)
    jobs = cleaned.jobs
    wait = jobs["wait_time"].to_numpy(np.float64)
    known = np.isfinite(wait) & (wait >= 0)
    dropped = {reason: count for reason, count in report.dropped.items() if count}
    if not known.all():
        dropped["wait time missing"] = int((~known).sum())
    if not known.any():
        raise ConfigError(f"{workload.source or 'the trace'}: no job has both a run time and a recorded wait time "
                          "(SWF fields 3 and 4), so its real schedule is unknown; simulate one instead with "
                          "`fairsched backfill --fairness re`")
    submit = jobs["submit_time"].to_numpy(np.float64)[known]
    start = submit + wait[known]
    schedule = pd.DataFrame({"job": jobs["job_number"].to_numpy()[known], "submit": submit, "start": start,
                             "end": start + jobs["run_time"].to_numpy(np.float64)[known],
                             "procs": jobs[PROCESSORS].to_numpy()[known]})
    return schedule, dropped


def _check_names(config: Config) -> None:
    """The names and choices of `config` the field checks leave (order, rule, metrics, load scaling, first N), with
    the fix for each. Raises ConfigError/UnknownPolicyError."""
    get_order(config.order)
    rule = get_backfill(config.backfill)
    changed = [name for name in SLURM_RULE_FIELDS if getattr(config, name) != getattr(Config, name)]
    if rule.name != "slurm" and changed:
        raise ConfigError(f"--{changed[0].replace('_', '-')} sets the slurm backfilling rule; it has no effect with "
                          f"--backfill {rule.name} (use --backfill slurm)")
    unknown = [name for name in config.fairness if _metric_key(name) not in FAIRNESS_METRICS]
    if unknown:
        raise ConfigError(f"unknown fairness metric(s) {', '.join(map(repr, unknown))}; choose from: "
                          f"{', '.join(FAIRNESS_METRICS)} (comma-separated, e.g. --fairness fst-strict,re)")
    if config.load_by not in LOAD_SCALINGS:
        raise ConfigError(f"load_by={config.load_by!r}: choose one of {', '.join(LOAD_SCALINGS)}")
    if config.first is not None and (isinstance(config.first, bool) or not isinstance(config.first, int)
                                     or config.first < 1):
        raise ConfigError(f"first={config.first!r}: expected a number of jobs >= 1")


def _metric_key(name: str) -> str:
    """``" FST_Strict"`` -> ``"fst-strict"``: names as typed on a command line."""
    return str(name).strip().lower().replace("_", "-")


def _machine_size(workload: Workload | WorkloadColumns, processors: int | None) -> int:
    if processors is not None:
        if isinstance(processors, bool) or not isinstance(processors, int | np.integer) or processors < 1:
            raise ConfigError(f"processors={processors!r}: expected a positive integer machine size")
        return int(processors)
    header = workload.header_int("MaxProcs")
    if header is None or header < 1:
        raise ConfigError(f"{workload.source or 'the trace'}: the header gives no MaxProcs; pass the machine size "
                          "with --procs P")
    return header


def _load_or_none(workload: Workload | WorkloadColumns, processors: int) -> float | None:
    try:
        return offered_load(workload, processors)
    except ConfigError:  # a span of 0 s: the load is undefined, which the report shows as null
        return None


def _no_jobs_message(cleaned: Workload | WorkloadColumns, prepared: Workload | WorkloadColumns) -> str:
    where = prepared.source or "the trace"
    if cleaned.n_jobs == 0:
        return (f"no job left to simulate in {where}: cleaning dropped every job; see what it drops with "
                "`fairsched trace info`")
    submit = cleaned.column("submit_time")
    return (f"no job left to simulate in {where}: the window holds no job; window start and length are trace "
            f"seconds and the jobs are submitted between {submit.min():.0f} and {submit.max():.0f}")
