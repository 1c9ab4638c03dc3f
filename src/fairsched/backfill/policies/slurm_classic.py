"""``slurm-classic``: Slurm's multifactor priority with classic fair-share (``PriorityFlags=NO_FAIR_TREE``),
recomputed at each ``PriorityCalcPeriod`` tick.

The same as ``slurm-fair-tree`` (`fairsched.backfill.policies.slurm_fair_tree`: usage decay and accumulation,
priority, ranking, parameters) with the fair-share factor of `fairsched.fairshare.classic`:
F = 2^(−UE / S / FairShareDampeningFactor), UE the effective usage and S the normalized shares of the job's
user association. One more parameter: ``damping`` (``FairShareDampeningFactor``, default 1, Slurm's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairsched.backfill.policies._slurm import CLASSIC, prepare
from fairsched.backfill.registry import register_order
from fairsched.backfill.view import ORDER_SLURM_CLASSIC, QueueOrder, TickSetup


def _prepare(jobs: Any, params: Mapping[str, Any]) -> TickSetup:
    return prepare("slurm-classic", CLASSIC, jobs, params)


SLURM_CLASSIC = register_order(QueueOrder(
    name="slurm-classic", code=ORDER_SLURM_CLASSIC, ticked=True, prepare=_prepare,
    summary="Slurm multifactor priority with classic fair-share (usage decayed, recomputed at ticks)"))
