"""Queue orders and backfilling rules of the backfilling model, one module each, imported here by name.

Orders: ``fcfs``, ``sjf``, ``lxf``. Backfilling rules: ``none``, ``no-guarantee``, ``easy``, ``conservative``
(see docs/backfill.md). Any order combines with any rule.
"""

from fairsched.backfill.policies import conservative, easy, fcfs, lxf, no_guarantee, none, sjf  # noqa: F401
from fairsched.backfill.registry import (
    BACKFILLS,
    ORDERS,
    backfill_names,
    get_backfill,
    get_order,
    order_names,
)

__all__ = ["BACKFILLS", "ORDERS", "backfill_names", "get_backfill", "get_order", "order_names"]
