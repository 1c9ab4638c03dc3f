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
from fairsched.audit.whatif_setup import check_backfill
from fairsched.errors import ConfigError, FairschedError

_SLURM_RULE_FIELDS = ("bf_interval", "bf_window", "bf_max_job_test")  # the slurm rule's options (WhatifConfig)


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

    @classmethod
    def not_applicable(cls, options: Mapping[str, Any]) -> tuple[str, ...]:
        """The fields among `options` (field name -> value) that have no effect with the others: ``bf_interval``,
        ``bf_window`` and ``bf_max_job_test`` unless ``backfill`` is ``slurm`` (a sweep leaves them out of such
        a cell, `fairsched.sweep.spec.expand`; `WhatifConfig` itself refuses them). An unknown rule gives ():
        the Config names the error.

        >>> Config.not_applicable({"backfill": "easy", "bf_window": "1h"}), Config.not_applicable({"bf_window": 60})
        (('bf_window',), ('bf_window',))
        >>> Config.not_applicable({"backfill": "Slurm", "bf_interval": "1min"})
        ()
        """
        name = options.get("backfill", cls.backfill)
        try:
            slurm = isinstance(name, str) and check_backfill(name) == "slurm"
        except FairschedError:
            return ()
        return () if slurm else tuple(field for field in _SLURM_RULE_FIELDS if field in options)

    def columns(self) -> dict[str, Any]:
        """The config's fields as table cells, without ``seed`` (the store keeps each cell's seed); the ``bf_*``
        fields are None (not applicable) unless the rule is ``slurm``."""
        columns = {key: value for key, value in super().columns().items() if key != "seed"}
        if self.backfill != "slurm":
            columns.update(dict.fromkeys(_SLURM_RULE_FIELDS))
        return columns

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
