"""Online policies, one module per algorithm; every module is imported here by name (no auto-discovery)."""

from fairsched.online.policies import roundrobin  # noqa: F401
from fairsched.online.policies._registry import REGISTRY, get_policy, register

__all__ = ["REGISTRY", "get_policy", "register"]
