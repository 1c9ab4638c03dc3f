"""report.html: one self-contained page (fairsched.report.html), checked as text and in a real headless Chromium."""

from __future__ import annotations

import base64
import io
import math
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure as MplFigure
from PIL import Image

from fairsched.report.html import MAX_TABLE_ROWS, Figure, Report, Table, command_line, render_html, write_report_html

CHROMIUM = Path("/usr/bin/chromium")
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
          "--enable-logging=stderr", "--v=0", "--hide-scrollbars", "--window-size=1100,1400")


class _Refs(HTMLParser):
    """Every src/href of a page, and the text of its table cells."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.cells: list[str] = []
        self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_cell = tag in ("td", "th")
        self.refs.extend((tag, name, value or "") for name, value in attrs if name in ("src", "href"))

    def handle_endtag(self, tag: str) -> None:
        self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.cells.append(data)


def _figure() -> MplFigure:
    fig = MplFigure(figsize=(4, 3), dpi=80)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.bar(["a", "b", "c"], [3, 1, 2], color="tab:blue")
    return fig


def _report(**overrides: object) -> Report:
    fields = dict(
        title="compare on <synthetic> & co", command=command_line(["compare", "--out", "out/my dir"]),
        summary="3 policies, 5 organizations",
        config={"orgs": 5, "policies": ("rr", "fairshare"), "trace": None},
        tables=(Table("Policies", ("policy", "delta_psi", "ratio", "reference"),
                      [("rr", 1234567, 0.123456789, False), ("fairshare", 7, math.nan, True)], note="ratio: Δψ/p"),),
        figures=(Figure.from_matplotlib("Utilities", _figure(), caption="per organization"),
                 Figure.from_matplotlib("Utilities (SVG)", _figure(), format="svg")),
        notes=("a note",), warnings=("organization 3 has no job",), files=("summary.csv", "rr/schedule.csv"),
    )
    fields.update(overrides)
    return Report(**fields)


def test_page_shows_every_part_escaped_and_formatted() -> None:
    page = render_html(_report())
    assert "<title>compare on &lt;synthetic&gt; &amp; co</title>" in page
    assert "fairsched compare --out &#x27;out/my dir&#x27;" in page  # the exact command, shell-quoted then escaped
    parser = _Refs()
    parser.feed(page)
    cells = [c.strip() for c in parser.cells]
    assert cells[:6] == ["orgs", "5", "policies", "rr, fairshare", "trace", "–"]
    assert cells[-8:] == ["rr", "1,234,567", "0.123457", "no", "fairshare", "7", "–", "yes"]
    for text in ("ratio: Δψ/p", "a note", "organization 3 has no job", "per organization"):
        assert text in page


def test_page_is_self_contained() -> None:
    """No network: every image is an inline data URI that decodes; the only links are the files beside it."""
    parser = _Refs()
    parser.feed(render_html(_report()))
    images = [value for tag, name, value in parser.refs if tag == "img"]
    assert len(images) == 2
    png = Image.open(io.BytesIO(base64.b64decode(images[0].split(",", 1)[1])))
    assert png.format == "PNG" and png.size == (320, 240)
    assert images[1].startswith("data:image/svg+xml;base64,")
    assert b"<svg" in base64.b64decode(images[1].split(",", 1)[1])
    links = [value for tag, name, value in parser.refs if tag == "a"]
    assert links == ["summary.csv", "rr/schedule.csv"]
    assert not re.search(r"(src|href)=\"(https?:|//)", render_html(_report()))


def test_long_tables_are_cut_and_say_so() -> None:
    rows = [(i,) for i in range(MAX_TABLE_ROWS + 7)]
    page = render_html(_report(tables=(Table("Jobs", ("job",), rows),)))
    assert page.count("<tr>") == MAX_TABLE_ROWS + 1 + 3  # header + shown rows + the 3 config rows
    assert f"first {MAX_TABLE_ROWS} of {MAX_TABLE_ROWS + 7} rows shown" in page


def test_from_frame_and_file(tmp_path: Path) -> None:
    import pandas as pd

    table = Table.from_frame("t", pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))
    assert (tuple(table.columns), [tuple(r) for r in table.rows]) == (("a", "b"), [(1, "x"), (2, "y")])
    path = tmp_path / "f.png"
    _figure().savefig(path)
    assert Figure.from_file("f", path).format == "png"
    with pytest.raises(ValueError, match="choose one of png, svg"):
        Figure("f", b"", "gif")


def test_written_atomically(tmp_path: Path) -> None:
    path = write_report_html(_report(), tmp_path / "out")
    assert path == tmp_path / "out" / "report.html"
    assert path.read_text(encoding="utf-8") == render_html(_report())
    assert [p.name for p in path.parent.iterdir()] == ["report.html"]  # no temporary file left


def chromium_load(page: Path, tmp_path: Path) -> tuple[list[str], np.ndarray]:
    """Load `page` in headless Chromium: the console messages it logged and its screenshot (RGB array)."""
    shot = tmp_path / "shot.png"
    run = subprocess.run([str(CHROMIUM), *_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                          f"--screenshot={shot}", page.resolve().as_uri()],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    return console, np.asarray(Image.open(shot).convert("RGB"))


needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (/usr/bin/chromium)")


@needs_chromium
def test_chromium_loads_the_page_cleanly(tmp_path: Path) -> None:
    page = write_report_html(_report(), tmp_path / "out")
    console, shot = chromium_load(page, tmp_path)
    assert console == []
    assert shot.shape[0] > 500 and shot.shape[1] > 500
    dark = (shot.sum(axis=2) < 200).mean()       # text, table borders
    blue = ((shot[..., 2] > 150) & (shot[..., 0] < 80)).mean()  # the tab:blue bars of the inline figure
    assert dark > 0.001 and blue > 0.001


@needs_chromium
def test_chromium_check_sees_console_errors_and_blank_pages(tmp_path: Path) -> None:
    """The check above can fail: a script error is logged, a blank page has neither text nor figure."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>")
    console, shot = chromium_load(bad, tmp_path)
    assert any("undefinedFunction" in line for line in console)
    assert (shot.sum(axis=2) < 200).mean() == 0


@needs_chromium
@pytest.mark.parametrize("command", [["compare", "--orgs", "2", "--policies", "rr,fairshare"],
                                     ["backfill", "--fairness", "re"]])
def test_chromium_loads_a_command_report(command: list[str], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_main
    from tests.test_byte_identical import small_swf

    swf = small_swf(tmp_path / "small.swf")
    code, _, err = run_main([*command, "--trace", str(swf), "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    console, shot = chromium_load(tmp_path / "o" / "report.html", tmp_path)
    assert console == []
    assert (shot.sum(axis=2) < 200).mean() > 0.001
