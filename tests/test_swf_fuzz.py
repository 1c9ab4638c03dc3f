"""Fuzzing the SWF reader: it returns a Workload or raises InputError, and agrees with a naive pure-Python twin.

The twin (`naive_read`) restates the reader's documented rules (fairsched.workload.swf module docstring) in the
most direct way: split lines, split fields, Python's `float`. The reader's numba fast path must match it on
valid records, truncated lines, wrong field counts, -1 everywhere, garbage bytes, empty and header-only files,
and random mutations of valid files.
"""

from __future__ import annotations

import gzip
import math
import re
import string
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fairsched.errors import InputError
from fairsched.workload import swf
from fairsched.workload.schema import SWF_FIELDS, SWF_FLOAT_FIELDS
from fairsched.workload.swf import read_swf
from tests.conftest import trace_path

NUMBER_CHARS = set("0123456789+-.eE")


@dataclass
class NaiveResult:
    rows: list[list[float]] = field(default_factory=list)
    header: list[tuple[str, str]] = field(default_factory=list)
    problems: list[tuple[int, str, str]] = field(default_factory=list)  # (line, field, reason)
    n_records: int = 0


def naive_value(name: str, token: bytes) -> float | tuple[str, str]:
    """A value, or (field, reason), by the documented rules in the documented order."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return name, "non-UTF-8 bytes"
    if not set(text) <= NUMBER_CHARS:  # with these characters, float() accepts exactly the SWF number grammar
        return name, "non-numeric value"
    try:
        value = float(text)
    except ValueError:
        return name, "non-numeric value"
    is_int = name not in SWF_FLOAT_FIELDS
    if math.isinf(value) or (is_int and abs(value) >= 2**53):
        return name, "value out of range"
    if is_int and value != int(value):
        return name, "fraction in integer field"
    if name == "submit_time" and value < 0:
        return name, "negative submit time"
    if value < 0 and value != -1:
        return name, "negative value"
    return value


def naive_header(line: bytes) -> tuple[str, str] | None:
    text = line.decode("utf-8", errors="replace").strip()[1:].strip()
    key, colon, value = text.partition(":")
    key = key.rstrip(" \t")
    if colon and re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", key) and (value == "" or value[0].isspace()):
        return key, value.strip()
    return None


def naive_read(data: bytes) -> NaiveResult:
    result = NaiveResult()
    for number, line in enumerate(data.split(b"\n"), start=1):
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0].startswith(b";"):
            if (pair := naive_header(line)) is not None:
                result.header.append(pair)
            continue
        result.n_records += 1
        if len(tokens) != len(SWF_FIELDS):
            result.problems.append((number, "count", "wrong field count"))
            continue
        row = [naive_value(name, token) for name, token in zip(SWF_FIELDS, tokens, strict=True)]
        bad = [value for value in row if isinstance(value, tuple)]
        if bad:
            result.problems.append((number, *bad[0]))
        else:
            result.rows.append(row)
    return result


def check_against_naive(path: Path, data: bytes) -> None:
    """read_swf (both modes) against naive_read on the same bytes."""
    expected = naive_read(data)
    w = read_swf(path, skip_bad_records=True)
    report = w.read_report
    assert report.n_records == expected.n_records == len(w.jobs) + sum(report.skipped.values())
    assert report.skipped == dict(Counter(reason for _, _, reason in expected.problems))
    assert list(w.header) == expected.header
    rows = np.array(expected.rows, dtype=np.float64).reshape(-1, len(SWF_FIELDS))
    out_of_order = int(np.count_nonzero(rows[:, 1] < np.maximum.accumulate(rows[:, 1]))) if len(rows) else 0
    assert report.fallbacks.get(swf.FALLBACK_OUT_OF_ORDER, 0) == out_of_order
    rows = rows[np.argsort(rows[:, 1], kind="stable")]
    np.testing.assert_array_equal(w.jobs[list(SWF_FIELDS)].to_numpy(dtype=np.float64), rows)
    if expected.problems:
        with pytest.raises(InputError) as err:
            read_swf(path)
        assert (err.value.line, err.value.field) == expected.problems[0][:2]
    else:
        assert len(read_swf(path).jobs) == len(rows)


# ------------------------------------------------------------------------------------------------ strategies

SPECIAL_TOKENS = ["-1", "-1.0", "0", "-0", "nan", "inf", "-inf", "1e999", "-5", "2.5", "+3", ".5", "5.", "1e3",
                  "0x10", "١٢", "--1", "-", ".", "1.2.3", "99999999999999999999", "1234567890123456", "1_000",
                  "e5", "1e", ";", "\x00", "１"]


@st.composite
def plain_number(draw: st.DrawFn, name: str) -> str:
    if draw(st.integers(0, 4)) == 0:
        return "-1"
    if name in SWF_FLOAT_FIELDS and draw(st.booleans()):
        value = draw(st.floats(0, 1e7, allow_nan=False))
        return draw(st.sampled_from([repr(value), f"{value:.2f}", f"{value:.0f}"]))
    value = draw(st.integers(0, 10**7))
    return draw(st.sampled_from([str(value), f"{value}.0", f"{value:06d}"]))


@st.composite
def valid_record(draw: st.DrawFn) -> list[bytes]:
    return [draw(plain_number(name)).encode() for name in SWF_FIELDS]


@st.composite
def mutated_record(draw: st.DrawFn) -> list[bytes]:
    tokens = draw(valid_record())
    kind = draw(st.sampled_from(["special", "garbage", "drop", "add", "all-missing"]))
    i = draw(st.integers(0, len(tokens) - 1))
    if kind == "special":
        tokens[i] = draw(st.sampled_from(SPECIAL_TOKENS)).encode()
    elif kind == "garbage":
        tokens[i] = draw(st.binary(min_size=1, max_size=6))
    elif kind == "drop":
        del tokens[i]
    elif kind == "add":
        tokens.insert(i, draw(st.sampled_from([b"1", b"-1", b"0.5"])))
    else:
        tokens = [b"-1"] * len(tokens)
    return tokens


@st.composite
def swf_line(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["valid", "valid", "mutated", "header", "comment", "blank", "truncated"]))
    if kind == "header":
        key = draw(st.sampled_from(["MaxProcs", "Queue", "Note", "Max-Jobs", "two words", "http", "", "Ünï"]))
        sep = draw(st.sampled_from([": ", ":", " : ", "://", ":\t"]))
        value = draw(st.text(string.printable.replace("\n", "") + "é€", max_size=12))
        return f"{draw(st.sampled_from(['', '  ']))};{draw(st.sampled_from(['', ' ', '   ']))}{key}{sep}{value}" \
            .encode()
    if kind == "comment":
        return b";" + draw(st.binary(max_size=10)).replace(b"\n", b" ")
    if kind == "blank":
        return draw(st.sampled_from([b"", b"  ", b"\t", b"\r"]))
    tokens = draw(mutated_record() if kind == "mutated" else valid_record())
    separator = draw(st.sampled_from([b" ", b"  ", b"\t", b" \t "]))
    line = draw(st.sampled_from([b"", b"   "])) + separator.join(tokens) + draw(st.sampled_from([b"", b"\r"]))
    if kind == "truncated":
        line = line[:draw(st.integers(0, max(0, len(line) - 1)))]
    return line


swf_bytes = st.lists(swf_line(), max_size=12).map(lambda lines: b"\n".join(lines))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("swf-fuzz")


# ------------------------------------------------------------------------------------------------ properties

@given(data=swf_bytes, compressed=st.booleans(), final_newline=st.booleans())
def test_reader_agrees_with_naive_twin(workdir: Path, data: bytes, compressed: bool, final_newline: bool) -> None:
    data += b"\n" if final_newline else b""
    assume(compressed or not data.startswith(b"\x1f\x8b"))  # such a plain file is taken for gzip, by design
    path = workdir / "fuzz.swf"
    path.write_bytes(gzip.compress(data) if compressed else data)
    check_against_naive(path, data)


@given(data=swf_bytes, chunk_bytes=st.integers(1, 300))
def test_chunk_size_never_changes_the_result(workdir: Path, data: bytes, chunk_bytes: int) -> None:
    assume(not data.startswith(b"\x1f\x8b"))
    path = workdir / "chunks.swf"
    path.write_bytes(data)
    with mock.patch.object(swf, "_CHUNK_BYTES", chunk_bytes):
        check_against_naive(path, data)


@given(data=st.binary(max_size=300), gz_magic=st.booleans())
def test_arbitrary_bytes_give_workload_or_input_error(workdir: Path, data: bytes, gz_magic: bool) -> None:
    path = workdir / "garbage.swf.gz"
    path.write_bytes((b"\x1f\x8b" if gz_magic else b"") + data)
    try:
        lenient = read_swf(path, skip_bad_records=True)
    except InputError as exc:  # only the gzip layer may refuse the whole file
        assert path.read_bytes().startswith(b"\x1f\x8b") and exc.line is None and str(exc).startswith(f"{path}: ")
        return
    report = lenient.read_report
    assert report.n_records == len(lenient.jobs) + sum(report.skipped.values())
    try:
        strict = read_swf(path)
    except InputError as exc:  # a record problem, which skip mode counted
        assert exc.line is not None and report.skipped
    else:
        assert not report.skipped and len(strict.jobs) == len(lenient.jobs)


@given(mutations=st.lists(st.tuples(st.integers(0, 10**6), st.binary(max_size=3)), min_size=1, max_size=8))
def test_random_byte_mutations_of_a_valid_file(workdir: Path, mutations: list[tuple[int, bytes]]) -> None:
    data = bytearray(b"; Version: 2.2\n; MaxProcs: 8\n" + b"".join(
        b"%d %d 3 40 2 -1 -1 2 60 -1 1 %d 1 -1 1 -1 -1 -1\n" % (i, 10 * i, i % 3) for i in range(1, 8)))
    for position, replacement in mutations:
        at = position % len(data)
        data[at:at + len(replacement)] = replacement
    assume(not data.startswith(b"\x1f\x8b"))
    path = workdir / "mutated.swf"
    path.write_bytes(bytes(data))
    check_against_naive(path, bytes(data))


def test_twin_sees_problems_in_the_strategy() -> None:
    """Guard against a fuzz suite that only generates good files: the twin must find problems on a fixed case."""
    result = naive_read(b"1 2 3\n" + b" ".join([b"-1"] * 18) + b"\n; Queue: 1 a\n")
    assert result.problems == [(1, "count", "wrong field count"), (2, "submit_time", "negative submit time")]
    assert result.header == [("Queue", "1 a")] and result.n_records == 2


@pytest.mark.traces
def test_real_trace_equals_naive_twin() -> None:
    path = trace_path("SDSC-SP2-1998-4.2-cln.swf.gz")
    check_against_naive(path, gzip.decompress(path.read_bytes()))
