"""Explicit registries of queue orders and backfilling rules: `policies/__init__.py` imports every module by name.

The registries sit beside the view, below both the engine and the policies: each policy module registers its
descriptor here, and the engine resolves a name here without importing `fairsched.backfill.policies` (engines never
import policies). The engine's compiled loop is bound to the policy kernels through
`fairsched.backfill.policies._dispatch` (numba switches on the descriptors' integer codes), so every policy is
registered once the engine is imported. `fairsched.backfill.policies` re-exports these names.
"""

from __future__ import annotations

from fairsched._registry import Registry
from fairsched.backfill.view import BackfillRule, QueueOrder

ORDERS = Registry("queue order", sort_key=lambda entry: entry.plugin.code)
"""name -> `fairsched._registry.Entry` (plug-in = tags = the `QueueOrder` descriptor), listed by code."""
BACKFILLS = Registry("backfilling rule", sort_key=lambda entry: entry.plugin.code,
                     normalize=lambda name: name.replace("_", "-"))
"""name -> `fairsched._registry.Entry` (plug-in = tags = the `BackfillRule` descriptor), listed by code."""


def register_order(order: QueueOrder) -> QueueOrder:
    """Record a queue order under its name (module level, once per policy module)."""
    if any(entry.plugin.code == order.code for entry in ORDERS.values()):
        raise ValueError(f"queue order {order.name!r} (code {order.code}) registered twice")
    return ORDERS.add(order.name, order, tags=order)


def register_backfill(rule: BackfillRule) -> BackfillRule:
    """Record a backfilling rule under its name (module level, once per policy module)."""
    if any(entry.plugin.code == rule.code for entry in BACKFILLS.values()):
        raise ValueError(f"backfilling rule {rule.name!r} (code {rule.code}) registered twice")
    return BACKFILLS.add(rule.name, rule, tags=rule)


def order_names(*, ticked: bool | None = None) -> list[str]:
    """Registered queue orders, by code (``fcfs, sjf, lxf, drf, directcontr``); ``ticked=False``: only the
    orders whose keys never change while a job waits or change with time alone (``fcfs, sjf, lxf``), True: only
    the ticked ones."""
    return [name for name in ORDERS.names() if ticked is None or ORDERS.entry(name).plugin.ticked == ticked]


def backfill_names() -> list[str]:
    """Registered backfilling rules, by code (``none, no-guarantee, easy, conservative``)."""
    return BACKFILLS.names()


def get_order(name: str | QueueOrder) -> QueueOrder:
    """The registered queue order called `name` (case-insensitive); UnknownPolicyError lists the choices."""
    if isinstance(name, QueueOrder):
        return name
    return ORDERS.entry(name).plugin


def get_backfill(name: str | BackfillRule) -> BackfillRule:
    """The registered backfilling rule called `name` (case-insensitive; ``no_guarantee`` = ``no-guarantee``)."""
    if isinstance(name, BackfillRule):
        return name
    return BACKFILLS.entry(name).plugin
