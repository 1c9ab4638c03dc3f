"""Obviously correct, slow Shapley values in exact arithmetic: the slow twins of `fairsched.shapley`.

Straight from the definitions, with Python Fractions and no shared code with the fast path:

- `shapley_by_orderings`: SPAA'13 Eq. (2), the average marginal contribution over all |C|! orderings of C.
- `shapley_by_subsets`: SPAA'13 Eq. (1), Σ_{C'⊆C∖{u}} |C'|!(|C|−|C'|−1)!/|C|! · (v(C'∪{u}) − v(C')).
- `potential_by_subsets`: Hart & Mas-Colell's closed form P(S) = Σ_{∅≠T⊆S} (|T|−1)!(|S|−|T|)!/|S|! · v(T).

(P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013, Sec. 3;
S. Hart, A. Mas-Colell, "Potential, value, and consistency", Econometrica 1989, Sec. 2.)
Games are sequences of 2**k values indexed by bitmask (bit u set = organization u is a member).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations, permutations
from math import factorial


def members(mask: int) -> list[int]:
    return [u for u in range(mask.bit_length()) if mask >> u & 1]


def mask_of(orgs: Sequence[int]) -> int:
    return sum(1 << u for u in orgs)


def shapley_by_orderings(v: Sequence[object], coalition: int) -> list[Fraction]:
    """SPAA'13 Eq. (2): φ_u^C = (1/|C|!) Σ over orderings of C of v(≺(u) ∪ {u}) − v(≺(u))."""
    k = len(v).bit_length() - 1
    total = [Fraction(0)] * k
    orderings = list(permutations(members(coalition)))
    for order in orderings:
        before = 0
        for u in order:
            total[u] += Fraction(v[before | 1 << u]) - Fraction(v[before])
            before |= 1 << u
    return [t / len(orderings) for t in total]


def shapley_by_subsets(v: Sequence[object], coalition: int) -> list[Fraction]:
    """SPAA'13 Eq. (1), enumerating the subsets C' of C∖{u} by size."""
    k = len(v).bit_length() - 1
    inside = members(coalition)
    n = len(inside)
    phi = [Fraction(0)] * k
    for u in inside:
        others = [i for i in inside if i != u]
        for size in range(n):
            weight = Fraction(factorial(size) * factorial(n - size - 1), factorial(n))
            for sub in combinations(others, size):
                c = mask_of(sub)
                phi[u] += weight * (Fraction(v[c | 1 << u]) - Fraction(v[c]))
    return phi


def potential_by_subsets(v: Sequence[object]) -> list[Fraction]:
    """Hart–Mas-Colell potential from its closed form, every subset T of every S enumerated (O(3^k))."""
    out = []
    for s in range(len(v)):
        n = len(members(s))
        p = Fraction(0)
        for t in range(1, len(v)):
            if t & s == t:
                size = len(members(t))
                p += Fraction(factorial(size - 1) * factorial(n - size), factorial(n)) * Fraction(v[t])
        out.append(p)
    return out
