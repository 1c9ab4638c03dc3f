"""The MOSP algorithms by name, in the one registry shape (`fairsched._registry`) (TPDS'11 §4–§7).

Every entry's plug-in is called as ``f(instance, *, local_order="hf", seed=0, **params) -> MospSchedule``, with
the entry's registered parameters (e.g. MOCCA(α)'s ``alpha``) overridable through `fairsched.mosp.solve`. MOCCA's
modules (`mocca`, `mocca_exp`) are imported inside the entries that use them, so that the table and the other
algorithms load without them.
"""

from __future__ import annotations

from fairsched._registry import Entry, Registry
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.policies.ilba import ilba
from fairsched.mosp.policies.local import local_schedule
from fairsched.mosp.policies.mocca_alpha import mocca_alpha


def _local(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """Every cluster runs its own jobs (§7.1 "local")."""
    return local_schedule(instance, order=local_order, seed=seed)


def _mocca(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """MOCCA, the formal Algorithms 1–3 (§4.3)."""
    from fairsched.mosp.policies.mocca import mocca

    return mocca(instance, local_order=local_order, seed=seed)


def _mocca_exp(instance: MospInstance, *, local_order: str = "hf", seed: int = 0, alpha: float = 3.0) -> MospSchedule:
    """MOCCA as run in the experiments (§7.1): phases 2 and 3 backwards from αLB (α = 3), then compaction."""
    from fairsched.mosp.policies.mocca_exp import mocca_experimental

    return mocca_experimental(instance, local_order=local_order, seed=seed, alpha=alpha)


def _mocca_alpha(instance: MospInstance, *, local_order: str = "hf", seed: int = 0, alpha: float = 4.0) -> MospSchedule:
    """MOCCA(α) (§5.2, Algorithm 4); registered as ``mocca4`` with α = 4."""
    return mocca_alpha(instance, alpha=alpha, local_order=local_order, seed=seed)


def _ilba(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """ILBA applied to the local schedule (§6; a 2-approximation for sequential jobs, Prop. 12)."""
    return ilba(instance, _local(instance, local_order=local_order, seed=seed))


def _mocca_ilba(instance: MospInstance, *, local_order: str = "hf", seed: int = 0, alpha: float = 3.0) -> MospSchedule:
    """ILBA applied to MOCCA's experimental variant (§7.1, the paper's best)."""
    return ilba(instance, _mocca_exp(instance, local_order=local_order, seed=seed, alpha=alpha))


ALGORITHMS = Registry("MOSP algorithm")
"""name -> `fairsched._registry.Entry` (plug-in = the function; params = its registered parameters)."""
ALGORITHMS.add("local", _local)
ALGORITHMS.add("mocca", _mocca)
ALGORITHMS.add("mocca-exp", _mocca_exp, params={"alpha": 3.0})
ALGORITHMS.add("mocca4", _mocca_alpha, params={"alpha": 4.0})
ALGORITHMS.add("ilba", _ilba)
ALGORITHMS.add("mocca+ilba", _mocca_ilba, params={"alpha": 3.0})


def get_algorithm(name: str) -> Entry:
    """The registry entry `name` (case-insensitive); `UnknownPolicyError` listing the names otherwise."""
    return ALGORITHMS.entry(name)
