"""Queue orders and backfilling rules of the backfilling model, one module each, imported here by name.

Orders: ``fcfs``, ``sjf``, ``lxf``; ticked orders (keys recomputed every ``calc_period``): ``drf``,
``directcontr``. Backfilling rules: ``none``, ``no-guarantee``, ``easy``, ``conservative``
(see docs/backfill.md). Any order combines with any rule.
"""

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
)
from fairsched.backfill.policies._registry import (
    BACKFILLS,
    ORDERS,
    backfill_names,
    get_backfill,
    get_order,
    order_names,
)

__all__ = ["BACKFILLS", "ORDERS", "backfill_names", "get_backfill", "get_order", "order_names"]
