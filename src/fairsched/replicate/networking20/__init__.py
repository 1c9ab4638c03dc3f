"""Networking'20 §VII (Shafiee & Ghaderi): PBA against FIFO, SPTF and LUF on the Google cluster trace.

The front door is ``run(Networking20Config(...)) -> Networking20Result`` (docs/replication/networking20.md). The
folder holds:

* `fairsched.replicate.networking20.paper`: the paper's claims and the configuration;
* `fairsched.replicate.networking20.replication`: ``run`` through the sweep layer, the claim rows, ``to_json``;
* `fairsched.replicate.networking20.reach`: how often each heuristic finds the exact max-min fair vector;
* `fairsched.replicate.networking20.cell`: one setting (or the reach counts), the sweep's model
  (``specs/networking20*.toml``);
* `fairsched.replicate.networking20.ablations`: the runs behind the doc (run it with ``python -m``);
* `fairsched.replicate.networking20.doc` and ``doc_values``: the docs' tables and numbers in the prose.
"""

from fairsched.replicate._common import SPECS_DIR, default_traces_dir
from fairsched.replicate.networking20.paper import PAPER, Claim, Networking20Config, setting_name
from fairsched.replicate.networking20.reach import REACH_RUNS, exact_reach
from fairsched.replicate.networking20.replication import (
    SUMMARY_KEYS,
    AlgorithmValues,
    Networking20Result,
    SettingReport,
    claim_row,
    run,
    sweep_spec,
    to_json,
)

__all__ = ["PAPER", "REACH_RUNS", "SPECS_DIR", "SUMMARY_KEYS", "AlgorithmValues", "Claim", "Networking20Config",
           "Networking20Result", "SettingReport", "claim_row", "default_traces_dir", "exact_reach", "run",
           "setting_name", "sweep_spec", "to_json"]
