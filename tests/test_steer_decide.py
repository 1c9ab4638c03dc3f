"""`fairsched steer`'s pure decision: hand-computed games, the level -> nice map, idempotence, bounds (no Slurm)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairsched.errors import ConfigError
from fairsched.slurm.steer_decide import (
    PendingJob,
    SteerConfig,
    SteerState,
    UsedJob,
    assess,
    decide,
    nice_of_level,
    restore,
)

# Three accounts, one CPU each, utilities at t = 4. a ran a 2-CPU job on [0, 4), b a 1-CPU job on [0, 4), c nothing.
# ψsp(job on q CPUs for 4 s, started at 0, at t = 4) = q·(4·4 − 4·3/2) = 10q: ψ = (20, 10, 0); p_tot = 8 + 4 = 12.
# Coalition values (FCFS + EASY on the coalition's CPUs; both jobs submitted at 0, a's first):
#   v(a) = 0 (its job needs 2 CPUs), v(b) = 10, v(c) = 0, v(ab) = 20 (a's job first, b's waits until 4),
#   v(ac) = 20, v(bc) = 10, v(abc) = 30.
# φ_a = 1/3·0 + 1/6·(10 + 20) + 1/3·20 = 35/3; φ_b = 1/3·10 + 1/6·(20 + 10) + 1/3·10 = 35/3;
# φ_c = 1/3·0 + 1/6·(20 + 0) + 1/3·10 = 20/3 (Σ = 30 = v(abc)).
# (φ − ψ)/p_tot: a (35/3 − 20)/12 = −25/36, b (35/3 − 10)/12 = 5/36, c (20/3)/12 = 20/36: c is owed most, a least.
USED = (UsedJob("a", 0, 0, 4, 2, 4), UsedJob("b", 0, 0, 4, 1, 4))
SHARES = {"a": 1, "b": 1, "c": 1}


def state(pending: tuple[PendingJob, ...], **changes: object) -> SteerState:
    return replace(SteerState(now=4, n_cpus=3, shares=SHARES, jobs=USED, pending=pending), **changes)


ALL_WAITING = (PendingJob("1", "a", 0), PendingJob("2", "b", 0), PendingJob("3", "c", 0), PendingJob("4", "a", 7))


def test_hand_computed_game() -> None:
    standings = {s.account: s for s in assess(state(ALL_WAITING), SteerConfig())}
    assert [standings[a].psi for a in "abc"] == [20, 10, 0]
    assert [standings[a].phi for a in "abc"] == pytest.approx([35 / 3, 35 / 3, 20 / 3], abs=1e-12)
    assert [standings[a].lag for a in "abc"] == pytest.approx([-25 / 36, 5 / 36, 20 / 36], abs=1e-12)
    assert [standings[a].level for a in "abc"] == [2, 1, 0]
    assert [standings[a].nice for a in "abc"] == [10000, 0, -10000]


def test_accounts_that_received_more_yield() -> None:
    actions = decide(state(ALL_WAITING), SteerConfig(max_nice=500))
    assert [(a.job_id, a.old_nice, a.new_nice) for a in actions] == [("1", 0, 500), ("3", 0, -500), ("4", 7, 500)]
    assert all(a.command() == ("scontrol", "update", f"JobId={a.job_id}", f"Nice={a.new_nice}") for a in actions)
    assert actions[0].reason == "a: φ−ψ = -0.6944 s/unit, level 3 of 3"


def test_only_accounts_with_pending_jobs_take_levels() -> None:
    pending = (PendingJob("1", "a", 0), PendingJob("2", "b", 0))  # c (owed most) has nothing waiting
    assert [(a.job_id, a.new_nice) for a in decide(state(pending), SteerConfig())] == [("1", 10000), ("2", -10000)]


def test_without_the_right_to_lower_a_nice_the_levels_span_zero_to_max() -> None:
    config = SteerConfig(allow_negative=False)
    assert {a.job_id: a.new_nice for a in decide(state(ALL_WAITING), config)} == {"1": 10000, "2": 5000, "4": 10000}


def test_equal_accounts_share_a_level_and_get_zero() -> None:
    used = (UsedJob("a", 0, 0, 3, 1, 3), UsedJob("b", 0, 0, 3, 1, 3))
    s = SteerState(now=3, n_cpus=2, shares={"a": 1, "b": 1}, jobs=used,
                   pending=(PendingJob("1", "a", 50), PendingJob("2", "b", 0)))
    assert [(x.level, x.nice) for x in assess(s, SteerConfig())] == [(0, 0), (0, 0)]
    assert [(a.job_id, a.new_nice) for a in decide(s, SteerConfig())] == [("1", 0)]


def test_tolerance_merges_close_accounts() -> None:
    # c − b = 15/36 ≈ 0.417 and b − a = 30/36 ≈ 0.833 s/unit; the tolerance is a fraction of now = 4 s.
    levels = {tolerance: [s.level for s in assess(state(ALL_WAITING), SteerConfig(tolerance=tolerance))]
              for tolerance in (0.1, 0.11, 0.2, 0.25)}
    assert levels == {0.1: [2, 1, 0], 0.11: [1, 0, 0], 0.2: [1, 0, 0], 0.25: [0, 0, 0]}


def test_no_usage_in_the_window_means_no_steering() -> None:
    s = state(ALL_WAITING, jobs=())
    assert [x.nice for x in assess(s, SteerConfig())] == [0, 0, 0]
    assert [(a.job_id, a.new_nice) for a in decide(s, SteerConfig())] == [("4", 0)]


def test_unknown_accounts_and_running_jobs_are_left_alone() -> None:
    pending = (PendingJob("9", "root", 123), *ALL_WAITING)
    actions = decide(state(pending), SteerConfig())
    assert "9" not in {a.job_id for a in actions}
    assert {a.job_id for a in actions} <= {p.job_id for p in pending}  # running jobs are not even in the state


def test_idempotent_after_applying() -> None:
    s = state(ALL_WAITING)
    actions = decide(s, SteerConfig())
    assert actions
    target = {a.job_id: a.new_nice for a in actions}
    applied = replace(s, pending=tuple(replace(p, nice=target.get(p.job_id, p.nice)) for p in s.pending))
    assert decide(applied, SteerConfig()) == []


def test_fair_tree_boost_orders_by_level_fs() -> None:
    s = state(ALL_WAITING, level_fs={"a": 0.5, "b": float("inf"), "c": 2.0})
    standings = assess(s, SteerConfig(policy="fair-tree-boost"))
    assert [(x.account, x.level, x.nice) for x in standings] == [("a", 2, 10000), ("b", 0, -10000), ("c", 1, 0)]
    assert standings[1].reason == "b: LevelFS = +inf, level 1 of 3"


def test_sampled_shapley_keeps_the_order() -> None:
    standings = assess(state(ALL_WAITING), SteerConfig(exact_up_to=0, samples=400, seed=1))
    assert all(s.spread > 0 for s in standings)  # sampled: the 95% half-widths widen the ties
    exact = [-25 / 36, 5 / 36, 20 / 36]
    assert [s.lag for s in standings] == pytest.approx(exact, abs=max(4 * s.spread for s in standings))


def test_unequal_shares_give_cpus_by_the_largest_remainder() -> None:
    # a owns 2 of 3 CPUs (shares 2:1): alone it runs its 2-CPU job, v(a) = 20 = v(ab), v(b) = 0, so φ = ψ = (20, 0):
    # nobody is owed anything, one level, nice 0 (with 1 CPU each, a would owe b, as in the first test).
    s = SteerState(now=4, n_cpus=3, shares={"a": 2, "b": 1}, jobs=(UsedJob("a", 0, 0, 4, 2, 4),),
                   pending=(PendingJob("1", "a", 0), PendingJob("2", "b", 0)))
    assert [(x.phi, x.psi, x.nice) for x in assess(s, SteerConfig())] == [(20.0, 20.0, 0), (0.0, 0.0, 0)]


def test_nice_of_level() -> None:
    assert [nice_of_level(g, 5, 100) for g in range(5)] == [-100, -50, 0, 50, 100]
    assert [nice_of_level(g, 3, 7) for g in range(3)] == [-7, 0, 7]
    assert [nice_of_level(g, 4, 10) for g in range(4)] == [-10, -3, 3, 10]  # −10 + 20g/3 rounded half up
    assert nice_of_level(0, 1, 100) == 0


def test_restore_gives_back_only_what_steer_changed() -> None:
    pending = [PendingJob("7", "a", 10000), PendingJob("8", "b", 0), PendingJob("9", "c", -5)]
    actions = restore(pending, {"7": 3, "8": 0, "6": 1})
    assert [(a.job_id, a.old_nice, a.new_nice) for a in actions] == [("7", 10000, 3)]


@pytest.mark.parametrize(("changes", "message"), [
    ({"policy": "rand"}, "--policy 'rand': choose one of directcontr, fair-tree-boost"),
    ({"max_nice": 0}, "--max-nice 0: expected 1 to 2147483645"),
    ({"samples": 1}, "--samples 1"),
])
def test_config_errors(changes: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        SteerConfig(**changes)


def test_zero_shares_everywhere_is_an_error() -> None:
    with pytest.raises(ConfigError, match="every account has 0 shares"):
        assess(state(ALL_WAITING, shares={"a": 0, "b": 0, "c": 0}), SteerConfig())


# -- invariants on small random states --------------------------------------------------------------------------
_ACCOUNTS = ("a", "b", "c")


@st.composite
def states(draw: st.DrawFn) -> SteerState:
    n_jobs = draw(st.integers(0, 5))
    jobs = []
    for _ in range(n_jobs):
        submit = draw(st.integers(0, 6))
        start = submit + draw(st.integers(0, 3))
        run = draw(st.integers(1, 6))
        jobs.append(UsedJob(draw(st.sampled_from(_ACCOUNTS)), submit, start, run, draw(st.integers(1, 3)),
                            run + draw(st.integers(0, 2))))
    now = max([j.start + j.run for j in jobs], default=1)
    pending = tuple(PendingJob(str(i), draw(st.sampled_from(_ACCOUNTS)), draw(st.integers(-20, 20)))
                    for i in range(draw(st.integers(0, 5))))
    shares = {a: draw(st.integers(1, 3)) for a in _ACCOUNTS}
    return SteerState(now=now, n_cpus=draw(st.integers(3, 6)), shares=shares, jobs=tuple(jobs), pending=pending)


@settings(max_examples=40, deadline=None)
@given(states(), st.integers(1, 50), st.booleans())
def test_invariants(s: SteerState, max_nice: int, allow_negative: bool) -> None:
    config = SteerConfig(max_nice=max_nice, allow_negative=allow_negative, tolerance=0.0)
    standings = assess(s, config)
    actions = decide(s, config)
    low = -max_nice if allow_negative else 0
    assert all(low <= a.new_nice <= max_nice for a in actions)
    assert {a.job_id for a in actions} <= {p.job_id for p in s.pending}
    steered = [x for x in standings if x.nice is not None]
    for x in steered:  # a higher lag (owed more) never gets a higher nice
        assert all(x.nice <= y.nice for y in steered if Fraction(x.lag) > Fraction(y.lag))
    target = {a.job_id: a.new_nice for a in actions}
    applied = replace(s, pending=tuple(replace(p, nice=target.get(p.job_id, p.nice)) for p in s.pending))
    assert decide(applied, config) == []
