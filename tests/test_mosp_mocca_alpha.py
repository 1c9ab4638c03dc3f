"""MOCCA(α) (TPDS'11 §5.2, Algorithm 4): the HF fall-back rule, the cut at αLB, backwards placement, and
Prop. 10 (C_max <= 4LB with the local constraint met, whatever the local policy) as a hypothesis invariant."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.errors import ConfigError
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.metrics import deadline, makespan, org_makespans
from fairsched.mosp.policies.local import local_schedule
from fairsched.mosp.policies.mocca_alpha import mocca_alpha
from fairsched.mosp.validate import validate_mosp_schedule
from tests.strategies import mosp_instances


def test_cut_and_backwards_placement_hand_computed() -> None:
    # Clusters of 3 and 1; org 1 has five unit jobs (local: 0..4, makespan 5). LB = max(5/4, 1) = 5/4.
    inst = MospInstance.from_arrays(procs=[3, 1], owner=[1] * 5, runtime=[1] * 5, width=[1] * 5)
    kept = mocca_alpha(inst)  # 4LB = 5: nothing completes after it
    assert kept.cluster.tolist() == [1] * 5 and kept.start.tolist() == [0, 1, 2, 3, 4]
    assert kept.algorithm == "mocca4"
    # alpha = 2: D = floor(5/2) = 2; jobs 2, 3, 4 (ending 3, 4, 5) move. HF list (ties by index): 2, 3, 4; at
    # e = 2 the smallest cluster (1) is busy on [1, 2) with job 1, cluster 0 takes all three on [1, 2).
    moved = mocca_alpha(inst, alpha=2.0)
    assert moved.cluster.tolist() == [1, 1, 0, 0, 0] and moved.start.tolist() == [0, 1, 1, 1, 1]
    validate_mosp_schedule(inst, moved, makespan_bound=2)


def test_high_jobs_first_and_smallest_cluster_first() -> None:
    # Clusters 4, 2, 2; org 0 owns the 4 and all jobs: (p, q) = (4, 4), (3, 2), (3, 1), (2, 1). HF local: the
    # (4,4) at 0, the three others together at 4 (makespan 7). LB = max(27/8, 4) = 4; alpha = 1.5: D = 6.
    # Jobs 1 and 2 end at 7 > 6 and move; job 3 ends at 6 and stays. HF list: job 1 (q=2), then job 2.
    # Clusters are tried smallest first, M_N..M_1 = 2, 1, 0: job 1 on cluster 2 at [3, 6); cluster 2 is then
    # full there, so job 2 goes to cluster 1 at [3, 6).
    inst = MospInstance.from_arrays(procs=[4, 2, 2], owner=[0, 0, 0, 0], runtime=[4, 3, 3, 2], width=[4, 2, 1, 1])
    assert local_schedule(inst).start.tolist() == [0, 4, 4, 4]
    result = mocca_alpha(inst, alpha=1.5)
    assert result.cluster.tolist() == [0, 2, 1, 0] and result.start.tolist() == [0, 3, 3, 4]
    validate_mosp_schedule(inst, result, makespan_bound=6)
    # The same jobs with the two moved ones swapped in index order: the HF list still places the wider first.
    inst = MospInstance.from_arrays(procs=[4, 2, 2], owner=[0, 0, 0, 0], runtime=[4, 3, 3, 2], width=[4, 1, 2, 1])
    result = mocca_alpha(inst, alpha=1.5)
    assert result.cluster.tolist() == [0, 1, 2, 0] and result.start.tolist() == [0, 3, 3, 4]


def test_hf_fallback_replaces_worse_local_schedules_only() -> None:
    # Two clusters of 3. Org 0: (p, q) = (3, 2), (1, 1), (1, 1), (3, 1). HF: (3,2)@0 and (1,1)@0, (1,1)@1,
    # (3,1)@2: makespan 5. SPT: both (1,1)@0 and (3,1)@0, then (3,2)@1: makespan 4, better: kept.
    # Org 1: (2, 2), (2, 2), (1, 1), (1, 1). HF: (2,2)@0 and (1,1)@0, (1,1)@1, (2,2)@2: makespan 4.
    # SPT: both (1,1)@0, (2,2)@1, (2,2)@3: makespan 5, worse than HF: replaced by HF.
    inst = MospInstance.from_arrays(procs=[3, 3], owner=[0, 0, 0, 0, 1, 1, 1, 1],
                                    runtime=[3, 1, 1, 3, 2, 2, 1, 1], width=[2, 1, 1, 1, 2, 2, 1, 1])
    spt, hf = local_schedule(inst, order="spt"), local_schedule(inst, order="hf")
    assert org_makespans(inst, spt).tolist() == [4, 5] and org_makespans(inst, hf).tolist() == [5, 4]
    result = mocca_alpha(inst, local_order="spt", alpha=100.0)  # a threshold nothing reaches
    assert result.start.tolist() == [1, 0, 0, 0, 0, 2, 0, 1]
    assert result.start[:4].tolist() == spt.start[:4].tolist() and result.start[4:].tolist() == hf.start[4:].tolist()
    assert mocca_alpha(inst, local_order="spt", alpha=100.0, hf_fallback=False).start.tolist() == spt.start.tolist()


def test_fallback_when_local_makespan_reaches_alpha_lb() -> None:
    # An org whose local schedule is better than HF but ends at or after αLB is replaced by HF all the same.
    # One cluster of 2: jobs (p, q) = (1, 1), (2, 2), (1, 1). HF: (2,2)@0, (1,1)x2@2: 3. LB = max(6/2, 2) = 3.
    inst = MospInstance.from_arrays(procs=[2], owner=[0, 0, 0], runtime=[1, 2, 1], width=[1, 2, 1])
    given_local = MospSchedule(cluster=np.array([0, 0, 0]), start=np.array([0, 1, 0]))  # makespan 3 = HF's
    at_threshold = mocca_alpha(inst, alpha=1.0, local=given_local)  # 3 is not < 1 * LB = 3: HF replaces it
    assert at_threshold.start.tolist() == local_schedule(inst).start.tolist()
    below = mocca_alpha(inst, alpha=1.5, local=given_local)  # 3 < 4.5 and 3 <= 3: kept
    assert below.start.tolist() == [0, 1, 0]


def test_jobs_that_fit_nowhere_before_the_deadline_keep_their_local_place() -> None:
    # One processor, two jobs of length 2 (LB = 4). With alpha = 0.25, D = 1: both must move, neither fits
    # before 1, so both keep their local places (the documented deviation).
    inst = MospInstance.from_arrays(procs=[1], owner=[0, 0], runtime=[2, 2], width=[1, 1])
    result = mocca_alpha(inst, alpha=0.25)
    assert result.cluster.tolist() == [0, 0] and result.start.tolist() == [0, 2]
    validate_mosp_schedule(inst, result)
    # Two clusters (2 and 1 processors): org 0's wide job (q = 2, p = 4) fits only on cluster 0, where it stays.
    inst = MospInstance.from_arrays(procs=[2, 1], owner=[0, 1, 1, 1], runtime=[4, 1, 1, 1], width=[2, 1, 1, 1])
    result = mocca_alpha(inst, alpha=1.0, hf_fallback=False)  # LB = 4, D = 4: org 1's jobs end by 3 anyway
    validate_mosp_schedule(inst, result)
    assert result.start[0] == 0 and result.cluster[0] == 0


@given(mosp_instances(max_orgs=4, max_jobs=12), st.sampled_from([0.5, 1.0, 1.5, 2.0]),
       st.sampled_from(["hf", "lpt", "spt", "rnd"]))
def test_small_thresholds_never_break_the_local_constraint(inst: MospInstance, alpha: float, order: str) -> None:
    """Far outside Prop. 10 (α < 4, no HF fall-back, jobs not fitting every cluster) jobs that fit nowhere before
    D keep their local place, so every organization still finishes no later than alone."""
    result = mocca_alpha(inst, alpha=alpha, local_order=order, seed=3, hf_fallback=False)
    validate_mosp_schedule(inst, result, local_order=order, seed=3)


def test_given_local_schedule_is_checked() -> None:
    inst = MospInstance.from_arrays(procs=[2, 2], owner=[0, 1], runtime=[1, 1], width=[1, 1])
    with pytest.raises(ConfigError, match="owner's cluster"):
        mocca_alpha(inst, local=MospSchedule(cluster=np.array([1, 1]), start=np.array([0, 0])))
    inst = MospInstance.from_arrays(procs=[2], owner=[0, 0], runtime=[2, 2], width=[2, 1])
    with pytest.raises(ConfigError, match="more processors"):
        mocca_alpha(inst, local=MospSchedule(cluster=np.array([0, 0]), start=np.array([0, 1])))
    with pytest.raises(ConfigError, match="alpha"):
        mocca_alpha(inst, alpha=0.0)


@given(mosp_instances(max_orgs=4, max_jobs=14, fit_everywhere=True), st.sampled_from(["hf", "lpt", "spt", "rnd"]),
       st.integers(0, 3))
def test_prop10_within_4lb_and_local_constraint(inst: MospInstance, order: str, seed: int) -> None:
    """Prop. 10: every job placed, C_max <= 4LB, no organization worse off than with its local policy."""
    result = mocca_alpha(inst, local_order=order, seed=seed)
    validate_mosp_schedule(inst, result, local_order=order, seed=seed, makespan_bound=4 * inst.lower_bound())
    local = local_schedule(inst, order=order, seed=seed)
    cut = deadline(inst, 4.0)
    unmoved = local.start + inst.runtime <= cut
    if order == "hf":  # jobs completing by 4LB keep their place (HF needs no fall-back)
        assert result.start[unmoved].tolist() == local.start[unmoved].tolist()
        assert (result.cluster[unmoved] == inst.owner[unmoved]).all()


@given(mosp_instances(max_orgs=4, max_jobs=14, fit_everywhere=True), st.sampled_from([3.0, 4.0]))
def test_moved_jobs_end_by_the_deadline(inst: MospInstance, alpha: float) -> None:
    result = mocca_alpha(inst, alpha=alpha)
    local = local_schedule(inst)
    moved = local.start + inst.runtime > deadline(inst, alpha)
    if alpha == 4.0:  # Prop. 10: all fit, so every moved job ends by 4LB
        assert (result.start[moved] + inst.runtime[moved] <= deadline(inst, alpha)).all()
    assert makespan(inst, result) <= max(makespan(inst, local), deadline(inst, alpha))


def test_prop10_on_loaded_organizations() -> None:
    """Zipf-like owners overload organization 0, so jobs are really cut and moved (the hypothesis strategy alone
    could mostly draw instances where nothing ends after 4LB)."""
    rng = np.random.default_rng(17)
    n_moved = 0
    for _ in range(200):
        n_orgs, n = int(rng.integers(2, 6)), int(rng.integers(5, 40))
        procs = rng.integers(1, 9, n_orgs)
        owner = np.minimum(rng.geometric(0.7, n) - 1, n_orgs - 1)
        inst = MospInstance.from_arrays(procs, owner, rng.integers(1, 20, n), rng.integers(1, procs.min() + 1, n))
        for order in ("hf", "lpt", "spt", "rnd"):
            result = mocca_alpha(inst, local_order=order, seed=5)
            local = local_schedule(inst, order=order, seed=5)
            n_moved += int((result.cluster != local.cluster).any())
            validate_mosp_schedule(inst, result, local_order=order, seed=5, makespan_bound=4 * inst.lower_bound())
    assert n_moved >= 100
