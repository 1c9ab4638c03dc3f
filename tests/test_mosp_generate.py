"""TPDS'11 instance generators (§7.1 uni / swf, §7.4 Pareto clusters) and trace instances."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError
from fairsched.mosp.generate import (
    GENERATORS,
    generate,
    heterogeneous_procs,
    lublin_instance,
    select_trace_jobs,
    trace_instance,
    uniform_instance,
    zipf_owners,
)
from fairsched.scenario import assign_orgs
from fairsched.workload.model import Workload
from fairsched.workload.swf import read_swf
from tests.conftest import trace_path


def _same(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("procs", "job_id", "owner", "runtime", "width"))


# ---------------------------------------------------------------------------------------------------------------
# Owners (Zipf, §7.1)
# ---------------------------------------------------------------------------------------------------------------

def test_zipf_two_orgs_hand_computed() -> None:
    # P(org 0) = 1 / (1 + 2**-1.4267) = 1 / 1.37196 = 0.7289
    owner = zipf_owners(40_000, 2, np.random.default_rng(0))
    assert np.mean(owner == 0) == pytest.approx(0.7289, abs=0.01)


@pytest.mark.parametrize("n_orgs", [1, 5, 20])
def test_zipf_shares_follow_rank_power_law(n_orgs: int) -> None:
    owner = zipf_owners(50_000, n_orgs, np.random.default_rng(1))
    weight = np.arange(1, n_orgs + 1) ** -1.4267
    share = np.bincount(owner, minlength=n_orgs) / owner.size
    assert owner.min() >= 0 and owner.max() < n_orgs
    np.testing.assert_allclose(share, weight / weight.sum(), atol=0.01)


# ---------------------------------------------------------------------------------------------------------------
# uni and swf (§7.1)
# ---------------------------------------------------------------------------------------------------------------

def test_uniform_instance_draws_p_in_1_50_and_q_in_1_m() -> None:
    inst = uniform_instance(5, 20_000, 32, np.random.default_rng(2))
    assert inst.procs.tolist() == [32] * 5 and inst.job_id.tolist() == list(range(20_000))
    assert inst.runtime.min() == 1 and inst.runtime.max() == 50
    assert inst.width.min() == 1 and inst.width.max() == 32
    np.testing.assert_allclose(np.bincount(inst.runtime, minlength=51)[1:] / 20_000, 1 / 50, atol=0.005)
    np.testing.assert_allclose(np.bincount(inst.width, minlength=33)[1:] / 20_000, 1 / 32, atol=0.006)
    assert abs(np.corrcoef(inst.runtime, inst.width)[0, 1]) < 0.03  # independent draws


def test_heterogeneous_uniform_jobs_fit_their_owners_cluster() -> None:
    procs = [16, 4, 1]
    inst = uniform_instance(3, 5_000, procs, np.random.default_rng(3))
    cap = inst.procs[inst.owner]
    assert (inst.width <= cap).all()
    for k, m in enumerate(procs):
        assert inst.width[inst.owner == k].max() == m  # each owner's whole range 1..m_k is used


def test_lublin_instance_uses_the_model_capped_at_the_owners_cluster() -> None:
    inst = lublin_instance(4, 20_000, [512, 128, 32, 2], np.random.default_rng(4))
    assert (inst.width >= 1).all() and (inst.width <= inst.procs[inst.owner]).all()
    assert inst.width[inst.owner == 0].max() > 128  # sizes scale with the owner's cluster, not a fixed 128
    assert np.mean(inst.width == 1) == pytest.approx(0.2927, abs=0.015)
    assert inst.runtime.min() >= 1 and inst.runtime.max() > 50  # seconds, far beyond uni's 1..50


def test_generate_dispatches_and_is_deterministic() -> None:
    assert set(GENERATORS) == {"uni", "swf"}
    for kind in GENERATORS:
        a = generate(kind, n_orgs=5, n_jobs=100, procs=128, seed=9)
        b = generate(kind, n_orgs=5, n_jobs=100, procs=128, seed=9)
        c = generate(kind, n_orgs=5, n_jobs=100, procs=128, seed=10)
        assert _same(a, b) and not _same(a, c) and a.n_jobs == 100 and a.n_orgs == 5
    uni = generate("uni", n_orgs=5, n_jobs=100, procs=128, seed=9)
    assert _same(uni, uniform_instance(5, 100, 128, np.random.default_rng(9)))
    assert _same(uni, uniform_instance(5, 100, 128, 9))  # a seed is accepted where a Generator is


def test_empty_instance() -> None:
    inst = uniform_instance(3, 0, 8, np.random.default_rng(0))
    assert inst.n_jobs == 0 and inst.procs.tolist() == [8, 8, 8]


@pytest.mark.parametrize(("call", "match"), [
    (lambda: generate("gauss", n_orgs=2, n_jobs=3, procs=4, seed=0), "uni, swf"),
    (lambda: uniform_instance(3, 5, [4, 4], 0), "3 integer cluster sizes"),
    (lambda: uniform_instance(2, 5, [4, 0], 0), ">= 1 processor"),
    (lambda: uniform_instance(2, 5, 4.0, 0), "one integer m"),
    (lambda: uniform_instance(0, 5, 4, 0), "n_orgs=0"),
    (lambda: uniform_instance(2, -1, 4, 0), "n_jobs=-1"),
    (lambda: uniform_instance(2, 5, 4, None), "Generator or a non-negative integer seed"),
    (lambda: heterogeneous_procs(3, 0, shape=0.0), "shape=0.0"),
    (lambda: heterogeneous_procs(3, 0, shape=1.0, minimum=256, cutoff=128), "cutoff=128"),
])
def test_bad_options_raise_config_error(call, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        call()


# ---------------------------------------------------------------------------------------------------------------
# Heterogeneous clusters (§7.4)
# ---------------------------------------------------------------------------------------------------------------

def bounded_pareto_cdf(x: float, shape: float, low: float = 128, high: float = 1024) -> float:
    return (1 - (low / x) ** shape) / (1 - (low / high) ** shape)


@pytest.mark.parametrize("shape", [1.0, 2.0, 5.0, 10.0])
def test_pareto_cluster_sizes_follow_the_bounded_pareto(shape: float) -> None:
    sizes = heterogeneous_procs(20_000, np.random.default_rng(5), shape)
    assert sizes.dtype == np.int64 and sizes.min() >= 128 and sizes.max() <= 1024
    # floor(X) <= k  <=>  X < k + 1
    points = np.array([128, 150, 200, 300, 500, 800, 1000])
    expected = np.array([bounded_pareto_cdf(k + 1, shape) for k in points])
    empirical = np.array([np.mean(sizes <= k) for k in points])
    np.testing.assert_allclose(empirical, expected, atol=0.015)


def test_pareto_shape_one_median_hand_computed_and_large_shapes_are_homogeneous() -> None:
    # shape 1: F(x) = (1 - 128/x) / (7/8) = 1/2  =>  x = 128 / (1 - 7/16) = 227.6
    assert np.median(heterogeneous_procs(20_001, np.random.default_rng(6), 1.0)) == pytest.approx(227, abs=4)
    flat = heterogeneous_procs(1_000, np.random.default_rng(6), 10.0)
    assert np.quantile(flat, 0.9) < 128 * 10 ** 0.1  # P(X > 128 * 10**0.1) = 0.1 for shape 10
    assert math.isclose(128 * 10 ** 0.1, 161.1, abs_tol=0.1)


# ---------------------------------------------------------------------------------------------------------------
# Trace instances
# ---------------------------------------------------------------------------------------------------------------

def _workload() -> Workload:
    """Eight jobs; job 4 is cancelled (run time -1), jobs 3 and 7 need 16 processors."""
    jobs = pd.DataFrame({
        "job_number": [10, 11, 12, 13, 14, 15, 16, 17],
        "submit_time": [0.0, 3.0, 5.0, 8.0, 9.0, 20.0, 30.0, 40.0],
        "run_time": [2.5, 7.0, 1.0, 4.0, -1.0, 0.2, 9.0, 3.0],
        "processors": [4, 1, 2, 16, 1, 8, 1, 16],
        "status": [1, 1, 1, 1, 5, 1, 1, 1],
        "user_id": [1, 2, 1, 3, 2, 4, 5, 1],
        "group_id": [7, 7, 7, 7, 7, 7, 7, 7],
        "queue_number": [0, 1, 0, 1, 0, 1, 0, 1],
    })
    return Workload(jobs=jobs, source="hand-made")


def test_trace_instance_drops_too_wide_jobs_and_ceils_runtimes() -> None:
    selection = select_trace_jobs(_workload(), 3, 8, seed=4)
    inst = selection.instance
    assert inst.job_id.tolist() == [10, 11, 12, 15, 16]  # 13 and 17 too wide, 14 cancelled
    assert inst.runtime.tolist() == [3, 7, 1, 1, 9]
    assert inst.width.tolist() == [4, 1, 2, 8, 1]
    assert inst.procs.tolist() == [8, 8, 8]
    assert selection.too_wide == 2 and selection.clean.dropped["cancelled before start"] == 1
    assert selection.n_window == 8 and selection.beyond_first == 0
    users = np.array([1, 2, 1, 4, 5])
    np.testing.assert_array_equal(inst.owner, assign_orgs(users, 3, seed=4))  # the online model's mapping


def test_trace_instance_can_cap_instead() -> None:
    selection = select_trace_jobs(_workload(), 3, 8, seed=4, too_wide="cap")
    assert selection.instance.job_id.tolist() == [10, 11, 12, 13, 15, 16, 17]
    assert selection.instance.width.tolist() == [4, 1, 2, 8, 8, 1, 8]
    assert selection.too_wide == 2 and selection.too_wide_action == "cap"


def test_trace_instance_first_and_window() -> None:
    selection = select_trace_jobs(_workload(), 2, 8, seed=0, first=3)
    assert selection.instance.job_id.tolist() == [10, 11, 12]
    assert selection.too_wide == 0 and selection.beyond_first == 4  # jobs 13, 15, 16, 17 not examined
    selection = select_trace_jobs(_workload(), 2, 8, seed=0, first=4)
    assert selection.instance.job_id.tolist() == [10, 11, 12, 15] and selection.too_wide == 1
    windowed = trace_instance(_workload(), 2, 8, seed=0, window=(5.0, 30.0))  # submits in [5, 35)
    assert windowed.job_id.tolist() == [12, 15, 16]


def test_trace_instance_orgs_by_group_and_per_org_clusters() -> None:
    inst = trace_instance(_workload(), 3, [1, 16, 4], seed=2, org_by="group", too_wide="cap")
    assert len(set(inst.owner.tolist())) == 1  # one group -> one organization
    assert (inst.width <= inst.procs[inst.owner]).all()


def test_trace_instance_with_no_job_left_says_why() -> None:
    why = r"hand-made: no job left .*\(1 in the window, 0 dropped by cleaning, 1 wider than"
    with pytest.raises(ConfigError, match=why):
        trace_instance(_workload(), 2, 1, seed=0, window=(35.0, None))
    with pytest.raises(ConfigError, match="org_by='site'"):
        trace_instance(_workload(), 2, 8, seed=0, org_by="site")
    with pytest.raises(ConfigError, match="too_wide='trim'"):
        trace_instance(_workload(), 2, 8, seed=0, too_wide="trim")


@pytest.mark.traces
def test_real_trace_window() -> None:
    workload = read_swf(trace_path("SDSC-SP2-1998-4.2-cln.swf.gz"))
    selection = select_trace_jobs(workload, 5, 64, seed=0, first=300)
    inst = selection.instance
    assert inst.n_jobs == 300 and (inst.width <= 64).all() and (inst.runtime >= 1).all()
    assert selection.too_wide > 0  # the SP2 had 128 nodes: some jobs do not fit 64
    assert 300 + selection.too_wide + selection.beyond_first == selection.clean.kept
    same_user = workload.jobs.set_index("job_number").loc[inst.job_id, "user_id"].to_numpy()
    np.testing.assert_array_equal(inst.owner, assign_orgs(same_user, 5, seed=0))
