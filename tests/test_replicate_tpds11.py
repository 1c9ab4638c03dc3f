"""`fairsched replicate tpds11` (TPDS'11 §7) on a tiny run: rows, determinism, outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.replicate import tpds11
from fairsched.report.mosp import write_tpds11_outputs

TINY = {"instances": 1}


@pytest.fixture(scope="module")
def tiny() -> tpds11.TPDS11Result:
    return tpds11.run(tpds11.TPDS11Config(**TINY))


def test_tiny_replication_rows(tiny: tpds11.TPDS11Result) -> None:
    keys = ["experiment", "dist", "orgs", "jobs", "procs", "algorithm", "local_order", "threshold", "mean", "std",
            "optimal_fraction", "instances", "paper_mean"]
    assert all(list(row) == keys for row in tiny.rows)
    by = {(r["experiment"], r["dist"], r["orgs"], r["jobs"], r["algorithm"], r["local_order"]): r for r in tiny.rows}
    overall = by[("homogeneous", "uni", "all", "all", "mocca+ilba", "hf")]
    assert overall["instances"] == 4 * 4 * 3 and overall["paper_mean"] == 1.24
    assert by[("homogeneous", "uni", 20, "50-500", "local", "hf")]["instances"] == 3 * 3
    assert all(0.0 <= r["optimal_fraction"] <= 1.0 and r["mean"] >= 1.0 - 1e-9 for r in tiny.rows)
    # ILBA never makes MOCCA's schedule longer, instance by instance (it never delays a job).
    scores = tiny.scores.set_index(["experiment", "dist", "orgs", "jobs", "procs", "shape", "index", "algorithm"])
    mocca = scores.xs("mocca-exp", level="algorithm")["score"]
    improved = scores.xs("mocca+ilba", level="algorithm")["score"]
    assert (improved <= mocca + 1e-12).all()
    hetero = [r for r in tiny.rows if r["experiment"] == "heterogeneous"]
    assert {r["procs"] for r in hetero} == {f"pareto a={a}" for a in range(1, 11)}
    assert {(r["algorithm"], r["local_order"]) for r in tiny.rows if r["experiment"] == "local-policies"} == {
        (f"mocca{t}+ilba", o) for t in (3, 4) for o in ("hf", "lpt", "spt", "rnd")}


def test_tiny_replication_is_deterministic_and_worker_independent(tiny: tpds11.TPDS11Result) -> None:
    again = tpds11.run(tpds11.TPDS11Config(**TINY, jobs=2, experiments=("homogeneous",)))
    mine = tiny.scores[tiny.scores["experiment"] == "homogeneous"].reset_index(drop=True)
    pd.testing.assert_frame_equal(again.scores.reset_index(drop=True), mine)


def test_replication_outputs_and_json(tiny: tpds11.TPDS11Result, tmp_path: Path) -> None:
    written = write_tpds11_outputs(tiny, tmp_path)
    assert {"rows.csv", "scores.csv", "homogeneous.png", "local_policies.png", "heterogeneous.png",
            "report.json"} <= set(written)
    doc = json.loads((tmp_path / "report.json").read_text())
    assert len(doc["rows"]) == len(tiny.rows) and doc["instances"] == 2 * 48 + 2 * 10 * 4
    assert np.isclose(pd.read_csv(tmp_path / "scores.csv")["score"].mean(), tiny.scores["score"].mean())


def test_replication_rejects_unknown_experiments() -> None:
    from fairsched.errors import ConfigError

    with pytest.raises(ConfigError, match="choose from homogeneous, local-policies, heterogeneous"):
        tpds11.run(tpds11.TPDS11Config(experiments=("fig11",)))
