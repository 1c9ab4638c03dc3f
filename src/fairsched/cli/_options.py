"""The option vocabulary of the CLI: every flag that more than one command takes, its help and its default.

A flag is declared once here, as an ``Annotated`` type, and a command takes it as a parameter
(``orgs: Orgs = ONLINE_DEFAULTS.orgs``). Start-up: `fairsched --help` must not import numpy, pandas, numba or
matplotlib (about 1 s), so nothing here imports a model: the plug-in names come from `fairsched._names` (which
each registry checks on import) and the defaults are written out below (tests/test_cli_ux.py checks them against
each model's `Config`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

import typer

from fairsched._names import BACKFILL_RULES, MOSP_ALGORITHMS, ONLINE_POLICIES, OPENSHOP_ALGORITHMS, QUEUE_ORDERS

__all__ = ["BACKFILL_RULES", "MOSP_ALGORITHMS", "ONLINE_POLICIES", "OPENSHOP_ALGORITHMS", "QUEUE_ORDERS"]

FAIRNESS_METRICS = ("fst-strict", "fst-relaxed", "re")  # fairsched.backfill.experiment.FAIRNESS_METRICS
TPDS11_EXPERIMENTS = ("homogeneous", "local-policies", "heterogeneous")  # fairsched.replicate.tpds11.EXPERIMENTS
MOSP_LOCAL_ORDERS = ("hf", "lpt", "spt", "rnd")  # fairsched.mosp.policies.local.LOCAL_ORDERS
ONLINE_ORG_BY = ("user", "group", "queue", "job")  # fairsched.scenario.ORG_ID_COLUMNS
AUDIT_ORG_BY = ("account", "group", "user", "partition", "queue")  # fairsched.audit.log.ORG_BY
ONLINE_DEFAULTS = SimpleNamespace(orgs=5, orgs_by="user", split=None, zipf_s=1.4267, release_scale=1.0,
                                  policies=("roundrobin", "fairshare", "utfairshare", "currfairshare", "directcontr",
                                            "rand"), reference=None)
BACKFILL_DEFAULTS = SimpleNamespace(order="fcfs", backfill="easy", load_by="runtime", bf_interval=30, bf_window=86400,
                                    bf_max_job_test=500)
MOSP_DEFAULTS = SimpleNamespace(generate="uni", orgs=5, jobs=100, procs=32, algorithm="mocca+ilba", local_order="hf")


def choices(names: tuple[str, ...], last: str = "or") -> str:
    """``"a, b or c"``: a list of names for a help text.

    >>> choices(("fcfs", "sjf", "lxf"))
    'fcfs, sjf or lxf'
    """
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


# -- every command ------------------------------------------------------------------------------------------------
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout, nothing else.")]
SkipBad = Annotated[bool, typer.Option("--skip-bad-records",
                                       help="Drop malformed SWF records (they are counted) instead of failing.")]
Workers = Annotated[int, typer.Option("--workers", "-w", "--jobs", "-j", min=1,
                                      help="Worker processes, run in parallel (--jobs/-j: deprecated alias).")]

# -- building a scenario (compare) and grouping a log into organizations (compare, audit) ----------------------
_SCENARIO = "Scenario"
Orgs = Annotated[int, typer.Option("--orgs", min=1, rich_help_panel=_SCENARIO,
                                   help="k, the number of organizations.")]
_ORGANIZATIONS = "Organizations"
OrgMap = Annotated[Path | None, typer.Option("--org-map", dir_okay=False, rich_help_panel=_ORGANIZATIONS,
                                             help="CSV file KEY,ORG (header '<org-by>,org' or 'key,org' optional) "
                                                  "grouping the --org-by keys into organizations; see "
                                                  "docs/usage.md.")]
Machines = Annotated[int | None, typer.Option("--machines", min=1, rich_help_panel=_SCENARIO,
                                              help="Total machines m. Default: the whole trace's MaxProcs "
                                                   "header, else its widest job (before any window).")]
Split = Annotated[str | None, typer.Option("--split", rich_help_panel=_SCENARIO,
                                           help="How machines are split: even, uniform, composition, zipf, or a "
                                                "comma-separated list of counts (one per organization). Default: "
                                                "zipf for the synthetic workload, uniform for a trace.")]
ZipfS = Annotated[float, typer.Option("--zipf-s", rich_help_panel=_SCENARIO, help="Exponent of the Zipf split.")]
Seed = Annotated[int, typer.Option("--seed", rich_help_panel=_SCENARIO,
                                   help="Seed of the scenario and of every randomized policy.")]


def org_by_option(names: tuple[str, ...], default: str) -> typer.models.OptionInfo:
    """``--org-by``: the one flag that says what forms an organization, with the keys a command accepts.

    ``--orgs-by`` stays accepted (hidden from the help) as the former spelling of `compare`'s flag.
    """
    return typer.Option("--org-by", rich_help_panel=_ORGANIZATIONS,
                        help=f"What forms an organization: {choices(names)}. Default: {default}.")


OrgsByAlias = Annotated[str | None, typer.Option("--orgs-by", hidden=True, rich_help_panel=_ORGANIZATIONS,
                                                 help="Deprecated spelling of --org-by.")]

# -- the backfilling model (backfill, unfairness fst; see BackfillFlags) ----------------------------------------
_BACKFILL = "Backfilling model"
Procs = Annotated[int | None, typer.Option("--procs", min=1, rich_help_panel=_BACKFILL,
                                           help="P, the processors of the cluster. Default: the trace's MaxProcs.")]
Order = Annotated[str, typer.Option("--order", rich_help_panel=_BACKFILL,
                                    help=f"Queue order: {', '.join(QUEUE_ORDERS)}.")]
BackfillRule = Annotated[str, typer.Option("--backfill", rich_help_panel=_BACKFILL,
                                           help=f"Backfilling rule: {', '.join(BACKFILL_RULES)}.")]
Load = Annotated[float | None, typer.Option("--load", rich_help_panel=_BACKFILL,
                                            help="Scale the offered load to X (e.g. 0.9) after windowing.")]
LoadBy = Annotated[str, typer.Option("--load-by", rich_help_panel=_BACKFILL,
                                     help="How --load scales: runtime (run and requested times x factor, JSSPP'05 "
                                          "Sec. 4) or arrival (compression).")]
WindowStart = Annotated[float | None, typer.Option("--window-start", rich_help_panel=_BACKFILL,
                                                   help="Keep jobs submitted from T (trace seconds).")]
WindowLength = Annotated[float | None, typer.Option("--window-length", rich_help_panel=_BACKFILL,
                                                    help="...and before T + LENGTH.")]
First = Annotated[int | None, typer.Option("--first", min=1, rich_help_panel=_BACKFILL,
                                           help="Then keep only the first N jobs (JSSPP'05 uses 5000).")]
BfInterval = Annotated[int, typer.Option("--bf-interval", min=1, rich_help_panel=_BACKFILL,
                                         help="--backfill slurm: seconds between backfill passes (Slurm's "
                                              "bf_interval).")]
BfWindow = Annotated[int, typer.Option("--bf-window", min=1, rich_help_panel=_BACKFILL,
                                       help="--backfill slurm: seconds the backfill plan looks ahead (Slurm's "
                                            "bf_window, 1440 min).")]
BfMaxJobTest = Annotated[int, typer.Option("--bf-max-job-test", min=1, rich_help_panel=_BACKFILL,
                                           help="--backfill slurm: waiting jobs tested per pass, in priority order "
                                                "(Slurm's bf_max_job_test).")]


@dataclass(frozen=True)
class BackfillFlags:
    """The shared backfilling flags, as `fairsched.backfill.experiment.Config` names them (the ``slurm`` rule's
    ``bf_*`` last: that `Config` refuses values other than the defaults with another rule)."""

    procs: int | None
    order: str
    backfill: str
    load: float | None
    load_by: str
    window_start: float | None
    window_length: float | None
    first: int | None
    bf_interval: int = BACKFILL_DEFAULTS.bf_interval
    bf_window: int = BACKFILL_DEFAULTS.bf_window
    bf_max_job_test: int = BACKFILL_DEFAULTS.bf_max_job_test


# -- runs of many cells (replicate, sweep) ------------------------------------------------------------------------
Executor = Annotated[str, typer.Option(help="Where cells run: local (processes) or dask.")]
Scheduler = Annotated[str | None, typer.Option(help="Dask scheduler tcp://HOST:PORT (default: a LocalCluster).")]
Traces = Annotated[Path | None, typer.Option(file_okay=False, help="Directory of the traces. Default: "
                                             "$FAIRSCHED_TRACES, else ../shared/traces.")]
Quick = Annotated[bool, typer.Option(help="10 windows instead of 100 (and fewer k for SPAA'13's figures).")]


def names(text: str) -> tuple[str, ...]:
    """A comma-separated flag value as names (``"a, b"`` -> ``("a", "b")``)."""
    from fairsched._contract import split_names

    return split_names(text)
