"""Processor identities for drawing and exporting schedules of models that only count processors.

The backfilling and MOSP models count processors and never name them (JSSPP'05 §4, TPDS'11 §2); these ids only make
a schedule drawable (the Gantt charts of `fairsched.report.backfill` and `fairsched.report.mosp`) and exportable to
tools that expect them (Batsim/evalys, `fairsched.report.batsim`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairsched._kernels.first_fit import first_fit
from fairsched.errors import ConfigError
from fairsched.report.batsim import interval_sets


@dataclass(frozen=True)
class ProcessorAssignment:
    """Processors given to each job, for drawing: job i holds ``processors[offsets[i]:offsets[i + 1]]`` (sorted).

    The backfilling model counts processors and never names them (JSSPP'05 §4); these ids only make a schedule
    drawable and exportable to tools that expect them (Batsim/evalys).
    """

    offsets: np.ndarray
    processors: np.ndarray

    def runs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(job, first, last) of every maximal range of consecutive processors, in job order."""
        total = self.processors.size
        if total == 0:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        job_of = np.repeat(np.arange(self.offsets.size - 1), np.diff(self.offsets))
        new_run = np.ones(total, dtype=bool)
        new_run[1:] = (np.diff(self.processors) != 1) | (job_of[1:] != job_of[:-1])
        first = np.flatnonzero(new_run)
        last = np.append(first[1:], total) - 1
        return job_of[first], self.processors[first], self.processors[last]

    def interval_sets(self) -> list[str]:
        """Batsim's interval-set string of each job (``"0-3 8"``), in job order.

        >>> ProcessorAssignment(np.array([0, 5, 6]), np.array([0, 1, 2, 3, 8, 4])).interval_sets()
        ['0-3 8', '4']
        """
        return interval_sets(self.offsets, self.processors)


def assign_processors(schedule: pd.DataFrame, n_processors: int) -> ProcessorAssignment:
    """Give each job the lowest-numbered processors free at its start (first fit), in order of start time.

    A processor is free at t when its last job ends at or before t. If the running jobs never use more than P
    processors, first fit always succeeds. O(n log n + n·P) (a compiled scan of the P processors per job).

    Raises
    ------
    ConfigError : the schedule uses more than `n_processors` processors at some instant (names job and time).

    >>> s = pd.DataFrame({"start": [0, 0, 5], "end": [5, 10, 8], "procs": [2, 1, 3]})
    >>> a = assign_processors(s, 4)
    >>> a.interval_sets()
    ['0-1', '2', '0-1 3']
    """
    start = schedule["start"].to_numpy(np.float64)
    end = schedule["end"].to_numpy(np.float64)
    procs = schedule["procs"].to_numpy(np.int64)
    if np.any(procs < 1) or np.any(procs > n_processors):
        raise ConfigError(f"every job needs 1..{n_processors} processors to be drawn; got {procs.min()}.."
                          f"{procs.max()}")
    offsets = np.concatenate([[0], np.cumsum(procs)]).astype(np.int64)
    processors = np.empty(int(offsets[-1]), dtype=np.int64)
    order = np.argsort(start, kind="stable")
    failed = first_fit(order, start, end, procs, int(n_processors), offsets, processors)
    if failed >= 0:
        row = int(order[failed])
        raise ConfigError(f"job in row {row} (start {start[row]:g}) does not fit: the schedule uses more than "
                          f"{n_processors} processors at that time; check it with fairsched.backfill.validate")
    return ProcessorAssignment(offsets=offsets, processors=processors)
