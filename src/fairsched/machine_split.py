"""How the machines are split among organizations: even, uniform (1 + a multinomial draw), a random composition,
Zipf, or explicit counts (PPAM'13 Sec. 5.1, SPAA'13 Sec. 6.2, TPDS'11 Sec. 7.1 for the Zipf exponent).

A step of `fairsched.scenario.build_scenario` (which re-exports these names); random splits draw from the
``STAGE_MACHINES`` stream it hands over (`fairsched.seeds`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fairsched.errors import ConfigError


def _is_int(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)

# The papers (PPAM'13 Sec. 5.1, SPAA'13 Sec. 6.2) split machines "following Zipf" without an exponent; ours is
# TPDS'11 Sec. 7.1's s = 1.4267 (the share of virtual organizations in grid logs), borrowed for want of theirs.
DEFAULT_ZIPF_S = 1.4267


SPLITS = ("even", "uniform", "composition", "zipf")  # the named machine splits (`split_machines`)
COUNTS = "counts"  # MachineSplit.kind of explicit counts


class MachineSplit(str):
    """A machine split, parsed once: a named split (``even``, ``uniform``, ``zipf``) or explicit counts.

    It stays a `str`, its normalized text (``"zipf"``, ``"1,2,1"``), so that configs, JSON documents and CSV files
    show it as before; `kind` says which split it is (one of `SPLITS`, or `COUNTS`) and `counts` holds the
    explicit counts (empty for a named split). `split_machines` and `build_scenario` take one, or text they parse.

    Raises
    ------
    ConfigError : neither a named split nor comma-separated integers (the message names the choices).

    >>> split = MachineSplit(" 1, 2,1 ")
    >>> split, split.kind, split.counts, MachineSplit("Zipf").kind
    ('1,2,1', 'counts', (1, 2, 1), 'zipf')
    >>> MachineSplit.parse("zipff", flag="--split")
    Traceback (most recent call last):
    ...
    fairsched.errors.ConfigError: --split 'zipff': expected one of even, uniform, composition, zipf or comma-separated \
machine counts, one per organization (e.g. '1,2,1')
    """

    kind: str
    counts: tuple[int, ...]

    def __new__(cls, text: str) -> MachineSplit:
        return cls.parse(text)

    @classmethod
    def parse(cls, value: str | Sequence[int], *, flag: str = "split") -> MachineSplit:
        """`value` (text, or a sequence of counts) as a `MachineSplit`; `flag` names it in the error."""
        if isinstance(value, MachineSplit):
            return value
        if isinstance(value, str):
            kind = value.strip().lower()
            if kind in SPLITS:
                return cls._make(kind, kind, ())
            try:
                counts = tuple(int(part) for part in value.split(","))
            except ValueError:
                raise ConfigError(f"{flag} {value!r}: expected one of {', '.join(SPLITS)} or comma-separated machine "
                                  "counts, one per organization (e.g. '1,2,1')") from None
        else:
            values = list(value) if isinstance(value, Sequence | np.ndarray) else [value]
            if not all(_is_int(v) for v in values):
                raise ConfigError(f"{flag} {value!r}: expected {', '.join(SPLITS)} or integer machine counts, one "
                                  "per organization")
            counts = tuple(int(v) for v in values)
        return cls._make(",".join(map(str, counts)), COUNTS, counts)

    @classmethod
    def _make(cls, text: str, kind: str, counts: tuple[int, ...]) -> MachineSplit:
        split = str.__new__(cls, text)
        split.kind, split.counts = kind, counts
        return split


def split_machines(n_machines: int | None, n_orgs: int, split: str | Sequence[int] = "uniform", *,
                   zipf_s: float = DEFAULT_ZIPF_S, rng: np.random.Generator | None = None) -> np.ndarray:
    """Machines owned by each organization: int64 (n_orgs,), every count >= 1, summing to m.

    Splits (SPAA'13 Sec. 6.2 and PPAM'13 Sec. 5.1 use uniform and Zipf):

    * ``"even"``: as equal as possible; the remainder m mod k goes to the lowest organization ids.
    * ``"uniform"``: 1 each, plus a multinomial draw of the other m - k with equal probabilities.
    * ``"composition"``: a composition of m into k positive parts, uniform among all C(m-1, k-1) of them
      (k - 1 distinct cut points in 1..m-1): unequal shares are far likelier than under ``"uniform"``.
    * ``"zipf"``: `zipf_counts` (counts ~ 1/rank**zipf_s), ranks given to organizations in a random order.
    * explicit counts, a sequence or a comma string ``"1,2,1"``: length k, each >= 1; their sum must equal
      `n_machines` when given, else it defines m.

    `rng` is needed by ``"uniform"``, ``"composition"`` and ``"zipf"`` (`build_scenario` passes its
    `STAGE_MACHINES` stream).

    Raises
    ------
    ConfigError : m < k (every organization must contribute a machine), an unknown split, bad explicit counts
        or a negative / non-finite `zipf_s`.

    >>> split_machines(10, 3, "even").tolist(), split_machines(None, 3, "1,2,1").tolist()
    ([4, 3, 3], [1, 2, 1])
    """
    if not _is_int(n_orgs) or n_orgs < 1:
        raise ConfigError(f"n_orgs={n_orgs!r}: expected a positive number of organizations")
    explicit = _explicit_counts(split)
    if explicit is not None:
        return _split_explicit(explicit, n_machines, n_orgs)
    if n_machines is None or not _is_int(n_machines) or n_machines < 1:
        raise ConfigError(f"n_machines={n_machines!r}: expected a positive number of machines")
    if n_machines < n_orgs:
        raise ConfigError(f"{n_machines} machines cannot be split among {n_orgs} organizations: in the model every "
                          f"organization contributes at least one machine; use at most {n_machines} organizations "
                          "or more machines")
    if not (np.isfinite(zipf_s) and zipf_s >= 0):
        raise ConfigError(f"zipf_s={zipf_s!r}: expected a finite exponent >= 0")
    kind = MachineSplit.parse(split).kind
    if kind != "even" and rng is None:
        raise ValueError(f"split {kind!r} is random: pass rng (a numpy Generator)")
    counts = _SPLITTERS[kind](int(n_machines), int(n_orgs), float(zipf_s), rng)
    return counts.astype(np.int64)


def _explicit_counts(split: str | Sequence[int]) -> np.ndarray | None:
    """Explicit counts from a sequence or a comma string; None for a named split; ConfigError otherwise."""
    parsed = MachineSplit.parse(split)
    return None if parsed.kind != COUNTS else np.asarray(parsed.counts, dtype=np.int64)


def _split_explicit(counts: np.ndarray, n_machines: int | None, n_orgs: int) -> np.ndarray:
    if counts.size != n_orgs:
        raise ConfigError(f"split {counts.tolist()}: {counts.size} machine counts for {n_orgs} organizations; "
                          "give one count per organization")
    if np.any(counts < 1):
        raise ConfigError(f"split {counts.tolist()}: organization {int(np.argmax(counts < 1))} would own no "
                          "machine; in the model every organization contributes at least one")
    if n_machines is not None and int(counts.sum()) != n_machines:
        raise ConfigError(f"split {counts.tolist()} sums to {int(counts.sum())} machines but n_machines is "
                          f"{n_machines}; make them agree or leave n_machines out")
    return counts


def _split_even(m: int, k: int, s: float, rng: np.random.Generator | None) -> np.ndarray:
    return m // k + (np.arange(k) < m % k)


def _split_uniform(m: int, k: int, s: float, rng: np.random.Generator) -> np.ndarray:
    return 1 + rng.multinomial(m - k, np.full(k, 1.0 / k))


def _split_composition(m: int, k: int, s: float, rng: np.random.Generator) -> np.ndarray:
    cuts = np.sort(rng.choice(m - 1, size=k - 1, replace=False)) + 1  # k - 1 distinct cuts among 1..m-1
    return np.diff(np.concatenate(([0], cuts, [m])))


def _split_zipf(m: int, k: int, s: float, rng: np.random.Generator) -> np.ndarray:
    rank = rng.permutation(k)  # rank[u] = 0-based Zipf rank of organization u
    return zipf_counts(m, k, s)[rank]


_SPLITTERS: dict[str, Callable[[int, int, float, Any], np.ndarray]] = {
    "even": _split_even, "uniform": _split_uniform, "composition": _split_composition, "zipf": _split_zipf}


def zipf_weights(n: int, s: float) -> np.ndarray:
    """Zipf probabilities of ranks 1..n: r**-s / Σ_j j**-s.

    >>> zipf_weights(2, 1.0).tolist()
    [0.6666666666666666, 0.3333333333333333]
    """
    weight = np.arange(1, n + 1, dtype=np.float64) ** -s
    return weight / weight.sum()


def zipf_counts(n_machines: int, n_orgs: int, s: float = DEFAULT_ZIPF_S) -> np.ndarray:
    """Zipf machine counts in rank order: proportional to 1/r**s (r = 1..k), each >= 1, summing to m.

    Largest-remainder rounding of the quotas m * r**-s / sum_j j**-s (ties to the better rank); an
    organization left with 0 then takes one machine from the largest count (the worst-ranked among equals),
    which keeps the counts non-increasing in rank. Needs m >= k. O(k log k).

    >>> zipf_counts(64, 5, 1.4267).tolist()
    [35, 13, 7, 5, 4]
    """
    quota = n_machines * zipf_weights(n_orgs, s)
    counts = np.floor(quota).astype(np.int64)
    remainder = n_machines - int(counts.sum())
    counts[np.argsort(-(quota - counts), kind="stable")[:remainder]] += 1
    while (zero := np.flatnonzero(counts == 0)).size:
        donor = np.flatnonzero(counts == counts.max())[-1]
        counts[donor] -= 1
        counts[zero[0]] += 1
    return counts
