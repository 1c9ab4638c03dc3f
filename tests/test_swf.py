"""SWF reader and writer (fairsched.workload.swf) on hand-written files, every problem kind, and the real traces."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError, InputError
from fairsched.workload import _swf_kernels, _swf_scan, swf
from fairsched.workload.model import Workload
from fairsched.workload.schema import PROCESSORS, RUNTIME_ESTIMATE, SWF_FIELDS, SWF_FLOAT_FIELDS
from fairsched.workload.swf import (
    FALLBACK_ESTIMATE_MISSING,
    FALLBACK_ESTIMATE_RUN_TIME,
    FALLBACK_OUT_OF_ORDER,
    FALLBACK_PROCESSORS_MISSING,
    FALLBACK_PROCESSORS_REQUESTED,
    read_swf,
    write_swf,
)
from tests.conftest import trace_path

# Three jobs: job 2 lacks allocated processors and requested time, job 3 is an LPC-style cancelled job
# (allocated 0, nothing requested, no run time). Comments sit before and between records.
SMALL = """\
; Version: 2.2
;   Computer: Test cluster
; MaxProcs: 8
; Queue: 1 short
; Queue: 2 long
;   a comment line without a key: ignored
;
   1   0     5  100   4    -1  -1   4  200  -1  1  1  1  -1  1  -1  -1  -1
   2  10.5   0   50  -1  2.25  -1   2   -1  -1  0  2  1  -1  2  -1  -1  -1
; Note: between records
   3  20     1   -1   0    -1  -1  -1   -1  -1  5  1  2  -1  1  -1  -1  -1
"""
SMALL_HEADER = (("Version", "2.2"), ("Computer", "Test cluster"), ("MaxProcs", "8"), ("Queue", "1 short"),
                ("Queue", "2 long"), ("Note", "between records"))
GOOD = "1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1"


def _write(tmp_path: Path, text: str | bytes, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _record(**fields: str) -> str:
    """GOOD with some fields replaced, by column name."""
    tokens = GOOD.split()
    for name, token in fields.items():
        tokens[SWF_FIELDS.index(name)] = token
    return " ".join(tokens)


# ------------------------------------------------------------------------------------------------ columns, header

def test_small_file_columns_header_and_fallbacks(tmp_path: Path) -> None:
    w = read_swf(_write(tmp_path, SMALL))
    jobs = w.jobs
    assert list(jobs.columns) == [*SWF_FIELDS, PROCESSORS, RUNTIME_ESTIMATE]
    for name in SWF_FIELDS:
        assert jobs[name].dtype == (np.float64 if name in SWF_FLOAT_FIELDS else np.int64), name
    assert jobs["job_number"].tolist() == [1, 2, 3]
    assert jobs["submit_time"].tolist() == [0.0, 10.5, 20.0]
    assert jobs["wait_time"].tolist() == [5.0, 0.0, 1.0]
    assert jobs["run_time"].tolist() == [100.0, 50.0, -1.0]
    assert jobs["allocated_processors"].tolist() == [4, -1, 0]
    assert jobs["average_cpu_time"].tolist() == [-1.0, 2.25, -1.0]
    assert jobs["requested_processors"].tolist() == [4, 2, -1]
    assert jobs["status"].tolist() == [1, 0, 5]
    assert jobs["user_id"].tolist() == [1, 2, 1]
    assert jobs["group_id"].tolist() == [1, 1, 2]
    assert jobs["queue_number"].tolist() == [1, 2, 1]
    assert jobs["think_time"].tolist() == [-1.0, -1.0, -1.0]
    assert jobs[PROCESSORS].dtype == np.int64 and jobs[PROCESSORS].tolist() == [4, 2, -1]
    assert jobs[RUNTIME_ESTIMATE].dtype == np.float64 and jobs[RUNTIME_ESTIMATE].tolist() == [200.0, 50.0, -1.0]
    assert w.header == SMALL_HEADER
    assert w.header_int("MaxProcs") == 8
    assert w.source == str(tmp_path / "t.swf")
    assert w.read_report.n_records == 3
    assert w.read_report.skipped == {}
    assert w.read_report.fallbacks == {FALLBACK_PROCESSORS_REQUESTED: 1, FALLBACK_PROCESSORS_MISSING: 1,
                                       FALLBACK_ESTIMATE_RUN_TIME: 1, FALLBACK_ESTIMATE_MISSING: 1}


def test_processors_and_estimate_rules(tmp_path: Path) -> None:
    """allocated >= 1 wins; allocated 0 (LPC cancelled) falls back to requested; requested_time 0 is kept."""
    lines = [_record(allocated_processors="3", requested_processors="7"),
             _record(allocated_processors="0", requested_processors="7"),
             _record(allocated_processors="-1", requested_processors="0"),
             _record(requested_time="0", run_time="9"),
             _record(requested_time="-1", run_time="0")]
    w = read_swf(_write(tmp_path, "\n".join(lines)))  # no final line break
    assert w.jobs[PROCESSORS].tolist() == [3, 7, -1, 4, 4]
    assert w.jobs[RUNTIME_ESTIMATE].tolist() == [200.0, 200.0, 200.0, 0.0, 0.0]
    assert w.read_report.fallbacks == {FALLBACK_PROCESSORS_REQUESTED: 1, FALLBACK_PROCESSORS_MISSING: 1,
                                       FALLBACK_ESTIMATE_RUN_TIME: 1}


def test_header_keys_need_a_colon_then_space(tmp_path: Path) -> None:
    text = ("; Information: http://example.org/log.html\n;http://example.org\n; Note:\n"
            "; TimeZone: 3600\t # DEPRECATED; use TimeZoneString\n  ;  Max-Jobs :  12  \n; two words: no\n")
    w = read_swf(_write(tmp_path, text))
    assert w.header == (("Information", "http://example.org/log.html"), ("Note", ""),
                        ("TimeZone", "3600\t # DEPRECATED; use TimeZoneString"), ("Max-Jobs", "12"))


@pytest.mark.parametrize("text", ["", "\n\n", "; Version: 2.2\n; MaxProcs: 4\n", "  \t \r\n"])
def test_empty_or_header_only_file_gives_no_jobs(tmp_path: Path, text: str) -> None:
    w = read_swf(_write(tmp_path, text))
    assert len(w.jobs) == 0
    assert list(w.jobs.columns) == [*SWF_FIELDS, PROCESSORS, RUNTIME_ESTIMATE]
    assert w.jobs["job_number"].dtype == np.int64 and w.jobs["run_time"].dtype == np.float64
    assert w.read_report.n_records == 0 and w.read_report.fallbacks == {}


def test_unusual_but_valid_numbers(tmp_path: Path) -> None:
    """Exponents, '+', '.5', '5.', '2.0' in an integer field, CRLF and tabs: all parsed by the reference rules."""
    line = _record(submit_time="+.5", wait_time="5.", run_time="1e2", allocated_processors="2.0",
                   requested_time="1.5E+1", user_id="007", average_cpu_time="-1.0")
    w = read_swf(_write(tmp_path, "\t" + line.replace(" ", "\t ") + "\r\n"))
    row = w.jobs.iloc[0]
    assert (row["submit_time"], row["wait_time"], row["run_time"]) == (0.5, 5.0, 100.0)
    assert (row["allocated_processors"], row["requested_time"], row["user_id"]) == (2, 15.0, 7)
    assert row["average_cpu_time"] == -1.0


def test_gzip_and_plain_give_the_same_workload(tmp_path: Path) -> None:
    plain = read_swf(_write(tmp_path, SMALL))
    packed = gzip.compress(SMALL.encode())
    for name in ("t.swf.gz", "gzip-without-suffix.swf"):  # detected by magic bytes, not by the suffix
        w = read_swf(_write(tmp_path, packed, name))
        pd.testing.assert_frame_equal(w.jobs, plain.jobs, check_exact=True)
        assert w.header == plain.header and w.read_report == plain.read_report
    mislabelled = read_swf(_write(tmp_path, SMALL, "plain-text.swf.gz"))
    pd.testing.assert_frame_equal(mislabelled.jobs, plain.jobs, check_exact=True)


@pytest.mark.parametrize("chunk_bytes", [1, 7, 64, 200])
def test_chunk_boundaries_do_not_matter(tmp_path: Path, chunk_bytes: int) -> None:
    """Lines cut across read blocks are reassembled; line numbers in errors stay right."""
    expected = read_swf(_write(tmp_path, SMALL))
    with mock.patch.object(swf, "_CHUNK_BYTES", chunk_bytes):
        w = read_swf(_write(tmp_path, SMALL))
        pd.testing.assert_frame_equal(w.jobs, expected.jobs, check_exact=True)
        assert w.header == expected.header
        with pytest.raises(InputError) as err:
            read_swf(_write(tmp_path, SMALL + _record(run_time="-5") + "\n"))
    assert (err.value.line, err.value.field) == (12, "run_time")


def test_records_rescued_by_the_reference_parser_keep_their_place(tmp_path: Path) -> None:
    """'+3' and '1e1' are left to the slow parser; their jobs must stay where the file put them."""
    lines = [_record(job_number=j, submit_time=s) for j, s in
             [("1", "5"), ("2", "1e1"), ("+3", "10"), ("4", "10"), ("5", "20")]]
    w = read_swf(_write(tmp_path, "\n".join(lines)))
    assert w.jobs["job_number"].tolist() == [1, 2, 3, 4, 5]
    assert FALLBACK_OUT_OF_ORDER not in w.read_report.fallbacks


def test_records_out_of_submit_order_are_sorted_stably_and_counted(tmp_path: Path) -> None:
    submits = [20, 0, 10, 10, 30]
    lines = [_record(job_number=str(i + 1), submit_time=str(s)) for i, s in enumerate(submits)]
    w = read_swf(_write(tmp_path, "\n".join(lines) + "\n"))
    assert w.jobs["job_number"].tolist() == [2, 3, 4, 1, 5]
    assert w.jobs["submit_time"].tolist() == [0, 10, 10, 20, 30]
    assert w.jobs.index.tolist() == [0, 1, 2, 3, 4]
    assert w.read_report.fallbacks == {FALLBACK_OUT_OF_ORDER: 3}


# ------------------------------------------------------------------------------------------------ problems

BAD_RECORDS = [  # (bad line, field in the message, skip reason)
    pytest.param(" ".join(GOOD.split()[:17]), "count", "wrong field count", id="17-fields"),
    pytest.param(GOOD + " 7", "count", "wrong field count", id="19-fields"),
    pytest.param(GOOD[:10], "count", "wrong field count", id="truncated"),
    pytest.param(_record(run_time="abc"), "run_time", "non-numeric value", id="letters"),
    pytest.param(_record(run_time="nan"), "run_time", "non-numeric value", id="nan"),
    pytest.param(_record(wait_time="inf"), "wait_time", "non-numeric value", id="inf"),
    pytest.param(_record(status="0x1"), "status", "non-numeric value", id="hex"),
    pytest.param(_record(user_id="١٢"), "user_id", "non-numeric value", id="arabic-digits"),
    pytest.param(_record(queue_number="1-2"), "queue_number", "non-numeric value", id="1-2"),
    pytest.param(_record(group_id="\udcff\udcfe"), "group_id", "non-UTF-8 bytes", id="garbage-bytes"),
    pytest.param(_record(allocated_processors="2.5"), "allocated_processors", "fraction in integer field",
                 id="fraction"),
    pytest.param(_record(submit_time="-3"), "submit_time", "negative submit time", id="submit-negative"),
    pytest.param(_record(submit_time="-1"), "submit_time", "negative submit time", id="submit-missing"),
    pytest.param(_record(run_time="-5"), "run_time", "negative value", id="run-time-negative"),
    pytest.param(_record(requested_processors="-2"), "requested_processors", "negative value", id="int-negative"),
    pytest.param(_record(think_time="-1.5"), "think_time", "negative value", id="float-negative"),
    pytest.param(_record(wait_time="1e999"), "wait_time", "value out of range", id="float-overflow"),
    pytest.param(_record(job_number="99999999999999999999"), "job_number", "value out of range", id="int-huge"),
]


def _bad_file(tmp_path: Path, bad_line: str) -> Path:
    """Line 1 a header, lines 2-3 good, line 4 bad, line 5 good."""
    text = "; MaxProcs: 8\n" + GOOD + "\n" + GOOD + "\n" + bad_line + "\n" + GOOD + "\n"
    return _write(tmp_path, text.encode("utf-8", errors="surrogateescape"))


@pytest.mark.parametrize(("bad_line", "field", "reason"), BAD_RECORDS)
def test_each_problem_raises_with_file_line_field(tmp_path: Path, bad_line: str, field: str, reason: str) -> None:
    path = _bad_file(tmp_path, bad_line)
    with pytest.raises(InputError) as err:
        read_swf(path)
    message = str(err.value)
    assert message.startswith(f"{path}:4: field {field}: ")
    assert (err.value.path, err.value.line, err.value.field) == (str(path), 4, field)
    assert "expected" in message and "--skip-bad-records" in message


@pytest.mark.parametrize(("bad_line", "field", "reason"), BAD_RECORDS)
def test_each_problem_is_skipped_under_its_reason(tmp_path: Path, bad_line: str, field: str, reason: str) -> None:
    path = _bad_file(tmp_path, bad_line)
    w = read_swf(path, skip_bad_records=True)
    assert w.read_report.skipped == {reason: 1}
    assert w.read_report.n_records == 4 and len(w.jobs) == 3
    (problem,) = w.read_report.first_problems
    assert problem.startswith(f"{path}:4: field {field}: ") and f"(1 '{reason}' so far)" in problem


def test_wrong_field_count_message_says_what_and_how_to_fix(tmp_path: Path) -> None:
    path = _bad_file(tmp_path, " ".join(GOOD.split()[:17]))
    with pytest.raises(InputError, match=r"field count: expected 18 whitespace-separated fields, found 17\. "
                                         r"Fix the line, or pass --skip-bad-records"):
        read_swf(path)


def test_the_first_problem_in_file_order_is_raised(tmp_path: Path) -> None:
    """A value problem on line 2 is reported before a count problem on line 3 (different detection paths)."""
    text = GOOD + "\n" + _record(run_time="-7") + "\n" + GOOD + " 1\n"
    with pytest.raises(InputError) as err:
        read_swf(_write(tmp_path, text))
    assert (err.value.line, err.value.field) == (2, "run_time")


def test_skip_mode_counts_by_reason_and_keeps_first_20_problems(tmp_path: Path) -> None:
    lines = ["; Version: 2.2"]
    for i in range(30):  # 30 good records interleaved with 25 bad ones of three kinds
        lines.append(_record(job_number=str(i + 1), submit_time=str(i)))
        if i < 10:
            lines.append(GOOD + " 0")
        elif i < 20:
            lines.append(_record(run_time="x"))
        elif i < 25:
            lines.append(_record(submit_time="-2"))
    w = read_swf(_write(tmp_path, "\n".join(lines) + "\n"), skip_bad_records=True)
    report = w.read_report
    assert report.skipped == {"wrong field count": 10, "non-numeric value": 10, "negative submit time": 5}
    assert report.n_records == 55 and len(w.jobs) == 30
    assert w.jobs["job_number"].tolist() == list(range(1, 31))
    assert len(report.first_problems) == 20
    assert report.first_problems[0].startswith(f"{tmp_path / 't.swf'}:3: field count: ")
    assert report.first_problems[19].startswith(f"{tmp_path / 't.swf'}:41: field run_time: ")
    assert "(10 'non-numeric value' so far)" in report.first_problems[19]


@pytest.mark.parametrize("content", [b"", b"\x1f\x8bnot really gzip", gzip.compress(SMALL.encode(), mtime=0)[:40]],
                         ids=["empty", "bad-magic", "truncated"])
def test_unreadable_gzip_is_an_input_error(tmp_path: Path, content: bytes) -> None:
    path = _write(tmp_path, content if content else b"x", "broken.swf.gz")
    if not content:
        path.unlink()  # a missing file
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: "):
        read_swf(path)


# ------------------------------------------------------------------------------------------------ writing

def test_write_exact_text(tmp_path: Path) -> None:
    w = read_swf(_write(tmp_path, SMALL))
    out = tmp_path / "out.swf"
    write_swf(w, out, extra_header=[("Note", "written by a test")])
    assert out.read_text() == (
        "; Version: 2.2\n; Computer: Test cluster\n; MaxProcs: 8\n; Queue: 1 short\n; Queue: 2 long\n"
        "; Note: between records\n; Note: written by a test\n"
        "1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
        "2 10.5 0 50 -1 2.25 -1 2 -1 -1 0 2 1 -1 2 -1 -1 -1\n"
        "3 20 1 -1 0 -1 -1 -1 -1 -1 5 1 2 -1 1 -1 -1 -1\n")


@pytest.mark.parametrize("name", ["rt.swf", "rt.swf.gz"])
def test_round_trip_gives_identical_jobs_and_header(tmp_path: Path, name: str) -> None:
    lines = [_record(job_number=str(i), submit_time=repr(100 + 0.1 * i), run_time=repr(1e-7 * i + 3),
                     average_cpu_time=repr(12345678.901234567 / (i + 1)), requested_time=str(10**15 + i))
             for i in range(1, 40)]
    original = read_swf(_write(tmp_path, SMALL + "\n".join(lines) + "\n"))
    out = tmp_path / name
    write_swf(original, out)
    assert out.read_bytes().startswith(b"\x1f\x8b") == name.endswith(".gz")
    again = read_swf(out)
    pd.testing.assert_frame_equal(again.jobs, original.jobs, check_exact=True)
    assert again.header == original.header
    assert again.read_report.fallbacks == original.read_report.fallbacks


def test_write_replaces_atomically_and_refuses_unwritable_data(tmp_path: Path) -> None:
    w = read_swf(_write(tmp_path, SMALL))
    out = tmp_path / "o.swf"
    out.write_text("old content")
    write_swf(w, out)
    assert read_swf(out).header == SMALL_HEADER
    with pytest.raises(ConfigError, match="not one word"):
        write_swf(w, out, extra_header=[("Two words", "x")])
    with pytest.raises(ConfigError, match="line break"):
        write_swf(w, out, extra_header=[("Note", "a\nb")])
    with pytest.raises(ConfigError, match="run_time has 1 NaN"):
        write_swf(w.with_jobs(w.jobs.assign(run_time=[1.0, np.nan, 2.0])), out)
    with pytest.raises(ConfigError, match="lacks the columns status"):
        write_swf(w.with_jobs(w.jobs.drop(columns="status")), out)
    assert read_swf(out).header == SMALL_HEADER  # failed writes left the file alone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.swf", "t.swf"]  # and no temporary files behind


def test_write_huge_and_tiny_floats_exactly(tmp_path: Path) -> None:
    """Whole floats print as integers only while exact (< 2**53); beyond, Python's shortest repr round-trips."""
    lines = [_record(submit_time=str(i), used_memory=value) for i, value in
             enumerate(["9007199254740991", "1e20", "1.5e300", "1e-300", "0.1"])]
    original = read_swf(_write(tmp_path, "\n".join(lines)))
    write_swf(original, tmp_path / "o.swf")
    written = [line.split()[6] for line in (tmp_path / "o.swf").read_text().splitlines()]
    assert written == ["9007199254740991", "1e+20", "1.5e+300", "1e-300", "0.1"]
    again = read_swf(tmp_path / "o.swf")
    assert again.jobs["used_memory"].tolist() == [9007199254740991.0, 1e20, 1.5e300, 1e-300, 0.1]


def test_write_empty_workload(tmp_path: Path) -> None:
    empty = read_swf(_write(tmp_path, "; MaxProcs: 2\n"))
    out = tmp_path / "e.swf.gz"
    write_swf(empty, out)
    again = read_swf(out)
    assert len(again.jobs) == 0 and again.header == (("MaxProcs", "2"),)


# ------------------------------------------------------------------------------------------------ fast path

@pytest.mark.parametrize("scan_chunk", [_swf_kernels.scan_chunk, _swf_scan.scan_chunk], ids=["numba", "numpy"])
def test_scanners_classify_lines_and_parse_plain_decimals(scan_chunk) -> None:
    """Both scanners vouch only for plain decimals; everything else is left to the reference parser."""
    text = (GOOD + "\n; Key: v\n  \n" + _record(run_time="1e2") + "\n" + GOOD + " 1\n"
            + _record(submit_time="-.5", wait_time="12.75") + "\n" + _record(job_number="1234567890123456") + "\n")
    scan = scan_chunk(text.encode())
    assert scan.kinds.tolist() == [_swf_scan._DATA, _swf_scan._COMMENT, _swf_scan._BLANK, _swf_scan._SUSPECT,
                                   _swf_scan._SUSPECT, _swf_scan._DATA, _swf_scan._SUSPECT]
    assert scan.values.shape == (18, 2)
    assert scan.values[:, 0].tolist() == [float(t) for t in GOOD.split()]
    assert (scan.values[1, 1], scan.values[2, 1]) == (-0.5, 12.75)
    assert text[scan.starts[1]:scan.ends[1]] == "; Key: v"


def test_data_rows_fit_the_preallocated_table() -> None:
    """The shortest possible data lines, back to back, fill exactly `_max_data_lines` rows of the numba scan."""
    text = ("0 " * 17 + "0\n") * 5
    assert _swf_kernels._max_data_lines(len(text)) == 5 and _swf_kernels._max_data_lines(len(text) - 1) == 5
    scan = _swf_kernels.scan_chunk(text.encode())
    assert scan.kinds.size == 5 and scan.values.shape == (18, 5)


# ------------------------------------------------------------------------------------------------ real traces

@pytest.mark.traces
def test_lpc_egee_records_and_header() -> None:
    w = read_swf(trace_path("LPC-EGEE-2004-1.2-cln.swf.gz"))
    assert len(w.jobs) == 234_889 and w.read_report.n_records == 234_889
    assert w.header_int("MaxProcs") == 140
    assert w.header_value("TimeZoneString") == "Europe/Paris"
    assert [v for k, v in w.header if k == "Queue"] == ["1   test", "2   short", "3   long", "4   day",
                                                         "5   infinite", "6   batch"]
    cancelled = w.jobs["allocated_processors"] == 0  # LPC: allocated 0 = cancelled before start
    assert cancelled.any()
    assert (w.jobs.loc[cancelled, PROCESSORS] == w.jobs.loc[cancelled, "requested_processors"]).all()
    assert w.read_report.fallbacks[FALLBACK_PROCESSORS_REQUESTED] == int(cancelled.sum())
    assert (w.jobs[PROCESSORS] >= 1).all()


@pytest.mark.traces
def test_ricc_records() -> None:
    w = read_swf(trace_path("RICC-2010-2.swf.gz"))
    assert len(w.jobs) == 447_794 and w.read_report.n_records == 447_794
    assert w.header == () and w.read_report.skipped == {}
    assert w.jobs["submit_time"].is_monotonic_increasing


@pytest.mark.traces
def test_real_trace_round_trip(tmp_path: Path) -> None:
    original = read_swf(trace_path("SDSC-SP2-1998-4.2-cln.swf.gz"))
    write_swf(original, tmp_path / "sp2.swf.gz")
    again = read_swf(tmp_path / "sp2.swf.gz")
    pd.testing.assert_frame_equal(again.jobs, original.jobs, check_exact=True)
    assert again.header == original.header
    assert isinstance(again, Workload)
