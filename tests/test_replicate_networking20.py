"""`fairsched replicate networking20` (Networking'20 §VII) on the Google slice (skipped without the trace)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fairsched.errors import ConfigError
from fairsched.replicate import networking20
from fairsched.report.openshop import write_networking20_outputs
from tests.conftest import trace_path


def test_replication_on_the_google_slice(tmp_path: Path) -> None:
    folder = trace_path("google-clusterdata-2011-2").parent
    result = networking20.run(networking20.Networking20Config(traces_dir=folder, quick=True, reach_instances=5))
    assert len(result.rows) == len(networking20.PAPER) and set(result.reports) == {
        "offline-equal", "offline-linear", "online-equal", "online-linear"}
    for row, claim in zip(result.rows, networking20.PAPER, strict=True):
        assert np.isfinite(row["ours"]) and row["ours"] > 0
        pba, base = row["pba"], row["baseline_value"]
        assert row["ours"] == pytest.approx(base / pba if claim.kind == "lower" else pba / base)
        # the verdict: PBA better in the paper's direction, or within 10 % for a "same" claim
        assert row["holds"] == (abs(row["ours"] - 1) <= 0.1 if claim.kind == "same" else row["ours"] > 1)
    offline = result.reports["offline-equal"]
    assert {round(o.summary["max"]) for o in offline.outcomes.values()} == {int(offline.instance.machine_loads().max())}
    reach = {(r["algorithm"], r["k"]): r for r in result.reach}
    assert set(reach) == {("pba", None), ("kmaxmin", 2), ("kmaxmin", 3), ("kmaxmin", 7), ("generalized pba", None)}
    # The guarantees: PBA gets the two worst coordinates, k-Max-Min k + 1 of them (with the makespan), k = n all.
    assert reach["pba", None]["leading_min"] >= 2 and reach["kmaxmin", 7]["exact_vector"] == 1.0
    assert all(reach["kmaxmin", k]["leading_min"] >= k + 1 for k in (2, 3))
    written = write_networking20_outputs(result, tmp_path)
    assert {"rows.csv", "reach.csv", "cdf_offline-equal.png", "cdf_online-linear.png", "report.json"} <= set(written)
    assert len(json.loads((tmp_path / "report.json").read_text())["rows"]) == len(networking20.PAPER)


def test_replication_names_a_missing_slice(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="google-clusterdata-2011-2/task_events"):
        networking20.run(networking20.Networking20Config(traces_dir=tmp_path))
