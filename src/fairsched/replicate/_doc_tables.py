"""The replication docs' tables, rebuilt from the result files of ``docs/replication/data/``.

A doc marks each generated table with ``<!-- table: NAME -->`` … ``<!-- /table -->``; `TABLES` maps NAME to a
renderer ``f(data_dir) -> markdown`` that reads the CSV files a command wrote (each renderer's module says which
command). ``python -m fairsched.replicate._doc_tables DOC...`` rewrites the blocks in place; the test suite
(`tests/test_replication_doc_tables.py`) checks that every block equals its rendering, so no figure in a table
is typed by hand. docs/performance.md uses the same blocks with its own renderers (``benchmarks/perf_tables.py``).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from fairsched._io import atomic_write
from fairsched.errors import ConfigError

__all__ = ["BLOCK", "DATA_DIR", "TABLES", "fmt", "markdown_table", "render_blocks", "stale_blocks"]

DATA_DIR = Path("docs/replication/data")
BLOCK = re.compile(r"(<!-- table: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /table -->)", re.S)

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


def _tables() -> dict[str, Renderer]:
    from fairsched.replicate import _jsspp05_ablations, _networking20_ablations, _tpds11_ablations

    tables: dict[str, Renderer] = {}
    for module in (_networking20_ablations, _tpds11_ablations, _jsspp05_ablations):
        tables.update(module.TABLES)
    return tables


TABLES: dict[str, Renderer] = {}


def render_blocks(text: str, data_dir: Path = DATA_DIR, tables: Mapping[str, Renderer] | None = None) -> str:
    """`text` with every table block replaced by its rendering from `data_dir` (by `tables`, default: the
    replication docs' renderers)."""
    tables = tables if tables is not None else (TABLES or _tables())

    def rebuild(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in tables:
            raise ConfigError(f"doc table {name!r} has no renderer; known: {', '.join(sorted(tables))}")
        return match.group(1) + tables[name](data_dir) + match.group(4)

    return BLOCK.sub(rebuild, text)


def stale_blocks(text: str, data_dir: Path = DATA_DIR, tables: Mapping[str, Renderer] | None = None) -> list[str]:
    """Names of the blocks of `text` that differ from their rendering (empty: the doc is up to date)."""
    fresh = {m.group("name"): m.group("body") for m in BLOCK.finditer(render_blocks(text, data_dir, tables))}
    return [m.group("name") for m in BLOCK.finditer(text) if fresh[m.group("name")] != m.group("body")]


def main(argv: list[str] | None = None) -> None:
    """Rewrite the table blocks of each doc given on the command line from ``docs/replication/data``."""
    for doc in map(Path, argv if argv is not None else sys.argv[1:]):
        text = doc.read_text(encoding="utf-8")
        with atomic_write(doc, encoding="utf-8") as handle:
            handle.write(render_blocks(text, DATA_DIR))


if __name__ == "__main__":
    main()
