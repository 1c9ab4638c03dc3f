"""`fairsched replicate networking20` (Networking'20 §VII) on the Google slice (skipped without the trace)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from fairsched.errors import ConfigError
from fairsched.replicate import networking20
from fairsched.replicate._common import verdict
from fairsched.report.openshop import networking20_renderable, write_networking20_outputs
from tests.conftest import trace_path

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> networking20.Networking20Result:
    folder = trace_path("google-clusterdata-2011-2").parent
    store = tmp_path_factory.mktemp("networking20") / "sweep"
    return networking20.run(networking20.Networking20Config(traces_dir=folder, quick=True, reach_instances=5,
                                                            store=store))


def test_replication_on_the_google_slice(quick: networking20.Networking20Result, tmp_path: Path) -> None:
    result = quick
    assert len(result.rows) == len(networking20.PAPER) and set(result.reports) == {
        "offline-equal", "offline-linear", "online-equal", "online-linear"}
    for row, claim in zip(result.rows, networking20.PAPER, strict=True):
        assert np.isfinite(row["ours"]) and row["ours"] > 0
        pba, base = row["pba"], row["baseline_value"]
        assert row["ours"] == pytest.approx(base / pba if claim.kind == "lower" else pba / base)
        # the verdict: the gain (ratio - 1) within a factor 1.25 of the paper's (10 % of 1 for "same"), else PBA
        # merely better
        assert row["verdict"] == verdict(claim.paper, row["ours"], claim.kind)
    verdicts = {(r["setting"], r["metric"], r["baseline"]): r["verdict"] for r in result.rows}
    # PBA better than FIFO but not by the paper's factor is "direction only", never a plain "yes" (ours > 1)
    assert verdicts["offline-equal", "std", "fifo"] == "direction only"  # 2.19 against the paper's 1.54
    assert verdicts["offline-equal", "mean", "fifo"] == "matches"  # 2.99 against 3
    assert verdicts["offline-equal", "mean", "sptf"] == "no"  # 0.44: shortest-first SPTF beats PBA
    offline = result.reports["offline-equal"]
    assert {round(o.summary["max"]) for o in offline.outcomes.values()} == {offline.max_machine_load}
    assert all(o.values.size == offline.n_jobs for o in offline.outcomes.values())
    reach = {(r["algorithm"], r["k"]): r for r in result.reach}
    assert set(reach) == {("pba", None), ("kmaxmin", 2), ("kmaxmin", 3), ("kmaxmin", 7), ("generalized pba", None)}
    # The guarantees: PBA gets the two worst coordinates, k-Max-Min k + 1 of them (with the makespan), k = n all.
    assert reach["pba", None]["leading_min"] >= 2 and reach["kmaxmin", 7]["exact_vector"] == 1.0
    assert all(reach["kmaxmin", k]["leading_min"] >= k + 1 for k in (2, 3))
    written = write_networking20_outputs(result, tmp_path)
    assert {"rows.csv", "reach.csv", "cdf_offline-equal.png", "cdf_online-linear.png", "report.json"} <= set(written)
    rows = json.loads((tmp_path / "report.json").read_text())["rows"]
    assert [r["verdict"] for r in rows] == [r["verdict"] for r in result.rows] and "holds" not in rows[0]
    console = Console(width=200, record=True)
    console.print(networking20_renderable(result))
    terminal = console.export_text()
    assert "verdict" in terminal and "direction only" in terminal and " yes " not in terminal
    # The published tables did not change when the replication became a sweep: the quick run's rows and reach
    # tables are byte for byte those of the loop it replaced (written by it, seed 0, 5 reach instances; the verdict
    # column re-rendered when the band moved to the claimed gain, issue 24).
    assert (tmp_path / "rows.csv").read_bytes() == (DATA / "networking20_quick_rows.csv").read_bytes()
    assert (tmp_path / "reach.csv").read_bytes() == (DATA / "networking20_quick_reach5.csv").read_bytes()


def test_replication_resumes_and_runs_on_dask(quick: networking20.Networking20Result, tmp_path: Path) -> None:
    """Rerun on the kept store: nothing is recomputed. On a Dask LocalCluster: the same rows."""
    from fairsched.sweep.store import Store

    store = quick.config.store
    kept = Store(store)
    written = {key: kept.part_path(key).stat().st_mtime_ns for key in kept.done_keys()}
    assert len(written) == 5
    again = networking20.run(replace(quick.config, workers=2, executor="dask"))
    assert again.rows == quick.rows and again.reach == quick.reach
    assert {key: kept.part_path(key).stat().st_mtime_ns for key in kept.done_keys()} == written
    dask = networking20.run(replace(quick.config, workers=2, executor="dask", store=tmp_path / "sweep"))
    assert dask.rows == quick.rows and dask.reach == quick.reach
    for name, report in quick.reports.items():
        for algorithm, outcome in report.outcomes.items():
            np.testing.assert_array_equal(dask.reports[name].outcomes[algorithm].values, outcome.values)


def test_replication_names_a_missing_slice(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="google-clusterdata-2011-2/task_events"):
        networking20.run(networking20.Networking20Config(traces_dir=tmp_path))
