"""``fairsched steer``: set the nice of a live Slurm's pending jobs by the Shapley game (docs/slurm.md)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer

from fairsched.cli._app import app
from fairsched.cli._deliver import INTERRUPTED


def _say(line: str) -> None:
    typer.echo(line, err=True)


@app.command("steer")
def steer_command(
    policy: Annotated[str, typer.Option(help="directcontr (serve the accounts whose utility lags their Shapley "
                                        "contribution) or fair-tree-boost (Fair Tree's LevelFS order).")] =
    "directcontr",
    every: Annotated[str, typer.Option(help="Period between two passes: 30s, 5m, ...")] = "30s",
    max_nice: Annotated[int, typer.Option(min=1, help="Every nice set stays within ±N.")] = 10000,
    window: Annotated[str | None, typer.Option(help="Usage window: 1h, 7d, ... Default: PriorityDecayHalfLife.")]
    = None,
    dry_run: Annotated[bool, typer.Option(help="Print the scontrol commands instead of running them.")] = False,
    log: Annotated[Path | None, typer.Option(dir_okay=False, help="Append every action as a JSON line to FILE "
                                             "(also how a later run knows what to give back).")] = None,
    once: Annotated[bool, typer.Option(help="One pass, nothing given back (cron, tests).")] = False,
    restore: Annotated[bool, typer.Option(help="Give back the nice values recorded in --log, then exit.")] = False,
    exact_up_to: Annotated[int, typer.Option(help="Exact Shapley values up to K accounts, sampled beyond.")] = 12,
    samples: Annotated[int, typer.Option(help="Permutations for sampled Shapley values.")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the sampled Shapley values.")] = 0,
) -> None:
    """Steer a live Slurm: set the nice of pending jobs so that each account gets what it contributed."""
    from fairsched.slurm.steer import SteerOptions, restore_from_log, steer, stop_on_signals

    options = SteerOptions.from_flags(policy=policy, every=every, max_nice=max_nice, window=window, dry_run=dry_run,
                                      log=log, once=once, exact_up_to=exact_up_to, samples=samples, seed=seed)
    if restore:
        _say(restore_from_log(options, echo=_say).summary())
        return
    with stop_on_signals() as stopped:
        report = steer(options, stop=stopped.event, echo=_say, out=typer.echo)
    _say(report.summary())
    if stopped.signum == signal.SIGINT:
        raise typer.Exit(INTERRUPTED)
