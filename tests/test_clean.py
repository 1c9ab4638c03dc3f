"""clean(): every rule on hand-made jobs, first-match order, the machine size, a row-by-row twin, real LPC-EGEE."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError
from fairsched.workload.clean import CLEAN_RULES, CleanReport, clean
from fairsched.workload.model import ReadReport, Workload
from fairsched.workload.schema import MISSING, PROCESSORS, RUNTIME_ESTIMATE, SWF_FIELDS
from tests.conftest import trace_path


def make_workload(header: tuple[tuple[str, str], ...] = (), source: str = "hand-made",
                  read_report: ReadReport | None = None, **columns: list) -> Workload:
    """A Workload from a few SWF columns; every other SWF field is -1, like a sparse SWF file.

    ``processors`` / ``runtime_estimate`` follow read_swf's documented fallbacks unless given: allocated processors
    if >= 1, else requested if >= 1, else -1; requested time if >= 0, else run time if >= 0, else -1.
    """
    n = len(next(iter(columns.values()))) if columns else 0
    frame = pd.DataFrame({name: columns.get(name, [MISSING] * n) for name in SWF_FIELDS})
    for name in ("submit_time", "wait_time", "run_time", "requested_time"):
        frame[name] = frame[name].astype(np.float64)
    if "job_number" not in columns:
        frame["job_number"] = np.arange(1, n + 1)
    alloc, requested = frame["allocated_processors"], frame["requested_processors"]
    processors = alloc.where(alloc >= 1, requested.where(requested >= 1, MISSING))
    frame[PROCESSORS] = columns.get(PROCESSORS, processors.tolist())
    run, requested_time = frame["run_time"], frame["requested_time"]
    estimate = requested_time.where(requested_time >= 0, run.where(run >= 0, MISSING))
    frame[RUNTIME_ESTIMATE] = columns.get(RUNTIME_ESTIMATE, estimate.tolist())
    return Workload(jobs=frame, header=header, source=source, read_report=read_report or ReadReport())


# One job per situation: (status, run_time, processors, the reason expected, or None = kept).
CASES = [
    (1, 100.0, 4, None),
    (5, -1.0, 1, "cancelled before start"),     # LPC-EGEE's 14,194 "cancelled before start" records look like this
    (5, 0.0, 2, "cancelled before start"),
    (5, 50.0, 2, None),                         # cancelled while running: it did use the machine, so it stays
    (1, -1.0, 2, "run time missing"),
    (0, 0.0, 2, "run time <= 0"),
    (1, -3.0, 2, "run time <= 0"),              # negative but not the -1 marker
    (1, 10.0, -1, "processors missing"),
    (1, 10.0, 0, "processors <= 0"),            # the reader never makes 0, but generated workloads might
    (1, 10.0, 9, "processors > machine"),
    (1, 10.0, 8, None),                         # exactly the machine size fits
]


def cases_workload(header=(("MaxProcs", "8"),)) -> Workload:
    status, run, processors, _ = zip(*CASES, strict=True)
    return make_workload(header=header, status=list(status), run_time=list(run), processors=list(processors))


def test_each_rule_on_hand_made_jobs() -> None:
    kept, report = clean(cases_workload())
    assert kept.jobs["job_number"].tolist() == [1, 4, 11]
    assert report.kept == 3
    assert report.dropped == {"cancelled before start": 2, "run time missing": 1, "run time <= 0": 2,
                              "processors missing": 1, "processors <= 0": 1, "processors > machine": 1}
    assert list(report.dropped) == list(CLEAN_RULES)  # every reason listed, in rule order
    assert report.max_processors == 8
    assert kept.jobs.index.tolist() == [0, 1, 2]


def test_first_matching_rule_wins() -> None:
    # Cancelled, no run time and no processors: charged once, to the first rule only.
    _, report = clean(make_workload(status=[5], run_time=[-1.0], processors=[-1]))
    assert report.dropped["cancelled before start"] == 1
    assert report.n_dropped == 1


def test_machine_size_default_explicit_and_absent() -> None:
    # Header "MaxProcs: 4 (quad)" -> 4; an explicit value overrides it; no header -> no limit.
    widths = [1, 4, 5, 16]
    with_header = make_workload(header=(("MaxProcs", "4 (quad)"),), status=[1] * 4, run_time=[1.0] * 4,
                                allocated_processors=widths)
    assert clean(with_header)[1].dropped["processors > machine"] == 2
    assert clean(with_header, max_processors=16)[1].dropped["processors > machine"] == 0
    assert clean(with_header, max_processors=1)[1].dropped["processors > machine"] == 3
    no_header = make_workload(status=[1] * 4, run_time=[1.0] * 4, allocated_processors=widths)
    _, report = clean(no_header)
    assert (report.kept, report.max_processors) == (4, None)


@pytest.mark.parametrize("bad", [0, -8, 2.5, True, "8"])
def test_bad_max_processors_is_a_config_error(bad) -> None:
    with pytest.raises(ConfigError, match=r"max_processors=.*expected a positive integer"):
        clean(cases_workload(), max_processors=bad)


def test_input_is_untouched_and_metadata_kept() -> None:
    workload = cases_workload()
    before = workload.jobs.copy()
    kept, _ = clean(workload)
    pd.testing.assert_frame_equal(workload.jobs, before)
    assert (kept.header, kept.source) == (workload.header, workload.source)


def test_report_display_forms() -> None:
    _, report = clean(cases_workload())
    assert report.lines()[0] == "kept 3 jobs, dropped 8"
    assert "  processors > machine: 1" in report.lines()
    assert report.as_dict()["dropped_total"] == 8
    empty = CleanReport(kept=0, dropped=dict.fromkeys(CLEAN_RULES, 0))
    assert empty.lines() == ["kept 0 jobs, dropped 0"]


def naive_reason(status: int, run: float, processors: int, limit: int | None) -> str | None:
    """The rules of clean.py's module docstring, one job at a time."""
    if status == 5 and run <= 0:
        return "cancelled before start"
    if run == -1:
        return "run time missing"
    if run <= 0:
        return "run time <= 0"
    if processors == -1:
        return "processors missing"
    if processors <= 0:
        return "processors <= 0"
    if limit is not None and processors > limit:
        return "processors > machine"
    return None


def test_vectorized_rules_match_row_by_row_twin() -> None:
    rng = np.random.default_rng(2024)
    for _ in range(20):
        n = int(rng.integers(1, 60))
        status = rng.choice([-1, 0, 1, 5], n)
        run = rng.choice([-3.0, -1.0, 0.0, 0.5, 7.0, 300.0], n)
        alloc = rng.choice([-1, 0, 1, 3, 8, 9], n)
        limit = [None, 8][int(rng.integers(0, 2))]
        workload = make_workload(status=status.tolist(), run_time=run.tolist(), processors=alloc.tolist())
        kept, report = clean(workload, max_processors=limit)
        reasons = [naive_reason(s, r, p, limit) for s, r, p in zip(status, run, alloc, strict=True)]
        expected = {name: reasons.count(name) for name in CLEAN_RULES}
        assert report.dropped == expected
        assert kept.jobs["job_number"].tolist() == [i + 1 for i, r in enumerate(reasons) if r is None]


def test_lpc_egee_keeps_214322_runnable_jobs() -> None:
    swf = pytest.importorskip("fairsched.workload.swf")
    workload = swf.read_swf(trace_path("LPC-EGEE-2004-1.2-cln.swf.gz"))
    kept, report = clean(workload)
    # Measured on the archive file (234,889 records, all serial, MaxProcs 140): 14,194 records have status 5,
    # run time -1 and 0 allocated processors (cancelled in the queue; the reader gives them the 1 processor they
    # requested, so the processor rules never see them), 16 more were cancelled with run time 0,
    # and 6,357 completed (5,499) or failed (858) jobs have run time 0 -> 214,322 runnable jobs, the "214k" of
    # our issue. No rule on processors fires: each remaining job uses 1 of the 140 processors.
    assert report.dropped == {"cancelled before start": 14_210, "run time missing": 0, "run time <= 0": 6_357,
                              "processors missing": 0, "processors <= 0": 0, "processors > machine": 0}
    assert report.kept == len(kept.jobs) == 214_322
    assert report.max_processors == 140
