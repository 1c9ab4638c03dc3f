"""The Google clusterdata-2011-2 reader: every rule on hand-written gzip parts, a slow twin on random traces, the
bad-row handling, and the real slice (skipped when ../shared/traces is absent)."""

from __future__ import annotations

import gzip
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from fairsched.errors import ConfigError, InputError
from fairsched.openshop.instance import OpenShopInstance
from fairsched.workload import google
from fairsched.workload.google import read_google
from tests.conftest import trace_path

SEC = 1_000_000  # the trace's microseconds per second
A, B, C = 111, 222, 333  # original machine IDs; seed 12 maps them to 1, 0, 2 (one each)
SEED = 12
SUBMIT, SCHEDULE, EVICT, FAIL, FINISH, KILL, LOST, UPDATE_PENDING = range(8)


def task_row(time: int, job: int, task: int, machine: int | None, event: int, priority: int = 0) -> str:
    return f"{time},,{job},{task},{'' if machine is None else machine},{event},user=,2,{priority},0.1,0.2,0.001,0"


def job_row(time: int, job: int, event: int = SUBMIT) -> str:
    return f"{time},,{job},{event},user=,2,name=,logical="


def write_trace(root: Path, task_parts: list[list[str]], job_parts: list[list[str]]) -> Path:
    """Write gzip CSV parts in the clusterdata-2011-2 layout under `root`."""
    for name, parts in (("task_events", task_parts), ("job_events", job_parts)):
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        for k, rows in enumerate(parts):
            with gzip.open(folder / f"part-{k:05d}-of-00500.csv.gz", "wt") as handle:
                handle.write("".join(row + "\n" for row in rows))
    return root


def as_dict(instance: OpenShopInstance) -> dict[int, tuple[int, float, dict[int, int]]]:
    """job id -> (arrival, priority, {machine: processing time})."""
    out = {}
    for j in range(instance.n_jobs):
        rows = slice(instance.indptr[j], instance.indptr[j + 1])
        out[int(instance.job_id[j])] = (int(instance.arrival[j]), float(instance.priority[j]),
                                        dict(zip(instance.task_machine[rows].tolist(),
                                                 instance.task_time[rows].tolist(), strict=True)))
    return out


# ----------------------------------------------------------------------------------------------- the rules by hand


def rules_trace(root: Path) -> Path:
    s = SEC
    part0 = [
        # job 10: task 0 runs on A, is evicted, runs again on B for 7.5 s; task 1 runs 2.2 s on B -> one 9.7 s task
        task_row(700 * s + 200_000, 10, 0, None, SUBMIT), task_row(700 * s + 200_000, 10, 1, None, SUBMIT),
        task_row(701 * s, 10, 0, A, SCHEDULE), task_row(702 * s, 10, 1, B, SCHEDULE),
        task_row(703 * s, 10, 0, A, EVICT), task_row(704 * s + 200_000, 10, 1, B, FINISH),
        task_row(705 * s, 10, 0, B, SCHEDULE),
        # job 20: submitted before the window (time 0), priority 5 then updated to 7 -> P = 8
        task_row(0, 20, 0, None, SUBMIT, 5), task_row(800 * s, 20, 0, C, SCHEDULE, 5),
        task_row(801 * s, 20, 0, C, UPDATE_PENDING + 1, 7), task_row(810 * s, 20, 0, C, FINISH, 7),
        # job 30: killed, rescheduled, finished -> kept with the last run (3 s)
        task_row(900 * s, 30, 0, A, SCHEDULE), task_row(901 * s, 30, 0, A, KILL),
        task_row(902 * s, 30, 0, A, SCHEDULE), task_row(905 * s, 30, 0, A, FINISH),
        # jobs 40..46 and 51, 52: one reason each
        task_row(1000 * s, 40, 0, A, SCHEDULE), task_row(1001 * s, 40, 0, A, EVICT),
        task_row(1000 * s, 41, 0, A, SCHEDULE), task_row(1001 * s, 41, 0, A, FAIL),
        task_row(1000 * s, 42, 0, A, SCHEDULE), task_row(1001 * s, 42, 0, A, KILL),
        task_row(1000 * s, 43, 0, A, SCHEDULE), task_row(1001 * s, 43, 0, A, LOST),
        task_row(1000 * s, 44, 0, A, SCHEDULE),
        task_row(1000 * s, 45, 0, None, SUBMIT), task_row(1001 * s, 45, 0, None, UPDATE_PENDING),
        task_row(0, 46, 0, B, SCHEDULE), task_row(1001 * s, 46, 0, B, FINISH),
        task_row(1001 * s, 51, 0, B, FINISH),
        task_row(1000 * s, 52, 0, B, SCHEDULE), task_row(1002 * s, 52, 0, B, FINISH),
        task_row(1000 * s, 52, 1, C, SCHEDULE),
        # job 47 has no SUBMIT in job_events; jobs 48 and 49 have three tasks (max_tasks = 2), 49 one killed
        task_row(1000 * s, 47, 0, A, SCHEDULE), task_row(1002 * s, 47, 0, A, FINISH),
        *[task_row(1000 * s, 48, k, C, SCHEDULE) for k in range(3)],
        *[task_row(1003 * s, 48, k, C, FINISH) for k in range(3)],
        *[task_row(1000 * s, 49, k, C, SCHEDULE) for k in range(3)], task_row(1001 * s, 49, 0, C, KILL),
        # ties keep file order: job 60 evicted and rescheduled at the same time; job 61 runs for 0 s
        task_row(1200 * s, 60, 0, C, SCHEDULE), task_row(1201 * s, 60, 0, C, EVICT),
        task_row(1201 * s, 60, 0, C, SCHEDULE),
        task_row(1300 * s, 61, 0, A, SCHEDULE), task_row(1300 * s, 61, 0, A, FINISH),
    ]
    part1 = [task_row(712 * s + 500_000, 10, 0, B, FINISH), task_row(1206 * s, 60, 0, C, FINISH)]
    jobs0 = [job_row(0, 20), job_row(700 * s + 200_000, 10), job_row(850 * s, 60), job_row(850 * s, 30),
             job_row(1299 * s + 1, 61),
             *[job_row(999 * s, j) for j in (40, 41, 42, 43, 44, 45, 46, 48, 49, 51, 52)]]
    jobs1 = [job_row(1500 * s, 50), job_row(1600 * s, 30)]  # a second SUBMIT of 30: the first one counts
    return write_trace(root, [part0, part1], [jobs0, jobs1])


def test_production_class_filter(tmp_path: Path) -> None:
    """min_priority keeps the jobs whose largest priority reaches it (job 20: 5 then 7); the rest are counted first
    under DROP_BELOW_PRIORITY, whatever else is wrong with them; job 50 (no task event) keeps its own reason."""
    instance, report = read_google(rules_trace(tmp_path), machines=3, max_tasks=2, seed=SEED, min_priority=7)
    assert instance.job_id.tolist() == [20] and instance.priority.tolist() == [8.0]
    assert report.dropped_jobs == {google.DROP_BELOW_PRIORITY: 16, google.DROP_NO_TASKS: 1}
    everything, _ = read_google(tmp_path, machines=3, max_tasks=2, seed=SEED, min_priority=0)
    assert everything.n_jobs == 5
    with pytest.raises(ConfigError, match="min_priority"):
        read_google(tmp_path, min_priority=12)


def test_rules_on_hand_written_parts(tmp_path: Path) -> None:
    target = dict(zip([A, B, C], np.random.default_rng(SEED).integers(0, 3, 3).tolist(), strict=True))
    assert sorted(target.values()) == [0, 1, 2]  # the seed sends A, B, C to distinct machines
    instance, report = read_google(rules_trace(tmp_path), machines=3, max_tasks=2, seed=SEED)
    assert as_dict(instance) == {
        20: (0, 8.0, {target[C]: 10}),
        10: (701, 1.0, {target[B]: 10}),  # ceil(7.5 + 2.2) on B, not 8 + 3; arrival ceil(700.2)
        30: (850, 1.0, {target[A]: 3}),
        60: (850, 1.0, {target[C]: 5}),
        61: (1300, 1.0, {target[A]: 1}),  # 0 s, raised to one unit
    }
    assert instance.job_id.tolist() == [20, 10, 30, 60, 61]  # by arrival, ties by job ID
    assert report.dropped_jobs == {
        google.DROP_EVICTED: 1, google.DROP_FAILED: 1, google.DROP_KILLED: 1, google.DROP_LOST: 1,
        google.DROP_RUNNING: 2, google.DROP_NEVER_SCHEDULED: 1, google.DROP_STARTED_BEFORE: 1,
        google.DROP_NO_SUBMIT: 1, google.DROP_TOO_MANY_TASKS: 2, google.DROP_NO_SCHEDULE: 1,
        google.DROP_NO_TASKS: 1,
    }
    assert report.dropped_tasks[google.DROP_TOO_MANY_TASKS] == 6
    assert report.dropped_tasks[google.DROP_RUNNING] == 3  # job 52's finished task goes with its job
    assert (report.n_jobs_seen, report.n_tasks_seen, report.n_jobs_kept, report.n_tasks_kept) == (18, 23, 5, 6)
    assert (report.n_merged_tasks, report.n_original_machines, report.raised_to_one_unit) == (5, 3, 1)
    assert (report.n_task_events, report.n_job_events, report.parts, report.time_unit_s) == (51, 18, (0, 1), 1.0)
    assert report.n_jobs_seen == report.n_jobs_kept + sum(report.dropped_jobs.values())


def test_time_unit_and_merging_onto_one_machine(tmp_path: Path) -> None:
    root = rules_trace(tmp_path)
    instance, report = read_google(root, machines=1, max_tasks=2, seed=SEED, time_unit_s=0.001)
    assert report.time_unit_s == 0.001
    assert as_dict(instance)[10] == (700_200, 1.0, {0: 9_700})  # milliseconds, exact
    assert as_dict(instance)[61] == (1_299_001, 1.0, {0: 1})
    more, _ = read_google(root, machines=1, max_tasks=3, seed=SEED)
    assert as_dict(more)[48] == (999, 1.0, {0: 9})  # three 3 s tasks on one machine merge (footnote 2)


def test_machine_map_is_seeded_uniform_and_deterministic(tmp_path: Path) -> None:
    ids = [10_000 + 7 * k for k in range(40)]
    rows = [row for k, m in enumerate(ids) for row in (task_row(SEC, k, 0, m, SCHEDULE),
                                                        task_row(2 * SEC, k, 0, m, FINISH))]
    root = write_trace(tmp_path, [rows], [[job_row(SEC, k) for k in range(len(ids))]])
    first, _ = read_google(root, machines=5, seed=3)
    again, _ = read_google(root, machines=5, seed=3)
    other, _ = read_google(root, machines=5, seed=4)
    expected = np.random.default_rng(3).integers(0, 5, len(ids))  # sorted IDs, one draw each
    assert first.task_machine[np.argsort(first.job_id)].tolist() == expected.tolist()
    assert np.array_equal(first.task_machine, again.task_machine)
    assert not np.array_equal(first.task_machine, other.task_machine)


# ------------------------------------------------------------------------------------------------------ slow twin


def naive_read(task_rows: list[tuple], job_rows: list[tuple], *, machines: int, max_tasks: int, seed: int,
               unit_us: int) -> dict[int, tuple[int, float, dict[int, int]]]:
    """The module docstring's rules, event by event in plain Python."""
    events, priority = defaultdict(list), defaultdict(int)
    for seq, (time, job, task, machine, event, prio) in enumerate(task_rows):
        events[job, task].append((time, seq, event, machine))
        priority[job] = max(priority[job], prio)
    ids = sorted({row[3] for row in task_rows if row[4] == SCHEDULE})
    target = dict(zip(ids, np.random.default_rng(seed).integers(0, machines, len(ids)).tolist(), strict=True))
    submit = {}
    for time, job, event in job_rows:
        if event == SUBMIT:
            submit[job] = min(submit.get(job, time), time)
    runs = defaultdict(dict)
    for (job, task), evs in events.items():
        states = [e for e in sorted(evs) if SCHEDULE <= e[2] <= LOST]
        schedules = [e for e in states if e[2] == SCHEDULE]
        ok = bool(states) and states[-1][2] == FINISH and bool(schedules) and schedules[-1][0] > 0
        runs[job][task] = (states[-1][0] - schedules[-1][0], target[schedules[-1][3]]) if ok else None
    kept = {}
    for job, tasks in runs.items():
        if len(tasks) <= max_tasks and None not in tasks.values() and job in submit:
            merged = defaultdict(int)
            for duration, machine in tasks.values():
                merged[machine] += duration
            kept[job] = (-(-submit[job] // unit_us), priority[job] + 1.0,
                         {m: max(1, -(-d // unit_us)) for m, d in merged.items()})
    return kept


def random_trace(rng: np.random.Generator, n_jobs: int) -> tuple[list[tuple], list[tuple]]:
    """Random task lives: SUBMIT, then runs ending in FINISH/EVICT/FAIL/KILL/LOST, times on a coarse grid (ties)."""
    pool = rng.integers(10**9, 10**10, size=6)
    tasks, jobs = [], []
    for job in rng.choice(10**6, size=n_jobs, replace=False).tolist():
        start = int(rng.integers(0, 4)) * SEC // 2  # 0 = before the window
        if rng.random() < 0.9:
            jobs.append((start, job, SUBMIT))
        for task in range(int(rng.integers(1, 6))):
            clock, prio = start, int(rng.integers(0, 12))
            tasks.append((clock, job, task, None, SUBMIT, prio))
            for _ in range(int(rng.integers(0, 4))):
                clock += int(rng.integers(0, 3)) * SEC // 2
                machine = int(rng.choice(pool))
                tasks.append((clock, job, task, machine, SCHEDULE, prio))
                if rng.random() < 0.1:
                    break  # still running
                clock += int(rng.integers(0, 4)) * SEC // 2 + int(rng.integers(0, 2)) * 1234
                tasks.append((clock, job, task, machine, int(rng.choice([FINISH] * 4 + [EVICT, FAIL, KILL, LOST])),
                              prio))
    order = sorted(range(len(tasks)), key=lambda k: tasks[k][0])  # the trace is in time order (stable)
    return [tasks[k] for k in order], sorted(jobs, key=lambda row: row[0])


def test_reader_equals_slow_twin_on_random_traces(tmp_path: Path) -> None:
    rng = np.random.default_rng(2011)
    kept_total = 0
    for case in range(6):
        task_rows, job_rows = random_trace(rng, 60)
        half, jhalf = len(task_rows) // 2, len(job_rows) // 2
        text = [[task_row(t, j, k, m, e, p) for t, j, k, m, e, p in part] for part in
                (task_rows[:half], task_rows[half:])]
        root = write_trace(tmp_path / str(case), text, [[job_row(*r) for r in part] for part in
                                                        (job_rows[:jhalf], job_rows[jhalf:])])
        for machines, max_tasks, unit_s in ((3, 4, 1.0), (50, 2, 0.25)):
            instance, report = read_google(root, machines=machines, max_tasks=max_tasks, seed=case,
                                           time_unit_s=unit_s)
            expected = naive_read(task_rows, job_rows, machines=machines, max_tasks=max_tasks, seed=case,
                                  unit_us=int(unit_s * SEC))
            assert as_dict(instance) == expected
            assert instance.job_id.tolist() == sorted(expected, key=lambda j: (expected[j][0], j))
            assert report.n_jobs_kept + sum(report.dropped_jobs.values()) == report.n_jobs_seen
            kept_total += len(expected)
    assert kept_total > 25  # the random traces keep jobs, not only drop them


# ------------------------------------------------------------------------------------------------------- bad input


def good_rows() -> list[str]:
    return [task_row(SEC, 1, 0, A, SCHEDULE), task_row(2 * SEC, 1, 0, A, FINISH),
            task_row(SEC, 2, 0, B, SCHEDULE), task_row(3 * SEC, 2, 0, B, FINISH)]


@pytest.mark.parametrize(("line", "field", "message"), [
    ("1000000,,abc,0,111,1,u,2,0,,,,", "job_id", "non-numeric value 'abc'"),
    ("1000000,,7,0,,1,u,2,0,,,,", "machine_id", "missing value on a SCHEDULE event"),
    ("1000000,,7,0,111,9,u,2,0,,,,", "event_type", "value out of range '9'"),
    ("1000000.5,,7,0,111,1,u,2,0,,,,", "time", "fraction in integer field"),
    ("-5,,7,0,111,1,u,2,0,,,,", "time", "value out of range '-5'"),
    ("1000000,,7,0,111,1,u,2,,,,,", "priority", "missing value"),
    ("", "time", "missing value"),
])
def test_bad_task_row_raises_with_file_line_and_field(tmp_path: Path, line: str, field: str, message: str) -> None:
    rows = good_rows()
    rows.insert(2, line)
    root = write_trace(tmp_path, [rows], [[job_row(0, 1), job_row(0, 2)]])
    part = root / "task_events" / "part-00000-of-00500.csv.gz"
    with pytest.raises(InputError, match="skip_bad_records") as info:
        read_google(root)
    assert (info.value.path, info.value.line, info.value.field) == (str(part), 3, field)
    assert message in str(info.value)


def test_skip_bad_records_counts_and_reads_the_rest(tmp_path: Path) -> None:
    rows = good_rows()
    rows[1:1] = ["x,,7,0,111,1,u,2,0,,,,", "1000000,,7,0,111,12,u,2,0,,,,", "1000000,,7,0,,1,u,2,0,,,,"]
    root = write_trace(tmp_path, [rows], [[job_row(0, 1), job_row(0, 2), "zzz,,3,0"]])
    instance, report = read_google(root, skip_bad_records=True, machines=2)
    assert sorted(instance.job_id.tolist()) == [1, 2]
    assert report.skipped == {google.SKIP_NON_NUMERIC: 2, google.SKIP_OUT_OF_RANGE: 1, google.SKIP_MISSING: 1}
    assert report.first_problems[0].endswith(":2: field time: non-numeric value 'x'; expected an integer >= 0")
    assert "job_events" in report.first_problems[-1] and ":3: field time" in report.first_problems[-1]
    assert (report.n_task_events, report.n_job_events) == (7, 3)


def test_bad_files_and_layout(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no task_events/ directory"):
        read_google(tmp_path)
    (tmp_path / "e" / "task_events").mkdir(parents=True)
    (tmp_path / "e" / "job_events").mkdir()
    with pytest.raises(InputError, match=r"no part-NNNNN-of-MMMMM\.csv\.gz files"):
        read_google(tmp_path / "e")
    root = write_trace(tmp_path / "t", [good_rows(), good_rows()], [[job_row(0, 1)]])
    with pytest.raises(InputError, match="part 1 of job_events is missing"):
        read_google(root)
    instance, report = read_google(root, parts=[0])
    assert report.parts == (0,) and instance.n_jobs == 1  # job 2 has no SUBMIT
    wrong = write_trace(tmp_path / "w", [[job_row(0, 1)]], [[job_row(0, 1)]])
    with pytest.raises(InputError, match="not a task_events CSV part"):
        read_google(wrong)
    broken = write_trace(tmp_path / "b", [good_rows()], [[job_row(0, 1)]])
    (broken / "task_events" / "part-00000-of-00500.csv.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(InputError, match="cannot read the file"):
        read_google(broken)


@pytest.mark.parametrize(("kwargs", "match"), [({"machines": 0}, "machines"), ({"max_tasks": 0}, "max_tasks"),
                                               ({"time_unit_s": 0.0}, "time_unit_s")])
def test_bad_options(tmp_path: Path, kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        read_google(tmp_path, **kwargs)


# ---------------------------------------------------------------------------------------------------- real slice


@pytest.mark.traces
def test_real_slice() -> None:
    instance, report = read_google(trace_path("google-clusterdata-2011-2"))
    instance.check()
    assert (report.n_task_events, report.n_job_events) == (1_827_856, 39_435)
    assert (report.n_jobs_seen, report.n_tasks_seen, report.n_original_machines) == (14_489, 464_004, 12_509)
    assert (report.n_jobs_kept, report.n_tasks_kept, report.n_merged_tasks) == (6_760, 10_778, 10_239)
    assert report.dropped_jobs[google.DROP_TOO_MANY_TASKS] == 344
    assert report.dropped_jobs[google.DROP_STARTED_BEFORE] == 71
    assert report.n_jobs_seen == report.n_jobs_kept + sum(report.dropped_jobs.values())
    assert report.skipped == {} and report.raised_to_one_unit == 0
    assert instance.n_machines == 200 and np.diff(instance.indptr).max() <= 200
    assert instance.priority.min() >= 1 and instance.priority.max() <= 12
    assert instance.arrival[instance.arrival > 0].min() >= 600 and instance.arrival.max() <= math.ceil(50_712)
