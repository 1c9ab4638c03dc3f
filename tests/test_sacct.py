"""The sacct reader on the real exports of ../shared/traces/slurm and on hand-made messy records."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from fairsched.errors import InputError
from fairsched.workload import sacct
from fairsched.workload.sacct import read_sacct
from tests.conftest import trace_path

HEADER = "JobID|Account|User|Submit|Start|End|Elapsed|State|NCPUS|NNodes|ReqMem|Timelimit|JobName"
GOOD = "11|a|u1|2021-01-01T00:00:00|2021-01-01T00:00:10|2021-01-01T00:01:10|00:01:00|COMPLETED|4|1|2800Mc|00:30:00|x"


def _write(tmp_path: Path, *lines: str, header: str = HEADER) -> Path:
    path = tmp_path / "log.sacct"
    path.write_text("\n".join((header, *lines)) + "\n")
    return path


def _raw_rows(path: Path) -> list[dict[str, str]]:
    """An independent reading of a clean export (no '|' in any value): a plain split under the header."""
    lines = path.read_text().splitlines()
    names = lines[0].split("|")
    return [dict(zip(names, line.split("|"), strict=True)) for line in lines[1:] if line]


def _seconds(text: str) -> int:
    days, _, clock = text.rpartition("-")
    h, m, s = (int(x) for x in clock.split(":"))
    return (int(days or 0) * 24 + h) * 3600 + m * 60 + s


# -- the real exports -------------------------------------------------------------------------------------------
def test_micro_cluster_every_job_read_and_cpu_seconds_per_account():
    path = trace_path("slurm/micro-cluster-real-slurm.sacct.txt")
    w = read_sacct(path)
    rows = _raw_rows(path)
    assert len(w.jobs) == len(rows) == 500
    assert w.read_report.skipped == {}
    expected: dict[str, int] = {}
    for row in rows:
        expected[row["Account"]] = expected.get(row["Account"], 0) + int(row["NCPUS"]) * _seconds(row["Elapsed"])
    jobs = w.jobs
    got = (jobs["processors"] * jobs["run_time"]).groupby(jobs["account"]).sum().astype(int).to_dict()
    assert got == expected
    assert sorted(expected) == ["account1", "account2"]
    assert set(jobs["state"]) == {"COMPLETED", "TIMEOUT"}
    assert (jobs["wait_time"] >= 0).all()


def test_micro_cluster_memory_per_cpu_and_per_node():
    w = read_sacct(trace_path("slurm/micro-cluster-real-slurm.sacct.txt"))
    first = w.jobs.iloc[0]   # job 1001: 12 CPUs, ReqMem 2800Mc
    third = w.jobs.iloc[2]   # job 1003: 1 node, ReqMem 500000Mn
    assert (first["job_id"], first["memory_mb"]) == ("1001", 12 * 2800)
    assert (third["job_id"], third["memory_mb"]) == ("1003", 500000)


def test_dump_arrays_cancelled_by_timeout_steps_and_truncated_line():
    path = trace_path("slurm/sacct_dump2101.log")
    with pytest.raises(InputError, match=r"sacct_dump2101\.log:16: field count: 74 fields, the header names 107"):
        read_sacct(path)
    w = read_sacct(path, skip_bad_records=True)
    report = w.read_report
    assert report.skipped == {sacct.SKIP_STEP: 2, sacct.REASON_FIELD_COUNT: 1}
    assert report.fallbacks[sacct.NOTE_ARRAY] == 6
    assert report.fallbacks[sacct.NOTE_CANCELLED_BY] == 6
    assert report.fallbacks[sacct.NOTE_NEVER_STARTED] == 6  # held arrays: Start = End, NodeList 'None assigned'
    jobs = w.jobs.set_index("job_id")
    assert jobs.loc["4744528_255", "status"] == 5 and jobs.loc["4744528_255", "wait_time"] == -1
    assert jobs.loc["4822203", "run_time"] == 1 * 86400 + 11 * 3600 + 48 * 60 + 50   # Elapsed 1-11:48:50
    assert jobs.loc["4822203", "memory_mb"] == 550000                                  # AllocTRES mem=550000M
    assert jobs.loc["4830973", "state"] == "TIMEOUT" and jobs.loc["4830973", "status"] == 0
    assert jobs.loc["4830973", "run_time"] == 3 * 86400 + 22                           # 3-00:00:22
    assert jobs.loc["4830973", "requested_time"] == 3 * 86400                          # Timelimit 3-00:00:00


def test_dump_pipes_in_constraints_and_job_name_are_recovered():
    w = read_sacct(trace_path("slurm/sacct_dump2101.log"), skip_bad_records=True)
    assert w.read_report.fallbacks[sacct.NOTE_PIPE] == 4    # 4830974..4830977: 'cpu-a|cpu-b', 'Job| Name003', ...
    timeouts = w.jobs[w.jobs["job_id"].str.startswith("48309")]
    assert len(timeouts) == 5
    assert (timeouts["processors"] == 40).all() and (timeouts["account"] == "account005").all()
    assert (timeouts["queue"] == "mrisupport").all()


def test_simple_job_names_with_pipes():
    w = read_sacct(trace_path("slurm/sacct_simple.log"))
    assert w.jobs["job_id"].tolist() == ["1", "2", "3", "4"]
    assert w.read_report.fallbacks == {sacct.NOTE_PIPE: 3}   # job_0||0002, job_0|0003, job_|00004
    assert w.jobs["memory_mb"].tolist() == [500 * 1024, 187000, 500 * 1024, 500 * 1024]
    assert w.jobs["run_time"].tolist() == [_seconds("23:33:25"), _seconds("03:31:28"), _seconds("00:33:29"),
                                           _seconds("00:33:23")]


def test_multiline_submit_lines_and_steps():
    w = read_sacct(trace_path("slurm/sacct_submitline_multiline.log"))
    report = w.read_report
    # job 7957382 is in five records (lines 2, 15-18: other Constraints / JobName, '|' inside them), plus its
    # .batch and .extern steps: one job, the four copies dropped and counted, the steps never jobs
    assert report.skipped == {sacct.SKIP_STEP: 7, sacct.SKIP_DUPLICATE: 4}
    assert report.n_records == 13
    assert report.fallbacks[sacct.NOTE_MULTILINE] == 4       # step 9067954.1's SubmitLine spans 5 lines
    assert w.jobs["job_id"].tolist() == ["7957382", "9067954"]
    big = w.jobs[w.jobs["job_id"] == "9067954"].iloc[0]
    assert (big["processors"], big["run_time"], big["account"]) == (576, 9600, "ccrtech")
    small = w.jobs[w.jobs["job_id"] == "7957382"].iloc[0]
    assert (small["line"], small["processors"], small["run_time"]) == (2, 2, 56)   # 112 CPU-seconds


# -- one job per (Cluster, JobIDRaw, Submit) --------------------------------------------------------------------
DUP_HEADER = "JobIDRaw|JobID|Cluster|Account|Submit|Start|Elapsed|NCPUS|State"


def _run(job: str, cluster: str, submit: int, start: int | None, elapsed: int, cpus: int = 2) -> str:
    def when(seconds: int) -> str:
        return f"2021-01-01T00:{seconds // 60:02d}:{seconds % 60:02d}"

    begin = "Unknown" if start is None else when(start)
    return f"{job}|{job}|{cluster}|a|{when(submit)}|{begin}|00:00:{elapsed:02d}|{cpus}|COMPLETED"


def test_a_dump_concatenated_twice_counts_each_job_once(tmp_path):
    lines = [_run("5", "c1", 0, 1, 30), _run("6", "c1", 2, 3, 10)]
    w = read_sacct(_write(tmp_path, *lines, *lines, header=DUP_HEADER))
    assert w.jobs["job_id"].tolist() == ["5", "6"]
    assert w.jobs["line"].tolist() == [2, 3]
    assert w.read_report.skipped == {sacct.SKIP_DUPLICATE: 2}


def test_a_requeued_job_keeps_its_last_run(tmp_path):
    """sacct -D: job 5 ran at 1 for 8 s, was requeued, ran again at 20 for 30 s; a stale pending record too."""
    lines = [_run("5", "c1", 0, 1, 8), _run("5", "c1", 0, None, 0), _run("5", "c1", 0, 20, 30),
             _run("5", "c1", 0, 20, 30)]
    w = read_sacct(_write(tmp_path, *lines, header=DUP_HEADER))
    assert w.jobs[["job_id", "wait_time", "run_time"]].values.tolist() == [["5", 20.0, 30.0]]
    assert w.read_report.skipped == {sacct.SKIP_REQUEUE: 2, sacct.SKIP_DUPLICATE: 1}


def test_same_id_on_two_clusters_or_two_submits_is_two_jobs(tmp_path):
    lines = [_run("5", "c1", 0, 1, 8), _run("5", "c2", 0, 1, 8), _run("5", "c1", 40, 41, 8)]
    w = read_sacct(_write(tmp_path, *lines, header=DUP_HEADER))
    assert len(w.jobs) == 3 and w.read_report.skipped == {}


def test_copies_of_one_run_keep_the_longest(tmp_path):
    """A dump taken while the job ran (Elapsed so far) concatenated with a later one: the later one is kept."""
    w = read_sacct(_write(tmp_path, _run("5", "c1", 0, 1, 8), _run("5", "c1", 0, 1, 50), header=DUP_HEADER))
    assert w.jobs["run_time"].tolist() == [50.0]
    assert w.read_report.skipped == {sacct.SKIP_DUPLICATE: 1}


# -- hand-made messy records ------------------------------------------------------------------------------------
def test_steps_without_dash_x_are_skipped(tmp_path):
    step = GOOD.replace("11|", "11.0|", 1)
    batch = GOOD.replace("11|", "11.batch|", 1)
    w = read_sacct(_write(tmp_path, GOOD, step, batch))
    assert w.jobs["job_id"].tolist() == ["11"]
    assert w.read_report.skipped == {sacct.SKIP_STEP: 2}


@pytest.mark.parametrize("start", ["Unknown", "None"])
def test_never_started_jobs_are_kept_as_waiting(tmp_path, start):
    pending = f"12|a|u1|2021-01-01T00:00:05|{start}|Unknown|00:00:00|PENDING|4|1|2800Mc|00:30:00|y"
    w = read_sacct(_write(tmp_path, GOOD, pending))
    assert w.jobs["wait_time"].tolist() == [10, -1]
    assert w.jobs["run_time"].tolist() == [60, -1]
    assert w.read_report.fallbacks[sacct.NOTE_NEVER_STARTED] == 1


def test_running_job_uses_elapsed_so_far(tmp_path):
    running = "13|a|u1|2021-01-01T00:00:00|2021-01-01T00:00:30|Unknown|2-00:00:01|RUNNING|2|1|1G|UNLIMITED|z"
    w = read_sacct(_write(tmp_path, running))
    assert w.jobs["run_time"].tolist() == [2 * 86400 + 1]
    assert w.jobs["memory_mb"].tolist() == [1024]   # bare value: the job's total
    assert w.read_report.fallbacks[sacct.NOTE_RUNNING] == 1


@pytest.mark.parametrize(("state", "status"), [("NODE_FAIL", 0), ("CANCELLED by 1234", 5), ("TIMEOUT", 0),
                                               ("COMPLETED", 1), ("OUT_OF_MEMORY", 0), ("REQUEUED", -1)])
def test_states(tmp_path, state, status):
    w = read_sacct(_write(tmp_path, GOOD.replace("COMPLETED", state)))
    assert w.jobs["status"].tolist() == [status]
    assert w.jobs["state"].tolist() == [state.split(" ")[0]]


@pytest.mark.parametrize("limit", ["UNLIMITED", "Partition_Limit"])
def test_no_time_limit_falls_back_to_the_run_time(tmp_path, limit):
    w = read_sacct(_write(tmp_path, GOOD.replace("00:30:00", limit)))
    assert w.jobs["requested_time"].tolist() == [-1]
    assert w.jobs["runtime_estimate"].tolist() == [60]
    assert w.read_report.fallbacks[sacct.NOTE_NO_LIMIT] == 1


def test_memory_units_and_cpus_from_alloc_tres(tmp_path):
    header = "JobIDRaw|Account|Submit|Start|Elapsed|AllocTRES|ReqMem|NNodes"
    rows = ["1|a|2021-01-01T00:00:00|2021-01-01T00:00:00|00:00:10|billing=16,cpu=16,mem=30000M,node=2|2G|2",
            "2|a|2021-01-01T00:00:00|2021-01-01T00:00:00|00:00:10|cpu=4,node=1|500000Mn|2",
            "3|a|2021-01-01T00:00:00|2021-01-01T00:00:00|00:00:10|cpu=4,node=1|100Mc|1"]
    w = read_sacct(_write(tmp_path, *rows, header=header))
    assert w.jobs["processors"].tolist() == [16, 4, 4]
    assert w.jobs["memory_mb"].tolist() == [30000, 2 * 500000, 4 * 100]
    assert w.read_report.fallbacks[sacct.NOTE_CPUS_FROM_TRES] == 3


def test_columns_by_name_in_any_order_with_extras(tmp_path):
    header = "Extra1|State|NCPUS|Elapsed|Start|Submit|JobID|Account|Extra2"
    row = "x|COMPLETED|3|01:00|2021-01-01T00:00:02|2021-01-01T00:00:00|5|acc|y"
    w = read_sacct(_write(tmp_path, row, header=header))
    assert w.jobs[["job_id", "account", "processors", "run_time", "wait_time"]].values.tolist() == [
        ["5", "acc", 3, 60, 2]]


def test_unrecoverable_pipe_is_reported(tmp_path):
    # the extra '|' sits between two typed fields: no free-text column can absorb it
    bad = GOOD.replace("|4|1|", "|4|9|1|")
    with pytest.raises(InputError, match=r"log\.sacct:2: field count: 14 fields, the header names 13; no way"):
        read_sacct(_write(tmp_path, bad))


def test_bad_values_name_file_line_and_field(tmp_path):
    cases = {
        "Submit": GOOD.replace("2021-01-01T00:00:00", "yesterday"),
        "Elapsed": GOOD.replace("00:01:00", "a while"),
        "Timelimit": GOOD.replace("00:30:00", "soon"),
        "NCPUS": GOOD.replace("|4|1|", "|four|1|"),
        "ReqMem": GOOD.replace("2800Mc", "lots"),
        "State": GOOD.replace("COMPLETED", "done?"),
    }
    for name, row in cases.items():
        with pytest.raises(InputError, match=rf"log\.sacct:3: field {name}: "):
            read_sacct(_write(tmp_path, GOOD, row))


def test_skip_bad_records_counts_by_reason(tmp_path):
    rows = [GOOD, GOOD.replace("00:01:00", "x"), GOOD.replace("2021-01-01T00:00:00", "Unknown", 1), "1|2"]
    w = read_sacct(_write(tmp_path, *rows), skip_bad_records=True)
    assert len(w.jobs) == 1
    assert w.read_report.skipped == {sacct.REASON_VALUE: 1, sacct.REASON_MISSING: 1, sacct.REASON_FIELD_COUNT: 1}
    assert w.read_report.n_records == 4
    assert w.read_report.first_problems[0].startswith(f"{tmp_path / 'log.sacct'}:3: field Elapsed:")


def test_header_problems(tmp_path):
    empty = tmp_path / "empty.sacct"
    empty.write_text("")
    with pytest.raises(InputError, match=r"empty\.sacct:1: empty file"):
        read_sacct(empty)
    with pytest.raises(InputError, match=r"log\.sacct:1: field header: not a sacct -P export"):
        read_sacct(_write(tmp_path, GOOD, header="JobID Account Submit"))
    with pytest.raises(InputError, match=r"log\.sacct:1: field Start: missing column Start"):
        read_sacct(_write(tmp_path, "1|2021-01-01T00:00:00|4", header="JobID|Submit|NCPUS"))


def test_gzip_and_time_origin(tmp_path):
    path = tmp_path / "log.sacct.gz"
    path.write_bytes(gzip.compress(f"{HEADER}\n{GOOD}\n".encode()))
    w = read_sacct(path)
    assert w.jobs["submit_time"].tolist() == [0.0]
    assert w.header_int("UnixStartTime") == 1609459200   # 2021-01-01T00:00:00 read as UTC
    assert np.issubdtype(w.jobs["processors"].dtype, np.integer)
