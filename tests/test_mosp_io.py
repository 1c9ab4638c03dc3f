"""MOSP instance files (JSON): round trip, exact text, every error message; schedule CSV by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.errors import ConfigError, InputError
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.io import read_instance, write_instance, write_schedule_csv

EXAMPLE = """{
  "clusters": [
    {"org": 0, "procs": 4},
    {"org": 1, "procs": 2}
  ],
  "jobs": [
    {"id": 7, "owner": 0, "runtime": 5, "procs": 3},
    {"id": 2, "owner": 1, "runtime": 1, "procs": 1}
  ]
}
"""


def _example_instance() -> MospInstance:
    return MospInstance.from_arrays(procs=[4, 2], owner=[0, 1], runtime=[5, 1], width=[3, 1], job_id=[7, 2])


def _same(a: MospInstance, b: MospInstance) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("procs", "job_id", "owner", "runtime", "width"))


# ---------------------------------------------------------------------------------------------------------------
# Writing and reading back
# ---------------------------------------------------------------------------------------------------------------

def test_write_instance_exact_text(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "instance.json"  # the directory is created
    write_instance(_example_instance(), path)
    assert path.read_text() == EXAMPLE
    assert [p.name for p in path.parent.iterdir()] == ["instance.json"]  # no temporary file left behind


def test_read_example_and_clusters_in_any_order(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(EXAMPLE)
    assert _same(read_instance(path), _example_instance())
    path.write_text('{"jobs": [{"procs": 2, "runtime": 3, "owner": 2, "id": 0}],\n'
                    ' "clusters": [{"org": 2, "procs": 2}, {"procs": 8, "org": 0}, {"org": 1, "procs": 5}]}')
    inst = read_instance(path)
    assert inst.procs.tolist() == [8, 5, 2] and inst.owner.tolist() == [2] and inst.width.tolist() == [2]


def test_empty_job_list_round_trips(tmp_path: Path) -> None:
    inst = MospInstance.from_arrays(procs=[3], owner=[], runtime=[], width=[])
    write_instance(inst, tmp_path / "e.json")
    assert '"jobs": []' in (tmp_path / "e.json").read_text()
    assert _same(read_instance(tmp_path / "e.json"), inst)


@st.composite
def instances(draw: st.DrawFn) -> MospInstance:
    procs = draw(st.lists(st.integers(1, 64), min_size=1, max_size=5))
    n = draw(st.integers(0, 15))
    ids = draw(st.lists(st.integers(-(2**62), 2**62), min_size=n, max_size=n, unique=True))
    owner = draw(st.lists(st.integers(0, len(procs) - 1), min_size=n, max_size=n))
    runtime = draw(st.lists(st.integers(1, 10**12), min_size=n, max_size=n))
    width = [draw(st.integers(1, procs[k])) for k in owner]  # every job fits its owner's cluster (TPDS'11 §2.1)
    return MospInstance.from_arrays(procs, owner, runtime, width, job_id=ids)


@given(instances())
def test_round_trip(tmp_path_factory: pytest.TempPathFactory, inst: MospInstance) -> None:
    path = tmp_path_factory.mktemp("rt") / "i.json"
    write_instance(inst, path)
    back = read_instance(path)
    assert _same(back, inst)
    data = json.loads(path.read_text())  # plain JSON any tool can read
    assert [c["procs"] for c in data["clusters"]] == inst.procs.tolist()
    assert [j["id"] for j in data["jobs"]] == inst.job_id.tolist()


# ---------------------------------------------------------------------------------------------------------------
# Errors: file, line of the record, field
# ---------------------------------------------------------------------------------------------------------------

def _jobs_file(*records: str, clusters: str = '{"org": 0, "procs": 4}, {"org": 1, "procs": 2}') -> str:
    """Clusters on line 2; job records from line 4 on, one per line."""
    return '{\n  "clusters": [' + clusters + '],\n  "jobs": [\n    ' + ",\n    ".join(records) + "\n  ]\n}\n"


GOOD = '{"id": 0, "owner": 0, "runtime": 5, "procs": 3}'


@pytest.mark.parametrize(("record", "field", "fragment"), [
    ('{"id": 1, "owner": 0, "procs": 3}', "runtime", "jobs\\[1\\] has no 'runtime'"),
    ('{"id": 1, "owner": 0, "runtime": 5, "procs": 3, "release": 4}', "release", "unknown key 'release'"),
    ('{"id": 1, "owner": 0, "runtime": 5.5, "procs": 3}', "runtime", "runtime 5.5; expected a JSON integer"),
    ('{"id": 1, "owner": 0, "runtime": 5.0, "procs": 3}', "runtime", "runtime 5.0; expected a JSON integer"),
    ('{"id": 1, "owner": 0, "runtime": 5, "procs": "3"}', "procs", 'procs "3"; expected a JSON integer'),
    ('{"id": true, "owner": 0, "runtime": 5, "procs": 3}', "id", "id true; expected a JSON integer"),
    ('{"id": 1, "owner": 0, "runtime": null, "procs": 3}', "runtime", "runtime null"),
    ('{"id": 1, "owner": 0, "runtime": 5, "procs": 99999999999999999999}', "procs", "64-bit integer range"),
    ('{"id": 1, "owner": 0, "runtime": 0, "procs": 3}', "runtime", "jobs\\[1\\] \\(id 1\\) has runtime 0.*>= 1"),
    ('{"id": 1, "owner": 0, "runtime": -4, "procs": 3}', "runtime", "has runtime -4"),
    ('{"id": 1, "owner": 2, "runtime": 5, "procs": 3}', "owner", "has owner 2, which is not an organization.*0..1"),
    ('{"id": 1, "owner": -1, "runtime": 5, "procs": 3}', "owner", "has owner -1"),
    ('{"id": 1, "owner": 0, "runtime": 5, "procs": 0}', "procs", "has procs 0.*>= 1"),
    ('{"id": 1, "owner": 1, "runtime": 5, "procs": 5}', "procs", "procs 5, which is wider than every cluster"),
    ('{"id": 1, "owner": 1, "runtime": 5, "procs": 3}', "procs", "procs 3, which is wider than its owner's cluster"),
    ('{"id": 0, "owner": 1, "runtime": 5, "procs": 1}', "id", "jobs\\[1\\] reuses id 0 of jobs\\[0\\] \\(line 4\\)"),
    ('[1, 2]', None, "jobs\\[1\\] is a JSON list; expected an object"),
])
def test_bad_job_names_file_line_and_field(tmp_path: Path, record: str, field: str | None, fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(_jobs_file(GOOD, record))  # the bad record is the second job, on line 5
    where = re.escape(f"{path}:5: ") + (re.escape(f"field {field}: ") if field else "")
    with pytest.raises(InputError, match=where + ".*" + fragment) as info:
        read_instance(path)
    assert info.value.line == 5 and info.value.field == field


def test_line_is_where_a_multi_line_record_starts(tmp_path: Path) -> None:
    text = _jobs_file(GOOD, GOOD.replace("0,", "1,", 1), '{\n      "id": 2,\n      "owner": 0,\n      "runtime": 0,'
                      '\n      "procs": 1\n    }')
    path = tmp_path / "multi.json"
    path.write_text(text)
    with pytest.raises(InputError, match=re.escape(f"{path}:6: field runtime: jobs[2] (id 2) has runtime 0")):
        read_instance(path)


@pytest.mark.parametrize(("clusters", "field", "fragment"), [
    ('{"org": 0, "procs": 4}, {"org": 0, "procs": 2}', "org", "clusters\\[1\\] gives org 0 a second cluster"),
    ('{"org": 0, "procs": 4}, {"org": 2, "procs": 2}', "org", "has org 2; with 2 clusters the orgs are 0..1"),
    ('{"org": 0, "procs": 4}, {"org": 1, "procs": 0}', "procs", "clusters\\[1\\] \\(org 1\\) has procs 0"),
    ('{"org": 0, "procs": 4}, {"org": 1}', "procs", "clusters\\[1\\] has no 'procs'"),
    ('{"org": 0, "procs": 4}, {"org": 1, "procs": 2.5}', "procs", "procs 2.5; expected a JSON integer"),
])
def test_bad_cluster_names_file_line_and_field(tmp_path: Path, clusters: str, field: str, fragment: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(_jobs_file(GOOD, clusters=clusters))
    with pytest.raises(InputError, match=re.escape(f"{path}:2: field {field}: ") + ".*" + fragment):
        read_instance(path)


@pytest.mark.parametrize(("text", "match"), [
    ('{"clusters": [{"org": 0, "procs": 4}],\n "jobs": [\n  {"id": 0 "owner": 0}]}',
     ":3: not valid JSON: Expecting ','"),
    ("[1, 2]", ":1: the file holds a JSON list; expected an object"),
    ('{"clusters": [{"org": 0, "procs": 4}]}', ":1: field jobs: the instance has no 'jobs'"),
    ('{"clusters": [{"org": 0, "procs": 4}], "jobs": [], "meta": 1}', ":1: field meta: the instance has an unknown"),
    ('{"clusters": [], "jobs": []}', ": field clusters: expected a non-empty list"),
    ('{"clusters": [{"org": 0, "procs": 4}], "jobs": {}}', ": field jobs: is a JSON dict; expected a list"),
])
def test_bad_file_structure(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(text)
    with pytest.raises(InputError, match=re.escape(str(path)) + re.escape(match)):
        read_instance(path)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=re.escape(str(tmp_path / "none.json")) + ": cannot read the instance file"):
        read_instance(tmp_path / "none.json")
    binary = tmp_path / "b.json"
    binary.write_bytes(b'{"clusters": "\xff\xfe"}')
    with pytest.raises(InputError, match="expected a UTF-8 JSON file"):
        read_instance(binary)


# ---------------------------------------------------------------------------------------------------------------
# Schedule CSV
# ---------------------------------------------------------------------------------------------------------------

def test_schedule_csv_by_hand(tmp_path: Path) -> None:
    schedule = MospSchedule(cluster=np.array([0, 0]), start=np.array([4, 0]), algorithm="hand")
    path = tmp_path / "out" / "schedule.csv"
    write_schedule_csv(_example_instance(), schedule, path)
    assert path.read_text() == ("job,owner,cluster,start,end,procs,runtime\n"
                                "7,0,0,4,9,3,5\n"
                                "2,1,0,0,1,1,1\n")


def test_schedule_csv_empty_and_mismatched(tmp_path: Path) -> None:
    empty = MospInstance.from_arrays(procs=[2], owner=[], runtime=[], width=[])
    write_schedule_csv(empty, MospSchedule(cluster=np.array([], dtype=np.int64), start=np.array([], dtype=np.int64)),
                       tmp_path / "e.csv")
    assert (tmp_path / "e.csv").read_text() == "job,owner,cluster,start,end,procs,runtime\n"
    with pytest.raises(ConfigError, match="1 clusters and 1 start times for an instance of 2 jobs"):
        write_schedule_csv(_example_instance(), MospSchedule(cluster=np.array([0]), start=np.array([0])),
                           tmp_path / "x.csv")
    assert not (tmp_path / "x.csv").exists()
