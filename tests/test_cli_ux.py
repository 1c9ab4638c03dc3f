"""The command line as a new user meets it: --version, one-line errors, report.html, Ctrl-C, reused --out dirs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairsched
from fairsched.online import experiment as online_experiment
from tests.conftest import run_main
from tests.test_byte_identical import small_swf


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["--version"], capsys) == (0, f"fairsched {fairsched.__version__}\n", "")


@pytest.mark.parametrize(("args", "message"), [
    (["compare", "--orgs", "0"], "error: Invalid value for '--orgs': Input should be greater than or equal to 1"),
    (["compare", "--machines", "-5"],
     "error: Invalid value for '--machines': Input should be greater than or equal to 1"),
    (["backfill", "--trace", "{swf}", "--first", "0"],
     "error: Invalid value for '--first': Input should be greater than or equal to 1"),
    (["backfill", "--trace", "{dir}"], "error: Invalid value for '--trace': file '{dir}' is a directory."),
    (["trace", "info", "{dir}"], "error: Invalid value for 'file': file '{dir}' is a directory."),
])
def test_range_errors_are_one_line(args: list[str], message: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    swf = small_swf(tmp_path / "small.swf")
    fill = {"{swf}": str(swf), "{dir}": str(tmp_path)}
    args = [fill.get(arg, arg) for arg in args]
    code, out, err = run_main(args, capsys)
    assert (code, out) == (2, "")
    assert err == message.replace("{dir}", str(tmp_path)) + "\n"


def test_unknown_flag_keeps_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["compare", "--bogus"], capsys)
    assert code == 2
    assert err.splitlines()[0] == "Usage: fairsched compare [OPTIONS]"
    assert "No such option: --bogus" in err


def _compare(tmp_path: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    swf = small_swf(tmp_path / "small.swf")
    return run_main(["compare", "--trace", str(swf), "--orgs", "2", "--policies", *extra, "--out", str(out)],
                    capsys)


def test_out_gets_report_html_named_on_the_last_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o"
    code, stdout, err = _compare(tmp_path, out, capsys, "rr,fairshare")
    assert code == 0, err
    assert stdout.splitlines()[-1] == f"report: {out / 'report.html'} (all files in {out})"
    page = (out / "report.html").read_text()
    assert f"fairsched compare --trace {tmp_path / 'small.swf'} --orgs 2 --policies rr,fairshare --out {out}" in page
    assert "<h2>summary.csv</h2>" in page and page.count('src="data:image/png;base64,') == 1
    assert json.loads((out / "report.json").read_text())["outputs"]["summary.csv"] == str(out / "summary.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o", "small.swf"]  # no staging directory left


def test_reused_out_keeps_no_file_of_the_previous_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o"
    assert _compare(tmp_path, out, capsys, "rr,fairshare")[0] == 0
    assert (out / "roundrobin" / "schedule.csv").is_file()
    assert _compare(tmp_path, out, capsys, "fairshare")[0] == 0
    assert not (out / "roundrobin").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o", "small.swf"]


def test_out_refuses_a_directory_fairsched_did_not_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    code, _, err = _compare(tmp_path, out, capsys, "rr")
    assert code == 2
    assert err.startswith(f"error: {out}: holds files fairsched did not write (no report.json)")
    assert (out / "thesis.tex").read_text() == "precious"


def test_ctrl_c_exits_130_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(online_experiment, "run", interrupted)
    out = tmp_path / "o"
    code, _, err = _compare(tmp_path, out, capsys, "rr")
    assert code == 130
    assert err.strip().splitlines()[-1] == "interrupted: stopped before the end; no output directory was written"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.swf"]  # neither o nor a staging directory


def test_ctrl_c_keeps_the_previous_run(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "o"
    assert _compare(tmp_path, out, capsys, "rr")[0] == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(online_experiment, "run", interrupted)
    assert _compare(tmp_path, out, capsys, "fairshare")[0] == 130
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_help_defaults_and_choices_match_the_models() -> None:
    """The CLI writes its defaults and choices out (so that --help imports no model): they must stay the models'.

    The plug-in names come from `fairsched._names`, which every registry also checks on import."""
    from dataclasses import fields

    from fairsched import _names
    from fairsched.audit import log as audit_log
    from fairsched.backfill import experiment as backfill_experiment
    from fairsched.backfill.policies import backfill_names, order_names
    from fairsched.cli import _options
    from fairsched.mosp import experiment as mosp_experiment
    from fairsched.mosp.policies import ALGORITHMS as MOSP_ALGORITHMS
    from fairsched.mosp.policies.local import LOCAL_ORDERS
    from fairsched.online import experiment as online_experiment
    from fairsched.online.policies import REGISTRY
    from fairsched.openshop.policies import algorithm_names
    from fairsched.replicate import tpds11
    from fairsched.scenario import ORG_ID_COLUMNS

    assert tuple(REGISTRY) == _names.ONLINE_POLICIES == _options.ONLINE_POLICIES
    assert (tuple(order_names(ticked=False)), tuple(backfill_names())) == (_names.QUEUE_ORDERS, _names.BACKFILL_RULES)
    assert tuple(order_names(ticked=True)) == _names.TICKED_ORDERS
    assert tuple(MOSP_ALGORITHMS) == _names.MOSP_ALGORITHMS
    assert tuple(algorithm_names()) == _names.OPENSHOP_ALGORITHMS
    assert tuple(backfill_experiment.FAIRNESS_METRICS) == _options.FAIRNESS_METRICS
    assert tuple(tpds11.EXPERIMENTS) == _options.TPDS11_EXPERIMENTS
    assert tuple(LOCAL_ORDERS) == _options.MOSP_LOCAL_ORDERS
    assert tuple(ORG_ID_COLUMNS) == _options.ONLINE_ORG_BY
    assert tuple(audit_log.ORG_BY) == _options.AUDIT_ORG_BY
    for written, config in [(_options.ONLINE_DEFAULTS, online_experiment.Config()),
                            (_options.BACKFILL_DEFAULTS, backfill_experiment.Config()),
                            (_options.MOSP_DEFAULTS, mosp_experiment.Config())]:
        names = {f.name for f in fields(config)}
        assert vars(written) and set(vars(written)) <= names
        assert {name: getattr(config, name) for name in vars(written)} == vars(written)


def test_a_registry_that_differs_from_its_listed_names_fails_on_import() -> None:
    """A policy registered without its name in fairsched/_names.py (the list --help shows) is caught at once."""
    from fairsched._registry import Registry
    from fairsched.errors import InvariantError

    registry = Registry("toy policy", sort_key=lambda entry: entry.name)
    registry.add("b", len)
    registry.add("a", len)
    registry.check_listed(("a", "b"), "TOY")
    with pytest.raises(InvariantError, match=r"fairsched/_names.py TOY lists \['a'\] \(add \['b'\], remove nothing"):
        registry.check_listed(("a",), "TOY")
    with pytest.raises(InvariantError, match=r"add nothing, remove \['c'\]"):
        registry.check_listed(("a", "b", "c"), "TOY")


def test_cli_import_loads_no_heavy_module() -> None:
    """`fairsched --help` stays fast: importing the CLI pulls in none of numpy, pandas, numba, matplotlib."""
    import subprocess
    import sys

    code = ("import sys, fairsched.cli; heavy = [m for m in ('numpy', 'pandas', 'numba', 'matplotlib') "
            "if m in sys.modules]; print(','.join(heavy))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == ""


@pytest.mark.parametrize("command", [["trace", "info", "{swf}", "--json"], ["backfill", "--trace", "{swf}"],
                                     ["compare", "--trace", "{swf}", "--orgs", "2", "--policies", "rr"]])
def test_skip_bad_records_says_what_it_dropped(command: list[str], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    swf = tmp_path / "bad.swf"
    good = "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1"
    swf.write_text(f"; MaxProcs: 4\n{good}\n2 5 0 10 x 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1\n"
                   "3 6 0 10 2 -1 -1 2 20 -1 1 2 1 -1 1 -1 -1 -1\n")
    code, out, err = run_main([str(swf) if arg == "{swf}" else arg for arg in command] + ["--skip-bad-records"],
                              capsys)
    assert code == 0, err
    assert err.startswith("note: --skip-bad-records dropped 1 malformed records: non-numeric value (1); first: "
                          f"{swf}:3: field allocated_processors")
    if "--json" in command:
        json.loads(out)  # stdout stays one JSON document


def test_compare_warns_about_organizations_without_jobs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    swf = small_swf(tmp_path / "small.swf")  # every job is in queue 1: --orgs-by queue leaves 2 of 3 orgs idle
    code, _, err = run_main(["compare", "--trace", str(swf), "--orgs", "3", "--orgs-by", "queue", "--policies", "rr",
                             "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    note = [line for line in err.splitlines() if line.startswith("note: 2 of 3 organizations submit no job")]
    assert len(note) == 1
    assert "submit no job" in (tmp_path / "o" / "report.html").read_text()
    code, _, err = run_main(["compare", "--trace", str(swf), "--orgs", "2", "--policies", "rr"], capsys)
    assert code == 0 and "submit no job" not in err


def test_a_wrong_split_fails_before_the_trace_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--split` is parsed when the Config is built: the absent trace is never opened."""
    absent = tmp_path / "absent.swf"
    code, out, err = run_main(["compare", "--trace", str(absent), "--split", "zipff"], capsys)
    assert (code, out) == (2, "")
    assert err == ("error: --split 'zipff': expected one of even, uniform, composition, zipf or comma-separated "
                   "machine counts, one per organization (e.g. '1,2,1')\n")
    config = online_experiment.Config(split=" 1, 2,1 ", orgs=3)
    assert (config.split, config.split.kind, config.split.counts) == ("1,2,1", "counts", (1, 2, 1))
    assert online_experiment.Config(split="Even").split.kind == "even"


def test_org_by_and_its_former_spelling(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--org-by` is compare's flag, as audit's; `--orgs-by` (hidden) still works and must not contradict it."""
    swf = small_swf(tmp_path / "small.swf")
    runs = {}
    for flag in ("--org-by", "--orgs-by"):
        code, out, err = run_main(["compare", "--trace", str(swf), "--orgs", "2", flag, "group", "--policies", "rr",
                                   "--json"], capsys)
        assert code == 0, err
        runs[flag] = json.loads(out)
    assert runs["--org-by"]["config"]["orgs_by"] == "group"
    assert runs["--org-by"]["scenario"] == runs["--orgs-by"]["scenario"]
    code, _, err = run_main(["compare", "--trace", str(swf), "--org-by", "group", "--orgs-by", "user"], capsys)
    assert code == 2 and err.startswith("error: --org-by group and --orgs-by user disagree")
    code, out, _ = run_main(["compare", "--help"], capsys)
    assert "--org-by" in out and "--orgs-by" not in out
