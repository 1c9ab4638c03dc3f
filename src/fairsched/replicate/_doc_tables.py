"""The replication docs' tables and marked numbers, rebuilt from the result files of ``docs/replication/data``.

A doc marks each generated table with ``<!-- table: NAME -->`` … ``<!-- /table -->`` and each number in the prose
with ``<!-- value: NAME -->6,760<!-- /value -->`` (`fairsched.replicate._doc_format`). This module is the one
place that gathers every paper's renderers: `TABLES` and `VALUES` merge the ``TABLES`` / ``VALUES`` of each paper
folder's doc modules (each module's docstring says which command writes the files it reads).
``python -m fairsched.replicate._doc_tables DOC...`` rewrites the blocks in place; the test suite
(`tests/test_replication_doc_tables.py`) checks that every block equals its rendering, so no figure in a table or in
a marked sentence is typed by hand. docs/performance.md uses the same blocks with its own renderers
(``benchmarks/perf_tables.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

from fairsched._io import atomic_write
from fairsched.replicate._doc_format import BLOCK, DATA_DIR, VALUE, Renderer
from fairsched.replicate._doc_format import render_blocks as _render
from fairsched.replicate._doc_format import stale_blocks as _stale
from fairsched.replicate.jsspp05 import doc as jsspp05_doc
from fairsched.replicate.jsspp05 import doc_values as jsspp05_values
from fairsched.replicate.networking20 import doc as networking20_doc
from fairsched.replicate.networking20 import doc_sptf as networking20_sptf
from fairsched.replicate.networking20 import doc_values as networking20_values
from fairsched.replicate.ppam13 import doc as ppam13_doc
from fairsched.replicate.ppam13 import doc_split_dc as ppam13_split_dc
from fairsched.replicate.ppam13 import doc_values as ppam13_values
from fairsched.replicate.spaa13 import doc as spaa13_doc
from fairsched.replicate.spaa13 import doc_values as spaa13_values
from fairsched.replicate.tpds11 import doc as tpds11_doc
from fairsched.replicate.tpds11 import doc_mocca as tpds11_mocca
from fairsched.replicate.tpds11 import doc_values as tpds11_values

__all__ = ["BLOCK", "DATA_DIR", "DOC_MODULES", "TABLES", "VALUE", "VALUES", "main", "render_blocks",
           "stale_blocks"]

DOC_MODULES: tuple[ModuleType, ...] = (networking20_doc, networking20_values, networking20_sptf, tpds11_doc,
                                       tpds11_values, tpds11_mocca, jsspp05_doc, jsspp05_values, spaa13_doc,
                                       spaa13_values, ppam13_doc, ppam13_values, ppam13_split_dc)
"""Every module holding renderers of the replication docs (a ``TABLES`` and/or ``VALUES`` mapping)."""


def _merged(kind: str) -> dict[str, Renderer]:
    renderers: dict[str, Renderer] = {}
    for module in DOC_MODULES:
        renderers.update(getattr(module, kind, {}))
    return renderers


TABLES: dict[str, Renderer] = _merged("TABLES")
VALUES: dict[str, Renderer] = _merged("VALUES")


def render_blocks(text: str, data_dir: Path = DATA_DIR, tables: Mapping[str, Renderer] | None = None,
                  values: Mapping[str, Renderer] | None = None) -> str:
    """`text` with every table block and every marked value replaced by its rendering from `data_dir`; `tables`
    and `values` default to the replication docs' renderers (`TABLES`, `VALUES`)."""
    return _render(text, data_dir, TABLES if tables is None else tables, VALUES if values is None else values)


def stale_blocks(text: str, data_dir: Path = DATA_DIR, tables: Mapping[str, Renderer] | None = None,
                 values: Mapping[str, Renderer] | None = None) -> list[str]:
    """Names of the table blocks and marked values of `text` that differ from their rendering, in order (empty:
    the doc is up to date)."""
    return _stale(text, data_dir, TABLES if tables is None else tables, VALUES if values is None else values)


def main(argv: list[str] | None = None) -> None:
    """Rewrite the table blocks and marked values of each doc given on the command line from
    ``docs/replication/data``."""
    for doc in map(Path, argv if argv is not None else sys.argv[1:]):
        text = doc.read_text(encoding="utf-8")
        with atomic_write(doc, encoding="utf-8") as handle:
            handle.write(render_blocks(text, DATA_DIR))


if __name__ == "__main__":
    main()
