"""The association tree as Slurm's association manager links it (``assoc_mgr.c``), by index.

Two parents per association:

* the *direct* parent (``parent_assoc_ptr``): the account it hangs from; sshare's order and usage roll-up use it;
* the *fair-share* parent (``fs_assoc_ptr``): the nearest ancestor whose shares are not ``parent``. The
  fair-share children of an account (``children_list``) are therefore its direct children plus, in place of any
  child account with ``parent`` shares, that account's own children (recursively): ``parent`` shares reparent the
  children. Siblings are the fair-share children of one account, in sshare's order.

``level_shares`` (the denominator of NormShares) is the sum of the raw shares of an association's fair-share
siblings, itself included, where an association with ``parent`` shares counts 0 (Slurm sums the children of such
an account, and it has none left once they are reparented).
"""

from __future__ import annotations

from dataclasses import dataclass

from fairsched.workload.share_tree import PARENT, ShareTree


@dataclass(frozen=True)
class IndexedTree:
    """Arrays over the associations of a `ShareTree`, in its order (root at 0)."""

    is_user: tuple[bool, ...]
    use_parent: tuple[bool, ...]
    shares: tuple[int, ...]          # raw shares; 0 where ``parent``
    parent: tuple[int, ...]          # direct parent, -1 for root
    fs_parent: tuple[int, ...]       # fair-share parent, -1 for root
    fs_children: tuple[tuple[int, ...], ...]
    level_shares: tuple[int, ...]    # 0 for root
    usage: tuple[float, ...]         # raw usage; an account left empty sums its direct children

    @property
    def n_users(self) -> int:
        """Number of user associations (Fair Tree's ``g_user_assoc_count``)."""
        return sum(self.is_user)


def index_tree(tree: ShareTree) -> IndexedTree:
    """Link the associations of `tree` (whose first association is root) as Slurm does."""
    assocs = tree.associations
    n = len(assocs)
    parent = tree.parents()
    use_parent = tuple(a.shares == PARENT for a in assocs)
    shares = tuple(0 if a.shares == PARENT else int(a.shares) for a in assocs)
    fs_parent = []
    for i in range(n):
        up = parent[i]
        while up > 0 and use_parent[up]:  # root (0) always counts, whatever its shares
            up = parent[up]
        fs_parent.append(up)
    fs_children: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):  # in the tree's order: sshare's order, as Slurm's sorted association list
        fs_children[fs_parent[i]].append(i)
    level = [0] * n
    for kids in fs_children:
        total = sum(shares[k] for k in kids)
        for k in kids:
            level[k] = total
    return IndexedTree(tuple(a.is_user for a in assocs), use_parent, shares, parent, tuple(fs_parent),
                       tuple(tuple(k) for k in fs_children), tuple(level), _rolled_up_usage(tree, parent))


def _rolled_up_usage(tree: ShareTree, parent: tuple[int, ...]) -> tuple[float, ...]:
    """Raw usage, where an account given none gets the sum of its direct children (deepest first)."""
    usage = [a.raw_usage for a in tree.associations]
    sums = [0.0] * len(usage)
    for i in sorted(range(1, len(usage)), key=lambda i: -tree.depths[i]):
        own = usage[i]
        value = sums[i] if own is None else own
        usage[i] = value
        sums[parent[i]] += value
    if usage[0] is None:
        usage[0] = sums[0]
    return tuple(float(u) for u in usage)  # type: ignore[arg-type]
