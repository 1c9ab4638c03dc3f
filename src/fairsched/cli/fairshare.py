"""``fairsched fairshare``: Slurm's fair-share of every association, as ``sshare`` prints it (docs/fairshare.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import app
from fairsched.cli._deliver import delivery
from fairsched.cli._options import Json


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

    with delivery(None, as_json=as_json, progress=False) as job:
        table = compute_fairshare(read_share_tree(tree), algorithm=algorithm, damping=damping)
    job.show(fairshare_json(table), "\n".join(sshare_lines(table)))
