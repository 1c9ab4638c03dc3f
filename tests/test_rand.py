"""RAND (SPAA'13 Algorithm 3 as a heuristic): kept coalitions, FIFO values against a naive twin, Prop. 5.4 for
unit-size jobs, convergence of the sampled contributions to the exact Shapley values, the paper's N = 15 and 75."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from fairsched.errors import ConfigError
from fairsched.online._coalitions import RULE_FAIR, RULE_FIFO, sampled_coalitions, simulate_coalitions
from fairsched.online.engine import simulate
from fairsched.online.policies import REGISTRY, get_policy
from fairsched.online.policies.rand import Rand, RandAntithetic, RandStratified
from fairsched.online.policies.ref import Ref
from fairsched.online.validate import validate_online_schedule
from fairsched.scenario import Scenario, build_scenario, scenario_from_arrays
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import window
from tests.conftest import trace_path
from tests.naive.ref_time_stepped import fifo_value
from tests.naive.shapley_brute_force import shapley_by_subsets


def random_scenario(seed: int, *, k: int | None = None, unit: bool = False, n: int = 30) -> Scenario:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5)) if k is None else k
    return scenario_from_arrays(release=rng.integers(0, 12, n), processing_time=np.ones(n, dtype=np.int64) if unit
                                else rng.integers(1, 9, n), org=rng.integers(0, k, n),
                                machines_per_org=rng.integers(1, 3, k))


def run_recorded(policy: Rand, scenario: Scenario, seed: int = 0):
    """The coalition simulation RAND runs in reset, with phi and every kept coalition's value recorded."""
    k = scenario.n_orgs
    org, before, weight = policy.terms(k, np.random.default_rng(seed))
    coalitions = sampled_coalitions(k, org, before, weight)
    return coalitions, simulate_coalitions(scenario.jobs, scenario.machines_per_org, coalitions, record=True)


# -- which coalitions are kept ------------------------------------------------------------------------------------
def test_kept_coalitions_are_the_prefixes_of_the_orderings_deduplicated() -> None:
    # Orderings (2, 0, 1) and (2, 1, 0): before 2: ∅; before 0: {2}, {2, 1}; before 1: {2, 0}, {2}.
    org = np.array([0, 1, 2, 0, 1, 2])
    before = np.array([0b100, 0b101, 0, 0b110, 0b100, 0])
    coalitions = sampled_coalitions(3, org, before, np.full(6, 0.5))
    fifo = coalitions.rules == RULE_FIFO
    assert sorted(coalitions.masks[fifo].tolist()) == [0b100, 0b101, 0b110, 0b111]  # {2}, {0,2}, {1,2}, grand
    assert coalitions.rules[coalitions.grand] == RULE_FAIR and coalitions.masks[coalitions.grand] == 0b111
    assert coalitions.grand == coalitions.masks.size - 1  # decided last at every time step
    pre = [-1 if i < 0 else int(coalitions.masks[i]) for i in coalitions.term_pre]
    post = [int(coalitions.masks[i]) for i in coalitions.term_post]
    assert pre == [0b100, 0b101, -1, 0b110, 0b100, -1]
    assert post == [0b101, 0b111, 0b100, 0b111, 0b110, 0b100]


@pytest.mark.parametrize("k", [2, 5, 9])
def test_at_most_n_times_k_minus_1_plus_2_coalitions_and_weights_average(k: int) -> None:
    policy = Rand(n_orderings=15)
    org, before, weight = policy.terms(k, np.random.default_rng(k))
    coalitions = sampled_coalitions(k, org, before, weight)
    assert coalitions.masks.size <= min(15 * (k - 1) + 2, 2**k)  # FIFO coalitions + RAND's own grand schedule
    assert np.bincount(org, weights=weight).tolist() == pytest.approx([1.0] * k)
    assert np.all(before & (1 << org) == 0)


def test_antithetic_orderings_come_in_reversed_pairs_and_refuse_odd_counts() -> None:
    org, before, _ = RandAntithetic(n_orderings=4).terms(5, np.random.default_rng(3))
    full = (1 << 5) - 1
    after = before | (1 << org)
    for j in range(0, 4, 2):  # in the reverse ordering, u comes after exactly the others that came before it
        first, second = slice(5 * j, 5 * j + 5), slice(5 * j + 5, 5 * j + 10)
        assert (np.sort(before[first]) == np.sort(full ^ after[second])).all()
    with pytest.raises(ConfigError, match="odd"):
        simulate(random_scenario(0), RandAntithetic(n_orderings=15))


def test_stratified_terms_weigh_every_size_equally() -> None:
    org, before, weight = RandStratified(n_per_stratum=2).terms(5, np.random.default_rng(0))
    sizes = np.array([bin(int(b)).count("1") for b in before])
    for u in range(5):
        for size in range(5):
            assert weight[(org == u) & (sizes == size)].sum() == pytest.approx(1 / 5)
    with pytest.raises(ConfigError, match="n_per_stratum = 0"):
        simulate(random_scenario(0), RandStratified(n_per_stratum=0))


# -- values and contributions --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_kept_coalitions_values_are_those_of_a_naive_fifo_schedule(seed: int) -> None:
    scenario = random_scenario(seed, k=4)
    coalitions, run = run_recorded(Rand(n_orderings=6), scenario, seed)
    assert run.record_times.size > 0
    fifo = coalitions.rules == RULE_FIFO
    for t, values in zip(run.record_times.tolist(), run.record_values, strict=True):
        expected = [fifo_value(scenario, int(mask), t) for mask in coalitions.masks[fifo]]
        assert values[fifo].tolist() == expected


def exact_fifo_shapley(scenario: Scenario, t: int) -> np.ndarray:
    k = scenario.n_orgs
    v = [fifo_value(scenario, mask, t) for mask in range(1 << k)]
    return np.array([float(x) for x in shapley_by_subsets(v, (1 << k) - 1)]), v[-1]


def mean_relative_error(policy: Rand, scenario: Scenario, exact) -> float:
    """Mean over the recorded decisions of ||phi_sampled - phi_exact||_1 / v(grand)."""
    _, run = run_recorded(policy, scenario, seed=0)
    assert run.record_times.size > 5
    errors = []
    for t, phi in zip(run.record_times.tolist(), run.record_phi, strict=True):
        reference, value = exact(t)
        errors.append(np.abs(phi - reference).sum() / value)
    return float(np.mean(errors))


def test_sampled_contributions_converge_to_the_exact_shapley_values() -> None:
    scenario = random_scenario(1, k=5, n=40)
    exact = cache(lambda t: exact_fifo_shapley(scenario, t))
    e15, e75, e2000 = (mean_relative_error(Rand(n_orderings=n), scenario, exact) for n in (15, 75, 2000))
    assert e2000 < e75 < e15 and e2000 < 0.002
    assert mean_relative_error(RandAntithetic(n_orderings=2000), scenario, exact) < 0.002
    # 6 coalitions per (organization, size) enumerate every stratum at k = 5: the estimate is exact.
    assert mean_relative_error(RandStratified(n_per_stratum=6), scenario, exact) < 1e-12


# -- SPAA'13 Prop. 5.4: with unit-size jobs, every greedy algorithm gives every coalition the same value ------------
def sub_scenario(scenario: Scenario, mask: int, horizon: int) -> Scenario:
    jobs = scenario.jobs[(np.right_shift(mask, scenario.jobs["org"].to_numpy()) & 1) == 1]
    machines = [m if mask >> u & 1 else 0 for u, m in enumerate(scenario.machines_per_org.tolist())]
    return scenario_from_arrays(release=jobs["release"], processing_time=jobs["processing_time"], org=jobs["org"],
                                machines_per_org=machines, copies=jobs["copies"], job=jobs["job"], horizon=horizon)


@pytest.mark.parametrize("seed", range(3))
def test_unit_jobs_give_every_coalition_the_same_value_under_every_greedy_policy(seed: int) -> None:
    scenario = random_scenario(seed, k=3, unit=True)
    greedy = sorted(name for name in REGISTRY if REGISTRY[name].tags.greedy)
    assert {"ref", "rand", "roundrobin", "directcontr"} <= set(greedy)
    for mask in range(1, 1 << scenario.n_orgs):
        for horizon in (2, 5, 9):
            expected = fifo_value(scenario, mask, horizon)
            values = {name: int(simulate(sub_scenario(scenario, mask, horizon), get_policy(name), seed=seed).psi.sum())
                      for name in greedy}
            assert set(values.values()) == {expected}, (mask, horizon, values)


@pytest.mark.parametrize("select", ["literal", "lookahead"])
@pytest.mark.parametrize("seed", range(8))
def test_unit_jobs_and_every_coalition_sampled_make_rand_equal_ref(select: str, seed: int) -> None:
    """By Prop. 5.4 RAND's FIFO values are REF's; stratified sampling with 3 per stratum enumerates every
    coalition when k <= 4, so RAND's phi is exact and its schedule is REF's."""
    scenario = random_scenario(seed, unit=True)
    rand = simulate(scenario, RandStratified(n_per_stratum=3, select=select), seed=seed)
    ref = simulate(scenario, Ref(select=select))
    columns = ["job", "start"]
    assert rand.schedule.sort_values(columns)[columns].to_numpy().tolist() == \
        ref.schedule.sort_values(columns)[columns].to_numpy().tolist()


# -- the paper's settings ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_orderings", [15, 75])
def test_papers_n_orderings_run_and_give_valid_schedules(n_orderings: int) -> None:
    scenario = random_scenario(4, k=6, n=80)
    result = simulate(scenario, Rand(n_orderings=n_orderings), seed=n_orderings)
    validate_online_schedule(result.schedule, scenario, t_end=result.t_end)
    assert len(result.schedule) == scenario.n_sequential_jobs


@pytest.mark.parametrize("n_orderings", [15, 75])
def test_papers_n_orderings_on_an_lpc_egee_window(n_orderings: int) -> None:
    workload, _ = clean(read_swf(trace_path("LPC-EGEE-2004-1.2-cln.swf.gz")), max_processors=70)
    scenario = build_scenario(window(workload, length=5e4), n_orgs=5, n_machines=70, split="uniform", seed=0,
                              horizon=50_000)
    result = simulate(scenario, Rand(n_orderings=n_orderings), seed=0)
    validate_online_schedule(result.schedule, scenario, t_end=result.t_end)
    assert result.t_end == 50_000 and len(result.schedule) > 100
