"""Hypothesis strategies for small online scenarios (≤ 4 organizations, ≤ 12 job records) and MOSP instances.

Releases are drawn inside a window whose length is itself drawn from {0, 2, 5, 20}: short windows are bursts,
so jobs (up to 12 records x 3 copies) usually outnumber machines (1..3 per organization) and policies have
real choices to make; `test_online_policies.test_strategies_generate_contention` checks that this happens often.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from fairsched.mosp.instance import MospInstance
from fairsched.scenario import Scenario, scenario_from_arrays

MAX_ORGS = 4
MAX_RECORDS = 12
MAX_RELEASE = 20
MAX_PROCESSING = 8
MAX_COPIES = 3
MAX_MACHINES_PER_ORG = 3
RELEASE_WINDOWS = (0, 2, 5, MAX_RELEASE)  # 0 first: hypothesis shrinks towards a burst at t = 0


def _processing_times(n: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(1, MAX_PROCESSING), min_size=n, max_size=n)


@st.composite
def scenario_arrays(draw: st.DrawFn, *, with_horizon: bool = False) -> dict[str, Any]:
    """Keyword arguments of `scenario_from_arrays` for one small scenario."""
    n_orgs = draw(st.integers(1, MAX_ORGS))
    n = draw(st.integers(1, MAX_RECORDS))
    window = draw(st.sampled_from(RELEASE_WINDOWS))
    return {
        "release": draw(st.lists(st.integers(0, window), min_size=n, max_size=n)),
        "processing_time": draw(_processing_times(n)),
        "org": draw(st.lists(st.integers(0, n_orgs - 1), min_size=n, max_size=n)),
        "machines_per_org": draw(st.lists(st.integers(1, MAX_MACHINES_PER_ORG), min_size=n_orgs, max_size=n_orgs)),
        "copies": draw(st.lists(st.integers(1, MAX_COPIES), min_size=n, max_size=n)),
        "horizon": draw(st.none() | st.integers(0, 30)) if with_horizon else None,
    }


def online_scenarios(*, with_horizon: bool = False) -> st.SearchStrategy[Scenario]:
    """Small scenarios; with a horizon t_end in 0..30 (or none) when `with_horizon`."""
    return scenario_arrays(with_horizon=with_horizon).map(lambda kwargs: scenario_from_arrays(**kwargs))


@st.composite
def scenario_pairs_differing_in_processing_times(draw: st.DrawFn) -> tuple[Scenario, Scenario]:
    """Two scenarios equal in everything (releases, owners, copies, machines) but the processing times."""
    kwargs = draw(scenario_arrays())
    other = dict(kwargs, processing_time=draw(_processing_times(len(kwargs["release"]))))
    return scenario_from_arrays(**kwargs), scenario_from_arrays(**other)


@st.composite
def mosp_instances(draw, *, max_orgs: int = 3, max_jobs: int = 10, max_procs: int = 6, max_runtime: int = 6,
                   fit_everywhere: bool = False) -> MospInstance:
    """Small instances; every job fits its owner's cluster (and every cluster with `fit_everywhere`)."""
    n_orgs = draw(st.integers(1, max_orgs))
    procs = draw(st.lists(st.integers(1, max_procs), min_size=n_orgs, max_size=n_orgs))
    n = draw(st.integers(1, max_jobs))
    owner = draw(st.lists(st.integers(0, n_orgs - 1), min_size=n, max_size=n))
    cap = [min(procs) if fit_everywhere else procs[k] for k in owner]
    width = [draw(st.integers(1, c)) for c in cap]
    runtime = draw(st.lists(st.integers(1, max_runtime), min_size=n, max_size=n))
    return MospInstance.from_arrays(procs, owner, runtime, width)
