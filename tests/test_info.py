"""trace_info(): exact figures on a hand-made workload, JSON round trip, load basis, empty input, real LPC-EGEE."""

from __future__ import annotations

import json

import pytest

from fairsched.errors import ConfigError
from fairsched.workload.info import trace_info
from fairsched.workload.model import ReadReport
from tests.conftest import trace_path
from tests.test_clean import make_workload

HEADER = (("Version", "2.2"), ("Computer", "Toy cluster"), ("Installation", "Lab A"),
          ("Installation", "Part of grid B"), ("Acknowledge", "Someone"), ("MaxNodes", "4 (dual)"),
          ("MaxProcs", "8"))


def toy(header=HEADER):
    # Runnable: job 1 (s=0, r=100, q=2) and job 2 (s=3600, r=50, q=4): W = 400, span = max(100, 3650) = 3650.
    # Job 3 was cancelled in the queue; job 4 is wider than the 8-processor machine but has run time 0 (the earlier
    # rule takes it); job 5 is 16 wide.
    return make_workload(
        header=header, source="toy.swf",
        read_report=ReadReport(n_records=6, skipped={"run time field not a number": 1},
                               fallbacks={"runtime_estimate: run_time (requested_time = -1)": 2},
                               first_problems=("toy.swf:7: field run_time: 'x' is not a number",)),
        submit_time=[0.0, 3600.0, 7200.0, 86400.0, 172800.0], run_time=[100.0, 50.0, -1.0, 0.0, 10.0],
        allocated_processors=[2, 4, 0, 16, 16], status=[1, 1, 5, 0, 1], user_id=[1, 2, 2, -1, 7],
        group_id=[-1] * 5, queue_number=[0, 1, 1, 1, 1], partition_number=[3, 3, 3, 3, 3])


def test_toy_figures_are_exact() -> None:
    info = trace_info(toy())
    assert info["source"] == "toy.swf"
    assert (info["jobs"], info["sequential_jobs"]) == (5, 2 + 4 + 16 + 16)
    assert (info["first_submit"], info["last_submit"]) == (0.0, 172800.0)
    assert (info["span_seconds"], info["span_days"]) == (172800.0, 2.0)
    assert info["processors"] == {"header_max_procs": 8, "header_max_nodes": 4, "max_used": 16}
    # queue 0 (interactive) counts; -1 does not
    assert (info["users"], info["groups"], info["queues"], info["partitions"]) == (3, 0, 2, 1)
    assert info["status"] == {"completed (1)": 3, "cancelled (5)": 1, "failed (0)": 1}
    # W = 100*2 + 50*4 + 10*16 = 560 over span max(s+r) - 0 = 172810 on the header's 8 processors
    assert info["offered_load"] == {"value": pytest.approx(560 / (8 * 172810)), "n_processors": 8,
                                    "basis": "header MaxProcs"}
    assert info["read_report"] == {"records": 6, "skipped": {"run time field not a number": 1},
                                   "fallbacks": {"runtime_estimate: run_time (requested_time = -1)": 2},
                                   "first_problems": ["toy.swf:7: field run_time: 'x' is not a number"]}
    preview = info["clean_preview"]
    assert (preview["kept"], preview["dropped_total"], preview["max_processors"]) == (2, 3, 8)
    assert preview["dropped"]["cancelled before start"] == 1
    assert preview["dropped"]["run time <= 0"] == 1
    assert preview["dropped"]["processors > machine"] == 1
    assert info["header"] == {"Computer": "Toy cluster", "Installation": "Lab A; Part of grid B",
                              "Acknowledge": "Someone"}


def test_is_json_serializable_as_is() -> None:
    info = trace_info(toy())
    assert json.loads(json.dumps(info)) == info


def test_offered_load_basis() -> None:
    chosen = trace_info(toy(), n_processors=2)["offered_load"]
    assert chosen == {"value": pytest.approx(560 / (2 * 172810)), "n_processors": 2, "basis": "n_processors"}
    headerless = trace_info(toy(header=()))
    assert headerless["offered_load"]["basis"] == "max processors used"
    assert headerless["offered_load"]["n_processors"] == 16
    assert headerless["header"] == {}
    assert headerless["processors"]["header_max_procs"] is None
    with pytest.raises(ConfigError, match=r"n_processors=0"):
        trace_info(toy(), n_processors=0)


def test_empty_and_unrunnable_workloads() -> None:
    empty = trace_info(make_workload(submit_time=[], run_time=[], allocated_processors=[], status=[]))
    assert (empty["jobs"], empty["sequential_jobs"], empty["first_submit"], empty["span_days"]) == (0, 0, None, 0.0)
    assert empty["status"] == {}
    assert empty["offered_load"]["value"] is None
    assert json.loads(json.dumps(empty)) == empty
    dead = trace_info(make_workload(submit_time=[0.0], run_time=[-1.0], allocated_processors=[1], status=[5]))
    assert dead["offered_load"]["value"] is None  # no runnable job: the load is undefined, not an error
    assert dead["clean_preview"]["kept"] == 0


def test_lpc_egee_summary() -> None:
    swf = pytest.importorskip("fairsched.workload.swf")
    info = trace_info(swf.read_swf(trace_path("LPC-EGEE-2004-1.2-cln.swf.gz")))
    # SOURCES.md: 234,889 jobs, all serial, 238.6 days, 55 users, 8 groups, 6 queues, 3 partitions, MaxProcs 140.
    # The 14,194 jobs cancelled in the queue (0 allocated) count with the 1 processor they requested (reader rule).
    assert (info["jobs"], info["sequential_jobs"]) == (234_889, 234_889)
    assert round(info["span_days"], 1) == 238.6
    assert (info["users"], info["groups"], info["queues"], info["partitions"]) == (55, 8, 6, 3)
    assert info["processors"] == {"header_max_procs": 140, "header_max_nodes": 70, "max_used": 1}
    assert info["status"] == {"completed (1)": 207_825, "cancelled (5)": 16_574, "failed (0)": 10_490}
    assert info["clean_preview"]["kept"] == 214_322
    assert info["header"]["Acknowledge"].startswith("Emmanuel Medernach")
    json.dumps(info)
