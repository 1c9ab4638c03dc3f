"""Who is entitled to what: ``--shares`` as operators have them, organizations without jobs, ``--top N``.

``--shares`` takes

* ``equal``, or ``usage`` (proportional to the CPU-seconds used: "as if everybody paid for what it used");
* a CSV file ``org,share`` or ``org,cpus`` (one line per organization);
* Slurm's association tree, read by `fairsched.workload.sshare.read_share_tree`: a ``sacctmgr`` script
  (``add account name=A Fairshare=N``), a ``sacctmgr show assoc -P`` dump, an ``sshare -a -l -P`` dump
  (RawShares), or fairsched's TREE CSV.

From a tree, the share of an account is Slurm's normalized share NormShares (the product down the tree of
RawShares over the level's total, `fairsched.fairshare.classic`) minus its sub-accounts' (the part that its own
users run under); the share of a user is the sum of its associations' NormShares. ``--org-by account`` and
``--org-by user`` can use a tree; an organization's share is the sum of its members' (``--org-map``).

Organizations that have a share but no job in the audit window are kept, as organizations without jobs (a map
of every member, or ``account0`` of the micro cluster with ``Fairshare=100`` beside two accounts that ran jobs:
each of the three is entitled to 1/3, not 1/2). They own CPUs like the others, so they take part in the game:
their φ is what their CPUs brought to the others.

When the tree comes from an ``sshare`` dump, Slurm's own NormShares, FairShare and LevelFS of each organization
(one association) are kept beside ours (`Entitlement.slurm`).

``--top N`` keeps the N organizations with the most CPU-seconds and pools the rest into one organization
`OTHER` (its members, jobs and shares are the union of theirs).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fairsched.audit.log import Recorded, cpu_seconds
from fairsched.errors import ConfigError, InputError
from fairsched.workload.files import read_head

OTHER = "(other)"
SLURM_COLUMNS = ("slurm_norm_shares", "slurm_fairshare", "slurm_level_fs")
TREE_ORG_BY = ("account", "user")


@dataclass(frozen=True)
class Entitlement:
    """The shares of ``--shares``, by organization name.

    Attributes
    ----------
    spec : the ``--shares`` value as given.
    weights : organization -> share (any scale, >= 0); organizations of the log missing here have 0.
    cpus : organization -> CPUs bought (an ``org,cpus`` file), else None.
    how : one phrase saying where the shares come from (shown in the report).
    idle : organizations without a job in the audit window -> their members (keys), sorted.
    slurm : organization -> Slurm's own figures of an sshare dump (`SLURM_COLUMNS`; NaN where not shown).
    """

    spec: str
    weights: dict[str, float]
    cpus: dict[str, int] | None
    how: str
    idle: dict[str, tuple[str, ...]] = field(default_factory=dict)
    slurm: dict[str, dict[str, float]] = field(default_factory=dict)

    def pooled(self, renamed: Mapping[str, str]) -> Entitlement:
        """The shares after organizations were renamed (`keep_top`): pooled ones add up; Slurm's figures of a
        pool of several are unknown."""
        weights: dict[str, float] = {}
        cpus: dict[str, int] | None = None if self.cpus is None else {}
        for org, weight in self.weights.items():
            new = renamed.get(org, org)
            weights[new] = weights.get(new, 0.0) + weight
            if cpus is not None and self.cpus is not None:
                cpus[new] = cpus.get(new, 0) + self.cpus.get(org, 0)
        slurm = {org: values for org, values in self.slurm.items() if renamed.get(org, org) == org}
        return dataclasses.replace(self, weights=weights, cpus=cpus, slurm=slurm,
                                   idle={o: m for o, m in self.idle.items() if renamed.get(o, o) == o})


def read_entitlement(spec: str | Path, recorded: Recorded, org_by: str) -> Entitlement:
    """The entitlement of every organization from ``--shares`` (module docstring)."""
    spec = str(spec)
    if spec == "equal":
        return Entitlement(spec, {o: 1.0 for o in recorded.orgs}, None, "equal shares")
    if spec == "usage":
        used = cpu_seconds(recorded)
        return Entitlement(spec, dict(zip(recorded.orgs, used.tolist(), strict=True)), None,
                           "shares proportional to the CPU time used")
    path = Path(spec)
    first = _first_line(path)
    if first.replace(" ", "").lower() in ("org,share", "org,cpus"):
        return _read_csv_shares(path, recorded)
    return _tree_shares(path, recorded, org_by)


def _first_line(path: Path) -> str:
    try:
        text = read_head(path, 1 << 14).decode("utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read the shares file ({exc.strerror or exc}); --shares takes equal, usage, a "
                         "CSV file org,cpus or org,share, or a sacctmgr / sshare dump", path=path) from exc
    return next((line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")), "")


def _read_csv_shares(path: Path, recorded: Recorded) -> Entitlement:
    import csv

    rows = [row for row in csv.reader(path.read_text(encoding="utf-8").splitlines())
            if row and not row[0].lstrip().startswith("#")]
    header = [cell.strip().lower() for cell in rows[0]]
    values: dict[str, float] = {}
    lines = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if line.strip() and not line.lstrip().startswith("#")]
    for line, row in zip(lines[1:], rows[1:], strict=True):
        if not any(cell.strip() for cell in row):
            continue
        try:
            name, value = row[0].strip(), float(row[1])
        except (IndexError, ValueError):
            raise InputError(f"expected org,number, got {row!r}", path=path, line=line, field=header[1]) from None
        if not np.isfinite(value) or value < 0:
            raise InputError(f"{value} is not a share >= 0", path=path, line=line, field=header[1])
        values[name] = value
    missing = [o for o in recorded.orgs if o not in values]
    if missing:
        raise InputError(f"no share for organization(s) {', '.join(missing)}; list every organization",
                         path=path)
    idle = {o: (o,) for o in values if o not in recorded.orgs}
    cpus = None
    if header[1] == "cpus":
        if any(v != math.floor(v) for v in values.values()):
            raise InputError("CPU counts must be whole numbers", path=path, field="cpus")
        cpus = {o: int(v) for o, v in values.items()}
    return Entitlement(str(path), values, cpus, f"shares from {path}", idle=idle)


def _tree_shares(path: Path, recorded: Recorded, org_by: str) -> Entitlement:
    from fairsched.fairshare import compute_fairshare
    from fairsched.workload.sshare import read_share_tree

    tree = read_share_tree(path)
    if org_by not in TREE_ORG_BY:
        raise ConfigError(f"--shares {path}: an association tree gives shares to accounts and users; use "
                          f"--org-by account or user (not {org_by}), or a CSV file org,share")
    rows = compute_fairshare(tree, algorithm="classic").rows
    reported = tree.reported or (None,) * len(rows)
    share: dict[str, float] = {}
    slurm_by_key: dict[str, dict[str, float]] = {}
    if org_by == "account":
        for row, seen in zip(rows, reported, strict=True):
            if row.user is None and row.account != "root":
                share[row.account] = share.get(row.account, 0.0) + row.norm_shares
                parent = tree.associations[tree.index(row.account)].parent
                if parent not in (None, "root"):
                    share[parent] = share.get(parent, 0.0) - row.norm_shares
                if seen is not None:
                    slurm_by_key[row.account] = _slurm(seen)
    else:
        for row, seen in zip(rows, reported, strict=True):
            if row.user is not None:
                share[row.user] = share.get(row.user, 0.0) + row.norm_shares
                if seen is not None:  # a user of several accounts: Slurm's figures are per association
                    slurm_by_key[row.user] = {} if row.user in slurm_by_key else _slurm(seen)
    share = {k: max(v, 0.0) for k, v in share.items()}  # rounding of the subtraction above
    org_of = {key: org for org, keys in zip(recorded.orgs, recorded.members, strict=True) for key in keys}
    known = {key for keys in recorded.members for key in keys}
    weights = {o: 0.0 for o in recorded.orgs}
    idle: dict[str, list[str]] = {}
    for key, value in share.items():
        org = org_of.get(key, recorded.idle_keys.get(key, key))
        if org not in weights and value <= 0:
            continue  # an account without shares nor jobs (or whose share is all its sub-accounts')
        weights[org] = weights.get(org, 0.0) + value
        if key not in known:
            idle.setdefault(org, []).append(key)
    missing = [o for o, keys in zip(recorded.orgs, recorded.members, strict=True) if not any(k in share for k in keys)]
    if missing:
        raise InputError(f"the association tree has no {org_by} of organization(s) {', '.join(missing[:5])}; "
                         f"export the whole tree (sshare -a -l -P, sacctmgr show assoc -P) or check --org-by",
                         path=path)
    members_of = {org: [*keys, *idle.get(org, [])] for org, keys in zip(recorded.orgs, recorded.members,
                                                                       strict=True)} | idle
    slurm = {org: slurm_by_key[keys[0]] for org, keys in members_of.items()
             if len(keys) == 1 and slurm_by_key.get(keys[0])}
    idle_orgs = {o: tuple(sorted(k)) for o, k in idle.items() if o not in recorded.orgs}
    kind = {"sshare": "an sshare dump", "sacctmgr": "a sacctmgr dump", "sacctmgr-script": "a sacctmgr script",
            "csv": "an association tree CSV"}.get(tree.source or "", "an association tree")
    return Entitlement(str(path), weights, None, f"Slurm's normalized shares (NormShares) from {kind}, {path}",
                       idle=idle_orgs, slurm=slurm)


def _slurm(seen: object) -> dict[str, float]:
    values = {"slurm_norm_shares": getattr(seen, "norm_shares", None), "slurm_fairshare": getattr(seen, "fairshare",
                                                                                                  None),
              "slurm_level_fs": getattr(seen, "level_fs", None)}
    return {k: float("nan") if v is None else float(v) for k, v in values.items()}


# -- organizations without jobs, --top N -------------------------------------------------------------------------
def with_idle(recorded: Recorded, idle: Mapping[str, tuple[str, ...]]) -> Recorded:
    """`recorded` with the organizations of `idle` (no job in the window) added, in name order."""
    new = {o: m for o, m in idle.items() if o not in recorded.orgs}
    if not new:
        return recorded
    members = dict(zip(recorded.orgs, recorded.members, strict=True)) | new
    return _renumbered(recorded, {o: o for o in recorded.orgs}, members)


def keep_top(recorded: Recorded, top: int) -> tuple[Recorded, dict[str, str]]:
    """Keep the `top` organizations with the most CPU-seconds (ties: name order); pool the rest as `OTHER`.

    Returns the new `Recorded` and the renaming (old name -> new name) of every organization.
    """
    if top < 1:
        raise ConfigError(f"--top {top}: expected at least 1 organization")
    if recorded.n_orgs <= top:
        return recorded, {o: o for o in recorded.orgs}
    if OTHER in recorded.orgs:
        raise ConfigError(f"--top: an organization is already named {OTHER!r}; rename it in --org-map")
    used = cpu_seconds(recorded)
    order = sorted(range(recorded.n_orgs), key=lambda u: (-used[u], recorded.orgs[u]))
    kept = {recorded.orgs[u] for u in order[:top]}
    renamed = {o: (o if o in kept else OTHER) for o in recorded.orgs}
    members: dict[str, tuple[str, ...]] = {}
    for org, keys in zip(recorded.orgs, recorded.members, strict=True):
        members[renamed[org]] = tuple(sorted({*members.get(renamed[org], ()), *keys}))
    pooled = recorded.n_orgs - top
    note = (f"--top {top}: the {top} organizations with the most CPU-seconds are kept; the other {pooled:,} "
            f"({used[[u for u in order[top:]]].sum() / max(used.sum(), 1):.1%} of the CPU-seconds) are pooled "
            f"as {OTHER}.")
    out = _renumbered(recorded, renamed, members)
    return dataclasses.replace(out, warnings=(*out.warnings, note)), renamed


def _renumbered(recorded: Recorded, renamed: Mapping[str, str],
                members: Mapping[str, tuple[str, ...]]) -> Recorded:
    orgs = tuple(sorted(members))
    index = {o: i for i, o in enumerate(orgs)}
    old = np.array([index[renamed[o]] for o in recorded.orgs], dtype=np.int64)
    jobs = recorded.jobs.copy()
    jobs["org"] = old[jobs["org"].to_numpy()] if len(jobs) else jobs["org"]
    return dataclasses.replace(recorded, jobs=jobs, orgs=orgs, members=tuple(members[o] for o in orgs))


__all__ = ["OTHER", "SLURM_COLUMNS", "Entitlement", "keep_top", "read_entitlement", "with_idle"]
