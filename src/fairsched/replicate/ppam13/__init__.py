"""PPAM'13 Tables 1–2 (Skowron & Rzadca): Δψ/p_tot of six online policies against REF on random trace windows.

The front door is ``run(PPAM13Config(...)) -> OnlineReplicationResult`` (docs/replication/ppam13.md); the windows
machinery it shares with SPAA'13 is `fairsched.replicate._online_windows`. The folder holds:

* `fairsched.replicate.ppam13.paper`: the tables, policies, the paper's values, the configuration and its cells;
* `fairsched.replicate.ppam13.replication`: ``run`` through the sweep layer, the per-window table and rows;
* `fairsched.replicate.ppam13.cell`: a run of windows of one (table, trace, split), the sweep's model
  (``specs/ppam13*.toml``); `fairsched.replicate.ppam13.sweep`: the whole replication as one sweep model (the
  ablation grid as a spec, ``variants_spec``);
* `fairsched.replicate.ppam13.variants`: the ablation grid (``fairsched replicate ppam13 --variants``), and
  `fairsched.replicate.ppam13.fig1`: Fig. 1 (Δψ/p_tot against k);
* `fairsched.replicate.ppam13.doc` (tables, Fig. 1's plot: ``python -m``), ``doc_claims`` and ``doc_values``
  (the numbers in the prose).
"""

from fairsched.replicate._common import SPECS_DIR
from fairsched.replicate._online_windows import OnlineReplicationResult, to_json
from fairsched.replicate.ppam13.paper import (
    CHUNK,
    PAPER,
    PAPER_NAME,
    POLICIES,
    SWITCHES,
    TABLES,
    PPAM13Config,
    cells,
    check_config,
    policies,
)
from fairsched.replicate.ppam13.replication import run, summary_rows, sweep_spec, windows_frame

__all__ = ["CHUNK", "PAPER", "PAPER_NAME", "POLICIES", "SPECS_DIR", "SWITCHES", "TABLES", "OnlineReplicationResult",
           "PPAM13Config", "cells", "check_config", "policies", "run", "summary_rows", "sweep_spec", "to_json",
           "windows_frame"]
