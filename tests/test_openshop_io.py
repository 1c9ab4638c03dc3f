"""Instance files (JSON) and the per-job CSV: round trips, the reading rules, and every error with its line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.errors import ConfigError, InputError
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.io import read_instance, write_instance, write_jobs_csv


@st.composite
def instances(draw: st.DrawFn) -> OpenShopInstance:
    n_machines = draw(st.integers(1, 5))
    n_jobs = draw(st.integers(0, 8))
    rows = draw(st.lists(st.dictionaries(st.integers(0, n_machines - 1), st.integers(1, 10**12), max_size=n_machines),
                         min_size=n_jobs, max_size=n_jobs))
    arrival = sorted(draw(st.lists(st.integers(0, 10**9), min_size=n_jobs, max_size=n_jobs)))
    priority = draw(st.lists(st.one_of(st.integers(1, 12).map(float),
                                       st.floats(1e-6, 1e6, allow_nan=False, allow_infinity=False)),
                             min_size=n_jobs, max_size=n_jobs))
    job_id = draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n_jobs, max_size=n_jobs, unique=True))
    indptr = np.cumsum([0] + [len(r) for r in rows])
    machines = [m for r in rows for m in sorted(r)]
    times = [r[m] for r in rows for m in sorted(r)]
    return OpenShopInstance.from_tasks(n_machines, indptr, machines, times, arrival=arrival, priority=priority,
                                       job_id=job_id)


def assert_same(a: OpenShopInstance, b: OpenShopInstance) -> None:
    assert a.n_machines == b.n_machines
    for name in ("job_id", "arrival", "priority", "indptr", "task_machine", "task_time"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


@given(instances())
def test_round_trip(tmp_path_factory: pytest.TempPathFactory, instance: OpenShopInstance) -> None:
    path = tmp_path_factory.mktemp("rt") / "instance.json"
    write_instance(instance, path)
    assert_same(read_instance(path), instance)
    assert json.loads(path.read_text())["machines"] == instance.n_machines  # plain JSON for other tools


def test_reading_rules(tmp_path: Path) -> None:
    """Jobs sorted by arrival with ties in file order; arrival and priority default to 0 and 1; tasks sorted."""
    path = tmp_path / "i.json"
    path.write_text(json.dumps({"machines": 3, "jobs": [
        {"id": 5, "arrival": 4, "tasks": {"2": 1, "0": 3}},
        {"id": 6, "tasks": {"1": 2}, "priority": 2.5},
        {"id": 7, "arrival": 4, "priority": 3, "tasks": {}},
        {"id": 8, "arrival": 0, "tasks": {"0": 9}},
    ]}))
    inst = read_instance(path)
    assert inst.job_id.tolist() == [6, 8, 5, 7]
    assert inst.arrival.tolist() == [0, 0, 4, 4]
    assert inst.priority.tolist() == [2.5, 1.0, 1.0, 3.0]
    assert inst.to_dense().tolist() == [[0, 2, 0], [9, 0, 0], [3, 0, 1], [0, 0, 0]]


def test_written_file_has_one_job_per_line(tmp_path: Path) -> None:
    inst = OpenShopInstance.from_dense([[5, 0, 0, 2], [0, 1, 0, 0]], arrival=[0, 3], priority=[1.0, 0.5],
                                       job_id=[10, 11])
    path = tmp_path / "sub" / "i.json"
    write_instance(inst, path)
    assert path.read_text().splitlines() == [
        '{"machines": 4, "jobs": [',
        '{"id": 10, "arrival": 0, "priority": 1, "tasks": {"0": 5, "3": 2}},',
        '{"id": 11, "arrival": 3, "priority": 0.5, "tasks": {"1": 1}}',
        "]}",
    ]
    assert [p.name for p in path.parent.iterdir()] == ["i.json"]  # no temporary file left behind


GOOD = '{"id": 0, "arrival": 0, "priority": 1, "tasks": {"0": 5}}'

# (second job's text, field, message fragment): the bad job is on line 3 of the file.
BAD_JOBS = [
    ('{"arrival": 0, "tasks": {"0": 1}}', "id", "missing key 'id'"),
    ('{"id": 1}', "tasks", "missing key 'tasks'"),
    ('{"id": 1, "tasks": {}, "arival": 3}', "arival", "unknown key 'arival'"),
    ('{"id": 1.5, "tasks": {}}', "id", "expected an integer"),
    ('{"id": 0, "tasks": {}}', "id", "already used by job 0"),
    ('{"id": 1, "arrival": -1, "tasks": {}}', "arrival", "integer >= 0"),
    ('{"id": 1, "arrival": 2.5, "tasks": {}}', "arrival", "integer >= 0"),
    ('{"id": 1, "priority": 0, "tasks": {}}', "priority", "number > 0"),
    ('{"id": 1, "priority": "high", "tasks": {}}', "priority", "number > 0"),
    ('{"id": 1, "tasks": [5, 2]}', "tasks", "expected an object mapping machine"),
    ('{"id": 1, "tasks": {"4": 1}}', "tasks", "machine '4' is not a machine index 0..3"),
    ('{"id": 1, "tasks": {"-1": 1}}', "tasks", "machine '-1'"),
    ('{"id": 1, "tasks": {"01": 1}}', "tasks", "leading zeros"),
    ('{"id": 1, "tasks": {"2": 0}}', "tasks", "processing time 0 is not an integer >= 1"),
    ('{"id": 1, "tasks": {"2": 2.5}}', "tasks", "processing time 2.5"),
    ('{"id": 1, "tasks": {"2": "5"}}', "tasks", "processing time '5'"),
    ('{"id": 1, "tasks": {"2": true}}', "tasks", "processing time True"),
    ('{"id": 1, "tasks": {"2": 1, "2": 3}}', "tasks", "machine '2' appears twice"),
    ('{"id": 1, "id": 2, "tasks": {}}', "id", "key 'id' appears twice"),
    ('[1, 2]', "jobs", "expected a job object"),
]


@pytest.mark.parametrize(("job", "field", "message"), BAD_JOBS, ids=[b[2] for b in BAD_JOBS])
def test_bad_job_names_file_line_and_field(tmp_path: Path, job: str, field: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(f'{{"machines": 4, "jobs": [\n{GOOD},\n{job},\n{GOOD.replace(": 0,", ": 9,", 1)}\n]}}\n')
    with pytest.raises(InputError, match="job 1 of the list") as info:
        read_instance(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 3, field)
    assert message in str(info.value)
    assert str(info.value).startswith(f"{path}:3: field {field}: ")


def test_line_of_a_job_in_a_compact_file_and_after_other_keys(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n"jobs":\n  [\n    ' + GOOD + ',\n\n    {"id": 1,\n "tasks": {"9": 1}}],\n "machines": 2}')
    with pytest.raises(InputError) as info:
        read_instance(path)
    assert info.value.line == 6
    path.write_text('{"machines": 2, "jobs": [' + GOOD + ", " + GOOD + "]}")
    with pytest.raises(InputError, match="already used") as info:
        read_instance(path)
    assert info.value.line == 1


@pytest.mark.parametrize(("text", "line", "field", "message"), [
    ('{"machines": 2,\n "jobs": [\n{"id": 0, "tasks": {}}\n', 4, None, "not valid JSON"),
    ('{"machines": 2, "jobs": [{"id": 0 "tasks": {}}]}', 1, None, "Expecting ',' delimiter"),
    ("[]", 1, None, "expected a JSON object"),
    ('{"jobs": []}', 1, "machines", "missing key 'machines'"),
    ('{"machines": 2}', 1, "jobs", "missing key 'jobs'"),
    ('{"machines": 0, "jobs": []}', 1, "machines", "integer >= 1"),
    ('{"machines": 2.0, "jobs": []}', 1, "machines", "integer >= 1"),
    ('{"machines": 2, "jobs": {}}', 1, "jobs", "a list of job objects"),
    ('{"machines": 2, "jobs": [], "comment": 1}', 1, "comment", "unknown key"),
    ('{"machines": 2, "machines": 3, "jobs": []}', 1, "machines", "appears twice"),
])
def test_bad_file(tmp_path: Path, text: str, line: int, field: str | None, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as info:
        read_instance(path)
    assert (info.value.line, info.value.field) == (line, field)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot open"):
        read_instance(tmp_path / "missing.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b'{"machines": 1, \xff}')
    with pytest.raises(InputError, match="not UTF-8"):
        read_instance(binary)


def test_empty_instance(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    write_instance(OpenShopInstance.from_dense(np.zeros((0, 3), dtype=np.int64)), path)
    inst = read_instance(path)
    assert inst.n_jobs == 0 and inst.n_machines == 3


# ----------------------------------------------------------------------------------------------------------- jobs.csv


def test_jobs_csv_by_hand(tmp_path: Path) -> None:
    inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]], arrival=[0, 1, 1], priority=[1.0, 2.0, 0.5],
                                       job_id=[7, 8, 9])
    schedule = OpenShopSchedule(task_start=np.array([0, 2, 1, 4]), completion=np.array([2, 4, 5]))
    path = tmp_path / "out" / "jobs.csv"
    write_jobs_csv(inst, schedule, np.array([10.0, -0.1, 1 / 3]), path)
    assert path.read_text() == ("job,arrival,completion,utility\n"
                                "7,0,2,10.0\n"
                                "8,1,4,-0.1\n"
                                f"9,1,5,{1 / 3!r}\n")
    assert float(path.read_text().splitlines()[3].split(",")[3]) == 1 / 3  # exact round trip


def test_jobs_csv_rejects_misaligned_vectors(tmp_path: Path) -> None:
    inst = OpenShopInstance.from_dense([[2], [3]])
    schedule = OpenShopSchedule(task_start=np.array([0, 2]), completion=np.array([2, 5]))
    with pytest.raises(ConfigError, match="utilities: expected one value per job"):
        write_jobs_csv(inst, schedule, np.array([1.0]), tmp_path / "jobs.csv")
    assert not (tmp_path / "jobs.csv").exists()
