"""``whatif`` as a model of ``fairsched sweep``: the experiment contract (`fairsched._contract`) over
`fairsched.audit.whatif`, so that one spec replays a log over a grid of half-lives, tick periods, weights,
backfilling rules or shares (docs/whatif.md, "Sweeping").

``Config`` is `fairsched.audit.whatif.WhatifConfig` with the contract's ``from_mapping`` / ``input_paths``; the
sweep's seed replaces ``seed`` (a spec cannot set it). ``Result.rows()`` has one row per (policy, organization):
the config's columns, then `fairsched.audit.whatif.ORG_COLUMNS`; `fairsched.report.write_result` writes a
``Result`` as ``fairsched whatif --out`` does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import pandas as pd

from fairsched._contract import ExperimentConfig, ProgressCallback, rows_frame
from fairsched.audit.whatif import WhatifConfig, WhatifResult, run_whatif
from fairsched.errors import ConfigError


@dataclass(frozen=True)
class Config(WhatifConfig, ExperimentConfig):
    """The options of ``fairsched whatif`` (`WhatifConfig`), buildable from a sweep spec's table."""

    MODEL: ClassVar[str] = "whatif"
    PATH_FIELDS: ClassVar[tuple[str, ...]] = ("log", "tree", "org_map", "shares")

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> Self:
        """A config from a spec's table (flag names); ``seed`` comes from the sweep's seeds, not from here."""
        if any(str(key).strip().lstrip("-") == "seed" for key in mapping):
            raise ConfigError("whatif option 'seed': a sweep sets the seed of each cell from [sweep] seeds")
        return super().from_mapping(mapping)

    def columns(self) -> dict[str, Any]:
        """The config's fields as table cells, without ``seed`` (the store keeps each cell's seed)."""
        return {key: value for key, value in super().columns().items() if key != "seed"}

    def _reads(self, name: str) -> bool:
        return name != "shares" or str(self.shares) not in ("equal", "usage")


@dataclass(frozen=True)
class Result:
    """One what-if under the contract: the `WhatifResult` and its tidy rows."""

    config: Config
    seed: int
    whatif: WhatifResult

    def rows(self) -> pd.DataFrame:
        """One row per policy: the config's columns, then the policy's measures (mean and p95 wait, Σ|gap|, ...)."""
        return rows_frame(self.config, self.whatif.policies.to_dict(orient="records"))

    def per_org(self) -> pd.DataFrame:
        """One row per (policy, organization): usage and entitled share, waits, the gap, fair start times."""
        return self.whatif.orgs.copy()


def run(config: Config, seed: int, *, progress: ProgressCallback | None = None) -> Result:
    """Run ``fairsched whatif`` with `config` and the cell's `seed` (Shapley and fair-start-time sampling)."""
    config = dataclasses.replace(config, seed=seed)
    return Result(config=config, seed=seed, whatif=run_whatif(config, progress=progress))
