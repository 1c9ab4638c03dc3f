"""The explicit registry of openshop algorithms, in the one registry shape (`fairsched._registry`):
`policies/__init__.py` imports every module by name.

Every algorithm is a function ``f(instance, *, seed=0, utilities="equal", **params) -> OpenShopSchedule``; its
entry's tags say how the online engine runs it (`OpenShopTags`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fairsched._registry import Entry, Registry
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule

Algorithm = Callable[..., OpenShopSchedule]


@dataclass(frozen=True)
class OpenShopTags:
    """Capabilities of an openshop algorithm.

    Attributes
    ----------
    event_driven : a list scheduler that already respects arrivals without preemption (FIFO, SPTF, LUF): online
        it runs as it is, instead of re-planning at interval boundaries (`fairsched.openshop.online`).
    """

    event_driven: bool = False


ALGORITHMS = Registry("openshop algorithm", normalize=lambda name: name.replace("-", "_"))
"""name -> `fairsched._registry.Entry` (plug-in = the function, tags = its `OpenShopTags`)."""


def register(name: str, algorithm: Algorithm, *, event_driven: bool = False) -> Algorithm:
    """Record `algorithm` under `name` (module level, once per algorithm); see `OpenShopTags` for the tag."""
    return ALGORITHMS.add(name, algorithm, tags=OpenShopTags(event_driven=event_driven))


def algorithm_names() -> list[str]:
    """Registered algorithm names, in registration order."""
    return ALGORITHMS.names()


def get_algorithm(name: str | Algorithm) -> Entry:
    """The registry entry called `name` (case-insensitive), or an untagged entry for a callable."""
    if callable(name):
        return Entry(getattr(name, "__name__", "custom"), name, OpenShopTags())
    return ALGORITHMS.entry(name)


def lazy_exact(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal",
               **params: Any) -> OpenShopSchedule:
    """Exact lexicographic optimum: `fairsched.openshop.policies.exact.exact`, imported on first use.

    The lazy import keeps the registry (and every other algorithm) from loading the MILP model code until an exact
    reference is asked for.
    """
    from fairsched.openshop.policies.exact import exact as _exact

    return _exact(instance, seed=seed, utilities=utilities, **params)
