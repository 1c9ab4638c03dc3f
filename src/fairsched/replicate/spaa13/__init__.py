"""SPAA'13 §6.3 (Skowron & Rzadca): Δψ/p_tot against REF for k = 2..10 organizations (Figs. 4–5) and on two
traces (the §6.3.2 table).

The front door is ``run(SPAA13Config(...)) -> OnlineReplicationResult`` (docs/replication/spaa13.md); the windows
machinery it shares with PPAM'13 is `fairsched.replicate._online_windows`. The folder holds:

* `fairsched.replicate.spaa13.paper`: the set-up, the policies, the paper's values, the configuration;
* `fairsched.replicate.spaa13.replication`: ``run`` through the sweep layer, the per-window table and rows;
* `fairsched.replicate.spaa13.cell`: a run of windows of one point, the sweeps' model (``specs/spaa13-*.toml``);
* `fairsched.replicate.spaa13.doc` (tables, figures, ``python -m`` to ship a run) and ``doc_values`` (the
  numbers in the prose).
"""

from fairsched.replicate._common import SPECS_DIR
from fairsched.replicate._online_windows import OnlineReplicationResult, to_json
from fairsched.replicate.spaa13.paper import (
    CHUNK,
    FIG_AVERAGE,
    FIG_CONFIGS,
    FIG_LENGTH,
    FIG_POLICIES,
    KS,
    PAPER_FIG,
    PAPER_NAME,
    PAPER_TABLE,
    QUICK_KS,
    SPLITS,
    TABLE_LENGTH,
    TABLE_POLICIES,
    SPAA13Config,
    check_config,
)
from fairsched.replicate.spaa13.replication import run, sweep_specs, table_rows, windows_frame

__all__ = ["CHUNK", "FIG_AVERAGE", "FIG_CONFIGS", "FIG_LENGTH", "FIG_POLICIES", "KS", "PAPER_FIG", "PAPER_NAME",
           "PAPER_TABLE", "QUICK_KS", "SPECS_DIR", "SPLITS", "TABLE_LENGTH", "TABLE_POLICIES",
           "OnlineReplicationResult", "SPAA13Config", "check_config", "run", "sweep_specs", "table_rows", "to_json",
           "windows_frame"]
