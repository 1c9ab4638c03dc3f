"""Classic metrics of backfilling schedules on a hand-computed schedule, and the errors users can cause."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairsched.backfill import BackfillJobs, simulate
from fairsched.backfill.metrics import bounded_slowdown, summary
from fairsched.errors import ConfigError

# P = 6. wait = [0, 0, 9, 8], run = [5, 100, 10, 2]; slowdown = [1, 1, 1.9, 5]; bounded slowdown (tau = 10 s)
# = [max(1, 5/10), 1, 19/10, max(1, 10/10)] = [1, 1, 1.9, 1]; work = 10 + 200 + 40 + 2 = 252 over 6 x 100.
SCHEDULE = pd.DataFrame({"submit": [0, 0, 1, 4], "start": [0, 0, 10, 12], "end": [5, 100, 20, 14],
                         "procs": [2, 2, 4, 1]})


def test_summary_by_hand() -> None:
    m = summary(SCHEDULE, 6, percentiles=(50, 100))
    assert (m["n_jobs"], m["mean_wait"], m["wait_p50"], m["wait_p100"], m["max_wait"]) == (4, 4.25, 4.0, 9.0, 9.0)
    assert m["mean_slowdown"] == pytest.approx(2.225)
    assert m["mean_bounded_slowdown"] == pytest.approx(1.225)
    assert m["max_bounded_slowdown"] == pytest.approx(1.9)
    assert m["bounded_slowdown_p50"] == pytest.approx(1.0)
    assert (m["makespan"], m["first_submit"], m["last_end"]) == (100.0, 0.0, 100.0)
    assert m["utilization"] == pytest.approx(0.42)


def test_bounded_slowdown_threshold() -> None:
    assert bounded_slowdown(np.array([8, 8, 0]), np.array([2, 20, 1])).tolist() == [1.0, 1.4, 1.0]
    assert bounded_slowdown(np.array([8]), np.array([2]), tau=1).tolist() == [5.0]


def test_engine_schedule_column_is_the_metric() -> None:
    jobs = BackfillJobs.from_arrays([0, 0, 1, 5], [5, 100, 10, 5], [2, 2, 4, 2], [10, 100, 10, 5], n_processors=6)
    schedule = simulate(jobs, backfill="none").schedule  # starts 0, 0, 5, 15
    assert schedule["wait"].tolist() == [0, 0, 4, 10]
    assert schedule["bounded_slowdown"].tolist() == [1.0, 1.0, 1.4, 1.5]


@pytest.mark.parametrize(("schedule", "n_processors", "match"), [
    (SCHEDULE.drop(columns="procs"), 6, "lacks column"),
    (SCHEDULE.iloc[:0], 6, "no jobs"),
    (SCHEDULE.assign(end=[5, 100, 20, 11]), 6, "end before they start"),
    (SCHEDULE, 0, "positive integer"),
])
def test_bad_inputs_are_refused(schedule: pd.DataFrame, n_processors: int, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        summary(schedule, n_processors)
