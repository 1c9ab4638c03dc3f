"""Explicit registry of online policies: `policies/__init__.py` imports every policy module by name."""

from __future__ import annotations

from collections.abc import Callable

from fairsched.errors import UnknownPolicyError
from fairsched.online.view import OnlinePolicy, Tags

REGISTRY: dict[str, type] = {}


def register(name: str, *, tags: Tags) -> Callable[[type], type]:
    """Class decorator: record the policy under `name` with its capability `tags`."""

    def wrap(cls: type) -> type:
        if name in REGISTRY:
            raise ValueError(f"online policy {name!r} registered twice")
        cls.name = name
        cls.tags = tags
        REGISTRY[name] = cls
        return cls

    return wrap


def get_policy(name: str, **params: object) -> OnlinePolicy:
    """A fresh policy object; `params` are its keyword hyper-parameters."""
    key = name.strip().lower()
    if key not in REGISTRY:
        raise UnknownPolicyError(f"unknown online policy {name!r}; choose one of: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[key](**params)
