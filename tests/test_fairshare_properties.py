"""Invariants of the fair-share arithmetic (hypothesis), and hand-computed decay and priority cases.

Scaling is tested with integer factors on integer shares and usages: then c*s / (c*S) and s / S are the same
rational number, correctly rounded to the same double, so every column must be *equal*, not merely close (with
real factors a LevelFS tie could break differently in the last bit).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.errors import ConfigError
from fairsched.fairshare import classic, fair_tree
from fairsched.fairshare.decay import DecayConfig, UsageJob, billing, decay_factor, job_usage, replay_usage
from fairsched.fairshare.priority import PriorityConfig, age_factor, job_priority, job_size_factor, queue_order
from fairsched.workload.share_tree import PARENT, Association, ShareTree, share_tree

SHARES = st.one_of(st.integers(0, 6), st.just(PARENT))


@st.composite
def trees(draw: st.DrawFn) -> ShareTree:
    """root -> 1-3 accounts -> 0-2 sub-accounts; 1-3 users per account; shares 0-6 or parent; usage 0-50."""
    assocs = []
    for a in range(draw(st.integers(1, 3))):
        accounts = [(f"a{a}", "root")] + [(f"a{a}s{s}", f"a{a}") for s in range(draw(st.integers(0, 2)))]
        for name, parent in accounts:
            assocs.append(Association(name, parent=parent, shares=draw(SHARES)))
            for u in range(draw(st.integers(1, 3))):
                assocs.append(Association(name, f"u{u}", shares=draw(SHARES), raw_usage=draw(st.integers(0, 50))))
    return share_tree(assocs)


def _scaled(tree: ShareTree, *, shares: int = 1, usage: int = 1) -> ShareTree:
    return share_tree([Association(a.account, a.user, a.parent, a.shares if a.shares == PARENT else a.shares * shares,
                                   None if a.raw_usage is None else a.raw_usage * usage) for a in tree.associations])


def _columns(table: object, *, with_usage: bool = True) -> list[tuple[object, ...]]:
    return [(r.norm_shares, r.effective_usage if with_usage else 0, r.norm_usage, r.fairshare, r.level_fs)
            for r in table.rows]  # type: ignore[attr-defined]


@given(trees(), st.integers(2, 9))
def test_scaling_shares_changes_nothing(tree: ShareTree, factor: int) -> None:
    scaled = _scaled(tree, shares=factor)
    assert _columns(fair_tree(scaled)) == _columns(fair_tree(tree))
    assert [r.fairshare for r in classic(scaled).rows] == pytest.approx([r.fairshare for r in classic(tree).rows],
                                                                        rel=1e-12, abs=1e-300)


@given(trees(), st.integers(2, 9))
def test_scaling_usage_changes_nothing_under_fair_tree(tree: ShareTree, factor: int) -> None:
    scaled = fair_tree(_scaled(tree, usage=factor))
    assert _columns(scaled) == _columns(fair_tree(tree))
    assert [r.raw_usage for r in scaled.rows] == [factor * r.raw_usage for r in fair_tree(tree).rows]


@given(trees())
def test_fair_tree_factors_are_ranks(tree: ShareTree) -> None:
    factors = [r.fairshare for r in fair_tree(tree).rows if r.user is not None]
    n = len(factors)
    assert factors and all(f is not None and 0 < f <= 1 and math.isclose(f * n, round(f * n)) for f in factors)
    assert max(factors) == 1.0  # the first user met always gets rank N


@given(half_life=st.floats(3600, 30 * 86400), period=st.floats(60, 3600), run=st.floats(1, 60))
def test_one_half_life_halves_a_single_jobs_usage(half_life: float, period: float, run: float) -> None:
    """Stated tolerance: the usage is read at the last tick <= one half-life (at most one period early), and it was
    added at the job's end or at the tick that closes it (up to `run` later than the job's start, as when
    run = period = 60 s and H = 3601 s: added at 60, read at 3600), so it is larger by up to d^-(period + run);
    Slurm's d = 1 - 0.693/H gives d^H = 0.50007... rather than 0.5 (within 1e-4 for H >= 1 h)."""
    tree = share_tree([Association("a", parent="root"), Association("a", "u")])
    config = DecayConfig(calc_period=period, half_life=half_life)
    job = [UsageJob(assoc=2, start=0.0, end=run, billing=1.0)]
    added = replay_usage(tree, job, until=run, config=config)
    later = replay_usage(tree, job, until=half_life, config=config)
    ratio = later[2] / added[2]
    d = decay_factor(half_life)
    assert added[2] == pytest.approx(job_usage(run, 1.0, d)) and later[0] == later[1] == later[2]
    assert 0.5 - 1e-4 <= ratio <= (0.5 + 1e-4) * d ** -(period + run)


def test_decay_by_hand() -> None:
    """Half-life 100 s (d = 0.99307), ticks every 10 s; a 2-CPU job from 5 to 25 s, a 1-CPU one from 12 to 15 s."""
    tree = share_tree([Association("a", parent="root"), Association("a", "x"), Association("a", "y")])
    d = 1 - 0.693 / 100
    jobs = [UsageJob(2, 5.0, 25.0, 2.0), UsageJob(3, 12.0, 15.0, 1.0)]
    usage = replay_usage(tree, jobs, until=30.0, config=DecayConfig(calc_period=10.0, half_life=100.0))
    x = (5 * d ** 5 * 2) * d ** 10 + 10 * d ** 10 * 2  # ticks at 10 (5 s run), 20 (decay, then 10 s run)
    x = (x + 5 * d ** 5 * 2) * d ** 10  # its last 5 s when it ends at 25, then the tick at 30 decays
    y = 3 * d ** 3 * d ** 10 * d ** 10  # ends at 15 (3 s), decays at the ticks of 20 and 30
    assert usage[2] == pytest.approx(x, rel=1e-12) and usage[3] == pytest.approx(y, rel=1e-12)
    assert usage[0] == usage[1] == pytest.approx(x + y, rel=1e-12)


def test_reset_and_no_decay() -> None:
    tree = share_tree([Association("a", parent="root"), Association("a", "x")])
    job = [UsageJob(2, 0.0, 86400.0 * 3, 1.0)]
    flat = replay_usage(tree, job, until=86400.0 * 3, config=DecayConfig(calc_period=3600, half_life=0))
    assert flat[2] == 86400.0 * 3  # half-life 0: d = 1, usage is CPU-seconds
    daily = replay_usage(tree, job, until=86400.0 * 2.5, config=DecayConfig(calc_period=3600, half_life=0,
                                                                           reset_period="daily"))
    # reset at the tick of midnight (UTC) of day 2, before that tick adds the job's last hour (as Slurm: reset,
    # decay, then new usage), then 12 h more
    assert daily[2] == 3600 + 86400.0 * 0.5
    with pytest.raises(ConfigError, match="unknown PriorityUsageResetPeriod 'hourly'"):
        DecayConfig(reset_period="hourly")  # type: ignore[arg-type]


def test_billing() -> None:
    assert billing(16) == 16.0
    assert billing(16, {"mem": 64.0, "gres/gpu": 2}, {"cpu": 1.0, "mem": 0.25, "gres/gpu": 2.0}) == 36.0


def test_priority_factors_by_hand() -> None:
    config = PriorityConfig(weight_age=1000, weight_fairshare=10000, weight_job_size=500, max_age=100.0)
    assert age_factor(now=150.0, eligible=100.0, max_age=100.0) == 0.5
    assert age_factor(now=50.0, eligible=100.0, max_age=100.0) == 0.0
    assert age_factor(now=1000.0, eligible=100.0, max_age=100.0) == 1.0  # capped by PriorityMaxAge
    size = job_size_factor(cpus=16, nodes=2, cluster_cpus=64, cluster_nodes=8, config=config)
    assert size == (2 / 8 + 16 / 64) / 2
    small = job_size_factor(cpus=16, nodes=2, cluster_cpus=64, cluster_nodes=8,
                            config=PriorityConfig(favor_small=True))
    assert small == (6 / 8 + 48 / 64) / 2
    assert job_priority(config, age=0.5, fairshare=0.333333, job_size=size, nice=10) == 500 + 3333 + 125 - 10
    assert job_priority(config, nice=10_000) == 1  # floored at 1
    huge = PriorityConfig(weight_fairshare=4_000_000_000, weight_age=4_000_000_000)
    assert job_priority(huge, age=1.0, fairshare=1.0) == 2**32 - 1  # truncated to 32 bits


def test_queue_order_ties() -> None:
    order = queue_order([10, 20, 20, 20], [0.0, 5.0, 3.0, 3.0], [1, 2, 4, 3])
    assert order.tolist() == [3, 2, 1, 0]  # priority, then earlier submit, then smaller job id
