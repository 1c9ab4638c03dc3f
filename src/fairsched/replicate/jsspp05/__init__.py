"""JSSPP'05 §4–§5 (Sabin & Sadayappan): unfairness of 3 queue orders × 3 reservation depths at 5 offered loads.

The front door is ``run(JSSPP05Config(...)) -> JSSPP05Result`` (docs/replication/jsspp05.md). The folder holds:

* `fairsched.replicate.jsspp05.paper`: the set-up and the paper's tables, the configuration and its checks;
* `fairsched.replicate.jsspp05.replication`: ``run`` through the sweep layer, Table 2's Spearman correlations;
* `fairsched.replicate.jsspp05.cell`: one simulation, the sweep's model (``specs/jsspp05*.toml``);
* `fairsched.replicate.jsspp05.ablations`: the runs behind the doc (run it with ``python -m``);
* `fairsched.replicate.jsspp05.doc` and ``doc_values``: the doc's tables and numbers in the prose.
"""

from fairsched.replicate._common import SPECS_DIR, default_traces_dir
from fairsched.replicate.jsspp05.paper import (
    ALL_WIDTHS,
    DEPTHS,
    GRIDS,
    LOADS,
    METRICS,
    ORDERS,
    OSC_GRID,
    PAPER_TABLE1,
    PAPER_TABLE2,
    QUICK_LOADS,
    QUICK_TRACES,
    SUBSET_SCHEMES,
    TRACES,
    WIDTH_LOADS,
    JSSPP05Config,
    check_config,
)
from fairsched.replicate.jsspp05.replication import (
    JSSPP05Result,
    arrival_subsets,
    run,
    spearman_rho,
    subset_correlations,
    sweep_spec,
    trace_paths,
)

__all__ = ["ALL_WIDTHS", "DEPTHS", "GRIDS", "LOADS", "METRICS", "ORDERS", "OSC_GRID", "PAPER_TABLE1", "PAPER_TABLE2",
           "QUICK_LOADS", "QUICK_TRACES", "SPECS_DIR", "SUBSET_SCHEMES", "TRACES", "WIDTH_LOADS", "JSSPP05Config",
           "JSSPP05Result", "arrival_subsets", "check_config", "default_traces_dir", "run", "spearman_rho",
           "subset_correlations", "sweep_spec", "trace_paths"]
