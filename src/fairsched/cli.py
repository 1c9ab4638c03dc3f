"""Command line: ``fairsched compare``, ``fairsched trace info``, ``fairsched trace fetch``.

Each command is parse -> one library call -> render (see docs/usage.md for every flag). `main` is the console
entry point and the one error boundary: a `FairschedError` (a user error) becomes one line ``error: <message>``
on stderr and exit code 2; any other exception is a bug and keeps its traceback.
With ``--json`` a command prints exactly one JSON document on stdout and nothing else.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from fairsched.errors import FairschedError
from fairsched.experiment import CompareConfig, ProgressCallback, run_compare
from fairsched.online.policies import REGISTRY
from fairsched.report.export import write_compare_outputs
from fairsched.report.tables import compare_renderable, jsonable, key_value_table, to_json, trace_info_table
from fairsched.workload.fetch import fetch_trace
from fairsched.workload.info import trace_info
from fairsched.workload.swf import read_swf

app = typer.Typer(name="fairsched", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Fair scheduling in systems shared by several organizations: workloads, engines, fairness.")
trace_app = typer.Typer(no_args_is_help=True, help="Inspect and download workload traces (SWF).")
app.add_typer(trace_app, name="trace")

_DEFAULT = CompareConfig()
_SCENARIO = "Scenario"
_PLAIN_WIDTH = 140  # rich's width when stdout is not a terminal (80 would wrap the tables in logs)

# The scenario flags, defined once and shared by every command that builds a scenario (see ScenarioFlags).
Orgs = Annotated[int, typer.Option("--orgs", min=1, rich_help_panel=_SCENARIO,
                                   help="k, the number of organizations.")]
OrgsBy = Annotated[str, typer.Option("--orgs-by", rich_help_panel=_SCENARIO,
                                     help="What forms an organization: user, group or queue (SWF field 12, 13, "
                                          "15); ids are spread uniformly at random over the organizations.")]
OrgMap = Annotated[Path | None, typer.Option("--org-map", rich_help_panel=_SCENARIO, dir_okay=False,
                                             help="CSV file mapping ids to organizations (overrides the random "
                                                  "spread); see docs/usage.md.")]
Machines = Annotated[int | None, typer.Option("--machines", min=1, rich_help_panel=_SCENARIO,
                                              help="Total machines m. Default: the trace's MaxProcs.")]
Split = Annotated[str | None, typer.Option("--split", rich_help_panel=_SCENARIO,
                                           help="How machines are split: even, uniform, zipf, or a comma-separated "
                                                "list of counts (one per organization). Default: zipf for the "
                                                "synthetic workload, uniform for a trace.")]
ZipfS = Annotated[float, typer.Option("--zipf-s", rich_help_panel=_SCENARIO,
                                      help="Exponent of the Zipf split.")]
Seed = Annotated[int, typer.Option("--seed", rich_help_panel=_SCENARIO,
                                   help="Seed of the scenario and of every randomized policy.")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout, nothing else.")]
SkipBad = Annotated[bool, typer.Option("--skip-bad-records",
                                       help="Drop malformed SWF records (they are counted) instead of failing.")]


@dataclass(frozen=True)
class ScenarioFlags:
    """The shared scenario flags, as `CompareConfig` (and future configs) name them."""

    orgs: int
    orgs_by: str
    org_map: Path | None
    machines: int | None
    split: str | None
    zipf_s: float
    seed: int


@app.command()
def compare(
    trace: Annotated[Path | None, typer.Option("--trace", dir_okay=False,
                                               help="SWF trace (.swf or .swf.gz). Default: the embedded "
                                                    "synthetic workload.")] = None,
    orgs: Orgs = _DEFAULT.orgs, orgs_by: OrgsBy = _DEFAULT.orgs_by, org_map: OrgMap = None,
    machines: Machines = None, split: Split = _DEFAULT.split, zipf_s: ZipfS = _DEFAULT.zipf_s,
    seed: Seed = _DEFAULT.seed,
    window_start: Annotated[float | None, typer.Option(help="Keep jobs submitted from T (trace seconds); "
                                                            "T becomes time 0.")] = None,
    window_length: Annotated[float | None, typer.Option(help="...and before T + LENGTH; LENGTH becomes the "
                                                             "horizon t_end.")] = None,
    release_scale: Annotated[float, typer.Option(help="Multiply release times by X (0.1 packs arrivals; "
                                                      "SPAA'13 Sec. 6.3.1).")] = _DEFAULT.release_scale,
    policies: Annotated[str, typer.Option(help=f"Comma-separated policies, from: {', '.join(REGISTRY)} "
                                               "(rr = roundrobin).")] = ",".join(_DEFAULT.policies),
    reference: Annotated[str, typer.Option(help="Policy the others are compared with.")] = _DEFAULT.reference,
    out: Annotated[Path | None, typer.Option(file_okay=False, help="Write the report files into DIR.")] = None,
    skip_bad_records: SkipBad = False, as_json: Json = False,
) -> None:
    """Compare online policies on one scenario: Delta psi / p_tot against the reference (SPAA'13 Sec. 6.3)."""
    flags = ScenarioFlags(orgs, orgs_by, org_map, machines, split, zipf_s, seed)
    config = CompareConfig(trace=trace, **asdict(flags), window_start=window_start, window_length=window_length,
                           release_scale=release_scale, policies=_names(policies), reference=reference,
                           skip_bad_records=skip_bad_records)
    with _progress(enabled=not as_json) as progress:
        result = run_compare(config, progress=progress)
    outputs = write_compare_outputs(result, out) if out is not None else {}
    if as_json:
        _emit_json(to_json(result, outputs))
        return
    _console().print(compare_renderable(result))
    if out is not None:  # plain echo: a path is neither wrapped nor read as rich markup
        typer.echo(f"outputs written to {out} (report: {out / 'report.json'}, figure: {out / 'utility.png'})")


@trace_app.command("info")
def trace_info_command(file: Annotated[Path, typer.Argument(dir_okay=False, help="SWF trace (.swf or .swf.gz).")],
                       skip_bad_records: SkipBad = False, as_json: Json = False) -> None:
    """Summarize a trace: jobs, span, users, machine size, load, what reading and cleaning would drop."""
    info = trace_info(read_swf(file, skip_bad_records=skip_bad_records))
    if as_json:
        _emit_json(info)
    else:
        _console().print(trace_info_table(info))


@trace_app.command("fetch")
def trace_fetch_command(
    name: Annotated[str, typer.Argument(help="Trace name, e.g. LPC-EGEE-2004-1.2-cln or lpc-egee.")],
    cache_dir: Annotated[Path | None, typer.Option(file_okay=False, help="Cache directory. Default: "
                                                   "$FAIRSCHED_CACHE, else ~/.cache/fairsched/traces.")] = None,
    base_url: Annotated[str | None, typer.Option(help="Archive mirror to download from.")] = None,
    as_json: Json = False,
) -> None:
    """Download a Parallel Workloads Archive trace into the cache (checked by size and sha256); print its path."""
    path = fetch_trace(name, cache_dir=cache_dir, base_url=base_url)
    if as_json:
        _emit_json({"trace": name, "path": path})
    else:
        _console().print(key_value_table("Trace fetched", {"trace": name, "path": path}))


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point ``fairsched``: user errors -> ``error: <message>`` on stderr, exit code 2."""
    try:
        app(args=None if argv is None else list(argv), prog_name="fairsched")
    except FairschedError as exc:
        message = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        typer.echo(f"error: {message}", err=True)
        raise SystemExit(2) from None


def _names(policies: str) -> tuple[str, ...]:
    return tuple(name for name in policies.split(",") if name.strip())


def _console() -> Console:
    console = Console()
    if not console.is_terminal:
        console.width = _PLAIN_WIDTH
    return console


def _emit_json(doc: Any) -> None:
    typer.echo(json.dumps(jsonable(doc), indent=2))


@contextlib.contextmanager
def _progress(*, enabled: bool) -> Iterator[ProgressCallback | None]:
    """A rich progress bar on stderr, only when asked for and stderr is a terminal."""
    console = Console(stderr=True)
    if not (enabled and console.is_terminal):
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def update(description: str, done: int, total: int) -> None:
            bar.update(task, description=description, completed=done, total=total)

        yield update
