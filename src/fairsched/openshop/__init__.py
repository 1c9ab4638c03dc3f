"""Multi-task jobs with max-min fair completion times: the concurrent open shop of Shafiee & Ghaderi.

Reference: M. Shafiee, J. Ghaderi, "On max-min fairness of completion times for multi-task job scheduling",
IFIP Networking 2020 (Networking'20; text in /work/shared/papers/004_c722e47fc9d723b9.txt).

m machines, n jobs; job j has a task on machine i with processing time p_ij (M_j = machines with p_ij > 0); tasks
of a job run in parallel, C_j = max_{i∈M_j} C_ij. Max-min fairness of utilities U_j(C_j) (Definition 1); with
equal utilities, lexicographic min-max of completion times (Lemma 1). By Theorem 1 one job permutation applied on
every machine suffices.

Modules: `instance` (the data), `engine` (evaluate a permutation or per-machine orders), `policies` (PBA,
generalized PBA, k-Max-Min, FIFO, SPTF, LUF, exact), `metrics`, `online` (§VII-B). The front door is `solve`.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

import fairsched
from fairsched.errors import ConfigError, PolicyError
from fairsched.openshop import online
from fairsched.openshop.engine import accepts, evaluate_permutation, evaluate_task_order
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.policies import ALGORITHMS, algorithm_names, get_algorithm
from fairsched.openshop.policies._registry import Algorithm, OpenShopTags

__all__ = [
    "ALGORITHMS",
    "OpenShopInstance",
    "OpenShopSchedule",
    "OpenShopTags",
    "algorithm_names",
    "evaluate_permutation",
    "evaluate_task_order",
    "run_online",
    "solve",
]


def solve(instance: OpenShopInstance, algorithm: str = "pba", *, utilities: str = "equal", seed: int = 0,
          k: int | None = None, **params: Any) -> OpenShopSchedule:
    """Schedule `instance` offline with the named algorithm (one of `ALGORITHMS`).

    `k` is k-Max-Min's number of optimized positions and is refused by the other algorithms; `params` go to the
    algorithm (e.g. ``eps``, ``tau``) and are checked against its signature.

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]])
    >>> solve(inst).completion.tolist(), solve(inst, "fifo").completion.tolist()
    ([2, 4, 1], [2, 3, 4])
    """
    entry = get_algorithm(algorithm)
    algo = entry.plugin
    if k is not None:
        params["k"] = k
    unknown = sorted(name for name in params if not accepts(algo, name))
    if unknown:
        options = sorted(set(inspect.signature(algo).parameters) - {"instance", "seed", "utilities"})
        raise ConfigError(f"algorithm {algorithm!r} takes no parameter {', '.join(unknown)}; its parameters: "
                          f"{', '.join(options) or 'none'}")
    schedule = algo(instance, seed=seed, utilities=utilities, **params)
    if not isinstance(schedule, OpenShopSchedule):
        raise PolicyError(f"openshop algorithm {entry.name!r} returned {type(schedule).__name__}; an algorithm "
                          "returns one OpenShopSchedule (docs/contributing.md, How to add a policy, openshop)")
    return replace(schedule, meta=_meta(entry.name, params, utilities, seed, online=False))


def run_online(instance: OpenShopInstance, algorithm: str | Algorithm = "pba", **options: Any) -> OpenShopSchedule:
    """Schedule `instance` online (Networking'20 §VII-B) with a registered algorithm or a callable; `options` are
    those of `fairsched.openshop.online.run_online` (utilities, seed, delta0, alpha, beta, time_unit, params).

    >>> inst = OpenShopInstance.from_dense([[4, 0], [1, 1], [0, 2]], arrival=[0, 0, 3])
    >>> run_online(inst, "pba", delta0=10.0, alpha=0.0).completion.tolist()   # boundaries 0, 10, 20, ...
    [5, 1, 12]
    >>> run_online(inst, "sptf").completion.tolist()
    [5, 1, 5]
    """
    entry = get_algorithm(algorithm)
    name = algorithm if isinstance(algorithm, str) else entry.name
    schedule = online.run_online(instance, entry.plugin, name=name, event_driven=entry.tags.event_driven, **options)
    parameters = {key: value for key, value in options.items() if key not in ("utilities", "seed")}
    return replace(schedule, meta=_meta(entry.name, parameters, options.get("utilities", "equal"),
                                        options.get("seed", 0), online=True))


def _meta(name: str, parameters: dict[str, Any], utilities: str, seed: int, *, online: bool) -> dict[str, Any]:
    return {"algorithm": name, "parameters": dict(parameters), "utilities": utilities, "seed": seed,
            "online": online, "fairsched_version": fairsched.__version__}
