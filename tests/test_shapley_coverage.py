"""The sampled Shapley estimator of the audit (antithetic permutation sampling, `fairsched.shapley.
permutation_estimate`) states a 95% normal interval φ̂ ± 1.96 · s/√m (docs/shapley.md, docs/audit.md): on games
whose exact values are known, that interval must cover the truth about 95% of the time."""

from __future__ import annotations

import math

import numpy as np

from fairsched.audit.game import Z_95
from fairsched.shapley import shapley_permutation_sampling, shapley_values

K = 5
GAMES = 40
REPEATS = 50
SAMPLES = 200  # the audit's default --samples: 100 antithetic pairs


def _random_game(rng: np.random.Generator) -> np.ndarray:
    """v(∅) = 0, v(S) = (Σ_{i∈S} w_i)^a + noise: neither additive nor symmetric, so the estimate has a variance."""
    w = rng.uniform(0.1, 1.0, K)
    a = rng.uniform(0.5, 2.5)
    masks = np.arange(1 << K)
    weight = ((masks[:, None] >> np.arange(K)) & 1) @ w
    v = weight**a + rng.normal(0.0, 0.3, masks.size)
    v[0] = 0.0
    return v


def coverage(z: float = Z_95) -> tuple[float, int]:
    """Share of (game, repetition) whose interval for one organization (a different one each repetition)
    holds its exact Shapley value; every draw is seeded."""
    rng = np.random.default_rng(20_220)
    covered = trials = 0
    for g in range(GAMES):
        v = _random_game(rng)
        phi = shapley_values(v)
        for r in range(REPEATS):
            estimate = shapley_permutation_sampling(v, K, SAMPLES, np.random.default_rng([g, r]), antithetic=True)
            u = r % K
            half = z * estimate.std_errors[u]
            covered += bool(estimate.values[u] - half <= phi[u] <= estimate.values[u] + half)
            trials += 1
    return covered / trials, trials


def test_the_95_percent_interval_covers_the_exact_value_95_percent_of_the_time():
    share, trials = coverage()
    assert trials == 2_000
    sd = math.sqrt(0.95 * 0.05 / trials)   # binomial standard deviation of the share: 0.0049
    # 100 pairs: a t-distribution with 99 degrees of freedom puts 94.7% within ±1.96 (the interval is normal)
    assert 0.947 - 4 * sd <= share <= 0.95 + 4 * sd, share


def test_a_narrower_or_wider_interval_is_noticed():
    """The check has teeth: ±1.64 (a 90% interval) and ±2.58 (99%) fall outside its tolerance."""
    sd = math.sqrt(0.95 * 0.05 / 2_000)
    assert coverage(1.644854)[0] < 0.947 - 4 * sd
    assert coverage(2.575829)[0] > 0.95 + 4 * sd
