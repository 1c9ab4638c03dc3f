"""How every command delivers its result: one path, from the output directory to the last line on the terminal.

Every command is parse -> one library call -> render, through `delivery`::

    with delivery(out, as_json=as_json) as job:               # stages --out, shows a progress bar on a terminal
        run = experiment.run(config, seed, progress=job.progress)
        job.write(partial(write_result, run), page=Page("fairsched compare", config, seed, renderable))  # + report.html
    job.show(to_json(run, job.outputs), renderable)           # the table, or one JSON document, then the path

`--out` is staged (`fairsched._io`), so an interruption or an error leaves no half-written directory: a model
command's directory is replaced whole (``staged_dir``); a run that keeps a store between runs (a replication's
DIR/sweep) or writes beside other files (an audit) stages only its result files (``keep="files"``). A sweep
stopped by Ctrl-C or SIGTERM says what it kept and how to resume, with exit code 130 (``sweep=True``). The one
error boundary is `fairsched.cli._app.main`.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import typer

from fairsched._io import OUTPUT_MARKER, staged_dir, staged_files

if TYPE_CHECKING:
    from rich.console import Console

    from fairsched._contract import ProgressCallback

Writer = Callable[[Path], Mapping[str, Path]]  # writes a command's files into a directory, returns {name: path}

INTERRUPTED = 130  # the shell's code for SIGINT (128 + 2)
ARGV: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("argv", default=())  # for report.html
PLAIN_WIDTH = 140  # rich's width when stdout is not a terminal (80 would wrap the tables in logs)
FLAGS = {"orgs_by": "--org-by"}  # Config fields whose flag is not the field's name


@dataclass(frozen=True)
class Page:
    """What report.html shows besides the files: the command's title, its settings, its terminal output.

    ``tables`` (of `fairsched.report.html.Table`) come first; ``warnings`` are also said on stderr.
    """

    title: str
    config: Any
    seed: int | None = None
    renderable: Any = None
    notes: Sequence[str] = ()
    warnings: Sequence[str] = ()
    tables: Sequence[Any] = ()


@dataclass
class Job:
    """A command's delivery under way (`delivery`): where its files go, its progress bar, then what it shows.

    Attributes
    ----------
    out : the --out directory, or None.
    stage : the staged directory the files are written into (None without --out).
    progress : the progress callback for the library call (None when there is no bar to show).
    as_json : --json: one JSON document on stdout, nothing else.
    outputs : the files written, by name, at their final paths (filled by `write`).
    """

    out: Path | None
    stage: Path | None
    progress: ProgressCallback | None
    as_json: bool
    outputs: dict[str, Path] = field(default_factory=dict)

    def write(self, write: Writer, *, page: Page | None = None) -> dict[str, Path]:
        """Write the files into the stage, with report.html when a `page` is given; nothing without --out."""
        if self.out is None or self.stage is None:
            return {}
        written = dict(write(self.stage))
        marker = self.stage / OUTPUT_MARKER
        if marker.is_file():  # its `outputs` name the staged paths: name the final ones
            staged, final = (json.dumps(str(path))[1:-1] for path in (self.stage, self.out))
            marker.write_text(marker.read_text(encoding="utf-8").replace(staged, final), encoding="utf-8")
        if page is not None:
            written["report.html"] = _write_page(page, self.stage, self.out)
        self.outputs = {name: self.out / Path(path).relative_to(self.stage) for name, path in written.items()}
        return self.outputs

    def write_page(self, page: Page) -> Path | None:
        """report.html alone, into the stage (for commands whose library call wrote the files there itself);
        returns its final path (None without --out)."""
        if self.out is None or self.stage is None:
            return None
        _write_page(page, self.stage, self.out)
        self.outputs["report.html"] = self.out / "report.html"
        return self.outputs["report.html"]

    def show(self, doc: Any, renderable: Any, *, warnings: Sequence[str] = (), notes: Sequence[str] = (),
             tail: str | None = None) -> None:
        """`warnings` on stderr (``note: ...``), then `doc` as one JSON document with --json; else `renderable`,
        the `notes` and the `tail` line (default with --out: where report.html is)."""
        for warning in warnings:  # stderr: with --json, stdout stays one JSON document
            typer.echo(f"note: {warning}", err=True)
        if self.as_json:
            emit_json(doc)
            return
        if isinstance(renderable, str):  # a plain string: paths stay unwrapped, no rich markup
            typer.echo(renderable)
        else:
            console().print(renderable)
        for note in notes:
            typer.echo(f"note: {note}")
        if tail is None and self.out is not None:
            tail = f"report: {self.out / 'report.html'} (all files in {self.out})"
        if tail:
            typer.echo(tail)


@contextlib.contextmanager
def delivery(out: Path | None, *, as_json: bool, keep: Literal["dir", "files"] = "dir", sweep: bool = False,
             progress: bool = True) -> Iterator[Job]:
    """Stage `out` (the whole directory, or only the result files with ``keep="files"``), show a progress bar
    (unless `progress` is False or with --json), and turn a sweep's interruption into exit code 130."""
    with contextlib.ExitStack() as stack:
        if sweep:
            stack.enter_context(_sweep_interrupts())
        stage = None
        if out is not None:
            stage = stack.enter_context(staged_dir(out) if keep == "dir" else staged_files(out))
        callback = stack.enter_context(progress_bar(enabled=progress and not as_json))
        yield Job(out=out, stage=stage, progress=callback, as_json=as_json)


def emit_json(doc: Any) -> None:
    """Print `doc` as one JSON document (numpy values, paths and dataclasses made JSON-able)."""
    from fairsched.report.tables import jsonable

    typer.echo(json.dumps(jsonable(doc), indent=2))


def console() -> Console:
    """A rich console on stdout; PLAIN_WIDTH columns when stdout is not a terminal."""
    from rich.console import Console

    terminal = Console()
    if not terminal.is_terminal and "COLUMNS" not in os.environ:  # COLUMNS=80 still asks for 80 columns
        terminal.width = PLAIN_WIDTH
    return terminal


@contextlib.contextmanager
def progress_bar(*, enabled: bool) -> Iterator[ProgressCallback | None]:
    """A rich progress bar on stderr, only when asked for and stderr is a terminal."""
    from rich.console import Console

    terminal = Console(stderr=True) if enabled else None
    if terminal is None or not terminal.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=terminal, transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def update(description: str, done: int, total: int) -> None:
            bar.update(task, description=description, completed=done, total=total)

        yield update


def store_fields(out: Path) -> dict[str, Any]:
    """A replication's sweep store under its --out, and how to resume it."""
    return {"store": out / "sweep", "resume": f"run the same command again to resume (kept in {out / 'sweep'})"}


def skipped_notes(read_report: Any) -> list[str]:
    """What --skip-bad-records dropped, said on the terminal too (not only in the JSON): count, reasons, first."""
    skipped = getattr(read_report, "skipped", None) or {}
    if not skipped:
        return []
    reasons = "; ".join(f"{reason} ({count:,})" for reason, count in sorted(skipped.items()))
    first = read_report.first_problems[0] if read_report.first_problems else ""
    return [f"--skip-bad-records dropped {sum(skipped.values()):,} malformed records: {reasons}"
            + (f"; first: {first}" if first else "")]


@contextlib.contextmanager
def _sweep_interrupts() -> Iterator[None]:
    """A sweep stopped by Ctrl-C or SIGTERM: one line saying what is kept and how to resume, exit code 130."""
    from fairsched.sweep.run import SweepInterrupted

    try:
        yield
    except SweepInterrupted as stop:
        typer.echo(str(stop), err=True)
        raise typer.Exit(INTERRUPTED) from None


def _write_page(page: Page, stage: Path, out: Path) -> Path:
    """report.html of a model command, in `stage`; returns its staged path."""
    from fairsched.report.html import REPORT_FILE, command_line, output_report, write_report_html

    values = asdict(page.config) if is_dataclass(page.config) else dict(page.config or {})
    settings = {**values, **({} if page.seed is None else {"seed": page.seed})}
    text = [("Terminal output", _plain_text(page.renderable))] if page.renderable is not None else []
    command = command_line(ARGV.get()) if ARGV.get() else _rebuilt_command(page.title, page.config, page.seed, out)
    report = output_report(stage, title=page.title, command=command, config=settings, text=text, notes=page.notes,
                           warnings=page.warnings, tables=page.tables)
    write_report_html(report, stage)
    return stage / REPORT_FILE


def _rebuilt_command(title: str, config: Any, seed: int | None, out: Path) -> str:
    """The command line of a config, when the CLI was called without `main` (e.g. by a test's CliRunner): every
    field that differs from its default, as its flag."""
    import shlex

    words = title.split()
    for item in fields(config) if is_dataclass(config) else ():
        value = getattr(config, item.name)
        if value == item.default or not item.init:
            continue
        name = FLAGS.get(item.name, "--" + item.name.replace("_", "-"))
        if isinstance(value, bool):
            words.append(name if value else f"--no-{name[2:]}")
        else:
            words += [name, ",".join(map(str, value)) if isinstance(value, tuple) else str(value)]
    if seed:
        words += ["--seed", str(seed)]
    return shlex.join([*words, "--out", str(out)])


def _plain_text(renderable: Any) -> str:
    from rich.console import Console

    recorder = Console(file=io.StringIO(), width=PLAIN_WIDTH, record=True, color_system=None)
    recorder.print(renderable)
    return recorder.export_text()
