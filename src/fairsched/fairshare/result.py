"""The result of a fair-share computation: one row per association, the columns of ``sshare -a -l``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fairsched.workload.share_tree import ReportedShares, Shares, ShareTree

Algorithm = Literal["fair-tree", "classic"]
ALGORITHMS: tuple[Algorithm, ...] = ("fair-tree", "classic")


@dataclass(frozen=True)
class FairShareRow:
    """One association's line of ``sshare -a -l`` (None where sshare prints nothing).

    Attributes
    ----------
    account, user : str, str or None
        The association (user None for an account).
    depth : int
        Depth in the tree (root 0); sshare indents the Account column by this many spaces.
    raw_shares : int, "parent" or None
        RawShares (None for root).
    norm_shares : float
        NormShares: shares / sum of the siblings' shares (Fair Tree), or its product down the path (classic).
    raw_usage : float
        RawUsage.
    norm_usage : float or None
        NormUsage: raw usage / root's raw usage, at most 1 (None for root).
    effective_usage : float
        EffectvUsage: raw usage / the fair-share parent's (Fair Tree), or the classic UE.
    fairshare : float or None
        FairShare: the factor of the job priority (Fair Tree: users only).
    level_fs : float or None
        LevelFS (Fair Tree only; ``inf`` for no usage; None for root and ``parent`` shares).
    """

    account: str
    user: str | None
    depth: int
    raw_shares: Shares | None
    norm_shares: float
    raw_usage: float
    norm_usage: float | None
    effective_usage: float
    fairshare: float | None
    level_fs: float | None


@dataclass(frozen=True)
class FairShareTable:
    """Every association's fair-share, in sshare's row order.

    Attributes
    ----------
    algorithm : {"fair-tree", "classic"}
    damping : float
        FairShareDampeningFactor (classic only; 1 for Fair Tree, which does not use it).
    rows : tuple of FairShareRow
    reported : tuple of ReportedShares or None, or None
        sshare's own numbers, row by row, when the tree came from an sshare dump.
    """

    algorithm: Algorithm
    damping: float
    rows: tuple[FairShareRow, ...]
    reported: tuple[ReportedShares | None, ...] | None = None

    def fairshare(self, account: str, user: str | None = None) -> float | None:
        """The FairShare of one association; raises KeyError when absent."""
        for row in self.rows:
            if row.account == account and row.user == user:
                return row.fairshare
        raise KeyError((account, user))

    def user_factors(self) -> dict[tuple[str, str], float]:
        """{(account, user): FairShare} of every user association: the factor its jobs get."""
        return {(r.account, r.user): r.fairshare or 0.0 for r in self.rows if r.user is not None}


def build_rows(tree: ShareTree, usage: tuple[float, ...], *, norm_shares: list[float], norm_usage: list[float | None],
               effective_usage: list[float], fairshare: list[float | None],
               level_fs: list[float | None]) -> tuple[FairShareRow, ...]:
    """Assemble the rows from per-association columns (root's RawShares is always None)."""
    return tuple(
        FairShareRow(a.account, a.user, depth, None if i == 0 else a.shares, norm_shares[i], usage[i],
                     norm_usage[i], effective_usage[i], fairshare[i], level_fs[i])
        for i, (a, depth) in enumerate(zip(tree.associations, tree.depths, strict=True)))


def normalized_usage(usage: tuple[float, ...]) -> list[float | None]:
    """NormUsage: raw usage / root's raw usage, at most 1 (0 when root has none); None for root itself."""
    total = usage[0]
    return [None] + [min(u / total, 1.0) if total else 0.0 for u in usage[1:]]
