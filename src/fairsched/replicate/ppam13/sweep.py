"""PPAM'13 Tables 1–2 as a sweep model (the experiment contract), so the PPAM'13 ablation grid runs as a sweep.

``model = "fairsched.replicate.ppam13.sweep"`` in a spec file sweeps `Config` (the fields of
`fairsched.replicate.ppam13.PPAM13Config` but the seed and the output directory); `variants_spec` writes the
spec of a list of `fairsched.replicate.ppam13.variants.Variant` — one ``[[zip]]`` block, one column per switch —
which is all it takes to move the grid onto `fairsched.sweep`. Through the sweep every variant runs its own REF;
``fairsched replicate ppam13 --variants`` shares REF runs between variants and is cheaper on one machine.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from fairsched._contract import ExperimentConfig, ProgressCallback, rows_frame
from fairsched.replicate._online_windows import OnlineReplicationResult, to_json, trace_file
from fairsched.replicate.ppam13.paper import PPAM13Config, check_config
from fairsched.replicate.ppam13.replication import run as run_ppam13
from fairsched.replicate.ppam13.variants import Variant

__all__ = ["Config", "Result", "run", "variants_spec"]

_EXCLUDED = ("seed", "out_dir", "executor", "scheduler", "store", "resume")


@dataclass(frozen=True)
class Config(PPAM13Config, ExperimentConfig):
    """`PPAM13Config` for a sweep: the same fields and checks; ``seed`` comes from the sweep, ``out_dir`` unused."""

    MODEL: ClassVar[str] = "replicate ppam13"
    PATH_FIELDS: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        check_config(self)

    def input_paths(self) -> tuple[Path, ...]:
        """The trace files the config reads (their hashes key the sweep's cache)."""
        return tuple(trace_file(self.traces_dir, trace) for trace in self.traces)

    def columns(self) -> dict[str, Any]:
        return {key: value for key, value in super().columns().items() if key not in _EXCLUDED}


@dataclass(frozen=True)
class Result:
    """The replication's rows for one seed (`Result.rows`: config columns, policy, the row metrics)."""

    config: Config
    seed: int
    replication: OnlineReplicationResult

    def rows(self) -> pd.DataFrame:
        metrics = [{key: value for key, value in row.items() if key != "policy"} | {"policy": row["policy"]}
                   for row in to_json(self.replication)["rows"]]
        frame = rows_frame(self.config, metrics)
        return frame.drop(columns=[c for c in frame.columns if c in _EXCLUDED or c.endswith("_s")])

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        from fairsched._io import atomic_write  # writing is optional

        path = Path(out_dir) / "ppam13_table.json"
        with atomic_write(path) as handle:
            json.dump(to_json(self.replication), handle, indent=2)
        return {"table": path}


def run(config: Config, seed: int, *, progress: ProgressCallback | None = None) -> Result:
    """`fairsched.replicate.ppam13.run` with the sweep's seed (windows, organizations, split, RAND)."""
    replication = run_ppam13(replace(config, seed=seed, out_dir=None), progress=progress)
    return Result(config=config, seed=seed, replication=replication)


def variants_spec(variants: Sequence[Variant], *, seeds: Sequence[int] = (0,),
                  base: dict[str, Any] | None = None) -> str:
    """The TOML spec running `variants` as one ``[[zip]]`` block (defaults filled where a variant keeps them)."""
    defaults = Config()
    switched = list(dict.fromkeys(key for variant in variants for key, _ in variant.overrides))
    valid = {f.name for f in fields(Config)}
    unknown = [key for key in switched if key not in valid]
    if unknown:
        from fairsched.errors import ConfigError

        raise ConfigError(f"variants override unknown PPAM13Config fields: {', '.join(unknown)}")
    lines = ["[sweep]", 'model = "fairsched.replicate.ppam13.sweep"', f"seeds = {json.dumps(list(seeds))}",
             "[base]"]
    lines += [f"{key.replace('_', '-')} = {_toml(value)}" for key, value in (base or {}).items()]
    lines.append("[[zip]]")
    for key in switched:
        column = [dict(variant.overrides).get(key, getattr(defaults, key)) for variant in variants]
        lines.append(f"{key.replace('_', '-')} = [{', '.join(_toml(value) for value in column)}]")
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, Path):
        return json.dumps(str(value))
    return json.dumps(value)
