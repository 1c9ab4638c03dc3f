"""The in-memory workload: one row per job, the 18 SWF columns plus derived ones, and the file's metadata."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class ReadReport:
    """What reading a workload file did, for `trace info` and for the user's peace of mind.

    Attributes
    ----------
    n_records : data lines read (good and bad).
    skipped : bad records dropped with ``skip_bad_records=True``, counted by reason.
    fallbacks : derived values filled in from another field because a field was -1, counted by rule
        (e.g. ``"processors: requested_processors (allocated_processors = -1)"``).
    first_problems : the first few problems, as ``FILE:LINE: field NAME: problem`` strings.
    """

    n_records: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    fallbacks: dict[str, int] = field(default_factory=dict)
    first_problems: tuple[str, ...] = ()


class _Header:
    """``; Key: value`` lookups shared by `Workload` and `WorkloadColumns`."""

    header: tuple[tuple[str, str], ...]

    def header_value(self, key: str) -> str | None:
        """First value of header `key` (case-insensitive), or None."""
        wanted = key.lower()
        for k, v in self.header:
            if k.lower() == wanted:
                return v
        return None

    def header_int(self, key: str) -> int | None:
        """Leading integer of header `key` (``"70  (dual)"`` -> 70), or None."""
        value = self.header_value(key)
        match = re.match(r"\s*(-?\d+)", value) if value is not None else None
        return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Workload(_Header):
    """Jobs of one trace or generated model.

    Attributes
    ----------
    jobs : DataFrame, one row per job in submit order, with the columns of
        `fairsched.workload.schema.SWF_FIELDS` (-1 = missing) plus ``processors`` and ``runtime_estimate``
        (after the documented fallbacks).
    header : ``(key, value)`` pairs of the ``; Key: value`` header comments, in file order (keys may repeat).
    source : where the jobs came from (a path, or a description of the generator and its seed).
    read_report : counts of skipped records and fallbacks.
    """

    jobs: pd.DataFrame
    header: tuple[tuple[str, str], ...] = ()
    source: str = ""
    read_report: ReadReport = field(default_factory=ReadReport)

    @property
    def n_jobs(self) -> int:
        return len(self.jobs)

    def has_column(self, name: str) -> bool:
        return name in self.jobs

    def column(self, name: str) -> np.ndarray:
        """One column as a numpy array (the interface `WorkloadColumns` shares)."""
        return self.jobs[name].to_numpy()

    def with_jobs(self, jobs: pd.DataFrame, *, source: str | None = None) -> Workload:
        """The same workload metadata with another job table (used by cleaning, windows and scaling)."""
        return Workload(jobs=jobs, header=self.header, source=self.source if source is None else source,
                        read_report=self.read_report)


@dataclass(frozen=True)
class WorkloadColumns(_Header):
    """A workload as plain numpy columns, without pandas: what `fairsched.workload.swf.read_swf_columns` returns
    for summaries that must start fast (``fairsched trace info``). Same attributes as `Workload`, with
    ``columns`` (name -> array, equal lengths, submit order) in place of ``jobs``; `to_workload` converts.
    """

    columns: dict[str, np.ndarray]
    header: tuple[tuple[str, str], ...] = ()
    source: str = ""
    read_report: ReadReport = field(default_factory=ReadReport)

    @property
    def n_jobs(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def has_column(self, name: str) -> bool:
        return name in self.columns

    def column(self, name: str) -> np.ndarray:
        return self.columns[name]

    def to_workload(self) -> Workload:
        """The same jobs as a pandas `Workload`."""
        import pandas as pd

        # copy=False: the columns are fresh contiguous arrays, so pandas need not copy them into one 2-D block
        return Workload(jobs=pd.DataFrame(self.columns, copy=False), header=self.header, source=self.source,
                        read_report=self.read_report)
