"""The Lublin & Feitelson rigid-job model: sizes against their exact distribution, run times, caps, determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairsched.errors import ConfigError
from fairsched.workload.lublin import LublinModel, sample_rigid_jobs, sample_runtimes, sample_sizes

DEFAULT = LublinModel()


def _is_pow2(q: np.ndarray) -> np.ndarray:
    return (q & (q - 1)) == 0


def _stage_probability(low: float, high: float, m: int, model: LublinModel) -> float:
    """P(log2 q falls in [low, high)) under the two-stage uniform, scaled to a system of m processors."""
    u_hi = math.log2(m)
    u_low = min(model.u_low, u_hi)
    u_med = min(max(model.u_med + u_hi - model.u_hi, u_low), u_hi)
    total = 0.0
    for a, b, weight in ((u_low, u_med, model.u_prob), (u_med, u_hi, 1.0 - model.u_prob)):
        if b > a:
            total += weight * max(0.0, min(high, b) - max(low, a)) / (b - a)
    return total


def exact_size_pmf(m: int, model: LublinModel) -> np.ndarray:
    """P(q = j) for j = 0..m, written from the model's description (not from the sampler's code).

    Serial: q = 1. Power-of-two jobs: q = 2**k when log2 q rounds to k. Other jobs: q = j when 2**par rounds to
    j, i.e. par in [log2(j - 0.5), log2(j + 0.5)). Anything above m is capped to m.
    """
    pmf = np.zeros(m + 1)
    pmf[1] += model.serial_prob
    for k in range(40):
        pmf[min(2**k, m)] += model.pow2_prob * _stage_probability(k - 0.5, k + 0.5, m, model)
    other = 1.0 - model.serial_prob - model.pow2_prob
    for j in range(1, 2 * m + 2):
        pmf[min(j, m)] += other * _stage_probability(math.log2(j - 0.5), math.log2(j + 0.5), m, model)
    return pmf


@pytest.mark.parametrize("m", [32, 100, 128, 512])
def test_size_distribution_matches_the_exact_pmf(m: int) -> None:
    pmf = exact_size_pmf(m, DEFAULT)
    assert pmf.sum() == pytest.approx(1.0)
    width = sample_sizes(50_000, m, np.random.default_rng(11))
    empirical = np.bincount(width, minlength=m + 1) / width.size
    assert 0.5 * np.abs(pmf - empirical).sum() < 0.025  # total variation; sampling noise is about 0.01


def test_serial_fraction_is_the_published_share() -> None:
    _, width = sample_rigid_jobs(20_000, 128, np.random.default_rng(1))
    assert np.mean(width == 1) == pytest.approx(0.2927, abs=0.015)
    _, width = sample_rigid_jobs(20_000, 128, np.random.default_rng(1), LublinModel(serial_prob=0.6, pow2_prob=0.3))
    assert np.mean(width == 1) == pytest.approx(0.6, abs=0.015)


def test_powers_of_two_dominate_parallel_jobs_and_only_because_of_pow2_prob() -> None:
    width = sample_sizes(20_000, 128, np.random.default_rng(2))
    parallel = width > 1
    share = np.mean(_is_pow2(width[parallel]))
    assert share > 0.9 > 1.0 - share  # 0.6686 / (1 - 0.2927) = 0.945 at least
    flat = sample_sizes(20_000, 128, np.random.default_rng(2), LublinModel(pow2_prob=0.0))
    assert np.mean(_is_pow2(flat[flat > 1])) < 0.3  # without the emphasis, only small sizes hit powers of two


def test_wide_jobs_run_longer_and_only_because_pa_is_negative() -> None:
    runtime, width = sample_rigid_jobs(30_000, 128, np.random.default_rng(3))
    log_runtime = np.log(runtime)
    assert log_runtime[width >= 32].mean() - log_runtime[width == 1].mean() > 0.5
    assert np.corrcoef(np.log2(width[width > 1]), log_runtime[width > 1])[0, 1] > 0.05
    runtime, width = sample_rigid_jobs(30_000, 128, np.random.default_rng(3), LublinModel(pa=0.0))
    log_runtime = np.log(runtime)
    assert abs(log_runtime[width >= 32].mean() - log_runtime[width == 1].mean()) < 0.2


def test_each_gamma_component_has_its_published_mean() -> None:
    """pb = 1 (p = 1) uses only Gamma(6.57, 0.823), mean 5.407; pb = 0 only Gamma(639.1, 0.0156), mean 9.970."""
    ones = np.ones(20_000, dtype=np.int64)
    short = np.log(sample_runtimes(ones, np.random.default_rng(4), LublinModel(pa=0.0, pb=1.0)))
    long = np.log(sample_runtimes(ones, np.random.default_rng(4), LublinModel(pa=0.0, pb=0.0)))
    assert short.mean() == pytest.approx(6.57 * 0.823, abs=0.08)  # floor() costs a little on short jobs
    assert long.mean() == pytest.approx(639.1 * 0.0156, abs=0.02)
    assert long.std() == pytest.approx(math.sqrt(639.1) * 0.0156, abs=0.02)


def test_mixing_probability_is_linear_in_the_number_of_processors() -> None:
    """q = 100: p = -0.003 * 100 + 0.6986 = 0.3986 of the jobs come from the short Gamma (log runtime < 8)."""
    width = np.full(40_000, 100, dtype=np.int64)
    log_runtime = np.log(sample_runtimes(width, np.random.default_rng(5)))
    # below 8 the long Gamma (mean 9.97, sd 0.39) has mass < 1e-6; the short one's mass there is measured apart
    short_only = np.log(sample_runtimes(width, np.random.default_rng(6), LublinModel(pa=0.0, pb=1.0)))
    p = -0.003 * 100 + 0.6986
    assert np.mean(log_runtime < 8.0) == pytest.approx(p * np.mean(short_only < 8.0), abs=0.015)


def test_caps_and_types() -> None:
    rng = np.random.default_rng(6)
    runtime, width = sample_rigid_jobs(5_000, 100, rng)
    assert runtime.dtype == np.int64 and width.dtype == np.int64
    assert width.min() >= 1 and width.max() == 100  # 128 = 2**round(log2 100) is capped to 100
    assert runtime.min() >= 1 and runtime.max() <= math.floor(math.exp(12.0))
    assert (sample_sizes(200, 1, rng) == 1).all()
    caps = np.array([1, 2, 3, 4, 512] * 400, dtype=np.int64)
    per_job = sample_sizes(caps.size, caps, rng)
    assert (per_job >= 1).all() and (per_job <= caps).all() and per_job[caps == 512].max() > 128


def test_same_seed_same_jobs_other_seed_other_jobs() -> None:
    a = sample_rigid_jobs(500, 64, np.random.default_rng(7))
    b = sample_rigid_jobs(500, 64, np.random.default_rng(7))
    c = sample_rigid_jobs(500, 64, np.random.default_rng(8))
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])
    assert [x.size for x in sample_rigid_jobs(0, 64, np.random.default_rng(7))] == [0, 0]


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"n": -1, "max_procs": 8}, "n=-1"),
    ({"n": 3, "max_procs": 0}, ">= 1 processor"),
    ({"n": 3, "max_procs": np.array([4, 4])}, "3 per-job"),
    ({"n": 3, "max_procs": 8.0}, "positive integer"),
    ({"n": 3, "max_procs": 8, "model": LublinModel(serial_prob=0.5, pow2_prob=0.6)}, "serial_prob \\+ pow2_prob"),
    ({"n": 3, "max_procs": 8, "model": LublinModel(u_low=6.0)}, "u_low <= u_med"),
    ({"n": 3, "max_procs": 8, "model": LublinModel(a2=0.0)}, "a2"),
])
def test_bad_arguments_raise_config_error(kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        sample_rigid_jobs(rng=np.random.default_rng(0), **kwargs)
