"""The explicit registry of openshop algorithms: `policies/__init__.py` imports every module by name.

Every algorithm is a function ``f(instance, *, seed=0, utilities="equal", **params) -> OpenShopSchedule``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fairsched.errors import UnknownPolicyError
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule

Algorithm = Callable[..., OpenShopSchedule]

ALGORITHMS: dict[str, Algorithm] = {}


def register(name: str, algorithm: Algorithm, *, event_driven: bool = False) -> Algorithm:
    """Record `algorithm` under `name` (module level, once per algorithm).

    `event_driven` tags the list schedulers that already respect arrivals without preemption (FIFO, SPTF, LUF):
    online they run as they are, instead of re-planning at interval boundaries (`fairsched.openshop.online`).
    """
    if name in ALGORITHMS:
        raise ValueError(f"openshop algorithm {name!r} registered twice")
    algorithm.event_driven = event_driven  # type: ignore[attr-defined]
    ALGORITHMS[name] = algorithm
    return algorithm


def algorithm_names() -> list[str]:
    """Registered algorithm names, in registration order."""
    return list(ALGORITHMS)


def get_algorithm(name: str | Algorithm) -> Algorithm:
    """The registered algorithm called `name` (case-insensitive), or `name` itself when it is a callable."""
    if callable(name):
        return name
    key = str(name).strip().lower().replace("-", "_")
    if key not in ALGORITHMS:
        raise UnknownPolicyError(f"unknown openshop algorithm {name!r}; choose one of: {', '.join(ALGORITHMS)}")
    return ALGORITHMS[key]


def lazy_exact(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal",
               **params: Any) -> OpenShopSchedule:
    """Exact lexicographic optimum: `fairsched.openshop.policies.exact.exact`, imported on first use.

    The lazy import keeps the registry (and every other algorithm) usable without the exact solvers' extra
    dependency (highspy).
    """
    from fairsched.openshop.policies.exact import exact as _exact

    return _exact(instance, seed=seed, utilities=utilities, **params)
