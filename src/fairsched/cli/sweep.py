"""``fairsched sweep`` and ``fairsched results``: a model over a grid of options x seeds, and its statistics."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import app
from fairsched.cli._deliver import delivery
from fairsched.cli._options import Executor, Json, Scheduler, names


@app.command("sweep")
def sweep_command(
    spec: Annotated[Path, typer.Argument(dir_okay=False, help="Sweep spec (TOML, see docs/sweeps.md).")],
    out: Annotated[Path | None, typer.Option(file_okay=False, help="The results store. Default: "
                                             "results/<spec name>.")] = None,
    executor: Executor = "local",
    workers: Annotated[int | None, typer.Option("--workers", "-w", min=1,
                                                help="Worker processes. Default: the cores.")] = None,
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
        with delivery(None, as_json=as_json, progress=False) as job:
            plan = sweeps.plan_sweep(spec, out)
        job.show(report_sweep.plan_json(plan), report_sweep.plan_table(plan))
        return
    # the store is the sweep's output: it is written cell by cell, never staged
    with delivery(None, as_json=as_json, sweep=True, progress=False) as job, \
            report_sweep.sweep_progress(enabled=not as_json) as progress:
        summary = sweeps.run_sweep(spec, out, executor=executor, workers=workers, scheduler=scheduler,
                                   fail_fast=fail_fast, progress=progress)
    job.show(report_sweep.summary_json(summary), "\n".join(report_sweep.summary_lines(summary)))
    raise typer.Exit(1 if summary.failed else 0)


@app.command("results")
def results_command(
    out: Annotated[Path, typer.Argument(file_okay=False, help="A sweep's store (its --out).")],
    group_by: Annotated[str | None, typer.Option(help="Comma-separated columns. Default: the options the spec "
                                                 "varies, then policy.")] = None,
    metric: Annotated[str | None, typer.Option(help="Comma-separated metrics. Default: every metric.")] = None,
    plot: Annotated[Path | None, typer.Option(dir_okay=False, help="Write a bar chart of the (first) metric, "
                                              "in the format the suffix names (.png, .pdf, .svg).")] = None,
    baseline: Annotated[str | None, typer.Option(help="COLUMN=VALUE, e.g. policy=fairshare: per group, each "
                                                 "row's paired differences and ratios against it (same seed and "
                                                 "options), 95% t and bootstrap intervals, Wilcoxon p.")] = None,
    as_json: Json = False,
) -> None:
    """Mean, std and 95% CI over seeds of a sweep's results, per group (or, with --baseline, paired comparisons):
    a table, JSON or a plot."""
    from fairsched import sweep as sweeps
    from fairsched.report import sweep as report_sweep

    groups, metrics = None if group_by is None else names(group_by), None if metric is None else names(metric)
    with delivery(None, as_json=as_json, progress=False) as job:
        results = sweeps.read_results(out, group_by=groups, metrics=metrics)
        if plot is not None and results.metrics:
            report_sweep.write_results_plot(results, results.metrics[0], plot)
        paired = None if baseline is None else sweeps.paired_results(out, baseline, group_by=groups, metrics=metrics)
    if paired is not None:
        job.show(report_sweep.paired_json(paired), report_sweep.paired_table(paired))
        return
    job.show(report_sweep.results_json(results), report_sweep.results_table(results))
