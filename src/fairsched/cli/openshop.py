"""``fairsched openshop``: order multi-task jobs for max-min fair completion times (Networking'20)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import app
from fairsched.cli._deliver import Page, delivery
from fairsched.cli._options import OPENSHOP_ALGORITHMS, Json, names

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
    algorithm: Annotated[str, typer.Option("--algorithm", help="Comma-separated: "
                                           f"{', '.join(OPENSHOP_ALGORITHMS)}. Default: pba,sptf,fifo (equal) or "
                                           "pba,luf,fifo (linear), as the paper compares.")] = "",
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
    from fairsched.report import write_result
    from fairsched.report.openshop import openshop_json, openshop_renderable

    config = openshop_experiment.Config(google=google, instance=instance, jobs=jobs, machines=machines,
                                        max_tasks=max_tasks, algorithm=names(algorithm), utilities=utilities,
                                        online=online, delta0=delta0, k=k)
    with delivery(out, as_json=as_json, progress=False) as job:
        run = openshop_experiment.run(config, seed)
        job.write(partial(write_result, run),
                  page=Page("fairsched openshop", config, seed, openshop_renderable(run.report)))
    job.show(openshop_json(run.report, job.outputs), openshop_renderable(run.report))
