"""One registry shape for the four models' plug-ins: name -> `Entry` (the plug-in, its tags, its parameters).

Every model registers its policies or algorithms explicitly (its ``policies/__init__.py`` imports each module by
name) into one `Registry`:

* online: policy classes, tags `fairsched.online.view.Tags` (clairvoyant, randomized, greedy);
* backfill: queue-order and backfilling-rule descriptors (`fairsched.backfill.view`), two registries;
* mosp: algorithm functions ``f(instance, *, local_order, seed, **params)``, parameters such as MOCCA(α)'s
  ``alpha``;
* openshop: algorithm functions ``f(instance, *, seed, utilities, **params)``, tags
  `fairsched.openshop.policies._registry.OpenShopTags` (event_driven).

Looking a name up is case-insensitive and an unknown name is one `UnknownPolicyError` listing the choices.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from fairsched.errors import InvariantError, UnknownPolicyError


@dataclass(frozen=True)
class Entry:
    """A registered plug-in.

    Attributes
    ----------
    name : the registered name.
    plugin : the class, descriptor or function.
    tags : capabilities the contract tests and the engines read (a small frozen dataclass), or None.
    params : default keyword parameters the front door passes to the plug-in (e.g. ``{"alpha": 4.0}``).
    """

    name: str
    plugin: Any
    tags: Any = None
    params: Mapping[str, Any] = field(default_factory=dict)


class Registry(Mapping[str, Entry]):
    """Registered plug-ins of one kind, in the order `names` lists them (registration order unless a `sort_key`).

    >>> r = Registry("toy algorithm")
    >>> _ = r.add("b", len, params={"x": 1})
    >>> r.entry(" B ").params["x"], list(r)
    (1, ['b'])
    >>> r.entry("c")
    Traceback (most recent call last):
    ...
    fairsched.errors.UnknownPolicyError: unknown toy algorithm 'c'; choose one of: b
    """

    def __init__(self, kind: str, *, sort_key: Callable[[Entry], Any] | None = None,
                 normalize: Callable[[str], str] = lambda name: name) -> None:
        self.kind = kind
        self._sort_key = sort_key
        self._normalize = normalize
        self._entries: dict[str, Entry] = {}

    def add(self, name: str, plugin: Any, *, tags: Any = None, params: Mapping[str, Any] | None = None) -> Any:
        """Record `plugin` under `name`; returns the plug-in (usable as a decorator's last step)."""
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} registered twice")
        self._entries[name] = Entry(name, plugin, tags, dict(params or {}))
        return plugin

    def entry(self, name: str) -> Entry:
        """The entry called `name` (case-insensitive, stripped); `UnknownPolicyError` lists the names."""
        key = self._normalize(str(name).strip().lower())
        if key not in self._entries:
            raise UnknownPolicyError(f"unknown {self.kind} {name!r}; choose one of: {', '.join(self.names())}")
        return self._entries[key]

    def names(self) -> list[str]:
        """Registered names, in listing order."""
        if self._sort_key is None:
            return list(self._entries)
        return [entry.name for entry in sorted(self._entries.values(), key=self._sort_key)]

    def check_listed(self, listed: tuple[str, ...], name: str) -> None:
        """Fail unless the registered names are `listed`, in order: `fairsched._names` lists them for the CLI.

        Raises
        ------
        InvariantError : naming what to add to or remove from ``fairsched._names.<name>``.
        """
        registered = self.names()
        if registered != list(listed):
            missing = [n for n in registered if n not in listed]
            extra = [n for n in listed if n not in registered]
            raise InvariantError(f"the {self.kind}s registered are {registered} but fairsched/_names.py {name} lists "
                                 f"{list(listed)} (add {missing or 'nothing'}, remove {extra or 'nothing'}, "
                                 "keep the order): the CLI's --help shows that list")

    def __getitem__(self, name: str) -> Entry:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._entries)
