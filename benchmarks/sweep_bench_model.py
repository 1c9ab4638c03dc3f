"""A model for `bench_sweep.py` that follows the experiment contract: each cell does a fixed amount of numpy work
(``work`` rounds) and reports how long it took, so the sweep layer's overhead is measured against the cells' own
time."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from fairsched._contract import ExperimentConfig, rows_frame


@dataclass(frozen=True)
class Config(ExperimentConfig):
    MODEL: ClassVar[str] = "bench"

    work: int = 100
    index: int = 0


@dataclass(frozen=True)
class Result:
    config: Config
    seed: int
    cell_s: float

    def rows(self) -> pd.DataFrame:
        return rows_frame(self.config, [{"policy": "busy", "cell_s": self.cell_s}])

    def write(self, out_dir: str | Path) -> dict[str, Path]:
        return {}


def busy(work: int) -> float:
    """`work` rounds of a 20,000-element sort; returns a checksum so that nothing is optimized away."""
    rng = np.random.default_rng(0)
    values = rng.random(20_000)
    total = 0.0
    for _ in range(work):
        total += float(np.sort(values)[7])
    return total


def run(config: Config, seed: int, *, progress: Any = None) -> Result:
    started = time.perf_counter()
    busy(config.work)
    return Result(config=config, seed=seed, cell_s=time.perf_counter() - started)


def solve_chunk(specs: list[Any]) -> list[dict[str, Any]]:
    """The pre-sweep TPDS'11 loop's unit of work (`bench_sweep.py --tpds11` baseline): a chunk of instances."""
    from fairsched.replicate.tpds11 import solve_instance

    return [record for spec in specs for record in solve_instance(spec)]
