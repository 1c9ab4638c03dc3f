"""PPAM'13 through the sweep layer gives the direct window loop's numbers; the hypothesis-8 switches (time
granularity, parallel jobs, DIRECTCONTR's machine order) reach the windows (tiny synthetic "LPC-EGEE" trace)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError
from fairsched.replicate import ppam13
from fairsched.replicate._online_windows import load_traces, make_tasks, measure
from fairsched.replicate.ppam13 import cell as ppam13_cell
from tests.test_replicate_online import _tiny_trace


@pytest.fixture
def tiny_dir(tmp_path: Path) -> Path:
    _tiny_trace(tmp_path / "traces")
    return tmp_path / "traces"


def test_the_sweep_gives_the_direct_loops_rows_and_windows(tiny_dir: Path, tmp_path: Path) -> None:
    """Same seed, same cells: the table and every window of the replication as it ran before the sweep layer."""
    config = ppam13.PPAM13Config(traces_dir=tiny_dir, traces=("LPC-EGEE",), splits=("uniform", "zipf"), windows=3,
                                 seed=4, store=tmp_path / "store")
    swept = ppam13.run(config)
    direct_rows, direct_windows = measure(ppam13.cells(config), load_traces(["LPC-EGEE"], tiny_dir), seed=4, jobs=1)
    pd.testing.assert_frame_equal(swept.per_window, direct_windows, check_dtype=False)
    assert pd.DataFrame(swept.rows).equals(pd.DataFrame(direct_rows))
    assert direct_windows["delta_psi"].gt(0).any()
    again = ppam13.run(config)  # the store holds every cell: nothing is simulated again, the same table comes back
    assert again.rows == swept.rows


def test_hypothesis_8_switches_reach_the_windows(tiny_dir: Path) -> None:
    workload = load_traces(["LPC-EGEE"], tiny_dir)

    def window_jobs(**switches: object) -> list[pd.DataFrame]:
        config = ppam13.PPAM13Config(traces_dir=tiny_dir, traces=("LPC-EGEE",), tables=("table1",), windows=3,
                                     **switches)
        return [(task.start, task.workload.jobs) for task in make_tasks(ppam13.cells(config), workload, 0)]

    plain = window_jobs()
    for (start, jobs), (_, coarse) in zip(plain, window_jobs(granularity=600), strict=True):
        assert len(coarse) == len(jobs)
        assert np.all((coarse["submit_time"] - start) % 600 == 0) and np.all(coarse["run_time"] % 600 == 0)
        assert np.all(coarse["submit_time"] <= jobs["submit_time"]) and np.all(coarse["run_time"] >= jobs["run_time"])
    for (_, jobs), (_, serial), (_, narrow) in zip(plain, window_jobs(parallel_jobs="serial"),
                                                   window_jobs(parallel_jobs="skip"), strict=True):
        assert len(serial) == len(jobs) and set(serial["processors"]) == {1}
        assert len(narrow) == max(1, int((jobs["processors"] <= 1).sum()))
    with pytest.raises(ConfigError, match="granularity=0"):
        ppam13.check_config(ppam13.PPAM13Config(granularity=0))
    with pytest.raises(ConfigError, match="--table 'table3': choose one of table1, table2"):
        ppam13_cell.Config(table="table3")


def test_directcontr_machine_order_switch_changes_only_directcontr(tiny_dir: Path, tmp_path: Path) -> None:
    base = dict(traces_dir=tiny_dir, traces=("LPC-EGEE",), tables=("table2",), windows=2, seed=2)
    random = ppam13.run(ppam13.PPAM13Config(**base)).per_window
    lowest = ppam13.run(ppam13.PPAM13Config(**base, directcontr_machines="lowest")).per_window
    others = random["policy"] != "DIRECTCONTR"
    pd.testing.assert_frame_equal(random[others], lowest[others])
    assert random.loc[~others, "delta_psi"].tolist() != lowest.loc[~others, "delta_psi"].tolist()


def test_a_cell_of_some_policies_gives_their_rows_of_the_full_cell(tiny_dir: Path) -> None:
    """``policies=("DIRECTCONTR",)`` runs REF and DIRECTCONTR only, with exactly the full cell's numbers for them
    (what the 100-window split × DIRECTCONTR grid relies on to reuse the other policies' windows)."""
    base = dict(table="table2", traces_dir=tiny_dir, windows=3, split="zipf", directcontr_update="printed")
    full = ppam13_cell.run(ppam13_cell.Config(**base), 2).rows()
    some = ppam13_cell.run(ppam13_cell.Config(**base, policies=("DIRECTCONTR",)), 2).rows()
    assert set(full["policy"]) == {"ROUNDROBIN", "RAND (N=15)", "DIRECTCONTR", "FAIRSHARE", "UTFAIRSHARE",
                                   "CURRFAIRSHARE", "REF"}
    assert sorted(set(some["policy"])) == ["DIRECTCONTR", "REF"] and len(some) == 2 * 3
    kept = full[full["policy"].isin(["DIRECTCONTR", "REF"])].reset_index(drop=True)
    columns = ["window", "policy", "start", "window_seed", "delta_psi", "p_tot", "ratio"]
    pd.testing.assert_frame_equal(some[columns].reset_index(drop=True), kept[columns])
    assert kept.loc[kept["policy"] == "DIRECTCONTR", "delta_psi"].gt(0).any()
    with pytest.raises(ConfigError, match="policies=\\['REF'\\]: expected distinct names among ROUNDROBIN"):
        ppam13_cell.Config(policies=("REF",))


def test_extra_readings_share_ref_and_equal_the_switched_cells(tiny_dir: Path) -> None:
    """``"DIRECTCONTR update=printed"`` in a cell's policies gives the rows of DIRECTCONTR in the cell switched to
    the printed lines 15–16 (and likewise for the machine order), labelled by the entry, beside one REF."""
    base = dict(table="table2", traces_dir=tiny_dir, windows=3, split="uniform")
    entries = ("DIRECTCONTR machines=lowest", "DIRECTCONTR update=printed")
    extra = ppam13_cell.run(ppam13_cell.Config(**base, policies=entries), 2).rows()
    assert extra["policy"].tolist() == [*entries, "REF"] * 3
    columns = ["window", "delta_psi", "p_tot", "ratio"]
    for entry, switch in zip(entries, ({"directcontr_machines": "lowest"}, {"directcontr_update": "printed"}),
                             strict=True):
        switched = ppam13_cell.run(ppam13_cell.Config(**base, **switch), 2).rows()
        expected = switched[switched["policy"] == "DIRECTCONTR"][columns].reset_index(drop=True)
        pd.testing.assert_frame_equal(extra[extra["policy"] == entry][columns].reset_index(drop=True), expected)
    plain = ppam13_cell.run(ppam13_cell.Config(**base), 2).rows()
    assert (extra[extra["policy"] == entries[0]]["delta_psi"].to_numpy()
            != plain[plain["policy"] == "DIRECTCONTR"]["delta_psi"].to_numpy()).any()
    with pytest.raises(ConfigError, match=r"'DIRECTCONTR update'.*e\.g\. 'DIRECTCONTR update=printed'"):
        ppam13_cell.Config(policies=("DIRECTCONTR update",))
