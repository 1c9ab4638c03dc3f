"""The replications' records-backed cell results (`fairsched.replicate._common.RecordsResult`): rows and files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fairsched.replicate.networking20 import cell as networking20_cell
from fairsched.replicate.tpds11 import cell as tpds11_cell


def test_a_networking20_cell_writes_its_rows_without_the_per_job_values(tmp_path: Path) -> None:
    config = networking20_cell.Config(setting="reach", reach_instances=0)
    result = networking20_cell.CellResult(config=config, seed=3, records=[
        {"policy": "pba", "algorithm": "pba", "reached": 2, "values": [1.0, 2.0]}])
    rows = result.rows()
    assert list(rows.columns)[-4:] == ["policy", "algorithm", "reached", "values"]
    assert rows.loc[0, "setting"] == "reach" and rows.loc[0, "values"] == [1.0, 2.0]
    written = result.write(tmp_path)
    assert written == {"rows.csv": tmp_path / "rows.csv"}
    frame = pd.read_csv(tmp_path / "rows.csv")
    assert "values" not in frame.columns and frame.loc[0, "reached"] == 2 and frame.loc[0, "setting"] == "reach"


def test_a_tpds11_cell_writes_one_score_row_per_record_with_its_policy(tmp_path: Path) -> None:
    config = tpds11_cell.Config(instances=1)
    result = tpds11_cell.CellResult(config=config, seed=0, records=[
        {"index": 0, "algorithm": "local", "score": 1.5}, {"index": 0, "algorithm": "mocca", "score": 1.25}])
    assert result.rows().to_dict("records") == [{"index": 0, "algorithm": "local", "score": 1.5, "policy": "local"},
                                                {"index": 0, "algorithm": "mocca", "score": 1.25, "policy": "mocca"}]
    assert result.write(tmp_path) == {"scores.csv": tmp_path / "scores.csv"}
    assert (tmp_path / "scores.csv").read_text() == ("index,algorithm,score,policy\n"
                                                     "0,local,1.5,local\n0,mocca,1.25,mocca\n")
