"""``fairsched replicate jsspp05|ppam13|spaa13|tpds11|networking20``: replicate a published experiment.

Every replication runs its cells as a sweep kept in OUT/sweep (a rerun resumes), then writes its result files into
OUT all at once (`fairsched.cli._deliver.delivery` with ``keep="files"``, ``sweep=True``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from fairsched.cli._app import group
from fairsched.cli._deliver import Job, Page, Writer, delivery, store_fields
from fairsched.cli._options import TPDS11_EXPERIMENTS, Executor, Json, Quick, Scheduler, Seed, Traces, Workers, names

replicate_app = group("replicate", "Replicate a published experiment (docs/replication/).")


def _out(what: str) -> Any:
    """--out of a replication that keeps `what` in OUT/sweep."""
    return typer.Option(file_okay=False, help=f"Where the CSV files and figures go; {what} are kept in DIR/sweep, "
                                              "so a rerun resumes.")


@replicate_app.command("jsspp05")
def replicate_jsspp05_command(
    quick: Annotated[bool, typer.Option(help="CTC-SP2 and SDSC-BLUE at 80 % and 95 % load only.")] = False,
    grid: Annotated[str, typer.Option(help="paper: the paper's traces (CTC-SP2, SDSC-BLUE, SDSC-SP2, OSC); osc: "
                                      "the whole grid on OSC alone (45 simulations, long).")] = "paper",
    workers: Workers = 1, traces: Traces = None,
    subset_size: Annotated[int, typer.Option(min=2, help="Jobs per trace (the first ones).")] = 5000,
    out: Annotated[Path, _out("the simulations")] = Path("results/jsspp05"),
    executor: Executor = "local", scheduler: Scheduler = None, as_json: Json = False,
) -> None:
    """Replicate JSSPP'05 (Sabin & Sadayappan): 3 orders x 3 reservation depths x 5 loads per trace."""
    from fairsched.errors import ConfigError
    from fairsched.replicate import jsspp05
    from fairsched.report.backfill import jsspp05_json, jsspp05_renderable, write_jsspp05_outputs

    if grid not in jsspp05.GRIDS:
        raise ConfigError(f"--grid {grid}: choose one of {', '.join(jsspp05.GRIDS)}")
    if quick and grid != "paper":
        raise ConfigError(f"--quick shortens the paper's grid only; drop --quick or --grid {grid}")
    make = jsspp05.JSSPP05Config.quick if quick else jsspp05.JSSPP05Config.osc if grid == "osc" else \
        jsspp05.JSSPP05Config
    config = make(traces_dir=traces, subset_size=subset_size, workers=workers, executor=executor,
                  scheduler=scheduler, **store_fields(out))
    job, result = _replicate(jsspp05.run, config, write_jsspp05_outputs, out, as_json,
                             Page("fairsched replicate jsspp05", config), jsspp05_renderable)
    job.show(jsspp05_json(result, job.outputs), jsspp05_renderable(result),
             tail=f"outputs written to {out} (report: {out / 'report.html'})")


@replicate_app.command("ppam13")
def replicate_ppam13_command(quick: Quick = False, workers: Workers = 1, traces: Traces = None, seed: Seed = 0,
                             out: Annotated[Path, typer.Option(file_okay=False, help="Where the CSV files and "
                                                               "figures go.")] = Path("results/ppam13"),
                             as_json: Json = False,
                             variants: Annotated[bool, typer.Option(help="Run the PPAM'13 ablation grid "
                                                                    "instead (ppam13_variants_*.csv).")] = False,
                             windows: Annotated[int | None, typer.Option(
                                 min=1, help="Windows per table and trace (default 100, 10 with --quick).")] = None,
                             executor: Executor = "local", scheduler: Scheduler = None,
                             ) -> None:
    """Replicate PPAM'13 Tables 1–2: Δψ/p_tot of online policies against REF over random windows.

    The windows run as a sweep kept in OUT/sweep: a rerun resumes where an interrupted one stopped.
    """
    from fairsched.replicate import ppam13
    from fairsched.replicate.ppam13 import variants as ppam13_variants

    config = ppam13.PPAM13Config(traces_dir=traces, quick=quick, jobs=workers, seed=seed, out_dir=out,
                                 windows=windows, executor=executor, scheduler=scheduler, **store_fields(out))
    if variants:
        with delivery(out, as_json=as_json, keep="files") as job:
            result = ppam13_variants.run_variants(replace(config, out_dir=job.stage), progress=job.progress)
            job.write_page(Page("fairsched replicate ppam13 --variants", config,
                                renderable=ppam13_variants.render(result)))
        job.show(ppam13_variants.to_json(result), ppam13_variants.render(result), tail="")
        return
    _replicate_online(ppam13.run, config, "PPAM'13 Tables 1–2: Δψ/p_tot mean (std), ours vs the paper", as_json)


@replicate_app.command("spaa13")
def replicate_spaa13_command(quick: Quick = False, workers: Workers = 1, traces: Traces = None, seed: Seed = 0,
                             out: Annotated[Path, typer.Option(file_okay=False, help="Where the CSV files and "
                                                               "figures go.")] = Path("results/spaa13"),
                             fig_seeds: Annotated[int | None, typer.Option(
                                 min=1, help="Scenario seeds per point of Figs. 4-5 (default 10, 2 with "
                                 "--quick).")] = None,
                             executor: Executor = "local", scheduler: Scheduler = None,
                             as_json: Json = False) -> None:
    """Replicate SPAA'13 Sec. 6.3: Fig. 4–5 (Δψ/p_tot against k) and the 5-organization table.

    The windows run as sweeps kept in OUT/sweep: a rerun resumes where an interrupted one stopped.
    """
    from fairsched.replicate import spaa13

    config = spaa13.SPAA13Config(traces_dir=traces, quick=quick, jobs=workers, seed=seed, out_dir=out,
                                 seeds=fig_seeds, executor=executor, scheduler=scheduler, **store_fields(out))
    _replicate_online(spaa13.run, config, "SPAA'13 Sec. 6.3: Δψ/p_tot mean (std), ours vs the paper", as_json)


@replicate_app.command("tpds11")
def replicate_tpds11_command(
    quick: Annotated[bool, typer.Option(help="5 instances per combination instead of 50.")] = False,
    workers: Workers = 1, seed: Annotated[int, typer.Option("--seed", help="Seed of every instance.")] = 0,
    experiments: Annotated[str, typer.Option(help="Comma-separated: " + ", ".join(TPDS11_EXPERIMENTS) + ".")]
    = ",".join(TPDS11_EXPERIMENTS),
    out: Annotated[Path, _out("the instances' scores")] = Path("results/tpds11"),
    executor: Executor = "local", scheduler: Scheduler = None, as_json: Json = False,
) -> None:
    """Replicate TPDS'11 Sec. 7: scores of local, MOCCA and MOCCA+ILBA on uni and swf instances (Fig. 8-10)."""
    from fairsched.replicate import tpds11
    from fairsched.report.mosp import tpds11_renderable, write_tpds11_outputs

    config = tpds11.TPDS11Config(quick=quick, jobs=workers, seed=seed, experiments=names(experiments),
                                 executor=executor, scheduler=scheduler, **store_fields(out))
    job, result = _replicate(tpds11.run, config, write_tpds11_outputs, out, as_json,
                             Page("fairsched replicate tpds11", config), tpds11_renderable)
    job.show(tpds11.to_json(result, job.outputs), tpds11_renderable(result), notes=result.notes,
             tail=f"outputs written to {out} ({len(job.outputs)} files, {result.elapsed_s:.0f} s; report: "
                  f"{out / 'report.html'})")


@replicate_app.command("networking20")
def replicate_networking20_command(
    quick: Annotated[bool, typer.Option(help="5 of the 10 parts of the Google slice; 50 random instances for the "
                                        "exact-reach table.")] = False,
    workers: Workers = 1, traces: Traces = None, seed: Annotated[int, typer.Option("--seed", help="The one seed.")] = 0,
    out: Annotated[Path, _out("the settings' results")] = Path("results/networking20"),
    executor: Executor = "local", scheduler: Scheduler = None, as_json: Json = False,
) -> None:
    """Replicate Networking'20 Sec. VII on the Google slice: PBA vs SPTF, LUF, FIFO, offline and online."""
    from fairsched.replicate import networking20
    from fairsched.report.openshop import networking20_renderable, write_networking20_outputs

    config = networking20.Networking20Config(traces_dir=traces, quick=quick, seed=seed, workers=workers,
                                             executor=executor, scheduler=scheduler, **store_fields(out))
    job, result = _replicate(networking20.run, config, write_networking20_outputs, out, as_json,
                             Page("fairsched replicate networking20", config), networking20_renderable)
    job.show(networking20.to_json(result, job.outputs), networking20_renderable(result), notes=result.notes,
             tail=f"outputs written to {out} ({len(job.outputs)} files, {result.elapsed_s:.0f} s; report: "
                  f"{out / 'report.html'})")


def _replicate(run: Callable[..., Any], config: Any, write: Callable[[Any, Path], dict[str, Path]], out: Path,
               as_json: bool, page: Page, render: Callable[[Any], Any]) -> tuple[Job, Any]:
    """Run a replication's sweep (kept in OUT/sweep), then write its result set, report.html included (`page`,
    with the terminal table `render(result)`), into OUT, whole or not at all."""
    with delivery(out, as_json=as_json, keep="files", sweep=True) as job:
        result = run(config, progress=job.progress)
        writer: Writer = lambda where: write(result, where)  # noqa: E731
        job.write(writer)
        job.write_page(replace(page, renderable=render(result), notes=tuple(getattr(result, "notes", ()))))
    return job, result


def _replicate_online(run: Callable[..., Any], config: Any, title: str, as_json: bool) -> None:
    """PPAM'13 and SPAA'13: their runs write their own files (into the staged OUT) and share the row schema."""
    from fairsched.replicate import ppam13
    from fairsched.report.online import replication_table

    with delivery(config.out_dir, as_json=as_json, keep="files", sweep=True) as job:
        result = run(replace(config, out_dir=job.stage), progress=job.progress)  # the files appear whole, at the end
        name = "ppam13" if run is ppam13.run else "spaa13"
        job.write_page(Page(f"fairsched replicate {name}", config, renderable=replication_table(result.rows, title),
                            notes=tuple(result.notes)))
    job.show(ppam13.to_json(result), replication_table(result.rows, title), notes=result.notes,
             tail=f"outputs written to {config.out_dir} ({len(result.files)} files, {result.elapsed_s:.0f} s; "
                  f"report: {config.out_dir / 'report.html'})")
