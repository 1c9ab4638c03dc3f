"""Queue orders and backfilling rules of the backfilling model, one module each, imported here by name.

Orders: ``fcfs``, ``sjf``, ``lxf``. Backfilling rules: ``none``, ``no-guarantee``, ``easy``, ``conservative``
(see docs/backfill.md). Any order combines with any rule.
"""

from fairsched import _names
from fairsched.backfill.policies import conservative, easy, fcfs, lxf, no_guarantee, none, sjf  # noqa: F401
from fairsched.backfill.policies._registry import (
    BACKFILLS,
    ORDERS,
    backfill_names,
    get_backfill,
    get_order,
    order_names,
)

ORDERS.check_listed(_names.QUEUE_ORDERS, "QUEUE_ORDERS")  # the lists the CLI's --help shows
BACKFILLS.check_listed(_names.BACKFILL_RULES, "BACKFILL_RULES")

__all__ = ["BACKFILLS", "ORDERS", "backfill_names", "get_backfill", "get_order", "order_names"]
