"""Progress of long steps: the library calls its `progress` callback; the CLI shows a bar only on a terminal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fairsched.backfill import experiment as backfill_experiment
from fairsched.backfill import fairness
from fairsched.backfill.jobs import BackfillJobs
from fairsched.cli import _deliver
from fairsched.online import experiment as online_experiment
from fairsched.online.engine import PROGRESS_STEPS, simulate
from fairsched.online.policies import get_policy
from fairsched.scenario import scenario_from_arrays
from tests.conftest import run_main
from tests.test_byte_identical import small_swf


def _jobs(n: int, seed: int) -> BackfillJobs:
    rng = np.random.default_rng(seed)
    run = rng.integers(1, 100, n)
    return BackfillJobs.from_arrays(submit=np.sort(rng.integers(0, 500, n)), run=run,
                                    procs=rng.integers(1, 9, n), requested=run + rng.integers(0, 50, n),
                                    n_processors=8)


@pytest.mark.parametrize("kind", ["strict", "relaxed"])
def test_fair_start_times_reports_jobs_done_and_gives_the_same_values(kind: str) -> None:
    jobs = _jobs(450, seed=3)
    calls: list[tuple[int, int]] = []
    told = fairness.fair_start_times(jobs, order="fcfs", backfill="easy", kind=kind,
                                     progress=lambda done, total: calls.append((done, total)))
    silent = fairness.fair_start_times(jobs, order="fcfs", backfill="easy", kind=kind)
    np.testing.assert_array_equal(told, silent)
    done = [d for d, _ in calls]
    assert calls[0] == (0, 450) and calls[-1] == (450, 450)
    assert {t for _, t in calls} == {450} and done == sorted(done)
    assert len(calls) == 450 // (450 // fairness.PROGRESS_STEPS) + 1  # every 2nd job, then the end


def test_online_simulate_reports_simulated_time_and_gives_the_same_schedule() -> None:
    rng = np.random.default_rng(5)
    n = 400
    scenario = scenario_from_arrays(release=np.sort(rng.integers(0, 10_000, n)), processing_time=rng.integers(1, 90, n),
                                    org=rng.integers(0, 3, n), machines_per_org=[1, 2, 1])
    calls: list[tuple[int, int]] = []
    told = simulate(scenario, get_policy("fairshare"), progress=lambda now, end: calls.append((now, end)))
    silent = simulate(scenario, get_policy("fairshare"))
    assert told.schedule.equals(silent.schedule) and told.psi.tolist() == silent.psi.tolist()
    end = int(scenario.jobs["release"].max())
    assert {e for _, e in calls} == {end}
    now = [t for t, _ in calls]
    assert now == sorted(now) and len(set(now)) == len(now) and now[-1] <= end
    assert 10 < len(calls) <= PROGRESS_STEPS + 1  # about one call per 1 % of the time, not one per decision


def test_compare_says_how_far_each_simulation_has_got() -> None:
    calls: list[tuple[str, int, int]] = []
    config = online_experiment.Config(window_length=100_000.0, policies=("roundrobin",), reference="ref")
    online_experiment.run_compare(config, 0, progress=lambda *call: calls.append(call))
    steps = {(done, total) for _, done, total in calls}
    assert steps == {(0, 4), (1, 4), (2, 4), (3, 4)}  # read, roundrobin, ref, measure
    ref = [text for text, done, _ in calls if done == 2]
    assert ref[0] == "simulating ref" and len(ref) > 10
    assert all(text.startswith("simulating ref: ") and text.endswith("% of the simulated time") for text in ref[1:])


def test_backfill_run_reports_each_fst_measure(tmp_path: Path) -> None:
    swf = small_swf(tmp_path / "s.swf", n_jobs=80)
    calls: list[tuple[str, int, int]] = []
    config = backfill_experiment.Config(trace=swf, fairness=("fst-strict", "fst-relaxed"))
    result = backfill_experiment.run(config, 0, progress=lambda *call: calls.append(call))
    n = len(result.report.result.schedule)
    assert [c[0] for c in calls[:2]] == ["reading s.swf", "simulating fcfs × easy"]
    for kind in ("strict", "relaxed"):
        mine = [(done, total) for text, done, total in calls if text == f"fair start times, {kind}"]
        assert mine[0] == (0, n) and mine[-1] == (n, n)


def test_the_bar_shows_only_on_a_terminal_and_never_with_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich: stderr is a terminal
    with _deliver.progress_bar(enabled=True) as progress:
        assert progress is not None
        progress("step", 1, 2)
    with _deliver.progress_bar(enabled=False) as progress:  # --json
        assert progress is None
    monkeypatch.setenv("TTY_COMPATIBLE", "0")  # piped, as in CI logs
    with _deliver.progress_bar(enabled=True) as progress:
        assert progress is None


def test_backfill_prints_nothing_on_stderr_when_not_a_terminal(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    swf = small_swf(tmp_path / "s.swf", n_jobs=40)
    code, out, err = run_main(["backfill", "--trace", str(swf), "--fairness", "fst-strict"], capsys)
    assert (code, err) == (0, "") and "fst" in out.lower()

