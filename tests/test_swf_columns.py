"""`read_swf_columns` (numpy scanner, no pandas, no numba) against `read_swf` (numba scanner): the same lines
vouched for, the same values bit for bit, the same errors; on generated text and on every real trace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairsched.errors import InputError
from fairsched.workload import _swf_kernels, _swf_scan
from fairsched.workload.info import trace_info
from fairsched.workload.swf import read_swf, read_swf_columns
from tests.conftest import TRACES_DIR

# Tokens the scanners must agree on: plain decimals at the 15-digit limit and around it, every near miss of the
# plain-decimal grammar, numbers only the reference parser takes, comment starts and bytes that are not ASCII.
TOKENS = ["0", "1", "-1", "42", "007", "2.5", "-.5", ".5", "5.", "-0", "-0.0", "0.000000000000001",
          "123456789012345", "-123456789012345", "1234567890123456", "12345678.9012345", "1234567890.123456",
          "12345678901234567", "-", ".", "-.", "--1", "1-2", "1.2.3", "..5", "5-", "1e5", "+1", "nan", "inf", "0x10",
          ";", ";x", "x", "1;", "\xff", "\u00e9"]
SEPARATORS = [" ", "  ", "\t", "\r", "\x0b", "\x0c"]


@st.composite
def swf_text(draw: st.DrawFn) -> bytes:
    """Lines of 0-20 tokens (mostly 18, mostly plain), random whitespace, optional final line feed."""
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        n = draw(st.sampled_from([0, 17, 18, 18, 18, 19, draw(st.integers(0, 20))]))
        plain = st.sampled_from(TOKENS[:17])
        tokens = [draw(st.one_of(plain, plain, plain, st.sampled_from(TOKENS))) for _ in range(n)]
        seps = [draw(st.sampled_from(SEPARATORS)) for _ in range(n + 1)]
        line = (seps[0] if draw(st.booleans()) else "") + "".join(map(str.__add__, tokens, seps[1:]))
        lines.append(line.rstrip(" ") if draw(st.booleans()) else line)
    text = "\n".join(lines) + ("\n" if draw(st.booleans()) else "")
    return text.encode("utf-8")


@settings(max_examples=100, deadline=None)
@given(swf_text())
def test_numpy_scanner_equals_the_numba_scanner(chunk: bytes) -> None:
    fast, compiled = _swf_scan.scan_chunk(chunk), _swf_kernels.scan_chunk(chunk)
    assert fast.kinds.tolist() == compiled.kinds.tolist()
    assert fast.starts.tolist() == compiled.starts.tolist() and fast.ends.tolist() == compiled.ends.tolist()
    assert fast.values.shape == compiled.values.shape
    assert fast.values.tobytes() == compiled.values.tobytes()  # bit for bit, -0.0 included


def test_the_scanners_split_tokens_at_every_ascii_space_but_not_at_other_bytes() -> None:
    row = "\t".join(["1"] * 9) + "\x0b" + "\x0c".join(["2"] * 8) + "\r3"
    for chunk in (row.encode(), (row + "\xa0").encode()):  # U+00A0 is not ASCII whitespace: a bad token
        fast, compiled = _swf_scan.scan_chunk(chunk), _swf_kernels.scan_chunk(chunk)
        assert fast.kinds.tolist() == compiled.kinds.tolist()
    assert _swf_scan.scan_chunk(row.encode()).values[:, 0].tolist() == [1.0] * 9 + [2.0] * 8 + [3.0]


def _read(reader, path: Path, **kwargs: object) -> tuple[str, object]:
    try:
        workload = reader(path, **kwargs)
    except InputError as exc:
        return "error", str(exc)
    columns = workload.columns if hasattr(workload, "columns") else {c: workload.jobs[c].to_numpy()
                                                                     for c in workload.jobs}
    return "ok", ({name: (values.dtype.str, values.tobytes()) for name, values in columns.items()},
                  workload.header, workload.read_report)


@settings(max_examples=40, deadline=None)
@given(swf_text(), st.booleans())
def test_both_readers_give_the_same_jobs_or_the_same_one_line_error(tmp_path_factory: pytest.TempPathFactory,
                                                                  body: bytes, skip: bool) -> None:
    path = tmp_path_factory.mktemp("swf") / "t.swf"
    path.write_bytes(b"; MaxProcs: 4\n" + body)
    reference = _read(read_swf, path, skip_bad_records=skip)
    assert _read(read_swf_columns, path, skip_bad_records=skip) == reference
    assert _read(read_swf_columns, path, skip_bad_records=skip, compiled=True) == reference  # `fairsched backfill`


def test_a_malformed_line_gives_the_same_error_from_both_readers(tmp_path: Path) -> None:
    good = "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1"
    path = tmp_path / "bad.swf"
    path.write_text(f"; MaxProcs: 4\n{good}\n2 5 0 10 2.5 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    for reader in (read_swf, read_swf_columns):
        with pytest.raises(InputError, match=rf"^{path}:3: field allocated_processors: '2.5' has a fraction"):
            reader(path)


TRACE_FILES = sorted(p.name for p in TRACES_DIR.glob("*.swf*")) if TRACES_DIR.is_dir() else []


@pytest.mark.traces
@pytest.mark.parametrize("name", TRACE_FILES or ["(no traces)"])
def test_every_real_trace_reads_the_same_and_gives_the_same_trace_info(name: str) -> None:
    path = TRACES_DIR / name
    if not path.exists():
        pytest.skip(f"real traces not found in {TRACES_DIR}")
    fast, reference = read_swf_columns(path), read_swf(path)
    assert fast.n_jobs == len(reference.jobs) > 0
    assert list(fast.columns) == list(reference.jobs.columns)
    for column, values in fast.columns.items():
        expected = reference.jobs[column].to_numpy()
        assert values.dtype == expected.dtype and values.tobytes() == expected.tobytes(), column
    assert (fast.header, fast.read_report) == (reference.header, reference.read_report)
    assert trace_info(fast) == trace_info(reference)


def test_trace_info_imports_neither_pandas_nor_numba(tmp_path: Path) -> None:
    path = tmp_path / "small.swf"
    path.write_text("; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    code = ("import sys\nfrom fairsched.cli import main\ntry:\n    main(['trace', 'info', sys.argv[1], '--json'])\n"
            "except SystemExit:\n    pass\nprint([m for m in ('pandas', 'numba', 'matplotlib') if m in sys.modules])")
    run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert '"jobs": 1' in run.stdout
    assert run.stdout.strip().endswith("[]"), run.stdout


def test_columns_convert_to_the_pandas_workload(tmp_path: Path) -> None:
    path = tmp_path / "small.swf"
    path.write_text("1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n2 9 0 10 0 -1 -1 3 -1 -1 1 1 1 -1 1 -1 -1 -1\n")
    workload = read_swf_columns(path).to_workload()
    assert workload.jobs["processors"].tolist() == [2, 3]
    assert workload.jobs["runtime_estimate"].tolist() == [20.0, 10.0]
    np.testing.assert_array_equal(workload.column("submit_time"), [0.0, 9.0])
