"""Explicit registry of online policies: `policies/__init__.py` imports every policy module by name."""

from __future__ import annotations

from collections.abc import Callable

from fairsched._registry import Registry
from fairsched.online.view import OnlinePolicy, Tags

REGISTRY = Registry("online policy", sort_key=lambda entry: entry.name)
"""name -> `fairsched._registry.Entry` (plug-in = the policy class, tags = its `Tags`)."""


def register(name: str, *, tags: Tags) -> Callable[[type], type]:
    """Class decorator: record the policy under `name` with its capability `tags`."""

    def wrap(cls: type) -> type:
        cls.name = name
        cls.tags = tags
        return REGISTRY.add(name, cls, tags=tags)

    return wrap


def get_policy(name: str, **params: object) -> OnlinePolicy:
    """A fresh policy object; `params` are its keyword hyper-parameters."""
    return REGISTRY.entry(name).plugin(**params)
