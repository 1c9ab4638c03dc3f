"""The one organization-map format, read for ``compare`` and ``audit`` (``--org-map FILE``).

A CSV file that groups the keys ``--org-by`` names (user or group ids, accounts, ...) into organizations::

    user,org        the header: the --org-by key (or the word ``key``), then ``org``; optional
    # a comment     blank lines and lines starting with ``#`` are skipped
    4,0             one line KEY,ORG per key; ORG is an organization's number or name
    9,physics

A key mapped twice to the same organization is kept once; to two organizations, it is an error. What the keys and
organizations must be is the command's business: ``compare`` needs integer ids and numbers its organizations
(`fairsched.scenario.read_org_map`), ``audit`` takes them as names (`fairsched.audit.log`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from fairsched.errors import InputError

HEADER_KEYS = ("key", "user", "group", "queue", "job", "account", "partition")  # what a header's first cell may say


@dataclass(frozen=True)
class OrgMap:
    """An organization map as read: key -> organization, and the line of each key (for error messages).

    Attributes
    ----------
    path : the file.
    key : what the keys are (the ``--org-by`` value the map was read for).
    orgs : key -> organization, both as written (stripped), in file order.
    lines : key -> its line number in the file.
    """

    path: Path
    key: str
    orgs: dict[str, str]
    lines: dict[str, int]


def read_org_map(path: str | Path, *, key: str = "key") -> OrgMap:
    """Read an organization map (module docstring) whose keys are `key`\\ s (``user``, ``account``, ...).

    Raises
    ------
    InputError : ``FILE:LINE: field NAME: problem`` for an unreadable or empty file, a header naming another key
        than `key` (field ``header``), a line without exactly two non-empty cells, or a key mapped to two
        organizations (field `key`).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "map.csv"
    ...     _ = path.write_text("user,org\\n# two users\\n4, 0\\n9,physics\\n")
    ...     read_org_map(path, key="user").orgs
    {'4': '0', '9': 'physics'}
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the organization map ({getattr(error, 'strerror', None) or error}); "
                         f"expected a CSV file '{key},org'", path=path) from error
    expected = f"{key},org"
    orgs: dict[str, str] = {}
    lines: dict[str, int] = {}
    first = True
    for number, row in enumerate(csv.reader(text.splitlines()), start=1):
        cells = [cell.strip() for cell in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if first:
            first = False
            if len(cells) == 2 and cells[1].lower() == "org" and not _is_number(cells[0]):
                if cells[0].lower() not in ("key", key):
                    raise InputError(f"header is {','.join(row)!r}; expected {expected!r} or 'key,org' (then one line "
                                     f"'KEY,ORG' per {key})", path=path, line=number, field="header")
                continue
        if len(cells) != 2:
            raise InputError(f"expected 2 comma-separated fields '{expected}', got {len(cells)}: {','.join(row)!r}",
                             path=path, line=number)
        if not all(cells):
            raise InputError(f"expected 2 non-empty fields '{expected}': {','.join(row)!r}", path=path, line=number)
        ident, org = cells
        if ident in orgs and orgs[ident] != org:
            raise InputError(f"{key} {ident} is mapped again (first on line {lines[ident]}), to another organization "
                             f"({org}, not {orgs[ident]}); keep one organization per {key}", path=path, line=number,
                             field=key)
        orgs.setdefault(ident, org)
        lines.setdefault(ident, number)
    if not orgs:
        raise InputError(f"the organization map is empty; expected '{expected}' then one line 'KEY,ORG' per {key}",
                         path=path, line=1)
    return OrgMap(path=path, key=key, orgs=orgs, lines=lines)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
