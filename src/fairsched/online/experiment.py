"""The `compare` experiment: several online policies on one scenario, each measured against a reference.

Implements the evaluation protocol of Skowron & Rzadca, "Non-monetary fair scheduling — cooperative game theory
approach" (SPAA 2013, long version arXiv 1302.0948), Sec. 6.2–6.3, and "Fair share is not enough: measuring
fairness in scheduling with cooperative game theory" (PPAM 2013, LNCS 8385), Sec. 5.1:

1. read a trace (or generate the embedded synthetic default), drop the jobs no simulator can replay;
2. keep the jobs submitted in a time window; the window start becomes time 0 and its length the horizon t_end;
3. optionally multiply release times by a factor (SPAA'13 Sec. 6.3.1 uses 0.1 to load a larger system);
4. spread the users over k organizations and the machines among them (`fairsched.scenario.build_scenario`);
5. simulate every policy, the reference included, and validate each schedule;
6. compare each policy's utility vector psi at t_end with the reference's psi*: Delta psi = sum_u |psi_u - psi*_u|,
   divided by p_tot, the unit parts of jobs the reference executed by t_end (SPAA'13 Sec. 6.3; PPAM'13 Sec. 5.1).
   Delta psi / p_tot is the average unjustified delay (or speed-up) of a unit of work, in seconds.

The papers' reference is REF, the exact exponential algorithm (SPAA'13 Alg. 1, lookahead selection rule): it is the
default reference when k <= ``ref_max_orgs`` (12); beyond that REF's 2**k coalitions are too costly and the default
is DIRECTCONTR, the heuristic closest to REF in PPAM'13 Tables 1–2.

The library never prints or writes files: `fairsched.report.online` renders and writes a `CompareResult`.

The model contract (`fairsched._contract`): `Config` holds the options of ``fairsched compare`` by their flags'
names, plus the knobs the CLI lacks (``ref_max_orgs``, ``validate``); the same `Config` drives `run_compare`, the
replications and `compare_scenario` on hand-made scenarios. ``run(config, seed)`` returns a `Result` with
``rows()`` (one row per policy, `summary_frame`); `fairsched.report.write_result` writes the files of ``--out``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

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
from fairsched.errors import ConfigError
from fairsched.online import metrics
from fairsched.online.engine import OnlineResult, simulate
from fairsched.online.metrics import FairnessComparison
from fairsched.online.policies import get_policy
from fairsched.online.validate import validate_online_schedule
from fairsched.scenario import (
    DEFAULT_ZIPF_S,
    MEMBER_COLUMNS,
    ORG_ID_COLUMNS,
    MachineSplit,
    Scenario,
    build_scenario,
    describe,
    resolve_machines,
)
from fairsched.workload.clean import CleanReport, clean
from fairsched.workload.model import ReadReport, Workload
from fairsched.workload.swf import read_swf
from fairsched.workload.synthetic import generate_default
from fairsched.workload.transform import compress_arrivals, window

DEFAULT_POLICIES: tuple[str, ...] = ("roundrobin", "fairshare", "utfairshare", "currfairshare", "directcontr",
                                     "rand")
DEFAULT_REF_MAX_ORGS = 12
FALLBACK_REFERENCE = "directcontr"

# The scenario's rules for m, in the words of the command's flags.
_MACHINES_RULES = {"given": "--machines", "the sum of the split counts": "the --split counts"}

# Short names accepted wherever a policy is named (CLI flags, Config); the registry holds the full names.
POLICY_ALIASES: dict[str, str] = {"rr": "roundrobin"}


@dataclass(frozen=True)
class Config(ExperimentConfig):
    """What ``fairsched compare`` runs: its options by their flags' names, with the CLI's defaults (docs/usage.md).

    The seed is not a field: it is `run`'s argument (and `run_compare`'s, `prepare_scenario`'s and
    `compare_scenario`'s). Checked on construction: a wrong value is a one-line `ConfigError` naming the flag, an
    unknown policy an `UnknownPolicyError` listing the registered ones.

    Attributes
    ----------
    trace : SWF file (``.swf`` or ``.swf.gz``); None = the embedded synthetic default
        (`fairsched.workload.synthetic.generate_default`, always generated with its own fixed seed, so that
        the seed changes the scenario and the policies' draws, never the jobs).
    orgs : k, the number of organizations.
    orgs_by : what makes an organization: ``"user"`` (SWF field 12, as in PPAM'13 Sec. 5.1), ``"group"`` or
        ``"queue"``; ids are spread uniformly at random over the k organizations.
    org_map : file mapping ids to organizations explicitly (see `fairsched.scenario.build_scenario`).
    machines : total machines m; None = the trace's machine size (header ``MaxProcs``, as in the papers).
    split : how the machines are split among organizations: ``"even"``, ``"uniform"`` (random counts, uniform),
        ``"zipf"`` (Zipf counts with exponent ``zipf_s``) or an explicit comma-separated list of counts; given as
        text (or counts), parsed on construction into a `fairsched.scenario.MachineSplit` (still a str).
        None = ``"zipf"`` for the embedded synthetic default (its documented set-up: a few large contributors
        and several small ones, where fairness matters) and ``"uniform"`` for a trace.
    zipf_s : exponent of the Zipf split.
    window_start, window_length : keep the jobs submitted in [start, start + length) (trace seconds); start
        becomes time 0 and length the horizon t_end. None = from the first submit / up to the last completion.
    release_scale : multiply release times (relative to the window start) by this factor after windowing;
        < 1 packs arrivals and raises the load (SPAA'13 Sec. 6.3.1 uses 0.1). The horizon is not scaled.
    policies : registered online policy names (aliases such as ``"rr"`` accepted), in report order.
    reference : the policy every other is compared with; simulated even when not listed in ``policies``.
        None = ``"ref"`` when k <= ``ref_max_orgs``, else ``"directcontr"`` (see `effective_reference`).
    ref_max_orgs : largest k for which REF is the default reference (no CLI flag).
    skip_bad_records : drop malformed SWF records (counted in the read report) instead of failing.
    validate : check every schedule with `fairsched.online.validate.validate_online_schedule` (no CLI flag).
    """

    MODEL = "compare"
    PATH_FIELDS = ("trace", "org_map")

    trace: Path | None = None
    orgs: int = 5
    orgs_by: str = "user"
    org_map: Path | None = None
    machines: int | None = None
    split: MachineSplit | None = None
    zipf_s: float = DEFAULT_ZIPF_S
    window_start: float | None = None
    window_length: float | None = None
    release_scale: float = 1.0
    policies: tuple[str, ...] = DEFAULT_POLICIES
    reference: str | None = None
    ref_max_orgs: int = DEFAULT_REF_MAX_ORGS
    skip_bad_records: bool = False
    validate: bool = True

    def __post_init__(self) -> None:
        check_path(self.trace, "trace")
        check_path(self.org_map, "org_map")
        check_int(self.orgs, "orgs")
        if self.orgs_by not in ORG_ID_COLUMNS:
            raise ConfigError(f"--orgs-by {self.orgs_by!r}: choose one of {', '.join(ORG_ID_COLUMNS)}")
        check_int(self.machines, "machines", optional=True)
        if self.split is not None:  # parsed once, here: a wrong --split fails before the trace is read
            object.__setattr__(self, "split", MachineSplit.parse(self.split, flag="--split"))
        check_number(self.zipf_s, "zipf_s")
        check_number(self.window_start, "window_start", optional=True)
        check_number(self.window_length, "window_length", optional=True)
        check_number(self.release_scale, "release_scale")
        check_names(self.policies, "policies")
        check_int(self.ref_max_orgs, "ref_max_orgs", minimum=0)
        check_bool(self.skip_bad_records, "skip_bad_records")
        check_bool(self.validate, "validate")
        _check_config(self)
        policy_order(self.policies, self.reference or self.policies[0])  # unknown names fail here


@dataclass(frozen=True)
class Result:
    """A ``compare`` run under the model contract: the `CompareResult` and its tidy rows.

    Data only: `fairsched.report.write_result` writes the files of ``--out``."""

    config: Config
    seed: int
    compare: CompareResult

    def rows(self) -> pd.DataFrame:
        """One row per policy (report order): the config's columns, ``policy``, then ``summary.csv``'s metrics
        (``is_reference``, ``delta_psi``, ``p_tot``, ``delta_psi_over_ptot``, ``max_abs_org_deviation``,
        ``mean_wait``, ``utilization``, ``jobs_started``, ``t_end``), then the workload's provenance
        (`provenance`: ``n_jobs``, ``n_machines``, ``offered_load``); no timings."""
        extra = provenance(self.compare.scenario)
        return rows_frame(self.config, [{**row, **extra} for row in summary_frame(self.compare).to_dict("records")])

    def per_org(self) -> pd.DataFrame:
        """One row per (policy, organization): ``per_org.csv``'s columns (`per_org_frame`) and
        ``psi_minus_reference`` = ψ_u − φ_u, the organization's utility minus the reference's at t_end
        (``deviation_over_ptot`` is it divided by p_tot)."""
        frame = per_org_frame(self.compare)
        position = frame.columns.get_loc("psi_reference") + 1
        frame.insert(position, "psi_minus_reference", frame["psi"] - frame["psi_reference"])
        return frame


def provenance(scenario: Scenario) -> dict[str, Any]:
    """What the simulated window holds, as columns a reader can filter on: ``n_jobs`` (jobs released in it),
    ``n_machines`` (m) and ``offered_load`` = Σ p_j·q_j / (m · S), S the horizon (the window length), else the
    span from the first release to the last completion if every job ran at once (NaN for an empty span).

    >>> from fairsched.scenario import scenario_from_arrays
    >>> provenance(scenario_from_arrays([0, 5], [10, 10], [0, 1], [1, 1]))
    {'n_jobs': 2, 'n_machines': 2, 'offered_load': 0.6666666666666666}
    """
    summary = describe(scenario)
    jobs = scenario.jobs
    if scenario.horizon is not None:
        span = float(scenario.horizon)
    elif len(jobs):
        release = jobs["release"].to_numpy(np.float64)
        span = float((release + jobs["processing_time"].to_numpy(np.float64)).max() - release.min())
    else:
        span = 0.0
    machines = int(summary["n_machines"])
    load = summary["work"] / (machines * span) if span > 0 and machines > 0 else float("nan")
    return {"n_jobs": int(summary["n_jobs"]), "n_machines": machines, "offered_load": float(load)}


def run(config: Config, seed: int, *, progress: ProgressCallback | None = None) -> Result:
    """Run ``fairsched compare`` with `config` and `seed` (`run_compare`, module docstring steps 1–6)."""
    return Result(config=config, seed=seed, compare=run_compare(config, seed, progress=progress))


@dataclass(frozen=True)
class PolicyOutcome:
    """One policy's run, measured at the experiment's common t_end.

    Attributes
    ----------
    name : registered policy name.
    result : the engine's `OnlineResult` (schedule, per_org, t_end, meta), kept for export.
    psi : int64 (k,), psi_sp utility of each organization at t_end (SPAA'13 Eq. (3)).
    fairness : `fairsched.online.metrics.FairnessComparison` against the reference (delta_psi, p_tot,
        delta_psi_over_ptot, per_org_deviation).
    per_org : `fairsched.online.metrics.per_org_metrics` at t_end (one row per organization).
    mean_wait : mean of start - release over the jobs started by t_end, in seconds (NaN when none started).
    utilization : share of machine time [0, t_end) spent running jobs.
    run_time_s : wall-clock seconds `simulate` took.
    """

    name: str
    result: OnlineResult
    psi: np.ndarray
    fairness: FairnessComparison
    per_org: pd.DataFrame
    mean_wait: float
    utilization: float
    run_time_s: float


@dataclass(frozen=True)
class CompareResult:
    """Everything `run_compare` measured; rendered by `fairsched.report`.

    Attributes
    ----------
    config : the configuration run.
    seed : the seed of the scenario (organizations, machine split) and of every policy's random draws.
    scenario : the simulated scenario.
    scenario_summary : `fairsched.scenario.describe` of it (JSON-ready).
    reference : name of the reference policy.
    policies : outcome per policy, in report order (the listed policies, then the reference if it was not listed).
    p_tot : unit parts the reference executed by t_end (the denominator of Delta psi / p_tot).
    t_end : the common time at which utilities are compared: the horizon, else the latest last completion
        over all policies (past their last completions all policies' Delta psi stay constant).
    elapsed_s : wall-clock seconds of the whole experiment.
    read_report : what reading the trace did (None for generated or hand-made scenarios).
    clean_report : what cleaning dropped (None for hand-made scenarios).
    machines_rule : where m came from, as a phrase ("the MaxProcs header of ...", "the widest job of ... (no
        MaxProcs header)", "--machines", "the --split counts"); "" for hand-made scenarios.
    """

    config: Config
    seed: int
    scenario: Scenario
    scenario_summary: dict[str, Any]
    reference: str
    policies: dict[str, PolicyOutcome]
    p_tot: int
    t_end: int
    elapsed_s: float
    read_report: ReadReport | None = None
    clean_report: CleanReport | None = None
    machines_rule: str = ""

    @property
    def reference_outcome(self) -> PolicyOutcome:
        return self.policies[self.reference]


@dataclass(frozen=True)
class PreparedScenario:
    """A scenario built from a `Config`, with what reading and cleaning the workload did."""

    scenario: Scenario
    read_report: ReadReport | None
    clean_report: CleanReport
    machines_rule: str = ""


def run_compare(config: Config, seed: int, *, progress: ProgressCallback | None = None) -> CompareResult:
    """Run the whole experiment described by `config` with `seed` (module docstring, steps 1–6).

    Implements SPAA'13 Sec. 6.2–6.3 / PPAM'13 Sec. 5.1 (one instance; the papers average 100 windows).
    `config` was checked on construction, so a typo fails before the trace is read.

    Parameters
    ----------
    config : what to run.
    seed : the one seed of the scenario (organizations, machine split) and of every policy's random draws.
    progress : optional ``progress(description, done, total)`` callback, called before each step.

    Raises
    ------
    UnknownPolicyError : a policy or the reference is not registered (the message lists the choices).
    ConfigError, InputError : bad options or a malformed trace.
    InvalidScheduleError : a policy produced an invalid schedule (only with ``validate=True``).
    """
    started = time.perf_counter()
    names = policy_order(config.policies, effective_reference(config, config.orgs))
    n_steps = len(names) + 2  # read and build, one per policy, measure
    if progress is not None:
        progress("reading the workload" if config.trace is None else f"reading {Path(config.trace).name}", 0,
                 n_steps)
    prepared = prepare_scenario(config, seed)
    later = None if progress is None else lambda description, done, _: progress(description, done + 1, n_steps)
    result = compare_scenario(prepared.scenario, config, seed, progress=later)
    return replace(result, read_report=prepared.read_report, clean_report=prepared.clean_report,
                   machines_rule=prepared.machines_rule, elapsed_s=time.perf_counter() - started)


def prepare_scenario(config: Config, seed: int) -> PreparedScenario:
    """Steps 1–4: read or generate, clean, window, scale arrivals, build the scenario from `seed`. O(n log n).

    The window start (default: the first submit time after cleaning) becomes time 0 of the scenario; the
    window length becomes its horizon (PPAM'13 Sec. 5.1: "t_end = t_start + 5·10^4").
    """
    workload, read_report = _load_workload(config)
    cleaned, clean_report = clean(workload)
    # m comes from the whole trace, before windowing: a window's widest job says little about the machine.
    split = effective_split(config)
    machines, machines_rule = resolve_machines(cleaned, config.machines, split)
    workload = cleaned
    if config.window_start is not None or config.window_length is not None:
        workload = window(cleaned, start=config.window_start, length=config.window_length)
    if workload.jobs.empty:
        raise ConfigError(_no_jobs_message(cleaned, workload, config))
    if config.release_scale != 1.0:
        workload = compress_arrivals(workload, config.release_scale, origin=config.window_start)
    horizon = None if config.window_length is None else int(np.ceil(config.window_length))
    scenario = build_scenario(
        workload, n_orgs=config.orgs, orgs_by=config.orgs_by, org_map=config.org_map, n_machines=machines,
        split=split, zipf_s=config.zipf_s, seed=seed, time_origin=config.window_start,
        horizon=horizon)
    return PreparedScenario(scenario=scenario, read_report=read_report, clean_report=clean_report,
                            machines_rule=_MACHINES_RULES.get(machines_rule, machines_rule))


def effective_reference(config: Config, n_orgs: int) -> str:
    """The reference policy's registered name: ``config.reference``, else REF for k <= ref_max_orgs."""
    if config.reference is not None:
        return resolve_policy_name(config.reference)
    return "ref" if n_orgs <= config.ref_max_orgs else FALLBACK_REFERENCE


def effective_split(config: Config) -> MachineSplit:
    """The machine split used: ``config.split``, else zipf for the synthetic default and uniform for a trace."""
    if config.split is not None:
        return config.split
    return MachineSplit("zipf" if config.trace is None else "uniform")


def compare_scenario(scenario: Scenario, config: Config, seed: int, *,
                     progress: ProgressCallback | None = None) -> CompareResult:
    """Steps 5–6 on a ready scenario: simulate ``config.policies`` and the reference with `seed`, then compare.

    Only ``policies``, ``reference``, ``ref_max_orgs`` and ``validate`` of `config` are used; the trace options are
    ignored (use this with hand-made scenarios, e.g. `fairsched.scenario.scenario_from_arrays`).
    Cost: one simulation per policy, plus O(n) metrics each.
    """
    started = time.perf_counter()
    reference = effective_reference(config, scenario.n_orgs)
    names = policy_order(config.policies, reference)
    if scenario.jobs.empty:
        raise ConfigError(f"the scenario ({scenario.source or 'no source'}) has no jobs: nothing to compare; "
                          "choose a window that holds some jobs")
    n_steps = len(names) + 1  # one per policy, then measuring
    runs: dict[str, tuple[OnlineResult, float]] = {}
    for done, name in enumerate(names):
        told = None
        if progress is not None:
            progress(f"simulating {name}", done, n_steps)
            told = functools.partial(_tell_simulated_time, progress, name, done, n_steps)
        runs[name] = _simulate_one(scenario, name, seed=seed, validate=config.validate, progress=told)
    if progress is not None:
        progress("measuring", len(names), n_steps)
    t_end = _common_t_end(scenario, [result for result, _ in runs.values()])
    psi_ref = _psi_at(runs[reference][0], scenario, t_end)
    p_tot = int(metrics.p_tot(runs[reference][0].schedule, t_end))
    outcomes = {name: _measure(name, result, run_time, scenario, t_end, psi_ref, p_tot)
                for name, (result, run_time) in runs.items()}
    return CompareResult(config=config, seed=seed, scenario=scenario, scenario_summary=describe(scenario),
                         reference=reference, policies=outcomes, p_tot=p_tot, t_end=t_end,
                         elapsed_s=time.perf_counter() - started)


def resolve_policy_name(name: str) -> str:
    """The registered name for `name` (case-insensitive; aliases such as ``"rr"`` resolved).

    Raises `UnknownPolicyError` (from the registry, listing the choices) when the name is not registered.

    >>> resolve_policy_name(" RR ")
    'roundrobin'
    """
    key = name.strip().lower()
    key = POLICY_ALIASES.get(key, key)
    get_policy(key)  # the registry's own error names every valid choice
    return key


def policy_order(policies: tuple[str, ...] | list[str], reference: str) -> list[str]:
    """Resolved policy names in report order, without duplicates, the reference appended if absent.

    >>> policy_order(("rr", "roundrobin"), "roundrobin")
    ['roundrobin']
    """
    if isinstance(policies, str):  # a bare string would otherwise be read letter by letter
        raise ConfigError(f"policies={policies!r}: expected a sequence of names, e.g. ('roundrobin', 'fairshare')")
    names = list(dict.fromkeys(resolve_policy_name(name) for name in policies))
    reference_name = resolve_policy_name(reference)
    return names if reference_name in names else [*names, reference_name]


def _check_config(config: Config) -> None:
    """Options `build_scenario` and the transforms do not check themselves."""
    if not config.policies:
        raise ConfigError("policies is empty: name at least one policy (e.g. --policies roundrobin,fairshare)")
    if config.window_length is not None and not config.window_length > 0:
        raise ConfigError(f"window length {config.window_length!r}: expected a number of seconds > 0")
    if not (np.isfinite(config.release_scale) and config.release_scale > 0):
        raise ConfigError(f"release scale {config.release_scale!r}: expected a factor > 0 (0.1 packs arrivals "
                          "ten times closer)")


def _load_workload(config: Config) -> tuple[Workload, ReadReport | None]:
    if config.trace is None:
        return generate_default(), None
    workload = read_swf(Path(config.trace), skip_bad_records=config.skip_bad_records)
    return workload, workload.read_report


def _no_jobs_message(cleaned: Workload, windowed: Workload, config: Config) -> str:
    """Say where the jobs went: all dropped by cleaning, or none submitted in the window (and where they are)."""
    where = windowed.source or str(config.trace or "the synthetic workload")
    if cleaned.jobs.empty:
        return (f"no job left to simulate in {where}: cleaning dropped every job; see what it drops with "
                "`fairsched trace info`")
    submit = cleaned.jobs["submit_time"]
    return (f"no job left to simulate in {where}: window start and length are trace seconds, and the jobs are "
            f"submitted between {submit.min():.0f} and {submit.max():.0f}; choose --window-start and "
            "--window-length within that span")


def _tell_simulated_time(progress: ProgressCallback, name: str, done: int, n_steps: int, now: int,
                         end: int) -> None:
    """`compare_scenario`'s step, with how far the simulation of `name` has got (REF can take a minute)."""
    progress(f"simulating {name}: {now / end if end else 1.0:.0%} of the simulated time", done, n_steps)


def _simulate_one(scenario: Scenario, name: str, *, seed: int, validate: bool,
                  progress: Callable[[int, int], None] | None = None) -> tuple[OnlineResult, float]:
    """Simulate one policy; return its result and the wall-clock seconds `simulate` took."""
    started = time.perf_counter()
    result = simulate(scenario, get_policy(name), seed=seed, progress=progress)
    run_time = time.perf_counter() - started
    if validate:
        # No horizon: every copy of every job must appear, which t_end=None checks.
        validate_online_schedule(result.schedule, scenario, t_end=scenario.horizon)
    return result, run_time


def _common_t_end(scenario: Scenario, results: list[OnlineResult]) -> int:
    """The horizon, else the latest t_end over all runs (utilities must be compared at one time)."""
    if scenario.horizon is not None:
        return int(scenario.horizon)
    return max(int(result.t_end) for result in results)


def _psi_at(result: OnlineResult, scenario: Scenario, t_end: int) -> np.ndarray:
    """psi at `t_end`: the engine's own when it stopped there, else recomputed from the schedule."""
    if int(result.t_end) == t_end:
        return np.asarray(result.psi, dtype=np.int64)
    return np.asarray(metrics.psi_from_schedule(result.schedule, scenario.n_orgs, t_end), dtype=np.int64)


def _measure(name: str, result: OnlineResult, run_time: float, scenario: Scenario, t_end: int,
             psi_ref: np.ndarray, p_tot: int) -> PolicyOutcome:
    psi = _psi_at(result, scenario, t_end)
    schedule = result.schedule
    waits = (schedule["start"] - schedule["release"]).to_numpy(dtype=np.float64)
    return PolicyOutcome(
        name=name, result=result, psi=psi,
        fairness=metrics.fairness_vs_reference(psi, psi_ref, p_tot),
        per_org=metrics.per_org_metrics(schedule, scenario, t_end),
        mean_wait=float(waits.mean()) if waits.size else float("nan"),
        utilization=float(metrics.utilization(schedule, scenario.n_machines, t_end)),
        run_time_s=run_time)


# ------------------------------------------------------------------------------- the tables of a CompareResult
# Data, not rendering: `Result.rows` is built from `summary_frame`; `fairsched.report.online` writes all four as
# summary.csv, per_org.csv and organizations.csv and draws `org_deviation` as the figure's bars.

def org_deviation(outcome: PolicyOutcome, result: CompareResult) -> np.ndarray:
    """(psi_u - psi*_u) / p_tot per organization, float64: the bars of the figure (NaN when p_tot = 0)."""
    deviation = np.asarray(outcome.fairness.per_org_deviation, dtype=np.float64)
    return deviation / result.p_tot if result.p_tot else np.full(deviation.shape, np.nan)


def summary_frame(result: CompareResult) -> pd.DataFrame:
    """One row per policy, in report order (``summary.csv``)."""
    rows = []
    for name, outcome in result.policies.items():
        deviation = org_deviation(outcome, result)
        rows.append({
            "policy": name, "is_reference": name == result.reference,
            "delta_psi": int(outcome.fairness.delta_psi), "p_tot": int(result.p_tot),
            "delta_psi_over_ptot": float(outcome.fairness.delta_psi_over_ptot),
            "max_abs_org_deviation": float(np.abs(deviation).max()) if deviation.size else np.nan,
            "mean_wait": outcome.mean_wait, "utilization": outcome.utilization,
            "jobs_started": len(outcome.result.schedule), "t_end": int(result.t_end),
        })  # run times live in report.json only, so that the same seed gives byte-identical CSV files
    return pd.DataFrame(rows)


def per_org_frame(result: CompareResult) -> pd.DataFrame:
    """One row per (policy, organization) (``per_org.csv``); per_org_metrics columns follow the fixed ones."""
    psi_ref = np.asarray(result.reference_outcome.psi, dtype=np.int64)
    machines = result.scenario.machines_per_org
    frames = []
    for name, outcome in result.policies.items():
        fixed = pd.DataFrame({
            "policy": name, "org": np.arange(result.scenario.n_orgs, dtype=np.int64), "machines": machines,
            "psi": np.asarray(outcome.psi, dtype=np.int64), "psi_reference": psi_ref,
            "deviation_over_ptot": org_deviation(outcome, result),
        })
        extra = outcome.per_org.reset_index(drop=True)
        extra = extra.loc[:, [c for c in extra.columns if c not in fixed.columns]]
        frames.append(pd.concat([fixed, extra], axis=1))
    return pd.concat(frames, ignore_index=True)


def organizations_frame(result: CompareResult) -> pd.DataFrame:
    """Who makes up each organization (``organizations.csv``), sorted by org then id.

    Columns: ``org, machines, machine_share`` (of all m machines), ``member`` (``user``, ``group``, ``queue`` or
    ``job``: what formed the organizations), ``id`` (the trace's id), ``jobs``, ``sequential_jobs`` (a job on q
    processors counts q) and ``work`` (machine-seconds) of the id's jobs in the simulated window. An organization
    without jobs has one row with ``member`` and ``id`` empty and zero jobs; so does every organization of a
    hand-made scenario, which has no ids.
    """
    scenario = result.scenario
    machines = scenario.machines_per_org
    orgs = pd.DataFrame({"org": np.arange(scenario.n_orgs, dtype=np.int64), "machines": machines,
                         "machine_share": machines / max(int(machines.sum()), 1)})
    members = scenario.members if scenario.members is not None else pd.DataFrame(
        {name: pd.Series(dtype=np.int64) for name in MEMBER_COLUMNS})
    frame = orgs.merge(members.assign(member=scenario.orgs_by), on="org", how="left", sort=True)
    frame["id"] = frame["id"].astype("Int64")  # empty, not NaN, for an organization without jobs
    for name in ("jobs", "sequential_jobs", "work"):
        frame[name] = frame[name].fillna(0).astype(np.int64)
    frame["member"] = frame["member"].fillna("")
    return frame.loc[:, ["org", "machines", "machine_share", "member", "id", "jobs", "sequential_jobs", "work"]]
