"""The Slurm orders of the backfilling engine (``slurm-fair-tree``, ``slurm-classic``): a tick worked by hand, the
compiled usage and fair-share factors against the plain-Python `fairsched.fairshare` functions at every pause,
whole schedules against the slow twin (tests/naive/slurm_naive.py) under every backfilling rule with trees and
non-default parameters, and the parameter checks. The generic ticked-order tests (tests/test_backfill_ticked.py)
also run both orders with their defaults."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairsched.backfill import BackfillJobs, simulate
from fairsched.backfill.engine import BackfillSimulator
from fairsched.backfill.policies import backfill_names
from fairsched.backfill.policies._slurm import state_of
from fairsched.backfill.validate import check_backfill_schedule
from fairsched.errors import ConfigError
from fairsched.fairshare import DecayConfig, UsageJob, classic, fair_tree, replay_usage
from fairsched.workload.share_tree import Association, ShareTree, share_tree
from tests.naive.slurm_naive import simulate_slurm_naive

SLURM = ("slurm-fair-tree", "slurm-classic")

# -- a tick by hand ---------------------------------------------------------------------------------------------
# 2 CPUs, two accounts with equal shares (default tree: root, org0, user0, org1, user1), ticks every 10 s, no
# decay (half_life 0), weights fairshare 10000 and age 1000, PriorityMaxAge 100 s. Job 0 (org 0) takes both CPUs
# over [0, 20). Jobs 1 (org 0), 2 (org 1) arrive at 1, 2 with the factors of tick 0 (no usage: 1 for everyone)
# and age 0: priority 10000 each. Tick 10: org 0 used 10 s × 2 CPUs = 20. Fair Tree: LevelFS(org0) = 0.5 / (20 /
# 20) = 0.5, LevelFS(org1) = inf, so user1 ranks 2/2 = 1 and user0 1/2; classic: UE(user0) = 1, S = 0.5,
# F = 2^(-1/0.5) = 0.25, user1 2^0 = 1. Priorities: job 1 (waited 9 s) 90 + 5000 (classic 2500), job 2 (8 s)
# 80 + 10000. Job 3 (org 1) arrives at 15: 0 + 10000. Order: 2, 3, 1, so 2 starts at 20 (after job 0), 3 at 25,
# 1 at 26; FCFS would start 1, 2, 3 at 20, 25, 30.
HAND = BackfillJobs.from_arrays(submit=[0, 1, 2, 15], run=[20, 5, 5, 1], procs=[2, 2, 2, 2], n_processors=2)
HAND_PARAMS = {"org": [0, 0, 1, 1], "calc_period": 10, "half_life": 0, "max_age": 100}


@pytest.mark.parametrize(("order", "user0", "job1"), [("slurm-fair-tree", 0.5, 5090.0),
                                                      ("slurm-classic", 0.25, 2590.0)])
def test_a_tick_by_hand(order: str, user0: float, job1: float) -> None:
    sim = BackfillSimulator(HAND, order, "easy", order_params=HAND_PARAMS)
    assert sim.run(pause_before=3)
    state = state_of(sim.tick.opar, sim.tick.ost)
    assert state["last_tick"] == 10.0
    assert state["usage"].tolist() == [20.0, 20.0, 20.0, 0.0, 0.0]
    assert (state["fairshare"][2], state["fairshare"][4]) == (user0, 1.0)
    if order == "slurm-fair-tree":
        assert (state["level_fs"][1], state["level_fs"][3]) == (0.5, math.inf)
    assert (sim.key[1], sim.key[2]) == (-job1, -10080.0)
    sim.run()
    assert sim.schedule()["start"].tolist() == [0, 26, 20, 25]
    assert simulate(HAND, order="fcfs", backfill="easy").schedule["start"].tolist() == [0, 20, 25, 30]


def test_usage_decays_between_ticks() -> None:
    """Half-life 10 s, ticks every 10 s: d = 1 − 0.693/10 = 0.9307. Job 0 (2 CPUs) adds 10 · d^10 · 2 at tick 10;
    at tick 20 that decays by d^10 and the second period adds the same again."""
    jobs = BackfillJobs.from_arrays(submit=[0, 25], run=[20, 1], procs=[2, 1], n_processors=2)
    sim = BackfillSimulator(jobs, "slurm-fair-tree", "easy", order_params={"calc_period": 10, "half_life": 10})
    assert sim.run(pause_before=1)
    d = 1 - 0.693 / 10
    piece = 10 * d ** 10 * 2
    assert state_of(sim.tick.opar, sim.tick.ost)["usage"][0] == pytest.approx(piece * d ** 10 + piece, rel=1e-15)


# -- the compiled state against fairsched.fairshare ---------------------------------------------------------------
def tree_of(kind: int, shares: list[int | str]) -> ShareTree:
    """Three shapes: flat accounts; sub-accounts (one with `parent` shares when asked); several users per account."""
    s = [x if x == "parent" else int(x) for x in shares]
    if kind == 0:
        assocs = [Association("a", parent="root", shares=s[0]), Association("a", "u1", shares=1),
                  Association("b", parent="root", shares=s[1]), Association("b", "u2", shares=1),
                  Association("c", parent="root", shares=s[2]), Association("c", "u3", shares=1)]
    elif kind == 1:
        assocs = [Association("a", parent="root", shares=s[0] if s[0] != "parent" else 1),
                  Association("a1", parent="a", shares=s[1]), Association("a1", "u1", shares=2),
                  Association("a1", "u2", shares=1), Association("a2", parent="a", shares=s[2]),
                  Association("a2", "u3", shares=1), Association("b", parent="root", shares=3),
                  Association("b", "u4", shares=1)]
    else:
        assocs = [Association("a", parent="root", shares=s[0] if s[0] != "parent" else 2),
                  Association("a", "u1", shares=s[1] if s[1] != "parent" else 1), Association("a", "u2", shares=1),
                  Association("b", parent="root", shares=s[2] if s[2] != "parent" else 1),
                  Association("b", "u3", shares=1), Association("b", "u4", shares="parent")]
    return share_tree(assocs)


@st.composite
def slurm_cases(draw: st.DrawFn) -> dict:
    n_procs = draw(st.integers(1, 6))
    n = draw(st.integers(1, 12))
    submit = sorted(draw(st.lists(st.integers(0, draw(st.sampled_from([5, 20, 60]))), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(1, 15), min_size=n, max_size=n))
    slack = draw(st.lists(st.sampled_from([0, 0, 2, 9]), min_size=n, max_size=n))
    jobs = BackfillJobs.from_arrays(submit, run, draw(st.lists(st.integers(1, n_procs), min_size=n, max_size=n)),
                                    [r + s for r, s in zip(run, slack, strict=True)], n_processors=n_procs)
    kind = draw(st.integers(0, 2))
    tree = tree_of(kind, draw(st.lists(st.sampled_from([0, 1, 2, 3, "parent"]), min_size=3, max_size=3)))
    users = [i for i, a in enumerate(tree.associations) if a.is_user]
    params = {"tree": tree, "assoc": np.array(draw(st.lists(st.sampled_from(users), min_size=n, max_size=n))),
              "calc_period": draw(st.sampled_from([1, 3, 7])),
              "half_life": draw(st.sampled_from([0, 5, 30, 604800])),
              "weights": {"fairshare": draw(st.sampled_from([1, 100, 10000])),
                          "age": draw(st.sampled_from([0, 7, 1000])), "jobsize": draw(st.sampled_from([0, 50]))},
              "max_age": draw(st.sampled_from([10, 604800])), "favor_small": draw(st.booleans())}
    if draw(st.booleans()):
        params["billing"] = np.array(draw(st.lists(st.sampled_from([0.5, 1, 3]), min_size=n, max_size=n)))
    return {"jobs": jobs, "params": params, "damping": draw(st.sampled_from([1, 2, 5]))}


def replayed(sim: BackfillSimulator, tree: ShareTree, assoc, billing, decay: DecayConfig, until: float) -> np.ndarray:
    """replay_usage over the jobs started in `sim`, in start order (start, decision), a running one without end."""
    running = set(sim.running_jobs().tolist())
    started = sorted(np.flatnonzero(sim.out_start >= 0), key=lambda j: (sim.out_start[j], sim.out_seq[j]))
    jobs = [UsageJob(int(assoc[j]), float(sim.out_start[j]),
                     math.inf if j in running else float(sim.out_start[j] + sim.jobs.run[j]), float(billing[j]))
            for j in started]
    return replay_usage(tree, jobs, until=until, since=float(sim.jobs.submit[0]), config=decay)


@settings(max_examples=60, deadline=None)
@given(case=slurm_cases(), order=st.sampled_from(SLURM), backfill=st.sampled_from(backfill_names()))
def test_compiled_usage_and_factors_equal_the_plain_functions(case: dict, order: str, backfill: str) -> None:
    """At every arrival: the usage equals replay_usage up to now, and the factors (and LevelFS) of the last tick
    equal fair_tree / classic on replay_usage up to that tick, to 1e-9 relative."""
    jobs, params = case["jobs"], dict(case["params"])
    if order == "slurm-classic":
        params["damping"] = case["damping"]
    tree, assoc = params["tree"], params["assoc"]
    billing = params.get("billing", jobs.procs)
    decay = DecayConfig(calc_period=float(params["calc_period"]), half_life=float(params["half_life"]))
    sim = BackfillSimulator(jobs, order, backfill, order_params=params)
    checked = 0
    for job in range(1, jobs.n_jobs):
        sim.run(pause_before=job)
        state = state_of(sim.tick.opar, sim.tick.ost)
        usage_now = replayed(sim, tree, assoc, billing, decay, float(sim.now))
        np.testing.assert_allclose(state["usage"], usage_now, rtol=1e-9, atol=0)
        at_tick = tree.with_usage(replayed(sim, tree, assoc, billing, decay, state["last_tick"]))
        table = fair_tree(at_tick) if order == "slurm-fair-tree" else classic(at_tick, damping=params["damping"])
        rows = [i for i, row in enumerate(table.rows) if row.fairshare is not None]
        np.testing.assert_allclose(state["fairshare"][rows], [table.rows[i].fairshare for i in rows], rtol=1e-9)
        if order == "slurm-fair-tree":
            shown = [i for i, row in enumerate(table.rows) if row.level_fs is not None]
            np.testing.assert_allclose(state["level_fs"][shown], [table.rows[i].level_fs for i in shown], rtol=1e-9)
        checked += 1
    assert checked == jobs.n_jobs - 1


# -- whole schedules against the twin ---------------------------------------------------------------------------
def twin_starts(jobs: BackfillJobs, order: str, backfill: str, params: dict) -> list[int]:
    p = dict(params)
    weights = p.pop("weights", None)
    period = p.pop("calc_period")
    return simulate_slurm_naive(jobs.submit, jobs.run, jobs.procs, jobs.requested, jobs.n_processors, order, backfill,
                                period=period, weights=weights, **p).start


@settings(max_examples=80, deadline=None)
@given(case=slurm_cases(), order=st.sampled_from(SLURM), backfill=st.sampled_from(backfill_names()))
def test_engine_equals_the_twin_with_trees_and_parameters(case: dict, order: str, backfill: str) -> None:
    params = dict(case["params"])
    if order == "slurm-classic":
        params["damping"] = case["damping"]
    jobs = case["jobs"]
    result = simulate(jobs, order=order, backfill=backfill, order_params=params)
    assert check_backfill_schedule(result.schedule, jobs, order=order, backfill=backfill,
                                   calc_period=params["calc_period"]) == []
    assert result.schedule["start"].tolist() == twin_starts(jobs, order, backfill, params)


@pytest.mark.parametrize("order", SLURM)
def test_engine_equals_the_twin_with_daily_resets(order: str) -> None:
    """PriorityUsageResetPeriod=daily: jobs around midnight (UTC) of 1 January 2000; ticks every 600 s."""
    midnight = 946684800
    rng = np.random.default_rng(7)
    n = 30
    submit = np.sort(midnight - 7200 + rng.integers(0, 14400, n))
    run = rng.integers(300, 3000, n)
    jobs = BackfillJobs.from_arrays(submit, run, rng.integers(1, 5, n), run + rng.integers(0, 600, n),
                                    n_processors=6)
    params = {"org": rng.integers(0, 3, n), "shares": [1, 2, 3], "calc_period": 600, "half_life": 3600,
              "reset_period": "daily"}
    moved = 0
    for backfill in backfill_names():
        got = simulate(jobs, order=order, backfill=backfill, order_params=params).schedule["start"].tolist()
        assert got == twin_starts(jobs, order, backfill, params), backfill
        moved += got != simulate(jobs, order=order, backfill=backfill,
                                 order_params={**params, "reset_period": "none"}).schedule["start"].tolist()
    assert moved >= 2  # the reset matters here


# -- parameters --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("order", "params", "message"), [
    ("slurm-fair-tree", {"shares": [1.5, 1]}, "integer >= 0 per organization"),
    ("slurm-fair-tree", {"org": [0, 1, -1, 0]}, "one 0-based integer"),
    ("slurm-fair-tree", {"org": [0, 1, 2, 3], "shares": [1, 1]}, r"one integer >= 0 per organization \(4\)"),
    ("slurm-fair-tree", {"damping": 2}, "has no parameter"),
    ("slurm-classic", {"damping": 0}, "must be > 0"),
    ("slurm-classic", {"weights": {"fairshare": 1, "qos": 5}}, "weights must map"),
    ("slurm-classic", {"weights": {"age": -1}}, "PriorityWeight age"),
    ("slurm-classic", {"half_life": -1}, "half_life must be a number"),
    ("slurm-classic", {"reset_period": "hourly"}, "unknown reset_period"),
    ("slurm-classic", {"billing": [1, 2]}, "billing must give one"),
    ("slurm-fair-tree", {"assoc": [0, 0, 0, 0]}, "give tree= too"),
    ("slurm-fair-tree", {"tree": tree_of(0, [1, 1, 1]), "assoc": [2, 2, 1, 2]}, "must name user associations"),
    ("slurm-fair-tree", {"tree": tree_of(0, [1, 1, 1]), "org": [0, 0, 0, 0]}, "not org= or shares="),
])
def test_bad_parameters_are_refused(order: str, params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        simulate(HAND, order=order, backfill="easy", order_params=params)
