"""The fair rule under contention: contributions φ and the selection of SPAA'13 Algorithm 2, compiled.

Exact φ (REF) comes from the Hart–Mas-Colell potential shared by every coalition deciding at one time step;
sampled φ (RAND) from the terms w·(v(B ∪ {u}) − v(B)) of the sampled orderings. `_select_literal` and
`_select_lookahead` turn φ into the number of jobs each organization starts. Every function is inlined into
`lockstep._run` (see the numba note there). Field names: `layout`.
"""

from __future__ import annotations

from numba import njit

from fairsched.online._coalitions.layout import (
    CFG_CHECK_EFFICIENCY,
    CFG_CONTRIB,
    CFG_GRAND,
    CFG_K,
    CFG_RECORD,
    CFG_SELECT,
    CONTRIB_EXACT,
    EFFICIENCY_RTOL,
    G_ERR_ENT,
    G_ERR_T,
    G_N_REC,
    MASK,
    NOW,
    PSI,
    RUN,
    RUNNING_TOTAL,
    SELECT_LITERAL,
    UNIT_ROUNDOFF,
    VALUE,
    WORK,
    WORK_TOTAL,
)
from fairsched.shapley import shapley_error_bound


@njit(cache=True, inline="always")
def _share_fairly(ent, mem, cfg, value_ent, sampled_tol, terms, work, wait, take, recs, glob, e, t,
                  n_start):  # pragma: no cover - jit
    """SPAA'13 Alg. 1 lines 36–37 with Alg. 2 under contention: φ, then `_select_*` into ``take``.

    Literal rule: φ(t), all values at t (UpdateVals). Lookahead: φ(t + 1); every proper subcoalition has
    already decided at t, and v(C, t + 1) = Σ_u (ψ_u + W_u + n_u) + n_start because every job running during
    [t, t + 1) adds exactly 1, whichever jobs start (greedy, identical machines). Returns False when the
    efficiency check fails (time and entity in ``glob``). ``terms``, ``work`` and ``recs`` are tuples of
    arrays (see `Rules`, `Scratch`, `Output`).
    """
    k = cfg[CFG_K]
    pot, pot_vmax, pot_stamp, pot_stack, phi, gain, eligible = work
    literal = cfg[CFG_SELECT] == SELECT_LITERAL
    t_eval = t if literal else t + 1
    v_self = ent[e, VALUE] if literal else ent[e, VALUE] + ent[e, WORK_TOTAL] + ent[e, RUNNING_TOTAL] + n_start
    if cfg[CFG_CONTRIB] == CONTRIB_EXACT:
        vmax, size = _phi_exact(ent, value_ent, pot, pot_vmax, pot_stamp, pot_stack, phi, e, t_eval,
                                 v_self)
        tol = 4.0 * shapley_error_bound(size, vmax) + 8.0 * UNIT_ROUNDOFF * vmax
        if cfg[CFG_CHECK_EFFICIENCY] and not _efficient(phi, ent[e, MASK], v_self, vmax, k):
            glob[G_ERR_T] = t
            glob[G_ERR_ENT] = e
            return False
    else:
        vmax = _phi_sampled(ent, terms[0], terms[1], terms[2], terms[3], phi, t_eval, k)
        tol = sampled_tol[0] * vmax + 8.0 * UNIT_ROUNDOFF * vmax
    if cfg[CFG_RECORD] and e == cfg[CFG_GRAND]:
        _record(ent, phi, recs[0], recs[1], recs[2], glob, e, t_eval, v_self, k)
    if literal:
        _select_literal(mem, phi, gain, wait, take, eligible, e, n_start, tol, k)
    else:
        _select_lookahead(mem, phi, gain, wait, take, eligible, e, n_start, tol, k)
    return True


@njit(cache=True, inline="always")
def _value_at(ent, f, t_eval):  # pragma: no cover - jit
    """v(S, t_eval) of entity f (S = its coalition) in closed form from its last update; 0 for f = -1 (∅)."""
    if f < 0:
        return 0
    d = t_eval - ent[f, NOW]
    return ent[f, VALUE] + d * ent[f, WORK_TOTAL] + ent[f, RUNNING_TOTAL] * (d * (d + 1) // 2)


@njit(cache=True, inline="always")
def _phi_exact(ent, value_ent, pot, pot_vmax, pot_stamp, pot_stack, phi, e, t_eval, v_self):  # pragma: no cover - jit
    """Exact φ^C via the Hart–Mas-Colell potential; returns (max |v(S)| over S ⊆ C, |C|).

    P(S) = (v(S) + Σ_{i∈S} P(S∖{i})) / |S| depends only on the values of the subsets of S, so the potential of
    the subgame on C is the full game's potential restricted to C (Hart & Mas-Colell 1989, Sec. 2), and one
    potential per time step serves every coalition deciding at that step: ``pot[S]`` is computed once per
    t_eval (``pot_stamp[S] == t_eval``) by `_potential_at`, instead of once per deciding superset of S. This
    costs O(k) per subset touched, at most O(k·2^k) per time step for all coalitions together, where a
    separate subgame per coalition costs Σ_C |C|·2^|C| = O(k·3^k). The values, the order of the sums and
    the divisions are those of `potential_into` on the subgame, so φ is the same float64 number
    (tests/test_ref.py checks it bit for bit).
    """
    mask = ent[e, MASK]
    p_self, vmax, size = _potential_at(ent, value_ent, pot, pot_vmax, pot_stamp, pot_stack, mask, t_eval, v_self)
    for u in range(phi.size):
        phi[u] = 0.0
        if (mask >> u) & 1:
            phi[u] = p_self - pot[mask & ~(1 << u)]  # `shapley_of`: P(C) − P(C∖{u})
    return vmax, size


@njit(cache=True, inline="always")
def _potential_at(ent, value_ent, pot, pot_vmax, pot_stamp, pot_stack, mask, t_eval,
                  v_self):  # pragma: no cover - jit
    """P(C) at t_eval with v(C) = ``v_self``, after making P(S) current for every proper subset S of C.

    Depth-first over the subsets whose ``pot_stamp`` is stale, children (S∖{i}) before parents; every proper
    subcoalition of C has decided at t already (coalitions decide in increasing size), so each v(S, t_eval)
    is final when read. ``pot_vmax[S]`` = max |v(T)| over T ⊆ S, for the error bound. The stack never holds
    more than k + k·k entries (each level of the depth-first path pushes at most k children).
    Returns (P(C), max |v(S)| over S ⊆ C, |C|); P(C) is stored too, for C's supersets at the same time.
    """
    top = 0
    rest = mask
    while rest:
        low = rest & -rest
        child = mask ^ low
        if child and pot_stamp[child] != t_eval:
            pot_stack[top] = child
            top += 1
        rest ^= low
    while top > 0:
        s = pot_stack[top - 1]
        if pot_stamp[s] == t_eval:
            top -= 1
            continue
        ready = True
        rest = s
        while rest:
            low = rest & -rest
            child = s ^ low
            if child and pot_stamp[child] != t_eval:
                pot_stack[top] = child
                top += 1
                ready = False
            rest ^= low
        if ready:
            _potential_step(pot, pot_vmax, pot_stamp, s, t_eval, float(_value_at(ent, value_ent[s], t_eval)))
            top -= 1
    size = _potential_step(pot, pot_vmax, pot_stamp, mask, t_eval, float(v_self))
    return pot[mask], pot_vmax[mask], size


@njit(cache=True, inline="always")
def _potential_step(pot, pot_vmax, pot_stamp, s, t_eval, value):  # pragma: no cover - jit
    """P(S) = (v(S) + Σ_{i∈S} P(S∖{i})) / |S| as in `potential_into` (members in increasing order; P(∅) = 0,
    kept in ``pot[0]``), and max |v(T)| over T ⊆ S; returns |S|."""
    acc = value
    vmax = abs(value)
    size = 0
    rest = s
    while rest:
        low = rest & -rest
        acc += pot[s ^ low]
        vmax = max(vmax, pot_vmax[s ^ low])
        rest ^= low
        size += 1
    pot[s] = acc / size
    pot_vmax[s] = vmax
    pot_stamp[s] = t_eval
    return size


@njit(cache=True, inline="always")
def _phi_sampled(ent, term_org, term_pre, term_post, term_weight, phi, t_eval, k):  # pragma: no cover - jit
    """RAND's φ_u = Σ_j w_j (v(post_j) − v(pre_j)) over u's terms (SPAA'13 Alg. 3, lines 32–37)."""
    for u in range(k):
        phi[u] = 0.0
    vmax = 0.0
    for j in range(term_org.size):
        post = _value_at(ent, term_post[j], t_eval)
        pre = _value_at(ent, term_pre[j], t_eval)
        phi[term_org[j]] += term_weight[j] * float(post - pre)  # the int64 difference is exact
        vmax = max(vmax, abs(float(post)), abs(float(pre)))
    return vmax


@njit(cache=True, inline="always")
def _efficient(phi, mask, v_self, vmax, k):  # pragma: no cover - jit
    """Shapley efficiency: Σ_{u∈C} φ_u = v(C), up to `EFFICIENCY_RTOL` of the largest value involved."""
    total = 0.0
    for u in range(k):
        if (mask >> u) & 1:
            total += phi[u]
    return abs(total - float(v_self)) <= EFFICIENCY_RTOL * max(1.0, vmax)


@njit(cache=True, inline="always")
def _record(ent, phi, rec_time, rec_phi, rec_values, glob, e, t_eval, v_self, k):  # pragma: no cover - jit
    """Tests: keep t_eval, φ and the value of every entity at t_eval (all are final: e is processed last)."""
    r = glob[G_N_REC]
    rec_time[r] = t_eval
    for u in range(k):
        rec_phi[r, u] = phi[u]
    for f in range(ent.shape[0]):
        rec_values[r, f] = float(v_self if f == e else _value_at(ent, f, t_eval))
    glob[G_N_REC] = r + 1


@njit(cache=True, inline="always")
def _argmax(values, eligible, tol, k):  # pragma: no cover - jit
    """Index of the largest value among eligible organizations; values within `tol` of the best so far count
    as ties, which go to the lowest index (tol is the float64 error bound, so exact ties stay ties)."""
    best = -1
    best_value = 0.0
    for u in range(k):
        if eligible[u] and (best < 0 or values[u] > best_value + tol):
            best, best_value = u, values[u]
    return best


@njit(cache=True, inline="always")
def _select_literal(mem, phi, gain, wait, take, eligible, e, n_start, tol, k):  # pragma: no cover - jit
    """SPAA'13 Alg. 2: start the head job of argmax_u (φ_u − ψ_u). Neither changes within t (a job started at t
    adds 0 to ψsp(t)), so that organization takes machines until its queue is empty, then the next one."""
    for u in range(k):
        gain[u] = phi[u] - float(mem[e, PSI, u])
        eligible[u] = wait[u] > 0
        take[u] = 0
    left = n_start
    while left > 0:
        best = _argmax(gain, eligible, tol, k)
        take[best] = min(wait[best], left)
        left -= take[best]
        eligible[best] = False


@njit(cache=True, inline="always")
def _select_lookahead(mem, phi, gain, wait, take, eligible, e, n_start, tol, k):  # pragma: no cover - jit
    """Give the free machines one at a time to argmax_u (g_u − x_u), g_u = φ_u(t+1) − (ψ_u + W_u + n_u).

    With x_u jobs of u started at t, ψ_u(t + 1) = ψ_u + W_u + n_u + x_u, so this minimizes
    Σ_u |φ_u(t + 1) − ψ_u(t + 1)| = Σ_u |g_u − x_u| over 0 <= x_u <= waiting_u, Σ x_u = n_start (a separable
    convex apportionment: each machine goes where it lowers the distance most).
    """
    for u in range(k):
        gain[u] = phi[u] - float(mem[e, PSI, u] + mem[e, WORK, u] + mem[e, RUN, u])
        eligible[u] = wait[u] > 0
        take[u] = 0
    for _ in range(n_start):
        best = _argmax(gain, eligible, tol, k)
        take[best] += 1
        gain[best] -= 1.0
        eligible[best] = take[best] < wait[best]


