"""Online policies, one module per algorithm; every module is imported here by name (no auto-discovery).

Registered names: ``roundrobin``, ``fairshare``, ``utfairshare``, ``currfairshare``, ``directcontr``
(see docs/online-policies.md).
"""

from fairsched.online.policies import currfairshare, directcontr, fairshare, roundrobin, utfairshare  # noqa: F401
from fairsched.online.policies._registry import REGISTRY, get_policy, register

__all__ = ["REGISTRY", "get_policy", "register"]
