"""Read an association tree: fairsched's TREE CSV, an ``sshare -a -l -P`` dump, or ``sacctmgr show assoc -P``.

`read_share_tree` recognizes the format from the first line:

``account,user,parent,shares,raw_usage`` (CSV, columns by name, any order)
    One association a line. An account row has an empty ``user`` and names its ``parent`` account (empty for
    ``root``, which may be left out); a user row names its account in ``account`` (``parent`` empty or the same
    account). ``shares`` is an integer ``>= 0`` or ``parent``; ``raw_usage`` may be empty: the sum of the
    children (0 for a user). Blank lines and lines starting with ``#`` are skipped.

``Account|User|RawShares|...|RawUsage|...`` (``sshare -a -l -P``)
    RawShares and RawUsage are the input; NormShares, NormUsage, EffectvUsage, FairShare and LevelFS, when
    present, are kept as `ReportedShares` to compare with. sshare indents the Account column by one space a level;
    that indentation gives each account its parent, so the dump must keep its leading spaces. Rows keep the
    dump's order.

``...|Account|User|...|Share|...|Par Name|...`` (``sacctmgr show assoc format=account,user,share,parentname -P``)
    Shares only (every raw usage is 0). One cluster, no partition associations.

``add account name=A Fairshare=N parent=P`` / ``add user name=U DefaultAccount=A`` (a ``sacctmgr`` script)
    The commands that set up a cluster's accounts, one a line, with or without the leading ``sacctmgr`` and
    ``-i``: ``add account`` (``name=`` a name or a comma-separated list, ``Fairshare=`` default 1, ``parent=``
    default root) and ``add user`` (its associations: every account of ``Account=``, else ``DefaultAccount=``;
    ``Fairshare=`` default 1). Shares only (every raw usage is 0). Other commands (``add cluster``, ``add qos``,
    ``modify user set qoslevel=...``, ``list ...``) do not touch shares and are skipped; a ``modify`` that sets
    ``Fairshare`` or ``Parent`` is refused (apply it to the ``add`` line).

Bad input raises `InputError` ``FILE:LINE: ...``.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from fairsched.errors import InputError
from fairsched.workload.share_tree import PARENT, ROOT, Association, ReportedShares, Shares, ShareTree, share_tree

CSV_COLUMNS = ("account", "user", "parent", "shares", "raw_usage")
SSHARE_REQUIRED = ("Account", "User", "RawShares", "RawUsage")
SSHARE_REPORTED = {"NormShares": "norm_shares", "NormUsage": "norm_usage", "EffectvUsage": "effective_usage",
                   "FairShare": "fairshare", "LevelFS": "level_fs"}
SACCTMGR_PARENT = ("Par Name", "ParentName")
SACCTMGR_SHARE = ("Share", "Fairshare", "RawShares")


def read_share_tree(path: str | Path) -> ShareTree:
    """Read a TREE CSV, an ``sshare -a -l -P`` dump or a ``sacctmgr show assoc -P`` dump (see the module doc)."""
    lines = _lines(path)
    header = next(((n, line) for n, line in lines if line.strip() and not line.startswith("#")), None)
    if header is None:
        raise InputError("empty file: expected the header account,user,parent,shares,raw_usage or an sshare / "
                         "sacctmgr -P dump", path=path, line=1)
    number, text = header
    if _is_script_line(text):
        return _read_sacctmgr_script(path, lines)
    if "|" in text:
        fields = [f.strip() for f in text.split("|")]
        if "RawShares" in fields and "RawUsage" in fields:
            return _read_sshare(path, lines)
        if any(name in fields for name in SACCTMGR_PARENT) or "Share" in fields:
            return _read_sacctmgr(path, lines)
        missing = [name for name in SSHARE_REQUIRED if name not in fields]
        raise InputError(f"not an sshare dump: missing column {', '.join(missing)} (export with sshare -a -l -P)",
                         path=path, line=number)
    return _read_csv(path, lines)


def _lines(path: str | Path) -> list[tuple[int, str]]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", path=path) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"not a text file ({exc.reason})", path=path) from exc
    return [(n, line.rstrip("\r\n")) for n, line in enumerate(text.splitlines(), start=1)]


def _read_csv(path: str | Path, lines: list[tuple[int, str]]) -> ShareTree:
    kept = [(n, line) for n, line in lines if line.strip() and not line.lstrip().startswith("#")]
    reader = csv.reader([line for _, line in kept])
    header = [name.strip().lower() for name in next(reader)]
    missing = [name for name in CSV_COLUMNS if name not in header]
    if missing:
        raise InputError(f"missing column {', '.join(missing)}; the header must name "
                         f"{','.join(CSV_COLUMNS)}", path=path, line=kept[0][0], field=missing[0])
    column = {name: header.index(name) for name in CSV_COLUMNS}
    assocs, numbers = [], []
    for (number, _), row in zip(kept[1:], reader, strict=True):
        if len(row) != len(header):
            raise InputError(f"{len(row)} fields, the header has {len(header)}", path=path, line=number)
        value = {name: row[i].strip() for name, i in column.items()}
        account, user, parent = value["account"], value["user"] or None, value["parent"] or None
        if user is not None and not account:
            raise InputError(f"user row {user!r} without an account: name its account in the account column",
                             path=path, line=number, field="account")
        if user is not None and parent not in (None, account):
            raise InputError(f"user {user!r} is in account {account!r} but names parent {parent!r}; leave parent "
                             "empty for a user row", path=path, line=number, field="parent")
        is_root = user is None and account == ROOT
        shares = _shares(value["shares"], path, number, default=1 if is_root else None)
        usage = _number(value["raw_usage"], path, number, "raw_usage")
        assocs.append(Association(account, user, None if user is not None else parent, shares, usage))
        numbers.append(number)
    return share_tree(assocs, path=path, lines=numbers, source="csv")


def _read_sshare(path: str | Path, lines: list[tuple[int, str]]) -> ShareTree:
    rows = _pipe_rows(path, lines, SSHARE_REQUIRED)
    assocs, numbers, reported = [], [], []
    stack: list[str] = []  # the account at each depth, from the last account row
    for number, row in rows:
        raw_account = row["Account"]
        name = raw_account.strip()
        depth = len(raw_account) - len(raw_account.lstrip(" "))
        user = row["User"].strip() or None
        if not name:
            raise InputError("empty Account", path=path, line=number, field="Account")
        if not stack and (user is not None or name != ROOT or depth):
            raise InputError("the first row must be root: export the whole tree with sshare -a -l -P",
                             path=path, line=number)
        if user is not None:
            if depth < 1 or depth > len(stack) or stack[depth - 1] != name:
                raise InputError(f"user {user!r} is indented as if under a different account than {name!r}; "
                                 "the dump must keep sshare's leading spaces", path=path, line=number,
                                 field="Account")
            parent = None
        elif stack:
            if depth < 1 or depth > len(stack):
                raise InputError(f"account {name!r} is indented by {depth} spaces but the row above it is at "
                                 f"depth {len(stack) - 1}; the dump must keep sshare's leading spaces (one a level)",
                                 path=path, line=number, field="Account")
            parent = stack[depth - 1]
            del stack[depth:]
            stack.append(name)
        else:
            parent = None
            stack.append(name)
        is_root = user is None and parent is None
        shares = _shares(row["RawShares"], path, number, default=1 if is_root else None)
        usage = _number(row["RawUsage"], path, number, "RawUsage")
        assocs.append(Association(name, user, parent, shares, 0.0 if usage is None else usage))
        numbers.append(number)
        reported.append(ReportedShares(**{key: _number(row[column], path, number, column, allow_inf=True)
                                          for column, key in SSHARE_REPORTED.items() if column in row}))
    if not assocs:
        raise InputError("no association rows under the header", path=path, line=_rows_start(lines))
    return share_tree(assocs, path=path, lines=numbers, keep_order=True, reported=reported, source="sshare")


def _read_sacctmgr(path: str | Path, lines: list[tuple[int, str]]) -> ShareTree:
    header_fields = [f.strip() for f in next(line for _, line in lines if line.strip()).split("|")]
    parent_column = next((c for c in SACCTMGR_PARENT if c in header_fields), SACCTMGR_PARENT[0])
    share_column = next((c for c in SACCTMGR_SHARE if c in header_fields), SACCTMGR_SHARE[0])
    rows = _pipe_rows(path, lines, ("Account", "User", share_column, parent_column))
    clusters = {row["Cluster"].strip() for _, row in rows if row.get("Cluster", "").strip()}
    if len(clusters) > 1:
        raise InputError(f"associations of {len(clusters)} clusters ({', '.join(sorted(clusters))}); export one "
                         "with sacctmgr show assoc cluster=NAME", path=path, line=rows[0][0], field="Cluster")
    assocs, numbers = [], []
    for number, row in rows:
        if row.get("Partition", "").strip():
            raise InputError("partition associations are not supported: export without them, or merge them into "
                             "one association per user and account", path=path, line=number, field="Partition")
        name, user = row["Account"].strip(), row["User"].strip() or None
        parent = None if user is not None else row[parent_column].strip() or None
        is_root = user is None and name == ROOT
        shares = _shares(row[share_column], path, number, default=1 if is_root else None)
        assocs.append(Association(name, user, parent, shares, 0.0 if user is not None else None))
        numbers.append(number)
    return share_tree(assocs, path=path, lines=numbers, source="sacctmgr")


_SCRIPT_COMMANDS = ("add", "create", "modify", "update", "delete", "remove", "list", "show", "dump", "load")


def _script_words(text: str) -> list[str]:
    words = text.split()
    if words and words[0] == "sacctmgr":
        words = words[1:]
    while words and words[0].startswith("-"):  # -i, --immediate
        words = words[1:]
    return words


def _is_script_line(text: str) -> bool:
    words = _script_words(text)
    return bool(words) and words[0].lower() in _SCRIPT_COMMANDS and "|" not in text and "," not in words[0]


def _read_sacctmgr_script(path: str | Path, lines: list[tuple[int, str]]) -> ShareTree:
    accounts: dict[str, tuple[Association, int]] = {}
    users: dict[tuple[str, str], tuple[Association, int]] = {}
    for number, line in lines:
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        words = _script_words(text)
        if not _is_script_line(text):
            raise InputError(f"not a sacctmgr command: {text!r}", path=path, line=number)
        command, entity = words[0].lower(), (words[1].lower() if len(words) > 1 else "")
        options = _script_options(words[2:], path, number)
        if command in ("add", "create") and entity in ("account", "user"):
            names = options.pop("name", None) or (words[2] if len(words) > 2 and "=" not in words[2] else "")
            if not names:
                raise InputError(f"add {entity} without a name", path=path, line=number)
            shares = _shares(options.get("fairshare", "1"), path, number, default=1)
            for name in names.split(","):
                if entity == "account":
                    accounts[name] = (Association(name, None, options.get("parent") or ROOT, shares, None), number)
                    continue
                homes = options.get("account") or options.get("defaultaccount")
                if not homes:
                    raise InputError(f"user {name!r} names no account (Account= or DefaultAccount=)", path=path,
                                     line=number)
                for home in homes.split(","):
                    users[(home, name)] = (Association(home, name, None, shares, 0.0), number)
        elif command in ("modify", "update") and ({"fairshare", "parent"} & set(options)):
            raise InputError("a modify that sets Fairshare or Parent is not read; put the value on the add line",
                             path=path, line=number)
    if not accounts and not users:
        raise InputError("no 'add account' nor 'add user' line: no association to read", path=path)
    found = [*accounts.values(), *users.values()]
    return share_tree([a for a, _ in found], path=path, lines=[n for _, n in found], source="sacctmgr-script")


def _script_options(words: list[str], path: str | Path, line: int) -> dict[str, str]:
    """``key=value`` words of a sacctmgr command (keys lower-cased, quotes dropped; ``where``/``set`` skipped)."""
    options = {}
    for word in words:
        if "=" not in word:
            continue
        key, value = word.split("=", 1)
        options[key.strip().lower()] = value.strip().strip("\"'")
    return options


def _rows_start(lines: list[tuple[int, str]]) -> int:
    """Line number of the first line after the header."""
    return next((n for n, line in lines if line.strip()), 1) + 1


def _pipe_rows(path: str | Path, lines: list[tuple[int, str]],
               required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    content = [(n, line) for n, line in lines if line.strip()]
    (head_number, head), body = content[0], content[1:]
    header = [f.strip() for f in head.split("|")]
    if header and header[-1] == "":  # sshare -p / sacctmgr -p end each line with '|'
        header.pop()
    missing = [name for name in required if name not in header]
    if missing:
        raise InputError(f"missing column {', '.join(missing)} in the header", path=path, line=head_number,
                         field=missing[0])
    out = []
    for number, line in body:
        fields = line.split("|")
        if len(fields) == len(header) + 1 and fields[-1] == "":
            fields.pop()
        if len(fields) != len(header):
            raise InputError(f"{len(fields)} fields, the header has {len(header)}", path=path, line=number)
        out.append((number, dict(zip(header, fields, strict=True))))
    return out


def _shares(text: str, path: str | Path, line: int, *, default: int | None) -> Shares:
    text = text.strip()
    if not text:
        if default is None:
            raise InputError("shares is empty; expected an integer >= 0 or 'parent'", path=path, line=line,
                             field="shares")
        return default
    if text.lower() == PARENT:
        return PARENT
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"shares is {text!r}; expected an integer >= 0 or 'parent'", path=path, line=line,
                         field="shares") from None
    if value < 0:
        raise InputError(f"shares is {value}; shares cannot be negative", path=path, line=line, field="shares")
    return value


def _number(text: str, path: str | Path, line: int, name: str, *, allow_inf: bool = False) -> float | None:
    text = text.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{text!r} is not a number", path=path, line=line, field=name) from None
    if math.isnan(value) or (math.isinf(value) and not allow_inf) or (value < 0 and not allow_inf):
        raise InputError(f"{text!r}: expected a number >= 0", path=path, line=line, field=name)
    return value

