"""``fairsched whatif``: a real log replayed under other fair-share policies, beside the recorded schedule
(docs/whatif.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairsched._names import BACKFILL_RULES, TICKED_ORDERS
from fairsched.cli._app import app
from fairsched.cli._deliver import delivery
from fairsched.cli._options import AUDIT_ORG_BY, Json, OrgMap, SkipBad, names, org_by_option

_WEIGHTS = "fairshare=10000,age=1000,jobsize=0"


@app.command("whatif")
def whatif_command(
    log: Annotated[Path, typer.Argument(dir_okay=False, help="Accounting log: sacct -P export, SWF (.swf/.swf.gz) "
                                                              "or Batsim jobs.csv.")],
    policies: Annotated[str | None, typer.Option(help="Comma-separated: recorded and queue orders (fcfs, sjf, lxf, "
                                                      f"{', '.join(TICKED_ORDERS)}). Default: recorded, fcfs and "
                                                      "every fair-share order of this build.")] = None,
    half_life: Annotated[str, typer.Option(help="PriorityDecayHalfLife: 7d, 12h, 300 (s).")] = "7d",
    calc_period: Annotated[str, typer.Option(help="PriorityCalcPeriod, the tick of the fair-share orders: 5min, "
                                                  "300 (s).")] = "5min",
    weights: Annotated[str, typer.Option(help="PriorityWeight* of the Slurm orders: KEY=INT among age, fairshare, "
                                              "jobsize (one partition, no QOS).")] = _WEIGHTS,
    backfill: Annotated[str, typer.Option(help=f"Backfilling rule of the replays: {', '.join(BACKFILL_RULES)} "
                                               "(slurm: Slurm's main and backfill schedulers).")] = "easy",
    bf_interval: Annotated[str, typer.Option(help="--backfill slurm: time between backfill passes, Slurm's "
                                                  "bf_interval: 30s, 1min.")] = "30s",
    bf_window: Annotated[str, typer.Option(help="--backfill slurm: how far the backfill plan looks, Slurm's "
                                                "bf_window: 1440min, 2d.")] = "1440min",
    bf_max_job_test: Annotated[int, typer.Option(min=1, help="--backfill slurm: waiting jobs tested per backfill "
                                                             "pass, Slurm's bf_max_job_test.")] = 500,
    tree: Annotated[Path | None, typer.Option(dir_okay=False, help="Entitled shares from an association tree: CSV "
                                              "account,user,parent,shares,raw_usage, or an sshare / sacctmgr -P "
                                              "dump.")] = None,
    initial_usage: Annotated[str, typer.Option(help="Usage the Slurm orders start from: zero, or tree (the "
                                                    "RawUsage of --tree, e.g. an sshare -a -l -P dump taken when "
                                                    "the log begins).")] = "zero",
    shares: Annotated[str, typer.Option(help="equal, usage, or a CSV file org,cpus / org,share.")] = "equal",
    format: Annotated[str, typer.Option(help="auto, swf, sacct or jobs-csv.")] = "auto",
    org_by: Annotated[str | None, org_by_option(AUDIT_ORG_BY, "account (sacct, jobs.csv), group (SWF)")] = None,
    org_map: OrgMap = None,
    cpus: Annotated[int | None, typer.Option(help="Pool CPUs. Default: the largest concurrent allocation.")] = None,
    since: Annotated[str | None, typer.Option(help="Replay jobs submitted from T (log seconds or a date).")] = None,
    until: Annotated[str | None, typer.Option(help="...and before T; usage and utilities are taken at T.")] = None,
    exact_up_to: Annotated[int, typer.Option(help="Exact Shapley values up to K organizations.")] = 12,
    samples: Annotated[int, typer.Option(help="Permutations for sampled Shapley values.")] = 200,
    fst_sample: Annotated[int, typer.Option(help="Fair-start-time what-ifs per policy (0: all).")] = 500,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Write report.html, orgs.csv, policies.csv, "
                                             "usage_over_time.csv, jobs.csv and report.json into DIR.")] = None,
    skip_bad_records: SkipBad = False, as_json: Json = False,
) -> None:
    """What if the cluster had used another policy? Replay a log under each one (docs/whatif.md)."""
    from fairsched.audit.whatif import WhatifConfig, run_whatif
    from fairsched.report.whatif import whatif_command as command_of
    from fairsched.report.whatif import whatif_json, whatif_renderable, write_whatif_outputs

    config = WhatifConfig(log=log, policies=None if policies is None else names(policies), half_life=half_life,
                          calc_period=calc_period, weights=weights, backfill=backfill, bf_interval=bf_interval,
                          bf_window=bf_window, bf_max_job_test=bf_max_job_test, tree=tree,
                          initial_usage=initial_usage, shares=shares,
                          format=format, org_by=org_by, org_map=org_map, cpus=cpus, since=since, until=until,
                          exact_up_to=exact_up_to, samples=samples, fst_sample=fst_sample, seed=seed,
                          skip_bad_records=skip_bad_records)
    with delivery(out, as_json=as_json) as job:
        result = run_whatif(config, progress=job.progress)
        job.write(lambda where: write_whatif_outputs(result, where, command=command_of(config)))
    job.show(whatif_json(result, job.outputs if out is not None else None), whatif_renderable(result))
