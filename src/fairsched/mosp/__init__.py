"""The multi-organization scheduling problem (MOSP) and its algorithms.

Reference: P.-F. Dutot, F. Pascual, K. Rzadca, D. Trystram, "Approximation algorithms for the
multi-organization scheduling problem", IEEE TPDS 22(11), 2011.

N organizations each own a cluster and submit rigid parallel jobs; schedules share the clusters so that the
global makespan improves while no organization finishes later than alone (the local constraint). Front door:
`solve`; the pieces: `instance` (the model), `engine` (list scheduling, idle profiles), `policies` (the
algorithms), `metrics` (makespans, score), and `fairsched.mosp.validate.check_mosp_schedule` (independent checks).
"""

from __future__ import annotations

from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.metrics import local_makespans, makespan, org_makespans, score
from fairsched.mosp.policies import ALGORITHMS, get_algorithm

__all__ = ["ALGORITHMS", "MospInstance", "MospSchedule", "local_makespans", "makespan", "org_makespans", "score",
           "solve"]


def solve(instance: MospInstance, algorithm: str = "mocca+ilba", *, local_order: str = "hf",
          seed: int = 0) -> MospSchedule:
    """Schedule `instance` with the registered `algorithm` (`ALGORITHMS`; `UnknownPolicyError` lists the names).

    `local_order` (hf, lpt, spt, rnd) is the local policy the algorithm starts from, `seed` seeds ``rnd``.

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[1, 1], owner=[0, 0], runtime=[2, 2], width=[1, 1])
    >>> s = solve(inst, "ilba")
    >>> s.cluster.tolist(), s.start.tolist(), s.algorithm
    ([1, 0], [0, 0], 'ilba')
    """
    return get_algorithm(algorithm)(instance, local_order=local_order, seed=seed)
