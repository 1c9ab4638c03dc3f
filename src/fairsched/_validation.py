"""Shared pieces of the four models' validators (`fairsched.<model>.validate`): findings, the error, lookups.

Each model's `validate` module re-derives everything from a schedule's rows and its input, never from the engine
it checks, and reports violations through `Findings` (at most a limit per kind of violation, with the true total)
and `violations` (the one `InvalidScheduleError` message shape).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from fairsched.errors import ConfigError, InvalidScheduleError

DEFAULT_MAX_MESSAGES = 100  # per kind of violation; the rest are counted in one summary sentence
SHOWN_IN_ERROR = 10


def violations(headline: str, messages: list[str], producer: str) -> InvalidScheduleError:
    """The error every ``assert_*``/``check_*`` raises: a headline, one violation per line, and whom to tell."""
    return InvalidScheduleError(f"{headline}:\n  - " + "\n  - ".join(messages)
                                + f"\nA schedule produced by fairsched's {producer} should never fail this check: "
                                "please report it.")

@dataclass
class Findings:
    """Violation sentences, at most `limit` per kind, and the true total count."""

    limit: int | None
    messages: list[str] = field(default_factory=list)
    total: int = 0

    def add(self, count: int, describe: Callable[[int], str], what: str) -> None:
        """Record `count` violations of one kind; ``describe(i)`` words the i-th (only those shown)."""
        self.total += count
        shown = count if self.limit is None else min(count, self.limit)
        self.messages.extend(describe(i) for i in range(shown))
        if shown < count:
            self.messages.append(f"... and {count - shown} more {what} (not listed)")



def record_of_job(job: np.ndarray, record_job: np.ndarray) -> np.ndarray:
    """Index of each row's job number in the scenario's jobs table, -1 when the job number is unknown."""
    order = argsort_stable(record_job)
    sorted_job = record_job[order]
    if sorted_job.size and np.any(sorted_job[1:] == sorted_job[:-1]):
        dup = int(sorted_job[1:][sorted_job[1:] == sorted_job[:-1]][0])
        raise ConfigError(f"scenario job numbers must be unique to validate a schedule; job {dup} repeats")
    record = np.full(job.size, -1, dtype=np.int64)
    if sorted_job.size == 0 or job.size == 0:
        return record
    lo, hi = int(sorted_job[0]), int(sorted_job[-1])
    inside = (job >= lo) & (job <= hi)
    if hi - lo <= 4 * sorted_job.size + (1 << 20):  # dense job numbers: a lookup table beats a binary search
        table = np.full(hi - lo + 1, -1, dtype=np.int64)
        table[sorted_job - lo] = order
        record[inside] = table[job[inside] - lo]
    else:
        pos = np.minimum(np.searchsorted(sorted_job, job), sorted_job.size - 1)
        hit = sorted_job[pos] == job
        record[hit] = order[pos[hit]]
    return record


@njit(cache=True)
def overlaps_kernel(order: np.ndarray, start: np.ndarray, end: np.ndarray, machine: np.ndarray, n_machines: int,
                     max_out: int):  # pragma: no cover - jit
    """Pairs (earlier row, row) on one machine where the row starts before the earlier one ends.

    `order` lists the rows to check by non-decreasing start; each machine remembers the row that ends last
    among those seen, so this is one pass with O(m) extra memory (a sort by (machine, start) was slower),
    and a long job overlapping several later ones is reported once per later job.
    Returns the number of such pairs and the first `max_out` of them.
    """
    previous = np.full(n_machines, -1, np.int64)
    first = np.empty(max_out, np.int64)
    second = np.empty(max_out, np.int64)
    n_clash = 0
    for row in order:
        mach = machine[row]
        prev = previous[mach]
        if prev >= 0 and start[row] < end[prev]:
            if n_clash < max_out:
                first[n_clash], second[n_clash] = prev, row
            n_clash += 1
        if prev < 0 or end[row] > end[prev]:
            previous[mach] = row
    return n_clash, first[:min(n_clash, max_out)], second[:min(n_clash, max_out)]


def argsort_stable(values: np.ndarray) -> np.ndarray:
    """Stable sort order of `values`; the identity, without sorting, when already sorted (engine output)."""
    if values.size < 2 or np.all(values[1:] >= values[:-1]):
        return np.arange(values.size)
    return np.argsort(values, kind="stable")


def sorted_values(values: np.ndarray) -> np.ndarray:
    if values.size < 2 or np.all(values[1:] >= values[:-1]):
        return values
    return np.sort(values)


