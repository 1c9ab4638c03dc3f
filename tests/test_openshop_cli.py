"""``fairsched openshop`` and ``fairsched replicate networking20``: the pipeline (`fairsched.openshop.experiment`),
output files, JSON, the error boundary; the replication on the real Google slice (skipped when it is absent)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.openshop.experiment import Config, horizon, run_openshop
from fairsched.openshop.io import read_instance
from fairsched.openshop.metrics import lexicographically_fairer
from tests.conftest import run_main

# Two machines, three jobs (times p_ij). Loads τ = (3, 4). Every non-idling order ends machine 0 at 3, machine 1
# at 4. The max-min fair vector is (4, 2, 1): order (2, 0, 1) gives C_2 = 1 (machine 1 on [0, 1)), C_0 = 2
# (machine 0 on [0, 2)), C_1 = 4 (machine 0 on [2, 3), machine 1 on [1, 4)). FIFO (0, 1, 2) gives C = (2, 3, 4).
HAND = """{"machines": 2, "jobs": [
  {"id": 0, "arrival": 0, "priority": 1, "tasks": {"0": 2}},
  {"id": 1, "arrival": 0, "priority": 2, "tasks": {"0": 1, "1": 3}},
  {"id": 2, "arrival": 4, "priority": 1, "tasks": {"1": 1}}
]}
"""


@pytest.fixture
def hand(tmp_path: Path) -> Path:
    path = tmp_path / "hand.json"
    path.write_text(HAND)
    return path


def test_offline_hand_instance(hand: Path) -> None:
    report = run_openshop(Config(instance=hand, algorithm=("pba", "exact", "sptf", "fifo")), 0)
    assert report.instance.arrival.tolist() == [0, 0, 0]  # offline: every job at time 0
    exact = report.outcomes["exact"].times
    assert exact.tolist() == [2.0, 4.0, 1.0]
    assert report.outcomes["pba"].times.tolist() == exact.tolist()
    assert report.outcomes["fifo"].times.tolist() == [2.0, 3.0, 4.0]
    for name, outcome in report.outcomes.items():
        assert outcome.times.max() == 4.0, name  # the makespan is the largest load for every non-idling order
        assert not lexicographically_fairer(outcome.times, exact), name


def test_linear_utilities_use_the_makespan_plus_one(hand: Path) -> None:
    report = run_openshop(Config(instance=hand, utilities="linear"), 0)
    assert report.tau == 5.0 and set(report.outcomes) == {"pba", "luf", "fifo"}
    for outcome in report.outcomes.values():
        assert outcome.utilities is not None and (outcome.utilities > 0).all()
        np.testing.assert_allclose(outcome.utilities, report.instance.priority * (5.0 - outcome.times))
        assert outcome.summary["min"] == outcome.utilities.min()


def test_online_measures_delays_from_arrival(hand: Path) -> None:
    report = run_openshop(Config(instance=hand, online=True, delta0=2.0), 0)
    assert report.instance.arrival.tolist() == [0, 0, 4] and report.delta0 == 2.0
    for outcome in report.outcomes.values():
        assert (outcome.times == outcome.schedule.completion - report.instance.arrival).all()
        assert (outcome.times >= 1).all()
    # τ online: arrival span 4 + largest load 4 + δ₀ 2 + 1.
    assert horizon(report.instance, 2.0) == 11.0


def test_cli_json_and_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code, stdout, err = run_main(["openshop", "--jobs", "30", "--machines", "4", "--algorithm", "pba,kmaxmin,fifo",
                                  "--out", str(out), "--json"], capsys)
    assert code == 0, err
    doc = json.loads(stdout)
    assert list(doc["algorithms"]) == ["pba", "kmaxmin", "fifo"] and doc["jobs"] == 30 and doc["machines"] == 4
    assert len({round(a["max"]) for a in doc["algorithms"].values()}) == 1
    for name in ("instance.json", "jobs.csv", "jobs_pba.csv", "jobs_kmaxmin.csv", "jobs_fifo.csv", "cdf.png",
                 "report.json"):
        assert (out / name).stat().st_size > 0
    jobs = pd.read_csv(out / "jobs.csv")
    assert jobs.columns.tolist() == ["job", "arrival", "completion", "utility"] and len(jobs) == 30
    assert (jobs["utility"] == -jobs["completion"]).all()  # equal utilities: U = -C
    assert jobs["completion"].mean() == pytest.approx(doc["algorithms"]["pba"]["mean"])
    code, again, _ = run_main(["openshop", "--instance", str(out / "instance.json"), "--algorithm", "pba", "--json"],
                              capsys)
    assert code == 0 and json.loads(again)["algorithms"]["pba"]["mean"] == doc["algorithms"]["pba"]["mean"]
    assert read_instance(out / "instance.json").n_jobs == 30


def test_cli_table(hand: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, _ = run_main(["openshop", "--instance", str(hand), "--online", "--delta0", "2"], capsys)
    assert code == 0 and "Per-job delay (time units)" in stdout and "online" in stdout


@pytest.mark.parametrize(("args", "message"), [
    (["openshop", "--utilities", "convex"], "--utilities 'convex': choose one of equal, linear"),
    (["openshop", "--algorithm", "pba,magic"], "--algorithm magic: choose from"),
    (["openshop", "--online", "--algorithm", "exact"], "exact references are offline only"),
    (["openshop", "--google", ".", "--instance", "x.json"], "--google and --instance are exclusive"),
])
def test_user_errors_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = run_main(args, capsys)
    assert code == 2 and stdout == "" and err.startswith("error: ") and message in err and "Traceback" not in err


def test_bad_instance_file_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(HAND.replace('"tasks": {"0": 1, "1": 3}', '"tasks": {"0": 1, "7": 3}'))
    code, _, err = run_main(["openshop", "--instance", str(path)], capsys)
    assert code == 2 and f"{path}:3:" in err


def test_same_seed_same_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every output but report.json (timings) is byte-identical across runs with the same seed; PBA's perturbation
    and the generated instance follow the seed."""
    args = ["openshop", "--jobs", "40", "--machines", "5", "--utilities", "linear", "--online", "--delta0", "10",
            "--json"]
    for run in ("a", "b"):
        code, _, err = run_main([*args, "--seed", "2", "--out", str(tmp_path / run)], capsys)
        assert code == 0, err
    for name in ("instance.json", "jobs.csv", "jobs_pba.csv", "jobs_luf.csv", "jobs_fifo.csv", "cdf.png"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    code, _, _ = run_main([*args, "--seed", "3", "--out", str(tmp_path / "c")], capsys)
    assert (tmp_path / "c" / "jobs.csv").read_bytes() != (tmp_path / "a" / "jobs.csv").read_bytes()
