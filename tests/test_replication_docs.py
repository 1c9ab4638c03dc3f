"""The tables of docs/replication/ppam13.md are the shipped result files rendered, not hand-typed numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairsched.replicate.ppam13_variants import render_doc

DOCS = Path(__file__).resolve().parents[1] / "docs" / "replication"


@pytest.mark.parametrize("doc", ["ppam13.md"])
def test_generated_blocks_equal_the_result_files(doc: str) -> None:
    text = (DOCS / doc).read_text(encoding="utf-8")
    assert text.count("<!-- generated: ") >= 1  # a doc without blocks would pass vacuously
    assert text.count("<!-- generated: ") == text.count("<!-- end generated -->")
    assert render_doc(text, DOCS / "data") == text, (
        f"docs/replication/{doc} differs from its result files; regenerate with "
        f"fairsched.replicate.ppam13_variants.update_doc('docs/replication/{doc}')")


def test_render_doc_replaces_a_stale_block(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    table = "policy,split,orgs,windows,mean\nA,uniform,2,3,1.5\nREF,uniform,2,3,0\n"
    (tmp_path / "d" / "x_table.csv").write_text(table)
    stale = "before\n<!-- generated: k d -->\n| stale |\n<!-- end generated -->\nafter\n"
    fresh = render_doc(stale, tmp_path)
    assert "| stale |" not in fresh and "| 2 | 1.5 |" in fresh and fresh.startswith("before\n")
    assert render_doc(fresh, tmp_path) == fresh
