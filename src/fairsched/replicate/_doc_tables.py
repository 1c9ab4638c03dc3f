"""The replication docs' tables, rebuilt from the result files of ``docs/replication/data/``.

A doc marks each generated table with ``<!-- table: NAME -->`` … ``<!-- /table -->``; `TABLES` maps NAME to a
renderer ``f(data_dir) -> markdown`` that reads the CSV files a command wrote (each renderer's module says which
command). A number in the prose is marked inline, ``<!-- value: NAME -->6,760<!-- /value -->``, and rendered the
same way by `VALUES` (NAME -> ``f(data_dir) -> text``). ``python -m fairsched.replicate._doc_tables DOC...``
rewrites the blocks in place; the test suite (`tests/test_replication_doc_tables.py`) checks that every block
equals its rendering, so no figure in a table or in a marked sentence is typed by hand. docs/performance.md uses the
same blocks with its own renderers (``benchmarks/perf_tables.py``).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from fairsched._io import atomic_write
from fairsched.errors import ConfigError

__all__ = ["BLOCK", "DATA_DIR", "TABLES", "VALUE", "VALUES", "fmt", "markdown_table", "render_blocks",
           "stale_blocks"]

DATA_DIR = Path("docs/replication/data")
BLOCK = re.compile(r"(<!-- table: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /table -->)", re.S)
VALUE = re.compile(r"(<!-- value: (?P<name>[\w.-]+) -->)(?P<body>[^<\n]*)(<!-- /value -->)")

Renderer = Callable[[Path], str]
MATCH_FACTOR = 1.25  # a ratio "matches" the paper's when within a factor 1.25 of it (papers give 2 digits)


def verdict(paper: float, ours: float, kind: str) -> str:
    """The replications' verdict scale for a claim stated as a ratio oriented so that > 1 means the paper's
    algorithm is better: ``matches`` (within `MATCH_FACTOR` of the paper's ratio; ``kind`` "same": within 10 % of
    1), ``direction only`` (better, as the paper says, but by a factor outside that band) or ``no`` (not better).

    >>> verdict(1.7, 1.57, "lower"), verdict(1.7, 3.21, "lower"), verdict(1.7, 0.37, "lower")
    ('matches', 'direction only', 'no')
    """
    if kind == "same":
        return "matches" if abs(ours - 1.0) <= 0.1 else "no"
    if not ours > 1.0:
        return "no"
    return "matches" if 1 / MATCH_FACTOR <= ours / paper <= MATCH_FACTOR else "direction only"


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


def _renderers(kind: str) -> dict[str, Renderer]:
    from fairsched.replicate import (
        _jsspp05_ablations,
        _networking20_ablations,
        _ppam13_doc,
        _spaa13_doc,
        _tpds11_ablations,
    )

    renderers: dict[str, Renderer] = {}
    for module in (_networking20_ablations, _tpds11_ablations, _jsspp05_ablations, _spaa13_doc, _ppam13_doc):
        renderers.update(getattr(module, kind, {}))
    return renderers


TABLES: dict[str, Renderer] = {}
VALUES: dict[str, Renderer] = {}


def render_blocks(text: str, data_dir: Path = DATA_DIR, tables: Mapping[str, Renderer] | None = None,
                  values: Mapping[str, Renderer] | None = None) -> str:
    """`text` with every table block and every marked value replaced by its rendering from `data_dir`; `tables`
    and `values` default to the replication docs' renderers."""
    tables = tables if tables is not None else (TABLES or _renderers("TABLES"))
    values = values if values is not None else (VALUES or _renderers("VALUES"))
    for pattern, renderers, kind in ((BLOCK, tables, "table"), (VALUE, values, "value")):
        def rebuild(match: re.Match[str], renderers: Mapping[str, Renderer] = renderers, kind: str = kind) -> str:
            name = match.group("name")
            if name not in renderers:
                raise ConfigError(f"doc {kind} {name!r} has no renderer; known: {', '.join(sorted(renderers))}")
            return match.group(1) + renderers[name](data_dir) + match.group(4)

        text = pattern.sub(rebuild, text)
    return text


def stale_blocks(text: str, data_dir: Path = DATA_DIR, tables: Mapping[str, Renderer] | None = None,
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


def main(argv: list[str] | None = None) -> None:
    """Rewrite the table blocks of each doc given on the command line from ``docs/replication/data``."""
    for doc in map(Path, argv if argv is not None else sys.argv[1:]):
        text = doc.read_text(encoding="utf-8")
        with atomic_write(doc, encoding="utf-8") as handle:
            handle.write(render_blocks(text, DATA_DIR))


if __name__ == "__main__":
    main()
