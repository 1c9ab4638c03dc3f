"""Compiled Shapley primitives: the Hart–Mas-Colell potential on plain float64 arrays (numba-level API).

Re-exported by `fairsched.shapley`, whose module docstring holds the full references. These functions take
plain arrays and scalars only, allocate nothing and raise nothing, so that other ``@njit`` code (REF's
coalition loop) can call them; the Python wrappers in `fairsched.shapley` validate inputs first.

Layout: a game on organizations ``0..k-1`` is a float64 array ``v`` of length ``2**k``; ``v[S]`` is the value of
the coalition whose members are the set bits of ``S`` (bit u set = organization u is a member), ``v[0] == 0``.
The potential ``P`` has the same layout.
"""

from __future__ import annotations

from numba import njit

# Unit roundoff of float64 (half the machine epsilon): |fl(x op y) - x op y| <= _UNIT_ROUNDOFF * |x op y|.
_UNIT_ROUNDOFF = 2.0**-53


@njit(cache=True)
def potential_into(v, out, k):
    """Write the Hart–Mas-Colell potential of the game ``v`` into ``out`` (both float64, length ``2**k``).

    Implements P(∅) = 0, P(S) = (v(S) + Σ_{i∈S} P(S∖{i})) / |S| (Hart & Mas-Colell 1989, Sec. 2), visiting
    coalitions in increasing bitmask order so every S∖{i} (a smaller number) is done before S.
    O(k·2^k) time, no allocation; ``out`` may not alias ``v``. ``v[0]`` is ignored (P(∅) = 0).
    """
    out[0] = 0.0
    for s in range(1, 1 << k):
        acc = v[s]
        rest = s
        size = 0
        while rest:
            low = rest & -rest  # lowest member of S still to visit
            acc += out[s ^ low]
            rest ^= low
            size += 1
        out[s] = acc / size


@njit(cache=True)
def shapley_of(P, coalition, u):
    """Shapley value of organization ``u`` in the subgame on ``coalition``: P[C] − P[C∖{u}].

    Hart & Mas-Colell 1989, Theorem A: the marginal contribution to the potential is the Shapley value
    (SPAA'13 Eq. (1)) of the game restricted to subsets of C. Returns 0.0 when ``u`` is not in ``coalition``.
    """
    return P[coalition] - P[coalition & ~(1 << u)]


@njit(cache=True)
def potential_add_into(P, k, coalition, delta):
    """Update the potential ``P`` in place after v(coalition) += delta, in O(2^(k−|coalition|)) time.

    P is linear in v, and by P(S) = Σ_{∅≠T⊆S} (|T|−1)!(|S|−|T|)!/|S|! · v(T) (Hart & Mas-Colell 1989,
    Sec. 2) a change of v(T) moves exactly the P(S) with S ⊇ T, by delta / (|T|·C(|S|, |T|)). ``coalition``
    must be non-empty (v(∅) = 0 is fixed). No allocation.
    """
    t = 0
    rest = coalition
    while rest:
        rest &= rest - 1
        t += 1
    outside = ((1 << k) - 1) & ~coalition
    extra = outside
    while True:  # every subset `extra` of the organizations outside T, largest first, down to the empty set
        j = 0
        rest = extra
        while rest:
            rest &= rest - 1
            j += 1
        binom = 1.0  # C(t + j, t) = Π_{i=1..j} (t + i) / i, exact in float64 while below 2^53
        for i in range(1, j + 1):
            binom = binom * (t + i) / i
        P[coalition | extra] += delta / (t * binom)  # = delta · (t−1)! j! / (t+j)!
        if extra == 0:
            break
        extra = (extra - 1) & outside


@njit(cache=True)
def potential_error_bound(k, vmax):
    """Worst-case absolute error of any P(S) computed by `potential_into` when every |v(S)| <= ``vmax``.

    Standard rounding-error analysis (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
    Sec. 4.2): summing the |S|+1 terms of the recurrence errs by at most γ_|S|·Σ|terms|, γ_n = nu/(1−nu),
    the division adds one rounding, and the error of each P(S∖{i}) is carried over divided by |S|. With
    |P(S)| <= H_|S|·vmax (the weights of the subset formula sum to the harmonic number H_|S|) this gives
    E_s = E_{s−1} + γ_s·(vmax/s + H_{s−1}·vmax + E_{s−1}) + u·(H_s·vmax + E'_s), about u·vmax·k²·H_k/2.
    """
    u = _UNIT_ROUNDOFF
    err = 0.0
    harmonic_prev = 0.0
    for s in range(1, k + 1):
        gamma = s * u / (1.0 - s * u)
        before_division = err + gamma * (vmax / s + harmonic_prev * vmax + err)
        harmonic = harmonic_prev + 1.0 / s
        err = before_division + u * (harmonic * vmax + before_division)
        harmonic_prev = harmonic
    return err * (1.0 + 1e-6)  # margin for the rounding of this very computation


@njit(cache=True)
def shapley_error_bound(k, vmax):
    """Worst-case absolute error of any φ_u^C = P[C] − P[C∖{u}] from `potential_into` and `shapley_of`.

    Two potentials each off by at most E = `potential_error_bound`, and one rounded subtraction of a result
    bounded by |φ| <= 2·H_k·vmax + 2E.
    """
    err = potential_error_bound(k, vmax)
    harmonic = 0.0
    for s in range(1, k + 1):
        harmonic += 1.0 / s
    return (2.0 * err + _UNIT_ROUNDOFF * (2.0 * harmonic * vmax + 2.0 * err)) * (1.0 + 1e-6)
