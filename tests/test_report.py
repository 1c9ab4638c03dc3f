"""`fairsched.report`: the JSON document, the output directory, the fast CSV writer, the figure and the tables."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from fairsched import _io
from fairsched._io import write_csv
from fairsched.online.experiment import CompareResult, Config, compare_scenario, org_deviation
from fairsched.online.validate import validate_online_schedule
from fairsched.report.online import compare_renderable, to_json, utility_figure, write_compare_outputs
from fairsched.scenario import scenario_from_arrays

POLICIES = ("roundrobin", "currfairshare", "fairshare")


@pytest.fixture(scope="module")
def result() -> CompareResult:
    """Three organizations (1, 2, 1 machines), 30 jobs, some parallel; FAIRSHARE is the reference."""
    rng = np.random.default_rng(2)
    n = 30
    scenario = scenario_from_arrays(np.sort(rng.integers(0, 20, n)), rng.integers(1, 10, n), rng.integers(0, 3, n),
                                    [1, 2, 1], copies=rng.integers(1, 3, n), job=np.arange(101, 101 + n))
    return compare_scenario(scenario, Config(policies=POLICIES, reference="fairshare"), 1)


def test_json_document_holds_the_promised_keys_and_values(result: CompareResult) -> None:
    doc = to_json(result, outputs={"summary.csv": Path("x/summary.csv")})
    text = json.dumps(doc, allow_nan=False)  # strict JSON: no NaN or numpy types left
    doc = json.loads(text)
    assert doc["reference"] == "fairshare"
    assert (doc["t_end"], doc["p_tot"], doc["seed"]) == (result.t_end, result.p_tot, 1)
    assert doc["elapsed_s"] == result.elapsed_s
    assert doc["scenario"]["machines_per_org"] == [1, 2, 1]
    assert doc["outputs"] == {"summary.csv": "x/summary.csv"}
    assert list(doc["policies"]) == list(POLICIES)
    psi_ref = doc["policies"]["fairshare"]["psi"]
    for name, entry in doc["policies"].items():
        outcome = result.policies[name]
        assert entry["psi"] == outcome.psi.tolist()
        assert len(entry["psi"]) == 3
        assert entry["per_org_deviation"] == [a - b for a, b in zip(entry["psi"], psi_ref, strict=True)]
        assert entry["delta_psi"] == sum(abs(d) for d in entry["per_org_deviation"])
        assert entry["delta_psi_over_ptot"] == pytest.approx(entry["delta_psi"] / doc["p_tot"])
        assert entry["per_org_deviation_over_ptot"] == pytest.approx(
            [d / doc["p_tot"] for d in entry["per_org_deviation"]])
        assert entry["is_reference"] == (name == "fairshare")
        assert entry["jobs_started"] == len(outcome.result.schedule)
    assert doc["policies"]["fairshare"]["delta_psi_over_ptot"] == 0.0
    assert doc["policies"]["roundrobin"]["delta_psi"] > 0  # the instance does separate the policies


def test_output_directory_has_every_file_with_exact_columns(result: CompareResult, tmp_path: Path) -> None:
    written = write_compare_outputs(result, tmp_path / "out")
    expected = {"summary.csv", "per_org.csv", "machines.csv", "organizations.csv", "utility.png", "report.json",
                *(f"{name}/schedule.csv" for name in POLICIES), *(f"{name}/jobs.csv" for name in POLICIES)}
    assert set(written) == expected
    assert all(path == tmp_path / "out" / key and path.is_file() for key, path in written.items())
    assert not list((tmp_path / "out").rglob("*.tmp"))

    summary = pd.read_csv(written["summary.csv"])
    assert summary["policy"].tolist() == list(POLICIES)
    assert summary["delta_psi"].tolist() == [result.policies[p].fairness.delta_psi for p in POLICIES]
    per_org = pd.read_csv(written["per_org.csv"])
    assert len(per_org) == 3 * len(POLICIES)
    assert per_org.columns[:6].tolist() == ["policy", "org", "machines", "psi", "psi_reference",
                                             "deviation_over_ptot"]
    machines = pd.read_csv(written["machines.csv"])
    assert machines.columns.tolist() == ["machine", "org"]
    assert machines["org"].tolist() == [0, 1, 1, 2]
    assert written["utility.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = json.loads(written["report.json"].read_text())
    assert set(report["outputs"]) == expected


@pytest.mark.parametrize("policy", POLICIES)
def test_schedule_csv_reads_back_as_a_valid_schedule(result: CompareResult, tmp_path: Path, policy: str) -> None:
    path = write_compare_outputs(result, tmp_path)[f"{policy}/schedule.csv"]
    assert path.read_text().splitlines()[0] == "job,org,release,start,end,machine"
    schedule = pd.read_csv(path)
    pd.testing.assert_frame_equal(schedule, result.policies[policy].result.schedule, check_dtype=False)
    assert schedule["job"].min() >= 101  # the scenario's job numbers, not row numbers
    validate_online_schedule(schedule, result.scenario, t_end=result.t_end)


def test_fast_integer_csv_is_byte_identical_to_pandas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_io, "_CSV_CHUNK_ROWS", 7)  # several chunks, and a last one that is not full
    rng = np.random.default_rng(0)
    values = rng.integers(-(2**62), 2**62, size=(45, 3))
    values[:5] = [[0, -1, 9], [10, -10, 2**63 - 1], [-(2**63) + 1, 1, 100], [99, -99, 1000], [7, 0, -7]]
    frame = pd.DataFrame(values, columns=["a", "b", "c"]).astype({"b": np.int32})
    write_csv(frame, tmp_path / "fast.csv")
    assert (tmp_path / "fast.csv").read_bytes() == frame.to_csv(index=False, lineterminator="\n").encode()
    write_csv(frame.iloc[:0], tmp_path / "empty.csv")
    assert (tmp_path / "empty.csv").read_text() == "a,b,c\n"


def test_mixed_frames_fall_back_to_pandas(tmp_path: Path) -> None:
    frame = pd.DataFrame({"policy": ["a", "b"], "x": [1.5, float("nan")], "n": [1, 2]})
    write_csv(frame, tmp_path / "mixed.csv")
    assert (tmp_path / "mixed.csv").read_text() == "policy,x,n\na,1.5,1\nb,,2\n"


def test_figure_draws_one_bar_per_organization_and_policy(result: CompareResult) -> None:
    """The reference (all zeros) is left out; each bar's height is (psi_u - psi*_u) / p_tot."""
    ax = utility_figure(result).axes[0]
    assert len(ax.containers) == len(POLICIES) - 1
    others = [name for name in POLICIES if name != "fairshare"]
    for container, name in zip(ax.containers, others, strict=True):
        heights = [bar.get_height() for bar in container]
        assert heights == pytest.approx(org_deviation(result.policies[name], result).tolist())
        expected = [(a - b) / result.p_tot for a, b in zip(result.policies[name].psi.tolist(),
                                                           result.reference_outcome.psi.tolist(), strict=True)]
        assert heights == pytest.approx(expected)
    assert "fairshare" in ax.get_title()
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == ["org 0", "org 1", "org 2"]


def test_tables_show_every_policy_and_its_fairness(result: CompareResult) -> None:
    console = Console(record=True, width=200)
    console.print(compare_renderable(result))
    text = console.export_text()
    assert "fairshare (reference)" in text
    for name in POLICIES:
        assert name in text
    value = result.policies["roundrobin"].fairness.delta_psi_over_ptot
    assert f"{value:.4g}" in text
    assert f"{result.p_tot:,}" in text
