"""A sweep grid mixing backfilling rules with the ``slurm`` rule's ``bf-*`` options (issue 26): on a cell whose
rule is not ``slurm`` the options do not apply, so ``backfill = [easy, slurm]`` × ``bf-window = [a, b]`` runs one
``easy`` cell recorded with ``bf-window`` not applicable, and two ``slurm`` cells; an option that applies to no
cell stays the command's one-line error, and so does ``fairsched backfill --backfill easy --bf-window N``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairsched.audit import whatif_experiment
from fairsched.backfill import experiment as backfill_experiment
from fairsched.errors import ConfigError, InputError
from fairsched.sweep import expand, load_spec, paired_results, read_results, run_sweep
from fairsched.sweep.results import load_rows
from fairsched.sweep.spec import cell_key
from tests.conftest import run_main, trace_path
from tests.test_unfairness_bf_flags import TINY

BF = ["bf_interval", "bf_window", "bf_max_job_test"]
WHATIF_LOG = Path(__file__).parent / "data" / "whatif" / "tiny.sacct.txt"

# The four jobs of TINY (tests/test_unfairness_bf_flags.py), FCFS, passes every 10 s. Starts by hand:
# easy [0, 100, 2, 150] (waits 0, 99, 0, 147: mean 61.5); slurm with bf_window 60 [0, 240, 10, 40] (waits 0,
# 239, 8, 37: mean 71); slurm with bf_window 86400 [0, 100, 10, 150] (waits 0, 99, 8, 147: mean 63.5).
SPEC = """[sweep]
model = "backfill"
seeds = [0, 1]
[base]
trace = "tiny.swf"
bf-interval = 10
[grid]
backfill = ["easy", "slurm"]
bf-window = [60, 86400]
"""


def test_a_grid_mixing_rules_runs_one_easy_cell_and_says_the_bf_options_do_not_apply(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tiny.swf").write_text(TINY)
    spec, out = tmp_path / "spec.toml", tmp_path / "out"
    spec.write_text(SPEC)
    summary = run_sweep(spec, out, executor="local", workers=1)  # `fairsched sweep` without its report page
    assert (summary.n_cells_total, summary.computed, summary.failed) == (6, 6, 0)  # 3 points × 2 seeds, not 4 × 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(c["point"], c["seed"]) for c in manifest["cells"]] == [
        ({"backfill": "easy", "bf-window": None}, 0), ({"backfill": "easy", "bf-window": None}, 1),
        ({"backfill": "slurm", "bf-window": 60}, 0), ({"backfill": "slurm", "bf-window": 60}, 1),
        ({"backfill": "slurm", "bf-window": 86400}, 0), ({"backfill": "slurm", "bf-window": 86400}, 1)]
    rows, _ = load_rows(out)
    got = [(r["backfill"], r["seed"], r["mean_wait"], *(None if r[c] is None or r[c] != r[c] else int(r[c])
                                                         for c in BF))
           for r in rows.astype(object).to_dict("records")]
    assert got == [("easy", 0, 61.5, None, None, None), ("easy", 1, 61.5, None, None, None),
                   ("slurm", 0, 71.0, 10, 60, 500), ("slurm", 1, 71.0, 10, 60, 500),
                   ("slurm", 0, 63.5, 10, 86400, 500), ("slurm", 1, 63.5, 10, 86400, 500)]
    # the easy cell is the very run of a spec that never named the bf options (same key, so a store shares it)
    easy = backfill_experiment.Config(trace=tmp_path / "tiny.swf", backfill="easy")
    assert manifest["cells"][0]["key"] == cell_key("fairsched.backfill.experiment", easy, 0,
                                                   {str(tmp_path / "tiny.swf"): _sha256(tmp_path / "tiny.swf")})
    results = read_results(out, metrics=("mean_wait",))
    groups = [(r["backfill"], r["bf_window"], r["n"], r["mean"]) for r in results.rows.astype(object).to_dict(
        "records")]
    assert [(b, None if w is None or w != w else int(w), n, m) for b, w, n, m in groups] == [
        ("easy", None, 2, 61.5), ("slurm", 60, 2, 71.0), ("slurm", 86400, 2, 63.5)]
    code, stdout, err = run_main(["results", str(out), "--metric", "mean_wait", "--no-report"], capsys)
    assert code == 0, err
    assert "│ easy     │ n/a       │" in stdout
    code, stdout, err = run_main(["results", str(out), "--metric", "mean_wait", "--table", "markdown"], capsys)
    assert code == 0 and stdout.splitlines()[2:] == ["| easy | n/a | fcfs/easy | 61.5 ± 0 |",
                                                     "| slurm | 60 | fcfs/slurm | 71 ± 0 |",
                                                     "| slurm | 86400 | fcfs/slurm | 63.5 ± 0 |"], err
    assert "<td>bf-window</td><td class=\"num\">3</td><td>n/a, 60, 86400</td>" in (out / "report.html").read_text()
    paired = paired_results(out, "backfill=easy", group_by=("bf_window",), metrics=("mean_wait",))
    assert [(r["bf_window"], r["backfill"], r["n"], r["baseline_mean"], r["diff"]) for r in paired.rows.to_dict(
        "records")] == [(60, "slurm", 2, 61.5, 9.5), (86400, "slurm", 2, 61.5, 2.0)]  # the one easy run, each window
    code, stdout, err = run_main(["sweep", str(spec), "--out", str(out), "--dry-run", "--json"], capsys)
    assert code == 0 and [c["stored"] for c in json.loads(stdout)["cells"]] == [True] * 6, err
    code, stdout, err = run_main(["results", str(out), "--metric", "mean_wait", "--no-report", "--plot",
                                  str(tmp_path / "wait.png")], capsys)  # the easy level is drawn, nothing raises
    assert code == 0 and (tmp_path / "wait.png").stat().st_size > 0, err
    code, stdout, err = run_main(["backfill", "--trace", str(tmp_path / "tiny.swf"), "--bf-window", "3600"], capsys)
    assert (code, stdout, err) == (2, "", "error: --bf-window sets the slurm backfilling rule; it has no effect "
                                          "with --backfill easy (use --backfill slurm)\n")


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("body", "line", "key", "rule", "point"), [
    ('backfill = "easy"\n[grid]\norder = ["fcfs", "sjf"]\nbf-window = [60, 3600]\n', 8, "bf-window", "easy",
     "{'order': 'fcfs', 'bf-window': 60}"),
    ('bf-interval = 10\n[grid]\nbackfill = ["easy", "conservative"]\n', 5, "bf-interval", "easy",
     "{'backfill': 'easy'}"),
    ('bf-max-job-test = 7\nbackfill = "conservative"\n', 5, "bf-max-job-test", "conservative", ""),
], ids=["varied-under-easy", "base-under-two-rules", "base-no-grid"])
def test_an_option_that_applies_to_no_cell_is_the_commands_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, line: int, key: str, rule: str,
        point: str) -> None:
    (tmp_path / "tiny.swf").write_text(TINY)
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[sweep]\nmodel = "backfill"\n[base]\ntrace = "tiny.swf"\n{body}')
    code, stdout, err = run_main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--dry-run"], capsys)
    at = f" at grid point {point}" if point else ""
    assert (code, stdout) == (2, "")
    assert err == (f"error: {spec}:{line}: field {key}: --{key} sets the slurm backfilling rule; it has no effect "
                   f"with --backfill {rule} (use --backfill slurm){at}\n")
    assert not (tmp_path / "out").exists()


def test_grid_points_equal_with_every_option_applying_are_still_an_error(tmp_path: Path) -> None:
    (tmp_path / "tiny.swf").write_text(TINY)
    spec = tmp_path / "spec.toml"
    spec.write_text('[sweep]\nmodel = "backfill"\n[base]\ntrace = "tiny.swf"\nbackfill = "slurm"\n[grid]\n'
                    'bf-window = [86400, 86400]\n')
    with pytest.raises(InputError, match="give the same configuration; remove one"):
        expand(load_spec(spec))


def test_whatif_grid_mixing_rules_expands_to_one_easy_cell(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[sweep]\nmodel = "whatif"\n[base]\nlog = "{WHATIF_LOG}"\npolicies = "fcfs"\n'
                    'bf-interval = "1min"\n[grid]\nbackfill = ["easy", "Slurm"]\nbf-window = ["1h", "1440min"]\n')
    cells = expand(load_spec(spec))
    assert [c.point for c in cells] == [{"backfill": "easy", "bf-window": None},
                                        {"backfill": "Slurm", "bf-window": "1h"},
                                        {"backfill": "Slurm", "bf-window": "1440min"}]
    assert [(c.config.backfill, c.config.bf_interval, c.config.bf_window) for c in cells] == [
        ("easy", 30, 86400), ("slurm", 60, 3600), ("slurm", 60, 86400)]  # easy: the defaults, unused
    assert [[c.config.columns()[name] for name in BF] for c in cells] == [
        [None, None, None], [60, 3600, 500], [60, 86400, 500]]
    with pytest.raises(ConfigError, match="no effect with --backfill easy"):
        whatif_experiment.Config(log=WHATIF_LOG, bf_window="1h")  # the command's refusal stays


def test_a_real_trace_slice_easy_cell_equals_the_direct_easy_run(tmp_path: Path) -> None:
    trace = trace_path("CTC-SP2-1996-3.1-cln.swf.gz")
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[sweep]\nmodel = "backfill"\n[base]\ntrace = "{trace}"\nfirst = 300\n[grid]\n'
                    'backfill = ["easy", "slurm"]\nbf-window = [600, 86400]\n')
    summary = run_sweep(spec, tmp_path / "out", executor="local", workers=1)
    assert (summary.n_cells_total, summary.computed, summary.failed) == (3, 3, 0)
    rows, _ = load_rows(tmp_path / "out")
    direct = backfill_experiment.run(backfill_experiment.Config(trace=trace, first=300), 0).rows()
    easy = rows[rows["backfill"] == "easy"]
    assert easy["mean_wait"].tolist() == direct["mean_wait"].tolist()
    assert easy[BF].isna().all(axis=None) and direct[BF].isna().all(axis=None)
    slurm = rows[rows["backfill"] == "slurm"]
    assert slurm["bf_window"].tolist() == [600, 86400]
    assert slurm["mean_wait"].nunique() == 2  # a 10-minute window changes this slice's schedule
