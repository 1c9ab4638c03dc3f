"""Sweeps: one model over a grid of options and seeds, into a resumable results store (docs/sweeps.md).

* `fairsched.sweep.spec`: the TOML spec (``[sweep]``, ``[base]``, ``[grid]``, ``[[zip]]``) and its cells;
* `fairsched.sweep.run`: `run_sweep` computes the missing cells on local processes or a Dask cluster;
* `fairsched.sweep.store`: the store, ``DIR/spec.toml``, ``DIR/manifest.json`` and one Parquet part per cell;
* `fairsched.sweep.results`: `read_results` aggregates mean / std / 95 % CI over seeds;
* `fairsched.sweep.paired`: `paired_results` compares every row with a baseline's row of the same seed and condition.

The heavy modules (pyarrow, duckdb, distributed) are imported only when a sweep runs or is read.
"""

from fairsched.sweep.models import MODELS
from fairsched.sweep.paired import PairedResults, paired_results
from fairsched.sweep.results import SweepResults, read_results
from fairsched.sweep.run import SweepFailed, SweepInterrupted, SweepSummary, plan_sweep, run_sweep
from fairsched.sweep.spec import Cell, Spec, expand, load_spec

__all__ = ["MODELS", "Cell", "PairedResults", "Spec", "SweepFailed", "SweepInterrupted", "SweepResults", "SweepSummary",
           "expand", "load_spec", "paired_results", "plan_sweep", "read_results", "run_sweep"]
