"""The compiled SWF chunk scanner (numba): `fairsched.workload.swf` uses it when it reads into a pandas table.

`fairsched.workload._swf_scan.scan_chunk` is its numpy twin, for the callers that should not pay for importing
numba (``fairsched trace info``); both give the same line kinds, spans and values (tests/test_swf.py checks every
trace in ../shared/traces chunk by chunk). The line kinds and the digit limit are defined once, in `_swf_scan`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fairsched.workload._swf_scan import _BLANK, _COMMENT, _DATA, _MAX_KERNEL_DIGITS, _POW10, _SUSPECT, ChunkScan
from fairsched.workload.schema import N_SWF_FIELDS


def scan_chunk(chunk: bytes) -> ChunkScan:
    """Kinds, byte spans and data values of the lines of `chunk`, by the numba kernel `_scan_chunk`."""
    bound = chunk.count(b"\n") + 1
    kinds = np.empty(bound, dtype=np.int8)
    starts = np.empty(bound, dtype=np.int64)
    ends = np.empty(bound, dtype=np.int64)
    # one row per field (column-major), so that each column of the final table is contiguous
    values = np.empty((N_SWF_FIELDS, _max_data_lines(len(chunk)) + 1), dtype=np.float64)
    n_lines, n_data = _scan_chunk(np.frombuffer(chunk, dtype=np.uint8), values, kinds, starts, ends)
    return ChunkScan(kinds[:n_lines], starts[:n_lines], ends[:n_lines], values[:, :n_data])


@njit(cache=True)
def _is_space(c: int) -> bool:
    """ASCII whitespace other than the line feed, as bytes.split() sees it: space, \\t, \\v, \\f, \\r."""
    return c == 32 or (9 <= c <= 13 and c != 10)


@njit(cache=True)
def _scan_line(buf: np.ndarray, start: int, end: int, values: np.ndarray, record: int) -> int:
    """Kind of line ``buf[start:end]``; for `_DATA`, its 18 values are in ``values[:, record]``.

    Accepts only fields ``-?digits[.digits]`` (or ``-?.digits``) with at most `_MAX_KERNEL_DIGITS` digits, whose
    value ``mantissa / 10**k`` equals Python's correctly rounded ``float``; anything else is `_SUSPECT`, for
    `_parse_record` to decide.
    """
    j = start
    n_fields = 0
    while True:
        while j < end and _is_space(buf[j]):
            j += 1
        if j >= end:
            break
        if n_fields == 0 and buf[j] == 59:  # ';'
            return _COMMENT
        if n_fields == N_SWF_FIELDS:
            return _SUSPECT
        negative = buf[j] == 45  # '-'
        if negative:
            j += 1
        mantissa, n_digits, n_decimals, seen_dot = 0, 0, 0, False
        while j < end and not _is_space(buf[j]):
            c = buf[j]
            if 48 <= c <= 57 and n_digits < _MAX_KERNEL_DIGITS:
                mantissa = mantissa * 10 + (c - 48)
                n_digits += 1
                if seen_dot:
                    n_decimals += 1
            elif c == 46 and not seen_dot:  # '.'
                seen_dot = True
            else:
                return _SUSPECT
            j += 1
        if n_digits == 0:
            return _SUSPECT
        value = mantissa / _POW10[n_decimals]
        values[n_fields, record] = -value if negative else value
        n_fields += 1
    if n_fields == 0:
        return _BLANK
    return _DATA if n_fields == N_SWF_FIELDS else _SUSPECT


@njit(cache=True)
def _scan_chunk(buf: np.ndarray, values: np.ndarray, kinds: np.ndarray, starts: np.ndarray,
                ends: np.ndarray) -> tuple[int, int]:
    """Split `buf` at line feeds: each line's kind and byte span; the values of the `_DATA` lines, in order.

    Returns ``(n_lines, n_data)``. `values` has one row per field and needs ``_max_data_lines(buf.size) + 1``
    columns (the last one is scratch space for a line that turns out not to be data); `kinds`, `starts` and `ends`
    one entry per line.
    """
    n = buf.size
    line = 0
    n_data = 0
    i = 0
    while i < n:
        end = i
        while end < n and buf[end] != 10:
            end += 1
        starts[line] = i
        ends[line] = end
        kinds[line] = _scan_line(buf, i, end, values, n_data)
        if kinds[line] == _DATA:
            n_data += 1
        line += 1
        i = end + 1
    return line, n_data


def _max_data_lines(n_bytes: int) -> int:
    """At most this many 18-field lines fit in `n_bytes` (>= 35 bytes and a line feed each)."""
    return (n_bytes + 1) // (2 * N_SWF_FIELDS)
