"""Shared table primitives of every report: key/value tables, ``trace info``, JSON-safe values, number formats.

The model reports (`fairsched.report.online`, `.backfill`, `.mosp`, `.openshop`) build on these.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table


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


