"""Sweeps: one model over a grid of options and seeds, into a resumable results store (docs/sweeps.md).

* `fairsched.sweep.spec`: the TOML spec (``[sweep]``, ``[base]``, ``[grid]``, ``[[zip]]``) and its cells;
* `fairsched.sweep.run`: `run_sweep` computes the missing cells on local processes or a Dask cluster;
* `fairsched.sweep.store`: the store, ``DIR/spec.toml``, ``DIR/manifest.json`` and one Parquet part per cell;
* `fairsched.sweep.results`: `read_results` aggregates mean / std / 95 % CI over seeds.

The heavy modules (pyarrow, duckdb, distributed) are imported only when a sweep runs or is read.
"""

from fairsched.sweep.models import MODELS
from fairsched.sweep.results import SweepResults, read_results
from fairsched.sweep.run import SweepFailed, SweepInterrupted, SweepSummary, plan_sweep, run_sweep
from fairsched.sweep.spec import Cell, Spec, expand, load_spec

__all__ = ["MODELS", "Cell", "Spec", "SweepFailed", "SweepInterrupted", "SweepResults", "SweepSummary", "expand",
           "load_spec", "plan_sweep", "read_results", "run_sweep"]
