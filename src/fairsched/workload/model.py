"""The in-memory workload: one row per job, the 18 SWF columns plus derived ones, and the file's metadata."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from fairsched.errors import ConfigError

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

    def take(self, rows: np.ndarray, *, source: str | None = None) -> Workload:
        """The jobs at `rows` (a boolean mask or positions, in the order given), index reset; the interface
        `WorkloadColumns` shares, so that cleaning, windows and scaling work on both."""
        rows = np.asarray(rows)
        positions = np.flatnonzero(rows) if rows.dtype == np.bool_ else rows
        return self.with_jobs(self.jobs.iloc[positions].reset_index(drop=True), source=source)

    def with_columns(self, changed: Mapping[str, np.ndarray], *, source: str | None = None) -> Workload:
        """A copy with the `changed` columns replaced (or added), one value per job."""
        jobs = self.jobs.reset_index(drop=True)  # a new table: the caller's is left untouched
        for name, values in changed.items():
            jobs[name] = values
        return self.with_jobs(jobs, source=source)

    def to_workload(self) -> Workload:
        """This workload (the interface `WorkloadColumns` shares: a pandas `Workload` for the writers)."""
        return self


@dataclass(frozen=True)
class WorkloadColumns(_Header):
    """A workload as plain numpy columns, without pandas: what `fairsched.workload.swf.read_swf_columns` returns
    for the paths that must start fast (``fairsched trace info``, ``fairsched backfill``). Same attributes as
    `Workload`, with ``columns`` (name -> array, equal lengths, submit order) in place of ``jobs``; both offer
    `column`, `has_column`, `take`, `with_columns` and `to_workload` (which converts), so that cleaning
    (`fairsched.workload.clean`), windows and load scaling (`fairsched.workload.transform`) take either.
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

    def take(self, rows: np.ndarray, *, source: str | None = None) -> WorkloadColumns:
        """The jobs at `rows` (a boolean mask or positions, in the order given), like `Workload.take`."""
        return replace(self, columns={name: values[rows] for name, values in self.columns.items()},
                       source=self.source if source is None else source)

    def with_columns(self, changed: Mapping[str, np.ndarray], *, source: str | None = None) -> WorkloadColumns:
        """A copy with the `changed` columns replaced (or added), one value per job, like `Workload.with_columns`."""
        n_jobs = self.n_jobs
        wrong = [name for name, values in changed.items() if len(values) != n_jobs]
        if self.columns and wrong:
            raise ConfigError(f"columns {', '.join(wrong)} do not hold one value per job ({n_jobs})")
        return replace(self, columns={**self.columns, **{name: np.asarray(v) for name, v in changed.items()}},
                       source=self.source if source is None else source)

    def to_workload(self) -> Workload:
        """The same jobs as a pandas `Workload`."""
        import pandas as pd

        # copy=False: the columns are fresh contiguous arrays, so pandas need not copy them into one 2-D block
        return Workload(jobs=pd.DataFrame(self.columns, copy=False), header=self.header, source=self.source,
                        read_report=self.read_report)
