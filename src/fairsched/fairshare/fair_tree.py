"""Fair Tree: Slurm's default fair-share since 19.05 (``PriorityFlags`` without ``NO_FAIR_TREE``).

Implements the Fair Tree algorithm of Cox and Morrison (BYU), as in Slurm's
``src/plugins/priority/multifactor/fair_tree.c`` with the shares normalization of ``src/common/assoc_mgr.c``
(``_normalize_assoc_shares_fair_tree``) and the rows of ``assoc_mgr_get_shares`` / sshare's ``process.c``.

For every association a, with fair-share parent p (see `fairsched.fairshare._tree`):

* NormShares S = shares(a) / level_shares(a); an association with ``parent`` shares shows p's NormShares;
* EffectvUsage U = raw_usage(a) / raw_usage(p), 0 when p has no usage; NormUsage = raw_usage(a) / raw_usage(root);
* LevelFS = S / U: 0 when S = 0, ``inf`` when U = 0 < S; a user with ``parent`` shares gets ``inf`` (it ranks
  first in its account), an account with ``parent`` shares gets Slurm's ``NO_VAL`` (4294967294, and shows none).

Then, from root, the fair-share children of each account are sorted by LevelFS, highest first, users before
accounts on a tie, and walked depth first. Each user met takes the next rank, counting down from the number of
user associations N; its FairShare is rank / N. A user whose LevelFS equals the previous sibling's keeps the
previous rank (tie), and so does the first child of an account tied with its previous sibling.

Deviations from Slurm's web page, following its code:

* tied sibling accounts are **not** merged: ``_count_tied_accounts`` stops at the first sibling that is an
  account, so it always counts 0 (the page says their children are merged and sorted together);
* ``qsort`` is replaced by a stable sort: siblings tied on (LevelFS, user-first) keep sshare's order (by name).
  This only matters for tied sibling accounts, and matches glibc's merge sort;
* Slurm computes U and LevelFS in ``long double`` (80-bit on x86-64); we use double. It changes a tie only when two
  LevelFS differ in their last bits: the test24.4 case (uD2 against uD3) comes out the same either way.

Complexity: O(n log n) for n associations.
"""

from __future__ import annotations

import math

from fairsched.fairshare._tree import index_tree
from fairsched.fairshare.result import FairShareTable, build_rows, normalized_usage
from fairsched.workload.share_tree import ShareTree

NO_VAL = 4294967294.0  # Slurm's NO_VAL as a LevelFS: an account with ``parent`` shares (and the sort's start value)


def fair_tree(tree: ShareTree) -> FairShareTable:
    """FairShare of every association under Fair Tree (see the module doc).

    Examples
    --------
    >>> from fairsched.workload.share_tree import Association, share_tree
    >>> tree = share_tree([Association("a", parent="root", shares=1), Association("a", "u1", raw_usage=10),
    ...                    Association("a", "u2", raw_usage=30), Association("b", parent="root", shares=1),
    ...                    Association("b", "u3", raw_usage=0)])
    >>> [(r.user, r.fairshare) for r in fair_tree(tree).rows if r.user]
    [('u1', 0.6666666666666666), ('u2', 0.3333333333333333), ('u3', 1.0)]
    """
    t = index_tree(tree)
    n = len(t.shares)
    usage = t.usage
    norm_shares = [0.0] * n
    effective = [1.0] + [0.0] * (n - 1)
    level_fs: list[float] = [NO_VAL] * n
    for i in range(1, n):
        source = t.fs_parent[i] if t.use_parent[i] else i
        if t.level_shares[source]:
            norm_shares[i] = t.shares[source] / t.level_shares[source]
        parent_usage = usage[t.fs_parent[i]]
        effective[i] = usage[i] / parent_usage if parent_usage else 0.0
        level_fs[i] = _level_fs(norm_shares[i], effective[i], use_parent=t.use_parent[i], user=t.is_user[i])

    n_users = t.n_users
    factor: list[float | None] = [None] * n
    rank = rnt = n_users  # rnt: the rank the next user gets if it is not tied ("rank, no ties")

    def walk(siblings: tuple[int, ...], account_tied: bool) -> None:
        nonlocal rank, rnt
        previous = NO_VAL
        for position, i in enumerate(sorted(siblings, key=lambda i: (-level_fs[i], not t.is_user[i]))):
            tied = True if position == 0 and account_tied else previous == level_fs[i]
            if t.is_user[i]:
                if not tied:
                    rank = rnt
                factor[i] = rank / n_users
                rnt -= 1
            else:
                walk(t.fs_children[i], tied)  # no merging of tied accounts (see the module doc)
            previous = level_fs[i]

    walk(t.fs_children[0], False)
    shown_level = [None if i == 0 or t.use_parent[i] else level_fs[i] for i in range(n)]
    return FairShareTable("fair-tree", 1.0, build_rows(
        tree, usage, norm_shares=norm_shares, norm_usage=normalized_usage(usage), effective_usage=effective,
        fairshare=factor, level_fs=shown_level), tree.reported)


def _level_fs(shares: float, usage: float, *, use_parent: bool, user: bool) -> float:
    if use_parent:
        return math.inf if user else NO_VAL
    if shares == 0.0:
        return 0.0
    return shares / usage if usage else math.inf
