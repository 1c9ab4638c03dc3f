"""``fairsched compare``: online policies on one scenario, each against a reference (SPAA'13 Sec. 6.3)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from fairsched.cli._app import app
from fairsched.cli._deliver import Page, delivery, skipped_notes
from fairsched.cli._options import (
    ONLINE_DEFAULTS,
    ONLINE_ORG_BY,
    ONLINE_POLICIES,
    Json,
    Machines,
    OrgMap,
    Orgs,
    OrgsByAlias,
    Seed,
    SkipBad,
    Split,
    ZipfS,
    names,
    org_by_option,
)
from fairsched.errors import ConfigError

_DEFAULT = ONLINE_DEFAULTS


@app.command()
def compare(
    trace: Annotated[Path | None, typer.Option("--trace", dir_okay=False,
                                               help="SWF trace (.swf or .swf.gz). Default: the embedded "
                                                    "synthetic workload.")] = None,
    orgs: Orgs = _DEFAULT.orgs,
    org_by: Annotated[str | None, org_by_option(ONLINE_ORG_BY, f"{_DEFAULT.orgs_by} (SWF field 12; group: 13, "
                                                "queue: 15; job: each job on its own); each id joins an "
                                                "organization drawn uniformly at random")] = None,
    orgs_by: OrgsByAlias = None, org_map: OrgMap = None,
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
    from fairsched.report import write_result
    from fairsched.report.online import compare_renderable, organizations_table, to_json

    config = online_experiment.Config(trace=trace, orgs=orgs, orgs_by=_org_by(org_by, orgs_by), org_map=org_map,
                                      machines=machines, split=split, zipf_s=zipf_s, window_start=window_start,
                                      window_length=window_length, release_scale=release_scale,
                                      policies=names(policies), reference=reference,
                                      skip_bad_records=skip_bad_records)
    with delivery(out, as_json=as_json) as job:
        run = online_experiment.run(config, seed, progress=job.progress)
        result = run.compare
        warnings = skipped_notes(result.read_report) + _idle_org_notes(result.scenario)
        job.write(partial(write_result, run),
                  page=Page("fairsched compare", config, seed, compare_renderable(result), warnings=warnings,
                            tables=[organizations_table(result)]))
    job.show(to_json(result, job.outputs), compare_renderable(result), warnings=warnings)


def _org_by(org_by: str | None, deprecated: str | None) -> str:
    """--org-by, or its former spelling --orgs-by; the default when neither is given."""
    if org_by is not None and deprecated is not None and org_by != deprecated:
        raise ConfigError(f"--org-by {org_by} and --orgs-by {deprecated} disagree; --orgs-by is the former "
                          "spelling of --org-by: give --org-by only")
    return org_by or deprecated or _DEFAULT.orgs_by


def _idle_org_notes(scenario: Any) -> list[str]:
    """Organizations that submit no job (they only contribute machines), e.g. --org-by queue with fewer queues
    than --orgs."""
    import numpy as np

    counts = np.bincount(scenario.jobs["org"].to_numpy(np.int64), minlength=scenario.n_orgs)
    idle = np.flatnonzero(counts == 0)
    if idle.size == 0:
        return []
    return [f"{idle.size} of {scenario.n_orgs} organizations submit no job (organization "
            f"{', '.join(map(str, idle.tolist()))}): they only contribute machines; fewer distinct ids than --orgs "
            "leave organizations empty, so lower --orgs or choose another --org-by to give each one jobs"]
