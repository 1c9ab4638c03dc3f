"""`fairsched.sweep` on the toy model (tests/_toy_model.py): spec parsing and its one-line errors, cell keys,
the store, resuming, failures, executors giving identical bytes, and the ``sweep``/``results`` commands."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError, InputError
from fairsched.sweep import SweepFailed, expand, load_spec, plan_sweep, read_results, run_sweep
from fairsched.sweep.results import t975
from fairsched.sweep.store import Store
from tests.conftest import run_main

TOY = "tests._toy_model"


def write_spec(folder: Path, body: str, *, seeds: str = "2", name: str = "spec.toml") -> Path:
    path = folder / name
    path.write_text(f'[sweep]\nmodel = "{TOY}"\nseeds = {seeds}\n{body}')
    return path


def parts(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "cells").glob("*.parquet"))}


def stored_files(out: Path) -> dict[str, bytes]:
    """Every cell's part and per-organization table, by path in the store."""
    return {p.relative_to(out).as_posix(): p.read_bytes()
            for folder in ("cells", "orgs") for p in sorted((out / folder).glob("*.parquet"))}


def test_points_are_the_grid_product_times_the_zip_blocks(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, '[base]\nscale = 2.0\n[grid]\norgs = [1, 2]\n[[zip]]\n'
                                          'policies = ["a,b", "c"]\nsleep = [0.0, 0.5]\n'))
    assert spec.seeds == (0, 1)
    assert spec.points() == [{"orgs": 1, "policies": "a,b", "sleep": 0.0}, {"orgs": 1, "policies": "c", "sleep": 0.5},
                             {"orgs": 2, "policies": "a,b", "sleep": 0.0}, {"orgs": 2, "policies": "c", "sleep": 0.5}]
    cells = expand(spec)
    assert [(c.point["orgs"], c.point["policies"], c.seed) for c in cells] == [
        (1, "a,b", 0), (1, "a,b", 1), (1, "c", 0), (1, "c", 1), (2, "a,b", 0), (2, "a,b", 1), (2, "c", 0), (2, "c", 1)]
    assert cells[3].config.policies == ("c",) and cells[3].config.scale == 2.0 and cells[3].config.sleep == 0.5
    assert len({c.key for c in cells}) == 8


@pytest.mark.parametrize(("body", "seeds", "expected"), [
    ("[grid]\norgs = 3\n", "2", r"spec.toml:5: field orgs: \[grid\] values must be a non-empty list"),
    ("[grid]\norgs = []\n", "2", r"spec.toml:5: field orgs: \[grid\] values must be a non-empty list"),
    ("[base]\norgs = 2\n[grid]\norgs = [1]\n", "2", r"spec.toml:7: field orgs: set both in \[base\] and in \[grid\]"),
    ("[[zip]]\norgs = [1, 2]\nscale = [1.0]\n", "2", r"spec.toml:5: field orgs: .*need equal lengths"),
    ("[grids]\norgs = [1]\n", "2", r"spec.toml:4: field grids: unknown table \[grids\]"),
    ("", "-1", r"spec.toml:3: field seeds: seeds = -1: expected a count >= 1"),
    ("", "[0, 0]", r"spec.toml:3: field seeds: .*distinct"),
    ("[grid]\norgs = [1, 0]\n", "2", r"spec.toml:5: field orgs: --orgs 0: expected an integer >= 1 at grid point"),
    ("[base]\nspeed = 3\n", "2", r"spec.toml:5: field speed: unknown option 'speed'"),
    ("[grid]\norgs = 1 2\n", "2", r"spec.toml:5: not valid TOML: .*line 5"),
])
def test_spec_errors_name_the_file_line_and_key(tmp_path: Path, body: str, seeds: str, expected: str) -> None:
    path = write_spec(tmp_path, body, seeds=seeds)
    with pytest.raises(InputError, match=expected):
        expand(load_spec(path))


def test_unknown_model_and_sweep_key(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('[sweep]\nmodel = "nosuch"\n')
    with pytest.raises(InputError, match=r"a.toml:2: field model: unknown model 'nosuch'; choose one of online"):
        load_spec(tmp_path / "a.toml")
    (tmp_path / "b.toml").write_text(f'[sweep]\nmodel = "{TOY}"\nseed = 3\n')
    with pytest.raises(InputError, match=r"b.toml:3: field seed: unknown key in \[sweep\]"):
        load_spec(tmp_path / "b.toml")


def test_cell_keys_follow_config_seed_and_input_content_not_spelling_or_place(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "data.txt").write_text("abc")
    one = expand(load_spec(write_spec(tmp_path, '[base]\ndata = "in/data.txt"\norgs = 2\n', name="one.toml")))
    # Same config written differently (a default made explicit, a dashed key) and the input moved: same keys.
    (tmp_path / "moved").mkdir()
    (tmp_path / "moved" / "data.txt").write_text("abc")
    two = expand(load_spec(write_spec(tmp_path, '[base]\ndata = "moved/data.txt"\nfail-seed = -1\n', name="two.toml")))
    assert [c.key for c in one] == [c.key for c in two]
    assert one[0].key != one[1].key  # the seed
    (tmp_path / "moved" / "data.txt").write_text("abd")  # same size, other content
    three = expand(load_spec(tmp_path / "two.toml"))
    assert not {c.key for c in one} & {c.key for c in three}
    (tmp_path / "gone.toml").write_text(f'[sweep]\nmodel = "{TOY}"\n[base]\ndata = "nope.txt"\n')
    with pytest.raises(InputError, match=r"gone.toml:4: field data: input file .*nope.txt cannot be read"):
        expand(load_spec(tmp_path / "gone.toml"))


def test_sweep_stores_one_part_per_cell_and_reruns_nothing(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, "[grid]\norgs = [1, 3]\n", seeds="3")
    seen: list[tuple[int, int, int]] = []
    first = run_sweep(spec, tmp_path / "out", workers=1, progress=lambda *a: seen.append(a))
    assert (first.n_cells_total, first.computed, first.reused, first.failed) == (6, 6, 0, 0)
    assert seen == [(0, 6, 0)] + [(i, 6, 0) for i in range(1, 7)]
    assert (tmp_path / "out" / "spec.toml").read_text() == spec.read_text()
    stored = parts(tmp_path / "out")
    assert len(stored) == 6
    again = run_sweep(spec, tmp_path / "out", workers=1)
    assert (again.computed, again.reused) == (0, 6)
    assert parts(tmp_path / "out") == stored
    # A grown grid computes only the new cells.
    spec.write_text(spec.read_text().replace("[1, 3]", "[1, 3, 4]"))
    grown = run_sweep(spec, tmp_path / "out", workers=1)
    assert (grown.n_cells_total, grown.computed, grown.reused) == (9, 3, 6)


def test_a_failed_cell_is_recorded_and_retried_and_fail_fast_stops(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, "[base]\nfail-seed = 1\n[grid]\norgs = [1, 2]\n", seeds="2")
    summary = run_sweep(spec, tmp_path / "out", workers=1)
    assert (summary.computed, summary.failed) == (2, 2)
    assert set(summary.errors.values()) == {"ValueError: toy failure for seed 1 second line"}
    results = read_results(tmp_path / "out")
    assert (results.n_cells_done, results.n_cells_total) == (2, 4)
    assert [(f["seed"], f["point"], f["error"]) for f in results.failed] == [
        (1, {"orgs": 1}, "ValueError: toy failure for seed 1 second line"),
        (1, {"orgs": 2}, "ValueError: toy failure for seed 1 second line")]
    assert len(Store(tmp_path / "out").failed_keys()) == 2
    with pytest.raises(SweepFailed, match=r"cell [0-9a-f]+ failed: ValueError: toy failure .*2 of 4 cells done"):
        run_sweep(spec, tmp_path / "out", workers=1, fail_fast=True)


def test_executors_and_worker_counts_give_the_same_bytes(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, '[grid]\norgs = [1, 2, 3]\npolicies = ["a,b", "c,d,e"]\n', seeds="2")
    runs = {"local1": dict(workers=1), "local2": dict(workers=2), "dask2": dict(executor="dask", workers=2)}
    stored = {}
    for name, options in runs.items():
        summary = run_sweep(spec, tmp_path / name, **options)
        assert (summary.computed, summary.failed) == (12, 0)
        stored[name] = stored_files(tmp_path / name)
    assert len(stored["local1"]) == 24  # 12 parts, 12 per-organization tables
    assert stored["local1"] == stored["local2"] == stored["dask2"]


def test_results_aggregate_mean_std_and_ci_over_seeds(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, '[base]\nscale = 0.5\npolicies = "x,y"\n[grid]\norgs = [2, 4]\n', seeds="[3, 5, 8]")
    run_sweep(spec, tmp_path / "out", workers=1)
    results = read_results(tmp_path / "out", metrics=("score",))
    assert results.group_by == ("orgs", "policy")
    # By hand: score = 0.5 * orgs + policy index + the seed's standard normal draw for that policy.
    draws = np.array([np.random.default_rng(seed).standard_normal(2) for seed in (3, 5, 8)])
    expected = []
    for orgs in (2, 4):
        for index, policy in enumerate(("x", "y")):
            values = 0.5 * orgs + index + draws[:, index]
            std = values.std(ddof=1)
            expected.append((orgs, policy, 3, values.mean(), std, 4.303 * std / math.sqrt(3)))
    got = [(r.orgs, r.policy, r.n, r.mean, r.std, r.ci95) for r in results.rows.itertuples()]
    assert [g[:3] for g in got] == [e[:3] for e in expected]
    np.testing.assert_allclose([g[3:] for g in got], [e[3:] for e in expected], rtol=1e-12)
    by_orgs = read_results(tmp_path / "out", group_by=("orgs",), metrics=("score",)).rows
    assert by_orgs["n"].tolist() == [6, 6]
    with pytest.raises(ConfigError, match="--metric nope: no such column; the store has seed, orgs"):
        read_results(tmp_path / "out", metrics=("nope",))
    with pytest.raises(ConfigError, match="is not a sweep directory"):
        read_results(tmp_path)


def test_t975_matches_the_table_and_its_limit() -> None:
    assert t975(1) == 12.706 and t975(30) == 2.042
    assert 2.042 > t975(31) > t975(60) > t975(1000) > 1.96
    assert abs(t975(60) - 2.000) < 1e-3 and abs(t975(120) - 1.980) < 1e-3


def test_sweep_and_results_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write_spec(tmp_path, "[base]\nfail-seed = 1\n[grid]\norgs = [1, 2]\n", seeds="2")
    out = tmp_path / "store"
    code, stdout, _ = run_main(["sweep", str(spec), "--out", str(out), "--dry-run", "--json"], capsys)
    plan = json.loads(stdout)
    assert code == 0 and plan["n_cells_total"] == 4 and plan["n_cells_done"] == 0
    assert [c["point"] for c in plan["cells"]] == [{"orgs": 1}, {"orgs": 1}, {"orgs": 2}, {"orgs": 2}]
    code, stdout, _ = run_main(["sweep", str(spec), "--out", str(out), "--workers", "1", "--json"], capsys)
    doc = json.loads(stdout)
    assert code == 1  # a cell failed
    assert {k: doc[k] for k in ("n_cells_total", "computed", "reused", "failed", "out")} == {
        "n_cells_total": 4, "computed": 2, "reused": 0, "failed": 2, "out": str(out)}
    code, stdout, _ = run_main(["results", str(out), "--metric", "score", "--json", "--plot",
                                str(tmp_path / "score.png")], capsys)
    doc = json.loads(stdout)
    assert code == 0 and (doc["n_cells_done"], doc["n_cells_total"], len(doc["failed"])) == (2, 4, 2)
    assert [(r["orgs"], r["policy"], r["n"]) for r in doc["rows"]] == [(1, "even", 1), (1, "greedy", 1),
                                                                       (2, "even", 1), (2, "greedy", 1)]
    assert doc["rows"][0]["ci95"] is None  # one seed: no interval
    assert (tmp_path / "score.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, stdout, _ = run_main(["results", str(out)], capsys)
    assert code == 0 and "2 of 4 cells done, 2 failed" in stdout and "greedy" in stdout
    code, _, stderr = run_main(["sweep", str(spec), "--out", str(out), "--executor", "ray"], capsys)
    assert code == 2 and stderr.strip() == "error: --executor 'ray': choose one of local, dask"
    done = plan_sweep(spec, out)
    assert [stored for _, stored in done] == [True, False, True, False]
    assert pd.read_parquet(out / "cells" / f"{done[0][0].key}.parquet")["status"].tolist() == ["ok", "ok"]
