"""Render a `FairShareTable` as ``sshare -a -l -P`` prints it, or as JSON (``fairsched fairshare``).

Text: the header ``Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS``, then
one line per association in sshare's order. As sshare: the Account column is indented by one space a level (a
user's line shows its account), numbers have 6 decimals (``%f``), RawUsage is an integer (truncated), an
infinite LevelFS prints ``inf``, and an empty field is a value sshare does not print. When the tree came from an
sshare dump, four columns follow: sshare's own FairShare and LevelFS, each with ours (rounded to 6 decimals, as printed)
minus sshare's.
"""

from __future__ import annotations

import math
from typing import Any

from fairsched.fairshare.result import FairShareRow, FairShareTable
from fairsched.workload.share_tree import ReportedShares

COLUMNS = ("Account", "User", "RawShares", "NormShares", "RawUsage", "NormUsage", "EffectvUsage", "FairShare",
           "LevelFS")
COMPARISON_COLUMNS = ("SshareFairShare", "DiffFairShare", "SshareLevelFS", "DiffLevelFS")


def sshare_lines(table: FairShareTable) -> list[str]:
    """The lines of ``fairsched fairshare`` (header first), without newlines."""
    compare = table.reported is not None
    header = COLUMNS + (COMPARISON_COLUMNS if compare else ())
    lines = ["|".join(header)]
    for i, row in enumerate(table.rows):
        fields = [" " * row.depth + row.account, row.user or "", _shares(row.raw_shares), _real(row.norm_shares),
                  str(math.trunc(row.raw_usage)), _real(row.norm_usage), _real(row.effective_usage),
                  _real(row.fairshare), _real(row.level_fs)]
        if compare:
            fields += _comparison(row, table.reported[i])  # type: ignore[index]
        lines.append("|".join(fields))
    return lines


def fairshare_json(table: FairShareTable) -> dict[str, Any]:
    """``{"algorithm", "damping", "rows": [{"account", "user", "raw_shares", ...}]}``; ``"inf"`` for infinity."""
    rows = []
    for i, row in enumerate(table.rows):
        doc: dict[str, Any] = {
            "account": row.account, "user": row.user, "raw_shares": row.raw_shares,
            "norm_shares": row.norm_shares, "raw_usage": row.raw_usage, "norm_usage": row.norm_usage,
            "effective_usage": row.effective_usage, "fairshare": row.fairshare, "level_fs": _json(row.level_fs)}
        if table.reported is not None:
            seen = table.reported[i] or ReportedShares()
            doc.update(sshare_fairshare=_json(seen.fairshare), diff_fairshare=_json(_diff(row.fairshare,
                                                                                          seen.fairshare)),
                       sshare_level_fs=_json(seen.level_fs), diff_level_fs=_json(_diff(row.level_fs, seen.level_fs)))
        rows.append(doc)
    return {"algorithm": table.algorithm, "damping": table.damping, "rows": rows}


def _comparison(row: FairShareRow, seen: ReportedShares | None) -> list[str]:
    seen = seen or ReportedShares()
    return [_real(seen.fairshare), _signed(_diff(row.fairshare, seen.fairshare)), _real(seen.level_fs),
            _signed(_diff(row.level_fs, seen.level_fs))]


def _diff(ours: float | None, theirs: float | None) -> float | None:
    if ours is None or theirs is None:
        return None
    if math.isinf(ours) or math.isinf(theirs):
        return 0.0 if ours == theirs else math.inf
    return round(ours, 6) - theirs + 0.0  # sshare prints 6 decimals: compare what both print (+ 0.0: no -0)


def _shares(value: object) -> str:
    return "" if value is None else str(value)


def _real(value: float | None) -> str:
    if value is None:
        return ""
    return "inf" if math.isinf(value) else f"{value:.6f}"


def _signed(value: float | None) -> str:
    if value is None:
        return ""
    return "inf" if math.isinf(value) else f"{value + 0.0:+.6f}".replace("-0.000000", "+0.000000")


def _json(value: float | None) -> float | str | None:
    return "inf" if value is not None and math.isinf(value) else value
