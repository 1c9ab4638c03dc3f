"""What ``fairsched whatif`` needs before it replays anything: its flags parsed, the policies checked against
this build, and the entitled shares (from ``--shares`` as in ``audit``, or from an association tree).

* `parse_duration` (``7d``, ``5min``, ``300``) and `parse_weights` (``fairshare=10000,age=1000,jobsize=0``, Slurm's
  ``PriorityWeight*``) turn the flags into numbers; a bad value is one `ConfigError` naming the flag.
* `check_policies`: every name of ``--policies`` is ``recorded`` or a queue order this build registers; anything
  else (a Slurm order before it lands, a typo) is one `UnknownPolicyError` listing the available names — never a
  silent skip. `check_backfill` does the same for ``--backfill``.
* `tree_shares`: each organization's entitled share from a TREE CSV / sshare dump / sacctmgr dump
  (`fairsched.workload.sshare.read_share_tree`), read as the audit reads ``--shares TREE``
  (`fairsched.audit.entitlement`): an account's NormShares (the product of shares / siblings' shares down the
  path) minus its sub-accounts', a user's the sum of its associations'; accounts of the tree without jobs are kept
  as organizations without jobs. Unlike the audit, an account of the log absent from the tree is not an error: it
  is added under ``root`` with raw shares 1 (sacctmgr's default ``Fairshare=1`` for an association created
  without one) and reported.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fairsched.errors import ConfigError, UnknownPolicyError

RECORDED = "recorded"
DEFAULT_TREE_SHARES = 1  # sacctmgr's Fairshare= default for an association created without one
_UNITS = {"": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "d": 86400, "day": 86400,
          "w": 7 * 86400, "week": 7 * 86400}
_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-z]*)\s*$")
WEIGHT_KEYS = {"age": "weight_age", "fairshare": "weight_fairshare", "jobsize": "weight_job_size",
               "partition": "weight_partition", "qos": "weight_qos"}
DEFAULT_WEIGHTS = "fairshare=10000,age=1000,jobsize=0"
TREE_ORG_BY = ("account", "user")


def parse_duration(text: str | float, flag: str) -> float:
    """Seconds from ``300``, ``30s``, ``5min`` / ``5m``, ``12h``, ``7d``, ``2w`` (> 0).

    >>> parse_duration("7d", "--half-life"), parse_duration("5min", "--calc-period"), parse_duration(90, "x")
    (604800.0, 300.0, 90.0)
    """
    if isinstance(text, int | float) and not isinstance(text, bool):
        seconds = float(text)
    else:
        match = _DURATION.match(str(text).lower())
        if match is None or match.group(2) not in _UNITS:
            raise ConfigError(f"{flag} {text!r}: expected a duration such as 300, 30s, 5min, 12h, 7d or 2w")
        seconds = float(match.group(1)) * _UNITS[match.group(2)]
    if not (math.isfinite(seconds) and seconds > 0):
        raise ConfigError(f"{flag} {text!r}: expected a positive duration")
    return seconds


def parse_weights(text: str) -> dict[str, int]:
    """Slurm's ``PriorityWeight*`` from ``fairshare=10000,age=1000,jobsize=0`` (keys: age, fairshare, jobsize,
    partition, qos; integers >= 0; keys left out are 0, Slurm's default).

    >>> parse_weights("fairshare=10000, age=1000")
    {'age': 1000, 'fairshare': 10000, 'jobsize': 0, 'partition': 0, 'qos': 0}
    """
    weights = dict.fromkeys(WEIGHT_KEYS, 0)
    for item in (part.strip() for part in str(text).split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in WEIGHT_KEYS:
            raise ConfigError(f"--weights {text!r}: expected KEY=INTEGER items with KEY among "
                              f"{', '.join(WEIGHT_KEYS)} (e.g. {DEFAULT_WEIGHTS})")
        try:
            weights[key] = int(value.strip())
        except ValueError:
            raise ConfigError(f"--weights {text!r}: {key}={value.strip()!r} is not an integer") from None
        if weights[key] < 0:
            raise ConfigError(f"--weights {text!r}: {key} must be >= 0")
    return weights


def available_policies() -> list[str]:
    """``recorded`` and every queue order this build registers, by code (``fcfs, sjf, lxf, drf, ...``)."""
    from fairsched.backfill.policies import order_names

    return [RECORDED, *order_names()]


def default_policies() -> tuple[str, ...]:
    """``recorded``, ``fcfs`` and every ticked (fair-share) order this build registers."""
    from fairsched.backfill.policies import order_names

    return (RECORDED, "fcfs", *order_names(ticked=True))


def check_policies(names: Sequence[str]) -> tuple[str, ...]:
    """The policies of ``--policies``, lower-cased, each checked (module docstring); duplicates refused."""
    available = available_policies()
    chosen = tuple(name.strip().lower() for name in names if name.strip())
    if not chosen:
        raise ConfigError(f"--policies is empty; choose among: {', '.join(available)}")
    for name in chosen:
        if name not in available:
            raise UnknownPolicyError(f"--policies: {name!r} is not available in this build; available: "
                                     f"{', '.join(available)}")
    repeated = sorted({name for name in chosen if chosen.count(name) > 1})
    if repeated:
        raise ConfigError(f"--policies names {', '.join(repeated)} twice")
    return chosen


def check_backfill(name: str) -> str:
    """The backfilling rule of ``--backfill`` (one of the registered rules, by name)."""
    from fairsched.backfill.policies import backfill_names

    available = backfill_names()
    key = name.strip().lower().replace("_", "-")
    if key not in available:
        raise UnknownPolicyError(f"--backfill {name!r} is not available in this build; available: "
                                 f"{', '.join(available)}")
    return key


@dataclass(frozen=True)
class TreeShares:
    """Entitled shares from an association tree.

    Attributes
    ----------
    weights : account (or user) -> its share of the machine in the tree (an account's NormShares minus its
        sub-accounts', as the audit reads a tree: `fairsched.audit.entitlement`).
    idle : accounts (users) of the tree with a share but no job in the window -> their members, kept as
        organizations without jobs (as the audit keeps them).
    defaulted : the organizations of the log the tree does not name (given `DEFAULT_TREE_SHARES` under root).
    tree : the tree used, with the defaulted accounts added.
    how : one sentence for the report.
    """

    weights: dict[str, float]
    idle: dict[str, tuple[str, ...]]
    defaulted: tuple[str, ...]
    tree: object
    how: str


def tree_shares(path: str | Path, orgs: Sequence[str], org_by: str) -> TreeShares:
    """Each organization's entitled share from the tree in `path` (module docstring).

    Raises `ConfigError` unless organizations are accounts or users (``--org-by account|user``), and
    `InputError` (``FILE:LINE: ...``) for a bad tree.
    """
    from fairsched.fairshare import classic
    from fairsched.workload.share_tree import ROOT, Association, share_tree
    from fairsched.workload.sshare import read_share_tree

    if org_by not in TREE_ORG_BY:
        raise ConfigError(f"--tree gives the shares of accounts and users; organizations formed by --org-by "
                          f"{org_by} cannot be found in it (use --org-by account or user, or --shares)")
    tree = read_share_tree(path)
    users = org_by == "user"
    named = {a.user if users else a.account for a in tree.associations if a.is_user == users}
    defaulted = tuple(o for o in orgs if o not in named)
    if defaulted:
        extra = [Association(ROOT, o, shares=DEFAULT_TREE_SHARES) if users else
                 Association(o, parent=ROOT, shares=DEFAULT_TREE_SHARES) for o in defaulted]
        tree = share_tree([*tree.associations, *extra], source=tree.source)
    norm = classic(tree).rows
    share: dict[str, float] = {}
    for a, row in zip(tree.associations, norm, strict=True):
        if users and a.is_user:
            share[a.user] = share.get(a.user, 0.0) + row.norm_shares    # a user of several accounts: the sum
        elif not users and not a.is_user and a.account != ROOT:
            share[a.account] = share.get(a.account, 0.0) + row.norm_shares
            if a.parent not in (None, ROOT):                            # a sub-account's part is not its parent's
                share[a.parent] = share.get(a.parent, 0.0) - row.norm_shares
    weights = {key: max(value, 0.0) for key, value in share.items()}
    idle = {key: (key,) for key, value in weights.items() if key not in orgs and value > 0}
    how = f"Slurm's normalized shares (NormShares) from the association tree {path}"
    if defaulted:
        how += (f"; {len(defaulted)} organization(s) of the log not in the tree get the default share "
                f"(Fairshare={DEFAULT_TREE_SHARES} under root): {', '.join(defaulted)}")
    return TreeShares(weights, idle, defaulted, tree, how)


def integer_shares(entitled: np.ndarray) -> list[int]:
    """Raw shares (Slurm's integers) in the proportions of the entitled shares: 1 each when they are equal, else
    round(share · 10^6) (relative precision 10^-6).

    >>> integer_shares(np.array([0.5, 0.5])), integer_shares(np.array([0.75, 0.25]))
    ([1, 1], [750000, 250000])
    """
    if np.all(entitled == entitled[0]):
        return [1] * entitled.size
    return [round(float(x) * 1_000_000) for x in entitled]


def job_user_associations(tree: Any, accounts: Sequence[str], users: Sequence[str]) -> tuple[Any, np.ndarray, int]:
    """Each job's user association in `tree` (the Slurm orders rank users), from the job's account and user.

    A (account, user) pair the tree lacks is added with raw shares `DEFAULT_TREE_SHARES` (under root when the
    account itself is missing), as sacctmgr creates an association without ``Fairshare=``. Returns the tree
    (with the additions), the index of each job's association, and how many associations were added.
    """
    from fairsched.workload.share_tree import ROOT, Association, share_tree

    have_accounts = {a.account for a in tree.associations if not a.is_user}
    have_users = {(a.account, a.user) for a in tree.associations if a.is_user}
    extra: list[Any] = []
    for account in dict.fromkeys(a for a in accounts if a not in have_accounts):
        extra.append(Association(account, parent=ROOT, shares=DEFAULT_TREE_SHARES))
    for pair in dict.fromkeys(zip(accounts, users, strict=True)):
        if pair not in have_users:
            extra.append(Association(pair[0], pair[1], shares=DEFAULT_TREE_SHARES))
    if extra:
        tree = share_tree([*tree.associations, *extra], source=tree.source)
    index = {(a.account, a.user): i for i, a in enumerate(tree.associations) if a.is_user}
    assoc = np.array([index[pair] for pair in zip(accounts, users, strict=True)], dtype=np.int64)
    return tree, assoc, len(extra)
