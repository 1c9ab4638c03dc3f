"""psi_sp in closed form (SPAA'13 Eq. (3)) against the paper's Fig. 1 and a unit-by-unit brute force."""

from __future__ import annotations

import numpy as np
import pytest

from fairsched.online.engine import OnlineSimulator
from fairsched.online.view import Assignment
from fairsched.scenario import scenario_from_arrays


def psi_brute_force(starts, sizes, t: int) -> int:
    """Every unit executed in slot [i, i+1) with i < t is worth t - i (SPAA'13 Eq. (3), unit by unit)."""
    return sum(t - i for s, p in zip(starts, sizes, strict=True) for i in range(s, min(s + p, t)))


# SPAA'13 Fig. 1: 3 machines, all jobs released at 0. Organization 1 (here 0) has jobs of sizes
# 3,4,3,6,3,6,3,3,4 started at 0,0,0,3,3,4,6,9,10; organization 2 (here 1) one job of size 5 started at 9.
FIG1_SIZES = [3, 4, 3, 6, 3, 6, 3, 3, 4]
FIG1_STARTS = [0, 0, 0, 3, 3, 4, 6, 9, 10]


@pytest.mark.parametrize(("t", "expected"), [(13, 262), (14, 297)])
def test_fig1_brute_force_matches_paper(t: int, expected: int) -> None:
    assert psi_brute_force(FIG1_STARTS, FIG1_SIZES, t) == expected


def test_fig1_engine_closed_form_matches_paper() -> None:
    """Drive the engine through Fig. 1's exact schedule and read psi at t = 13 and 14."""
    sizes = [*FIG1_SIZES, 5]
    orgs = [0] * 9 + [1]
    scenario = scenario_from_arrays(release=[0] * 10, processing_time=sizes, org=orgs, machines_per_org=[3, 0])
    # Fig. 1's schedule as (time, organizations started then); FIFO order of org 0 is its job order.
    plan = {0: [0, 0, 0], 3: [0, 0], 4: [0], 6: [0], 9: [0, 1], 10: [0]}
    sim = OnlineSimulator(scenario)
    psi_at = {}
    while (t := sim.next_event_time()) is not None:
        for probe in (13, 14):
            if sim.now < probe <= t:
                sim.advance_to(probe)
                psi_at[probe] = sim.psi.tolist()
        sim.advance_to(t)
        sim.process_events()
        if t in plan:
            sim.apply(Assignment(orgs=np.array(plan[t])))
    assert psi_at[13][0] == 262
    assert psi_at[14] == [297, 15]


def test_closed_form_equals_brute_force_on_random_schedules() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(1, 12))
        starts = rng.integers(0, 20, n)
        sizes = rng.integers(1, 10, n)
        order = np.argsort(starts, kind="stable")
        starts, sizes = starts[order], sizes[order]
        scenario = scenario_from_arrays(release=starts, processing_time=sizes, org=[0] * n, machines_per_org=[n])
        sim = OnlineSimulator(scenario)
        for t in range(0, 35):
            sim.advance_to(t)
            sim.process_events()
            if sim.needs_decision():
                sim.apply(Assignment(orgs=np.zeros(min(sim.n_free, sim.total_waiting), dtype=np.int64)))
            assert sim.psi[0] == psi_brute_force(starts.tolist(), sizes.tolist(), t)
