"""Explicit registries of queue orders and backfilling rules: `policies/__init__.py` imports every module by name."""

from __future__ import annotations

from fairsched.backfill.view import BackfillRule, QueueOrder
from fairsched.errors import UnknownPolicyError

ORDERS: dict[str, QueueOrder] = {}
BACKFILLS: dict[str, BackfillRule] = {}


def register_order(order: QueueOrder) -> QueueOrder:
    """Record a queue order under its name (module level, once per policy module)."""
    if order.name in ORDERS or any(o.code == order.code for o in ORDERS.values()):
        raise ValueError(f"queue order {order.name!r} (code {order.code}) registered twice")
    ORDERS[order.name] = order
    return order


def register_backfill(rule: BackfillRule) -> BackfillRule:
    """Record a backfilling rule under its name (module level, once per policy module)."""
    if rule.name in BACKFILLS or any(r.code == rule.code for r in BACKFILLS.values()):
        raise ValueError(f"backfilling rule {rule.name!r} (code {rule.code}) registered twice")
    BACKFILLS[rule.name] = rule
    return rule


def order_names() -> list[str]:
    """Registered queue orders, by code (``fcfs, sjf, lxf``)."""
    return sorted(ORDERS, key=lambda name: ORDERS[name].code)


def backfill_names() -> list[str]:
    """Registered backfilling rules, by code (``none, no-guarantee, easy, conservative``)."""
    return sorted(BACKFILLS, key=lambda name: BACKFILLS[name].code)


def get_order(name: str | QueueOrder) -> QueueOrder:
    """The registered queue order called `name` (case-insensitive); UnknownPolicyError lists the choices."""
    if isinstance(name, QueueOrder):
        return name
    key = str(name).strip().lower()
    if key not in ORDERS:
        raise UnknownPolicyError(f"unknown queue order {name!r}; choose one of: {', '.join(order_names())}")
    return ORDERS[key]


def get_backfill(name: str | BackfillRule) -> BackfillRule:
    """The registered backfilling rule called `name` (case-insensitive; ``no_guarantee`` = ``no-guarantee``)."""
    if isinstance(name, BackfillRule):
        return name
    key = str(name).strip().lower().replace("_", "-")
    if key not in BACKFILLS:
        raise UnknownPolicyError(f"unknown backfilling rule {name!r}; choose one of: {', '.join(backfill_names())}")
    return BACKFILLS[key]
