"""``fairsched slurm up|down|replay``: a private Slurm cluster on this host, a log replayed on it (docs/slurm.md)."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import group
from fairsched.cli._deliver import INTERRUPTED, Page, delivery

slurm_app = group("slurm", "A private Slurm cluster on this host (Debian's slurm-wlm 22.05): start, stop, replay "
                           "a log on it.")


def _say(line: str) -> None:
    typer.echo(line, err=True)


@slurm_app.command("up")
def slurm_up_command(
    directory: Annotated[Path, typer.Argument(file_okay=False, help="A new or empty directory for everything: "
                                              "configuration, database, state, logs.")],
    nodes: Annotated[int, typer.Option(min=1, max=64, help="Nodes (one slurmd each, all on this host).")] = 4,
    cpus_per_node: Annotated[int, typer.Option(min=1, help="CPUs each node declares (not the host's).")] = 4,
    fair_tree: Annotated[bool, typer.Option("--fair-tree/--classic", help="Fair Tree (Slurm's default) or "
                                            "classic fair-share (PriorityFlags=NO_FAIR_TREE).")] = True,
    half_life: Annotated[str, typer.Option(help="PriorityDecayHalfLife: 30m, 2h, 7d, 600 (s), 7-0; whole "
                                           "minutes.")] = "7d",
    accounts: Annotated[Path | None, typer.Option(dir_okay=False, help="Accounts to create: one 'ACCOUNT SHARES' "
                                                  "per line.")] = None,
) -> None:
    """Start munged, MariaDB, slurmdbd, slurmctld and the slurmd; print the `export SLURM_CONF=...` line."""
    from fairsched import slurm

    config = slurm.ClusterConfig(nodes=nodes, cpus_per_node=cpus_per_node, fair_tree=fair_tree,
                                 half_life=slurm.parse_half_life(half_life),
                                 accounts=slurm.read_accounts_file(accounts) if accounts is not None else ())
    cluster = slurm.up(directory, config, progress=_say)
    _say(f"cluster up: {nodes} nodes x {cpus_per_node} CPUs; stop it with `fairsched slurm down {cluster.root}`")
    typer.echo(f"export SLURM_CONF={cluster.slurm_conf}")  # the one line on stdout, for `eval`


@slurm_app.command("down")
def slurm_down_command(
    directory: Annotated[Path, typer.Argument(file_okay=False, help="The directory given to `slurm up`.")],
) -> None:
    """Stop every daemon `slurm up` started there (by recorded pid, in reverse order), and any job left."""
    from fairsched import slurm

    report = slurm.down(directory)
    killed = [name for name, forced in report.stopped if forced]
    _say(f"stopped {len(report.stopped)} daemons in {report.seconds:.1f} s"
         + (f" ({', '.join(killed)} with SIGKILL)" if killed else "")
         + (f"; {report.leftovers} leftover job processes killed" if report.leftovers else ""))
    if report.users_removed:
        _say(f"removed the Linux users replays had created: {', '.join(report.users_removed)}")
    for user, why in report.users_kept:
        _say(f"warning: kept the Linux user {user}, which a replay created: {why}")


@slurm_app.command("replay")
def slurm_replay_command(
    log: Annotated[Path, typer.Argument(dir_okay=False, help="A log: SWF or sacct -P export.")],
    scale: Annotated[float, typer.Option(help="Divide submit and run times by S (jobs run at least 2 s).")],
    out: Annotated[Path, typer.Option(file_okay=False, help="Directory for sacct.txt and sshare.txt.")],
    accounts_from: Annotated[str | None, typer.Option(help="Log column naming the Slurm account: account, user "
                                                      "or group. Default: account (sacct), group (SWF).")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Replay only the first N jobs.")] = None,
) -> None:
    """Submit LOG's jobs to the cluster SLURM_CONF names (only one `slurm up` started), wait, export."""
    from fairsched.slurm import require_cluster
    from fairsched.slurm.replay import replay

    slurm_conf = os.environ.get("SLURM_CONF")
    require_cluster(slurm_conf)  # refuse before anything is created, --out included
    settings = {"log": log, "scale": scale, "accounts_from": accounts_from, "limit": limit, "slurm_conf": slurm_conf}
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM cancels the jobs like Ctrl-C
    try:
        with delivery(out, as_json=False, keep="files", progress=False) as job:
            result = replay(log, scale=scale, slurm_conf=slurm_conf, accounts_from=accounts_from, limit=limit,
                            progress=_say)
            summary = "\n".join(result.summary())
            job.write(result.write, page=Page("fairsched slurm replay", settings, renderable=summary))
    except KeyboardInterrupt:
        _say("interrupted: the jobs submitted were cancelled (scancel); the cluster is still up")
        raise typer.Exit(INTERRUPTED) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    job.show(None, summary)
