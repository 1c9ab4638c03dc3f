"""``fairsched trace info|fetch``: inspect and download workload traces (SWF)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import group
from fairsched.cli._deliver import Page, delivery, skipped_notes
from fairsched.cli._options import Json, SkipBad

trace_app = group("trace", "Inspect and download workload traces (SWF).")


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

    with delivery(out, as_json=as_json, progress=False) as job:
        workload = read_swf_columns(file, skip_bad_records=skip_bad_records)  # neither pandas nor numba: starts fast
        info = trace_info(workload)
        warnings = skipped_notes(workload.read_report)
        job.write(lambda where: trace_writer("write_trace_info_outputs")(info, workload.to_workload(), where),
                  page=Page("fairsched trace info", {"file": file, "skip_bad_records": skip_bad_records},
                            renderable=trace_info_table(info), warnings=warnings))
    job.show({**info, "outputs": job.outputs} if out is not None else info, trace_info_table(info),
             warnings=warnings)


def trace_writer(name: str) -> Callable[..., dict[str, Path]]:
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

    with delivery(None, as_json=as_json, progress=False) as job:
        path = fetch_trace(name, cache_dir=cache_dir, base_url=base_url)
    job.show({"trace": name, "path": path}, key_value_table("Trace fetched", {"trace": name, "path": path}))
