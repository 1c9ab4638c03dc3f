"""``fairsched audit``: did every organization of a real cluster get its due? (docs/audit.md)"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import app
from fairsched.cli._deliver import delivery
from fairsched.cli._options import AUDIT_ORG_BY, Json, OrgMap, SkipBad, org_by_option


@app.command("audit")
def audit_command(
    log: Annotated[Path, typer.Argument(dir_okay=False, help="Accounting log: sacct -P export, SWF (.swf/.swf.gz) "
                                                              "or Batsim jobs.csv.")],
    format: Annotated[str, typer.Option(help="auto, swf, sacct or jobs-csv.")] = "auto",
    org_by: Annotated[str | None, org_by_option(AUDIT_ORG_BY, "account (sacct, jobs.csv), group (SWF)")] = None,
    org_map: OrgMap = None,
    unmapped_org: Annotated[str | None, typer.Option(help="Organization of the log's keys missing from --org-map "
                                                          "(default: they are an error).")] = None,
    shares: Annotated[str, typer.Option(help="equal, usage, a CSV file org,cpus / org,share, or Slurm's tree: a "
                                             "sacctmgr script, sacctmgr show assoc -P or sshare -a -l -P.")] = "equal",
    top: Annotated[int | None, typer.Option(help="Keep the N organizations with the most CPU-seconds; pool the "
                                                 "rest as (other).")] = None,
    cpus: Annotated[int | None, typer.Option(help="Pool CPUs. Default: the largest concurrent allocation.")] = None,
    since: Annotated[str | None, typer.Option(help="Audit jobs submitted from T (log seconds or a date).")] = None,
    until: Annotated[str | None, typer.Option(help="...and before T; utilities are taken at T.")] = None,
    every: Annotated[str | None, typer.Option(help="Also audit rolling windows of this length (30d, 12h, "
                                                   "3600): one row per window and organization in orgs.csv.")]
    = None,
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

    config = AuditConfig(log=log, format=format, org_by=org_by, org_map=org_map, unmapped_org=unmapped_org,
                         top=top, every=every, shares=shares, cpus=cpus,
                         since=since, until=until, reference=reference, half_life=half_life, exact_up_to=exact_up_to,
                         samples=samples, fst_sample=fst_sample, seed=seed, skip_bad_records=skip_bad_records)
    with delivery(out, as_json=as_json, keep="files") as job:  # an audit writes beside the files already there
        result = run_audit(config, progress=job.progress)
        job.write(lambda where: write_audit_outputs(result, where, command=command_of(config)))
    job.show(audit_json(result, job.outputs if out is not None else None), audit_renderable(result),
             tail=None if out is None else f"outputs written to {out} (report: {out / 'report.html'})")
