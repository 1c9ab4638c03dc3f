"""``fairsched results DIR --baseline policy=fairshare`` on a small online sweep (2 policies x 3 values of k x 3 seeds):
the paired differences, ratios, intervals and p-values are recomputed by hand from the store's Parquet parts with
scipy.stats' own paired tests (issue 21, "Paired comparisons")."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairsched.errors import ConfigError
from fairsched.sweep import paired_results
from tests.conftest import run_main
from tests.sweep_store import online_store

METRICS = ("mean_wait", "delta_psi_over_ptot")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return online_store(tmp_path_factory.mktemp("paired"))


def by_hand(store: Path) -> pd.DataFrame:
    """The store's rows read straight from its Parquet parts, one column per policy: (orgs, seed) -> values."""
    rows = pd.read_parquet(store / "cells")
    assert set(rows["policy"]) == {"roundrobin", "fairshare"} and len(rows) == 18
    return rows.pivot_table(index=["orgs", "seed"], columns="policy", values=list(METRICS))


def check_row(row: pd.Series, base: np.ndarray, value: np.ndarray) -> None:
    """One row of `paired_results` against scipy.stats on the same pairs."""
    diff = value - base
    assert row["n"] == len(diff)
    assert row["baseline_mean"] == pytest.approx(base.mean()) and row["mean"] == pytest.approx(value.mean())
    assert row["diff"] == pytest.approx(diff.mean())
    t_low, t_high = stats.ttest_rel(value, base).confidence_interval(0.95)
    assert (row["diff_t_low"], row["diff_t_high"]) == (pytest.approx(t_low), pytest.approx(t_high))
    boot = stats.bootstrap((diff,), np.mean, n_resamples=9999, method="percentile",
                           rng=np.random.default_rng(0)).confidence_interval
    assert (row["diff_boot_low"], row["diff_boot_high"]) == (pytest.approx(boot.low), pytest.approx(boot.high))
    assert row["diff_boot_low"] < row["diff_boot_high"]  # the pairs differ: a real interval, not a point
    assert row["wilcoxon_p"] == pytest.approx(stats.wilcoxon(value, base).pvalue)
    if np.all(base != 0):
        ratio = value / base
        assert row["ratio"] == pytest.approx(ratio.mean())
        r_low, r_high = stats.ttest_1samp(ratio, 1.0).confidence_interval(0.95)
        assert (row["ratio_t_low"], row["ratio_t_high"]) == (pytest.approx(r_low), pytest.approx(r_high))
    else:  # Δψ/p_tot of the reference itself is 0: no ratio
        assert math.isnan(row["ratio"]) and math.isnan(row["ratio_t_low"])


def test_paired_per_k_matches_scipy_by_hand(store: Path) -> None:
    hand = by_hand(store)
    paired = paired_results(store, "policy=fairshare", metrics=METRICS)
    assert (paired.column, paired.baseline, paired.group_by) == ("policy", "fairshare", ("orgs",))
    assert paired.paired_on == ("seed", "orgs") and paired.averaged_over == ()
    assert [(r.orgs, r.policy, r.metric) for r in paired.rows.itertuples()] == [
        (k, "roundrobin", m) for k in (2, 3, 4) for m in METRICS]
    for row in paired.rows.to_dict("records"):
        pairs = hand.loc[row["orgs"], row["metric"]]  # index: seed
        check_row(pd.Series(row), pairs["fairshare"].to_numpy(), pairs["roundrobin"].to_numpy())
    # the per-seed pairs themselves: one per (k, seed, metric), diff = value - baseline
    assert len(paired.pairs) == 9 * len(METRICS)
    wait = paired.pairs[paired.pairs["metric"] == "mean_wait"].set_index(["orgs", "seed"])["diff"]
    expected = hand["mean_wait"]["roundrobin"] - hand["mean_wait"]["fairshare"]
    pd.testing.assert_series_equal(wait.sort_index(), expected.sort_index(), check_names=False)


def test_grouping_by_policy_averages_over_k_but_never_pairs_across_k(store: Path) -> None:
    hand = by_hand(store)
    paired = paired_results(store, "policy=fairshare", group_by=("policy",), metrics=("mean_wait",))
    assert paired.averaged_over == ("orgs",) and paired.paired_on == ("seed", "orgs")
    (row,) = paired.rows.to_dict("records")
    assert row["n"] == 9
    check_row(pd.Series(row), hand["mean_wait"]["fairshare"].to_numpy(), hand["mean_wait"]["roundrobin"].to_numpy())


def test_results_baseline_command_prints_the_table_and_json(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["results", str(store), "--baseline", "policy=fairshare", "--metric", "mean_wait",
                               "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["baseline"] == {"column": "policy", "value": "fairshare"} and doc["averaged_over"] == []
    hand = by_hand(store)
    for row in doc["rows"]:
        diff = (hand.loc[row["orgs"], "mean_wait"]["roundrobin"] - hand.loc[row["orgs"], "mean_wait"]["fairshare"])
        assert row["diff"] == pytest.approx(diff.mean())
    assert len(doc["pairs"]) == 9
    code, out, err = run_main(["results", str(store), "--baseline", "policy=fairshare", "--group-by", "policy",
                               "--metric", "mean_wait"], capsys)
    assert code == 0, err
    text = " ".join(out.split())
    assert "Paired against policy = fairshare (9 of 9 cells done)" in text
    assert "pairs match on seed, orgs; each group averages over the seeds and orgs" in text


@pytest.mark.parametrize(("baseline", "message"), [
    ("policy", "--baseline 'policy': expected COLUMN=VALUE, e.g. policy=fairshare"),
    ("policy=nosuch", "--baseline policy=nosuch: no row has policy = nosuch; it has roundrobin, fairshare"),
    ("polcy=fairshare", "--baseline polcy=fairshare: no column 'polcy'; the store has "),
])
def test_a_bad_baseline_is_one_line(store: Path, capsys: pytest.CaptureFixture[str], baseline: str,
                                    message: str) -> None:
    with pytest.raises(ConfigError, match=f"^{message.replace('(', '[(]').replace(')', '[)]')}"):
        paired_results(store, baseline)
    code, out, err = run_main(["results", str(store), "--baseline", baseline], capsys)
    assert (code, out) == (2, "")
    assert err.splitlines()[0].startswith(f"error: {message}") and len(err.splitlines()) == 1
