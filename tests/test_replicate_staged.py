"""Replication outputs appear whole or not at all: Ctrl-C while they are written leaves the previous set (and the
sweep store) untouched, and no half-written file beside them (`fairsched._io.staged_files`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairsched._io import final_paths, staged_files
from tests.conftest import run_main


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _previous_run(out: Path) -> dict[str, bytes]:
    """A complete earlier result set and a sweep store, as a replication leaves them."""
    (out / "sweep").mkdir(parents=True)
    (out / "sweep" / "cell-0.parquet").write_bytes(b"kept between runs")
    (out / "rows.csv").write_text("a,b\n1,2\n")
    (out / "report.json").write_text(json.dumps({"outputs": {"rows.csv": str(out / "rows.csv")}}))
    return _snapshot(out)


def test_staged_files_moves_the_set_and_names_the_final_paths(tmp_path: Path) -> None:
    out = tmp_path / "results"
    before = _previous_run(out)
    with staged_files(out) as stage:
        (stage / "figs").mkdir()
        (stage / "figs" / "a.png").write_bytes(b"png")
        (stage / "rows.csv").write_text("a,b\n3,4\n")
        (stage / "report.json").write_text(json.dumps({"outputs": {"rows.csv": str(stage / "rows.csv")}}))
        written = {"rows.csv": stage / "rows.csv", "figs/a.png": stage / "figs" / "a.png"}
    assert final_paths(written, stage, out) == {"rows.csv": out / "rows.csv", "figs/a.png": out / "figs" / "a.png"}
    after = _snapshot(out)
    assert after["sweep/cell-0.parquet"] == before["sweep/cell-0.parquet"]
    assert after["rows.csv"] == b"a,b\n3,4\n" and after["figs/a.png"] == b"png"
    assert json.loads(after["report.json"])["outputs"]["rows.csv"] == str(out / "rows.csv")
    assert sorted(p.name for p in out.iterdir()) == ["figs", "report.json", "rows.csv", "sweep"]  # no stage left


def test_interrupted_writing_leaves_the_previous_set(tmp_path: Path) -> None:
    out = tmp_path / "results"
    before = _previous_run(out)
    with pytest.raises(KeyboardInterrupt), staged_files(out) as stage:
        (stage / "rows.csv").write_text("half")
        raise KeyboardInterrupt
    assert _snapshot(out) == before and sorted(p.name for p in out.iterdir()) == ["report.json", "rows.csv", "sweep"]


def test_interrupted_first_run_leaves_no_directory(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt), staged_files(tmp_path / "new") as stage:
        (stage / "rows.csv").write_text("half")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_while_tpds11_writes_keeps_the_previous_set(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from fairsched.replicate import tpds11
    from fairsched.report import mosp

    def half_written(result: object, out_dir: Path) -> dict[str, Path]:
        (Path(out_dir) / "tpds11_rows.csv").write_text("half")
        raise KeyboardInterrupt

    monkeypatch.setattr(tpds11, "run", lambda config, progress=None: object())
    monkeypatch.setattr(mosp, "write_tpds11_outputs", half_written)
    out = tmp_path / "o"
    before = _previous_run(out)
    code, _, err = run_main(["replicate", "tpds11", "--quick", "--out", str(out)], capsys)
    assert code == 130 and err.startswith("interrupted")
    assert _snapshot(out) == before and sorted(p.name for p in out.iterdir()) == ["report.json", "rows.csv", "sweep"]


@pytest.mark.parametrize("command", ["ppam13", "spaa13"])
def test_ctrl_c_in_an_online_replication_writes_nothing(command: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = importlib.import_module(f"fairsched.replicate.{command}")

    def half_written(config: object, progress: object = None) -> None:
        (Path(config.out_dir) / f"{command}_table.csv").write_text("half")  # type: ignore[attr-defined]
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "run", half_written)
    out = tmp_path / "o"
    code, _, _ = run_main(["replicate", command, "--quick", "--out", str(out)], capsys)
    assert code == 130
    assert not out.exists() or _snapshot(out) == {}  # spaa13's sweep store may exist; no result file does
