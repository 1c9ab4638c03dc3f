"""The `fairsched` application, its command groups, and `main`: the one error boundary of every command."""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from typing import Annotated, Any, NoReturn

import typer
from typer._click.exceptions import BadParameter, ClickException  # typer >= 0.29 vendors click

import fairsched
from fairsched.cli._deliver import ARGV, INTERRUPTED
from fairsched.errors import FairschedError

app = typer.Typer(name="fairsched", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Fair scheduling in systems shared by several organizations: workloads, engines, fairness.")


def group(name: str, help: str) -> typer.Typer:
    """A command group (``fairsched NAME ...``) of `app`."""
    sub = typer.Typer(no_args_is_help=True, help=help)
    app.add_typer(sub, name=name)
    return sub


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point ``fairsched``: user errors -> ``error: <message>`` on stderr, exit code 2; Ctrl-C ->
    ``interrupted`` and exit code 130 (no output directory is left half-written: see `fairsched._io.staged_dir`)."""
    args = sys.argv[1:] if argv is None else list(argv)
    token = ARGV.set(tuple(args))
    command = typer.main.get_command(app)
    code: Any = 0
    try:
        with command.make_context("fairsched", args) as context:
            command.invoke(context)
    except typer.Exit as exc:  # --help, --version, or a command's own exit code
        code = exc.exit_code
    except KeyboardInterrupt:  # the staged output directory has already been removed
        typer.echo("interrupted: stopped before the end; no output directory was written", err=True)
        code = INTERRUPTED
    except FairschedError as exc:
        _fail(str(exc))
    except BadParameter as exc:  # a value out of range, a directory given as a file, ...
        _fail(exc.format_message())
    except ClickException as exc:  # an unknown flag, a missing argument: the usage, then the error
        exc.show()
        code = exc.exit_code
    finally:
        ARGV.reset(token)
        if argv is None:  # the console command: the process ends with this call
            gc.freeze()  # Python's exit then skips collecting numba's objects: 0.3 s of CPU (docs/performance.md)
    if code:
        raise SystemExit(code)


def _fail(message: str) -> NoReturn:
    message = " ".join(line.strip() for line in message.splitlines() if line.strip())
    typer.echo(f"error: {message}", err=True)
    raise SystemExit(2) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fairsched {fairsched.__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """Fair scheduling in systems shared by several organizations: workloads, engines, fairness."""
