"""Command line: ``compare``, ``audit``, ``fairshare``, ``backfill``, ``unfairness re|fst``, ``mosp``, ``openshop``,
``replicate ...``, ``trace``, ``sweep``, ``results``, ``slurm up|down|replay``.

Each command is parse -> one library call -> render (see docs/usage.md for every flag). `main` is the console
entry point and the one error boundary: a `FairschedError` (a user error) becomes one line ``error: <message>``
on stderr and exit code 2; any other exception is a bug and keeps its traceback.
With ``--json`` a command prints exactly one JSON document on stdout and nothing else.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, is_dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer._click.exceptions import BadParameter, ClickException  # typer >= 0.29 vendors click

import fairsched
from fairsched._io import OUTPUT_MARKER, ensure_writable_dir, final_paths, staged_dir, staged_files
from fairsched.errors import ConfigError, FairschedError

if TYPE_CHECKING:
    from rich.console import Console

    from fairsched._contract import ProgressCallback

# Start-up: `fairsched --help` must not import numpy, pandas, numba or matplotlib (about 1 s), so every command
# imports what it runs, and the defaults and choices its help shows are written out here.
# tests/test_cli_ux.py checks them against each model's Config and registries.
ONLINE_POLICIES = ("currfairshare", "directcontr", "fairshare", "rand", "rand-antithetic", "rand-stratified", "ref",
                   "ref-literal", "roundrobin", "utfairshare")
QUEUE_ORDERS = ("fcfs", "sjf", "lxf")
BACKFILL_RULES = ("none", "no-guarantee", "easy", "conservative")
FAIRNESS_METRICS = ("fst-strict", "fst-relaxed", "re")
TPDS11_EXPERIMENTS = ("homogeneous", "local-policies", "heterogeneous")
ONLINE_DEFAULTS = SimpleNamespace(orgs=5, orgs_by="user", split=None, zipf_s=1.4267, release_scale=1.0,
                                  policies=("roundrobin", "fairshare", "utfairshare", "currfairshare", "directcontr",
                                            "rand"), reference=None)
BACKFILL_DEFAULTS = SimpleNamespace(order="fcfs", backfill="easy", load_by="runtime")
MOSP_DEFAULTS = SimpleNamespace(generate="uni", orgs=5, jobs=100, procs=32, algorithm="mocca+ilba", local_order="hf")

app = typer.Typer(name="fairsched", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Fair scheduling in systems shared by several organizations: workloads, engines, fairness.")
trace_app = typer.Typer(no_args_is_help=True, help="Inspect and download workload traces (SWF).")
app.add_typer(trace_app, name="trace")
unfairness_app = typer.Typer(no_args_is_help=True, help="Unfairness of a backfilling schedule (JSSPP'05 §3): "
                                                          "resource equality, fair start time.")
app.add_typer(unfairness_app, name="unfairness")
replicate_app = typer.Typer(no_args_is_help=True, help="Replicate a published experiment (docs/replication/).")
app.add_typer(replicate_app, name="replicate")

_INTERRUPTED = 130  # the shell's code for SIGINT (128 + 2)
_ARGV: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("argv", default=())  # for report.html
_DEFAULT = ONLINE_DEFAULTS
_SCENARIO = "Scenario"
_PLAIN_WIDTH = 140  # rich's width when stdout is not a terminal (80 would wrap the tables in logs)

# The scenario flags, defined once and shared by every command that builds a scenario.
Orgs = Annotated[int, typer.Option("--orgs", min=1, rich_help_panel=_SCENARIO,
                                   help="k, the number of organizations.")]
OrgsBy = Annotated[str, typer.Option("--orgs-by", rich_help_panel=_SCENARIO,
                                     help="What forms an organization: user, group or queue (SWF field 12, 13, "
                                          "15); ids are spread uniformly at random over the organizations.")]
OrgMap = Annotated[Path | None, typer.Option("--org-map", rich_help_panel=_SCENARIO, dir_okay=False,
                                             help="CSV file mapping ids to organizations (overrides the random "
                                                  "spread); see docs/usage.md.")]
Machines = Annotated[int | None, typer.Option("--machines", min=1, rich_help_panel=_SCENARIO,
                                              help="Total machines m. Default: the whole trace's MaxProcs "
                                                   "header, else its widest job (before any window).")]
Split = Annotated[str | None, typer.Option("--split", rich_help_panel=_SCENARIO,
                                           help="How machines are split: even, uniform, zipf, or a comma-separated "
                                                "list of counts (one per organization). Default: zipf for the "
                                                "synthetic workload, uniform for a trace.")]
ZipfS = Annotated[float, typer.Option("--zipf-s", rich_help_panel=_SCENARIO,
                                      help="Exponent of the Zipf split.")]
Seed = Annotated[int, typer.Option("--seed", rich_help_panel=_SCENARIO,
                                   help="Seed of the scenario and of every randomized policy.")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout, nothing else.")]
SkipBad = Annotated[bool, typer.Option("--skip-bad-records",
                                       help="Drop malformed SWF records (they are counted) instead of failing.")]


# The backfilling flags, defined once and shared by `backfill` and `unfairness fst` (see BackfillFlags).
_BACKFILL = "Backfilling model"
_BF_DEFAULT = BACKFILL_DEFAULTS
Procs = Annotated[int | None, typer.Option("--procs", min=1, rich_help_panel=_BACKFILL,
                                           help="P, the processors of the cluster. Default: the trace's MaxProcs.")]
Order = Annotated[str, typer.Option("--order", rich_help_panel=_BACKFILL,
                                    help=f"Queue order: {', '.join(QUEUE_ORDERS)}.")]
BackfillRule = Annotated[str, typer.Option("--backfill", rich_help_panel=_BACKFILL,
                                           help=f"Backfilling rule: {', '.join(BACKFILL_RULES)}.")]
Load = Annotated[float | None, typer.Option("--load", rich_help_panel=_BACKFILL,
                                            help="Scale the offered load to X (e.g. 0.9) after windowing.")]
LoadBy = Annotated[str, typer.Option("--load-by", rich_help_panel=_BACKFILL,
                                     help="How --load scales: runtime (run and requested times x factor, JSSPP'05 "
                                          "Sec. 4) or arrival (compression).")]
WindowStart = Annotated[float | None, typer.Option("--window-start", rich_help_panel=_BACKFILL,
                                                   help="Keep jobs submitted from T (trace seconds).")]
WindowLength = Annotated[float | None, typer.Option("--window-length", rich_help_panel=_BACKFILL,
                                                    help="...and before T + LENGTH.")]
_FST_KINDS = {"strict": ("fst-strict",), "relaxed": ("fst-relaxed",), "both": ("fst-strict", "fst-relaxed")}
First = Annotated[int | None, typer.Option("--first", min=1, rich_help_panel=_BACKFILL,
                                           help="Then keep only the first N jobs (JSSPP'05 uses 5000).")]


@dataclass(frozen=True)
class BackfillFlags:
    """The shared backfilling flags, as `fairsched.backfill.experiment.Config` names them."""

    procs: int | None
    order: str
    backfill: str
    load: float | None
    load_by: str
    window_start: float | None
    window_length: float | None
    first: int | None


@app.command()
def compare(
    trace: Annotated[Path | None, typer.Option("--trace", dir_okay=False,
                                               help="SWF trace (.swf or .swf.gz). Default: the embedded "
                                                    "synthetic workload.")] = None,
    orgs: Orgs = _DEFAULT.orgs, orgs_by: OrgsBy = _DEFAULT.orgs_by, org_map: OrgMap = None,
    machines: Machines = None, split: Split = _DEFAULT.split, zipf_s: ZipfS = _DEFAULT.zipf_s,
    seed: Seed = 0,
    window_start: Annotated[float | None, typer.Option(help="Keep jobs submitted from T (trace seconds); "
                                                            "T becomes time 0.")] = None,
    window_length: Annotated[float | None, typer.Option(help="...and before T + LENGTH; LENGTH becomes the "
                                                             "horizon t_end.")] = None,
    release_scale: Annotated[float, typer.Option(help="Multiply release times by X (0.1 packs arrivals; "
                                                      "SPAA'13 Sec. 6.3.1).")] = _DEFAULT.release_scale,
    policies: Annotated[str, typer.Option(help=f"Comma-separated policies, from: {', '.join(ONLINE_POLICIES)} "
                                               "(rr = roundrobin).")] = ",".join(_DEFAULT.policies),
    reference: Annotated[str, typer.Option(help="Policy the others are compared with.")] = _DEFAULT.reference,
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Write the report files into DIR.")] = None,
    skip_bad_records: SkipBad = False, as_json: Json = False,
) -> None:
    """Compare online policies on one scenario: Delta psi / p_tot against the reference (SPAA'13 Sec. 6.3)."""
    from fairsched.online import experiment as online_experiment
    from fairsched.report.online import compare_renderable, organizations_table, to_json

    config = online_experiment.Config(trace=trace, orgs=orgs, orgs_by=orgs_by, org_map=org_map, machines=machines,
                                      split=split, zipf_s=zipf_s, window_start=window_start,
                                      window_length=window_length, release_scale=release_scale,
                                      policies=_names(policies), reference=reference,
                                      skip_bad_records=skip_bad_records)
    with _output(out) as stage:
        with _progress(enabled=not as_json) as progress:
            run = online_experiment.run(config, seed, progress=progress)
        result = run.compare
        skipped = _skipped_notes(result.read_report) + _idle_org_notes(result.scenario)
        outputs = _deliver(out, stage, run.write, title="fairsched compare", config=config, seed=seed,
                           renderable=compare_renderable(result), warnings=skipped,
                           tables=[organizations_table(result)])
    _echo_notes(skipped)
    if as_json:
        _emit_json(to_json(result, outputs))
        return
    _console().print(compare_renderable(result))
    _last_line(out)


@app.command("audit")
def audit_command(
    log: Annotated[Path, typer.Argument(dir_okay=False, help="Accounting log: sacct -P export, SWF (.swf/.swf.gz) "
                                                              "or Batsim jobs.csv.")],
    format: Annotated[str, typer.Option(help="auto, swf, sacct or jobs-csv.")] = "auto",
    org_by: Annotated[str | None, typer.Option(help="account, group, user, partition or queue. Default: account "
                                                    "(sacct, jobs.csv), group (SWF).")] = None,
    org_map: Annotated[Path | None, typer.Option(dir_okay=False, help="CSV key,org grouping keys into "
                                                                      "organizations.")] = None,
    shares: Annotated[str, typer.Option(help="equal, usage, or a CSV file org,cpus / org,share.")] = "equal",
    cpus: Annotated[int | None, typer.Option(help="Pool CPUs. Default: the largest concurrent allocation.")] = None,
    since: Annotated[str | None, typer.Option(help="Audit jobs submitted from T (log seconds or a date).")] = None,
    until: Annotated[str | None, typer.Option(help="...and before T; utilities are taken at T.")] = None,
    reference: Annotated[str, typer.Option(help="Reference scheduler: backfill (FCFS+EASY) or online (FIFO on "
                                                "sequential copies).")] = "backfill",
    half_life: Annotated[float, typer.Option(help="Decay half-life of usage (s).")] = 7 * 86400.0,
    exact_up_to: Annotated[int, typer.Option(help="Exact Shapley values up to K organizations.")] = 12,
    samples: Annotated[int, typer.Option(help="Permutations for sampled Shapley values.")] = 200,
    fst_sample: Annotated[int, typer.Option(help="Fair-start-time what-ifs to run (0: all).")] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Write report.html, orgs.csv, jobs.csv, "
                                                                   "report.json and metrics.prom into DIR.")] = None,
    skip_bad_records: SkipBad = False, as_json: Json = False,
) -> None:
    """Audit a real cluster's log: did every organization get its due? (docs/audit.md)"""
    from fairsched.audit import AuditConfig, run_audit
    from fairsched.report.audit import audit_command as command_of
    from fairsched.report.audit import audit_json, audit_renderable, write_audit_outputs

    config = AuditConfig(log=log, format=format, org_by=org_by, org_map=org_map, shares=shares, cpus=cpus,
                         since=since, until=until, reference=reference, half_life=half_life, exact_up_to=exact_up_to,
                         samples=samples, fst_sample=fst_sample, seed=seed, skip_bad_records=skip_bad_records)
    _prepare_out(out)
    with _progress(enabled=not as_json) as progress:
        result = run_audit(config, progress=progress)
    outputs = write_audit_outputs(result, out, command=command_of(config)) if out is not None else None
    if as_json:
        _emit_json(audit_json(result, outputs))
        return
    _console().print(audit_renderable(result))
    if out is not None:
        typer.echo(f"outputs written to {out} (report: {out / 'report.html'})")


@app.command("fairshare")
def fairshare_command(
    tree: Annotated[Path, typer.Argument(dir_okay=False, help="Association tree: CSV account,user,parent,shares,"
                                                               "raw_usage, or an sshare -a -l -P / sacctmgr -P dump.")],
    algorithm: Annotated[str, typer.Option(help="fair-tree or classic (PriorityFlags=NO_FAIR_TREE).")] = "fair-tree",
    damping: Annotated[float | None, typer.Option(help="FairShareDampeningFactor (classic only). Default: 1.")] = None,
    as_json: Json = False,
) -> None:
    """Fair-share of every association, as sshare -a -l -P prints it (docs/fairshare.md)."""
    from fairsched.fairshare import compute_fairshare
    from fairsched.report.fairshare import fairshare_json, sshare_lines
    from fairsched.workload.sshare import read_share_tree

    table = compute_fairshare(read_share_tree(tree), algorithm=algorithm, damping=damping)
    _render(fairshare_json(table) if as_json else "\n".join(sshare_lines(table)), as_json)


@trace_app.command("info")
def trace_info_command(file: Annotated[Path, typer.Argument(dir_okay=False, help="SWF trace (.swf or .swf.gz).")],
                       skip_bad_records: SkipBad = False,
                       out: Annotated[Path | None, typer.Option(file_okay=False, help="Write arrivals and "
                                                                "wait-by-width figures, their CSV files, "
                                                                "report.json and report.html into DIR.")] = None,
                       as_json: Json = False) -> None:
    """Summarize a trace: jobs, span, users, machine size, load, what reading and cleaning would drop."""
    from fairsched.report.tables import trace_info_table
    from fairsched.workload.info import trace_info
    from fairsched.workload.swf import read_swf_columns

    with _output(out) as stage:
        workload = read_swf_columns(file, skip_bad_records=skip_bad_records)  # neither pandas nor numba: starts fast
        info = trace_info(workload)
        notes = _skipped_notes(workload.read_report)
        outputs = _deliver(out, stage, lambda where: _trace_writer("write_trace_info_outputs")(
                               info, workload.to_workload(), where),
                           title="fairsched trace info", config={"file": file, "skip_bad_records": skip_bad_records},
                           renderable=trace_info_table(info), warnings=notes)
    _echo_notes(notes)
    if as_json:
        _emit_json({**info, "outputs": outputs} if out is not None else info)
        return
    _console().print(trace_info_table(info))
    _last_line(out)


def _trace_writer(name: str) -> Callable[..., dict[str, Path]]:
    """A writer of `fairsched.report.trace`, imported only with --out (it imports matplotlib)."""
    from fairsched.report import trace

    return getattr(trace, name)


@trace_app.command("fetch")
def trace_fetch_command(
    name: Annotated[str, typer.Argument(help="Trace name, e.g. LPC-EGEE-2004-1.2-cln or lpc-egee.")],
    cache_dir: Annotated[Path | None, typer.Option(file_okay=False, help="Cache directory. Default: "
                                                   "$FAIRSCHED_CACHE, else ~/.cache/fairsched/traces.")] = None,
    base_url: Annotated[str | None, typer.Option(help="Archive mirror to download from.")] = None,
    as_json: Json = False,
) -> None:
    """Download a Parallel Workloads Archive trace into the cache (checked by size and sha256); print its path."""
    from fairsched.report.tables import key_value_table
    from fairsched.workload.fetch import fetch_trace

    path = fetch_trace(name, cache_dir=cache_dir, base_url=base_url)
    if as_json:
        _emit_json({"trace": name, "path": path})
    else:
        _console().print(key_value_table("Trace fetched", {"trace": name, "path": path}))


@app.command("backfill")
def backfill_command(
    trace: Annotated[Path, typer.Option("--trace", dir_okay=False, help="SWF trace (.swf or .swf.gz).")],
    procs: Procs = None, order: Order = _BF_DEFAULT.order, backfill: BackfillRule = _BF_DEFAULT.backfill,
    load: Load = None, load_by: LoadBy = _BF_DEFAULT.load_by, window_start: WindowStart = None,
    window_length: WindowLength = None, first: First = None,
    fairness: Annotated[str, typer.Option(help=f"Comma-separated unfairness metrics: {', '.join(FAIRNESS_METRICS)} "
                                               "(JSSPP'05 Sec. 3).")] = "",
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Write schedule.csv, fairness.csv, jobs.csv, "
                                             "schedule.swf, gantt.png and report.json into DIR.")] = None,
    skip_bad_records: SkipBad = False, as_json: Json = False,
) -> None:
    """Simulate one queue order x backfilling rule on a trace: classic metrics and, if asked, unfairness."""
    from fairsched.backfill import experiment as backfill_experiment
    from fairsched.report.backfill import backfill_json, backfill_renderable

    flags = BackfillFlags(procs, order, backfill, load, load_by, window_start, window_length, first)
    config = backfill_experiment.Config(trace=trace, **asdict(flags), fairness=_names(fairness),
                                        skip_bad_records=skip_bad_records)
    with _output(out) as stage:
        with _progress(enabled=not as_json) as progress:
            run = backfill_experiment.run(config, 0, progress=progress)
        report = run.report
        skipped = _skipped_notes(report.read_report)
        outputs = _deliver(out, stage, run.write, title="fairsched backfill", config=config,
                           renderable=backfill_renderable(report), warnings=skipped)
    _echo_notes(skipped)
    if as_json:
        _emit_json(backfill_json(report, outputs))
        return
    _console().print(backfill_renderable(report))
    _last_line(out)


UnfairnessOut = Annotated[Path | None, typer.Option(file_okay=False, help="Write the per-job values, wait / "
                                                    "slowdown / unfairness by width and arrivals figures, "
                                                    "report.json and report.html into DIR.")]


@unfairness_app.command("re")
def unfairness_re_command(
    trace: Annotated[Path, typer.Argument(dir_okay=False, help="SWF trace (.swf or .swf.gz).")],
    procs: Procs = None, skip_bad_records: SkipBad = False, out: UnfairnessOut = None, as_json: Json = False,
) -> None:
    """Resource-equality unfairness of the trace's own schedule (start = submit + wait; JSSPP'05 Sec. 3.2)."""
    from fairsched.backfill.experiment import trace_resource_equality
    from fairsched.report.backfill import trace_unfairness_json, trace_unfairness_renderable

    with _output(out) as stage:
        result = trace_resource_equality(trace, processors=procs, skip_bad_records=skip_bad_records)
        outputs = _deliver(out, stage, lambda where: _trace_writer("write_trace_unfairness_outputs")(result, where),
                           title="fairsched unfairness re", config={"trace": trace, "procs": procs,
                                                                    "skip_bad_records": skip_bad_records},
                           renderable=trace_unfairness_renderable(result))
    if as_json:
        _emit_json({**trace_unfairness_json(result), **({"outputs": outputs} if out is not None else {})})
        return
    _console().print(trace_unfairness_renderable(result))
    _last_line(out)


@unfairness_app.command("fst")
def unfairness_fst_command(
    trace: Annotated[Path, typer.Argument(dir_okay=False, help="SWF trace (.swf or .swf.gz).")],
    procs: Procs = None, order: Order = _BF_DEFAULT.order, backfill: BackfillRule = _BF_DEFAULT.backfill,
    load: Load = None, load_by: LoadBy = _BF_DEFAULT.load_by, window_start: WindowStart = None,
    window_length: WindowLength = None, first: First = None,
    kind: Annotated[str, typer.Option(help="strict, relaxed or both (JSSPP'05 Sec. 3.1.1-3.1.2).")] = "both",
    skip_bad_records: SkipBad = False, out: UnfairnessOut = None, as_json: Json = False,
) -> None:
    """Fair-start-time unfairness of the schedule the policy gives on TRACE (JSSPP'05 Sec. 3.1)."""
    from fairsched.backfill import experiment as backfill_experiment
    from fairsched.report.backfill import backfill_json, unfairness_table

    flags = BackfillFlags(procs, order, backfill, load, load_by, window_start, window_length, first)
    if kind not in _FST_KINDS:
        raise ConfigError(f"--kind {kind!r}: choose one of {', '.join(_FST_KINDS)}")
    config = backfill_experiment.Config(trace=trace, **asdict(flags), fairness=_FST_KINDS[kind],
                                        skip_bad_records=skip_bad_records)
    with _output(out) as stage:
        with _progress(enabled=not as_json) as progress:
            report = backfill_experiment.run(config, 0, progress=progress).report
        outputs = _deliver(out, stage, lambda where: _trace_writer("write_fst_outputs")(report, where),
                           title="fairsched unfairness fst", config=config,
                           renderable=unfairness_table(report.unfairness))
    if as_json:
        _emit_json(backfill_json(report, outputs))
        return
    _console().print(unfairness_table(report.unfairness))
    _last_line(out)


Executor = Annotated[str, typer.Option(help="Where cells run: local (processes) or dask.")]
Scheduler = Annotated[str | None, typer.Option(help="Dask scheduler tcp://HOST:PORT (default: a LocalCluster).")]


@replicate_app.command("jsspp05")
def replicate_jsspp05_command(
    quick: Annotated[bool, typer.Option(help="CTC-SP2 and SDSC-BLUE at 80 % and 95 % load only.")] = False,
    workers: Annotated[int, typer.Option("--workers", "-w", "--jobs", "-j", min=1,
                                         help="Worker processes (--jobs/-j: deprecated alias).")] = 1,
    traces: Annotated[Path | None, typer.Option(file_okay=False, help="Directory of the traces. Default: "
                                                "$FAIRSCHED_TRACES, else ../shared/traces.")] = None,
    subset_size: Annotated[int, typer.Option(min=2, help="Jobs per trace (the first ones).")] = 5000,
    out: Annotated[Path, typer.Option(file_okay=False, help="Where the CSV files and figures go; the simulations "
                                      "are kept in DIR/sweep, so a rerun resumes.")] = Path("results/jsspp05"),
    executor: Executor = "local", scheduler: Scheduler = None, as_json: Json = False,
) -> None:
    """Replicate JSSPP'05 (Sabin & Sadayappan): 3 orders x 3 reservation depths x 5 loads per trace."""
    from fairsched.replicate import jsspp05
    from fairsched.report.backfill import jsspp05_json, jsspp05_renderable, write_jsspp05_outputs

    make = jsspp05.JSSPP05Config.quick if quick else jsspp05.JSSPP05Config
    config = make(traces_dir=traces, subset_size=subset_size, workers=workers, executor=executor,
                  scheduler=scheduler, store=out / "sweep",
                  resume=f"run the same command again to resume (kept in {out / 'sweep'})")
    _prepare_out(out)
    with _interruptible(), _progress(enabled=not as_json) as progress:
        result = jsspp05.run(config, progress=progress)
    with staged_files(out) as stage:  # the result set appears whole or not at all; the store stays
        outputs = final_paths(write_jsspp05_outputs(result, stage), stage, out)
    if as_json:
        _emit_json(jsspp05_json(result, outputs))
        return
    _console().print(jsspp05_renderable(result))
    typer.echo(f"outputs written to {out} (report: {out / 'report.json'})")


Traces = Annotated[Path | None, typer.Option(file_okay=False, help="Directory of the traces. Default: "
                                             "$FAIRSCHED_TRACES, else ../shared/traces.")]
Quick = Annotated[bool, typer.Option(help="10 windows instead of 100 (and fewer k for SPAA'13's figures).")]
Workers = Annotated[int, typer.Option("--workers", "-w", "--jobs", "-j", min=1,
                                     help="Worker processes, run in parallel (--jobs/-j: deprecated alias).")]


@replicate_app.command("ppam13")
def replicate_ppam13_command(quick: Quick = False, workers: Workers = 1, traces: Traces = None, seed: Seed = 0,
                             out: Annotated[Path, typer.Option(file_okay=False, help="Where the CSV files and "
                                                               "figures go.")] = Path("results/ppam13"),
                             as_json: Json = False,
                             variants: Annotated[bool, typer.Option(help="Run the PPAM'13 ablation grid "
                                                                    "instead (ppam13_variants_*.csv).")] = False,
                             windows: Annotated[int | None, typer.Option(
                                 min=1, help="Windows per table and trace (default 100, 10 with --quick).")] = None,
                             executor: Executor = "local", scheduler: Scheduler = None,
                             ) -> None:
    """Replicate PPAM'13 Tables 1–2: Δψ/p_tot of online policies against REF over random windows.

    The windows run as a sweep kept in OUT/sweep: a rerun resumes where an interrupted one stopped.
    """
    from fairsched.replicate import ppam13, ppam13_variants

    config = ppam13.PPAM13Config(traces_dir=traces, quick=quick, jobs=workers, seed=seed, out_dir=out,
                                 windows=windows, executor=executor, scheduler=scheduler, store=out / "sweep",
                                 resume=f"run the same command again to resume (kept in {out / 'sweep'})")
    if variants:
        with staged_files(out) as stage, _progress(enabled=not as_json) as progress:
            result = ppam13_variants.run_variants(replace(config, out_dir=stage), progress=progress)
        if as_json:
            _emit_json(ppam13_variants.to_json(result))
        else:
            typer.echo(ppam13_variants.render(result))
        return
    _replicate_online(ppam13.run, config, "PPAM'13 Tables 1–2: Δψ/p_tot mean (std), ours vs the paper", as_json)


@replicate_app.command("spaa13")
def replicate_spaa13_command(quick: Quick = False, workers: Workers = 1, traces: Traces = None, seed: Seed = 0,
                             out: Annotated[Path, typer.Option(file_okay=False, help="Where the CSV files and "
                                                               "figures go.")] = Path("results/spaa13"),
                             fig_seeds: Annotated[int | None, typer.Option(
                                 min=1, help="Scenario seeds per point of Figs. 4-5 (default 10, 2 with "
                                 "--quick).")] = None,
                             executor: Executor = "local", scheduler: Scheduler = None,
                             as_json: Json = False) -> None:
    """Replicate SPAA'13 Sec. 6.3: Fig. 4–5 (Δψ/p_tot against k) and the 5-organization table.

    The windows run as sweeps kept in OUT/sweep: a rerun resumes where an interrupted one stopped.
    """
    from fairsched.replicate import spaa13

    config = spaa13.SPAA13Config(traces_dir=traces, quick=quick, jobs=workers, seed=seed, out_dir=out,
                                 seeds=fig_seeds, executor=executor, scheduler=scheduler, store=out / "sweep",
                                 resume=f"run the same command again to resume (kept in {out / 'sweep'})")
    _replicate_online(spaa13.run, config, "SPAA'13 Sec. 6.3: Δψ/p_tot mean (std), ours vs the paper", as_json)


def _replicate_online(run: Callable[..., Any], config: Any, title: str, as_json: bool) -> None:
    from fairsched.replicate import ppam13
    from fairsched.report.online import replication_table

    with _interruptible(), staged_files(config.out_dir) as stage, _progress(enabled=not as_json) as progress:
        result = run(replace(config, out_dir=stage), progress=progress)  # the files appear whole, at the end
    if as_json:
        _emit_json(ppam13.to_json(result))  # ppam13 and spaa13 share the row schema
        return
    _console().print(replication_table(result.rows, title))
    for note in result.notes:
        typer.echo(f"note: {note}")
    typer.echo(f"outputs written to {config.out_dir} ({len(result.files)} files, {result.elapsed_s:.0f} s)")


_MOSP = "Generated instance"
_MOSP_DEFAULT = MOSP_DEFAULTS


@app.command("mosp")
def mosp_command(
    instance: Annotated[Path | None, typer.Option("--instance", dir_okay=False, help="Instance file (JSON, see "
                                                  "docs/mosp.md). Default: generate one.")] = None,
    generate: Annotated[str, typer.Option("--generate", rich_help_panel=_MOSP,
                                          help="uni (p in 1..50, q in 1..m), swf (Lublin-Feitelson rigid jobs) or "
                                               "trace (first --jobs jobs of --trace); owners Zipf(1.4267).")]
    = _MOSP_DEFAULT.generate,
    orgs: Annotated[int, typer.Option("--orgs", min=1, rich_help_panel=_MOSP, help="N, organizations (one "
                                      "cluster each).")] = _MOSP_DEFAULT.orgs,
    jobs: Annotated[int, typer.Option("--jobs", min=1, rich_help_panel=_MOSP, help="n, jobs.")] = _MOSP_DEFAULT.jobs,
    procs: Annotated[int, typer.Option("--procs", min=1, rich_help_panel=_MOSP, help="m, processors per "
                                       "cluster.")] = _MOSP_DEFAULT.procs,
    trace: Annotated[Path | None, typer.Option("--trace", dir_okay=False, rich_help_panel=_MOSP,
                                               help="SWF trace for --generate trace.")] = None,
    algorithm: Annotated[str, typer.Option("--algorithm", help="local, mocca, mocca-exp, mocca4, ilba or "
                                           "mocca+ilba (TPDS'11).")] = _MOSP_DEFAULT.algorithm,
    local_order: Annotated[str, typer.Option("--local-order", help="Order of the local schedules: hf, lpt, spt "
                                             "or rnd.")] = _MOSP_DEFAULT.local_order,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the generated instance and of RND.")] = 0,
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Write instance.json, schedule.csv, gantt.png, "
                                             "gantt_local.png and report.json into DIR.")] = None,
    as_json: Json = False,
) -> None:
    """Share clusters between organizations without making any of them worse off (TPDS'11): makespans, score."""
    from fairsched.mosp import experiment as mosp_experiment
    from fairsched.report.mosp import mosp_json, mosp_renderable

    config = mosp_experiment.Config(instance=instance, generate=generate, orgs=orgs, jobs=jobs, procs=procs,
                                    trace=trace, algorithm=algorithm, local_order=local_order)
    with _output(out) as stage:
        run = mosp_experiment.run(config, seed)
        report = run.report
        outputs = _deliver(out, stage, run.write, title="fairsched mosp", config=config, seed=seed,
                           renderable=mosp_renderable(report))
    if as_json:
        _emit_json(mosp_json(report, outputs))
        return
    _console().print(mosp_renderable(report))
    _last_line(out)


@replicate_app.command("tpds11")
def replicate_tpds11_command(
    quick: Annotated[bool, typer.Option(help="5 instances per combination instead of 50.")] = False,
    workers: Workers = 1, seed: Annotated[int, typer.Option("--seed", help="Seed of every instance.")] = 0,
    experiments: Annotated[str, typer.Option(help="Comma-separated: " + ", ".join(TPDS11_EXPERIMENTS) + ".")]
    = ",".join(TPDS11_EXPERIMENTS),
    out: Annotated[Path, typer.Option(file_okay=False, help="Where the CSV files and figures go; the instances' "
                                      "scores are kept in DIR/sweep, so a rerun resumes.")] = Path("results/tpds11"),
    executor: Executor = "local", scheduler: Scheduler = None, as_json: Json = False,
) -> None:
    """Replicate TPDS'11 Sec. 7: scores of local, MOCCA and MOCCA+ILBA on uni and swf instances (Fig. 8-10)."""
    from fairsched.replicate import tpds11
    from fairsched.report.mosp import tpds11_renderable, write_tpds11_outputs

    config = tpds11.TPDS11Config(quick=quick, jobs=workers, seed=seed, experiments=_names(experiments),
                                 executor=executor, scheduler=scheduler, store=out / "sweep",
                                 resume=f"run the same command again to resume (kept in {out / 'sweep'})")
    _prepare_out(out)
    with _interruptible(), _progress(enabled=not as_json) as progress:
        result = tpds11.run(config, progress=progress)
    with staged_files(out) as stage:  # the result set appears whole or not at all; the store stays
        outputs = final_paths(write_tpds11_outputs(result, stage), stage, out)
    if as_json:
        _emit_json(tpds11.to_json(result, outputs))
        return
    _console().print(tpds11_renderable(result))
    for note in result.notes:
        typer.echo(f"note: {note}")
    typer.echo(f"outputs written to {out} ({len(outputs)} files, {result.elapsed_s:.0f} s)")


_OPENSHOP = "Instance"


@app.command("openshop")
def openshop_command(
    google: Annotated[Path | None, typer.Option("--google", file_okay=False, rich_help_panel=_OPENSHOP,
                                                help="Google clusterdata-2011-2 directory (task_events/, "
                                                     "job_events/).")] = None,
    instance: Annotated[Path | None, typer.Option("--instance", dir_okay=False, rich_help_panel=_OPENSHOP,
                                                  help="Instance file (JSON, see docs/openshop.md).")] = None,
    jobs: Annotated[int, typer.Option("--jobs", min=1, rich_help_panel=_OPENSHOP,
                                      help="Jobs of a generated instance (without --google/--instance).")] = 50,
    machines: Annotated[int | None, typer.Option("--machines", min=1, rich_help_panel=_OPENSHOP,
                                                 help="Machines of a generated instance (default 10), or how many "
                                                      "the Google trace's machines are mapped onto (default "
                                                      "200).")] = None,
    max_tasks: Annotated[int, typer.Option("--max-tasks", min=1, rich_help_panel=_OPENSHOP,
                                           help="Google: keep jobs with at most this many tasks.")] = 200,
    algorithm: Annotated[str, typer.Option("--algorithm", help="Comma-separated: pba, kmaxmin, fifo, sptf, luf, "
                                           "exact. Default: pba,sptf,fifo (equal) or pba,luf,fifo (linear), as "
                                           "the paper compares.")] = "",
    utilities: Annotated[str, typer.Option("--utilities", help="equal (completion times) or linear "
                                           "(P_j x (tau - t), P_j from the job's priority).")] = "equal",
    online: Annotated[bool, typer.Option("--online", help="Jobs arrive over time; PBA/k-Max-Min re-plan at "
                                         "interval boundaries (Sec. VII-B).")] = False,
    delta0: Annotated[float | None, typer.Option("--delta0", help="Online: delta_0 in seconds. Default: a tenth "
                                                 "of the arrival span (the paper's ratio).")] = None,
    k: Annotated[int, typer.Option("--k", min=1, help="k of k-Max-Min.")] = 2,
    seed: Annotated[int, typer.Option("--seed", help="Seed: machine mapping, generated instance, PBA's "
                                      "perturbation.")] = 0,
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Write instance.json, jobs.csv, "
                                             "jobs_<algorithm>.csv, cdf.png and report.json into DIR.")] = None,
    as_json: Json = False,
) -> None:
    """Order multi-task jobs for max-min fair completion times (Networking'20): PBA, k-Max-Min vs baselines."""
    from fairsched.openshop import experiment as openshop_experiment
    from fairsched.report.openshop import openshop_json, openshop_renderable

    config = openshop_experiment.Config(google=google, instance=instance, jobs=jobs, machines=machines,
                                        max_tasks=max_tasks, algorithm=_names(algorithm), utilities=utilities,
                                        online=online, delta0=delta0, k=k)
    with _output(out) as stage:
        run = openshop_experiment.run(config, seed)
        report = run.report
        outputs = _deliver(out, stage, run.write, title="fairsched openshop", config=config, seed=seed,
                           renderable=openshop_renderable(report))
    if as_json:
        _emit_json(openshop_json(report, outputs))
        return
    _console().print(openshop_renderable(report))
    _last_line(out)


@replicate_app.command("networking20")
def replicate_networking20_command(
    quick: Annotated[bool, typer.Option(help="5 of the 10 parts of the Google slice; 50 random instances for the "
                                        "exact-reach table.")] = False,
    workers: Workers = 1, traces: Traces = None, seed: Annotated[int, typer.Option("--seed", help="The one seed.")] = 0,
    out: Annotated[Path, typer.Option(file_okay=False, help="Where the CSV files and figures go; the settings' "
                                      "results are kept in DIR/sweep, so a rerun resumes.")] = Path(
        "results/networking20"),
    executor: Executor = "local", scheduler: Scheduler = None, as_json: Json = False,
) -> None:
    """Replicate Networking'20 Sec. VII on the Google slice: PBA vs SPTF, LUF, FIFO, offline and online."""
    from fairsched.replicate import networking20
    from fairsched.report.openshop import networking20_renderable, write_networking20_outputs

    config = networking20.Networking20Config(traces_dir=traces, quick=quick, seed=seed, workers=workers,
                                             executor=executor, scheduler=scheduler, store=out / "sweep",
                                             resume=f"run the same command again to resume (kept in {out / 'sweep'})")
    _prepare_out(out)
    with _interruptible(), _progress(enabled=not as_json) as progress:
        result = networking20.run(config, progress=progress)
    with staged_files(out) as stage:  # the result set appears whole or not at all; the store stays
        outputs = final_paths(write_networking20_outputs(result, stage), stage, out)
    if as_json:
        _emit_json(networking20.to_json(result, outputs))
        return
    _console().print(networking20_renderable(result))
    for note in result.notes:
        typer.echo(f"note: {note}")
    typer.echo(f"outputs written to {out} ({len(outputs)} files, {result.elapsed_s:.0f} s)")


@app.command("sweep")
def sweep_command(
    spec: Annotated[Path, typer.Argument(dir_okay=False, help="Sweep spec (TOML, see docs/sweeps.md).")],
    out: Annotated[Path | None, typer.Option(file_okay=False, help="The results store. Default: "
                                             "results/<spec name>.")] = None,
    executor: Executor = "local",
    workers: Annotated[int | None, typer.Option(min=1, help="Worker processes. Default: the cores.")] = None,
    scheduler: Scheduler = None,
    fail_fast: Annotated[bool, typer.Option(help="Stop at the first failed cell.")] = False,
    dry_run: Annotated[bool, typer.Option(help="List the cells and whether each is stored; run none.")] = False,
    as_json: Json = False,
) -> None:
    """Run a model over a grid of options x seeds into a resumable store; only missing cells are computed."""
    from fairsched import sweep as sweeps
    from fairsched.report import sweep as report_sweep

    out = out if out is not None else Path("results") / spec.stem
    if dry_run:
        plan = sweeps.plan_sweep(spec, out)
        _render(report_sweep.plan_json(plan) if as_json else report_sweep.plan_table(plan), as_json)
        return
    with _interruptible(), report_sweep.sweep_progress(enabled=not as_json) as progress:
        summary = sweeps.run_sweep(spec, out, executor=executor, workers=workers, scheduler=scheduler,
                                   fail_fast=fail_fast, progress=progress)
    _render(report_sweep.summary_json(summary) if as_json else "\n".join(report_sweep.summary_lines(summary)),
            as_json)
    raise typer.Exit(1 if summary.failed else 0)


@app.command("results")
def results_command(
    out: Annotated[Path, typer.Argument(file_okay=False, help="A sweep's store (its --out).")],
    group_by: Annotated[str | None, typer.Option(help="Comma-separated columns. Default: the options the spec "
                                                 "varies, then policy.")] = None,
    metric: Annotated[str | None, typer.Option(help="Comma-separated metrics. Default: every metric.")] = None,
    plot: Annotated[Path | None, typer.Option(dir_okay=False, help="Write a bar chart of the (first) metric "
                                              "(PNG).")] = None,
    as_json: Json = False,
) -> None:
    """Mean, std and 95% CI over seeds of a sweep's results, per group: a table, JSON or a plot."""
    from fairsched import sweep as sweeps
    from fairsched.report import sweep as report_sweep

    results = sweeps.read_results(out, group_by=None if group_by is None else _names(group_by),
                                  metrics=None if metric is None else _names(metric))
    if plot is not None and results.metrics:
        report_sweep.write_results_plot(results, results.metrics[0], plot)
    _render(report_sweep.results_json(results) if as_json else report_sweep.results_table(results), as_json)


# -- fairsched slurm: a private local Slurm cluster and the replay of a log on it (docs/slurm.md) ----------------
slurm_app = typer.Typer(no_args_is_help=True, help="A private Slurm cluster on this host (Debian's slurm-wlm "
                                                    "22.05): start, stop, replay a log on it.")
app.add_typer(slurm_app, name="slurm")


@slurm_app.command("up")
def slurm_up_command(
    directory: Annotated[Path, typer.Argument(file_okay=False, help="A new or empty directory for everything: "
                                              "configuration, database, state, logs.")],
    nodes: Annotated[int, typer.Option(min=1, max=64, help="Nodes (one slurmd each, all on this host).")] = 4,
    cpus_per_node: Annotated[int, typer.Option(min=1, help="CPUs each node declares (not the host's).")] = 4,
    fair_tree: Annotated[bool, typer.Option("--fair-tree/--classic", help="Fair Tree (Slurm's default) or "
                                            "classic fair-share (PriorityFlags=NO_FAIR_TREE).")] = True,
    half_life: Annotated[str, typer.Option(help="PriorityDecayHalfLife: 30m, 2h, 7d, 600 (s), 7-0; whole "
                                           "minutes.")] = "7d",
    accounts: Annotated[Path | None, typer.Option(dir_okay=False, help="Accounts to create: one 'ACCOUNT SHARES' "
                                                  "per line.")] = None,
) -> None:
    """Start munged, MariaDB, slurmdbd, slurmctld and the slurmd; print the `export SLURM_CONF=...` line."""
    from fairsched import slurm

    config = slurm.ClusterConfig(nodes=nodes, cpus_per_node=cpus_per_node, fair_tree=fair_tree,
                                 half_life=slurm.parse_half_life(half_life),
                                 accounts=slurm.read_accounts_file(accounts) if accounts is not None else ())
    cluster = slurm.up(directory, config, progress=lambda line: typer.echo(line, err=True))
    typer.echo(f"cluster up: {nodes} nodes x {cpus_per_node} CPUs; stop it with `fairsched slurm down "
               f"{cluster.root}`", err=True)
    typer.echo(f"export SLURM_CONF={cluster.slurm_conf}")


@slurm_app.command("down")
def slurm_down_command(
    directory: Annotated[Path, typer.Argument(file_okay=False, help="The directory given to `slurm up`.")],
) -> None:
    """Stop every daemon `slurm up` started there (by recorded pid, in reverse order), and any job left."""
    from fairsched import slurm

    report = slurm.down(directory)
    killed = [name for name, forced in report.stopped if forced]
    typer.echo(f"stopped {len(report.stopped)} daemons in {report.seconds:.1f} s"
               + (f" ({', '.join(killed)} with SIGKILL)" if killed else "")
               + (f"; {report.leftovers} leftover job processes killed" if report.leftovers else ""), err=True)


@slurm_app.command("replay")
def slurm_replay_command(
    log: Annotated[Path, typer.Argument(dir_okay=False, help="A log: SWF or sacct -P export.")],
    scale: Annotated[float, typer.Option(help="Divide submit and run times by S (jobs run at least 2 s).")],
    out: Annotated[Path, typer.Option(file_okay=False, help="Directory for sacct.txt and sshare.txt.")],
    accounts_from: Annotated[str | None, typer.Option(help="Log column naming the Slurm account: account, user "
                                                      "or group. Default: account (sacct), group (SWF).")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Replay only the first N jobs.")] = None,
) -> None:
    """Submit LOG's jobs to the cluster SLURM_CONF names (only one `slurm up` started), wait, export."""
    from fairsched.slurm import require_cluster
    from fairsched.slurm.replay import replay

    require_cluster(os.environ.get("SLURM_CONF"))  # refuse before anything is created, --out included
    _prepare_out(out)
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM cancels the jobs like Ctrl-C
    try:
        result = replay(log, scale=scale, slurm_conf=os.environ.get("SLURM_CONF"), accounts_from=accounts_from,
                        limit=limit, progress=lambda line: typer.echo(line, err=True))
    except KeyboardInterrupt:
        typer.echo("interrupted: the jobs submitted were cancelled (scancel); the cluster is still up", err=True)
        raise typer.Exit(_INTERRUPTED) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    files = result.write(out)
    typer.echo("\n".join([*result.summary(), f"written: {', '.join(str(path) for path in files.values())}"]))


@app.command("steer")
def steer_command(
    policy: Annotated[str, typer.Option(help="directcontr (serve the accounts whose utility lags their Shapley "
                                        "contribution) or fair-tree-boost (Fair Tree's LevelFS order).")] =
    "directcontr",
    every: Annotated[str, typer.Option(help="Period between two passes: 30s, 5m, ...")] = "30s",
    max_nice: Annotated[int, typer.Option(min=1, help="Every nice set stays within ±N.")] = 10000,
    window: Annotated[str | None, typer.Option(help="Usage window: 1h, 7d, ... Default: PriorityDecayHalfLife.")]
    = None,
    dry_run: Annotated[bool, typer.Option(help="Print the scontrol commands instead of running them.")] = False,
    log: Annotated[Path | None, typer.Option(dir_okay=False, help="Append every action as a JSON line to FILE "
                                             "(also how a later run knows what to give back).")] = None,
    once: Annotated[bool, typer.Option(help="One pass, nothing given back (cron, tests).")] = False,
    restore: Annotated[bool, typer.Option(help="Give back the nice values recorded in --log, then exit.")] = False,
    exact_up_to: Annotated[int, typer.Option(help="Exact Shapley values up to K accounts, sampled beyond.")] = 12,
    samples: Annotated[int, typer.Option(help="Permutations for sampled Shapley values.")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the sampled Shapley values.")] = 0,
) -> None:
    """Steer a live Slurm: set the nice of pending jobs so that each account gets what it contributed."""
    from fairsched.slurm.steer import SteerOptions, restore_from_log, steer, stop_on_signals

    options = SteerOptions.from_flags(policy=policy, every=every, max_nice=max_nice, window=window, dry_run=dry_run,
                                      log=log, once=once, exact_up_to=exact_up_to, samples=samples, seed=seed)
    echo = lambda line: typer.echo(line, err=True)  # noqa: E731
    if restore:
        typer.echo(restore_from_log(options, echo=echo).summary(), err=True)
        return
    with stop_on_signals() as stopped:
        report = steer(options, stop=stopped.event, echo=echo, out=typer.echo)
    typer.echo(report.summary(), err=True)
    if stopped.signum == signal.SIGINT:
        raise typer.Exit(_INTERRUPTED)


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point ``fairsched``: user errors -> ``error: <message>`` on stderr, exit code 2; Ctrl-C ->
    ``interrupted`` and exit code 130 (no output directory is left half-written: see `fairsched._io.staged_dir`)."""
    args = sys.argv[1:] if argv is None else list(argv)
    token = _ARGV.set(tuple(args))
    command = typer.main.get_command(app)
    code: Any = 0
    try:
        with command.make_context("fairsched", args) as context:
            command.invoke(context)
    except typer.Exit as exc:  # --help, --version, or a command's own exit code
        code = exc.exit_code
    except KeyboardInterrupt:  # `_output` has already removed its staged directory
        typer.echo("interrupted: stopped before the end; no output directory was written", err=True)
        code = _INTERRUPTED
    except FairschedError as exc:
        _fail(str(exc))
    except BadParameter as exc:  # a value out of range, a directory given as a file, ...
        _fail(exc.format_message())
    except ClickException as exc:  # an unknown flag, a missing argument: the usage, then the error
        exc.show()
        code = exc.exit_code
    finally:
        _ARGV.reset(token)
    if code:
        raise SystemExit(code)


def _fail(message: str) -> NoReturn:
    message = " ".join(line.strip() for line in message.splitlines() if line.strip())
    typer.echo(f"error: {message}", err=True)
    raise SystemExit(2) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fairsched {fairsched.__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """Fair scheduling in systems shared by several organizations: workloads, engines, fairness."""


def _deliver(out: Path | None, stage: Path | None, write: Callable[[Path], dict[str, Path]], *, title: str,
             config: Any, seed: int | None = None, renderable: Any = None, notes: Sequence[str] = (),
             warnings: Sequence[str] = (), tables: Sequence[Any] = ()) -> dict[str, Path]:
    """Write a command's files into `stage` (the staged `out`, `_output`) with its report.html (`tables`, of
    `fairsched.report.html.Table`, come first); return the files' final paths. Nothing happens without --out."""
    if out is None or stage is None:
        return {}
    from fairsched.report.html import REPORT_FILE, command_line, output_report, write_report_html

    written = write(stage)
    marker = stage / OUTPUT_MARKER
    if marker.is_file():  # its `outputs` name the staged paths: name the final ones
        staged, final = (json.dumps(str(path))[1:-1] for path in (stage, out))
        marker.write_text(marker.read_text(encoding="utf-8").replace(staged, final), encoding="utf-8")
    values = asdict(config) if is_dataclass(config) else dict(config or {})
    settings = {**values, **({} if seed is None else {"seed": seed})}
    text = [("Terminal output", _plain_text(renderable))] if renderable is not None else []
    command = command_line(_ARGV.get()) if _ARGV.get() else _rebuilt_command(title, config, seed, out)
    page = output_report(stage, title=title, command=command, config=settings, text=text, notes=notes,
                         warnings=warnings, tables=tables)
    write_report_html(page, stage)
    return {**{name: out / path.relative_to(stage) for name, path in written.items()},
            REPORT_FILE: out / REPORT_FILE}


@contextlib.contextmanager
def _output(out: Path | None) -> Iterator[Path | None]:
    """The staged output directory of a command (None without --out): moved to `out` when the command succeeds."""
    if out is None:
        yield None
        return
    with staged_dir(out) as stage:
        yield stage


def _rebuilt_command(title: str, config: Any, seed: int | None, out: Path) -> str:
    """The command line of a config, when the CLI was called without `main` (e.g. by a test's CliRunner): every
    field that differs from its default, as its flag."""
    import shlex
    from dataclasses import fields

    words = title.split()
    for field in fields(config) if is_dataclass(config) else ():
        value = getattr(config, field.name)
        if value == field.default or not field.init:
            continue
        name = "--" + field.name.replace("_", "-")
        if isinstance(value, bool):
            words.append(name if value else f"--no-{name[2:]}")
        else:
            words += [name, ",".join(map(str, value)) if isinstance(value, tuple) else str(value)]
    if seed:
        words += ["--seed", str(seed)]
    return shlex.join([*words, "--out", str(out)])


def _skipped_notes(read_report: Any) -> list[str]:
    """What --skip-bad-records dropped, said on the terminal too (not only in the JSON): count, reasons, first."""
    skipped = getattr(read_report, "skipped", None) or {}
    if not skipped:
        return []
    reasons = "; ".join(f"{reason} ({count:,})" for reason, count in sorted(skipped.items()))
    first = read_report.first_problems[0] if read_report.first_problems else ""
    return [f"--skip-bad-records dropped {sum(skipped.values()):,} malformed records: {reasons}"
            + (f"; first: {first}" if first else "")]


def _idle_org_notes(scenario: Any) -> list[str]:
    """Organizations that submit no job (they only contribute machines), e.g. --orgs-by queue with fewer queues
    than --orgs."""
    import numpy as np

    counts = np.bincount(scenario.jobs["org"].to_numpy(np.int64), minlength=scenario.n_orgs)
    idle = np.flatnonzero(counts == 0)
    if idle.size == 0:
        return []
    return [f"{idle.size} of {scenario.n_orgs} organizations submit no job (organization "
            f"{', '.join(map(str, idle.tolist()))}): they only contribute machines; fewer distinct ids than --orgs "
            "leave organizations empty, so lower --orgs or choose another --orgs-by to give each one jobs"]


def _echo_notes(notes: Sequence[str]) -> None:
    for note in notes:  # stderr: with --json, stdout stays one JSON document
        typer.echo(f"note: {note}", err=True)


def _last_line(out: Path | None) -> None:
    if out is not None:  # plain echo: a path is neither wrapped nor read as rich markup
        typer.echo(f"report: {out / 'report.html'} (all files in {out})")


def _plain_text(renderable: Any) -> str:
    from rich.console import Console

    console = Console(file=io.StringIO(), width=_PLAIN_WIDTH, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def _names(policies: str) -> tuple[str, ...]:
    from fairsched._contract import split_names

    return split_names(policies)


def _prepare_out(out: Path | None) -> None:
    """Fail before the work, not after it, when the output directory cannot be written."""
    if out is not None:
        ensure_writable_dir(out)


def _console() -> Console:
    from rich.console import Console

    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:  # COLUMNS=80 still asks for 80 columns
        console.width = _PLAIN_WIDTH
    return console


def _emit_json(doc: Any) -> None:
    from fairsched.report.tables import jsonable

    typer.echo(json.dumps(jsonable(doc), indent=2))


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """A sweep stopped by Ctrl-C or SIGTERM: one line saying what is kept and how to resume, exit code 130."""
    from fairsched.sweep.run import SweepInterrupted

    try:
        yield
    except SweepInterrupted as stop:
        typer.echo(str(stop), err=True)
        raise typer.Exit(130) from None


def _render(what: Any, as_json: bool) -> None:
    """One JSON document, a plain string (paths stay unwrapped) or a rich renderable."""
    if as_json:
        _emit_json(what)
    elif isinstance(what, str):
        typer.echo(what)
    else:
        _console().print(what)


@contextlib.contextmanager
def _progress(*, enabled: bool) -> Iterator[ProgressCallback | None]:
    """A rich progress bar on stderr, only when asked for and stderr is a terminal."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not (enabled and console.is_terminal):
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def update(description: str, done: int, total: int) -> None:
            bar.update(task, description=description, completed=done, total=total)

        yield update
