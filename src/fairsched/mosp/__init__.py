"""The multi-organization scheduling problem (MOSP) and its algorithms.

Reference: P.-F. Dutot, F. Pascual, K. Rzadca, D. Trystram, "Approximation algorithms for the
multi-organization scheduling problem", IEEE TPDS 22(11), 2011.

N organizations each own a cluster and submit rigid parallel jobs; schedules share the clusters so that the
global makespan improves while no organization finishes later than alone (the local constraint). Front door:
`solve`; the pieces: `instance` (the model), `engine` (list scheduling, idle profiles), `policies` (the
algorithms), `metrics` (makespans, score), and `fairsched.mosp.validate.validate_mosp_schedule` (independent checks).
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

import fairsched
from fairsched.errors import ConfigError, PolicyError
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.metrics import local_makespans, makespan, org_makespans, score
from fairsched.mosp.policies import ALGORITHMS, get_algorithm

__all__ = ["ALGORITHMS", "MospInstance", "MospSchedule", "local_makespans", "makespan", "org_makespans", "score",
           "solve"]


def solve(instance: MospInstance, algorithm: str = "mocca+ilba", *, local_order: str = "hf",
          seed: int = 0, **params: Any) -> MospSchedule:
    """Schedule `instance` with the registered `algorithm` (`ALGORITHMS`; `UnknownPolicyError` lists the names).

    `local_order` (hf, lpt, spt, rnd) is the local policy the algorithm starts from, `seed` seeds ``rnd``;
    `params` override the entry's registered parameters (e.g. ``alpha`` of ``mocca-exp``, ``mocca4`` and
    ``mocca+ilba``; TPDS'11 §5.2, §7.3); another name is a `ConfigError` listing the algorithm's parameters.
    The schedule carries ``meta`` (algorithm, parameters, local order, seed, fairsched version).

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[1, 1], owner=[0, 0], runtime=[2, 2], width=[1, 1])
    >>> s = solve(inst, "ilba")
    >>> s.cluster.tolist(), s.start.tolist(), s.algorithm
    ([1, 0], [0, 0], 'ilba')
    """
    entry = get_algorithm(algorithm)
    accepted = set(inspect.signature(entry.plugin).parameters) - {"instance", "local_order", "seed"}
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise ConfigError(f"MOSP algorithm {entry.name!r} takes no parameter {', '.join(unknown)}; its parameters: "
                          f"{', '.join(sorted(accepted)) or 'none'}")
    parameters = {**entry.params, **params}
    schedule = entry.plugin(instance, local_order=local_order, seed=seed, **parameters)
    if not isinstance(schedule, MospSchedule):
        raise PolicyError(f"MOSP algorithm {entry.name!r} returned {type(schedule).__name__}; an algorithm returns "
                          "one MospSchedule (docs/contributing.md, How to add a policy, mosp)")
    return replace(schedule, algorithm=entry.name,
                   meta={"algorithm": entry.name, "parameters": parameters, "local_order": local_order,
                         "seed": seed, "fairsched_version": fairsched.__version__})
