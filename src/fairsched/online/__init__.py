"""The online multi-organization model of Skowron & Rzadca (SPAA'13, PPAM'13).

Front door: ``simulate(scenario, get_policy(name), seed=...) -> OnlineResult`` (``schedule`` and ``meta``); the
registered policies are `REGISTRY` (`fairsched._registry`); the experiment contract is `fairsched.online.experiment`.
"""

from fairsched.online.engine import OnlineResult, simulate
from fairsched.online.policies import REGISTRY, get_policy

__all__ = ["REGISTRY", "OnlineResult", "get_policy", "simulate"]
