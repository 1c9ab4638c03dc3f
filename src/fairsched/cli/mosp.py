"""``fairsched mosp``: share clusters between organizations without making any worse off (TPDS'11)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import app
from fairsched.cli._deliver import Page, delivery
from fairsched.cli._options import MOSP_ALGORITHMS, MOSP_DEFAULTS, MOSP_LOCAL_ORDERS, Json, choices

_MOSP = "Generated instance"
_DEFAULT = MOSP_DEFAULTS


@app.command("mosp")
def mosp_command(
    instance: Annotated[Path | None, typer.Option("--instance", dir_okay=False, help="Instance file (JSON, see "
                                                  "docs/mosp.md). Default: generate one.")] = None,
    generate: Annotated[str, typer.Option("--generate", rich_help_panel=_MOSP,
                                          help="uni (p in 1..50, q in 1..m), swf (Lublin-Feitelson rigid jobs) or "
                                               "trace (first --jobs jobs of --trace); owners Zipf(1.4267).")]
    = _DEFAULT.generate,
    orgs: Annotated[int, typer.Option("--orgs", min=1, rich_help_panel=_MOSP, help="N, organizations (one "
                                      "cluster each).")] = _DEFAULT.orgs,
    jobs: Annotated[int, typer.Option("--jobs", min=1, rich_help_panel=_MOSP, help="n, jobs.")] = _DEFAULT.jobs,
    procs: Annotated[int, typer.Option("--procs", min=1, rich_help_panel=_MOSP, help="m, processors per "
                                       "cluster.")] = _DEFAULT.procs,
    trace: Annotated[Path | None, typer.Option("--trace", dir_okay=False, rich_help_panel=_MOSP,
                                               help="SWF trace for --generate trace.")] = None,
    algorithm: Annotated[str, typer.Option("--algorithm", help=f"{choices(MOSP_ALGORITHMS)} (TPDS'11).")]
    = _DEFAULT.algorithm,
    local_order: Annotated[str, typer.Option("--local-order", help="Order of the local schedules: "
                                             f"{choices(MOSP_LOCAL_ORDERS)}.")] = _DEFAULT.local_order,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the generated instance and of RND.")] = 0,
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Write instance.json, schedule.csv, gantt.png, "
                                             "gantt_local.png and report.json into DIR.")] = None,
    as_json: Json = False,
) -> None:
    """Share clusters between organizations without making any of them worse off (TPDS'11): makespans, score."""
    from fairsched.mosp import experiment as mosp_experiment
    from fairsched.report import write_result
    from fairsched.report.mosp import mosp_json, mosp_renderable

    config = mosp_experiment.Config(instance=instance, generate=generate, orgs=orgs, jobs=jobs, procs=procs,
                                    trace=trace, algorithm=algorithm, local_order=local_order)
    with delivery(out, as_json=as_json, progress=False) as job:
        run = mosp_experiment.run(config, seed)
        job.write(partial(write_result, run), page=Page("fairsched mosp", config, seed, mosp_renderable(run.report)))
    job.show(mosp_json(run.report, job.outputs), mosp_renderable(run.report))
