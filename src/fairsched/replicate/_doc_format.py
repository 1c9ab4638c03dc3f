"""The building blocks of the generated tables in the docs: the block markers, the number format, the markdown
table, and the rewriting of a doc's blocks from given renderers.

A doc marks each generated table with ``<!-- table: NAME -->`` … ``<!-- /table -->`` and each generated number in
the prose with ``<!-- value: NAME -->6,760<!-- /value -->``; a renderer ``f(data_dir) -> text`` rebuilds each from
result files. The replications' renderers (each paper folder's ``doc`` modules) are gathered by
`fairsched.replicate._doc_tables`; docs/performance.md has its own (``benchmarks/perf_tables.py``). This module
imports none of them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from fairsched.errors import ConfigError

__all__ = ["BLOCK", "DATA_DIR", "RUN_INFO", "VALUE", "Renderer", "fmt", "keep_other_blocks", "markdown_table",
           "read_time_log", "render_blocks", "stale_blocks", "write_run_info"]

DATA_DIR = Path("docs/replication/data")
BLOCK = re.compile(r"(<!-- table: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /table -->)", re.S)
VALUE = re.compile(r"(<!-- value: (?P<name>[\w.-]+) -->)(?P<body>[^<\n]*)(<!-- /value -->)")
RUN_INFO = "run.csv"
_TIME_LINE = re.compile(r"wall (?P<wall>[\d.]+) s user (?P<user>[\d.]+) s sys (?P<sys>[\d.]+) s")

Renderer = Callable[[Path], str]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str | None = None) -> str:
    """A GitHub markdown table; `align` has one letter per column (l or r; default: first left, rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---" if a == "l" else "---:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def fmt(value: float, digits: int = 2) -> str:
    """A number for a table: ``digits`` decimals, thousands separated; integers-as-floats without decimals when
    ``digits`` is 0; NaN as an em dash; ±inf as ∞."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float) and math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:,.{digits}f}"


def render_blocks(text: str, data_dir: Path, tables: Mapping[str, Renderer],
                  values: Mapping[str, Renderer] | None = None) -> str:
    """`text` with every table block and every marked value replaced by its rendering from `data_dir`.

    Raises
    ------
    ConfigError : a block or value names no renderer (the known names are listed).
    """
    for pattern, renderers, kind in ((BLOCK, tables, "table"), (VALUE, values or {}, "value")):
        def rebuild(match: re.Match[str], renderers: Mapping[str, Renderer] = renderers, kind: str = kind) -> str:
            name = match.group("name")
            if name not in renderers:
                raise ConfigError(f"doc {kind} {name!r} has no renderer; known: {', '.join(sorted(renderers))}")
            return match.group(1) + renderers[name](data_dir) + match.group(4)

        text = pattern.sub(rebuild, text)
    return text


def keep_other_blocks(text: str, tables: Mapping[str, Renderer]) -> dict[str, Renderer]:
    """`tables`, plus a renderer that gives back its current body for every table block of `text` that `tables`
    does not name: for a doc whose blocks come from several scripts, each rewriting (or checking) only its own."""
    current = {m.group("name"): m.group("body") for m in BLOCK.finditer(text) if m.group("name") not in tables}
    return {**{name: (lambda data_dir, body=body: body) for name, body in current.items()}, **tables}


def stale_blocks(text: str, data_dir: Path, tables: Mapping[str, Renderer],
                 values: Mapping[str, Renderer] | None = None) -> list[str]:
    """Names of the table blocks and marked values of `text` that differ from their rendering, in order (empty:
    the doc is up to date)."""
    fresh = render_blocks(text, data_dir, tables, values)
    stale = []
    for pattern in (BLOCK, VALUE):
        rendered = [m.group("body") for m in pattern.finditer(fresh)]
        stale += [m.group("name") for m, body in zip(pattern.finditer(text), rendered, strict=True)
                  if m.group("body") != body]
    return stale


def read_time_log(log: Path) -> dict[str, float]:
    """``{"wall_s", "user_s", "sys_s"}`` from the GNU ``time -f "wall %e s user %U s sys %S s"`` line of a run's
    log."""
    match = _TIME_LINE.search(Path(log).read_text(encoding="utf-8"))
    if match is None:
        raise ConfigError(f"{log}: no 'wall … s user … s sys … s' line (GNU time -f) to read the run time from")
    return {f"{key}_s": float(value) for key, value in match.groupdict().items()}


def write_run_info(log: Path, out: Path, name: str = RUN_INFO, **extra: float) -> Path:
    """`name` (one row: wall_s, user_s, sys_s and `extra`) in `out`, from a run's log (`read_time_log`). The
    machine is shared, so CPU time is quoted beside wall time."""
    import pandas as pd

    from fairsched._io import atomic_write

    path = Path(out) / name
    with atomic_write(path) as handle:
        pd.DataFrame([{**read_time_log(log), **extra}]).to_csv(handle, index=False)
    return path
