"""Slurm's association tree as data: root -> accounts -> sub-accounts -> users, with raw shares and raw usage.

An *association* is one row of ``sacctmgr show assoc``: an account (with its parent account) or a user in an
account. Each has raw shares (``Fairshare=`` in sacctmgr: an integer, or ``parent``, Slurm's
``SLURMDB_FS_USE_PARENT``) and a raw usage (decayed CPU-seconds, or billing-seconds). `share_tree` checks a list of
associations and puts them in the order ``sshare -a`` prints them; the readers of `fairsched.workload.sshare` build
one from a file; `fairsched.fairshare` computes Fair Tree and classic fair-share on it.

Order (Slurm's ``slurmdb_sort_hierarchical_assoc_list``): depth first from ``root``; under each account its users
first, then its sub-accounts, each group sorted by name (byte order, as ``strcmp``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fairsched.errors import InputError

ROOT = "root"
PARENT: Literal["parent"] = "parent"  # raw shares ``parent``: the association uses its parent's fair-share

Shares = int | Literal["parent"]


@dataclass(frozen=True)
class Association:
    """One association of the tree.

    Parameters
    ----------
    account : str
        The account's name (an account association) or the account the user belongs to (a user association).
    user : str or None
        The user's name; None for an account association.
    parent : str or None
        The parent account of an account association (None for ``root``); ignored for a user association, whose
        parent is ``account``.
    shares : int or "parent"
        Raw shares, ``>= 0``; ``"parent"`` reparents the association's children (Slurm's ``Fairshare=parent``).
    raw_usage : float or None
        Raw usage; None means the sum of the association's children (so 0 for a user).
    """

    account: str
    user: str | None = None
    parent: str | None = None
    shares: Shares = 1
    raw_usage: float | None = None

    @property
    def is_user(self) -> bool:
        """True for a user association."""
        return self.user is not None

    @property
    def parent_account(self) -> str | None:
        """The account this association hangs from in the tree (None for root)."""
        return self.account if self.user is not None else self.parent


@dataclass(frozen=True)
class ReportedShares:
    """What ``sshare -a -l -P`` itself printed for one association (None where the column was empty or absent)."""

    norm_shares: float | None = None
    norm_usage: float | None = None
    effective_usage: float | None = None
    fairshare: float | None = None
    level_fs: float | None = None


@dataclass(frozen=True)
class ShareTree:
    """A checked association tree in sshare's row order.

    Attributes
    ----------
    associations : tuple of Association
        ``root`` first, then depth first (users before sub-accounts, each by name) unless the input's own order
        was kept (an sshare dump).
    depths : tuple of int
        Depth of each association (root 0); a user is one deeper than its account.
    reported : tuple of ReportedShares or None, or None
        sshare's own numbers, one per association, when the tree was read from an sshare dump.
    source : str or None
        ``"csv"``, ``"sshare"``, ``"sacctmgr"``, ``"sacctmgr-script"`` or None (built in code).
    """

    associations: tuple[Association, ...]
    depths: tuple[int, ...]
    reported: tuple[ReportedShares | None, ...] | None = None
    source: str | None = None

    def index(self, account: str, user: str | None = None) -> int:
        """Position of the association (account, user); raises KeyError when absent."""
        for i, assoc in enumerate(self.associations):
            if assoc.user == user and assoc.account == account:
                return i
        raise KeyError((account, user))

    def parents(self) -> tuple[int, ...]:
        """Index of each association's direct parent (-1 for root)."""
        accounts = {a.account: i for i, a in enumerate(self.associations) if not a.is_user}
        return tuple(-1 if a.parent_account is None else accounts[a.parent_account] for a in self.associations)

    def with_usage(self, usage: Sequence[float]) -> ShareTree:
        """The same tree with every raw usage replaced (one value per association, in order)."""
        if len(usage) != len(self.associations):
            raise ValueError(f"need {len(self.associations)} usages, got {len(usage)}")
        assocs = tuple(Association(a.account, a.user, a.parent, a.shares, float(u))
                       for a, u in zip(self.associations, usage, strict=True))
        return ShareTree(assocs, self.depths, None, self.source)


def share_tree(associations: Iterable[Association], *, path: str | Path | None = None,
               lines: Sequence[int] | None = None, keep_order: bool = False,
               reported: Sequence[ReportedShares | None] | None = None, source: str | None = None) -> ShareTree:
    """Check associations and order them as sshare does.

    A missing ``root`` account is added (its shares do not matter). Raises `InputError` (with ``path:line`` when
    `lines` gives each association's line) for: a user without an account, a negative or non-integer share, a
    negative or non-finite usage, an association given twice, an unknown parent account, an account other than
    root without a parent, and a cycle of parent accounts.

    Parameters
    ----------
    keep_order : bool
        Keep the given order (an sshare dump is already in sshare's order); the parents must still precede
        their children.
    """
    assocs = list(associations)
    where = list(lines) if lines is not None else [None] * len(assocs)
    extra = list(reported) if reported is not None else None

    def fail(message: str, i: int | None) -> InputError:
        return InputError(message, path=path, line=None if i is None else where[i])

    accounts: dict[str, int] = {}
    users: set[tuple[str, str]] = set()
    for i, a in enumerate(assocs):
        _check_values(a, lambda message, i=i: fail(message, i))  # type: ignore[misc]
        if a.is_user:
            if (a.account, a.user) in users:
                raise fail(f"user {a.user!r} appears twice in account {a.account!r}", i)
            users.add((a.account, a.user))  # type: ignore[arg-type]
        else:
            if a.account in accounts:
                raise fail(f"account {a.account!r} appears twice (first on line {where[accounts[a.account]]})", i)
            accounts[a.account] = i
    if ROOT not in accounts:
        assocs.insert(0, Association(ROOT))
        where.insert(0, None)
        if extra is not None:
            extra.insert(0, None)
        accounts = {name: i + 1 for name, i in accounts.items()}
        accounts[ROOT] = 0
    for i, a in enumerate(assocs):
        up = a.parent_account
        if a.account == ROOT and not a.is_user:
            if a.parent:
                raise fail(f"root cannot have a parent account (got {a.parent!r})", i)
        elif up is None:
            raise fail(f"account {a.account!r} has no parent; only root may have an empty parent", i)
        elif up not in accounts:
            what = "user" if a.is_user else "account"
            raise fail(f"{what} {a.user or a.account!r} names unknown parent account {up!r}", i)
    _check_cycles(assocs, accounts, fail)
    order = list(range(len(assocs))) if keep_order else _sshare_order(assocs)
    depths = _depths(assocs, accounts)
    if keep_order:
        seen: set[str] = set()
        for i in order:
            up = assocs[i].parent_account
            if up is not None and up not in seen:
                raise fail(f"{assocs[i].user or assocs[i].account!r} comes before its parent account {up!r}", i)
            if not assocs[i].is_user:
                seen.add(assocs[i].account)
    return ShareTree(tuple(assocs[i] for i in order), tuple(depths[i] for i in order),
                     None if extra is None else tuple(extra[i] for i in order), source)


def _check_values(a: Association, fail: Callable[[str], InputError]) -> None:
    if a.user is not None and not a.account:
        raise fail(f"user {a.user!r} has no account")
    if not a.account:
        raise fail("an account association needs a name")
    if a.shares != PARENT and (not isinstance(a.shares, int) or isinstance(a.shares, bool) or a.shares < 0):
        raise fail(f"shares is {a.shares!r}; expected an integer >= 0 or 'parent'")
    if a.raw_usage is not None and (not math.isfinite(a.raw_usage) or a.raw_usage < 0):
        raise fail(f"raw_usage is {a.raw_usage!r}; expected a number >= 0")


def _check_cycles(assocs: list[Association], accounts: dict[str, int],
                  fail: Callable[[str, int | None], InputError]) -> None:
    done: set[str] = {ROOT}
    for name in accounts:
        path: list[str] = []
        current = name
        while current not in done:
            if current in path:
                cycle = " -> ".join([*path[path.index(current):], current])
                raise fail(f"accounts form a cycle: {cycle}", accounts[current])
            path.append(current)
            current = assocs[accounts[current]].parent or ROOT
        done.update(path)


def _sshare_order(assocs: list[Association]) -> list[int]:
    children: dict[str, list[int]] = {}
    root = next(i for i, a in enumerate(assocs) if a.account == ROOT and not a.is_user)
    for i, a in enumerate(assocs):
        if a.parent_account is not None:
            children.setdefault(a.parent_account, []).append(i)

    def key(i: int) -> tuple[int, bytes]:
        a = assocs[i]
        return (0, a.user.encode()) if a.user is not None else (1, a.account.encode())

    order: list[int] = []
    stack = [root]
    while stack:
        i = stack.pop()
        order.append(i)
        if not assocs[i].is_user:
            stack.extend(reversed(sorted(children.get(assocs[i].account, []), key=key)))
    return order


def _depths(assocs: list[Association], accounts: dict[str, int]) -> list[int]:
    memo: dict[str, int] = {}

    def depth(name: str) -> int:  # recursion as deep as the tree (cycles were refused before)
        if name not in memo:
            parent = assocs[accounts[name]].parent
            memo[name] = 0 if parent is None else depth(parent) + 1
        return memo[name]

    return [depth(a.account) + 1 if a.is_user else depth(a.account) for a in assocs]
