"""Shapley values of cooperative games on k organizations: exact for every subcoalition at once, and sampled.

A game is an array ``v`` of length ``2**k`` indexed by bitmask: ``v[S]`` is the value of the coalition whose
members are the set bits of ``S`` (bit u set = organization u is a member) and ``v[0] == 0``. The Shapley value
of u in the subgame on C is SPAA'13 Eq. (1),

    φ_u^C = Σ_{C'⊆C∖{u}} |C'|!(|C|−|C'|−1)!/|C|! · (v(C'∪{u}) − v(C')),

computed here for every C and u at once in O(k·2^k) through the Hart–Mas-Colell potential

    P(∅) = 0,   P(S) = (v(S) + Σ_{i∈S} P(S∖{i})) / |S|,   φ_u^C = P(C) − P(C∖{u}),

where a direct evaluation of Eq. (1) for all C costs O(3^k) per organization. Sampling estimators (plain and
antithetic permutation sampling, stratified by coalition size) serve games too large to enumerate.

Two levels of API:

- Python: `potential`, `shapley_values`, `shapley_all`, `potential_delta`, `potential_exact`,
  `shapley_values_exact` validate their inputs and raise `fairsched.errors.FairschedError` subclasses.
- numba (callable from ``@njit`` code, plain arrays, no allocation, no checks): `potential_into`,
  `shapley_of`, `potential_add_into`, `potential_error_bound`, `shapley_error_bound`.

See docs/shapley.md for the formulas, costs and float64 precision.

References
----------
.. [1] P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013
   (long version, arXiv 1302.0948), Sec. 3, Eq. (1) and (2).
.. [2] S. Hart, A. Mas-Colell, "Potential, value, and consistency", Econometrica 57(3):589–614, 1989.
.. [3] J. Castro, D. Gómez, J. Tejada, "Polynomial calculation of the Shapley value based on sampling",
   Computers & Operations Research 36(5):1726–1730, 2009.
.. [4] R. Mitchell, J. Cooper, E. Frank, G. Holmes, "Sampling permutations for Shapley value estimation",
   JMLR 23(43):1–46, 2022.
.. [5] S. Maleki, L. Tran-Thanh, G. Hines, T. Rahwan, A. Rogers, "Bounding the estimation error of
   sampling-based Shapley value approximation", arXiv 1306.4265, 2013.
.. [6] J. Castro, D. Gómez, E. Molina, J. Tejada, "Improving polynomial estimation of the Shapley value by
   stratified random sampling with optimum allocation", Computers & Operations Research 82:180–188, 2017.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, isfinite

import numpy as np

from fairsched._shapley_kernels import (
    potential_add_into,
    potential_error_bound,
    potential_into,
    shapley_error_bound,
    shapley_of,
)
from fairsched.errors import ConfigError, InputError

__all__ = [
    "MAX_K",
    "MAX_K_ALL",
    "MAX_K_EXACT",
    "MAX_K_SAMPLING",
    "ShapleyEstimate",
    "permutation_estimate",
    "potential",
    "potential_add_into",
    "potential_delta",
    "potential_error_bound",
    "potential_exact",
    "potential_into",
    "prefix_coalitions",
    "sample_permutations",
    "shapley_all",
    "shapley_error_bound",
    "shapley_of",
    "shapley_permutation_sampling",
    "shapley_stratified_sampling",
    "shapley_values",
    "shapley_values_exact",
]

# Size limits, each with its reason (quoted in the error messages).
MAX_K = 26  # potential: 2**k float64 values; k = 26 is 512 MiB (plus the same again for a float64 copy of v)
MAX_K_ALL = 20  # shapley_all: a (2**k, k) float64 table; k = 20 is 160 MiB
MAX_K_EXACT = 20  # potential_exact: k·2**k Python Fraction operations; k = 20 is ~2·10^7 of them (minutes)
MAX_K_SAMPLING = 62  # coalitions are int64 bitmasks; bit 63 is the sign

Game = np.ndarray | Sequence[float] | Callable[[int], float]


# --------------------------------------------------------------------------------------------------- validation
def _n_orgs_of_length(size: int, what: str) -> int:
    k = size.bit_length() - 1
    if size < 1 or size != 1 << k:
        raise InputError(f"{what} has length {size}; expected 2**k values (one per coalition bitmask of k "
                         "organizations), e.g. 8 for k = 3", field="v")
    return k


def _check_k(k: int, limit: int, why: str) -> None:
    if k > limit:
        raise ConfigError(f"k = {k} organizations is too many here: {why} (limit k <= {limit}); "
                          "use the sampling estimators (shapley_permutation_sampling) instead")


def _as_game(v: object, limit: int = MAX_K, why: str = "the potential holds 2**k float64 values") -> np.ndarray:
    """Validate a game vector (shape first, so an oversized input is refused before any copy) and return it
    as a contiguous float64 array."""
    shape = np.shape(v)
    if len(shape) != 1:
        raise InputError(f"game vector has shape {shape}; expected a 1-D array of 2**k coalition values", field="v")
    _check_k(_n_orgs_of_length(shape[0], "game vector"), limit, f"{why} ({shape[0]:,} coalitions)")
    arr = np.ascontiguousarray(v, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise InputError(f"v[{bad}] = {arr[bad]} is not finite; expected a real value for every coalition", field="v")
    if arr[0] != 0.0:
        raise InputError(f"v[0] = {arr[0]} but the empty coalition must have value 0 (a coalition without "
                         "members produces nothing); set v[0] = 0", field="v")
    return arr


def _check_coalition(coalition: int | None, k: int) -> int:
    if coalition is None:
        return (1 << k) - 1
    c = int(coalition)
    if c != coalition or not 0 <= c < 1 << k:
        raise ConfigError(f"coalition {coalition!r} is not a bitmask of k = {k} organizations; expected an integer "
                          f"in [0, {(1 << k) - 1}] (bit u set = organization u is a member)")
    return c


# ------------------------------------------------------------------------------------------------ exact, float64
def potential(v: np.ndarray | Sequence[float]) -> np.ndarray:
    """Hart–Mas-Colell potential P(S) of every coalition S, by the recurrence of [2].

    Implements P(∅) = 0, P(S) = (v(S) + Σ_{i∈S} P(S∖{i})) / |S| (Hart & Mas-Colell 1989, Sec. 2), so that
    P(C) − P(C∖{u}) is SPAA'13 Eq. (1) for the subgame on C.

    Parameters
    ----------
    v : array of 2**k coalition values indexed by bitmask, ``v[0] == 0``.

    Returns
    -------
    float64 array of length 2**k. Costs O(k·2^k) time; each entry errs by at most
    ``potential_error_bound(k, max|v|)`` (docs/shapley.md, "Precision").

    Examples
    --------
    >>> potential([0, 1, 2, 6]).tolist()  # P({0,1}) = (6 + 1 + 2) / 2
    [0.0, 1.0, 2.0, 4.5]
    """
    game = _as_game(v)
    out = np.empty_like(game)
    potential_into(game, out, game.size.bit_length() - 1)
    return out


def shapley_values(v: np.ndarray | Sequence[float], coalition: int | None = None) -> np.ndarray:
    """Shapley value of every organization in the subgame on ``coalition`` (SPAA'13 Eq. (1)).

    Parameters
    ----------
    v : array of 2**k coalition values indexed by bitmask, ``v[0] == 0``.
    coalition : bitmask of C; None means the grand coalition.

    Returns
    -------
    float64 array (k,): φ_u^C for members u of C, 0.0 for non-members. O(k·2^k) (one potential).

    Examples
    --------
    >>> shapley_values([0, 1, 2, 6]).tolist()  # 1 + (6-1-2)/2 and 2 + (6-1-2)/2
    [2.5, 3.5]
    >>> shapley_values([0, 1, 2, 6], coalition=0b10).tolist()
    [0.0, 2.0]
    """
    P = potential(v)
    k = P.size.bit_length() - 1
    c = _check_coalition(coalition, k)
    members = [u for u in range(k) if c >> u & 1]
    out = np.zeros(k)
    out[members] = P[c] - P[[c & ~(1 << u) for u in members]]
    return out


def shapley_all(v: np.ndarray | Sequence[float]) -> np.ndarray:
    """Shapley values of every organization in every subgame: row C is φ^C (SPAA'13 Eq. (1) on C).

    Parameters
    ----------
    v : array of 2**k coalition values indexed by bitmask, ``v[0] == 0``; k <= MAX_K_ALL.

    Returns
    -------
    float64 array (2**k, k); entry [C, u] = P(C) − P(C∖{u}) for u ∈ C, else 0.0. O(k·2^k) time and memory.

    Examples
    --------
    >>> shapley_all([0, 1, 2, 6]).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [2.5, 3.5]]
    """
    game = _as_game(v, MAX_K_ALL, "the result holds k·2**k float64 values")
    P = np.empty_like(game)
    k = game.size.bit_length() - 1
    potential_into(game, P, k)
    masks = np.arange(game.size, dtype=np.int64)
    out = np.zeros((game.size, k))
    for u in range(k):
        member = masks[(masks >> u) & 1 == 1]
        out[member, u] = P[member] - P[member ^ (1 << u)]
    return out


def potential_delta(coalitions: Sequence[int] | np.ndarray, deltas: Sequence[float] | np.ndarray,
                    k: int) -> np.ndarray:
    """Change of the potential when v(coalitions[j]) += deltas[j] for every j (sparse, incremental update).

    P is linear in v (Hart & Mas-Colell 1989, Sec. 2: P(S) = Σ_{∅≠T⊆S} (|T|−1)!(|S|−|T|)!/|S|! · v(T)), so
    P(v + dv) = P(v) + P(dv) and a change of v(T) only moves the P(S) with S ⊇ T. For a dense change use
    ``potential(dv)``; inside numba, call `potential_add_into` on the live P.

    Parameters
    ----------
    coalitions : non-empty coalition bitmasks whose value changes (repeats add up).
    deltas : the change of each value.
    k : number of organizations.

    Returns
    -------
    float64 array of length 2**k to add to P. O(Σ_j 2^(k−|coalitions[j]|)) time.

    Examples
    --------
    >>> potential_delta([0b01], [3.0], k=2).tolist()  # v({0}) += 3: P({0}) += 3, P({0,1}) += 3/2
    [0.0, 3.0, 0.0, 1.5]
    """
    _check_k(int(k), MAX_K, "the potential holds 2**k float64 values")
    masks = np.asarray(coalitions, dtype=np.int64).ravel()
    steps = np.asarray(deltas, dtype=np.float64).ravel()
    if masks.size != steps.size:
        raise ConfigError(f"{masks.size} coalitions but {steps.size} deltas; expected one delta per coalition")
    for c in masks.tolist():
        if _check_coalition(c, k) == 0:
            raise ConfigError("coalition 0 (the empty one) cannot change: v(∅) = 0 by definition")
    if not np.all(np.isfinite(steps)):
        raise ConfigError("deltas must be finite numbers")
    out = np.zeros(1 << k)
    for c, d in zip(masks.tolist(), steps.tolist(), strict=True):
        potential_add_into(out, k, c, d)
    return out


# -------------------------------------------------------------------------------------------------- exact path
def _as_exact_game(v: Sequence[object] | np.ndarray) -> list[Fraction]:
    values = list(np.asarray(v, dtype=object).ravel()) if isinstance(v, np.ndarray) else list(v)
    k = _n_orgs_of_length(len(values), "game vector")
    _check_k(k, MAX_K_EXACT, "the exact path does k·2**k Python Fraction operations")
    out = []
    for mask, x in enumerate(values):
        if isinstance(x, float | np.floating) and not isfinite(float(x)):
            raise InputError(f"v[{mask}] = {x} is not finite; expected a real value for every coalition", field="v")
        out.append(Fraction(float(x)) if isinstance(x, np.floating) else Fraction(x))
    if out[0] != 0:
        raise InputError(f"v[0] = {out[0]} but the empty coalition must have value 0", field="v")
    return out


def potential_exact(v: Sequence[object] | np.ndarray) -> list[Fraction]:
    """The potential in exact rational arithmetic (same recurrence as `potential`), for tests and tie checks.

    Parameters
    ----------
    v : 2**k values (int, Fraction or float; floats are taken at their exact binary value), ``v[0] == 0``.

    Returns
    -------
    list of 2**k Fractions. O(k·2^k) Fraction operations; k <= MAX_K_EXACT.

    Examples
    --------
    >>> [str(p) for p in potential_exact([0, 1, 2, 6])]
    ['0', '1', '2', '9/2']
    """
    game = _as_exact_game(v)
    P = [Fraction(0)] * len(game)
    for s in range(1, len(game)):
        members = [1 << u for u in range(s.bit_length()) if s >> u & 1]
        P[s] = (game[s] + sum(P[s ^ bit] for bit in members)) / len(members)
    return P


def shapley_values_exact(v: Sequence[object] | np.ndarray, coalition: int | None = None) -> list[Fraction]:
    """`shapley_values` in exact rational arithmetic: φ_u^C = P(C) − P(C∖{u}) with Fraction potentials.

    >>> [str(x) for x in shapley_values_exact([0, 1, 2, 6])]
    ['5/2', '7/2']
    """
    P = potential_exact(v)
    k = len(P).bit_length() - 1
    c = _check_coalition(coalition, k)
    return [P[c] - P[c & ~(1 << u)] if c >> u & 1 else Fraction(0) for u in range(k)]


# ---------------------------------------------------------------------------------------------------- sampling
@dataclass(frozen=True)
class ShapleyEstimate:
    """A sampled estimate of the grand coalition's Shapley values.

    Attributes
    ----------
    values : float64 (k,), the estimate of φ_u for each organization u.
    std_errors : float64 (k,), the estimated standard error of each value; 0.0 when the estimate is exact,
        NaN when fewer than two independent samples make it undefined.
    n_evaluations : distinct coalitions whose value was read.
    """

    values: np.ndarray
    std_errors: np.ndarray
    n_evaluations: int


def _evaluator(game: Game, k: int) -> Callable[[np.ndarray], tuple[np.ndarray, int]]:
    """Map an array of coalition bitmasks to their values (and the number of distinct coalitions read)."""
    if callable(game):
        value_fn = game
        empty = float(value_fn(0))
        if empty != 0.0:
            raise InputError(f"value_fn(0) = {empty} but the empty coalition must have value 0", field="value_fn")

        def from_fn(masks: np.ndarray) -> tuple[np.ndarray, int]:
            unique, inverse = np.unique(masks, return_inverse=True)
            values = np.array([float(value_fn(int(m))) for m in unique.tolist()], dtype=np.float64)
            if not np.all(np.isfinite(values)):
                bad = int(unique[np.flatnonzero(~np.isfinite(values))[0]])
                raise InputError(f"value_fn({bad}) is not finite; expected a real value", field="value_fn")
            return values[inverse].reshape(masks.shape), unique.size

        return from_fn
    v = _as_game(game)
    if v.size != 1 << k:
        raise ConfigError(f"k = {k} but the game vector has {v.size} = 2**{v.size.bit_length() - 1} entries")
    return lambda masks: (v[masks], np.unique(masks).size)


def _check_sampling(k: int, n_samples: int, rng: np.random.Generator, what: str,
                    max_k: int | None = MAX_K_SAMPLING) -> None:
    if int(k) < 1 or (max_k is not None and int(k) > max_k):
        raise ConfigError(f"k = {k}; expected 1 <= k <= {MAX_K_SAMPLING} (coalitions are int64 bitmasks)")
    if int(n_samples) != n_samples or n_samples < 1:
        raise ConfigError(f"{what} = {n_samples!r}; expected a positive integer")
    if not isinstance(rng, np.random.Generator):
        raise ConfigError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {type(rng).__name__}")


def sample_permutations(k: int, n_samples: int, rng: np.random.Generator, *, antithetic: bool = False) -> np.ndarray:
    """``n_samples`` uniformly random orderings of the organizations 0..k−1, one per row.

    With ``antithetic``, rows come in pairs: row 2j+1 is row 2j reversed (Mitchell et al. 2022, Sec. 3.1), and
    ``n_samples`` must be even. The only randomness is one ``rng.permuted`` call. Any k >= 1 (only the bitmask
    helpers need k <= MAX_K_SAMPLING).

    >>> sample_permutations(3, 2, np.random.default_rng(0), antithetic=True).tolist()
    [[2, 0, 1], [1, 0, 2]]
    """
    _check_sampling(k, n_samples, rng, "n_samples", max_k=None)
    if antithetic and n_samples % 2:
        raise ConfigError(f"antithetic sampling uses permutations in pairs; n_samples = {n_samples} is odd")
    n_base = n_samples // 2 if antithetic else n_samples
    base = rng.permuted(np.tile(np.arange(k, dtype=np.int64), (n_base, 1)), axis=1)
    if not antithetic:
        return base
    out = np.empty((n_samples, k), dtype=np.int64)
    out[0::2] = base
    out[1::2] = base[:, ::-1]
    return out


def prefix_coalitions(permutations: np.ndarray) -> np.ndarray:
    """Bitmask of the organizations preceding each organization in each ordering (SPAA'13 Eq. (2)'s ≺(u)).

    Entry [j, u] is the coalition of the organizations before u in ordering j; u's marginal contribution
    in that ordering is v(entry | 1 << u) − v(entry).

    >>> prefix_coalitions(np.array([[2, 0, 1]])).tolist()  # before 0: {2}; before 1: {2, 0}; before 2: ∅
    [[4, 5, 0]]
    """
    perms = np.asarray(permutations, dtype=np.int64)
    bits = np.left_shift(np.int64(1), perms)  # bits[j, p] = 1 << (organization at position p)
    exclusive = np.bitwise_or.accumulate(bits, axis=1) ^ bits  # members strictly before position p
    out = np.empty_like(perms)
    np.put_along_axis(out, perms, exclusive, axis=1)
    return out


def _mean_and_stderr(units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means of i.i.d. rows and their standard errors (NaN with a single row)."""
    if units.shape[0] < 2:
        return units.mean(axis=0), np.full(units.shape[1], np.nan)
    return units.mean(axis=0), units.std(axis=0, ddof=1) / np.sqrt(units.shape[0])


def shapley_permutation_sampling(game: Game, k: int, n_samples: int, rng: np.random.Generator, *,
                                 antithetic: bool = False) -> ShapleyEstimate:
    """Estimate φ by averaging marginal contributions over random orderings (SPAA'13 Eq. (2), sampled).

    Implements ApproShapley (Castro, Gómez, Tejada 2009, Sec. 3): φ_u ≈ mean over n random orderings of
    v(≺(u) ∪ {u}) − v(≺(u)). With ``antithetic`` each ordering is paired with its reverse and the pair's mean
    is one sample (Mitchell et al. 2022, Sec. 3.1): exact when marginal contributions are linear in the
    predecessors, e.g. for v(S) = (Σ_{i∈S} w_i)².

    Parameters
    ----------
    game : array of 2**k coalition values, or a function from a coalition bitmask (int) to its value.
    k : number of organizations.
    n_samples : orderings drawn (even when ``antithetic``).
    rng : the only source of randomness.

    Returns
    -------
    ShapleyEstimate; standard errors from the sample standard deviation of orderings (of pairs when
    antithetic). O(n·k) values read, each distinct coalition evaluated once.

    Examples
    --------
    >>> est = shapley_permutation_sampling([0, 1, 2, 3], 2, 10, np.random.default_rng(0))  # additive game
    >>> est.values.tolist(), est.std_errors.tolist()
    ([1.0, 2.0], [0.0, 0.0])
    """
    _check_sampling(k, n_samples, rng, "n_samples")
    evaluate = _evaluator(game, k)
    perms = sample_permutations(k, n_samples, rng, antithetic=antithetic)
    before = prefix_coalitions(perms)
    values, n_eval = evaluate(np.concatenate([before, before | (np.int64(1) << np.arange(k))]))
    return permutation_estimate(values[n_samples:] - values[:n_samples], antithetic=antithetic,
                                n_evaluations=n_eval)


def permutation_estimate(marginal: np.ndarray, *, antithetic: bool, n_evaluations: int = 0) -> ShapleyEstimate:
    """The estimate of `shapley_permutation_sampling` from its marginal contributions, and its standard error.

    Parameters
    ----------
    marginal : (n, k) float64; entry [j, u] = v(≺_j(u) ∪ {u}) − v(≺_j(u)) in ordering j (`sample_permutations`).
    antithetic : rows 2j and 2j+1 are an ordering and its reverse: their mean is one sample.
    n_evaluations : reported as is.

    Returns
    -------
    ShapleyEstimate: the mean of the samples, and its standard error s / √m (s the sample standard deviation,
    ddof = 1, of the m independent samples; NaN when m = 1). φ_u ± 1.96 · std_error is the 95% normal interval
    (docs/shapley.md).

    >>> permutation_estimate(np.array([[1.0, 3.0], [3.0, 1.0]]), antithetic=True).values.tolist()
    [2.0, 2.0]
    """
    samples = np.asarray(marginal, dtype=np.float64)
    if antithetic:
        samples = samples.reshape(samples.shape[0] // 2, 2, samples.shape[1]).mean(axis=1)
    mean, stderr = _mean_and_stderr(samples)
    return ShapleyEstimate(values=mean, std_errors=stderr, n_evaluations=n_evaluations)


def _unrank_subsets(ranks: np.ndarray, n: int, size: int) -> np.ndarray:
    """The subsets of {0..n−1} of the given size with these ranks in the combinatorial number system, as
    bitmasks: rank r <-> c_size > ... > c_1 >= 0 with r = Σ_i C(c_i, i) (Knuth, TAOCP 7.2.1.3, Eq. (20))."""
    rest = ranks.astype(np.int64)
    masks = np.zeros(ranks.size, dtype=np.int64)
    for i in range(size, 0, -1):
        table = np.array([comb(c, i) for c in range(n)], dtype=np.int64)  # non-decreasing in c
        c = np.searchsorted(table, rest, side="right") - 1
        rest -= table[c]
        masks |= np.int64(1) << c
    return masks


def _stratum_masks(k: int, u: int, size: int, n_per_stratum: int, rng: np.random.Generator) -> np.ndarray:
    """Coalitions of ``size`` organizations not containing u: all of them when there are at most
    ``n_per_stratum``, else that many drawn uniformly without replacement."""
    population = comb(k - 1, size)
    ranks = (np.arange(population, dtype=np.int64) if n_per_stratum >= population
             else rng.choice(population, size=n_per_stratum, replace=False).astype(np.int64))
    others = _unrank_subsets(ranks, k - 1, size)  # bit i = the i-th organization other than u
    low = others & ((np.int64(1) << u) - 1)
    return low | ((others ^ low) << 1)  # shift the bits at or above u one place up, leaving bit u clear


def shapley_stratified_sampling(game: Game, k: int, n_per_stratum: int, rng: np.random.Generator) -> ShapleyEstimate:
    """Estimate φ by sampling coalitions stratified by size (Maleki et al. 2013; Castro et al. 2017).

    SPAA'13 Eq. (1) groups the coalitions C' ∌ u by size s = |C'|, each size carrying total weight 1/k:
    φ_u = (1/k) Σ_{s=0}^{k−1} E[v(C' ∪ {u}) − v(C')] over C' uniform among the C(k−1, s) coalitions of size s
    without u. Each stratum (u, s) takes ``n_per_stratum`` coalitions without replacement, or all of them
    when it has no more, so the estimate is exact once every stratum is enumerated (n_per_stratum >=
    C(k−1, ⌊(k−1)/2⌋)). Equal allocation per stratum; Castro et al. 2017's optimum allocation is not used.

    Parameters
    ----------
    game : array of 2**k coalition values, or a function from a coalition bitmask (int) to its value.
    k : number of organizations.
    n_per_stratum : coalitions drawn per organization and size (at most k²·n_per_stratum marginals in all).
    rng : the only source of randomness.

    Returns
    -------
    ShapleyEstimate; standard error from the per-stratum sample variances with the finite-population
    correction (1 − m/N) (0 for an enumerated stratum, NaN for a sampled stratum with a single draw).

    Examples
    --------
    >>> est = shapley_stratified_sampling([0, 1, 2, 6], 2, 1, np.random.default_rng(0))  # every stratum enumerated
    >>> est.values.tolist(), est.std_errors.tolist()
    ([2.5, 3.5], [0.0, 0.0])
    """
    _check_sampling(k, n_per_stratum, rng, "n_per_stratum")
    evaluate = _evaluator(game, k)
    strata = [(u, s, _stratum_masks(k, u, s, int(n_per_stratum), rng)) for u in range(k) for s in range(k)]
    masks = np.concatenate([m for _, _, m in strata])
    with_u = np.concatenate([m | (np.int64(1) << u) for u, _, m in strata])
    values, n_eval = evaluate(np.concatenate([masks, with_u]))
    marginal = values[masks.size:] - values[:masks.size]
    means, variances = np.zeros((k, k)), np.zeros((k, k))
    start = 0
    for u, s, m in strata:
        x = marginal[start:start + m.size]
        start += m.size
        population = comb(k - 1, s)
        means[u, s] = x.mean()
        if m.size < population:  # sampled stratum: variance of the mean without replacement
            variances[u, s] = x.var(ddof=1) / m.size * (1 - m.size / population) if m.size > 1 else np.nan
    return ShapleyEstimate(values=means.mean(axis=1), std_errors=np.sqrt(variances.sum(axis=1)) / k,
                           n_evaluations=n_eval)
