"""Online policies, one module per algorithm; every module is imported here by name (no auto-discovery).

Registered names: ``roundrobin``, ``fairshare``, ``utfairshare``, ``currfairshare``, ``directcontr``, and the
clairvoyant benchmarks ``ref``, ``ref-literal``, ``rand``, ``rand-antithetic``, ``rand-stratified``
(see docs/online-policies.md).
"""

from fairsched import _names
from fairsched.online.policies import (  # noqa: F401
    currfairshare,
    directcontr,
    fairshare,
    rand,
    ref,
    roundrobin,
    utfairshare,
)
from fairsched.online.policies._registry import REGISTRY, get_policy, register

REGISTRY.check_listed(_names.ONLINE_POLICIES, "ONLINE_POLICIES")  # the list the CLI's --help shows

__all__ = ["REGISTRY", "get_policy", "register"]
