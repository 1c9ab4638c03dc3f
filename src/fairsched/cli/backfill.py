"""``fairsched backfill`` and ``fairsched unfairness re|fst``: the backfilling model (JSSPP'05)."""

from __future__ import annotations

from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import app, group
from fairsched.cli._deliver import Page, delivery, skipped_notes
from fairsched.cli._options import (
    BACKFILL_DEFAULTS,
    FAIRNESS_METRICS,
    BackfillFlags,
    BackfillRule,
    BfInterval,
    BfMaxJobTest,
    BfWindow,
    First,
    Json,
    Load,
    LoadBy,
    Order,
    Procs,
    SkipBad,
    WindowLength,
    WindowStart,
    names,
)
from fairsched.cli.trace import trace_writer
from fairsched.errors import ConfigError

_DEFAULT = BACKFILL_DEFAULTS
_FST_KINDS = {"strict": ("fst-strict",), "relaxed": ("fst-relaxed",), "both": ("fst-strict", "fst-relaxed")}

unfairness_app = group("unfairness", "Unfairness of a backfilling schedule (JSSPP'05 §3): resource equality, fair "
                                     "start time.")
Trace = Annotated[Path, typer.Argument(dir_okay=False, help="SWF trace (.swf or .swf.gz).")]
UnfairnessOut = Annotated[Path | None, typer.Option(file_okay=False, help="Write the per-job values, wait / "
                                                    "slowdown / unfairness by width and arrivals figures, "
                                                    "report.json and report.html into DIR.")]


@app.command("backfill")
def backfill_command(
    trace: Annotated[Path, typer.Option("--trace", dir_okay=False, help="SWF trace (.swf or .swf.gz).")],
    procs: Procs = None, order: Order = _DEFAULT.order, backfill: BackfillRule = _DEFAULT.backfill,
    load: Load = None, load_by: LoadBy = _DEFAULT.load_by, window_start: WindowStart = None,
    window_length: WindowLength = None, first: First = None,
    fairness: Annotated[str, typer.Option(help=f"Comma-separated unfairness metrics: {', '.join(FAIRNESS_METRICS)} "
                                               "(JSSPP'05 Sec. 3).")] = "",
    bf_interval: BfInterval = _DEFAULT.bf_interval, bf_window: BfWindow = _DEFAULT.bf_window,
    bf_max_job_test: BfMaxJobTest = _DEFAULT.bf_max_job_test,
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Write schedule.csv, fairness.csv, jobs.csv, "
                                             "schedule.swf, gantt.png and report.json into DIR.")] = None,
    skip_bad_records: SkipBad = False, as_json: Json = False,
) -> None:
    """Simulate one queue order x backfilling rule on a trace: classic metrics and, if asked, unfairness."""
    from fairsched.backfill import experiment as backfill_experiment
    from fairsched.report import write_result
    from fairsched.report.backfill import backfill_json, backfill_renderable, estimate_notes

    flags = BackfillFlags(procs, order, backfill, load, load_by, window_start, window_length, first, bf_interval,
                          bf_window, bf_max_job_test)
    config = backfill_experiment.Config(trace=trace, **asdict(flags), fairness=names(fairness),
                                        skip_bad_records=skip_bad_records)
    with delivery(out, as_json=as_json) as job:
        run = backfill_experiment.run(config, 0, progress=job.progress)
        report = run.report
        warnings = skipped_notes(report.read_report) + estimate_notes(report)
        job.write(partial(write_result, run),
                  page=Page("fairsched backfill", config, renderable=backfill_renderable(report), warnings=warnings))
    job.show(backfill_json(report, job.outputs), backfill_renderable(report), warnings=warnings)


@unfairness_app.command("re")
def unfairness_re_command(trace: Trace, procs: Procs = None, skip_bad_records: SkipBad = False,
                          out: UnfairnessOut = None, as_json: Json = False) -> None:
    """Resource-equality unfairness of the trace's own schedule (start = submit + wait; JSSPP'05 Sec. 3.2)."""
    from fairsched.backfill.experiment import trace_resource_equality
    from fairsched.report.backfill import trace_unfairness_json, trace_unfairness_renderable

    with delivery(out, as_json=as_json, progress=False) as job:
        result = trace_resource_equality(trace, processors=procs, skip_bad_records=skip_bad_records)
        job.write(lambda where: trace_writer("write_trace_unfairness_outputs")(result, where),
                  page=Page("fairsched unfairness re", {"trace": trace, "procs": procs,
                                                        "skip_bad_records": skip_bad_records},
                            renderable=trace_unfairness_renderable(result)))
    job.show({**trace_unfairness_json(result), **({"outputs": job.outputs} if out is not None else {})},
             trace_unfairness_renderable(result))


@unfairness_app.command("fst")
def unfairness_fst_command(
    trace: Trace, procs: Procs = None, order: Order = _DEFAULT.order, backfill: BackfillRule = _DEFAULT.backfill,
    load: Load = None, load_by: LoadBy = _DEFAULT.load_by, window_start: WindowStart = None,
    window_length: WindowLength = None, first: First = None,
    kind: Annotated[str, typer.Option(help="strict, relaxed or both (JSSPP'05 Sec. 3.1.1-3.1.2).")] = "both",
    bf_interval: BfInterval = _DEFAULT.bf_interval, bf_window: BfWindow = _DEFAULT.bf_window,
    bf_max_job_test: BfMaxJobTest = _DEFAULT.bf_max_job_test,
    skip_bad_records: SkipBad = False, out: UnfairnessOut = None, as_json: Json = False,
) -> None:
    """Fair-start-time unfairness of the schedule the policy gives on TRACE (JSSPP'05 Sec. 3.1); the fair start
    times replay the same order and rule (with --backfill slurm, its --bf-* options)."""
    from fairsched.backfill import experiment as backfill_experiment
    from fairsched.report.backfill import backfill_json, unfairness_table

    flags = BackfillFlags(procs, order, backfill, load, load_by, window_start, window_length, first, bf_interval,
                          bf_window, bf_max_job_test)
    if kind not in _FST_KINDS:
        raise ConfigError(f"--kind {kind!r}: choose one of {', '.join(_FST_KINDS)}")
    config = backfill_experiment.Config(trace=trace, **asdict(flags), fairness=_FST_KINDS[kind],
                                        skip_bad_records=skip_bad_records)
    with delivery(out, as_json=as_json) as job:
        report = backfill_experiment.run(config, 0, progress=job.progress).report
        job.write(lambda where: trace_writer("write_fst_outputs")(report, where),
                  page=Page("fairsched unfairness fst", config, renderable=unfairness_table(report.unfairness)))
    job.show(backfill_json(report, job.outputs), unfairness_table(report.unfairness))
