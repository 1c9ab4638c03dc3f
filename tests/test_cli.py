"""CLI smoke tests: one per command, plus the error boundary of `fairsched.cli.main`.

The library behind each command is tested directly elsewhere (test_experiment, test_report, test_info,
test_fetch); here we check the wiring: flags reach the library, --json prints exactly one document, user errors
become one line on stderr with exit code 2, and bugs keep their traceback.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairsched import cli
from fairsched.workload.fetch import KNOWN_TRACES
from tests.conftest import run_main, trace_path
from tests.test_experiment import TINY_SWF

runner = CliRunner()


@pytest.fixture
def tiny_trace(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.swf"
    path.write_text(TINY_SWF)
    return path


def test_compare_json_is_one_document_and_outputs_are_written(tiny_trace: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    args = ["compare", "--trace", str(tiny_trace), "--orgs", "2", "--split", "1,3", "--policies", "rr,fairshare",
            "--reference", "fairshare", "--seed", "4", "--window-start", "0", "--window-length", "30",
            "--out", str(out), "--json"]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)  # the whole of stdout is one JSON document
    assert list(doc["policies"]) == ["roundrobin", "fairshare"]
    assert doc["reference"] == "fairshare"
    assert doc["seed"] == 4
    assert doc["t_end"] == 30
    assert doc["scenario"]["machines_per_org"] == [1, 3]
    assert doc["policies"]["fairshare"]["delta_psi_over_ptot"] == 0.0
    assert all(len(entry["psi"]) == 2 for entry in doc["policies"].values())
    assert Path(doc["outputs"]["report.json"]) == out / "report.json"
    assert json.loads((out / "report.json").read_text())["policies"] == doc["policies"]
    assert (out / "roundrobin" / "schedule.csv").is_file()


def test_compare_prints_the_tables_and_where_the_outputs_are(tiny_trace: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # pytest-xdist's workers set COLUMNS=80: full names need more
    args = ["compare", "--trace", str(tiny_trace), "--orgs", "2", "--policies", "rr", "--out", str(tmp_path / "o")]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    assert "roundrobin" in result.stdout
    assert "ref (reference)" in result.stdout
    out = tmp_path / "o"
    assert result.stdout.strip().splitlines()[-1] == f"report: {out / 'report.html'} (all files in {out})"


def test_trace_info_json(tiny_trace: Path) -> None:
    result = runner.invoke(cli.app, ["trace", "info", str(tiny_trace), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["jobs"] == 8
    assert info["users"] == 4
    assert info["clean_preview"]["dropped"]["cancelled before start"] == 1


def test_trace_info_table(tiny_trace: Path) -> None:
    result = runner.invoke(cli.app, ["trace", "info", str(tiny_trace)])
    assert result.exit_code == 0, result.output
    assert "sequential_jobs" in result.stdout
    assert "toy cluster for tests" in result.stdout


def test_bad_record_is_one_line_naming_file_and_line_with_exit_code_2(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.swf"
    lines = TINY_SWF.splitlines()
    lines[4] = lines[4].replace("2 0 -1 5 2", "2 0 -1 five 2")  # line 5: job 2, run time not a number
    assert "five" in lines[4]
    bad.write_text("\n".join(lines) + "\n")
    code, out, err = run_main(["trace", "info", str(bad)], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"error: {bad}:5: field run_time")
    assert "Traceback" not in err
    # the same file with --skip-bad-records is read, and the skipped record counted
    code, out, _ = run_main(["trace", "info", str(bad), "--skip-bad-records", "--json"], capsys)
    assert code == 0
    assert json.loads(out)["jobs"] == 7


def test_unknown_policy_is_a_user_error_listing_the_choices(tiny_trace: Path, capsys) -> None:
    code, out, err = run_main(["compare", "--trace", str(tiny_trace), "--policies", "rr,fifo"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("error: unknown online policy 'fifo'; choose one of:")
    assert "roundrobin" in err


def test_a_bug_keeps_its_traceback(tiny_trace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug, not a user error")

    from fairsched.workload import info

    monkeypatch.setattr(info, "trace_info", broken)  # the CLI imports it when the command runs
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(["trace", "info", str(tiny_trace)])


@pytest.fixture
def archive_mirror(tmp_path: Path) -> Iterator[str]:
    """A local HTTP mirror of the archive holding the smallest real trace (skips when it is absent)."""
    entry = KNOWN_TRACES["OSC-Clust-2000-3.1-cln"]
    source = trace_path(entry.file_name)
    root = tmp_path / "mirror"
    (root / entry.archive_dir).mkdir(parents=True)
    shutil.copyfile(source, root / entry.archive_dir / entry.file_name)
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # keep the test output clean
        pass


def test_trace_fetch_downloads_into_the_cache(archive_mirror: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    args = ["trace", "fetch", "osc", "--cache-dir", str(cache), "--base-url", archive_mirror, "--json"]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert Path(doc["path"]) == cache / "OSC-Clust-2000-3.1-cln.swf.gz"
    assert Path(doc["path"]).stat().st_size == KNOWN_TRACES["OSC-Clust-2000-3.1-cln"].size


def test_trace_fetch_unknown_name(capsys) -> None:
    code, out, err = run_main(["trace", "fetch", "no-such-trace"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("error: unknown trace 'no-such-trace'; choose one of:")


def test_workers_is_the_process_flag_and_jobs_its_deprecated_alias() -> None:
    import typer

    replicate = typer.main.get_command(cli.app).commands["replicate"]
    for command in ("jsspp05", "ppam13", "spaa13", "tpds11"):
        (option,) = [p for p in replicate.commands[command].params if p.name == "workers"]
        assert option.opts[:1] == ["--workers"] and {"--jobs", "-j", "-w"} <= set(option.opts), command
        assert "deprecated alias" in option.help, command
