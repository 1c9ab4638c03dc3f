"""Classic fair-share: Slurm's multifactor fair-share with ``PriorityFlags=NO_FAIR_TREE``.

Implements ``_set_usage_efctv`` / ``priority_p_calc_fs_factor`` of Slurm's
``src/plugins/priority/multifactor/priority_multifactor.c`` with the shares normalization of
``src/common/assoc_mgr.c`` (``_normalize_assoc_shares_traditional``). For association a with direct parents
a = a_0, a_1, ..., root and fair-share parent p (the nearest ancestor without ``parent`` shares):

* NormShares S = product over the a_k without ``parent`` shares of shares(a_k) / level_shares(a_k) (0 when some
  level has no shares); an association with ``parent`` shares shows p's S;
* NormUsage UA = raw_usage(a) / raw_usage(root), at most 1;
* EffectvUsage UE = UA for a child of root; UE(p) for ``parent`` shares; UE(p) when its siblings hold no shares;
  else UE = UA + (UE(p) - UA) * shares(a) / level_shares(a);
* FairShare F = 2^(-UE / S / FairShareDampeningFactor), 0 when S = 0.

Root shows S = 1, UE = 1 and F = 2^(-1/damping), as sshare does. Slurm's FairShareDampeningFactor is an integer
>= 1; any positive number is accepted here. ``PriorityFlags=DEPTH_OBLIVIOUS`` is not modelled.
"""

from __future__ import annotations

from fairsched.errors import ConfigError
from fairsched.fairshare._tree import index_tree
from fairsched.fairshare.result import FairShareTable, build_rows, normalized_usage
from fairsched.workload.share_tree import ShareTree


def classic(tree: ShareTree, *, damping: float = 1.0) -> FairShareTable:
    """FairShare of every association under classic fair-share (see the module doc).

    Examples
    --------
    >>> from fairsched.workload.share_tree import Association, share_tree
    >>> tree = share_tree([Association("a", parent="root", shares=1), Association("a", "u1", raw_usage=10),
    ...                    Association("b", parent="root", shares=3), Association("b", "u2", raw_usage=30)])
    >>> [(r.user, round(r.fairshare, 6)) for r in classic(tree).rows if r.user]
    [('u1', 0.5), ('u2', 0.5)]
    """
    if not damping > 0:
        raise ConfigError(f"FairShareDampeningFactor must be > 0, got {damping}")
    t = index_tree(tree)
    n = len(t.shares)
    norm_usage = normalized_usage(t.usage)
    shares = [1.0] * n
    for i in range(1, n):  # parents come first in sshare's order
        if t.use_parent[i]:
            shares[i] = shares[t.fs_parent[i]]
            continue
        k = i
        while t.parent[k] >= 0:
            if not t.use_parent[k]:
                shares[i] = 0.0 if not t.level_shares[k] else shares[i] * t.shares[k] / t.level_shares[k]
            k = t.parent[k]
    effective = [1.0] * n
    for i in range(1, n):
        p = t.fs_parent[i]
        usage_norm = norm_usage[i] or 0.0
        if p == 0:
            effective[i] = usage_norm
        elif t.use_parent[i] or not t.level_shares[i]:
            effective[i] = effective[p]
        else:
            effective[i] = usage_norm + (effective[p] - usage_norm) * (t.shares[i] / t.level_shares[i])
    factor: list[float | None] = [
        2.0 ** (-(effective[i] / shares[i]) / damping) if shares[i] > 0 else 0.0 for i in range(n)]
    return FairShareTable("classic", float(damping), build_rows(
        tree, t.usage, norm_shares=shares, norm_usage=norm_usage, effective_usage=effective, fairshare=factor,
        level_fs=[None] * n), tree.reported)
