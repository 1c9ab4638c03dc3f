"""The JSSPP'05 and TPDS'11 ablation runners (`fairsched.replicate.jsspp05.ablations`,
`fairsched.replicate.tpds11.ablations`) on tiny inputs: the subset and machine-size overrides, the window counts,
the subset schemes, the generator variants and the t-test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fairsched.errors import ConfigError
from fairsched.replicate import jsspp05
from fairsched.replicate.jsspp05 import ablations as j5
from fairsched.replicate.jsspp05 import cell as jsspp05_cell
from fairsched.replicate.jsspp05 import doc_values as j5_values
from fairsched.replicate.tpds11 import ablations as t11
from tests.test_replicate_jsspp05 import synthetic_swf


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("traces")
    for seed, name in enumerate(jsspp05.TRACES.values()):
        (folder / name).write_text(synthetic_swf(seed, n=160))
    return folder


def test_skip_jobs_and_machine_size_change_what_is_simulated(traces: Path) -> None:
    def prepared(**overrides: object) -> tuple:
        return jsspp05_cell.prepare(jsspp05_cell.Config(trace="CTC-SP2", traces_dir=traces, subset_size=100,
                                                         load=0.8, **overrides))

    (first, f1), (skipped, _), (wider, f2) = prepared(), prepared(skip_jobs=50), prepared(processors=32)
    assert f1["processors"] == 16 and f2["processors"] == 32 and wider.n_processors == 32
    # twice the processors: the same jobs offer half the load, so their run times must stretch more to reach 80 %
    assert f2["natural_load"] == pytest.approx(f1["natural_load"] / 2)
    assert f2["runtime_factor"] > 1.5 * f1["runtime_factor"]
    assert skipped.submit.min() > first.submit.min()  # jobs 51..150, not 1..100
    assert skipped.procs.size == first.procs.size == 100
    with pytest.raises(ConfigError, match="--skip-jobs"):
        jsspp05_cell.Config(skip_jobs=-1)


def test_window_counts_by_hand() -> None:
    cum = j5._bin_counts(np.array([1, 2, 3, 200, 1]))  # bins 1, 2, 3-4, >128, 1
    windows = cum[3:] - cum[:-3]
    assert windows[0].tolist() == [1, 1, 1, 0, 0, 0, 0, 0, 0]
    assert windows[2].tolist() == [1, 0, 1, 0, 0, 0, 0, 0, 1]


def test_spearman_schemes_agree_when_every_job_ranks_the_simulations_alike() -> None:
    rng = np.random.default_rng(0)
    level = np.arange(1.0, 7.0)  # six simulations, ranked the same way by every job
    per_job = {("T", 0.8, str(k), "easy"): {m: level[k] * (1 + 0.1 * rng.random(40)) for m in jsspp05.METRICS}
               for k in range(6)}
    per_job[("T", 0.8, "0", "easy")]["re"][:] = 0.0  # one simulation with no resource-equality unfairness
    frame = j5.spearman_schemes(per_job, n_subsets=4)
    assert set(frame["scheme"]) == set(j5.SCHEMES) and len(frame) == len(j5.SCHEMES) * 3 * 4
    assert np.allclose(frame["rho"], 1.0)
    assert ((frame["top1_share"] > 0) & (frame["top1_share"] < 1)).all()


def test_tpds_variants_by_construction() -> None:
    variants = (t11.Variant("t", "expected shares", "uni", {"orgs": (5,), "jobs": (50,), "owners": "expected"}),
                t11.Variant("t", "q < m, per org", "swf", {"orgs": (2,), "jobs": (10,), "strict_width": True,
                                                           "per_org": True}),
                t11.Variant("t", "hetero, fits all", "uni", {"orgs": (10,), "jobs": (10,), "shapes": (2,),
                                                             "fit_all": True}))
    frame = t11.run_variants(variants, instances=2)
    assert len(frame) == 3 * 2 + 3 * 2 + 2  # 3 m values x 2 instances for the homogeneous variants, 1 shape
    assert (frame["ilba"] <= frame["mocca"] + 1e-9).all() and (frame["mocca"] <= frame["local"] + 1e-9).all()
    owners = t11._owners(50, 5, np.random.default_rng(0), "expected")
    # shares 27.48, 10.22, 5.74, 3.80, 2.76 -> floors 27, 10, 5, 3, 2; the 3 left go to the largest remainders
    assert np.bincount(owners).tolist() == [27, 10, 6, 4, 3]


def test_welch_p() -> None:
    a = np.arange(100.0)
    assert t11.welch_p(a, a) == pytest.approx(1.0)
    assert t11.welch_p(a, a + 50) < 1e-6


def test_osc_grid_prediction_by_hand(tmp_path: Path) -> None:
    import pandas as pd

    pd.DataFrame({"jobs": [1000, 4000], "ns_per_work": [50.0, 200.0]}).to_csv(tmp_path / "jsspp05_osc_cost.csv")
    pd.DataFrame({"load": [0.9, 0.98], "work": [0.6e10, 1.2e10]}).to_csv(tmp_path / "jsspp05_osc_grid.csv")
    pd.DataFrame({"backfill": ["conservative", "easy"], "strict_cpu_s": [10.0, 1.0],
                  "relaxed_cpu_s": [5.0, 9.0]}).to_csv(tmp_path / "jsspp05_cost.csv")
    value = {name: j5_values.VALUES[f"jsspp05-osc-grid-{name}"](tmp_path)
             for name in ("c", "ratio", "hours", "hours98")}
    # c = 200 ns (the 4,000-job run), r = 5 / 10 (conservative only): 200e-9 * 1.8e10 * 1.5 = 5,400 s
    assert value == {"c": "200", "ratio": "0.50", "hours": "1.5", "hours98": "1.0"}


def test_whatif_work_counts_the_queue_and_the_events_of_each_job() -> None:
    import pandas as pd

    # 4 jobs: 0 runs 0-10; 1 and 2 wait for it (1 starts at 10, 2 at 12 after 3's end); 3 arrives at 2, runs 2-12
    schedule = pd.DataFrame({"submit": [0, 1, 1, 2], "start": [0, 10, 12, 2], "end": [10, 20, 15, 12]})
    queue, events = j5.whatif_work(schedule)
    assert queue.tolist() == [0, 1, 2, 2]  # after job 3's arrival: 1 and 2 wait (3 starts at once)
    assert events.tolist() == [0, 1, 2, 0]  # job 2 waits through the ends at 10 and 12


def test_side_of_one_counts_the_loads(tmp_path: Path) -> None:
    import pandas as pd

    rows = [("T", load, "fcfs", depth, "fst_relaxed", "all", value)
            for load, easy, conservative in ((0.7, 10.0, 5.0), (0.8, 10.0, 12.0), (0.9, 10.0, 8.0))
            for depth, value in (("easy", easy), ("conservative", conservative))]
    pd.DataFrame(rows, columns=["trace", "load", "order", "backfill", "metric", "width", "value"]).to_csv(
        tmp_path / "jsspp05_full_rows.csv", index=False)
    side = j5_values._side("conservative / EASY, FCFS", "fst_relaxed", traces=("T",))
    assert side(tmp_path) == "less unfair at 2 of the 3 loads"  # ratios 0.5, 1.2, 0.8
    every_trace = j5_values._side("conservative / EASY, FCFS", "fst_relaxed")
    assert every_trace(tmp_path) == "less unfair at 2 of the 3 (trace, load) pairs"


def test_osc_grid_in_parts_and_its_harvest(traces: Path, tmp_path: Path) -> None:
    """`osc_run` on a stand-in OSC (40 jobs): every part, cheapest first, writes its rows; the whole grid gives
    Table 2; `osc_harvest` rebuilds the same rows and simulations from the stores alone, as after an interruption."""
    import pandas as pd

    from fairsched.replicate.jsspp05.doc import table_osc_grid, table_osc_parts

    out, store = tmp_path / "out", tmp_path / "store"
    out.mkdir()
    j5.osc_run(traces, out, workers=1, store=store, subset_size=40)
    parts = pd.read_csv(out / "jsspp05_osc_parts.csv")
    assert parts["part"].tolist() == [name for name, _ in j5.OSC_PARTS]
    assert parts["simulations"].tolist() == [30, 3, 3, 3, 3, 3]
    rows = pd.read_csv(out / "jsspp05_osc_rows.csv", dtype={"width": str})
    overall = rows[rows["width"] == "all"]
    assert set(overall["trace"]) == {"OSC"} and len(overall) == 45 * 3
    assert len(pd.read_csv(out / "jsspp05_osc_spearman.csv")) == len(j5.SCHEMES) * 3 * 10
    assert "·" not in table_osc_grid(out) and "all finished parts | 45 |" in table_osc_parts(out)
    again = tmp_path / "again"
    again.mkdir()
    assert j5.osc_harvest(store, again) == 45
    for name in ("jsspp05_osc_rows.csv", "jsspp05_osc_simulations.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(again / name).sort_values(["load", "order", "backfill"],
                                                                            kind="stable").reset_index(drop=True),
                                      pd.read_csv(out / name).sort_values(["load", "order", "backfill"],
                                                                          kind="stable").reset_index(drop=True))
    (store / "conservative-98").rename(tmp_path / "moved")  # as if the last part had not run
    partial = tmp_path / "partial"
    partial.mkdir()
    assert j5.osc_harvest(store, partial) == 42
    assert table_osc_grid(partial).count("· ") == 3 * 3  # 3 orders × 3 metrics lack conservative at 98 %
