"""`fairsched whatif` from the command line: --json, --out with report.html in headless Chromium, errors, and
`fcfs` against `fairsched backfill` on a slice of a real SWF trace."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import run_main, trace_path
from tests.test_report_html import chromium_load, needs_chromium

DATA = Path(__file__).parent / "data" / "whatif"
TINY = DATA / "tiny.sacct.txt"
MICRO = "slurm/micro-cluster-real-slurm.sacct.txt"
ORG_KEYS = {"org", "cpu_seconds", "usage_share", "entitled_share", "mean_wait", "p95_wait", "gap"}


def test_json_gives_every_policy_and_organization(capsys) -> None:
    code, out, err = run_main(["whatif", str(TINY), "--policies", "recorded,fcfs,sjf,directcontr", "--json",
                               "--fst-sample", "0"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert [p["policy"] for p in doc["policies"]] == ["recorded", "fcfs", "sjf", "directcontr"]
    for policy in doc["policies"]:
        assert [o["org"] for o in policy["orgs"]] == ["acctA", "acctB"]
        assert all(set(o) >= ORG_KEYS for o in policy["orgs"])
        assert sum(o["usage_share"] for o in policy["orgs"]) == pytest.approx(1.0)
    recorded, fcfs = doc["policies"][0], doc["policies"][1]
    assert [o["mean_wait"] for o in recorded["orgs"]] == pytest.approx([100.0, 190.0])
    assert [o["mean_wait"] for o in fcfs["orgs"]] == pytest.approx([200 / 3, 90.0])
    assert recorded["backfill"] is None and fcfs["backfill"] == "easy"
    assert doc["summary"]["cpus"] == 2 and doc["meta"]["half_life"] == 7 * 86400


@pytest.mark.parametrize(("args", "message"), [
    (["--policies", "recorded,slurm-multifactor"], "error: --policies: 'slurm-multifactor' is not available in "
                                                   "this build; available: recorded, fcfs, sjf, lxf, drf, "),
    (["--backfill", "slurmish"], "error: --backfill 'slurmish' is not available in this build; available: none, "),
    (["--bf-window", "2d"], "error: --bf-interval, --bf-window and --bf-max-job-test set the slurm backfilling "
                            "rule; they have no effect with --backfill easy"),
    (["--backfill", "slurm", "--bf-interval", "0.5s"], "error: --bf-interval '0.5s': expected a whole number of "
                                                       "seconds"),
    (["--initial-usage", "tree"], "error: --initial-usage tree starts the Slurm orders from the RawUsage of --tree"),
    (["--initial-usage", "sshare"], "error: --initial-usage 'sshare': choose one of zero, tree"),
    (["--half-life", "soon"], "error: --half-life 'soon': expected a duration such as 300, 30s, 5min"),
    (["--weights", "fairshare:1"], "error: --weights 'fairshare:1': expected KEY=INTEGER items"),
    (["--org-by", "group", "--tree", str(DATA / "micro_tree.csv")], "error: --tree gives the shares of accounts "),
])
def test_bad_options_are_one_line_and_exit_2(capsys, args: list[str], message: str) -> None:
    code, out, err = run_main(["whatif", str(TINY), *args], capsys)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err


def test_a_bad_tree_names_its_file_and_line(tmp_path: Path, capsys) -> None:
    tree = tmp_path / "tree.csv"
    tree.write_text("account,user,parent,shares,raw_usage\nacctA,,root,-3,\n")
    code, _, err = run_main(["whatif", str(TINY), "--tree", str(tree)], capsys)
    assert code == 2 and err.startswith(f"error: {tree}:2: ") and err.count("\n") == 1, err


def _swf_slice(path: Path, n_jobs: int) -> str:
    """The header and the first `n_jobs` jobs that ran (run > 0, wait >= 0, 1..128 CPUs) of an SWF trace."""
    lines, kept = [], 0
    with gzip.open(path, "rt") as handle:
        for line in handle:
            if line.startswith(";"):
                lines.append(line)
                continue
            f = line.split()
            if float(f[3]) > 0 and float(f[2]) >= 0 and 1 <= int(f[4]) <= 128:
                lines.append(line)
                kept += 1
                if kept == n_jobs:
                    break
    return "".join(lines)


def test_fcfs_equals_fairsched_backfill_on_a_slice_of_sdsc_sp2(tmp_path: Path, capsys) -> None:
    swf = tmp_path / "sdsc.swf"
    swf.write_text(_swf_slice(trace_path("SDSC-SP2-1998-4.2-cln.swf.gz"), 800))
    code, out, err = run_main(["whatif", str(swf), "--org-by", "queue", "--policies", "recorded,fcfs",
                               "--fst-sample", "20", "--out", str(tmp_path / "wi"), "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    cpus = doc["summary"]["cpus"]   # 156: the log runs more at once than its header's MaxProcs 128
    code, _, err = run_main(["backfill", "--trace", str(swf), "--procs", str(cpus), "--order", "fcfs", "--backfill",
                             "easy", "--out", str(tmp_path / "bf")], capsys)
    assert code == 0, err
    theirs = pd.read_csv(tmp_path / "bf" / "schedule.csv")
    ours = pd.read_csv(tmp_path / "wi" / "jobs.csv")
    ours = ours[ours["policy"] == "fcfs"]
    assert len(theirs) == len(ours) == 800
    both = theirs.merge(ours, left_on="job", right_on="job_id", suffixes=("_backfill", "_whatif"))
    assert len(both) == 800 and (both["start_backfill"] == both["start_whatif"]).all()
    fcfs = doc["policies"][1]
    assert fcfs["summary"]["mean_wait"] == pytest.approx((theirs["start"] - theirs["submit"]).mean())
    assert sum(o["usage_share"] for o in fcfs["orgs"]) == pytest.approx(1.0)


@needs_chromium
def test_report_html_of_the_micro_cluster_renders_in_chromium(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code, _, err = run_main(["whatif", trace_path(MICRO).as_posix(), "--policies", "recorded,fcfs,drf,directcontr",
                             "--fst-sample", "20", "--tree", str(DATA / "micro_tree.csv"), "--out", str(out)], capsys)
    assert code == 0, err
    assert {p.name for p in out.iterdir()} >= {"report.html", "orgs.csv", "policies.csv", "usage_over_time.csv",
                                              "jobs.csv", "report.json"}
    orgs = pd.read_csv(out / "orgs.csv")
    assert len(orgs) == 4 * 3 and orgs.groupby("policy")["usage_share"].sum().round(12).eq(1).all()  # + account0
    text = (out / "report.html").read_text(encoding="utf-8")
    for heading in ("Who waits", "Who is over their share", "Who subsidizes whom", "directcontr", "account2"):
        assert heading in text
    assert text.count('src="data:image/png;base64,') == 4
    console, shot = chromium_load(out / "report.html", tmp_path)
    assert console == []
    assert shot.shape[0] > 500 and shot.shape[1] > 500
    assert (shot.sum(axis=2) < 200).mean() > 0.001 and shot.std() > 10     # text and figures: not blank


def test_fairsched_sweep_runs_whatif_over_weights(tmp_path: Path, capsys) -> None:
    """The Slurm order's weights as a sweep axis: with no fair-share weight it is FCFS; with Slurm's usual 10000,
    account2 (under its share) waits less. Rows per policy in cells/, per organization in orgs/."""
    from fairsched.sweep import read_results

    spec = tmp_path / "spec.toml"
    spec.write_text(f'[sweep]\nmodel = "whatif"\n[base]\nlog = "{trace_path(MICRO).as_posix()}"\n'
                    'policies = "fcfs,slurm-fair-tree"\nfst-sample = 1\nhalf-life = "1d"\n'
                    '[grid]\nweights = ["fairshare=0,age=1000", "fairshare=10000,age=1000"]\n')
    code, _, err = run_main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--workers", "1"], capsys)
    assert code == 0, err
    results = read_results(tmp_path / "out", metrics=("mean_wait",))
    assert results.group_by == ("weights", "policy")
    overall = {(r["weights"], r["policy"]): r["mean"] for r in results.rows.to_dict("records")}
    assert overall[("fairshare=0,age=1000", "slurm-fair-tree")] == overall[("fairshare=0,age=1000", "fcfs")]
    orgs = pd.concat(pd.read_parquet(p) for p in sorted((tmp_path / "out" / "orgs").glob("*.parquet")))
    cells = pd.concat(pd.read_parquet(p) for p in sorted((tmp_path / "out" / "cells").glob("*.parquet")))
    weights_of = dict(zip(cells["cell"], cells["weights"], strict=False))
    wait = {(weights_of[r["cell"]], r["policy"], r["org"]): r["mean_wait"] for r in orgs.to_dict("records")}
    assert len(wait) == 2 * 2 * 2
    for org in ("account1", "account2"):
        assert wait[("fairshare=0,age=1000", "slurm-fair-tree", org)] == wait[("fairshare=0,age=1000", "fcfs", org)]
    on = ("fairshare=10000,age=1000", "slurm-fair-tree", "account2")
    assert wait[on] < wait[("fairshare=10000,age=1000", "fcfs", "account2")]
