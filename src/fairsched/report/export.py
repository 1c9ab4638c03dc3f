"""The shared writers of every report: CSV, figures (PNG, PDF, SVG) and JSON, each file atomically (complete on
disk or absent).

`write_csv` lives in `fairsched._io` (the replications write tables too, below this layer) and is re-exported here.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairsched._io import atomic_write, write_csv
from fairsched.errors import ConfigError

DPI = 120  # dots per inch of every figure fairsched writes (one value for every report)
if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["DPI", "write_csv", "write_figure", "write_json", "write_png"]


def write_png(fig: Figure, path: str | Path) -> None:
    """Save `fig` as PNG at `path`, atomically."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    with atomic_write(path, "wb") as handle:
        handle.write(buffer.getvalue())


def write_figure(fig: Figure, path: str | Path) -> None:
    """Save `fig` at `path` in the format its suffix names (``.png``, ``.pdf``, ``.svg``, ``.eps``, ...), atomically.

    PDF and SVG carry no creation date, so the same figure gives the same bytes.

    Raises
    ------
    ConfigError : a suffix matplotlib cannot write (the message lists the ones it can).
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    supported = fig.canvas.get_supported_filetypes()
    if suffix not in supported:
        raise ConfigError(f"{path}: cannot write a figure as {('.' + suffix) if suffix else 'a file without a suffix'};"
                          f" name it .png, .pdf or .svg (or {', '.join('.' + s for s in sorted(supported))})")
    metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(suffix)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=suffix, metadata=metadata)
    with atomic_write(path, "wb") as handle:
        handle.write(buffer.getvalue())


def write_json(doc: Mapping[str, Any], path: str | Path) -> None:
    """Write `doc` as indented strict JSON (NaN refused: make it JSON-safe with `report.tables.jsonable` first),
    atomically."""
    with atomic_write(path) as handle:
        json.dump(doc, handle, indent=2, allow_nan=False)
        handle.write("\n")
