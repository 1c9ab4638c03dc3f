"""A small real sweep of each of the four models: the store holds exactly what the model's ``run`` returns for each
cell's config and seed, and ``read_results`` groups by the options the spec varies, then the policy."""

from __future__ import annotations

import importlib
from pathlib import Path

import pandas as pd
import pytest

from fairsched.sweep import MODELS, expand, load_spec, read_results, run_sweep
from fairsched.sweep.results import load_rows
from tests.test_replicate_jsspp05 import synthetic_swf

SPECS = {
    "online": ('policies = "roundrobin,fairshare"\nreference = "directcontr"\nwindow-length = 50000\n',
               'split = ["even", "zipf"]\n', 2),
    "backfill": ('trace = "jobs.swf"\nfairness = "re,fst-strict"\n', 'order = ["fcfs", "sjf"]\n'
                 'backfill = ["easy", "conservative"]\n', 1),
    "mosp": ("jobs = 30\nprocs = 8\n", 'orgs = [2, 3]\nalgorithm = ["mocca", "mocca+ilba"]\n', 2),
    "openshop": ("jobs = 12\nmachines = 3\n", 'utilities = ["equal", "linear"]\n', 2),
    "whatif": (f'log = "{Path(__file__).parent / "data" / "whatif" / "tiny.sacct.txt"}"\npolicies = "fcfs,drf"\n'
               "fst-sample = 0\n", 'half-life = ["1h", "7d"]\n', 2),
}


def records(frame: pd.DataFrame) -> list[dict[str, object]]:
    """Rows as plain values, missing ones as None (a column of only None is stored as nulls, read back as NaN)."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


@pytest.mark.parametrize("model", list(MODELS))
def test_a_small_real_sweep_stores_what_the_model_returns(tmp_path: Path, model: str) -> None:
    base, grid, seeds = SPECS[model]
    (tmp_path / "jobs.swf").write_text(synthetic_swf(3, n=80))
    spec_path = tmp_path / f"{model}.toml"
    spec_path.write_text(f'[sweep]\nmodel = "{model}"\nseeds = {seeds}\n[base]\n{base}[grid]\n{grid}')
    spec = load_spec(spec_path)
    cells = expand(spec)
    summary = run_sweep(spec, tmp_path / "out", workers=1)
    assert (summary.n_cells_total, summary.computed, summary.failed) == (len(cells), len(cells), 0), summary.errors
    stored, _ = load_rows(tmp_path / "out")
    module = importlib.import_module(MODELS[model])
    for cell in (cells[0], cells[-1]):
        expected = module.run(cell.config, cell.seed).rows()
        mine = stored[stored["cell"] == cell.key].drop(columns=["cell", "seed", "status", "error"])
        assert list(mine.columns) == list(expected.columns)
        assert records(mine) == records(expected)
    results = read_results(tmp_path / "out")
    varied = tuple(key.replace("-", "_") for key in spec.grid)
    assert results.group_by == (*varied, "policy")
    assert (results.n_cells_done, results.n_cells_total, results.failed) == (len(cells), len(cells), [])
    assert set(results.rows["n"]) <= {0, seeds}
