"""The experiment contract every model follows, and the small helpers its four configs share.

For every model M in {online, backfill, mosp, openshop}, `fairsched.M.experiment` exports:

* ``Config``: the model's one configuration, a frozen dataclass of the model command's options, by the flags'
  names (``--window-length`` -> ``window_length``; ``--seed``, ``--out`` and ``--json`` excluded), with the CLI's
  defaults, plus the library's knobs the CLI lacks (e.g. ``validate``) as ordinary fields with defaults; checked
  on construction (one-line `ConfigError` naming the flag). The model's lower-level runners take the same
  ``Config``, and the seed as a separate argument; ``Config.from_mapping(mapping)`` builds one from a spec
  file's table (keys by flag name, dashes or underscores); ``Config.input_paths()`` lists the files it reads;
* ``run(config, seed, *, progress=None) -> Result``;
* ``Result.rows()``: a tidy `pandas.DataFrame`, one row per policy or algorithm: the config's fields (scalars;
  tuples comma-joined; paths as strings), ``policy``, then every metric (wall-clock timings excluded, so the same
  seed gives the same rows). A `Result` is data: it never imports `fairsched.report`, which writes it
  (``fairsched.report.write_result(result, out_dir)``: the files the CLI's ``--out`` writes, by name);
* optionally ``Result.per_org()``: one row per policy and organization (online ψ_u − φ_u, backfill per-user
  waits and unfairness, mosp per-organization makespans and gain), which a sweep keeps beside the cell's rows.

`ExperimentConfig` gives a config dataclass ``from_mapping``, ``input_paths`` and ``columns``; the ``check_*``
helpers word the errors of ``__post_init__`` alike for every model.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from fairsched.errors import ConfigError

if TYPE_CHECKING:  # pandas is imported by `rows_frame`, when a table is asked for (not by every command)
    import pandas as pd

ProgressCallback = Callable[[str, int, int], None]
"""Called as ``progress(description, steps_done, steps_total)`` before each step of a run."""


class Result(Protocol):
    """What every model's ``run`` returns (module docstring)."""

    seed: int

    def rows(self) -> pd.DataFrame: ...


def flag(name: str) -> str:
    """The CLI flag of a config field: ``window_length`` -> ``--window-length``."""
    return "--" + name.replace("_", "-")


class ExperimentConfig:
    """Mix-in for the frozen ``Config`` dataclasses: spec-file construction, input files, table columns.

    Subclasses set ``MODEL`` (the command's name), ``PATH_FIELDS`` (fields naming files or directories read) and
    ``REQUIRED`` (fields ``run`` needs although the Config allows None, e.g. backfill's trace: a sweep checks
    them before any cell runs).
    """

    MODEL: ClassVar[str] = ""
    PATH_FIELDS: ClassVar[tuple[str, ...]] = ()
    REQUIRED: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> typing.Self:
        """A config from a spec file's table: keys are flag names (dashes or underscores), values TOML types.

        Tuples accept a list or a comma-separated string; paths accept strings; integers are accepted for
        floats. An unknown key is a `ConfigError` that lists the valid ones.
        """
        hints = typing.get_type_hints(cls)
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        kwargs: dict[str, Any] = {}
        for key, value in mapping.items():
            name = str(key).strip().lstrip("-").replace("-", "_")
            if name not in names:
                raise ConfigError(f"unknown {cls.MODEL} option {key!r}; valid keys: "
                                  + ", ".join(n.replace("_", "-") for n in names))
            kwargs[name] = _coerce(value, hints[name])
        return cls(**kwargs)

    def input_paths(self) -> tuple[Path, ...]:
        """The input files this config reads (a directory counts as every file under it), for cache keys."""
        paths: list[Path] = []
        for name in self.PATH_FIELDS:
            value = getattr(self, name)
            if value is None or not self._reads(name):
                continue
            path = Path(value)
            paths.extend(sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path])
        return tuple(paths)

    def _reads(self, name: str) -> bool:
        """Whether the path field `name` is read with the other options (e.g. mosp's --trace only with
        --generate trace)."""
        return True

    def columns(self) -> dict[str, Any]:
        """The config's fields as table cells: scalars kept, tuples comma-joined, paths as strings."""
        return {f.name: _cell(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


def rows_frame(config: ExperimentConfig, per_policy: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The tidy table of `Result.rows`: the config's columns, ``policy``, then each row's metrics."""
    import pandas as pd

    base = config.columns()
    records = [{**base, **row} for row in per_policy]
    return pd.DataFrame.from_records(records)


def check_int(value: Any, name: str, *, minimum: int = 1, optional: bool = False) -> None:
    """`value` is an integer >= `minimum` (or None when `optional`), else a ConfigError naming the flag."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{flag(name)} {value!r}: expected an integer >= {minimum}")


def check_number(value: Any, name: str, *, positive: bool = False, optional: bool = False) -> None:
    """`value` is a finite number (> 0 when `positive`; None allowed when `optional`)."""
    if value is None and optional:
        return
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value == value and abs(value) != float(
        "inf")
    if not ok or (positive and value <= 0):
        raise ConfigError(f"{flag(name)} {value!r}: expected a finite number{' > 0' if positive else ''}")


def check_choice(value: Any, name: str, choices: Iterable[str]) -> None:
    """`value` is one of `choices`."""
    choices = tuple(choices)
    if value not in choices:
        raise ConfigError(f"{flag(name)} {value!r}: choose one of {', '.join(choices)}")


def check_bool(value: Any, name: str) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{flag(name)} {value!r}: expected true or false")


def check_names(value: Any, name: str) -> None:
    """`value` is a tuple of strings (a bare string would be read letter by letter)."""
    if not isinstance(value, tuple) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{flag(name)} {value!r}: expected a tuple of names, e.g. ('a', 'b'); from a spec file, "
                          "a list or a comma-separated string")


def check_path(value: Any, name: str) -> None:
    if value is not None and not isinstance(value, str | Path):
        raise ConfigError(f"{flag(name)} {value!r}: expected a file path")


def split_names(text: str) -> tuple[str, ...]:
    """``"a, b,,c"`` -> ``("a", "b", "c")``: how the CLI and spec files write lists of names."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _coerce(value: Any, hint: Any) -> Any:
    """A spec file's value in the field's type where the conversion is unambiguous; otherwise unchanged (the
    config's own checks then name the problem)."""
    args = set(typing.get_args(hint)) if typing.get_origin(hint) in (typing.Union, types.UnionType) else {hint}
    if value is None:
        return None
    if Path in args and isinstance(value, str):
        return Path(value)
    if any(typing.get_origin(arg) is tuple for arg in args):
        if isinstance(value, str):
            return split_names(value)
        if isinstance(value, list | tuple):
            return tuple(value)
    if float in args and int not in args and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _cell(value: Any) -> Any:
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value)
    if isinstance(value, Path):
        return str(value)
    return value
