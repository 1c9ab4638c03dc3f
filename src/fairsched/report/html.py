"""The one ``report.html`` writer: a self-contained page a person opens after any command that writes ``--out``.

One file, no network: figures are inlined as base64 PNG or SVG data URIs, the style sheet sits in the page, and
there is no script. The page shows, in order: the title and a one-line summary, the exact command that
regenerates the directory, the configuration, notes and warnings, the tables, the figures, and the files written
beside it (relative links). Every command builds a `Report` and calls `write_report_html`; nothing else in
fairsched writes HTML.

Only the standard library is imported here (pandas and matplotlib are used where the caller has them:
`Table.from_frame`, `Figure.from_matplotlib`), so that importing this module costs nothing at CLI start-up.

>>> page = render_html(Report(title="demo", command="fairsched compare --out out/demo",
...                           config={"orgs": 5}, tables=(Table("Summary", ("policy", "x"), (("rr", 1.5),)),)))
>>> "<td>rr</td>" in page and "fairsched compare --out out/demo" in page and "http" not in page
True
"""

from __future__ import annotations

import base64
import html
import math
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fairsched
from fairsched._io import atomic_write

REPORT_FILE = "report.html"
# Beyond this many rows a table is cut in the page (the CSV file beside it has them all) and the page says so:
# a browser renders 10k-row tables slowly, and nobody reads them there.
MAX_TABLE_ROWS = 500
# A CSV file of an output directory with at most this many rows is shown as a table of the page; longer ones
# (schedules, one row per job) are only linked.
MAX_PAGE_CSV_ROWS = 200
MAX_PAGE_CSV_COLUMNS = 12
_MIME = {"png": "image/png", "svg": "image/svg+xml"}


@dataclass(frozen=True)
class Table:
    """A table of the page: a title, column names, rows of cells (str, int, float, bool or None), an optional note.

    Floats are printed with 6 significant digits, integers with thousands separators; None and NaN show as "–".
    `formats`, when given, holds one format spec per column (``",.0f"``, ``"+.1%"``, ``".3g"``; None or "" for
    the default), applied to every number of that column so that the column reads in one format.
    """

    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    note: str = ""
    formats: Sequence[str | None] = ()

    @classmethod
    def from_frame(cls, title: str, frame: Any, *, note: str = "") -> Table:
        """A `Table` of a pandas DataFrame's columns and rows (its index is dropped)."""
        columns = [str(c) for c in frame.columns]
        return cls(title, columns, [tuple(row) for row in frame.itertuples(index=False, name=None)], note)

    @classmethod
    def from_mapping(cls, title: str, mapping: Mapping[str, Any], *, note: str = "") -> Table:
        """A two-column (key, value) table."""
        return cls(title, ("key", "value"), [(str(k), v) for k, v in mapping.items()], note)


@dataclass(frozen=True)
class Figure:
    """An inlined figure: its encoded bytes, the format (``png`` or ``svg``), a title and an optional caption."""

    title: str
    data: bytes
    format: str = "png"
    caption: str = ""

    def __post_init__(self) -> None:
        if self.format not in _MIME:
            raise ValueError(f"figure format {self.format!r}: choose one of {', '.join(_MIME)}")

    @classmethod
    def from_matplotlib(cls, title: str, figure: Any, *, caption: str = "", format: str = "png") -> Figure:
        """Encode a matplotlib Figure (PNG at its own dpi, or SVG); no date nor random id, so the same figure
        gives the same bytes."""
        import io

        import matplotlib

        buffer = io.BytesIO()
        metadata = {"Date": None} if format == "svg" else {}
        with matplotlib.rc_context({"svg.hashsalt": "fairsched"}):
            figure.savefig(buffer, format=format, metadata=metadata)
        return cls(title, buffer.getvalue(), format, caption)

    @classmethod
    def from_file(cls, title: str, path: str | Path, *, caption: str = "") -> Figure:
        """Inline a PNG or SVG file already written (its suffix gives the format)."""
        path = Path(path)
        return cls(title, path.read_bytes(), path.suffix.lstrip(".").lower(), caption)

    def data_uri(self) -> str:
        return f"data:{_MIME[self.format]};base64,{base64.b64encode(self.data).decode('ascii')}"


@dataclass(frozen=True)
class Report:
    """Everything one page shows. `command` is the exact shell command that regenerates the output directory.

    `files` are paths relative to the page (linked, not inlined); `notes` are shown above the tables, `warnings`
    highlighted; `text` holds (title, preformatted text) blocks, such as the tables printed on the terminal.
    `answer` tables come right under the summary, before the command: the page's first screen.
    """

    title: str
    command: str
    summary: str = ""
    config: Mapping[str, Any] = field(default_factory=dict)
    tables: Sequence[Table] = ()
    figures: Sequence[Figure] = ()
    notes: Sequence[str] = ()
    warnings: Sequence[str] = ()
    files: Sequence[str] = ()
    text: Sequence[tuple[str, str]] = ()
    answer: Sequence[Table] = ()


def command_line(argv: Sequence[str], program: str = "fairsched") -> str:
    """The shell command that reruns `argv` (the arguments after the program name), quoted for a POSIX shell.

    >>> command_line(["compare", "--trace", "my trace.swf", "--out", "out/x"])
    "fairsched compare --trace 'my trace.swf' --out out/x"
    """
    return shlex.join([program, *argv])


def output_report(out_dir: str | Path, *, title: str, command: str, summary: str = "",
                  config: Mapping[str, Any] | None = None, text: Sequence[tuple[str, str]] = (),
                  notes: Sequence[str] = (), warnings: Sequence[str] = (), tables: Sequence[Table] = ()) -> Report:
    """The page of a finished ``--out`` directory: `tables` first, then every small CSV file as a table, every
    figure inlined, every file linked.

    A CSV file becomes a table when it has at most `MAX_PAGE_CSV_ROWS` rows and `MAX_PAGE_CSV_COLUMNS` columns
    (summaries, per-organization tables); longer or wider ones (schedules, Batsim exports) are only linked.
    """
    out = Path(out_dir)
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != REPORT_FILE)
    tables = list(tables)
    for name in files:
        if name.endswith(".csv"):
            table = _csv_table(out / name, name)
            if table is not None:
                tables.append(table)
    figures = [Figure.from_file(name, out / name) for name in files if name.rsplit(".", 1)[-1] in _MIME]
    return Report(title=title, command=command, summary=summary, config=dict(config or {}), tables=tables,
                  figures=figures, notes=notes, warnings=warnings, files=files, text=text)


def _csv_table(path: Path, title: str) -> Table | None:
    import csv

    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        columns = next(reader, None)
        if columns is not None and len(columns) > MAX_PAGE_CSV_COLUMNS:
            return None
        rows = []
        for row in reader:
            if len(rows) == MAX_PAGE_CSV_ROWS:
                return None
            rows.append([_number(cell) for cell in row])
    return None if columns is None else Table(title, columns, rows)


def _number(cell: str) -> Any:
    for kind in (int, float):
        try:
            return kind(cell)
        except ValueError:
            pass
    return cell


def write_report_html(report: Report, out_dir: str | Path) -> Path:
    """Write ``out_dir/report.html`` (atomically) and return its path."""
    path = Path(out_dir) / REPORT_FILE
    with atomic_write(path, encoding="utf-8") as handle:
        handle.write(render_html(report))
    return path


def render_html(report: Report) -> str:
    """The page as one string (UTF-8 HTML5, no external reference)."""
    parts = [f"<h1>{_e(report.title)}</h1>"]
    if report.summary:
        parts.append(f'<p class="summary">{_e(report.summary)}</p>')
    for table in report.answer:
        parts.append(f'<h2 class="answer">{_e(table.title)}</h2>' if table.title else "")
        parts.append(_table_html(table))
    parts.append("<h2>Command</h2>")
    parts.append(f'<pre class="command"><code>{_e(report.command)}</code></pre>')
    parts.append(f'<p class="meta">fairsched {_e(fairsched.__version__)} — run it again in the same directory to '
                 "regenerate every file of this report.</p>")
    if report.config:
        parts.append("<h2>Configuration</h2>")
        parts.append(_table_html(Table.from_mapping("", report.config), header=False))
    if report.warnings:
        parts.append('<div class="warnings"><h2>Warnings</h2><ul>')
        parts.extend(f"<li>{_e(w)}</li>" for w in report.warnings)
        parts.append("</ul></div>")
    if report.notes:
        parts.append("<h2>Notes</h2><ul>")
        parts.extend(f"<li>{_e(n)}</li>" for n in report.notes)
        parts.append("</ul>")
    for heading, text in report.text:
        parts.append(f"<h2>{_e(heading)}</h2>" if heading else "")
        parts.append(f'<pre class="text">{_e(text)}</pre>')
    for figure in report.figures:
        parts.append(f"<figure><h2>{_e(figure.title)}</h2>"
                     f'<img src="{figure.data_uri()}" alt="{_e(figure.title)}">'
                     + (f"<figcaption>{_e(figure.caption)}</figcaption>" if figure.caption else "")
                     + "</figure>")
    for table in report.tables:
        parts.append(f"<h2>{_e(table.title)}</h2>" if table.title else "")
        parts.append(_table_html(table))
    if report.files:
        parts.append("<h2>Files</h2><ul class=\"files\">")
        parts.extend(f'<li><a href="{_e(name)}">{_e(name)}</a></li>' for name in report.files)
        parts.append("</ul>")
    body = "\n".join(p for p in parts if p)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(report.title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def _table_html(table: Table, *, header: bool = True) -> str:
    rows = list(table.rows)
    shown = rows[:MAX_TABLE_ROWS]
    head = ("<thead><tr>" + "".join(f"<th>{_e(c)}</th>" for c in table.columns) + "</tr></thead>") if header else ""
    formats = list(table.formats) + [None] * (len(table.columns) - len(table.formats))
    body = "".join("<tr>" + "".join(_cell(value, spec) for value, spec in zip(row, formats, strict=False))
                   + "</tr>" for row in shown)
    notes = [table.note] if table.note else []
    if len(rows) > len(shown):
        notes.append(f"first {len(shown):,} of {len(rows):,} rows shown; the CSV file has them all")
    note = "".join(f'<p class="note">{_e(n)}</p>' for n in notes)
    return f'<div class="wide"><table>{head}<tbody>{body}</tbody></table></div>{note}'


def _cell(value: Any, spec: str | None = None) -> str:
    if hasattr(value, "item") and not isinstance(value, str | bytes):  # numpy scalars
        value = value.item()
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    text = format(value, spec) if spec and numeric and math.isfinite(value) else _format(value)
    return f'<td class="num">{_e(text)}</td>' if numeric else f"<td>{_e(text)}</td>"


def _format(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if hasattr(value, "item") and not isinstance(value, str | bytes):  # numpy scalars
        value = value.item()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.6g}"
    if isinstance(value, Iterable) and not isinstance(value, str | bytes):
        return ", ".join(_format(v) for v in value)
    return str(value)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:72rem;
padding:0 1rem;color:#1a1a1a;background:#fff;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:1.8rem;border-bottom:1px solid #ddd}
.summary{font-size:1.05rem;color:#333}h2.answer{border-bottom:2px solid #444}
.meta,.note,figcaption{color:#555;font-size:.9rem}
pre.command{background:#f4f4f4;padding:.6rem .8rem;overflow-x:auto;border-radius:4px}
table{border-collapse:collapse;margin:.4rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .55rem;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}
.warnings{background:#fff4e5;border-left:4px solid #e69500;padding:.2rem 1rem;margin-top:1.2rem}
div.wide{overflow-x:auto}pre.text{font-size:.8rem;line-height:1.25;overflow-x:auto}
figure{margin:1rem 0}img{max-width:100%;height:auto;border:1px solid #eee}
"""
