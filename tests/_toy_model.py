"""A toy model that follows the experiment contract (issue 11 §1), so the sweep layer is tested on its own.

Sweep specs name it by its import path: ``model = "tests._toy_model"``. Each policy's ``score`` is
``scale * orgs + policy index + a standard normal draw from the seed``; ``sleep`` makes a cell take time (for the
interruption tests) and ``fail_seed`` makes the cells of one seed raise (for the failure tests). The environment
variable ``FAIRSCHED_TOY_SLEEP`` adds a delay that is not part of the config, so a slow run and a fast one give
the same cells.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError


@dataclass(frozen=True)
class Config:
    orgs: int = 2
    scale: float = 1.0
    policies: tuple[str, ...] = ("even", "greedy")
    sleep: float = 0.0
    fail_seed: int = -1
    data: Path | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.orgs, int) or self.orgs < 1:
            raise ConfigError(f"--orgs {self.orgs!r}: expected an integer >= 1")
        if not self.policies:
            raise ConfigError("--policies: name at least one policy")

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> Config:
        names = {f.name for f in fields(cls)}
        options = {}
        for key, value in mapping.items():
            name = key.replace("-", "_")
            if name not in names:
                raise ConfigError(f"unknown option {key!r}; valid: {', '.join(sorted(names))}")
            if name == "policies" and isinstance(value, str):
                value = tuple(part.strip() for part in value.split(",") if part.strip())
            if name == "data" and value is not None:
                value = Path(value)
            options[name] = value
        return cls(**options)

    def input_paths(self) -> tuple[Path, ...]:
        return () if self.data is None else (self.data,)


@dataclass(frozen=True)
class Result:
    config: Config
    seed: int
    scores: np.ndarray

    def rows(self) -> pd.DataFrame:
        base = {f.name: _column(getattr(self.config, f.name)) for f in fields(self.config)}
        return pd.DataFrame([{**base, "policy": name, "score": float(score), "n_orgs_seen": self.config.orgs}
                             for name, score in zip(self.config.policies, self.scores, strict=True)])

    def per_org(self) -> pd.DataFrame:
        """One row per (policy, organization): the policy's score split evenly over the organizations."""
        return pd.DataFrame([{"policy": name, "org": org, "share": float(score) / self.config.orgs}
                             for name, score in zip(self.config.policies, self.scores, strict=True)
                             for org in range(self.config.orgs)])


def run(config: Config, seed: int, *, progress: Any = None) -> Result:
    if seed == config.fail_seed:
        raise ValueError(f"toy failure for seed {seed}\nsecond line")
    delay = config.sleep + float(os.environ.get("FAIRSCHED_TOY_SLEEP", "0"))
    if delay:
        time.sleep(delay)
    rng = np.random.default_rng(seed)
    extra = 0.0 if config.data is None else float(len(config.data.read_bytes()))
    scores = config.scale * config.orgs + np.arange(len(config.policies)) + rng.standard_normal(len(config.policies))
    return Result(config=config, seed=seed, scores=scores + extra)


def _column(value: Any) -> Any:
    if isinstance(value, tuple):
        return ",".join(value)
    return None if value is None else value if isinstance(value, int | float | str) else str(value)
