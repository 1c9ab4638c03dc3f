"""The SWF chunk scanner in plain numpy, for readers that should start fast (no numba, no pandas).

`scan_chunk` splits a chunk of an SWF file into lines, tells each line's kind (`_DATA`, `_COMMENT`, `_BLANK`,
`_SUSPECT`) and parses the 18 values of every data line, exactly like the numba kernel
`fairsched.workload._swf_kernels.scan_chunk`: a line is `_DATA` when it has 18 whitespace-separated tokens that
are all plain decimals ``-?digits[.digits]`` (``-?.digits``, ``-?digits.`` too) of at most `_MAX_KERNEL_DIGITS`
digits; each value is then ``mantissa / 10**decimals``, the same float64 as the kernel's (and as Python's
correctly rounded ``float``). Every other line is `_SUSPECT`, for `fairsched.workload.swf`'s reference parser to
decide and to name its problem; so a line this scanner does not vouch for costs time, never correctness.

How: whitespace bytes split the chunk into tokens (start and end offsets); bytes that no plain decimal has, a
minus sign inside a token and a second dot mark their token bad; the mantissas come from Horner's rule applied to
the j-th byte of every token longer than j at once (tokens sorted by length, so each step works on a prefix),
with a dot read as a 0 digit and taken out afterwards. O(chunk bytes) numpy operations, about 25 passes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fairsched.workload.schema import N_SWF_FIELDS

# Line kinds.
_DATA, _COMMENT, _BLANK, _SUSPECT = 0, 1, 2, 3
_MAX_KERNEL_DIGITS = 15  # 10**15 < 2**53: mantissa and power of ten are exact, so one division rounds correctly
_POW10 = 10.0 ** np.arange(_MAX_KERNEL_DIGITS + 1)

_MAX_TOKEN = _MAX_KERNEL_DIGITS + 2  # a sign, the digits and one dot
_SPACE = np.zeros(256, dtype=np.bool_)  # ASCII whitespace, as bytes.split() sees it
_SPACE[[9, 10, 11, 12, 13, 32]] = True
_DIGIT = np.zeros(256, dtype=np.uint8)
_DIGIT[48:58] = np.arange(10)
_FOREIGN = np.ones(256, dtype=np.bool_)  # bytes no plain decimal has: all but digits, '-', '.' and whitespace
_FOREIGN[48:58] = False
_FOREIGN[[45, 46, 9, 10, 11, 12, 13, 32]] = False
_MINUS, _DOT, _SEMICOLON, _LINE_FEED = 45, 46, 59, 10


class ChunkScan(NamedTuple):
    """What a scanner found in one chunk: per line its kind and byte span ``[start, end)`` (without the line feed);
    ``values`` (18, data lines) holds the values of the `_DATA` lines, in order, one row per SWF field."""

    kinds: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    values: np.ndarray


def scan_chunk(chunk: bytes) -> ChunkScan:
    """Kinds, byte spans and data values of the lines of `chunk` (module docstring); numpy only.

    Examples
    --------
    >>> scan = scan_chunk(b"; MaxProcs: 4\\n" + b"1 " * 17 + b"-2.5\\n\\n1e2" + b" 1" * 17 + b"\\n")
    >>> scan.kinds.tolist(), scan.values[:, 0].tolist()[-2:]
    ([1, 0, 2, 3], [1.0, -2.5])
    """
    buf = np.frombuffer(chunk, dtype=np.uint8)
    n = buf.size
    line_feeds = np.flatnonzero(buf == _LINE_FEED)
    starts = np.concatenate(([0], line_feeds + 1))
    ends = np.concatenate((line_feeds, [n]))
    if starts[-1] >= n:  # a chunk that ends with a line feed has no line after it
        starts, ends = starts[:-1], ends[:-1]
    token_start, token_end = _tokens(buf)
    first_token = np.searchsorted(token_start, starts)
    count = np.diff(first_token, append=token_start.size)
    bad, dotted = _bad_tokens(buf, token_start, token_end)
    value = _token_values(buf, token_start, token_end, bad, dotted)

    kinds = np.full(starts.size, _BLANK, dtype=np.int8)
    kinds[count > 0] = _SUSPECT
    if token_start.size:
        opening = buf[token_start[np.minimum(first_token, token_start.size - 1)]]
        kinds[(count > 0) & (opening == _SEMICOLON)] = _COMMENT
    data = (count == N_SWF_FIELDS) & (kinds == _SUSPECT)
    data[np.searchsorted(first_token, np.flatnonzero(bad), side="right") - 1] = False
    kinds[data] = _DATA
    n_data = int(np.count_nonzero(data))
    if n_data * N_SWF_FIELDS != value.size:
        value = value[np.repeat(data, count)]
    return ChunkScan(kinds, starts, ends, value.reshape(n_data, N_SWF_FIELDS).T.copy())


def _tokens(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the maximal runs of non-whitespace bytes."""
    word = ~_SPACE[buf]
    change = np.flatnonzero(word[1:] != word[:-1]) + 1
    head = [0] if buf.size and word[0] else []
    bounds = np.concatenate((head, change, [buf.size])).astype(np.int64)
    return bounds[0:-1:2], bounds[1::2]


def _token_of(token_start: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    return np.searchsorted(token_start, offsets, side="right") - 1


def _bad_tokens(buf: np.ndarray, token_start: np.ndarray, token_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tokens that are not plain decimals of at most 15 digits (bool), and the tokens with one dot (indices)."""
    length = token_end - token_start
    bad = length > _MAX_TOKEN
    bad[_token_of(token_start, np.flatnonzero(_FOREIGN[buf]))] = True
    minus = np.flatnonzero(buf == _MINUS)
    inside = minus[(minus > 0) & ~_SPACE[buf[minus - 1]]]
    bad[_token_of(token_start, inside)] = True
    dotted, n_dots = np.unique(_token_of(token_start, np.flatnonzero(buf == _DOT)), return_counts=True)
    bad[dotted[n_dots > 1]] = True
    n_digits = length - (buf[token_start] == _MINUS)
    n_digits[dotted] -= 1
    bad |= (n_digits == 0) | (n_digits > _MAX_KERNEL_DIGITS)
    return bad, dotted[n_dots == 1]


def _token_values(buf: np.ndarray, token_start: np.ndarray, token_end: np.ndarray, bad: np.ndarray,
                  dotted: np.ndarray) -> np.ndarray:
    """float64 value of every good token (bad ones: anything)."""
    n_tok = token_start.size
    length = np.minimum(token_end - token_start, _MAX_TOKEN + 1).astype(np.uint8)
    order = np.argsort(_MAX_TOKEN + 1 - length, kind="stable")  # longest first
    longer = n_tok - np.cumsum(np.bincount(length, minlength=_MAX_TOKEN + 2))  # longer[j]: tokens longer than j
    first_byte = token_start[order]
    digit = _DIGIT[buf]  # a sign or a dot reads as 0
    sorted_mantissa = np.zeros(n_tok, dtype=np.int64)
    for j in range(_MAX_TOKEN):
        if longer[j] == 0:
            break
        prefix = sorted_mantissa[:longer[j]]
        prefix *= 10
        prefix += digit[first_byte[:longer[j]] + j]
    mantissa = np.empty(n_tok, dtype=np.int64)
    mantissa[order] = sorted_mantissa
    value = mantissa.astype(np.float64)
    good_dotted = dotted[~bad[dotted]]
    if good_dotted.size:
        # the dot was read as a 0 digit: with p decimals, mantissa = high·10^(p+1) + low, the number is high·10^p + low
        dots = np.flatnonzero(buf == _DOT)
        dots = dots[np.isin(_token_of(token_start, dots), good_dotted)]
        decimals = token_end[good_dotted] - 1 - dots
        low = mantissa[good_dotted] % 10**decimals
        value[good_dotted] = ((mantissa[good_dotted] - low) // 10 + low) / _POW10[decimals]
    np.negative(value, out=value, where=buf[token_start] == _MINUS)
    return value
