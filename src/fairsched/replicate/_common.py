"""What every replication shares: the result's common fields, the sweep options, the traces directory, the sweep
loop and the verdict scale.

Each paper folder (`fairsched.replicate.jsspp05`, ``ppam13``, ``spaa13``, ``tpds11``, ``networking20``) builds on
these: its configuration inherits `SweepOptions`, its result inherits `ReplicationResult`, and its ``run`` hands
its sweep specs (shipped in `SPECS_DIR`) to `run_sweeps`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from fairsched.sweep import Spec

__all__ = ["MATCH_FACTOR", "SAME_TOLERANCE", "SPECS_DIR", "STANDARD_ERRORS", "ProgressCallback", "ReplicationResult",
           "SweepOptions", "default_traces_dir", "level_verdict", "run_sweeps", "verdict"]

SPECS_DIR = Path(__file__).resolve().with_name("specs")
"""The shipped sweep specs of the replications (package data, ``fairsched/replicate/specs/*.toml``)."""

ProgressCallback = Callable[[str, int, int], None]
"""Called as ``progress(description, done, total)`` as a replication's cells finish."""

MATCH_FACTOR = 1.25  # a gain (ratio - 1) "matches" the paper's when within a factor 1.25 of it (`verdict`)
SAME_TOLERANCE = 0.1  # "almost the same": a ratio within 10 % of 1
STANDARD_ERRORS = 2.0  # a mean "matches" the paper's level within two standard errors (`level_verdict`)


@dataclass(frozen=True, kw_only=True)
class SweepOptions:
    """How a replication's sweeps run (every paper's configuration inherits these fields).

    Attributes
    ----------
    executor, scheduler : the sweep's executor (``local`` or ``dask``) and Dask scheduler address (None = a
        LocalCluster); see `fairsched.sweep.run_sweep`.
    store : where the sweep's store goes, kept to resume an interrupted run; None = a temporary directory.
    resume : how to resume, for the interruption message (None = with the ``fairsched sweep`` command).
    """

    executor: str = "local"
    scheduler: str | None = None
    store: Path | None = None
    resume: str | None = None


@dataclass(frozen=True, kw_only=True)
class ReplicationResult:
    """What a replication's ``run`` measured; each paper's result adds its own tables to these fields.

    Attributes
    ----------
    config : the configuration run.
    rows : the paper's claims or table cells beside ours (a list of dicts, or a DataFrame for JSSPP'05).
    notes : what is not replicated, or replicated differently, in plain words.
    elapsed_s : wall-clock seconds of the whole replication.
    """

    config: Any
    rows: Any
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0


def default_traces_dir() -> Path:
    """``$FAIRSCHED_TRACES``, else ``../shared/traces`` beside the project checkout (the tests' convention)."""
    env = os.environ.get("FAIRSCHED_TRACES")
    if env:
        return Path(env)
    import fairsched  # only to locate the checkout

    return Path(fairsched.__file__).resolve().parents[3] / "shared" / "traces"


def run_sweeps(specs: Mapping[str, Spec], options: SweepOptions, *, workers: int, prefix: str,
               progress: ProgressCallback | None = None, describe: str = "cells") -> dict[str, pd.DataFrame]:
    """Run each spec through `fairsched.sweep.run_sweep` and read its rows back, by name.

    Parameters
    ----------
    specs : name -> spec; each runs in ``<store>/<name>``, a spec named ``""`` in the store itself.
    options : the executor, Dask scheduler, store (None = a temporary directory named `prefix`…, removed
        afterwards) and resume hint of the run.
    workers : worker processes (or Dask workers of a LocalCluster).
    progress : called as ``progress(describe.format(name=name), done, total)`` as cells finish.

    Raises
    ------
    SweepFailed : a cell raised (fail fast: its one-line error).
    SweepInterrupted : Ctrl-C or SIGTERM; the finished cells stay in ``options.store``.
    """
    from fairsched.sweep import run_sweep
    from fairsched.sweep.results import load_rows
    from fairsched.sweep.store import store_or_temporary

    frames = {}
    with store_or_temporary(options.store, prefix=prefix) as store:
        for name, spec in specs.items():
            folder = store / name if name else store
            report = None if progress is None else (
                lambda done, total, _, label=describe.format(name=name): progress(label, done, total))
            run_sweep(spec, folder, executor=options.executor, workers=workers, scheduler=options.scheduler,
                      fail_fast=True, resume=options.resume, progress=report)
            frames[name] = load_rows(folder)[0]
    return frames


def verdict(paper: float, ours: float, kind: str) -> str:
    """The replications' verdict scale for a claim stated as a ratio oriented so that > 1 means the paper's
    algorithm is better.

    The claimed effect is the gain, ``ratio - 1`` (a ratio of 1.3 claims a 30 % gain), and the band is set on the
    gain, not on the ratio: ``matches`` when our gain is within a factor `MATCH_FACTOR` of the paper's (a claimed
    30 % is matched by 24–37.5 %, not by 5 %); ``direction only`` when the algorithm is better, as the paper says,
    by a gain outside that band; ``no`` when it is not better. ``kind`` "same" (the paper says "almost the same"):
    ``matches`` within `SAME_TOLERANCE` of 1, else ``no``.

    >>> verdict(1.7, 1.57, "lower"), verdict(1.7, 3.21, "lower"), verdict(1.7, 0.37, "lower")
    ('matches', 'direction only', 'no')
    >>> verdict(1.3, 1.05, "lower")  # a 5 % gain against a claimed 30 %
    'direction only'
    """
    if kind == "same":
        return "matches" if abs(ours - 1.0) <= SAME_TOLERANCE else "no"
    if not ours > 1.0:
        return "no"
    if not paper > 1.0:
        raise ValueError(f"verdict: the paper's ratio {paper} claims no gain; use kind='same'")
    gain = (ours - 1.0) / (paper - 1.0)
    return "matches" if 1 / MATCH_FACTOR <= gain <= MATCH_FACTOR else "direction only"


def level_verdict(paper: float, ours: float, standard_error: float, *, direction_holds: bool) -> str:
    """The verdict scale for a claim stated as a level (a mean over random instances, e.g. TPDS'11's average
    score 1.24): ``matches`` when our mean is within `STANDARD_ERRORS` standard errors of the paper's (our
    sampling error: the paper gives none); ``direction only`` when it is not but the claim's direction holds
    (`direction_holds`, decided by the caller: e.g. ILBA below MOCCA); ``no`` otherwise.

    >>> level_verdict(2.40, 2.385, 0.0133, direction_holds=True)  # 1.1 standard errors apart
    'matches'
    >>> level_verdict(1.24, 1.202, 0.0036, direction_holds=True)  # 10 standard errors apart
    'direction only'
    """
    if abs(ours - paper) <= STANDARD_ERRORS * standard_error:
        return "matches"
    return "direction only" if direction_holds else "no"
