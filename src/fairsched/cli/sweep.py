"""``fairsched sweep`` and ``fairsched results``: a model over a grid of options x seeds, and its statistics."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import app
from fairsched.cli._deliver import ARGV, delivery
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
    keep_schedules: Annotated[bool, typer.Option(help="Keep each cell's schedules as Batsim jobs.csv files in "
                                                 "DIR/schedules/<cell>/ (online, backfill, mosp).")] = False,
    as_json: Json = False,
) -> None:
    """Run a model over a grid of options x seeds into a resumable store; only missing cells are computed.
    Writes DIR/report.html."""
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
        export = None
        if keep_schedules:
            from fairsched.report.sweep_schedules import schedule_export

            export = schedule_export(sweeps.load_spec(spec).model)
        summary = sweeps.run_sweep(spec, out, executor=executor, workers=workers, scheduler=scheduler,
                                   fail_fast=fail_fast, progress=progress, keep_schedules=export)
        page = _write_page(out, f"fairsched sweep {spec.name}", ["sweep", str(spec), "--out", str(out)],
                           summary=summary)
    lines = report_sweep.summary_lines(summary) + ([f"report: {page}"] if page else [])
    job.show({**report_sweep.summary_json(summary), "report": str(page) if page else None}, "\n".join(lines))
    raise typer.Exit(1 if summary.failed else 0)


@app.command("results")
def results_command(
    out: Annotated[Path, typer.Argument(file_okay=False, help="A sweep's store (its --out).")],
    group_by: Annotated[str | None, typer.Option(help="Comma-separated columns. Default: the options the spec "
                                                 "varies, then policy.")] = None,
    metric: Annotated[str | None, typer.Option(help="Comma-separated metrics. Default: every metric.")] = None,
    plot: Annotated[Path | None, typer.Option(dir_okay=False, help="Draw the (first) metric into this file, in "
                                              "the format its suffix names (.png, .pdf, .svg): lines against a "
                                              "numeric option, else bars.")] = None,
    x: Annotated[str | None, typer.Option("--x", help="--plot against this numeric column grouped by. Default: "
                                          "the first numeric one.")] = None,
    facet: Annotated[str | None, typer.Option(help="--plot one panel per value of this column grouped by. "
                                              "Default: the groups left after x and policy.")] = None,
    with_reference: Annotated[bool, typer.Option(help="--plot the reference policy too.")] = False,
    log_y: Annotated[bool, typer.Option(help="--plot on a log y axis.")] = False,
    table: Annotated[str | None, typer.Option(help="Print mean ± 95% CI, one row per group and one column per "
                                              "metric, as latex, markdown or csv.")] = None,
    baseline: Annotated[str | None, typer.Option(help="COLUMN=VALUE, e.g. policy=fairshare: per group, each "
                                                 "row's paired differences and ratios against it (same seed and "
                                                 "options), 95% t and bootstrap intervals, Wilcoxon p.")] = None,
    report: Annotated[bool, typer.Option(help="Write DIR/report.html (tables, figures, this command).")] = True,
    as_json: Json = False,
) -> None:
    """Mean, std and 95% CI over seeds of a sweep's results, per group (or, with --baseline, paired comparisons):
    a table, JSON, a plot, a paper table and DIR/report.html."""
    from fairsched import sweep as sweeps
    from fairsched.report import sweep as report_sweep
    from fairsched.report.sweep_figures import PlotOptions, results_table_text, write_results_plot

    groups, metrics = None if group_by is None else names(group_by), None if metric is None else names(metric)
    options = PlotOptions(x=x, facet=facet, with_reference=with_reference, log_y=log_y)
    with delivery(None, as_json=as_json, progress=False) as job:
        results = sweeps.read_results(out, group_by=groups, metrics=metrics)
        text = None if table is None else results_table_text(results, table)
        if plot is not None and results.metrics:
            write_results_plot(results, results.metrics[0], plot, options)
        paired = None if baseline is None else sweeps.paired_results(out, baseline, group_by=groups, metrics=metrics)
        if report:
            _write_page(out, f"fairsched results {out}", ["results", str(out)], results=results, paired=paired,
                        plot=options)
    if text is not None and not as_json:
        typer.echo(text, nl=False)
        return
    if paired is not None:
        job.show(report_sweep.paired_json(paired), report_sweep.paired_table(paired))
        return
    job.show(report_sweep.results_json(results), report_sweep.results_table(results))


def _write_page(out: Path, title: str, argv: list[str], **kwargs: object) -> Path | None:
    """DIR/report.html (`fairsched.report.sweep_page`); the command is the one typed when `main` ran it."""
    from fairsched import sweep as sweeps
    from fairsched.report.html import command_line
    from fairsched.report.sweep_page import write_sweep_report

    results = kwargs.pop("results", None) or sweeps.read_results(out)
    command = command_line(ARGV.get()) if ARGV.get() else command_line(argv)
    try:
        return write_sweep_report(out, results, command=command, title=title, **kwargs)  # type: ignore[arg-type]
    except OSError as exc:  # a store one may read but not write (another member's): say so, keep the results
        typer.echo(f"note: report.html not written ({exc.strerror or exc})", err=True)
        return None
