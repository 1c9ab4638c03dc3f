"""The shared writers of every report: CSV, PNG and JSON, each file atomically (complete on disk or absent).

Schedules of real traces reach millions of rows; integer tables are formatted by a small numba kernel
(about 20x faster than ``DataFrame.to_csv``; the tests compare both byte for byte).
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numba import njit

from fairsched._io import atomic_write
from fairsched.errors import ConfigError

DPI = 120  # dots per inch of every figure fairsched writes (one value for every report)
if TYPE_CHECKING:
    from matplotlib.figure import Figure

_CHUNK_ROWS = 1 << 18  # rows formatted per kernel call: bounds the scratch buffer to ~21 bytes x cells
_MAX_INT_CHARS = 20     # "-9223372036854775807" (int64 min is not supported: see `_format_int_rows`)


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


def write_csv(frame: pd.DataFrame, path: str | Path) -> None:
    """Write `frame` (no index) atomically; all-integer frames go through the fast kernel, others via pandas.

    The output is byte-identical to ``frame.to_csv(path, index=False, lineterminator="\\n")`` (tested).
    """
    integer = all(pd.api.types.is_integer_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype)
                  for dtype in frame.dtypes)
    with atomic_write(path, "wb") as handle:
        if not (integer and len(frame.columns)):
            handle.write(frame.to_csv(index=False, lineterminator="\n").encode())
            return
        handle.write((",".join(str(c) for c in frame.columns) + "\n").encode())
        table = np.ascontiguousarray(np.stack([frame[c].to_numpy(dtype=np.int64) for c in frame.columns]))
        buffer = np.empty(_CHUNK_ROWS * table.shape[0] * (_MAX_INT_CHARS + 1), dtype=np.uint8)
        for first in range(0, table.shape[1], _CHUNK_ROWS):
            last = min(first + _CHUNK_ROWS, table.shape[1])
            handle.write(memoryview(buffer[:_format_int_rows(table, first, last, buffer)]))


@njit(cache=True)
def _format_int_rows(table: np.ndarray, first: int, last: int, out: np.ndarray) -> int:
    """Format rows first..last-1 of `table` (columns x rows, int64) as CSV lines into `out`; return bytes used.

    Digits are written least significant first, then reversed in place. Values must be > int64 min (whose
    negation overflows); schedule times and ids never come near it. `out` needs 21 bytes per cell.
    """
    pos = 0
    n_cols = table.shape[0]
    for i in range(first, last):
        for j in range(n_cols):
            value = table[j, i]
            if value < 0:
                out[pos] = 45  # "-"
                pos += 1
                value = -value
            begin = pos
            while True:
                out[pos] = 48 + value % 10
                pos += 1
                value //= 10
                if value == 0:
                    break
            lo, hi = begin, pos - 1
            while lo < hi:
                out[lo], out[hi] = out[hi], out[lo]
                lo += 1
                hi -= 1
            out[pos] = 44 if j < n_cols - 1 else 10  # "," or "\n"
            pos += 1
    return pos
