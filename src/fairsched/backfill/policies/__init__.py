"""Queue orders and backfilling rules of the backfilling model, one module each, imported here by name.

Orders: ``fcfs``, ``sjf``, ``lxf``; ticked orders (keys recomputed every ``calc_period``): ``drf``,
``directcontr``, ``slurm-fair-tree``, ``slurm-classic``. Backfilling rules: ``none``, ``no-guarantee``,
``easy``, ``conservative``, ``slurm`` (Slurm's main and backfill schedulers, `slurm_rule.slurm_rule` sets its
parameters; see docs/backfill.md). Any order combines with any rule.
"""

from fairsched import _names
from fairsched.backfill.policies import (  # noqa: F401
    conservative,
    directcontr,
    drf,
    easy,
    fcfs,
    lxf,
    no_guarantee,
    none,
    sjf,
    slurm_classic,
    slurm_fair_tree,
    slurm_rule,
)
from fairsched.backfill.registry import (
    BACKFILLS,
    ORDERS,
    backfill_names,
    get_backfill,
    get_order,
    order_names,
)

# the lists the CLI's --help shows (ticked orders need organizations and shares: not offered by `backfill`)
ORDERS.check_listed(_names.QUEUE_ORDERS + _names.TICKED_ORDERS, "QUEUE_ORDERS + TICKED_ORDERS")
BACKFILLS.check_listed(_names.BACKFILL_RULES, "BACKFILL_RULES")

__all__ = ["BACKFILLS", "ORDERS", "backfill_names", "get_backfill", "get_order", "order_names"]
