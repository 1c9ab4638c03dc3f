"""Compiled kernels of PBA (Algorithm 2) and generalized PBA (§VI).

numba-level API: plain arrays and scalars only, nothing raised.

Symbols follow Shafiee & Ghaderi, IFIP Networking 2020: ``tau[i]`` is τ_i, the work left on machine i; ``p`` is a
task's processing time p_ij; ``eps[j]`` is the perturbation ε_j of Algorithm 2. Instances arrive as CSR by job
(``indptr``, ``task_machine``, ``task_time``) and by machine (``m_ptr``, ``m_job``, ``m_time``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fairsched.openshop._kernels import loads, sort_machines

# -- Algorithm 2 (PBA) -------------------------------------------------------------------------------------


@njit(cache=True)
def _beats(key, e, best_key, best_e):
    """Compare key − e with best_key − best_e exactly enough: −1 worse, 0 tie, 1 better (smaller).

    The integer parts are subtracted first so that an ε of 1e−4 is not lost against keys of 10^12 (µs).
    """
    d = float(key - best_key)
    de = e - best_e
    if d < de:
        return 1
    if d == de:
        return 0
    return -1


@njit(cache=True)
def _pba_key(j, indptr, task_machine, task_time, tau, rank, member, n_words, best_key, eps_j, best_e, have_best):
    """Exact key_j = max_{i∈M}(τ_i − p_ij), or −1 as soon as it provably cannot beat or tie the best so far.

    max over machines off M_j of τ_i = τ of the first machine in `rank` (τ descending) that j does not use,
    found by walking `rank` with the membership bitmap; then the max over j's own tasks.
    """
    r = 0
    m = rank.size
    while r < m and (member[j * n_words + (rank[r] >> 6)] >> np.uint64(rank[r] & 63)) & np.uint64(1):
        r += 1
    key = tau[rank[r]] if r < m else 0
    if have_best and float(key - best_key) > eps_j - best_e:
        return -1
    for t in range(indptr[j], indptr[j + 1]):
        v = tau[task_machine[t]] - task_time[t]
        if v > key:
            key = v
            if have_best and float(key - best_key) > eps_j - best_e:
                return -1
    return key


@njit(cache=True)
def _remove_job(j, indptr, task_machine, task_time, tau, rank, alive):
    alive[j] = False
    for t in range(indptr[j], indptr[j + 1]):
        tau[task_machine[t]] -= task_time[t]
    sort_machines(rank, tau)


@njit(cache=True)
def pba_order_kernel(indptr, task_machine, task_time, m_ptr, m_job, m_time, member, n_words, eps, eps_desc,
                     eps_max):
    """Positions n..1 of Algorithm 2: each time the unique argmin_j max_{i∈M}(τ_i − p_ij) − ε_j.

    Returns (order, tie): order[l] = the job at position l (0-based); tie = True when two jobs tied exactly
    (the caller redraws ε, Algorithm 2 line 5). `m_*` list each machine's tasks by p descending.

    Why it is fast: a job without a task on the most loaded machine i1 has key τ_{i1} = max key, so only i1's
    jobs are scanned, by p descending, stopping once τ_{i1} − p cannot beat the best; `_pba_key` rejects most of
    them after a few steps. Jobs off i1 (key τ_{i1} − ε_j) matter only when the best key is within ε of τ_{i1}.
    """
    n = indptr.size - 1
    m = m_ptr.size - 1
    alive = np.ones(n, np.bool_)
    tau = loads(indptr, task_machine, task_time, alive, m)
    rank = np.arange(m)
    sort_machines(rank, tau)
    head = m_ptr[:-1].copy()
    order = np.empty(n, np.int64)
    g_ptr = 0
    for pos in range(n - 1, -1, -1):
        while not alive[eps_desc[g_ptr]]:
            g_ptr += 1
        g = eps_desc[g_ptr]  # the alive job with the largest ε
        i1 = rank[0]
        top = tau[i1]
        best, best_key, best_e, tie = _scan_top_machine(i1, top, head, m_ptr, m_job, m_time, alive, indptr,
                                                        task_machine, task_time, tau, rank, member, n_words,
                                                        eps, eps_max)
        if best < 0 or best_key == top:  # every alive job has key τ_{i1}: the largest ε wins
            best, tie = g, False
        elif float(top - best_key) <= eps[g] - best_e:  # ε ≥ 1 time unit: a job off i1 may win, check all
            best, tie = _scan_all(alive, indptr, task_machine, task_time, tau, rank, member, n_words, eps)
        if tie:
            return order, True
        order[pos] = best
        _remove_job(best, indptr, task_machine, task_time, tau, rank, alive)
    return order, False


@njit(cache=True)
def _scan_top_machine(i1, top, head, m_ptr, m_job, m_time, alive, indptr, task_machine, task_time, tau, rank,
                      member, n_words, eps, eps_max):
    """Best (job, key, ε, tie) among the alive jobs with a task on machine i1 (best = −1 if none)."""
    while head[i1] < m_ptr[i1 + 1] and not alive[m_job[head[i1]]]:
        head[i1] += 1
    best, best_key, best_e, tie = -1, 0, 0.0, False
    for e in range(head[i1], m_ptr[i1 + 1]):
        j = m_job[e]
        if not alive[j]:
            continue
        if best >= 0 and float(top - m_time[e] - best_key) > eps_max - best_e:
            break  # every later job has key >= τ_{i1} − p >= this bound: none can beat or tie
        key = _pba_key(j, indptr, task_machine, task_time, tau, rank, member, n_words, best_key, eps[j], best_e,
                       best >= 0)
        best, best_key, best_e, tie = _consider(j, key, eps[j], best, best_key, best_e, tie)
    return best, best_key, best_e, tie


@njit(cache=True)
def _scan_all(alive, indptr, task_machine, task_time, tau, rank, member, n_words, eps):
    """Best (job, tie) over every alive job: the slow path, needed only when ε >= 1 time unit."""
    best, best_key, best_e, tie = -1, 0, 0.0, False
    for j in range(alive.size):
        if not alive[j]:
            continue
        key = _pba_key(j, indptr, task_machine, task_time, tau, rank, member, n_words, best_key, eps[j], best_e,
                       best >= 0)
        best, best_key, best_e, tie = _consider(j, key, eps[j], best, best_key, best_e, tie)
    return best, tie


@njit(cache=True)
def _consider(j, key, e, best, best_key, best_e, tie):
    """Fold candidate j (key, ε) into the running (best, key, ε, tie); key < 0 = rejected early by `_pba_key`."""
    if key < 0:
        return best, best_key, best_e, tie
    cmp = _beats(key, e, best_key, best_e) if best >= 0 else 1
    if cmp == 1:
        return j, key, e, False
    if cmp == 0:
        return best, best_key, best_e, True
    return best, best_key, best_e, tie


# -- §VI generalized PBA -----------------------------------------------------------------------------------


@njit(cache=True)
def _better_utility(a, b, a_val, a_eps, b_val, b_eps):
    """1 if job a's utility if last, val − w·ε, is larger than b's, 0 on an exact tie, −1 otherwise.

    val_j = w_j (H_j − c_j) is exact for integer H − c; the tiny ε terms are compared after the large values.
    """
    if b < 0:
        return 1
    if a < 0:
        return -1
    d = a_val[a] - b_val[b]
    de = a_eps[a] - b_eps[b]
    if d > de:
        return 1
    if d == de:
        return 0
    return -1


@njit(cache=True)
def _tree_update(tree, size, j, val, weps):
    """Segment tree of argmax over jobs: recompute the ancestors of leaf j after its value or presence changed."""
    node = (size + j) // 2
    while node >= 1:
        a, b = tree[2 * node], tree[2 * node + 1]
        tree[node] = a if _better_utility(a, b, val, weps, val, weps) >= 0 else b
        node //= 2


@njit(cache=True)
def _tree_raise(tree, size, j, val, weps):
    """Leaf j's utility went up (utilities only rise as τ falls): climb while j beats the node's best, then stop —
    the ancestors' bests are at least as good. O(1) for most updates instead of O(log n)."""
    node = (size + j) // 2
    while node >= 1:
        b = tree[node]
        if b != j:
            if _better_utility(j, b, val, weps, val, weps) != 1:
                return
            tree[node] = j
        node //= 2


@njit(cache=True)
def _anchor(j, indptr, task_machine, tau):
    """(c_j, machine) = max_{i∈M_j} τ_i and the first machine attaining it; (0, −1) for a job without tasks."""
    c, at = 0, -1
    for t in range(indptr[j], indptr[j + 1]):
        i = task_machine[t]
        if at < 0 or tau[i] > c:
            c, at = tau[i], i
    return c, at


@njit(cache=True)
def _anchor_walk(j, rank, member, n_words, tau):
    """As `_anchor`, by walking the machines by τ descending until one of j's (membership bitmap)."""
    for r in range(rank.size):
        i = rank[r]
        if (member[j * n_words + (i >> 6)] >> np.uint64(i & 63)) & np.uint64(1):
            return tau[i], i
    return 0, -1


@njit(cache=True)
def generalized_order_kernel(indptr, task_machine, task_time, m_ptr, member, n_words, weight, horizon, eps):
    """Positions n..1 of §VI: each time argmax_j U_j(c_j + ε_j), c_j = max_{i∈M_j} τ_i, U_j(t) = w_j (H_j − t).

    Returns (order, tie). c_j is kept per job with its anchor machine (where the max is attained); removing a
    job lowers τ on its machines, and only the jobs anchored there are re-evaluated, each by the cheaper of a
    scan of its tasks and a walk down the machines sorted by τ (`member`: bitmap of M_j). A segment tree gives
    the argmax; utilities only rise, so most updates stop after a level or two. `m_ptr` sizes the anchor lists.
    """
    n, m = indptr.size - 1, m_ptr.size - 1
    tau = loads(indptr, task_machine, task_time, np.ones(n, np.bool_), m)
    val, weps = np.empty(n, np.float64), weight * eps
    anchored = np.empty(max(m_ptr[-1], 1), np.int64)  # per machine, the jobs anchored there (slots m_ptr)
    count, slot, at = np.zeros(m, np.int64), np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    for j in range(n):
        c, at[j] = _anchor(j, indptr, task_machine, tau)
        val[j] = weight[j] * (horizon[j] - c)
        _attach(j, at, anchored, count, slot, m_ptr)
    tree, size = _build_tree(val, weps)
    order, buf = np.empty(n, np.int64), np.empty(n, np.int64)
    rank, where = np.arange(m), np.empty(m, np.int64)  # where[i] = position of machine i in rank
    for pos in range(n - 1, -1, -1):
        best = tree[1]
        if _has_tie(tree, size, best, val, weps):
            return order, True
        order[pos] = best
        _detach(best, at, anchored, count, slot, m_ptr)
        tree[size + best] = -1
        _tree_update(tree, size, best, val, weps)
        n_buf = 0
        for t in range(indptr[best], indptr[best + 1]):
            i = task_machine[t]
            tau[i] -= task_time[t]
            buf[n_buf:n_buf + count[i]] = anchored[m_ptr[i]:m_ptr[i] + count[i]]
            n_buf += count[i]
        if n_buf == 0:
            continue
        sort_machines(rank, tau)
        for r in range(m):
            where[rank[r]] = r
        for j in buf[:n_buf]:
            if where[at[j]] < indptr[j + 1] - indptr[j]:  # the walk stops at the old anchor at the latest
                c, new_at = _anchor_walk(j, rank, member, n_words, tau)
            else:
                c, new_at = _anchor(j, indptr, task_machine, tau)
            _refresh(j, c, new_at, at, anchored, count, slot, m_ptr, val, weight, horizon, tree, size, weps)
    return order, False


@njit(cache=True)
def _build_tree(val, weps):
    """Segment tree of argmax over jobs (leaves size..size+n−1; −1 = no job); returns (tree, size)."""
    size = 1
    while size < max(val.size, 1):
        size *= 2
    tree = np.full(2 * size, -1, np.int64)
    tree[size:size + val.size] = np.arange(val.size)
    for node in range(size - 1, 0, -1):
        a, b = tree[2 * node], tree[2 * node + 1]
        tree[node] = a if _better_utility(a, b, val, weps, val, weps) >= 0 else b
    return tree, size


@njit(cache=True)
def _refresh(j, c, new_at, at, anchored, count, slot, m_ptr, val, weight, horizon, tree, size, weps):
    """Record job j's new c_j (and anchor machine) and update the segment tree if its utility changed."""
    if new_at != at[j]:
        _detach(j, at, anchored, count, slot, m_ptr)
        at[j] = new_at
        _attach(j, at, anchored, count, slot, m_ptr)
    v = weight[j] * (horizon[j] - c)
    if v != val[j]:
        val[j] = v
        _tree_raise(tree, size, j, val, weps)


@njit(cache=True)
def _attach(j, at, anchored, count, slot, m_ptr):
    i = at[j]
    if i >= 0:
        slot[j] = count[i]
        anchored[m_ptr[i] + count[i]] = j
        count[i] += 1


@njit(cache=True)
def _detach(j, at, anchored, count, slot, m_ptr):
    i = at[j]
    if i >= 0:
        last = anchored[m_ptr[i] + count[i] - 1]
        anchored[m_ptr[i] + slot[j]] = last
        slot[last] = slot[j]
        count[i] -= 1
        slot[j] = -1


@njit(cache=True)
def _has_tie(tree, size, best, val, weps):
    """True when another alive job has exactly the best job's utility (walk down: O(n) only on near-ties)."""
    stack = np.empty(64, np.int64)
    stack[0] = 1
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        j = tree[node]
        if j < 0 or _better_utility(best, j, val, weps, val, weps) == 1:
            continue  # nothing in this subtree reaches the best
        if node >= size:
            if j != best:
                return True
            continue
        stack[top] = 2 * node
        stack[top + 1] = 2 * node + 1
        top += 2
    return False
