"""Batsim's ``jobs.csv``: the one schedule export every model writes, readable by evalys' ``JobSet.from_csv``.

One row per job with the fixed columns of Batsim's job output (oar-team/batsim ``docs/output-jobs.rst``), in the
order `BATSIM_COLUMNS`, each defined by a formula:

* ``waiting_time = starting_time - submission_time``, ``execution_time = finish_time - starting_time``,
  ``turnaround_time = finish_time - submission_time``, ``stretch = turnaround_time / max(execution_time, 1)``
  (a zero-length job would divide by zero);
* ``requested_number_of_resources`` = the number of resources in ``allocated_resources``, an interval set of
  0-based resource ids written as Batsim writes it (``"1-2 5 10-50"``);
* ``success = 1`` and ``final_state = COMPLETED_SUCCESSFULLY``: fairsched's models run every job they start to
  completion (none is killed);
* ``profile = delay``: the Batsim profile type that replays a job as a fixed duration, which is what every
  fairsched model simulates.

The model adapters (`fairsched.report.backfill.batsim_jobs_frame`, `fairsched.report.mosp.batsim_jobs_frame`,
`online_jobs_frame` below for ``compare``) only say which resources each job held; this module formats.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

BATSIM_COLUMNS = ("job_id", "submission_time", "requested_number_of_resources", "requested_time", "starting_time",
                  "execution_time", "finish_time", "waiting_time", "turnaround_time", "stretch",
                  "allocated_resources", "success", "final_state", "workload_name", "profile")
FINAL_STATE = "COMPLETED_SUCCESSFULLY"
PROFILE = "delay"


def interval_sets(offsets: np.ndarray, resources: np.ndarray) -> list[str]:
    """Batsim's interval-set string of each job: job i holds ``resources[offsets[i]:offsets[i + 1]]`` (sorted).

    >>> interval_sets(np.array([0, 5, 6, 9]), np.array([1, 2, 5, 10, 11, 4, 0, 2, 3]))
    ['1-2 5 10-11', '4', '0 2-3']
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    resources = np.asarray(resources, dtype=np.int64)
    n_jobs = offsets.size - 1
    if resources.size == 0:
        return [""] * n_jobs
    job_of = np.repeat(np.arange(n_jobs), np.diff(offsets))
    new_run = np.ones(resources.size, dtype=bool)
    new_run[1:] = (np.diff(resources) != 1) | (job_of[1:] != job_of[:-1])
    first = np.flatnonzero(new_run)
    last = np.append(first[1:], resources.size) - 1
    lo, hi = resources[first], resources[last]
    lo_text = lo.astype(str)
    text = np.where(lo == hi, lo_text, np.char.add(np.char.add(lo_text, "-"), hi.astype(str)))
    bounds = np.concatenate([[0], np.cumsum(np.bincount(job_of[first], minlength=n_jobs))])
    return [" ".join(text[a:b]) for a, b in itertools.pairwise(bounds)]


def jobs_frame(*, job_id: Sequence[object] | np.ndarray, submission_time: np.ndarray, requested_time: np.ndarray,
               starting_time: np.ndarray, finish_time: np.ndarray, offsets: np.ndarray, resources: np.ndarray,
               workload_name: str) -> pd.DataFrame:
    """The ``jobs.csv`` rows (columns `BATSIM_COLUMNS`) of jobs given by their times and held resources.

    Times are seconds (int64 or float64, kept as given); job i held ``resources[offsets[i]:offsets[i + 1]]``.

    >>> frame = jobs_frame(job_id=[7, 8], submission_time=np.array([0, 1]), requested_time=np.array([5, 5]),
    ...                    starting_time=np.array([0, 3]), finish_time=np.array([4, 5]),
    ...                    offsets=np.array([0, 2, 3]), resources=np.array([0, 1, 0]), workload_name="w")
    >>> frame[["waiting_time", "turnaround_time", "stretch", "allocated_resources"]].values.tolist()
    [[0, 4, 1.0, '0-1'], [2, 4, 2.0, '0']]
    """
    submit, start, finish = (np.asarray(a) for a in (submission_time, starting_time, finish_time))
    execution, turnaround = finish - start, finish - submit
    offsets = np.asarray(offsets, dtype=np.int64)
    return pd.DataFrame({
        "job_id": np.asarray(job_id), "submission_time": submit,
        "requested_number_of_resources": np.diff(offsets), "requested_time": np.asarray(requested_time),
        "starting_time": start, "execution_time": execution, "finish_time": finish, "waiting_time": start - submit,
        "turnaround_time": turnaround, "stretch": turnaround / np.maximum(execution, 1),
        "allocated_resources": interval_sets(offsets, resources), "success": 1, "final_state": FINAL_STATE,
        "workload_name": workload_name, "profile": PROFILE,
    }, columns=list(BATSIM_COLUMNS))


def online_jobs_frame(schedule: pd.DataFrame, workload_name: str) -> pd.DataFrame:
    """``jobs.csv`` of an online schedule (``compare``): one Batsim job per started sequential job.

    The online model runs a parallel job on q processors as q sequential copies that may start at different times
    (PPAM'13 Sec. 5.1), so each copy is one Batsim job on its one machine: job ``12`` keeps its id when it has a
    single copy, copies are ``12:0``, ``12:1``, ... The model is non-clairvoyant and has no runtime estimate:
    ``requested_time`` is the processing time. Jobs not started by t_end are not in the schedule, nor here.

    >>> s = pd.DataFrame({"job": [4, 9, 9], "org": 0, "release": [0, 1, 1], "start": [0, 1, 2], "end": [3, 2, 3],
    ...                   "machine": [0, 1, 0]})
    >>> online_jobs_frame(s, "w")[["job_id", "waiting_time", "allocated_resources"]].values.tolist()
    [['4', 0, '0'], ['9:0', 0, '1'], ['9:1', 1, '0']]
    """
    job = schedule["job"].to_numpy(np.int64)
    copy = schedule.groupby("job", sort=False).cumcount().to_numpy(np.int64)
    inverse = np.unique(job, return_inverse=True)[1]
    copies = np.bincount(inverse)[inverse]
    job_text = job.astype(str)
    job_id = np.where(copies > 1, np.char.add(np.char.add(job_text, ":"), copy.astype(str)), job_text)
    start, end = schedule["start"].to_numpy(np.int64), schedule["end"].to_numpy(np.int64)
    return jobs_frame(job_id=job_id, submission_time=schedule["release"].to_numpy(np.int64),
                      requested_time=end - start, starting_time=start, finish_time=end,
                      offsets=np.arange(len(schedule) + 1, dtype=np.int64),
                      resources=schedule["machine"].to_numpy(np.int64), workload_name=workload_name)


def safe_workload_name(name: str) -> str:
    """A workload name reduced to characters safe in CSV and Batsim ids (``CTC-SP2-1996-3.1-cln``).

    >>> safe_workload_name("../traces/CTC SP2.swf.gz")
    'CTC_SP2'
    """
    stem = name.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".gz").removesuffix(".swf")
    return re.sub(r"[^A-Za-z0-9_.-]", "_", stem) or "workload"
