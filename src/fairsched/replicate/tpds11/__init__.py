"""TPDS'11 §7 (Dutot, Pascual, Rzadca, Trystram): scores of local scheduling, MOCCA and MOCCA+ILBA on random MOSP
instances.

The front door is ``run(TPDS11Config(...)) -> TPDS11Result`` (docs/replication/tpds11.md). The folder holds:

* `fairsched.replicate.tpds11.paper`: the grids, the paper's values and notes, the configuration and its checks;
* `fairsched.replicate.tpds11.instances`: one instance, its seed and the scores of every algorithm on it;
* `fairsched.replicate.tpds11.replication`: ``run`` through the sweep layer, the aggregate rows, ``to_json``;
* `fairsched.replicate.tpds11.cell`: one combination's instances, the sweeps' model (``specs/tpds11-*.toml``);
* `fairsched.replicate.tpds11.ablations`: the runs behind the doc (run it with ``python -m``);
* `fairsched.replicate.tpds11.doc` and ``doc_values``: the doc's tables and numbers in the prose.
"""

from fairsched.replicate._common import SPECS_DIR
from fairsched.replicate.tpds11.instances import InstanceSpec, build_instance, instance_seed, solve_instance
from fairsched.replicate.tpds11.paper import (
    ALL,
    DISTS,
    EXPERIMENTS,
    JOBS,
    LOCAL_ORDERS,
    OPTIMAL_TOLERANCE,
    ORGS,
    PAPER,
    PAPER_NOTES,
    PROCS,
    TPDS11Config,
    check_config,
)
from fairsched.replicate.tpds11.replication import TPDS11Result, aggregate, run, sweep_specs, to_json

__all__ = ["ALL", "DISTS", "EXPERIMENTS", "JOBS", "LOCAL_ORDERS", "OPTIMAL_TOLERANCE", "ORGS", "PAPER", "PAPER_NOTES",
           "PROCS", "SPECS_DIR", "InstanceSpec", "TPDS11Config", "TPDS11Result", "aggregate", "build_instance",
           "check_config", "instance_seed", "run", "solve_instance", "sweep_specs", "to_json"]
