"""``slurm-fair-tree``: Slurm's multifactor priority with Fair Tree fair-share (Slurm's default since 19.05),
recomputed at each ``PriorityCalcPeriod`` tick.

Implements, inside the backfilling model (one cluster; organizations = accounts), what Slurm's
``priority/multifactor`` plugin does every ``PriorityCalcPeriod``: decay every association's usage and add the
running jobs' usage (`fairsched.fairshare.decay.replay_usage`), compute Fair Tree's fair-share factor of every
user association (`fairsched.fairshare.fair_tree`), then the priority of every pending job
(`fairsched.fairshare.job_priority`): W_age · age + W_fairshare · fairshare + W_jobsize · job_size, floored at 1,
truncated to an integer. Waiting jobs are ranked by priority, highest first, ties by submission (Slurm: submit
time, then job id). A job submitted between ticks gets its priority at submission, with age 0 and the factors
of the last tick, as in Slurm.

Parameters (``order_params``; `fairsched.backfill.policies._slurm` gives each in full):
``org`` (account of each job; one user association per account) and ``shares`` (integer raw shares per
account, default 1), or ``tree`` (a ``ShareTree``) and ``assoc`` (each job's user association in it);
``calc_period`` (300 s), ``half_life`` (604800 s), ``reset_period`` ("none"), ``weights``
({"fairshare": 10000, "age": 1000, "jobsize": 0}), ``max_age`` (604800 s), ``favor_small`` (False),
``billing`` (per job; default its processors).

Deviations from Slurm: one partition and no QOS (their factors are 0), no nice values, no ``PriorityWeightTRES``;
a job's eligible time is its submission; the job-size factor counts one CPU per node. docs/whatif.md has the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairsched.backfill.policies._slurm import FAIR_TREE, prepare
from fairsched.backfill.registry import register_order
from fairsched.backfill.view import ORDER_SLURM_FAIR_TREE, QueueOrder, TickSetup


def _prepare(jobs: Any, params: Mapping[str, Any]) -> TickSetup:
    return prepare("slurm-fair-tree", FAIR_TREE, jobs, params)


SLURM_FAIR_TREE = register_order(QueueOrder(
    name="slurm-fair-tree", code=ORDER_SLURM_FAIR_TREE, ticked=True, prepare=_prepare,
    summary="Slurm multifactor priority with Fair Tree fair-share (usage decayed, recomputed at ticks)"))
