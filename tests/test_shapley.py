"""Shapley values (fairsched.shapley): potential vs the definitions in exact arithmetic, the axioms, closed
forms (glove, airport, unanimity), the numba-level API, float64 error bounds, and the sampling estimators."""

from __future__ import annotations

from fractions import Fraction
from math import factorial

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numba import njit

from fairsched.errors import ConfigError, InputError
from fairsched.shapley import (
    potential,
    potential_add_into,
    potential_delta,
    potential_error_bound,
    potential_exact,
    potential_into,
    prefix_coalitions,
    sample_permutations,
    shapley_all,
    shapley_error_bound,
    shapley_of,
    shapley_permutation_sampling,
    shapley_stratified_sampling,
    shapley_values,
    shapley_values_exact,
)
from tests.naive.shapley_brute_force import (
    members,
    potential_by_subsets,
    shapley_by_orderings,
    shapley_by_subsets,
)


def random_int_game(rng: np.random.Generator, k: int, low: int = -50, high: int = 100) -> list[int]:
    v = [int(x) for x in rng.integers(low, high, 1 << k)]
    v[0] = 0
    return v


def factorial_scaled_game(rng: np.random.Generator, k: int) -> list[int]:
    """Values in k!·Z: every P(S) = Σ_T (|T|−1)!(|S|−|T|)!/|S|!·v(T) is then an integer, every step of the
    recurrence is an exact float64 operation, and the float path must equal the exact one bit for bit."""
    return [factorial(k) * x for x in random_int_game(rng, k)]


def game_from(fn, k: int) -> np.ndarray:
    """Tabulate a game given as a function of the member list."""
    return np.array([fn(members(s)) for s in range(1 << k)], dtype=np.float64)


# --------------------------------------------------------------------------------- exact path vs definitions
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_brute_force_twins_agree(k: int) -> None:
    """The slow twins agree among themselves: Eq. (2) (orderings) = Eq. (1) (subsets) = closed-form potential
    differences, in every subgame."""
    v = random_int_game(np.random.default_rng(100 + k), k)
    P = potential_by_subsets(v)
    for c in range(1 << k):
        by_orderings = shapley_by_orderings(v, c)
        assert by_orderings == shapley_by_subsets(v, c)
        assert by_orderings == [P[c] - P[c & ~(1 << u)] if c >> u & 1 else 0 for u in range(k)]


@pytest.mark.parametrize("k", range(9))
def test_potential_exact_equals_closed_form(k: int) -> None:
    v = random_int_game(np.random.default_rng(k), k)
    assert potential_exact(v) == potential_by_subsets(v)


@pytest.mark.parametrize("k", [1, 4, 8])
def test_shapley_values_exact_equals_eq1(k: int) -> None:
    v = random_int_game(np.random.default_rng(20 + k), k)
    grand = (1 << k) - 1
    assert shapley_values_exact(v) == shapley_by_subsets(v, grand)
    assert shapley_values_exact(v, coalition=0b101 & grand) == shapley_by_subsets(v, 0b101 & grand)


@pytest.mark.parametrize("k", range(1, 9))
def test_float_path_bit_exact_on_factorial_scaled_games(k: int) -> None:
    v = factorial_scaled_game(np.random.default_rng(30 + k), k)
    exact = potential_by_subsets(v)
    assert all(p.denominator == 1 for p in exact)  # the premise of the bit-exact comparison
    assert potential(v).tolist() == [float(p) for p in exact]
    grand = (1 << k) - 1
    assert shapley_values(v).tolist() == [float(x) for x in shapley_by_subsets(v, grand)]


@pytest.mark.parametrize("k", [1, 3, 6])
def test_shapley_all_rows_are_subgame_shapley_values(k: int) -> None:
    """Every row C of shapley_all is φ^C of the subgame on C: against Eq. (2) and against shapley_values."""
    v = factorial_scaled_game(np.random.default_rng(40 + k), k)
    table = shapley_all(v)
    assert table.shape == (1 << k, k)
    for c in range(1 << k):
        assert table[c].tolist() == [float(x) for x in shapley_by_orderings(v, c)]
        assert table[c].tolist() == shapley_values(v, coalition=c).tolist()


@pytest.mark.parametrize("k", [4, 8, 12])
def test_float_error_within_documented_bound(k: int) -> None:
    """Values up to 1e18 (beyond 2**53): the float path errs, but never beyond the documented bounds."""
    rng = np.random.default_rng(50 + k)
    v = rng.integers(-10**18, 10**18, 1 << k).astype(np.float64)
    v[0] = 0.0
    vmax = float(np.abs(v).max())
    exact = potential_exact(v)  # of the float64 values, exactly
    p_err = max(abs(Fraction(float(p)) - e) for p, e in zip(potential(v), exact, strict=True))
    assert 0 < p_err <= potential_error_bound(k, vmax)
    grand = (1 << k) - 1
    phi_exact = [exact[grand] - exact[grand & ~(1 << u)] for u in range(k)]
    phi_err = max(abs(Fraction(float(x)) - e) for x, e in zip(shapley_values(v), phi_exact, strict=True))
    assert phi_err <= shapley_error_bound(k, vmax)
    # The bound is a useful number, of the order of u·vmax·k²·H_k/2, not a vacuous one.
    assert potential_error_bound(k, vmax) < 1e-13 * vmax
    assert potential_error_bound(k, vmax) < shapley_error_bound(k, vmax) < 3 * potential_error_bound(k, vmax)


# ------------------------------------------------------------------------------------------------- the axioms
@given(k=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_efficiency_in_every_subgame(k: int, seed: int) -> None:
    v = np.array(random_int_game(np.random.default_rng(seed), k, -1000, 1000), dtype=np.float64)
    tol = k * shapley_error_bound(k, 1000.0)
    np.testing.assert_allclose(shapley_all(v).sum(axis=1), v, rtol=0, atol=tol)


@given(k=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_symmetric_organizations_get_equal_values(k: int, seed: int) -> None:
    """Make organizations 0 and 1 interchangeable (v'(S) = v(S) + v(S with 0 and 1 swapped)): in every
    subgame containing both, their values coincide."""
    rng = np.random.default_rng(seed)
    v = np.array(random_int_game(rng, k), dtype=np.float64)
    s = np.arange(1 << k)
    swapped = (s & ~0b11) | ((s & 1) << 1) | ((s >> 1) & 1)
    table = shapley_all(v + v[swapped])
    both = (s & 0b11) == 0b11
    np.testing.assert_allclose(table[both, 0], table[both, 1], rtol=0, atol=1e-9)


@given(k=st.integers(2, 6), seed=st.integers(0, 2**32 - 1), dummy=st.integers(0, 5))
def test_null_player_gets_nothing_and_changes_nothing(k: int, seed: int, dummy: int) -> None:
    """Organization d adds nothing to any coalition (v(S ∪ {d}) = v(S)): φ_d^C = 0 in every subgame, and the
    others get what they get in the game without d."""
    d = dummy % k
    rng = np.random.default_rng(seed)
    base = np.array(random_int_game(rng, k - 1), dtype=np.float64)  # the game on the other k−1 organizations
    s = np.arange(1 << k)
    without_d = (s & ((1 << d) - 1)) | ((s >> (d + 1)) << d)  # drop bit d, close the gap
    table = shapley_all(base[without_d])
    np.testing.assert_allclose(table[:, d], 0.0, rtol=0, atol=1e-9)  # rounding: not always exactly 0.0
    np.testing.assert_allclose(np.delete(table, d, axis=1), shapley_all(base)[without_d], rtol=0, atol=1e-9)


def test_dummy_player_gets_its_standalone_value() -> None:
    """A dummy (v(S ∪ {d}) = v(S) + v({d})) gets exactly v({d}) in every subgame containing it."""
    rng = np.random.default_rng(5)
    k, d, alone = 5, 2, 17.0
    v = np.array(random_int_game(rng, k), dtype=np.float64)
    s = np.arange(1 << k)
    v = v[s & ~(1 << d)] + alone * ((s >> d) & 1)
    table = shapley_all(v)
    np.testing.assert_allclose(table[(s >> d) & 1 == 1, d], alone, rtol=0, atol=1e-9)


@given(k=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_additivity(k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    v = np.array(random_int_game(rng, k), dtype=np.float64)
    w = np.array(random_int_game(rng, k), dtype=np.float64)
    np.testing.assert_allclose(shapley_all(v + w), shapley_all(v) + shapley_all(w), rtol=0, atol=1e-9)


# ----------------------------------------------------------------------------------------------- closed forms
def test_glove_game() -> None:
    """One left-glove owner (0) and two right-glove owners (1, 2); a pair is worth 1: φ = (2/3, 1/6, 1/6)."""
    v = game_from(lambda m: min(m.count(0), len([u for u in m if u != 0])), 3)
    assert shapley_values_exact(v) == [Fraction(2, 3), Fraction(1, 6), Fraction(1, 6)]
    np.testing.assert_allclose(shapley_values(v), [2 / 3, 1 / 6, 1 / 6], rtol=0, atol=1e-15)
    # In the subgame {0, 1} the pair splits the glove's value evenly.
    assert shapley_values(v, coalition=0b011).tolist() == [0.5, 0.5, 0.0]


def test_airport_game_littlechild_owen() -> None:
    """Runway cost game c(S) = max_{i∈S} c_i: sorted c_(1) <= ... <= c_(k), the i-th pays
    Σ_{j<=i} (c_(j) − c_(j−1)) / (k − j + 1) (Littlechild & Owen 1973)."""
    cost = [7, 2, 11, 2, 5, 13, 3]  # unsorted, with a tie, to exercise the indexing
    k = len(cost)
    v = game_from(lambda m: max((cost[u] for u in m), default=0), k)
    order = sorted(range(k), key=lambda u: cost[u])
    expected = [Fraction(0)] * k
    for i, u in enumerate(order):
        prev = 0
        for j in range(i + 1):
            c = cost[order[j]]
            expected[u] += Fraction(c - prev, k - j)
            prev = c
    assert shapley_values_exact(v) == expected
    np.testing.assert_allclose(shapley_values(v), [float(x) for x in expected], rtol=0, atol=1e-12)


@pytest.mark.parametrize("carrier", [0b1, 0b0110, 0b11111, 0b10101])
def test_unanimity_games(carrier: int) -> None:
    """u_T(S) = 1 when T ⊆ S: in the subgame on C, each member of T gets 1/|T| if T ⊆ C, everyone else 0."""
    k = 5
    s = np.arange(1 << k)
    table = shapley_all(((s & carrier) == carrier).astype(np.float64))
    size = bin(carrier).count("1")
    for c in range(1 << k):
        expected = [1 / size if c & carrier == carrier and carrier >> u & 1 else 0.0 for u in range(k)]
        np.testing.assert_allclose(table[c], expected, rtol=0, atol=1e-15)


# -------------------------------------------------------------------------------------- numba-level API
@njit
def _all_values_from_numba(v, k):
    """What REF does inside its own kernel: one potential, then φ_u^C for any (C, u) it needs."""
    P = np.empty(1 << k)
    potential_into(v, P, k)
    out = np.zeros((1 << k, k))
    for c in range(1 << k):
        for u in range(k):
            if c >> u & 1:
                out[c, u] = shapley_of(P, c, u)
    return out


@njit
def _update_in_numba(P, k, coalitions, deltas):
    for j in range(coalitions.size):
        potential_add_into(P, k, coalitions[j], deltas[j])


def test_numba_kernels_called_from_njit_code_match_python_path() -> None:
    k = 6
    v = np.array(factorial_scaled_game(np.random.default_rng(60), k), dtype=np.float64)
    assert _all_values_from_numba(v, k).tolist() == shapley_all(v).tolist()


def test_shapley_of_is_zero_for_non_members() -> None:
    P = potential([0.0, 1.0, 2.0, 6.0])
    assert shapley_of(P, 0b01, 1) == 0.0
    assert shapley_of(P, 0b11, 1) == 3.5


def test_compiled_kernel_equals_interpreted_kernel() -> None:
    """The compiled kernel computes exactly what the same code computes in plain Python (no fastmath)."""
    k = 7
    v = np.random.default_rng(61).normal(size=1 << k) * 1e6
    v[0] = 0.0
    compiled, interpreted = np.empty_like(v), np.empty_like(v)
    potential_into(v, compiled, k)
    potential_into.py_func(v, interpreted, k)
    assert compiled.tolist() == interpreted.tolist()
    assert potential_error_bound(k, 1e6) == potential_error_bound.py_func(k, 1e6)


@pytest.mark.parametrize("k", [1, 4, 7])
def test_incremental_update_equals_recomputation(k: int) -> None:
    """P is linear in v: updating P for sparse changes of v equals recomputing it (bit-exact on k!·Z games)."""
    rng = np.random.default_rng(70 + k)
    v = np.array(factorial_scaled_game(rng, k), dtype=np.float64)
    coalitions = rng.integers(1, 1 << k, 5)
    deltas = factorial(k) * rng.integers(-9, 10, 5).astype(np.float64)
    changed = v.copy()
    np.add.at(changed, coalitions, deltas)
    P = potential(v)
    assert (P + potential_delta(coalitions, deltas, k)).tolist() == potential(changed).tolist()
    _update_in_numba(P, k, coalitions, deltas)
    assert P.tolist() == potential(changed).tolist()


def test_subtracting_the_additive_part_keeps_values_and_shrinks_rounding() -> None:
    """docs/shapley.md, "Precision": φ_u^C(v) = v({u}) + φ_u^C(w) for the surplus w(S) = v(S) − Σ_{i∈S} v({i}),
    and the error then scales with max|w| instead of max|v|."""
    k = 8
    rng = np.random.default_rng(81)
    s = np.arange(1 << k)
    alone = rng.integers(10**15, 10**16, k)
    additive = np.array([sum(int(alone[u]) for u in members(c)) for c in s.tolist()], dtype=object)
    surplus = np.array(random_int_game(rng, k, 0, 10**6), dtype=object)
    v_exact = additive + surplus  # Python ints: the game exactly, beyond 2**53
    exact = shapley_values_exact(list(v_exact))
    direct = shapley_values(v_exact.astype(np.float64))
    centered = alone + shapley_values(surplus.astype(np.float64))
    err_direct = max(abs(Fraction(float(x)) - e) for x, e in zip(direct, exact, strict=True))
    err_centered = max(abs(Fraction(float(x)) - e) for x, e in zip(centered, exact, strict=True))
    assert err_centered < err_direct
    assert err_centered <= 1  # φ ≈ 1e16, where float64 values are 2 apart: the centered φ is within half a spacing


def test_potential_is_linear() -> None:
    rng = np.random.default_rng(80)
    v = rng.normal(size=64)
    w = rng.normal(size=64)
    v[0] = w[0] = 0.0
    np.testing.assert_allclose(potential(v + 3 * w), potential(v) + 3 * potential(w), rtol=1e-12, atol=1e-12)


# -------------------------------------------------------------------------------------------------- sampling
def test_prefix_coalitions_by_hand_and_on_random_orderings() -> None:
    assert prefix_coalitions(np.array([[2, 0, 1], [0, 1, 2]])).tolist() == [[4, 5, 0], [0, 1, 3]]
    perms = sample_permutations(7, 50, np.random.default_rng(90))
    before = prefix_coalitions(perms)
    for perm, row in zip(perms, before, strict=True):
        for position, u in enumerate(perm):
            assert row[u] == sum(1 << w for w in perm[:position])


def test_sample_permutations_rows_are_permutations_and_antithetic_pairs_reverse() -> None:
    perms = sample_permutations(6, 40, np.random.default_rng(91), antithetic=True)
    assert (np.sort(perms, axis=1) == np.arange(6)).all()
    assert (perms[1::2] == perms[0::2, ::-1]).all()
    assert len({tuple(p) for p in perms}) > 20  # really random, not one ordering repeated


@pytest.mark.parametrize("estimator", ["plain", "antithetic", "stratified"])
def test_estimators_exact_on_additive_game(estimator: str) -> None:
    """Marginal contributions of an additive game never vary: every estimator is exact with zero error."""
    k, weights = 5, np.array([3.0, -1.0, 4.0, 1.5, 9.0])
    v = game_from(lambda m: float(sum(weights[m])), k)
    est = _estimate(estimator, v, k, 6, np.random.default_rng(92))
    np.testing.assert_allclose(est.values, weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(est.std_errors, 0.0, rtol=0, atol=1e-12)


def _estimate(estimator: str, game, k: int, n: int, rng: np.random.Generator):
    if estimator == "stratified":
        return shapley_stratified_sampling(game, k, n, rng)
    return shapley_permutation_sampling(game, k, n, rng, antithetic=estimator == "antithetic")


@pytest.mark.parametrize("estimator", ["plain", "antithetic", "stratified"])
def test_estimators_converge(estimator: str) -> None:
    """On a random game (k = 8, strata of up to 35 coalitions sampled below their size), the estimate lies
    within 4 standard errors of the exact value, and 100 times the samples shrinks the errors ~10 times."""
    k = 8
    v = np.array(random_int_game(np.random.default_rng(93), k, 0, 1000), dtype=np.float64)
    exact = shapley_values(v)
    small = _estimate(estimator, v, k, 20 if estimator != "stratified" else 3, np.random.default_rng(94))
    large = _estimate(estimator, v, k, 2000 if estimator != "stratified" else 30, np.random.default_rng(95))
    for est in (small, large):
        assert (np.abs(est.values - exact) <= 4 * est.std_errors).all()
    assert (large.std_errors < small.std_errors / 3).all()
    assert np.abs(large.values - exact).max() < np.abs(small.values - exact).max() / 3


def test_antithetic_exact_on_quadratic_game_and_better_near_it() -> None:
    """v(S) = (Σ_{i∈S} w_i)²: u's marginal 2·w_u·W(before u) + w_u² is linear in the predecessors, so an
    ordering and its reverse average to φ_u exactly (Mitchell et al. 2022, Sec. 3.1); plain sampling is not."""
    k = 7
    w = np.arange(1.0, k + 1)
    quadratic = game_from(lambda m: float(w[m].sum() ** 2), k)
    exact = shapley_values(quadratic)
    anti = shapley_permutation_sampling(quadratic, k, 10, np.random.default_rng(96), antithetic=True)
    plain = shapley_permutation_sampling(quadratic, k, 10, np.random.default_rng(96))
    np.testing.assert_allclose(anti.values, exact, rtol=0, atol=1e-9)
    np.testing.assert_allclose(anti.std_errors, 0.0, rtol=0, atol=1e-9)
    assert np.abs(plain.values - exact).max() > 1.0 and (plain.std_errors > 1.0).all()
    # Near such a game (plus bounded noise), pairing still cuts the standard error at equal cost.
    noisy = quadratic + np.random.default_rng(97).uniform(-5, 5, 1 << k)
    noisy[0] = 0.0
    anti = shapley_permutation_sampling(noisy, k, 400, np.random.default_rng(98), antithetic=True)
    plain = shapley_permutation_sampling(noisy, k, 400, np.random.default_rng(98))
    assert (anti.std_errors < plain.std_errors / 2).all()


@pytest.mark.parametrize(("estimator", "n"), [("plain", 6), ("antithetic", 6), ("stratified", 3)])
def test_standard_errors_are_calibrated(estimator: str, n: int) -> None:
    """Over 400 independent runs, the mean squared reported standard error matches the actual variance of the
    estimate (each SE² is an unbiased variance estimate; for the stratified one only with the finite-population
    correction, since k = 5 and 3 draws per stratum take 3 of the 4 or 6 coalitions of sizes 1 to 3)."""
    k = 5
    v = np.array(random_int_game(np.random.default_rng(104), k, 0, 1000), dtype=np.float64)
    runs = [_estimate(estimator, v, k, n, rng) for rng in np.random.default_rng(105).spawn(400)]
    actual_variance = np.var([r.values for r in runs], axis=0, ddof=1)
    mean_reported = np.mean([r.std_errors**2 for r in runs], axis=0)
    assert (np.abs(mean_reported / actual_variance - 1) < 0.25).all()


@pytest.mark.parametrize("k", [1, 2, 5, 8])
def test_stratified_exact_when_every_stratum_is_enumerated(k: int) -> None:
    v = np.array(random_int_game(np.random.default_rng(99), k), dtype=np.float64)
    largest_stratum = max(1, max(factorial(k - 1) // (factorial(s) * factorial(k - 1 - s)) for s in range(k)))
    est = shapley_stratified_sampling(v, k, largest_stratum, np.random.default_rng(100))
    np.testing.assert_allclose(est.values, shapley_values(v), rtol=0, atol=1e-9)
    assert (est.std_errors == 0.0).all()
    assert est.n_evaluations == 1 << k  # every coalition read exactly once
    if k >= 3:  # one draw short of the largest stratum: no longer enumerated, so an error is reported
        assert (shapley_stratified_sampling(v, k, largest_stratum - 1, np.random.default_rng(100))
                .std_errors > 0).any()


@pytest.mark.parametrize("estimator", ["plain", "antithetic", "stratified"])
def test_value_function_equals_array_and_is_called_once_per_coalition(estimator: str) -> None:
    k = 6
    v = np.array(random_int_game(np.random.default_rng(101), k), dtype=np.float64)
    calls: list[int] = []

    def value_fn(mask: int) -> float:
        calls.append(mask)
        return float(v[mask])

    from_array = _estimate(estimator, v, k, 8, np.random.default_rng(102))
    from_fn = _estimate(estimator, value_fn, k, 8, np.random.default_rng(102))
    assert from_fn.values.tolist() == from_array.values.tolist()
    assert from_fn.std_errors.tolist() == from_array.std_errors.tolist()
    assert len(calls) == len(set(calls)) + 1 == from_fn.n_evaluations + 1  # v(∅) is checked once more


def test_sampling_depends_only_on_the_generator() -> None:
    v = np.array(random_int_game(np.random.default_rng(103), 5), dtype=np.float64)
    first = shapley_permutation_sampling(v, 5, 30, np.random.default_rng(7))
    again = shapley_permutation_sampling(v, 5, 30, np.random.default_rng(7))
    other = shapley_permutation_sampling(v, 5, 30, np.random.default_rng(8))
    assert first.values.tolist() == again.values.tolist()
    assert first.values.tolist() != other.values.tolist()


# -------------------------------------------------------------------------------------------------- validation
@pytest.mark.parametrize(("v", "match"), [
    ([0.0, 1.0, 2.0], "length 3; expected 2\\*\\*k"),
    ([], "length 0"),
    ([1.0, 2.0], "v\\[0\\] = 1.0 but the empty coalition"),
    ([0.0, float("nan")], "v\\[1\\] = nan is not finite"),
    ([[0.0, 1.0]], "expected a 1-D array"),
])
def test_malformed_games_are_rejected(v, match: str) -> None:
    with pytest.raises(InputError, match=match):
        potential(v)


def test_size_limits_say_why() -> None:
    huge = np.broadcast_to(np.float64(0.0), (1 << 27,))  # zero-stride: no memory used
    with pytest.raises(ConfigError, match=r"k = 27 .*2\*\*k float64 values .*limit k <= 26"):
        potential(huge)
    with pytest.raises(ConfigError, match=r"k = 21 .*k·2\*\*k float64 values .*limit k <= 20"):
        shapley_all(np.zeros(1 << 21))
    with pytest.raises(ConfigError, match="Fraction"):
        potential_exact([0] * (1 << 21))


def test_bad_arguments_are_rejected() -> None:
    v = [0.0, 1.0, 2.0, 6.0]
    rng = np.random.default_rng(0)
    with pytest.raises(ConfigError, match="coalition 4 is not a bitmask of k = 2"):
        shapley_values(v, coalition=4)
    with pytest.raises(ConfigError, match="empty one"):
        potential_delta([0], [1.0], 2)
    with pytest.raises(ConfigError, match="one delta per coalition"):
        potential_delta([1, 2], [1.0], 2)
    with pytest.raises(ConfigError, match="odd"):
        shapley_permutation_sampling(v, 2, 3, rng, antithetic=True)
    with pytest.raises(ConfigError, match="positive integer"):
        shapley_stratified_sampling(v, 2, 0, rng)
    with pytest.raises(ConfigError, match="numpy Generator"):
        shapley_permutation_sampling(v, 2, 5, 42)
    with pytest.raises(ConfigError, match="k = 3 but the game vector has 4"):
        shapley_permutation_sampling(v, 3, 5, rng)
    with pytest.raises(InputError, match=r"value_fn\(0\) = 1\.0"):
        shapley_permutation_sampling(lambda mask: 1.0, 2, 5, rng)
