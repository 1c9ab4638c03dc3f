"""The MOSP algorithms by name: a dispatch table of plain functions (TPDS'11 §4–§7).

Every entry is called as ``f(instance, *, local_order="hf", seed=0) -> MospSchedule`` and names its result after
its key. MOCCA's modules (`mocca`, `mocca_exp`) are imported inside the entries that use them, so that the table
and the other algorithms load without them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from fairsched.errors import UnknownPolicyError
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.policies.ilba import ilba
from fairsched.mosp.policies.local import local_schedule
from fairsched.mosp.policies.mocca_alpha import mocca_alpha

Algorithm = Callable[..., MospSchedule]


def _local(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """Every cluster runs its own jobs (§7.1 "local")."""
    return local_schedule(instance, order=local_order, seed=seed)


def _mocca(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """MOCCA, the formal Algorithms 1–3 (§4.3)."""
    from fairsched.mosp.policies.mocca import mocca

    return mocca(instance, local_order=local_order, seed=seed)


def _mocca_exp(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """MOCCA as run in the experiments (§7.1): phases 2 and 3 backwards from 3LB, then compaction."""
    from fairsched.mosp.policies.mocca_exp import mocca_experimental

    return mocca_experimental(instance, local_order=local_order, seed=seed)


def _mocca4(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """MOCCA(4) (§5.2, Algorithm 4)."""
    return mocca_alpha(instance, alpha=4.0, local_order=local_order, seed=seed)


def _ilba(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """ILBA applied to the local schedule (§6; a 2-approximation for sequential jobs, Prop. 12)."""
    return ilba(instance, _local(instance, local_order=local_order, seed=seed))


def _mocca_ilba(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """ILBA applied to MOCCA's experimental variant (§7.1, the paper's best)."""
    return ilba(instance, _mocca_exp(instance, local_order=local_order, seed=seed))


def _named(name: str, function: Callable[..., MospSchedule]) -> Algorithm:
    def run(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
        return replace(function(instance, local_order=local_order, seed=seed), algorithm=name)

    run.__name__ = run.__qualname__ = name.replace("-", "_").replace("+", "_")
    run.__doc__ = function.__doc__
    return run


ALGORITHMS: dict[str, Algorithm] = {name: _named(name, f) for name, f in (
    ("local", _local),
    ("mocca", _mocca),
    ("mocca-exp", _mocca_exp),
    ("mocca4", _mocca4),
    ("ilba", _ilba),
    ("mocca+ilba", _mocca_ilba),
)}


def get_algorithm(name: str) -> Algorithm:
    """The registered algorithm `name` (case-insensitive); `UnknownPolicyError` listing the names otherwise."""
    key = name.strip().lower()
    if key not in ALGORITHMS:
        raise UnknownPolicyError(f"unknown MOSP algorithm {name!r}; choose one of: {', '.join(ALGORITHMS)}")
    return ALGORITHMS[key]
