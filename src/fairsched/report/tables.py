"""Shared table primitives of every report: key/value tables, ``trace info``, JSON-safe values, number formats.

The model reports (`fairsched.report.online`, `.backfill`, `.mosp`, `.openshop`) build on these.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

# Short policy names for narrow terminals; a legend under the table spells out the ones used (`policy_legend`).
POLICY_ABBREVIATIONS: dict[str, str] = {
    "roundrobin": "rr", "fairshare": "fs", "utfairshare": "utfs", "currfairshare": "cfs", "directcontr": "dc",
    "rand-antithetic": "rand-a", "rand-stratified": "rand-s", "ref-literal": "ref-l",
}
_UNBOUNDED = 100_000  # columns: wide enough for any table's natural width
_NUMBER = re.compile(r"^[-+−]?[\d,]*\.?\d+(?:e[-+]?\d+)?%?$|^[-–—]$")


def trace_info_table(info: Mapping[str, Any]) -> Table:
    """``fairsched trace info``: one row per figure, nested dictionaries flattened as ``outer.inner``."""
    table = Table(title=f"Trace {info.get('source', '')}", show_header=False, title_justify="left", box=None)
    table.add_column("key", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in _flatten(info):
        table.add_row(key, fmt_value(value))
    return table


def key_value_table(title: str, values: Mapping[str, Any]) -> Table:
    """A plain two-column table (e.g. ``trace fetch``'s name and path)."""
    table = Table(title=title, show_header=False, title_justify="left", box=None)
    table.add_column("key", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in values.items():
        table.add_row(key, fmt_value(value))
    return table


def jsonable(value: Any) -> Any:
    """`value` with numpy scalars and arrays, paths and tuples turned into JSON types; NaN and inf become None."""
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [jsonable(item) for item in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def _flatten(values: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            rows += _flatten(value, prefix=f"{name}.")
        else:
            rows.append((name, value))
    return rows


def fmt_value(value: Any) -> str:
    """A compact human form: thousands separators, 4 significant digits, lists joined."""
    value = jsonable(value)
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return fmt_number(value)
    if isinstance(value, list):
        return "; ".join(fmt_value(item) for item in value) if value else "-"  # "," would read as 1,000s
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {fmt_value(v)}" for k, v in value.items()) if value else "-"
    return str(value)


def fmt_number(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
        return f"{value:.3e}"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"




class Fitted:
    """The first of several renderings that fits the console's width, else the last (the narrowest).

    Tables are built twice, e.g. with full policy names and with abbreviations plus a legend: on a wide terminal
    (or the 140 columns of piped output) the full one is printed, at 80 columns the short one. Nothing is cut.
    """

    def __init__(self, *variants: Any) -> None:
        if not variants:
            raise ValueError("Fitted needs at least one rendering")
        self.variants = variants

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        natural = options.update_width(_UNBOUNDED)  # Measurement.get clamps to the width it is given
        for variant in self.variants[:-1]:
            if Measurement.get(console, natural, variant).maximum <= options.max_width:
                yield variant
                return
        yield self.variants[-1]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.variants[-1])


def whole_numbers(table: Table) -> Table:
    """Make `table` narrow without cutting a number: a column whose cells are all numbers (``1,234``, ``0.25``,
    ``48.1%``, ``1e+05``, ``(12.5)``, one per line) is never narrower than its widest number (its header may
    wrap); every column wraps (folds) instead of ending in "…". Returns `table`."""
    for column in table.columns:
        lines = [line for cell in column.cells for line in _plain(cell).splitlines() if line.strip()]
        if lines and all(_NUMBER.match(_strip_brackets(line)) for line in lines):
            column.min_width = max(cell_len(line) for line in lines)  # its header may still wrap
        column.overflow = "fold"
    return table


def short_policy(name: str) -> str:
    """The abbreviation of a policy name (`POLICY_ABBREVIATIONS`), else the name itself."""
    return POLICY_ABBREVIATIONS.get(name, name)


def policy_legend(names: Any) -> Text:
    """``rr = roundrobin, fs = fairshare, ...`` for the abbreviated names among `names`, in their order."""
    used = dict.fromkeys(name for name in names if name in POLICY_ABBREVIATIONS)
    return Text(", ".join(f"{POLICY_ABBREVIATIONS[name]} = {name}" for name in used), style="dim")


def with_legend(table: Table, names: Any, *, note: str = "") -> Group:
    """`table` followed by `policy_legend` and `note` (nothing when no name was abbreviated and no note)."""
    legend = policy_legend(names)
    if note:
        legend.append(("; " if legend.plain else "") + note)
    return Group(table, legend) if legend.plain else Group(table)


def _plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _strip_brackets(text: str) -> str:
    return text.strip().removeprefix("(").removesuffix(")").replace(" s", "")
